// lower-layouts: layouts and tensors become index arithmetic and pointer + offset accesses,
// with shared subexpressions, hoisted loop invariants, and shifts and masks for powers of two.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(lower-layouts)' | FileCheck %s

// crd2idx of a static layout with dynamic coordinates: strides 8 and 1 as one shift and an add.
// CHECK-LABEL: func.func @crd2idx
// CHECK-NOT: layout.
// CHECK: %[[S:.*]] = arith.shli %i, %{{.*}} : index
// CHECK: %[[X:.*]] = arith.addi %[[S]], %j : index
// CHECK: return %[[X]]
func.func @crd2idx(%i: index, %j: index) -> index {
  %l = layout.constant #layout.layout<"(4,8):(8,1)">
  %c = layout.make_coord %i, %j : !layout.int_tuple<"(?,?)">
  %x = layout.crd2idx %c, %l : !layout.int_tuple<"(?,?)">, !layout.layout<"(4,8):(8,1)">
  return %x : index
}

// -----

// A 1-D index into a hierarchical mode: a mask and a shift split it (no division).
// CHECK-LABEL: func.func @split_index
// CHECK-DAG: arith.andi %i, %{{.*}} : index
// CHECK-DAG: arith.shrui %i, %{{.*}} : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
func.func @split_index(%i: index {layoutc.lower = 0 : i64, layoutc.upper = 63 : i64}) -> index {
  %l = layout.constant #layout.layout<"(8,8):(16,1)">
  %c = layout.make_coord %i : !layout.int_tuple<"?">
  %x = layout.crd2idx %c, %l : !layout.int_tuple<"?">, !layout.layout<"(8,8):(16,1)">
  return %x : index
}

// -----

// Accesses through views become accesses to the root pointer at one offset; the part that
// does not depend on the loop variable is computed before the loop.
// CHECK-LABEL: func.func @hoisted
// CHECK: %[[B:.*]] = arith.shli %bid, %{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[O:.*]] = arith.addi %[[B]], %[[I]] : index
// CHECK-NEXT: %[[V:.*]] = tile.load %p[%[[O]]] : !tile.ptr<f32, gmem, 16> -> f32
// CHECK-NEXT: tile.store %[[V]], %q[%[[O]]] : !tile.ptr<f32, gmem, 16>
func.func @hoisted(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %bid: index {layoutc.lower = 0 : i64}) {
  %l = layout.constant #layout.layout<"(64,1024):(1,64)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(64,1024):(1,64)">) -> !tile.tensor<f32, gmem, "(64,1024):(1,64)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(64,1024):(1,64)">) -> !tile.tensor<f32, gmem, "(64,1024):(1,64)", 16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %x = tile.load %t[(%i, %bid)] : !tile.tensor<f32, gmem, "(64,1024):(1,64)", 16> -> f32
    tile.store %x, %u[(%i, %bid)] : !tile.tensor<f32, gmem, "(64,1024):(1,64)", 16>
  }
  return
}

// -----

// Register fragments and shared memory: the allocation's pointer (once), constant offsets;
// a vector access keeps its proven alignment.
// CHECK-LABEL: func.func @allocations
// CHECK: %[[S:.*]] = tile.alloc_smem
// CHECK-NEXT: %[[SP:.*]] = tile.get_ptr %[[S]]
// CHECK: %[[R:.*]] = tile.alloc_fragment
// CHECK-NEXT: %[[RP:.*]] = tile.get_ptr %[[R]]
// CHECK: %[[V:.*]] = tile.load_vector %[[SP]][12] {alignment = 16 : i64} : !tile.ptr<f32, smem, 16> -> vector<4xf32>
// CHECK: tile.store_vector %[[V]], %[[RP]][4] {alignment = 16 : i64} : vector<4xf32>, !tile.ptr<f32, rmem, 16>
func.func @allocations() {
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "(4,8):(1,4)", 16>
  %r = tile.alloc_fragment {align = 16 : i64} : !tile.tensor<f32, rmem, "(4,2):(1,4)", 16>
  %v = tile.load_vector %s[(0, 3)] {alignment = 16 : i64} : !tile.tensor<f32, smem, "(4,8):(1,4)", 16> -> vector<4xf32>
  tile.store_vector %v, %r[(0, 1)] {alignment = 16 : i64} : vector<4xf32>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 16>
  return
}

// -----

// elem_less of coordinates against bounds: one comparison per entry, the provable ones folded.
// CHECK-LABEL: func.func @elem_less
// CHECK: %[[A:.*]] = arith.cmpi slt, %i, %n : index
// CHECK-NOT: arith.cmpi
// CHECK: return %[[A]]
func.func @elem_less(%i: index, %n: index) -> i1 {
  %a = layout.make_coord %i : !layout.int_tuple<"(?,3)">
  %b = layout.make_int_tuple %n : !layout.int_tuple<"(?,8)">
  %p = layout.elem_less %a, %b : !layout.int_tuple<"(?,3)">, !layout.int_tuple<"(?,8)">
  return %p : i1
}

// -----

// A swizzled shared-memory layout at constant coordinates: the swizzle is applied at compile
// time (element (1, 8) of Sw<3,3,3> o (64,64):(64,1) lives at 64 + (8 ^ 8) = 64).
// CHECK-LABEL: func.func @swizzle
// CHECK: tile.load %{{.*}}[64] : !tile.ptr<f16, smem, 16> -> f16
func.func @swizzle() -> f16 {
  %s = tile.alloc_smem : !tile.tensor<f16, smem, "Sw<3,3,3> o 0 o (64,64):(64,1)", 16>
  %x = tile.load %s[(1, 8)] : !tile.tensor<f16, smem, "Sw<3,3,3> o 0 o (64,64):(64,1)", 16> -> f16
  return %x : f16
}
