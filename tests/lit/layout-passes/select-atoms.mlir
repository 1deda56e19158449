// select-atoms: copies get the universal atom of their proven width (their tensors re-tiled so
// that mode 0 holds one access), gemms get FMA; converting copies keep element-wise copies.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(prove-vectorization{remarks=false}, select-atoms)' | FileCheck %s

// Mode 0 already holds one 128-bit access.
// CHECK-LABEL: func.func @fits
// CHECK: tile.copy %{{.*}}, %{{.*}} {atom = #tile.copy_atom<"universal", 128>, vector_bits = 128 : i64}
func.func @fits(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 16>) {
  %l = layout.constant #layout.layout<"(4,8):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,8):(1,4)">) -> !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, smem, 16>, !layout.layout<"(4,8):(1,4)">) -> !tile.tensor<f32, smem, "(4,8):(1,4)", 16>
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, !tile.tensor<f32, smem, "(4,8):(1,4)", 16>
  return
}

// -----

// A flat run of 64 f32: viewed as (4 lanes, 16 accesses) first, as CuTe's copy(atom, ...)
// reads mode 0 as the atom's values.
// CHECK-LABEL: func.func @retiled
// CHECK: %[[R:.*]] = layout.constant #layout.layout<"(4,16):(1,4)">
// CHECK: %[[A:.*]] = tile.composition %{{.*}}, %[[R]] : {{.*}} -> !tile.tensor<f32, gmem, "(4,16):(1,4)", 16>
// CHECK: %[[B:.*]] = tile.composition %{{.*}}, %[[R]] : {{.*}} -> !tile.tensor<f32, gmem, "(4,16):(1,4)", 16>
// CHECK: tile.copy %[[A]], %[[B]] {atom = #tile.copy_atom<"universal", 128>, vector_bits = 128 : i64}
func.func @retiled(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) {
  %l = layout.constant #layout.layout<"(64):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(64):(1)">) -> !tile.tensor<f32, gmem, "(64):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(64):(1)">) -> !tile.tensor<f32, gmem, "(64):(1)", 16>
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(64):(1)", 16>, !tile.tensor<f32, gmem, "(64):(1)", 16>
  return
}

// -----

// A symbolic tiling cannot be written as a view: the copy keeps its proven vector_bits,
// which lower-algorithms follows.
// CHECK-LABEL: func.func @symbolic
// CHECK: tile.copy %{{.*}}, %{{.*}} {vector_bits = 128 : i64} :
func.func @symbolic(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %n: index {layoutc.divisible_by = 4 : i64, layoutc.lower = 4 : i64}) {
  %s = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(1)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(1)", 16>
  return
}

// -----

// gemm without an atom gets FMA; a given MMA atom stays; a converting copy keeps no atom.
// CHECK-LABEL: func.func @gemm_and_convert
// CHECK: tile.gemm {{.*}} {atom = #tile.mma_atom<"FMA">}
// CHECK: tile.copy
// CHECK-NOT: atom
func.func @gemm_and_convert(%a: !tile.tensor<f32, rmem, "(2,4):(1,2)", 4>, %b: !tile.tensor<f32, rmem, "(2,4):(1,2)", 4>, %c: !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>, %h: !tile.tensor<f16, rmem, "(2,2):(1,2)", 2>) {
  tile.gemm %a, %b, %c : !tile.tensor<f32, rmem, "(2,4):(1,2)", 4>, !tile.tensor<f32, rmem, "(2,4):(1,2)", 4>, !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>
  tile.copy %c, %h : !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>, !tile.tensor<f16, rmem, "(2,2):(1,2)", 2>
  return
}
