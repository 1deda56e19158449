// The llvm dialect's arithmetic, functions and branches (what convert-arith/cf/func-to-llvm
// produce) print in MLIR 22's custom forms and generic form, and read back.
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK: llvm.func @decl(i32) -> i32
// GENERIC: "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<i32 (i32)>, linkage = #llvm.linkage<external>, sym_name = "decl", visibility_ = 0 : i64}>
llvm.func @decl(i32) -> i32

// CHECK: llvm.func internal @helper(%{{.*}}: f32) -> f32 {
llvm.func internal @helper(%x: f32) -> f32 {
  // CHECK: llvm.return %{{.*}} : f32
  llvm.return %x : f32
}

// CHECK: llvm.func @k(%{{.*}}: f32, %{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
llvm.func @k(%x: f32, %p: !llvm.ptr<1> {llvm.noalias}, %a: i32) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  // CHECK: llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i32
  // GENERIC: "llvm.add"(%{{.*}}, %{{.*}}) <{overflowFlags = 1 : i32}> : (i32, i32) -> i32
  %0 = llvm.add %a, %a overflow<nsw> : i32
  // CHECK: llvm.shl %{{.*}}, %{{.*}} overflow<nsw, nuw> : i32
  %1 = llvm.shl %0, %a overflow<nsw, nuw> : i32
  // CHECK: llvm.sub %{{.*}}, %{{.*}} : i32
  // GENERIC: "llvm.sub"(%{{.*}}, %{{.*}}) <{overflowFlags = 0 : i32}>
  %2 = llvm.sub %1, %a : i32
  // CHECK: llvm.udiv exact %{{.*}}, %{{.*}} : i32
  // GENERIC: "llvm.udiv"(%{{.*}}, %{{.*}}) <{isExact}> : (i32, i32) -> i32
  %3 = llvm.udiv exact %2, %a : i32
  // CHECK: llvm.or disjoint %{{.*}}, %{{.*}} : i32
  %4 = llvm.or disjoint %3, %a : i32
  // CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
  // GENERIC: "llvm.icmp"(%{{.*}}, %{{.*}}) <{predicate = 6 : i64}> : (i32, i32) -> i1
  %5 = llvm.icmp "ult" %4, %a : i32
  // CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
  // GENERIC: "llvm.select"(%{{.*}}, %{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<none>}> : (i1, i32, i32) -> i32
  %6 = llvm.select %5, %4, %a : i1, i32
  // CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<fast>} : f32
  %7 = llvm.fadd %x, %x {fastmathFlags = #llvm.fastmath<fast>} : f32
  // CHECK: llvm.fcmp "_false" %{{.*}}, %{{.*}} : f32
  // GENERIC: "llvm.fcmp"(%{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<none>, predicate = 0 : i64}>
  %8 = llvm.fcmp "_false" %7, %x : f32
  // CHECK: llvm.fneg %{{.*}} : f32
  %9 = llvm.fneg %7 : f32
  // CHECK: llvm.intr.smin(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %10 = llvm.intr.smin(%6, %a) : (i32, i32) -> i32
  // CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  // GENERIC: "llvm.intr.maximum"(%{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<none>}>
  %11 = llvm.intr.maximum(%9, %x) : (f32, f32) -> f32
  // CHECK: llvm.zext nneg %{{.*}} : i32 to i64
  // GENERIC: "llvm.zext"(%{{.*}}) <{nonNeg}> : (i32) -> i64
  %12 = llvm.zext nneg %10 : i32 to i64
  // CHECK: llvm.trunc %{{.*}} overflow<nuw> : i64 to i16
  %13 = llvm.trunc %12 overflow<nuw> : i64 to i16
  // CHECK: llvm.sitofp %{{.*}} : i16 to bf16
  %14 = llvm.sitofp %13 : i16 to bf16
  // CHECK: llvm.fpext %{{.*}} : bf16 to f32
  %15 = llvm.fpext %14 : bf16 to f32
  // CHECK: llvm.call @helper(%{{.*}}) : (f32) -> f32
  // GENERIC: "llvm.call"(%{{.*}}) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @helper, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 1, 0>}> : (f32) -> f32
  %16 = llvm.call @helper(%15) : (f32) -> f32
  // CHECK: llvm.cond_br %{{.*}}, ^bb1(%{{.*}} : f32), ^bb2
  // GENERIC: "llvm.cond_br"(%{{.*}}, %{{.*}})[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, f32) -> ()
  llvm.cond_br %8, ^bb1(%16 : f32), ^bb2
^bb1(%y: f32):
  // CHECK: llvm.br ^bb2
  llvm.br ^bb2
^bb2:
  // CHECK: llvm.return{{$}}
  llvm.return
}

// CHECK: llvm.func @dead() {
llvm.func @dead() {
  // CHECK: llvm.unreachable
  llvm.unreachable
}

// A result with attributes is parenthesised.
// CHECK: llvm.func @result_attrs(%{{.*}}: i32) -> (i32 {llvm.noundef}) {
llvm.func @result_attrs(%a: i32) -> (i32 {llvm.noundef}) {
  llvm.return %a : i32
}
