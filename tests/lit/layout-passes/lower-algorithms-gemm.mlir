// lower-algorithms on tile.gemm: every mode form of CuTe's gemm with the FMA atom (loads, a
// multiply-add in C's type, a store), and MMA atoms as one tile.mma per (m, n, k).
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(lower-algorithms)' | FileCheck %s

// (V) x (V) => (V)
// CHECK-LABEL: func.func @vvv
// CHECK: %[[A:.*]] = tile.load %x[0]
// CHECK: %[[B:.*]] = tile.load %y[0]
// CHECK: %[[C:.*]] = tile.load %z[0]
// CHECK: %[[M:.*]] = arith.mulf %[[A]], %[[B]] fastmath<contract> : f32
// CHECK: %[[D:.*]] = arith.addf %[[M]], %[[C]] fastmath<contract> : f32
// CHECK: tile.store %[[D]], %z[0]
// CHECK-COUNT-1: tile.store %{{.*}}, %z[1]
func.func @vvv(%x: !tile.tensor<f32, rmem, "(2):(1)", 4>, %y: !tile.tensor<f32, rmem, "(2):(1)", 4>, %z: !tile.tensor<f32, rmem, "(2):(1)", 4>) {
  tile.gemm %x, %y, %z : !tile.tensor<f32, rmem, "(2):(1)", 4>, !tile.tensor<f32, rmem, "(2):(1)", 4>, !tile.tensor<f32, rmem, "(2):(1)", 4>
  return
}

// -----

// (M) x (N) => (M,N): the outer product, n inner.
// CHECK-LABEL: func.func @outer
// CHECK: tile.load %x[0]
// CHECK: tile.load %y[0]
// CHECK: tile.store %{{.*}}, %z[(0, 0)]
// CHECK: tile.load %x[0]
// CHECK: tile.load %y[1]
// CHECK: tile.store %{{.*}}, %z[(0, 1)]
// CHECK: tile.store %{{.*}}, %z[(1, 0)]
// CHECK: tile.store %{{.*}}, %z[(1, 1)]
func.func @outer(%x: !tile.tensor<f32, rmem, "(2):(1)", 4>, %y: !tile.tensor<f32, rmem, "(2):(1)", 4>, %z: !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>) {
  tile.gemm %x, %y, %z : !tile.tensor<f32, rmem, "(2):(1)", 4>, !tile.tensor<f32, rmem, "(2):(1)", 4>, !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>
  return
}

// -----

// (M,K) x (N,K) => (M,N) with A and B in shared memory and a dynamic K: an scf.for over K,
// the register accumulator unrolled inside; mixed precision converts A and B to C's type.
// CHECK-LABEL: func.func @matrix
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %k step
// CHECK: %[[A:.*]] = tile.load %{{.*}}[(0, %[[K]])] : !tile.tensor<f16, smem
// CHECK: %[[B:.*]] = tile.load %{{.*}}[(0, %[[K]])] : !tile.tensor<f16, smem
// CHECK: %[[C:.*]] = tile.load %z[(0, 0)]
// CHECK: arith.extf %[[A]] : f16 to f32
// CHECK: arith.extf %[[B]] : f16 to f32
// CHECK-COUNT-3: tile.store %{{.*}}, %z[
// CHECK: }
func.func @matrix(%a: !tile.ptr<f16, smem, 16>, %b: !tile.ptr<f16, smem, 16>, %z: !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>, %k: index {layoutc.lower = 1 : i64}) {
  %sa = layout.make_shape %k : !layout.int_tuple<"(2,?)">
  %da = layout.constant #layout.int_tuple<"(1,2)">
  %la = layout.make_layout %sa, %da : !layout.layout<"(2,?):(1,2)">
  %ta = tile.make_tensor %a, %la : (!tile.ptr<f16, smem, 16>, !layout.layout<"(2,?):(1,2)">) -> !tile.tensor<f16, smem, "(2,?):(1,2)", 16>
  %tb = tile.make_tensor %b, %la : (!tile.ptr<f16, smem, 16>, !layout.layout<"(2,?):(1,2)">) -> !tile.tensor<f16, smem, "(2,?):(1,2)", 16>
  tile.gemm %ta, %tb, %z : !tile.tensor<f16, smem, "(2,?):(1,2)", 16>, !tile.tensor<f16, smem, "(2,?):(1,2)", 16>, !tile.tensor<f32, rmem, "(2,2):(1,2)", 4>
  return
}

// -----

// (V,M) x (V,N) => (V,M,N): the batched outer product, V innermost.
// CHECK-LABEL: func.func @batched_outer
// CHECK: tile.store %{{.*}}, %z[(0, 0, 0)]
// CHECK: tile.store %{{.*}}, %z[(1, 0, 0)]
// CHECK: tile.store %{{.*}}, %z[(0, 0, 1)]
func.func @batched_outer(%x: !tile.tensor<i32, rmem, "(2,1):(1,2)", 4>, %y: !tile.tensor<i32, rmem, "(2,2):(1,2)", 4>, %z: !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>) {
  tile.gemm %x, %y, %z : !tile.tensor<i32, rmem, "(2,1):(1,2)", 4>, !tile.tensor<i32, rmem, "(2,2):(1,2)", 4>, !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>
  return
}

// -----

// (V,M,K) x (V,N,K) => (V,M,N): integers multiply-add with muli/addi.
// CHECK-LABEL: func.func @batched_matrix
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK-COUNT-4: tile.store
// CHECK-NOT: tile.store
func.func @batched_matrix(%x: !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>, %y: !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>, %z: !tile.tensor<i32, rmem, "(2,1,1):(1,2,2)", 4>) {
  tile.gemm %x, %y, %z : !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>, !tile.tensor<i32, rmem, "(2,1,2):(1,2,2)", 4>, !tile.tensor<i32, rmem, "(2,1,1):(1,2,2)", 4>
  return
}

// -----

// An MMA atom: the V mode is the atom's per-thread values; one tile.mma per (m, n, k).
// CHECK-LABEL: func.func @mma
// CHECK: %[[D:.*]]:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : f32, f32, f32 -> f32
// CHECK: tile.store %[[D]]#0, %z[(0, 0, 0)]
// CHECK: tile.store %[[D]]#3, %z[(3, 0, 0)]
// CHECK: %[[E:.*]]:4 = tile.mma
// CHECK: tile.store %[[E]]#3, %z[(3, 0, 0)]
// CHECK-NOT: tile.mma
func.func @mma(%x: !tile.tensor<f32, rmem, "(4,1,2):(1,0,4)", 4>, %y: !tile.tensor<f32, rmem, "(2,1,2):(1,0,2)", 4>, %z: !tile.tensor<f32, rmem, "(4,1,1):(1,0,0)", 4>) {
  tile.gemm %x, %y, %z {atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">} : !tile.tensor<f32, rmem, "(4,1,2):(1,0,4)", 4>, !tile.tensor<f32, rmem, "(2,1,2):(1,0,2)", 4>, !tile.tensor<f32, rmem, "(4,1,1):(1,0,0)", 4>
  return
}
