// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @shape(%a: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  // expected-error@+1 {{'nvvm.wgmma.mma_async' op shape m64n8k8 is not m64nNk16 with N a multiple of 8 in [8, 256]}}
  %d = nvvm.wgmma.mma_async %a, %a, %acc, #nvvm.shape<m = 64, n = 8, k = 8>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @accumulators(%a: i64, %acc: !llvm.struct<(f32, f32)>) {
  // expected-error@+1 {{'nvvm.wgmma.mma_async' op expected accumulators of type '!llvm.struct<(f32, f32, f32, f32)>'}}
  %d = nvvm.wgmma.mma_async %a, %a, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32)> -> !llvm.struct<(f32, f32)>
  return
}

// -----

func.func @tf32_transposed(%a: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  // expected-error@+1 {{'nvvm.wgmma.mma_async' op MN-major (transposed) operands need f16 or bf16, not tf32}}
  %d = nvvm.wgmma.mma_async %a, %a, %acc, #nvvm.shape<m = 64, n = 8, k = 8>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<tf32>, #nvvm.wgmma_scale_in<one>, <col>], B [<tf32>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @wait() {
  // expected-error@+1 {{'nvvm.wgmma.wait.group.sync.aligned' op the group count must be in [0, 7], got 8}}
  nvvm.wgmma.wait.group.sync.aligned 8
  return
}

// -----

func.func @stmatrix(%p: !llvm.ptr<3>, %r: i32) {
  // expected-error@+1 {{'nvvm.stmatrix' op expected 1, 2 or 4 source registers, got 3}}
  nvvm.stmatrix %p, %r, %r, %r {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32
  return
}

// -----

func.func @tile_wgmma(%d: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma' op atom 'SM90_64x8x16_F32F16F16_SS' takes 4 C values per thread and gives as many D values, got 1 and 1}}
  %r = tile.wgmma #tile.mma_atom<"SM90_64x8x16_F32F16F16_SS"> %d, %d, (%c) {transpose_a = 0 : i32, transpose_b = 0 : i32} : f32 -> f32
  return
}

// -----

func.func @tile_wgmma_tf32_transposed(%d: i64, %c: f32) {
  // expected-error@+1 {{'tile.wgmma' op transpose_a = 1 is not valid for atom 'SM90_64x8x8_F32TF32TF32_SS_TN'}}
  %r:4 = tile.wgmma #tile.mma_atom<"SM90_64x8x8_F32TF32TF32_SS_TN"> %d, %d, (%c, %c, %c, %c) {transpose_a = 1 : i32, transpose_b = 0 : i32} : f32 -> f32
  return
}

// -----

func.func @tile_wgmma_desc(%p: !tile.ptr<f16, smem, 1024>, %i: index) {
  // expected-error@+1 {{'tile.wgmma_desc' op the static bits must leave the start-address field [0,14) zero}}
  %d = tile.wgmma_desc %p[%i] {bits = 5 : i64} : !tile.ptr<f16, smem, 1024> -> i64
  return
}
