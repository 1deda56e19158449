// A tiled, thread-partitioned copy as the front end traces it, through layout-lowering: one
// 128-bit load and store per thread at base + (block*1024 + thread*4) elements, computed with
// shifts.
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(layout-lowering)' | FileCheck %s

// CHECK-LABEL: func.func @copy_1d
// CHECK-DAG: %[[B:.*]] = gpu.block_id x
// CHECK-DAG: %[[T:.*]] = gpu.thread_id x
// CHECK-DAG: %[[BS:.*]] = arith.shli %[[B]], %{{.*}} : index
// CHECK-DAG: %[[TS:.*]] = arith.shli %[[T]], %{{.*}} : index
// CHECK: %[[O:.*]] = arith.addi %[[BS]], %[[TS]] : index
// CHECK: %[[V:.*]] = tile.load_vector %src[%[[O]]] {alignment = 16 : i64} : !tile.ptr<f32, gmem, 16> -> vector<4xf32>
// CHECK: tile.store_vector %[[V]], %dst[%[[O]]] {alignment = 16 : i64} : vector<4xf32>, !tile.ptr<f32, gmem, 16>
// CHECK-NEXT: return
func.func @copy_1d(%src: !tile.ptr<f32, gmem, 16> {layoutc.align = 16 : i64}, %n: i32 {layoutc.divisible_by = 16 : i64, layoutc.lower = 1 : i64, layoutc.upper = 2147483647 : i64}, %dst: !tile.ptr<f32, gmem, 16> {layoutc.align = 16 : i64}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %0 = arith.index_cast %n : i32 to index
  %1 = layout.make_shape %0 : !layout.int_tuple<"(?)">
  %2 = layout.make_stride : !layout.int_tuple<"(1)">
  %3 = layout.make_layout %1, %2 : !layout.layout<"(?):(1)">
  %4 = tile.make_tensor %src, %3 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %5 = tile.make_tensor %dst, %3 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %6 = tile.local_tile %4[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %7 = tile.partition_tv %6[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %8 = tile.local_tile %5[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %9 = tile.partition_tv %8[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  // expected-remark@+1 {{copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven}}
  tile.copy %7, %9 : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}
