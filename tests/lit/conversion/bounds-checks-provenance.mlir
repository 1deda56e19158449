// RUN: layoutc-opt %s -p 'builtin.module(insert-bounds-checks)' | FileCheck %s

// The bounds check follows a pointer back to the objects it may point into: through branch
// arguments (a loop-carried pointer is still parameter 0's) and selects (one of two parameters:
// inside either span is in bounds). Pointers whose object is unknown stay unchecked.

// A pointer advanced around a loop: the only object is %a, checked against its span (words 48,
// 49) and redirected to scratch when bad.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: layoutc.bounds_sites = ["{{.*}}provenance.mlir:26:3: store of 4 bytes"]
// CHECK: %[[SCRATCH:.*]] = llvm.getelementptr %{{.*}}[16]
// CHECK: %[[LO:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[HI:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[SIZE:.*]] = llvm.sub %[[HI]], %[[LO]]
// CHECK: %[[STARTS:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// CHECK: ^bb1(%[[P:.*]]: !llvm.ptr<1>, %{{.*}}: i64):
// CHECK: %[[A:.*]] = llvm.ptrtoint %[[P]]
// CHECK: %[[OFF:.*]] = llvm.sub %[[A]], %[[LO]]
// CHECK: %[[OK:.*]] = llvm.icmp "ult" %[[OFF]], %[[STARTS]]
// CHECK: llvm.select %[[OK]], %[[P]], %[[SCRATCH]]
func.func @loop(%a: !llvm.ptr<1>, %n: i64, %v: f32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  cf.br ^bb1(%a, %c0 : !llvm.ptr<1>, i64)
^bb1(%p: !llvm.ptr<1>, %i: i64):
  llvm.store %v, %p : f32, !llvm.ptr<1>
  %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
  %j = arith.addi %i, %c1 : i64
  %more = arith.cmpi slt, %j, %n : i64
  cf.cond_br %more, ^bb1(%q, %j : !llvm.ptr<1>, i64), ^bb2
^bb2:
  return
}

// One of two parameters, chosen at run time: in bounds when inside either span, and a bad access
// records PARAM -2 ("several objects").
// CHECK-LABEL: func.func @either
// CHECK: %[[LOA:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[HIA:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[LOB:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[HIB:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK: %[[X:.*]] = llvm.ptrtoint %[[P]]
// CHECK-DAG: llvm.sub %[[X]], %[[LOA]]
// CHECK-DAG: llvm.sub %[[X]], %[[LOB]]
// CHECK: %[[OK:.*]] = llvm.or
// CHECK: cf.cond_br %[[OK]]
// CHECK: llvm.mlir.constant(-2 : i64) : i64
func.func @either(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: i1, %v: f32) attributes {gpu.kernel} {
  %p = arith.select %c, %a, %b : !llvm.ptr<1>
  llvm.store %v, %p : f32, !llvm.ptr<1>
  return
}

// Dynamic shared memory is as large as the launch says (record word 11).
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @dyn : !llvm.ptr<3>
// CHECK: %[[LO:.*]] = llvm.ptrtoint %[[BASE]]
// CHECK: llvm.getelementptr %{{.*}}[11]
// CHECK: %[[BYTES:.*]] = llvm.load %{{.*}} invariant
// CHECK: %[[FITS:.*]] = llvm.icmp "uge" %[[BYTES]], %{{.*}}
// CHECK: %[[LESS:.*]] = llvm.sub %[[BYTES]], %{{.*}}
// CHECK: %[[STARTS:.*]] = llvm.select %[[FITS]], %[[LESS]], %{{.*}} : i1, i64
// CHECK: %[[A:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK: %[[OFF:.*]] = llvm.sub %[[A]], %[[LO]]
// CHECK: %[[OK:.*]] = llvm.icmp "ult" %[[OFF]], %[[STARTS]]
// CHECK: llvm.select %[[OK]], %{{.*}}, %[[BASE]] : i1, !llvm.ptr<3>
llvm.mlir.global external @dyn() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
func.func @dynamic(%i: i64, %v: f32) attributes {gpu.kernel} {
  %s = llvm.mlir.addressof @dyn : !llvm.ptr<3>
  %p = llvm.getelementptr %s[%i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
  llvm.store %v, %p : f32, !llvm.ptr<3>
  return
}

// A pointer loaded from memory has no known object: the load that reads it is checked, the
// store through it is not.
// CHECK-LABEL: func.func @loaded
// CHECK-SAME: layoutc.bounds_sites = ["{{.*}}provenance.mlir:81:3: load of 8 bytes"]
func.func @loaded(%a: !llvm.ptr<1>, %v: f32) attributes {gpu.kernel} {
  %p = llvm.load %a : !llvm.ptr<1> -> !llvm.ptr<1>
  llvm.store %v, %p : f32, !llvm.ptr<1>
  return
}
