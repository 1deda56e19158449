// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// Types print as MLIR does: nested LLVM types drop the !llvm. prefix.
// CHECK: llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// GENERIC: "llvm.mlir.global"() <{addr_space = 3 : i32, alignment = 16 : i64, global_type = !llvm.array<256 x f32>, linkage = #llvm.linkage<internal>, sym_name = "smem", visibility_ = 0 : i64}> ({
llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// CHECK: llvm.mlir.global external @dyn() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
llvm.mlir.global external @dyn() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global private constant @msg("hi\00") : !llvm.array<3 x i8>
llvm.mlir.global private constant @msg("hi\00") : !llvm.array<3 x i8>
// Upstream prints a string-initialised global without its type (an i8 array of its bytes).
// CHECK: llvm.mlir.global private constant @msg2("hey\00") : !llvm.array<4 x i8>
llvm.mlir.global private constant @msg2("hey\00") {addr_space = 0 : i32}
// CHECK: llvm.mlir.global internal @counter(7 : i32) : i32
llvm.mlir.global internal @counter(7 : i32) : i32

// CHECK-LABEL: func.func @values
// CHECK-SAME: (%[[S:.*]]: !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>, %[[V:.*]]: vector<4xf32>)
func.func @values(%s: !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>, %v: vector<4xf32>) {
  // CHECK: %[[C:.*]] = llvm.mlir.constant(1 : i32) : i32
  // GENERIC: "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
  %c = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.mlir.constant(2.500000e+00 : f32) : f32
  %f = llvm.mlir.constant(2.5 : f32) : f32
  // CHECK: llvm.mlir.constant(true) : i1
  %t = llvm.mlir.constant(true) : i1
  // CHECK: llvm.mlir.undef : vector<4xf32>
  %u = llvm.mlir.undef : vector<4xf32>
  // CHECK: llvm.mlir.poison : !llvm.struct<(i32, f32)>
  %p = llvm.mlir.poison : !llvm.struct<(i32, f32)>
  // CHECK: llvm.mlir.zero : !llvm.ptr<1>
  %z = llvm.mlir.zero : !llvm.ptr<1>
  // CHECK: %[[E:.*]] = llvm.extractvalue %[[S]][2, 0] : !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>
  // GENERIC: "llvm.extractvalue"(%{{.*}}) <{position = array<i64: 2, 0>}> : (!llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>) -> f32
  %e = llvm.extractvalue %s[2, 0] : !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>
  // CHECK: llvm.insertvalue %[[E]], %[[S]][2, 0] : !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>
  %s2 = llvm.insertvalue %e, %s[2, 0] : !llvm.struct<(ptr<1>, i32, struct<(f32, array<2 x i8>)>)>
  // CHECK: %[[X:.*]] = llvm.extractelement %[[V]][%[[C]] : i32] : vector<4xf32>
  // GENERIC: "llvm.extractelement"(%{{.*}}, %{{.*}}) : (vector<4xf32>, i32) -> f32
  %x = llvm.extractelement %v[%c : i32] : vector<4xf32>
  // CHECK: llvm.insertelement %[[X]], %[[V]][%[[C]] : i32] : vector<4xf32>
  // GENERIC: "llvm.insertelement"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xf32>, f32, i32) -> vector<4xf32>
  %w = llvm.insertelement %x, %v[%c : i32] : vector<4xf32>
  return
}

// CHECK-LABEL: func.func @memory
func.func @memory(%g: !llvm.ptr<1>, %i: i64) {
  // CHECK: %[[A:.*]] = llvm.mlir.addressof @smem : !llvm.ptr<3>
  // GENERIC: "llvm.mlir.addressof"() <{global_name = @smem}> : () -> !llvm.ptr<3>
  %a = llvm.mlir.addressof @smem : !llvm.ptr<3>
  // CHECK: %[[Q:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}, 4] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.array<8 x f32>
  // GENERIC: "llvm.getelementptr"(%{{.*}}, %{{.*}}) <{elem_type = !llvm.array<8 x f32>, noWrapFlags = 3 : i32, rawConstantIndices = array<i32: -2147483648, 4>}>
  %q = llvm.getelementptr inbounds %g[%i, 4] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, !llvm.array<8 x f32>
  // CHECK: llvm.getelementptr %{{.*}}[0, 1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.struct<(i32, f32)>
  %f = llvm.getelementptr %g[0, 1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, !llvm.struct<(i32, f32)>
  // CHECK: llvm.getelementptr inbounds|nuw
  %n = llvm.getelementptr inbounds|nuw %g[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK: %[[L:.*]] = llvm.load %[[Q]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // GENERIC: "llvm.load"(%{{.*}}) <{alignment = 16 : i64, ordering = 0 : i64}> : (!llvm.ptr<1>) -> vector<4xf32>
  %l = llvm.load %q {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK: llvm.load %[[Q]] atomic acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  %la = llvm.load %q atomic acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK: llvm.store %[[L]], %[[A]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  llvm.store %l, %a {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  // CHECK: llvm.store volatile %{{.*}}, %{{.*}} {nontemporal} : i32, !llvm.ptr<1>
  llvm.store volatile %la, %q {nontemporal} : i32, !llvm.ptr<1>
  %one = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.alloca %{{.*}} x !llvm.array<4 x f32> {alignment = 16 : i64} : (i32) -> !llvm.ptr
  // GENERIC: "llvm.alloca"(%{{.*}}) <{alignment = 16 : i64, elem_type = !llvm.array<4 x f32>}> : (i32) -> !llvm.ptr
  %al = llvm.alloca %one x !llvm.array<4 x f32> {alignment = 16 : i64} : (i32) -> !llvm.ptr
  // CHECK: llvm.addrspacecast %[[A]] : !llvm.ptr<3> to !llvm.ptr
  %gen = llvm.addrspacecast %a : !llvm.ptr<3> to !llvm.ptr
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
  %pi = llvm.ptrtoint %gen : !llvm.ptr to i64
  // CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
  %ip = llvm.inttoptr %pi : i64 to !llvm.ptr<1>
  // CHECK: llvm.bitcast %{{.*}} : i32 to f32
  %bc = llvm.bitcast %la : i32 to f32
  // CHECK: llvm.fence syncscope("agent") seq_cst
  // GENERIC: "llvm.fence"() <{ordering = 7 : i64, syncscope = "agent"}> : () -> ()
  llvm.fence syncscope("agent") seq_cst
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
  // GENERIC: "llvm.atomicrmw"(%{{.*}}, %{{.*}}) <{alignment = 4 : i64, bin_op = 11 : i64, ordering = 2 : i64}> : (!llvm.ptr<1>, f32) -> f32
  %r = llvm.atomicrmw fadd %g, %bc monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
  // upstream spells and/or/xor `_and`/`_or`/`_xor`; LLVM IR's spelling is read as well
  // CHECK: llvm.atomicrmw _and %{{.*}}, %{{.*}} syncscope("block") acq_rel : !llvm.ptr<1>, i32
  %r2 = llvm.atomicrmw and %g, %la syncscope("block") acq_rel : !llvm.ptr<1>, i32
  // CHECK: llvm.atomicrmw _xor %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
  %r3 = llvm.atomicrmw _xor %g, %la monotonic : !llvm.ptr<1>, i32
  return
}

// CHECK-LABEL: func.func @calls
func.func @calls(%a: i32, %f: f32) {
  // CHECK: llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()
  // GENERIC: "llvm.inline_asm"() <{asm_string = "bar.sync 0;", constraints = "", has_side_effects}> : () -> ()
  llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()
  // CHECK: llvm.inline_asm asm_dialect = att "mov.b32 $0, $1;", "=r,f" %{{.*}} : (f32) -> i32
  %x = llvm.inline_asm asm_dialect = att "mov.b32 $0, $1;", "=r,f" %f : (f32) -> i32
  // CHECK: llvm.inline_asm "mov.b64 {$0, $1}, $2;", "=r,=r,l" %{{.*}} : (i64) -> !llvm.struct<(i32, i32)>
  %wide = llvm.mlir.constant(5 : i64) : i64
  %y = llvm.inline_asm "mov.b64 {$0, $1}, $2;", "=r,=r,l" %wide : (i64) -> !llvm.struct<(i32, i32)>
  // CHECK: llvm.call_intrinsic "llvm.fma.f32"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  // GENERIC: "llvm.call_intrinsic"(%{{.*}}, %{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<none>, intrin = "llvm.fma.f32", op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 3, 0>}>
  %m = llvm.call_intrinsic "llvm.fma.f32"(%f, %f, %f) : (f32, f32, f32) -> f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
  llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
  return
}

// XDSL: llvm.mlir.global
// XDSL: func.func @calls
