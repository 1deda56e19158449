// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @diamond
// CHECK-SAME: (%{{.*}}: i1, %[[A:.*]]: i32) -> i32
func.func @diamond(%c: i1, %a: i32) -> i32 {
  // CHECK: cf.cond_br %{{.*}}, ^bb1(%[[A]] : i32), ^bb2
  // GENERIC: "cf.cond_br"(%{{.*}}, %{{.*}})[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  cf.cond_br %c, ^bb1(%a : i32), ^bb2
// CHECK: ^bb1(%[[X:.*]]: i32):
^bb1(%x: i32):
  // CHECK-NEXT: cf.br ^bb3(%[[X]] : i32)
  // GENERIC: "cf.br"(%{{.*}})[^bb3] : (i32) -> ()
  cf.br ^bb3(%x : i32)
// CHECK: ^bb2:
^bb2:
  %z = arith.constant 0 : i32
  cf.br ^bb3(%z : i32)
// CHECK: ^bb3(%[[R:.*]]: i32):
^bb3(%r: i32):
  // CHECK-NEXT: return %[[R]] : i32
  return %r : i32
}

// Blocks used before they are defined, loops and unreachable blocks.
// CHECK-LABEL: func.func @loop
func.func @loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  // CHECK: cf.br ^bb1(%{{.*}} : index)
  cf.br ^header(%c0 : index)
// CHECK: ^bb1(%[[I:.*]]: index):
^header(%i: index):
  %c1 = arith.constant 1 : index
  %next = arith.addi %i, %c1 : index
  %done = arith.cmpi sge, %next, %n : index
  // CHECK: cf.cond_br %{{.*}}, ^bb2, ^bb1(%{{.*}} : index)
  cf.cond_br %done, ^exit, ^header(%next : index)
// CHECK: ^bb2:
^exit:
  return %i : index
// CHECK: ^bb3:
// CHECK-NEXT: cf.br ^bb3
^dead:
  cf.br ^dead
}
