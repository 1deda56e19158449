// RUN: layoutc-opt %s --split-input-file | FileCheck %s
// RUN: layoutc-opt %s --split-input-file --print-generic | layoutc-opt --split-input-file | FileCheck %s
// RUN: layoutc-opt %s --split-input-file --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @for_loops
func.func @for_loops(%lb: index, %ub: index, %st: index, %init: f32, %n: i32) -> f32 {
  // CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[ACC]] : f32
  // CHECK-NEXT: scf.yield %[[S]] : f32
  // CHECK-NEXT: }
  // GENERIC: "scf.for"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) ({
  // GENERIC-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: f32):
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  // An empty body: the implicit scf.yield is not printed.
  // CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
  // CHECK-NEXT: }
  // GENERIC: "scf.yield"() : () -> ()
  scf.for %j = %lb to %ub step %st {
  }
  return %r : f32
}

// -----

// Integer induction variables and unsigned comparison (MLIR's unsignedCmp property).
// CHECK-LABEL: func.func @unsigned_loop
// CHECK: scf.for unsigned %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// GENERIC: <{unsignedCmp}>
func.func @unsigned_loop(%n: i32) {
  scf.for unsigned %k = %n to %n step %n : i32 {
    %x = arith.addi %k, %k : i32
  }
  return
}

// -----

// CHECK-LABEL: func.func @ifs
func.func @ifs(%c: i1, %a: i32, %b: i32) -> i32 {
  // CHECK: %{{.*}} = scf.if %{{.*}} -> (i32) {
  // CHECK-NEXT: scf.yield %{{.*}} : i32
  // CHECK-NEXT: } else {
  // CHECK-NEXT: scf.yield %{{.*}} : i32
  // CHECK-NEXT: }
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  // CHECK: scf.if %{{.*}} {
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: }
  // CHECK-NOT: else
  // GENERIC: "arith.addi"(%a, %b)
  // GENERIC-NEXT: "scf.yield"() : () -> ()
  // GENERIC-NEXT: }, {
  // GENERIC-NEXT: }) : (i1) -> ()
  scf.if %c {
    %s = arith.addi %a, %b : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func @whiles
func.func @whiles(%init: i32, %lim: i32) -> i32 {
  // CHECK: %{{.*}}:2 = scf.while (%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) : (i32, i32) -> (i32, i32) {
  // CHECK: scf.condition(%{{.*}}) %[[X]], %[[Y]] : i32, i32
  // CHECK: } do {
  // CHECK-NEXT: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
  // CHECK: scf.yield %{{.*}}, %{{.*}} : i32, i32
  %w:2 = scf.while (%x = %init, %y = %lim) : (i32, i32) -> (i32, i32) {
    %c = arith.cmpi slt, %x, %y : i32
    scf.condition(%c) %x, %y : i32, i32
  } do {
  ^bb0(%x2: i32, %y2: i32):
    %n = arith.addi %x2, %x2 : i32
    scf.yield %n, %y2 : i32, i32
  }
  return %w#1 : i32
}
