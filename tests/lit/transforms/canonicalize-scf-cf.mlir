// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' --split-input-file --allow-unregistered-dialect | FileCheck %s

// scf.if on a constant condition is replaced by the taken branch.
// CHECK-LABEL: func.func @if_true
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32, %[[B:[a-z0-9]+]]: i32)
// CHECK-NOT: scf.if
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: "test.effect"(%[[S]])
// CHECK-NEXT: return %[[S]] : i32
func.func @if_true(%a: i32, %b: i32) -> i32 {
  %t = arith.constant true
  %r = scf.if %t -> (i32) {
    %s = arith.addi %a, %b : i32
    "test.effect"(%s) : (i32) -> ()
    scf.yield %s : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// CHECK-LABEL: func.func @if_false_no_else
// CHECK-NEXT: return
func.func @if_false_no_else(%a: i32) {
  %f = arith.constant false
  scf.if %f {
    "test.effect"(%a) : (i32) -> ()
  }
  return
}

// -----

// A loop that runs zero times yields its initial values; one that runs once is inlined.
// CHECK-LABEL: func.func @trip_counts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: f32)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NOT: scf.for
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK-NEXT: "test.effect"(%[[C2]]) : (index) -> ()
// CHECK-NEXT: return %[[X]], %[[Y]] : f32, f32
func.func @trip_counts(%x: f32) -> (f32, f32) {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = scf.for %i = %c2 to %c1 step %c1 iter_args(%acc = %x) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  %once = scf.for %i = %c2 to %c5 step %c5 iter_args(%acc = %x) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    "test.effect"(%i) : (index) -> ()
    scf.yield %s : f32
  }
  return %zero, %once : f32, f32
}

// -----

// Loops and branches whose results are unused and whose bodies have no effects are dead.
// CHECK-LABEL: func.func @dead_regions
// CHECK-NOT: arith.mulf
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NEXT: "test.effect"
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @dead_regions(%n: index, %c: i1, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %s = arith.mulf %acc, %acc : f32
    scf.yield %s : f32
  }
  %q = scf.if %c -> (f32) {
    scf.yield %r : f32
  } else {
    scf.yield %x : f32
  }
  scf.for %i = %c0 to %n step %c1 {
    "test.effect"(%i) : (index) -> ()
  }
  return
}

// -----

// cf.cond_br on a constant becomes cf.br; the untaken block becomes unreachable and goes.
// CHECK-LABEL: func.func @cond_br_constant
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: "test.effect"() : () -> ()
// CHECK-NEXT: return
// CHECK-NOT: ^bb2
func.func @cond_br_constant() {
  %t = arith.constant true
  cf.cond_br %t, ^yes, ^no
^yes:
  "test.effect"() : () -> ()
  return
^no:
  "test.other"() : () -> ()
  return
}

// -----

// CHECK-LABEL: func.func @cond_br_same_successor
// CHECK-SAME: (%{{.*}}: i1, %[[A:[a-z0-9]+]]: i32)
// CHECK-NEXT: cf.br ^bb1(%[[A]] : i32)
func.func @cond_br_same_successor(%c: i1, %a: i32) -> i32 {
  cf.cond_br %c, ^next(%a : i32), ^next(%a : i32)
^next(%x: i32):
  return %x : i32
}

// -----

// Blocks no path reaches are erased even when they use each other's values.
// CHECK-LABEL: func.func @unreachable
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unreachable(%a: i32) {
  return
^dead1:
  %x = arith.addi %y, %y : i32
  cf.br ^dead2
^dead2:
  %y = arith.addi %x, %x : i32
  cf.br ^dead1
}

// -----

// region-simplify=false keeps unreachable blocks (MLIR's option).
// RUN: layoutc-opt %s -p 'builtin.module(canonicalize{region-simplify=false})' --split-input-file --allow-unregistered-dialect | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @kept_unreachable
// KEEP: ^bb1:
// KEEP-NEXT: "test.effect"
func.func @kept_unreachable() {
  return
^dead:
  "test.effect"() : () -> ()
  return
}
