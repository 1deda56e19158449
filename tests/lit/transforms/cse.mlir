// RUN: layoutc-opt %s -p 'builtin.module(cse)' --split-input-file --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @simple
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32, %[[B:[a-z0-9]+]]: i32)
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[S]], %[[S]] : i32
// CHECK-NEXT: return %[[P]], %[[S]] : i32, i32
func.func @simple(%a: i32, %b: i32) -> (i32, i32) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %b : i32
  %2 = arith.muli %0, %1 : i32
  // Commutative ops match with swapped operands.
  %3 = arith.addi %b, %a : i32
  return %2, %3 : i32, i32
}

// -----

// Properties, attributes and result types must be equal.
// CHECK-LABEL: func.func @different
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: arith.cmpi sgt
// CHECK-NEXT: arith.subi
// CHECK-NEXT: arith.subi
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: "test.pure"() {tag = 1 : i64}
// CHECK-NEXT: "test.pure"() {tag = 2 : i64}
func.func @different(%a: i32, %b: i32) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %b overflow<nsw> : i32
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.cmpi sgt, %a, %b : i32
  // Not commutative: order matters.
  %4 = arith.subi %a, %b : i32
  %5 = arith.subi %b, %a : i32
  %6 = arith.constant 1 : i32
  %7 = arith.constant 1 : i64
  %8 = "test.pure"() {tag = 1} : () -> i32
  %9 = "test.pure"() {tag = 2} : () -> i32
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9) : (i32, i32, i1, i1, i32, i32, i32, i64, i32, i32) -> ()
  return
}

// -----

// Values computed above are reused in nested regions, never the other way round.
// CHECK-LABEL: func.func @nested
// CHECK: %[[OUT:.*]] = arith.muli
// CHECK-NEXT: "test.use"(%[[OUT]])
// CHECK-NEXT: scf.if
// CHECK-NEXT: "test.use"(%[[OUT]])
// CHECK-NEXT: %[[IN:.*]] = arith.addi
// CHECK-NEXT: "test.use"(%[[IN]], %[[IN]])
// CHECK: } else {
// CHECK-NEXT: %[[ELSE:.*]] = arith.addi
// CHECK-NEXT: "test.use"(%[[ELSE]])
// CHECK: %[[AFTER:.*]] = arith.addi
// CHECK-NEXT: "test.use"(%[[AFTER]])
func.func @nested(%c: i1, %a: i32) {
  %0 = arith.muli %a, %a : i32
  "test.use"(%0) : (i32) -> ()
  scf.if %c {
    %1 = arith.muli %a, %a : i32
    "test.use"(%1) : (i32) -> ()
    %2 = arith.addi %a, %a : i32
    %3 = arith.addi %a, %a : i32
    "test.use"(%2, %3) : (i32, i32) -> ()
  } else {
    %4 = arith.addi %a, %a : i32
    "test.use"(%4) : (i32) -> ()
  }
  %5 = arith.addi %a, %a : i32
  "test.use"(%5) : (i32) -> ()
  return
}

// -----

// Ops with memory effects (unregistered ops may have any) are never merged.
// CHECK-LABEL: func.func @effects
// CHECK: "test.read"
// CHECK-NEXT: "test.read"
func.func @effects() {
  %0 = "test.read"() : () -> i32
  %1 = "test.read"() : () -> i32
  "test.use"(%0, %1) : (i32, i32) -> ()
  return
}

// -----

// Along the dominator tree of a CFG: ^bb1 and ^bb2 may reuse ^bb0's values, ^bb3 may
// not reuse ^bb1's.
// CHECK-LABEL: func.func @cfg
// CHECK-SAME: (%[[C:[a-z0-9]+]]: i1, %[[A:[a-z0-9]+]]: i32)
// CHECK-NEXT: %[[X:.*]] = arith.muli %[[A]], %[[A]]
// CHECK-NEXT: "test.use"(%[[X]])
// CHECK-NEXT: cf.cond_br
// CHECK: ^bb1:
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[A]], %[[A]]
// CHECK-NEXT: "test.use"(%[[X]], %[[Y]])
// CHECK: ^bb2:
// CHECK-NEXT: "test.use"(%[[X]])
// CHECK: ^bb3:
// CHECK-NEXT: %[[Z:.*]] = arith.addi %[[A]], %[[A]]
// CHECK-NEXT: "test.use"(%[[Z]])
func.func @cfg(%c: i1, %a: i32) {
  %x = arith.muli %a, %a : i32
  "test.use"(%x) : (i32) -> ()
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %x1 = arith.muli %a, %a : i32
  %y = arith.addi %a, %a : i32
  "test.use"(%x1, %y) : (i32, i32) -> ()
  cf.br ^bb3
^bb2:
  %x2 = arith.muli %a, %a : i32
  "test.use"(%x2) : (i32) -> ()
  cf.br ^bb3
^bb3:
  %z = arith.addi %a, %a : i32
  "test.use"(%z) : (i32) -> ()
  return
}

// -----

// Isolated regions start from scratch; dead pure ops are erased.
// CHECK-LABEL: module @isolated
// CHECK: %[[TOP:.*]] = arith.constant 7 : i32
// CHECK: func.func @f
// CHECK-NEXT: %[[IN:.*]] = arith.constant 7 : i32
// CHECK-NEXT: return %[[IN]]
// CHECK-NOT: arith.addi
module @isolated {
  %top = arith.constant 7 : i32
  "test.use"(%top) : (i32) -> ()
  func.func @f(%a: i32) -> i32 {
    %c = arith.constant 7 : i32
    %dead = arith.addi %a, %a : i32
    return %c : i32
  }
}
