// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(convert-to-llvm)' --verify-diagnostics

// Past 64 bits: a diagnostic at the access (found by the mutation fuzzer).
func.func @past_i64(%A: !tile.ptr<f32, gmem, 16>) {
  %cst = arith.constant 1.000000e+00 : f32
  // expected-error@+1 {{'tile.store' op the static offset 18446744073709551616 does not fit in 64 bits}}
  tile.store %cst, %A[18446744073709551616] : !tile.ptr<f32, gmem, 16>
  return
}
