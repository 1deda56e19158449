// RUN: layoutc-opt %s -p 'builtin.module(inline,symbol-dce)' | FileCheck %s

// CHECK-NOT: func.func private @sq
func.func private @sq(%x: i32) -> i32 {
  %0 = arith.muli %x, %x : i32
  return %0 : i32
}

// @abs stays: it is still called from inside scf.if, where its blocks cannot go.
// CHECK-LABEL: func.func private @abs
func.func private @abs(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %neg = arith.cmpi slt, %x, %c0 : i32
  cf.cond_br %neg, ^bb1, ^bb2(%x : i32)
^bb1:
  %n = arith.subi %c0, %x : i32
  cf.br ^bb2(%n : i32)
^bb2(%r: i32):
  return %r : i32
}

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32, %[[C:[a-z0-9]+]]: i1)
// CHECK: %[[SQ:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: cf.br ^bb1(%[[SQ]] : i32)
// CHECK-NEXT: ^bb1(%[[X:.*]]: i32):
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[X]], %{{.*}} : i32
// CHECK-NEXT: cf.cond_br %[[NEG]], ^bb2, ^bb3(%[[X]] : i32)
// CHECK: ^bb3(%[[R:.*]]: i32):
// CHECK-NEXT: cf.br ^bb4(%[[R]] : i32)
// CHECK-NEXT: ^bb4(%[[ABS:.*]]: i32):
// CHECK-NEXT: scf.if %[[C]] -> (i32) {
// CHECK-NEXT: %[[IN:.*]] = func.call @abs(%[[ABS]])
// CHECK-NEXT: %[[SQ2:.*]] = arith.muli %[[IN]], %[[IN]] : i32
// CHECK-NEXT: scf.yield %[[SQ2]] : i32
func.func @main(%a: i32, %c: i1) -> i32 {
  %0 = call @sq(%a) : (i32) -> i32
  %1 = call @abs(%0) : (i32) -> i32
  %2 = scf.if %c -> (i32) {
    %3 = func.call @abs(%1) : (i32) -> i32
    %4 = func.call @sq(%3) : (i32) -> i32
    scf.yield %4 : i32
  } else {
    scf.yield %1 : i32
  }
  return %2 : i32
}
