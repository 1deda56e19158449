// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @vector_type(%t: !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>, %i: index) {
  // expected-error@+1 {{'tile.load_vector' op the vector type must be vector<4xf32> (width 4 of the source's elements), got 'vector<4xf16>'}}
  %v = "tile.load_vector"(%t, %i) <{coord = "(0,?)", width = 4 : i64}> : (!tile.tensor<f32, gmem, "(8,8):(1,8)", 16>, index) -> vector<4xf16>
  return
}

// -----

func.func @vector_width(%t: !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>, %i: index) {
  // expected-error@+1 {{'tile.load_vector' op a vector access moves 16, 32, 64 or 128 bits in 2 or more elements, got 8 x 32 bits}}
  %v = tile.load_vector %t[(0, %i)] : !tile.tensor<f32, gmem, "(8,8):(1,8)", 16> -> vector<8xf32>
  return
}

// -----

func.func @vector_alignment(%t: !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>, %i: index) {
  // expected-error@+1 {{'tile.load_vector' op alignment must be a positive power of two (bytes), got 24}}
  %v = tile.load_vector %t[(0, %i)] {alignment = 24 : i64} : !tile.tensor<f32, gmem, "(8,8):(1,8)", 16> -> vector<4xf32>
  return
}

// -----

func.func @vector_coordinate(%t: !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>, %v: vector<2xf32>) {
  // expected-error@+1 {{'tile.store_vector' op layout (8,8):(1,8): coordinate 9 out of range [0,8) for mode of shape 8}}
  tile.store_vector %v, %t[(0, 9)] : vector<2xf32>, !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>
  return
}

// -----

func.func @mma_counts(%a: f32) {
  // expected-error@+1 {{'tile.mma' op atom 'SM80_16x8x8_F32TF32TF32F32_TN' takes 4 A values per thread, got 2}}
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%a, %a), (%a, %a), (%a, %a, %a, %a) : f32, f32, f32 -> f32
  return
}

// -----

func.func @mma_types(%a: f16, %c: f32) {
  // expected-error@+1 {{'tile.mma' op atom 'SM80_16x8x16_F32BF16BF16F32_TN' needs A of element type bf16, got f16}}
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x16_F32BF16BF16F32_TN"> (%a, %a, %a, %a, %a, %a, %a, %a), (%a, %a, %a, %a), (%c, %c, %c, %c) : f16, f16, f32 -> f32
  return
}

// -----

func.func @mma_results(%a: f32) {
  // expected-error@+1 {{'tile.mma' op expected 1 D results (one per C value), got 2}}
  %d:2 = "tile.mma"(%a, %a, %a) <{atom = #tile.mma_atom<"FMA">, operandSegmentSizes = array<i32: 1, 1, 1>}> : (f32, f32, f32) -> (f32, f32)
  return
}

// -----

func.func @ldmatrix_space(%t: !tile.tensor<f16, gmem, "(32,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.ldmatrix' op ldmatrix reads shared memory (smem), got '!tile.tensor<f16, gmem, "(32,64):(64,1)", 16>'}}
  %v:8 = tile.ldmatrix %t[(%i, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, gmem, "(32,64):(64,1)", 16> -> f16
  return
}

// -----

func.func @ldmatrix_atom(%t: !tile.tensor<f16, smem, "(32,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.ldmatrix' op 'tile.ldmatrix' needs an ldmatrix atom, got 'universal'}}
  %v:8 = tile.ldmatrix %t[(%i, 0)] {atom = #tile.copy_atom<"universal", 128>} : !tile.tensor<f16, smem, "(32,64):(64,1)", 16> -> f16
  return
}

// -----

func.func @ldmatrix_trans(%t: !tile.tensor<f32, smem, "(32,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.ldmatrix' op atom 'ldmatrix.x4.trans' needs 16-bit elements, got 32-bit elements}}
  %v:4 = tile.ldmatrix %t[(%i, 0)] {atom = #tile.copy_atom<"ldmatrix.x4.trans", 128>} : !tile.tensor<f32, smem, "(32,64):(64,1)", 16> -> f32
  return
}

// -----

func.func @ldmatrix_results(%t: !tile.tensor<f16, smem, "(32,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.ldmatrix' op atom 'ldmatrix.x2' gives each thread 4 f16 values, got 2 results}}
  %v:2 = "tile.ldmatrix"(%t, %i) <{atom = #tile.copy_atom<"ldmatrix.x2", 64>, coord = "(?,0)"}> : (!tile.tensor<f16, smem, "(32,64):(64,1)", 16>, index) -> (f16, f16)
  return
}

// -----

func.func @cp_async_spaces(%s: !tile.tensor<f32, smem, "64:1", 16>, %d: !tile.tensor<f32, smem, "64:1", 16>, %i: index) {
  // expected-error@+1 {{'tile.cp_async' op cp.async copies global -> shared memory (gmem -> smem), not smem -> smem}}
  tile.cp_async %s[%i], %d[%i] {bytes = 16 : i64} : !tile.tensor<f32, smem, "64:1", 16>, !tile.tensor<f32, smem, "64:1", 16>
  return
}

// -----

func.func @cp_async_bytes(%s: !tile.tensor<f32, gmem, "64:1", 16>, %d: !tile.tensor<f32, smem, "64:1", 16>, %i: index) {
  // expected-error@+1 {{'tile.cp_async' op cp.async copies 4, 8 or 16 bytes, got 32}}
  tile.cp_async %s[%i], %d[%i] {bytes = 32 : i64} : !tile.tensor<f32, gmem, "64:1", 16>, !tile.tensor<f32, smem, "64:1", 16>
  return
}

// -----

func.func @cp_async_cg(%s: !tile.tensor<f32, gmem, "64:1", 16>, %d: !tile.tensor<f32, smem, "64:1", 16>, %i: index) {
  // expected-error@+1 {{'tile.cp_async' op cp.async.cg copies 16 bytes only (PTX), got 8}}
  tile.cp_async %s[%i], %d[%i] {bytes = 8 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "64:1", 16>, !tile.tensor<f32, smem, "64:1", 16>
  return
}

// -----

func.func @cp_async_elements(%s: !tile.tensor<f64, gmem, "64:1", 16>, %d: !tile.tensor<f64, smem, "64:1", 16>, %i: index) {
  // expected-error@+1 {{'tile.cp_async' op 4 bytes is not a whole number of f64 elements}}
  tile.cp_async %s[%i], %d[%i] {bytes = 4 : i64} : !tile.tensor<f64, gmem, "64:1", 16>, !tile.tensor<f64, smem, "64:1", 16>
  return
}
