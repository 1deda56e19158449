// select-atoms checks the atoms users give against what the operands allow.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(select-atoms{arch=sm_80})'

func.func @cp_async_not_proven(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 16>) {
  %l = layout.constant #layout.layout<"(4,4):(2,8)">
  %m = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,4):(2,8)">) -> !tile.tensor<f32, gmem, "(4,4):(2,8)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f32, smem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f32, smem, "(4,4):(1,4)", 16>
  // expected-error@+1 {{atom 'cp.async.cg' moves 128 bits per access, but only 32-bit accesses are proven for this copy: stride of mode 0 of the source is 2 (affine2 layout: strides above 1 in every mode)}}
  tile.copy %t, %u {atom = #tile.copy_atom<"cp.async.cg", 128>} : !tile.tensor<f32, gmem, "(4,4):(2,8)", 16>, !tile.tensor<f32, smem, "(4,4):(1,4)", 16>
  return
}

// -----

func.func @universal_misaligned(%p: !tile.ptr<f32, gmem, 4>, %q: !tile.ptr<f32, gmem, 16>) {
  %l = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 4>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f32, gmem, "(4,4):(1,4)", 4>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  // expected-error@+1 {{atom 'universal' moves 128 bits per access, but only 32-bit accesses are proven for this copy: 16 contiguous f32, but the source base pointer is only 4-byte aligned}}
  tile.copy %t, %u {atom = #tile.copy_atom<"universal", 128>} : !tile.tensor<f32, gmem, "(4,4):(1,4)", 4>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  return
}

// -----

func.func @ldmatrix_rows(%s: !tile.ptr<f16, smem, 16>) {
  %l = layout.constant #layout.layout<"(8,4):(2,16)">
  %t = tile.make_tensor %s, %l : (!tile.ptr<f16, smem, 16>, !layout.layout<"(8,4):(2,16)">) -> !tile.tensor<f16, smem, "(8,4):(2,16)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f16, rmem, "(8,4):(1,8)", 2>
  // expected-error@+1 {{atom 'ldmatrix.x4' accesses one 16-byte row (8 contiguous f16) per thread, but the shared-memory tensor's value mode is 8:2}}
  tile.copy %t, %r {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(8,4):(2,16)", 16>, !tile.tensor<f16, rmem, "(8,4):(1,8)", 2>
  return
}

// -----

func.func @architecture(%a: !tile.tensor<f16, rmem, "(8,1,1):(1,0,0)", 2>, %b: !tile.tensor<f16, rmem, "(4,1,1):(1,0,0)", 2>, %c: !tile.tensor<f32, rmem, "(4,1,1):(1,0,0)", 4>) {
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x16_F32F16F16F32_TN">} : !tile.tensor<f16, rmem, "(8,1,1):(1,0,0)", 2>, !tile.tensor<f16, rmem, "(4,1,1):(1,0,0)", 2>, !tile.tensor<f32, rmem, "(4,1,1):(1,0,0)", 4>
  return
}

// -----

// The dialect's verifier already refuses cp.async outside global -> shared.
func.func @cp_async_spaces(%r: !tile.tensor<f32, rmem, "(4):(1)", 16>, %g: !tile.tensor<f32, gmem, "(4):(1)", 16>) {
  // expected-error@+1 {{atom 'cp.async.ca' copies gmem -> smem, not rmem -> gmem}}
  tile.copy %r, %g {atom = #tile.copy_atom<"cp.async.ca", 128>} : !tile.tensor<f32, rmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}
