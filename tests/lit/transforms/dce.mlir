// RUN: layoutc-opt %s -p 'builtin.module(dce)' --split-input-file --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(symbol-dce)' --split-input-file --allow-unregistered-dialect | FileCheck %s --check-prefix=SYM

// Dead chains go in one run; effects, terminators and their operands stay.
// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32)
// CHECK-NEXT: %[[K:.*]] = arith.muli %[[A]], %[[A]]
// CHECK-NEXT: "test.effect"(%[[K]])
// CHECK-NEXT: %[[R:.*]] = arith.subi %[[A]], %[[A]]
// CHECK-NEXT: return %[[R]]
func.func @chains(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.xori %1, %0 : i32
  %k = arith.muli %a, %a : i32
  "test.effect"(%k) : (i32) -> ()
  %r = arith.subi %a, %a : i32
  return %r : i32
}

// -----

// Unused loops without memory effects go, along with what only they used (a division may
// trap, so it is not speculatable, but it has no memory effects: unused, it is removable).
// CHECK-LABEL: func.func @regions
// CHECK-NOT: arith.mulf
// CHECK: scf.for
// CHECK-NEXT: "test.effect"
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @regions(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sq = arith.mulf %x, %x : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %sq) -> (f32) {
    %d = arith.divui %i, %n : index
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %n step %c1 {
    "test.effect"(%i) : (index) -> ()
  }
  return
}

// -----

// Unreachable blocks are erased.
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT: cf.br ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @blocks() {
  cf.br ^exit
^dead:
  "test.effect"() : () -> ()
  cf.br ^exit
^exit:
  return
}

// -----

// SYM-LABEL: module @symbols
// SYM-NEXT: func.func @public
// SYM-NEXT: call @used
// SYM: func.func private @used
// SYM-NEXT: "test.ref"() {ref = @by_attribute}
// SYM: func.func private @by_attribute
// SYM-NOT: @unused
// SYM-NOT: @only_from_dead
// SYM: func.func nested @nested_visibility
// SYM-NOT: @unused
module @symbols {
  func.func @public() {
    call @used() : () -> ()
    return
  }
  func.func private @used() {
    "test.ref"() {ref = @by_attribute} : () -> ()
    return
  }
  func.func private @by_attribute()
  func.func private @unused() {
    call @only_from_dead() : () -> ()
    return
  }
  func.func private @only_from_dead()
  func.func nested @nested_visibility()
}
