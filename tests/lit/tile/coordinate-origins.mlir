// Coordinate tensors carry their origin (CuTe's arithmetic-tuple iterator): views move it as
// they move a pointer, and tile.load yields origin + layout(c), static only where both are.
// RUN: layoutc-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s --allow-unregistered-dialect | layoutc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s --allow-unregistered-dialect --print-generic | layoutc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s --allow-unregistered-dialect --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL
// RUN: layoutc-opt %s --allow-unregistered-dialect -p 'builtin.module(canonicalize)' | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @ragged_tail
// XDSL-LABEL: func.func @ragged_tail
// FOLD-LABEL: func.func @ragged_tail
func.func @ragged_tail() attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %s = layout.constant #layout.int_tuple<"(5000)">
  // CHECK: tile.make_identity_tensor %{{.*}} : !layout.int_tuple<"(5000)"> -> !tile.tensor<coord, "(5000):(1@0)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(5000)"> -> !tile.tensor<coord, "(5000):(1@0)">
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  // The block's tile starts at the dynamic coordinate (1024 * bid): the type says so.
  // CHECK: tile.local_tile {{.*}} -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)">
  // XDSL: "tile.local_tile"{{.*}} -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)">
  %t = tile.local_tile %c[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<coord, "(5000):(1@0)"> -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)">
  // CHECK: tile.partition_tv {{.*}} -> !tile.tensor<coord, "(4):(1@0)", origin = "(?)">
  %p = tile.partition_tv %t[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<coord, "((1024)):((1@0))", origin = "(?)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(?)">
  // CHECK: tile.load %{{.*}}[1] : !tile.tensor<coord, "(4):(1@0)", origin = "(?)"> -> !layout.int_tuple<"(?)">
  %x = tile.load %p[1] : !tile.tensor<coord, "(4):(1@0)", origin = "(?)"> -> !layout.int_tuple<"(?)">
  // A dynamic coordinate: nothing folds the predicate.
  // FOLD: %[[X:.*]] = tile.load
  // FOLD: %[[OK:.*]] = layout.elem_less %[[X]], %{{.*}} : !layout.int_tuple<"(?)">, !layout.int_tuple<"(5000)">
  %ok = layout.elem_less %x, %s : !layout.int_tuple<"(?)">, !layout.int_tuple<"(5000)">
  // FOLD: "test.use"(%[[OK]])
  "test.use"(%ok) : (i1) -> ()
  return
}

// Static block and thread indices: the origin is static, and so is every coordinate.
// CHECK-LABEL: func.func @static_tail
// FOLD-LABEL: func.func @static_tail
func.func @static_tail() {
  %s = layout.constant #layout.int_tuple<"(5000)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(5000)"> -> !tile.tensor<coord, "(5000):(1@0)">
  %b4 = arith.constant 4 : index
  %t255 = arith.constant 255 : index
  // CHECK: tile.local_tile {{.*}} -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(4096)">
  %t = tile.local_tile %c[(%b4)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<coord, "(5000):(1@0)"> -> !tile.tensor<coord, "((1024)):((1@0))", origin = "(4096)">
  // CHECK: tile.partition_tv {{.*}} -> !tile.tensor<coord, "(4):(1@0)", origin = "(5116)">
  %p = tile.partition_tv %t[%t255] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<coord, "((1024)):((1@0))", origin = "(4096)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(5116)">
  // CHECK: tile.load %{{.*}}[3] : {{.*}} -> !layout.int_tuple<"(5119)">
  %last = tile.load %p[3] : !tile.tensor<coord, "(4):(1@0)", origin = "(5116)"> -> !layout.int_tuple<"(5119)">
  %x = tile.load %p[0] : !tile.tensor<coord, "(4):(1@0)", origin = "(5116)"> -> !layout.int_tuple<"(5116)">
  // 5119 and 5116 are past 5000: both predicates fold to false.
  // FOLD: %[[F:.*]] = arith.constant false
  // FOLD: "test.use"(%[[F]], %[[F]])
  %a = layout.elem_less %last, %s : !layout.int_tuple<"(5119)">, !layout.int_tuple<"(5000)">
  %b = layout.elem_less %x, %s : !layout.int_tuple<"(5116)">, !layout.int_tuple<"(5000)">
  "test.use"(%a, %b) : (i1, i1) -> ()
  return
}

// A slice keeps the identity tensor's rank: the column (_, 3) of a 4x8 identity holds (i, 3).
// CHECK-LABEL: func.func @column
// FOLD-LABEL: func.func @column
func.func @column(%i: index) {
  %s = layout.constant #layout.int_tuple<"(4,8)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(4,8)"> -> !tile.tensor<coord, "(4,8):(1@0,1@1)">
  // CHECK: tile.slice %{{.*}}[(_, 3)] : !tile.tensor<coord, "(4,8):(1@0,1@1)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)">
  %col = tile.slice %c[(_, 3)] : !tile.tensor<coord, "(4,8):(1@0,1@1)"> -> !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)">
  // CHECK: tile.load %{{.*}}[%{{.*}}] : {{.*}} -> !layout.int_tuple<"(?,3)">
  %x = tile.load %col[%i] : !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)"> -> !layout.int_tuple<"(?,3)">
  %y = tile.load %col[2] : !tile.tensor<coord, "(4):(1@0)", origin = "(0,3)"> -> !layout.int_tuple<"(2,3)">
  // (2,3) < (4,3) is false in its second entry; (?,3) < (4,8) needs the run-time value.
  // FOLD: %[[F:.*]] = arith.constant false
  // FOLD: %[[LT:.*]] = layout.elem_less
  // FOLD: "test.use"(%[[LT]], %[[F]])
  %b = layout.constant #layout.int_tuple<"(4,3)">
  %lt = layout.elem_less %x, %s : !layout.int_tuple<"(?,3)">, !layout.int_tuple<"(4,8)">
  %no = layout.elem_less %y, %b : !layout.int_tuple<"(2,3)">, !layout.int_tuple<"(4,3)">
  "test.use"(%lt, %no) : (i1, i1) -> ()
  return
}
