// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm)' --split-input-file --verify-diagnostics

func.func @algorithm(%a: !tile.tensor<f32, gmem, "(8):(1)", 16>, %b: !tile.tensor<f32, gmem, "(8):(1)", 16>) {
  // expected-error@+1 {{'tile.copy' op cannot be converted to the LLVM level: run lower-algorithms first}}
  tile.copy %a, %b : !tile.tensor<f32, gmem, "(8):(1)", 16>, !tile.tensor<f32, gmem, "(8):(1)", 16>
  return
}

// -----

func.func @swizzled() -> f32 {
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)", 16>
  // expected-error@+1 {{'tile.load' op not supported: addressing a tensor with layout "Sw<3,4,3> o 0 o (8,64):(64,1)"}}
  %x = tile.load %s[(1, 0)] : !tile.tensor<f32, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)", 16> -> f32
  return %x : f32
}

// -----

func.func @fma(%a: f32) -> f32 {
  // expected-error@+1 {{'tile.mma' op the FMA atom is plain arithmetic: lower-algorithms expands it}}
  %d = tile.mma #tile.mma_atom<"FMA"> (%a), (%a), (%a) : f32, f32, f32 -> f32
  return %d : f32
}

// -----

func.func @tanh_f64(%a: f64) -> f64 {
  // expected-error@+1 {{'math.tanh' op not supported: 'math.tanh' on f64 (f32, f16 and bf16 only)}}
  %0 = math.tanh %a fastmath<afn> : f64
  return %0 : f64
}
