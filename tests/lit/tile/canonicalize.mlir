// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' | FileCheck %s

// CHECK-LABEL: func.func @accessors
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32, gmem, 16>, %[[L:.*]]: !layout.layout<"(4,?):(1,?)">)
func.func @accessors(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.layout<"(4,?):(1,?)">) -> (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,?)">) {
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,?)">) -> !tile.tensor<f32, gmem, "(4,?):(1,?)", 16>
  // get_ptr/get_layout of make_tensor give its operands back.
  %q = tile.get_ptr %t : !tile.tensor<f32, gmem, "(4,?):(1,?)", 16> -> !tile.ptr<f32, gmem, 16>
  %m = tile.get_layout %t : !tile.tensor<f32, gmem, "(4,?):(1,?)", 16> -> !layout.layout<"(4,?):(1,?)">
  // CHECK-NOT: tile.make_tensor
  // CHECK: return %[[P]], %[[L]]
  return %q, %m : !tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,?)">
}

// CHECK-LABEL: func.func @static_layout
func.func @static_layout(%t: !tile.tensor<f32, smem, "(8,8):(8,1)", 16>) -> !layout.layout<"(8,8):(8,1)"> {
  // A static layout folds to a constant.
  // CHECK: %[[C:.*]] = layout.constant #layout.layout<"(8,8):(8,1)">
  // CHECK: return %[[C]]
  %m = tile.get_layout %t : !tile.tensor<f32, smem, "(8,8):(8,1)", 16> -> !layout.layout<"(8,8):(8,1)">
  return %m : !layout.layout<"(8,8):(8,1)">
}

// CHECK-LABEL: func.func @assume_constant
func.func @assume_constant() -> index {
  // CHECK: %[[C:.*]] = arith.constant 8 : index
  // CHECK-NOT: tile.assume
  // CHECK: return %[[C]]
  %c8 = arith.constant 8 : index
  %a = tile.assume %c8 {divisible_by = 4 : i64} : index
  return %a : index
}

// CHECK-LABEL: func.func @dead_views
func.func @dead_views(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %i: index) {
  // Views are Pure: unused ones go away; algorithms and allocations stay.
  // CHECK-NOT: tile.slice
  // CHECK: tile.alloc_fragment
  // CHECK: tile.copy
  %v = tile.slice %t[(_, %i)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,8):(1,4)", 4>
  tile.copy %t, %r : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, !tile.tensor<f32, rmem, "(4,8):(1,4)", 4>
  return
}
