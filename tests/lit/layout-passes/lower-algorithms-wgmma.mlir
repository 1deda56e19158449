// lower-algorithms on tile.gemm with a warpgroup MMA atom: the A and B tiles' layouts are proven
// canonical GMMA layouts and become descriptors (tile.wgmma_desc: the proven LBO/SBO/layout-type
// bits and the tile's element offset before the swizzle; later K blocks add their static
// distance to the first one's), one tile.wgmma per (k, m, n) on the
// accumulator values. A is 64x32 f16 in Layout_K_SW64_Atom (Sw<2,3,3> o (8,32):(32,1)) tiled
// down M, B 8x32: two K blocks of 16, the second 16 elements (32 bytes) into the 64-byte rows.
// A: 0x8000002000010000 = 64B swizzle (2 << 62), SBO 512 bytes (32 << 32), LBO 16 (1 << 16);
// B: 0x8000000000010000 (one 8-row group: no SBO).
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(lower-algorithms)' | FileCheck %s

// CHECK-LABEL: func.func @wgmma
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[PB:.*]] = tile.get_ptr %{{.*}} : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024>
// CHECK: %[[DB0:.*]] = tile.wgmma_desc %[[PB]][%[[C0]]] {bits = -9223372036854710272 : i64}
// CHECK: %[[PA:.*]] = tile.get_ptr %{{.*}} : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,8),(32,1)):((32,256),(1,0))", 1024>
// CHECK: %[[DA0:.*]] = tile.wgmma_desc %[[PA]][%[[C0]]] {bits = -9223371899415756800 : i64}
// CHECK-COUNT-4: tile.load
// CHECK: tile.wgmma #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS"> %[[DA0]], %[[DB0]], ({{.*}}) {transpose_a = 0 : i32, transpose_b = 0 : i32} : f32 -> f32
// CHECK-COUNT-4: tile.store
// The second K block: the first one's descriptors plus 32 bytes >> 4 (CuTe's descriptor
// iterator; the start-address field cannot carry out of its 14 bits).
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[DB1:.*]] = arith.addi %[[DB0]], %[[TWO]] : i64
// CHECK: %[[TWO_A:.*]] = arith.constant 2 : i64
// CHECK: %[[DA1:.*]] = arith.addi %[[DA0]], %[[TWO_A]] : i64
// CHECK: tile.wgmma #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS"> %[[DA1]], %[[DB1]]
// CHECK-NOT: tile.wgmma_desc
// CHECK-NOT: tile.gemm
func.func @wgmma() {
  %1 = tile.alloc_smem : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,8),(32,1)):((32,256),(1,0))", 1024>
  %2 = tile.alloc_smem : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024>
  %3 = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  %4 = tile.get_ptr %1 : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,8),(32,1)):((32,256),(1,0))", 1024> -> !tile.ptr<f16, smem, 1024>
  %5 = layout.constant #layout.layout<"Sw<2,3,3> o 0 o ((64,16),1,2):((32,1),0,16)">
  %6 = tile.make_tensor %4, %5 : (!tile.ptr<f16, smem, 1024>, !layout.layout<"Sw<2,3,3> o 0 o ((64,16),1,2):((32,1),0,16)">) -> !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((64,16),1,2):((32,1),0,16)", 1024>
  %7 = tile.get_ptr %2 : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024> -> !tile.ptr<f16, smem, 1024>
  %8 = layout.constant #layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)">
  %9 = tile.make_tensor %7, %8 : (!tile.ptr<f16, smem, 1024>, !layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)">) -> !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)", 1024>
  tile.gemm %6, %9, %3 {atom = #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS">} : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((64,16),1,2):((32,1),0,16)", 1024>, !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)", 1024>, !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  return
}


// -----

// A row-major 64x16 tile of A without a swizzle: 32-byte rows, which no GMMA layout has.
func.func @not_canonical() {
  %1 = tile.alloc_smem : !tile.tensor<f16, smem, "(64,16):(16,1)", 1024>
  %2 = tile.alloc_smem : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024>
  %3 = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  %4 = tile.get_ptr %1 : !tile.tensor<f16, smem, "(64,16):(16,1)", 1024> -> !tile.ptr<f16, smem, 1024>
  %5 = layout.constant #layout.layout<"((64,16),1,1):((16,1),0,0)">
  %6 = tile.make_tensor %4, %5 : (!tile.ptr<f16, smem, 1024>, !layout.layout<"((64,16),1,1):((16,1),0,0)">) -> !tile.tensor<f16, smem, "((64,16),1,1):((16,1),0,0)", 1024>
  %7 = tile.get_ptr %2 : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024> -> !tile.ptr<f16, smem, 1024>
  %8 = layout.constant #layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,1):((32,1),0,0)">
  %9 = tile.make_tensor %7, %8 : (!tile.ptr<f16, smem, 1024>, !layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,1):((32,1),0,0)">) -> !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,1):((32,1),0,0)", 1024>
  // expected-error@+1 {{'tile.gemm' cannot be lowered: (64,16):(16,1) is not a canonical GMMA layout: the A operand of 'SM90_64x8x16_F32F16F16_SS' (K-major INTER, 16-bit elements): rows of a core matrix must be 16 bytes apart, got 32}}
  tile.gemm %6, %9, %3 {atom = #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS">} : !tile.tensor<f16, smem, "((64,16),1,1):((16,1),0,0)", 1024>, !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,1):((32,1),0,0)", 1024>, !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  return
}

// -----

// A register-A atom (_RS): A is the thread's fragment (A_V, M, K) = (8, 1, 2); each K block is
// one tile.wgmma_rs on its 8 A values, B's descriptor and the accumulators (the fragment's
// elements at its pointer plus their offsets: 0 to 7 for the first K block, 8 to 15 next).
// CHECK-LABEL: func.func @wgmma_rs
// CHECK: %[[PA:.*]] = tile.get_ptr %{{.*}} : !tile.tensor<f16, rmem
// CHECK: %[[DB0:.*]] = tile.wgmma_desc %{{.*}}[%{{.*}}] {bits = -9223372036854710272 : i64}
// CHECK-COUNT-8: tile.load %[[PA]][{{[0-7]}}]
// CHECK-COUNT-4: tile.load
// CHECK: tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> ({{.*}}), %[[DB0]], ({{.*}}) {transpose_b = 0 : i32} : f16, f32 -> f32
// CHECK-COUNT-4: tile.store
// CHECK: %[[DB1:.*]] = arith.addi %[[DB0]], %{{.*}} : i64
// CHECK-COUNT-8: tile.load %[[PA]][{{[89]|1[0-5]}}]
// CHECK: tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> ({{.*}}), %[[DB1]]
// CHECK-NOT: tile.gemm
func.func @wgmma_rs() {
  %1 = tile.alloc_fragment : !tile.tensor<f16, rmem, "((2,2,2),1,2):((1,2,4),0,8)", 4>
  %2 = tile.alloc_smem : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024>
  %3 = tile.alloc_fragment : !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  %7 = tile.get_ptr %2 : !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,1),(32,1)):((32,0),(1,0))", 1024> -> !tile.ptr<f16, smem, 1024>
  %8 = layout.constant #layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)">
  %9 = tile.make_tensor %7, %8 : (!tile.ptr<f16, smem, 1024>, !layout.layout<"Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)">) -> !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)", 1024>
  tile.gemm %1, %9, %3 {atom = #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS">} : !tile.tensor<f16, rmem, "((2,2,2),1,2):((1,2,4),0,8)", 4>, !tile.tensor<f16, smem, "Sw<2,3,3> o 0 o ((8,16),1,2):((32,1),0,16)", 1024>, !tile.tensor<f32, rmem, "((2,2,1),1,1):((1,2,0),0,0)", 4>
  return
}
