// Register fragments are unrolled (each element is its own register), so the work grows with
// their size: past MAX_FORCED_UNROLL body instances (passes/layout/loops.py) it is a
// diagnostic at once, not minutes of unrolling into millions of ops (docs/reliability.md).
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(lower-algorithms)' --verify-diagnostics

func.func @gemm_1024x1024_accumulator(%x: !tile.tensor<f32, rmem, "(1024):(1)", 4>, %y: !tile.tensor<f32, rmem, "(1024):(1)", 4>, %z: !tile.tensor<f32, rmem, "(1024,1024):(1,1024)", 4>) {
  // expected-error@+1 {{'tile.gemm' cannot be lowered: not supported: register fragments of 1024 x 1024 elements would unroll into more than 32768 instructions}}
  tile.gemm %x, %y, %z : !tile.tensor<f32, rmem, "(1024):(1)", 4>, !tile.tensor<f32, rmem, "(1024):(1)", 4>, !tile.tensor<f32, rmem, "(1024,1024):(1,1024)", 4>
  return
}

// -----

func.func @fill_1m_fragment(%v: f32) {
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(1048576):(1)", 4>
  // expected-error@+1 {{register fragments of 1048576 elements would unroll}}
  tile.fill %f, %v : !tile.tensor<f32, rmem, "(1048576):(1)", 4>, f32
  return
}

// -----

// A 16x16 accumulator is unrolled as before.
func.func @gemm_16x16_ok(%x: !tile.tensor<f32, rmem, "(16):(1)", 4>, %y: !tile.tensor<f32, rmem, "(16):(1)", 4>, %z: !tile.tensor<f32, rmem, "(16,16):(1,16)", 4>) {
  tile.gemm %x, %y, %z : !tile.tensor<f32, rmem, "(16):(1)", 4>, !tile.tensor<f32, rmem, "(16):(1)", 4>, !tile.tensor<f32, rmem, "(16,16):(1,16)", 4>
  return
}
