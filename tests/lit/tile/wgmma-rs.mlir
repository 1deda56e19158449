// tile.wgmma_rs: one register-A wgmma.mma_async (CuTe's _RS atoms): the thread's A values in
// the atom's A-layout order, B's descriptor, the accumulators. Its custom form round-trips;
// the verifier checks the counts and types against the atom.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @rs
// CHECK: %{{.*}}:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 1 : i32} : f16, f32 -> f32
// CHECK: %{{.*}}:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x8_F32TF32TF32_RS_TN"> (%t, %t, %t, %t), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : f32, f32 -> f32
func.func @rs(%a: f16, %t: f32, %db: i64, %c: f32) {
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 1 : i32} : f16, f32 -> f32
  %e:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x8_F32TF32TF32F32_RS_TN"> (%t, %t, %t, %t), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : f32, f32 -> f32
  return
}

// -----

func.func @count(%a: f16, %db: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma_rs' op atom 'SM90_64x8x16_F32F16F16_RS' takes 8 A values per thread, got 4}}
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : f16, f32 -> f32
  return
}

// -----

func.func @a_type(%a: bf16, %db: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma_rs' op atom 'SM90_64x8x16_F32F16F16_RS' takes A values of one type among f16, got bf16}}
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : bf16, f32 -> f32
  return
}

// -----

func.func @ss_atom(%a: f16, %db: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma_rs' op atom 'SM90_64x8x16_F32F16F16_SS' is not a register-A (RS) warpgroup MMA}}
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : f16, f32 -> f32
  return
}

// -----

func.func @tf32_transposed(%t: f32, %db: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma_rs' op transpose_b = 1 is not valid for atom 'SM90_64x8x8_F32TF32TF32_RS_TN'}}
  %e:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x8_F32TF32TF32F32_RS_TN"> (%t, %t, %t, %t), %db, (%c, %c, %c, %c) {transpose_b = 1 : i32} : f32, f32 -> f32
  return
}

// -----

func.func @accumulators(%a: f16, %db: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma_rs' op atom 'SM90_64x8x16_F32F16F16_RS' takes 4 C values per thread and gives as many D values, got 2 and 2}}
  %d:2 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c) {transpose_b = 0 : i32} : f16, f32 -> f32
  return
}
