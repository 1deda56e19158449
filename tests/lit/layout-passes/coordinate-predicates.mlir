// The predicates of a ragged tail, built the CuTe way: the coordinate tensor's view starts at
// the origin (1024 * bid + 4 * tid), and lowering compares origin + i with the extent.
// RUN: layoutc-opt %s -p 'builtin.module(layout-lowering)' --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @tail
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BO:.*]] = arith.shli %[[BID]], %[[C10]] : index
// CHECK: %[[TO:.*]] = arith.shli %[[TID]], %[[C2]] : index
// CHECK: %[[X0:.*]] = arith.addi %[[BO]], %[[TO]] : index
// CHECK: %[[K0:.*]] = arith.cmpi slt, %[[X0]], %n : index
// CHECK: tile.store %[[K0]], %{{.*}}[0]
// CHECK: %[[X3:.*]] = arith.addi %[[X0]], %[[C3]] : index
// CHECK: %[[K3:.*]] = arith.cmpi slt, %[[X3]], %n : index
// CHECK: tile.store %[[K3]], %{{.*}}[3]
// CHECK-NOT: tile.tensor<coord
// CHECK: return
func.func @tail(%src: !tile.ptr<f32, gmem, 16>, %dst: !tile.ptr<f32, gmem, 16>, %n: index) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %shape = layout.make_shape %n : !layout.int_tuple<"(?)">
  %stride = layout.constant #layout.int_tuple<"(1)">
  %l = layout.make_layout %shape, %stride : !layout.layout<"(?):(1)">
  %gs = tile.make_tensor %src, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %gd = tile.make_tensor %dst, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %c = tile.make_identity_tensor %shape : !layout.int_tuple<"(?)"> -> !tile.tensor<coord, "(?):(1@0)">
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %ts = tile.local_tile %gs[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %ps = tile.partition_tv %ts[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %td = tile.local_tile %gd[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %pd = tile.partition_tv %td[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %tc = tile.local_tile %c[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<coord, "(?):(1@0)"> -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)">
  %pc = tile.partition_tv %tc[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(?)">
  %keep = tile.alloc_fragment : !tile.tensor<i1, rmem, "(4):(1)", 1>
  %x0 = tile.load %pc[0] : !tile.tensor<coord, "(4):(1@0)", origin = "(?)"> -> !layout.int_tuple<"(?)">
  %k0 = layout.elem_less %x0, %shape : !layout.int_tuple<"(?)">, !layout.int_tuple<"(?)">
  tile.store %k0, %keep[0] : !tile.tensor<i1, rmem, "(4):(1)", 1>
  %x3 = tile.load %pc[3] : !tile.tensor<coord, "(4):(1@0)", origin = "(?)"> -> !layout.int_tuple<"(?)">
  %k3 = layout.elem_less %x3, %shape : !layout.int_tuple<"(?)">, !layout.int_tuple<"(?)">
  tile.store %k3, %keep[3] : !tile.tensor<i1, rmem, "(4):(1)", 1>
  // expected-remark@+1 {{copy_if uses 32-bit accesses: 4 contiguous f32, but the predicate tensor may differ within a vector: its 2 lanes have layout 2:1, not stride 0}}
  tile.copy_if %keep, %ps, %pd : !tile.tensor<i1, rmem, "(4):(1)", 1>, !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}
