// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @space(%p: !tile.ptr<f32, gmem, 16>) {
  // expected-error@+1 {{'tile.recast_ptr' op result '!tile.ptr<f16, smem, 16>' must be in the memory space of '!tile.ptr<f32, gmem, 16>' (gmem)}}
  %q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 16> -> !tile.ptr<f16, smem, 16>
  return
}

// -----

func.func @alignment(%p: !tile.ptr<f32, gmem, 4>) {
  // expected-error@+1 {{'tile.recast_ptr' op result alignment 16 is not proven: '!tile.ptr<f32, gmem, 4>' is 4-byte aligned}}
  %q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 4> -> !tile.ptr<f16, gmem, 16>
  return
}

// -----

func.func @element(%p: !tile.ptr<f16, gmem, 2>) {
  // expected-error@+1 {{'tile.recast_ptr' op result '!tile.ptr<f64, gmem, 2>' is less aligned than its element type: the address is only 2-byte aligned}}
  %q = tile.recast_ptr %p : !tile.ptr<f16, gmem, 2> -> !tile.ptr<f64, gmem, 2>
  return
}

// -----

func.func @operand(%p: !tile.tensor<f32, gmem, "(4):(1)", 16>) {
  // expected-error@+1 {{'tile.recast_ptr' op operand #0 must be}}
  %q = "tile.recast_ptr"(%p) : (!tile.tensor<f32, gmem, "(4):(1)", 16>) -> !tile.ptr<f16, gmem, 16>
  return
}
