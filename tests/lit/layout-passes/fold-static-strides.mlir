// fold-static-strides: known values substituted, chains of layout and view ops folded into one
// constructor whose type carries every static entry; index values that are known become
// constants and index chains are re-emitted in their canonical form.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(fold-static-strides)' | FileCheck %s

// A constant dynamic entry becomes static; the composition chain folds to one constant.
// CHECK-LABEL: func.func @constants_fold
// CHECK-NOT: layout.make_shape
// CHECK-NOT: layout.composition
// CHECK: %[[L:.*]] = layout.constant #layout.layout<"(2,4):(16,1)">
// CHECK: layout.crd2idx %{{.*}}, %[[L]] : !layout.int_tuple<"(?,?)">, !layout.layout<"(2,4):(16,1)">
func.func @constants_fold(%i: index, %j: index) -> index {
  %c16 = arith.constant 16 : index
  %s = layout.make_shape %c16 : !layout.int_tuple<"(?,16)">
  %d = layout.make_stride %c16 : !layout.int_tuple<"(?,1)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?,16):(?,1)">
  %t = layout.constant #layout.tile<"<2:1,4:1>">
  %c = layout.composition %l, %t : (!layout.layout<"(?,16):(?,1)">, !layout.tile<"<2:1,4:1>">) -> !layout.layout<"(2,4):(?,1)">
  %crd = layout.make_coord %i, %j : !layout.int_tuple<"(?,?)">
  %x = layout.crd2idx %crd, %c : !layout.int_tuple<"(?,?)">, !layout.layout<"(2,4):(?,1)">
  return %x : index
}

// -----

// A view chain (local_tile then partition_tv) folds into one tile.make_tensor: the root
// pointer moved by the offset, whose divisibility tile.assume states, and a static layout.
// CHECK-LABEL: func.func @views_fold
// CHECK-DAG: %[[B:.*]] = gpu.block_id x
// CHECK-DAG: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[A:.*]] = tile.assume %{{.*}} {divisible_by = 4 : i64} : index
// CHECK: %[[P:.*]] = tile.ptr_offset %arg0, %[[A]] : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem, 16>
// CHECK: %[[L:.*]] = layout.constant #layout.layout<"(4):(1)">
// CHECK: %[[V:.*]] = tile.make_tensor %[[P]], %[[L]]
// CHECK-NOT: tile.local_tile
// CHECK-NOT: tile.partition_tv
// CHECK: tile.clear %[[V]] : !tile.tensor<f32, gmem, "(4):(1)", 16>
func.func @views_fold(%arg0: !tile.ptr<f32, gmem, 16>, %n: index {layoutc.divisible_by = 1024 : i64, layoutc.lower = 1024 : i64}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %s = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(1)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?):(1)">
  %t = tile.make_tensor %arg0, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %g = tile.local_tile %t[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %v = tile.partition_tv %g[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  tile.clear %v : !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

// Facts make entries static where the type could not: a shape that a tile.assume pins.
// CHECK-LABEL: func.func @assumed_extent
// CHECK: %[[L:.*]] = layout.constant #layout.layout<"(8,4):(1,8)">
// CHECK: tile.make_tensor %arg0, %[[L]] : {{.*}} -> !tile.tensor<f32, smem, "(8,4):(1,8)", 16>
func.func @assumed_extent(%arg0: !tile.ptr<f32, smem, 16>, %n: index) {
  %m = tile.assume %n {lower = 8 : i64, upper = 8 : i64} : index
  %s = layout.make_shape %m : !layout.int_tuple<"(?,4)">
  %d = layout.make_stride %m : !layout.int_tuple<"(1,?)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?,4):(1,?)">
  %t = tile.make_tensor %arg0, %l : (!tile.ptr<f32, smem, 16>, !layout.layout<"(?,4):(1,?)">) -> !tile.tensor<f32, smem, "(?,4):(1,?)", 16>
  tile.clear %t : !tile.tensor<f32, smem, "(?,4):(1,?)", 16>
  return
}

// -----

// Index expressions: a known value becomes a constant; a chain is re-emitted when its
// canonical form is cheaper ((x*8 + x*8) / 4 is x*4, one shift).
// CHECK-LABEL: func.func @index_exprs
// CHECK: %[[K:.*]] = arith.constant 2 : index
// CHECK: %[[S:.*]] = arith.shli %arg0, %[[K]] : index
// CHECK: %[[C:.*]] = arith.constant 128 : index
// CHECK: return %[[C]], %[[S]] : index, index
func.func @index_exprs(%arg0: index {layoutc.lower = 0 : i64}) -> (index, index) {
  %l = layout.constant #layout.layout<"(4,(2,4)):(1,(4,8))">
  %n = layout.cosize %l : !layout.layout<"(4,(2,4)):(1,(4,8))">
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %a = arith.muli %arg0, %c8 : index
  %b = arith.muli %arg0, %c8 : index
  %s = arith.addi %a, %b : index
  %q = arith.divui %s, %c4 : index
  %k = arith.muli %n, %c4 : index
  return %k, %q : index, index
}

// -----

// Uses that need the old type (a region result) keep the old value.
// CHECK-LABEL: func.func @rigid_uses
// CHECK: %[[L:.*]] = layout.make_layout
// CHECK: scf.yield %[[L]]
func.func @rigid_uses(%c: i1, %n: index) -> !layout.layout<"(?):(1)"> {
  %r = scf.if %c -> (!layout.layout<"(?):(1)">) {
    %s = layout.make_shape %n : !layout.int_tuple<"(?)">
    %d = layout.make_stride : !layout.int_tuple<"(1)">
    %l = layout.make_layout %s, %d : !layout.layout<"(?):(1)">
    scf.yield %l : !layout.layout<"(?):(1)">
  } else {
    %l2 = layout.constant #layout.layout<"(4):(1)"> : !layout.layout<"(?):(1)">
    scf.yield %l2 : !layout.layout<"(?):(1)">
  }
  return %r : !layout.layout<"(?):(1)">
}

// -----

// A gather tensor whose extent becomes static keeps its index buffer operand.
// CHECK-LABEL: func.func @gather_fold
// CHECK: %[[L:.*]] = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (4,64):(1@0,1@1)">
// CHECK: tile.make_tensor %{{.*}}, %[[L]], %{{.*}} : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (4,64):(1@0,1@1)">, !tile.ptr<i32, gmem, 4>)
func.func @gather_fold(%p: !tile.ptr<f32, gmem, 16>, %rows: !tile.ptr<i32, gmem, 4>, %q: !tile.ptr<f32, smem, 16>) {
  %c4 = arith.constant 4 : index
  %s = layout.make_shape %c4 : !layout.int_tuple<"(?,64)">
  %inner = layout.make_identity %s : !layout.layout<"(?,64):(1@0,1@1)">
  %outer = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1)">
  %off = layout.constant #layout.int_tuple<"(0,0)">
  %g = layout.make_composed_layout %outer, %off, %inner : (!layout.layout<"(1,1):(Custom{rows,64},1)">, !layout.int_tuple<"(0,0)">, !layout.layout<"(?,64):(1@0,1@1)">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">
  %t = tile.make_tensor %p, %g, %rows : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">, !tile.ptr<i32, gmem, 4>) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)", 16>
  %dl = layout.constant #layout.layout<"(4,64):(64,1)">
  %d = tile.make_tensor %q, %dl : (!tile.ptr<f32, smem, 16>, !layout.layout<"(4,64):(64,1)">) -> !tile.tensor<f32, smem, "(4,64):(64,1)", 16>
  tile.copy %t, %d : !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)", 16>, !tile.tensor<f32, smem, "(4,64):(64,1)", 16>
  return
}
