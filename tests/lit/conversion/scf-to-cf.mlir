// RUN: layoutc-opt %s -p 'builtin.module(convert-scf-to-cf)' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-scf-to-cf)' --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @for_iter_args
// CHECK-SAME: (%[[LB:.*]]: index, %[[UB:.*]]: index, %[[ST:.*]]: index, %[[INIT:.*]]: f32) -> f32
// CHECK:   cf.br ^bb1(%[[LB]], %[[INIT]] : index, f32)
// CHECK: ^bb1(%[[IV:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:   %[[CMP:.*]] = arith.cmpi slt, %[[IV]], %[[UB]] : index
// CHECK:   cf.cond_br %[[CMP]], ^bb2(%[[IV]], %[[ACC]] : index, f32), ^bb3
// CHECK: ^bb2(%[[I:.*]]: index, %[[A:.*]]: f32):
// CHECK:   %[[SUM:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK:   %[[NEXT:.*]] = arith.addi %[[I]], %[[ST]] : index
// CHECK:   cf.br ^bb1(%[[NEXT]], %[[SUM]] : index, f32)
// CHECK: ^bb3:
// CHECK:   return %[[ACC]] : f32
func.func @for_iter_args(%lb: index, %ub: index, %st: index, %init: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %init) -> (f32) {
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @for_unsigned
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
func.func @for_unsigned(%lb: i32, %ub: i32, %st: i32) {
  scf.for unsigned %i = %lb to %ub step %st : i32 {
  }
  return
}

// CHECK-LABEL: func.func @if_results
// CHECK:   cf.cond_br %{{.*}}, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK:   cf.br ^bb3(%{{.*}} : i32)
// CHECK: ^bb2:
// CHECK:   cf.br ^bb3(%{{.*}} : i32)
// CHECK: ^bb3(%[[R:.*]]: i32):
// CHECK:   return %[[R]] : i32
func.func @if_results(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.addi %a, %b : i32
    scf.yield %x : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func @if_no_else
// CHECK:   cf.cond_br %{{.*}}, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK:   llvm.store
// CHECK:   cf.br ^bb2
// CHECK: ^bb2:
// CHECK:   return
func.func @if_no_else(%c: i1, %p: !llvm.ptr, %v: f32) {
  scf.if %c {
    llvm.store %v, %p : f32, !llvm.ptr
  }
  return
}

// CHECK-LABEL: func.func @while_loop
// CHECK-SAME: (%[[INIT:.*]]: i32, %[[N:.*]]: i32) -> i32
// CHECK:   cf.br ^bb1(%[[INIT]] : i32)
// CHECK: ^bb1(%[[X:.*]]: i32):
// CHECK:   %[[C:.*]] = arith.cmpi slt, %[[X]], %[[N]] : i32
// CHECK:   cf.cond_br %[[C]], ^bb2(%[[X]] : i32), ^bb3(%[[X]] : i32)
// CHECK: ^bb2(%[[Y:.*]]: i32):
// CHECK:   %[[Z:.*]] = arith.addi %[[Y]], %[[Y]] : i32
// CHECK:   cf.br ^bb1(%[[Z]] : i32)
// CHECK: ^bb3(%[[R:.*]]: i32):
// CHECK:   return %[[R]] : i32
func.func @while_loop(%init: i32, %n: i32) -> i32 {
  %r = scf.while (%x = %init) : (i32) -> i32 {
    %c = arith.cmpi slt, %x, %n : i32
    scf.condition(%c) %x : i32
  } do {
  ^bb0(%y: i32):
    %z = arith.addi %y, %y : i32
    scf.yield %z : i32
  }
  return %r : i32
}

// Nested loops: the outer loop is lowered first, the inner one inside its body next.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: scf.
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi slt
// CHECK: cf.cond_br
// CHECK: return
func.func @nested(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %s = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (index) {
      %t = arith.addi %b, %j : index
      scf.yield %t : index
    }
    %c = arith.cmpi eq, %s, %c0 : index
    %u = scf.if %c -> (index) {
      scf.yield %c1 : index
    } else {
      scf.yield %s : index
    }
    scf.yield %u : index
  }
  return %r : index
}

// XDSL: func.func @nested
