// Atoms newer than the target architecture are refused.
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(select-atoms{arch=sm_75})'

func.func @cp_async_on_turing(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 16>) {
  %l = layout.constant #layout.layout<"(4):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4):(1)">) -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, smem, 16>, !layout.layout<"(4):(1)">) -> !tile.tensor<f32, smem, "(4):(1)", 16>
  // expected-error@+1 {{atom 'cp.async.cg' needs sm_80 or newer, but the target is sm_75}}
  tile.copy %t, %u {atom = #tile.copy_atom<"cp.async.cg", 128>} : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, smem, "(4):(1)", 16>
  return
}
