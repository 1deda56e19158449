// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @registers(%r: !tile.tensor<i32, rmem, "(4):(1)", 4>, %v: i32) {
  // expected-error@+1 {{'tile.atomic_rmw' op atomics need global or shared memory; a register fragment is private to its thread}}
  %o = tile.atomic_rmw add %v, %r[0] : !tile.tensor<i32, rmem, "(4):(1)", 4>
  return
}

// -----

func.func @bfloat(%t: !tile.tensor<bf16, gmem, "(4):(1)", 2>, %v: bf16) {
  // expected-error@+1 {{'tile.atomic_rmw' op atomic add supports f16, f32, f64, i32, i64 elements (as CUDA's), not bf16}}
  %o = tile.atomic_rmw add %v, %t[0] : !tile.tensor<bf16, gmem, "(4):(1)", 2>
  return
}

// -----

func.func @float_xor(%t: !tile.tensor<f32, gmem, "(4):(1)", 4>, %v: f32) {
  // expected-error@+1 {{'tile.atomic_rmw' op atomic xor supports i32, i64 elements (as CUDA's), not f32}}
  %o = tile.atomic_rmw xor %v, %t[0] : !tile.tensor<f32, gmem, "(4):(1)", 4>
  return
}

// -----

func.func @kind(%t: !tile.tensor<i32, gmem, "(4):(1)", 4>, %v: i32) {
  // expected-error@+1 {{'tile.atomic_rmw' op unknown atomic operation 'mul'; expected one of add, sub, max, min, exch, and, or, xor, cas}}
  %o = tile.atomic_rmw mul %v, %t[0] : !tile.tensor<i32, gmem, "(4):(1)", 4>
  return
}

// -----

func.func @cas_kind(%t: !tile.tensor<i32, gmem, "(4):(1)", 4>, %v: i32) {
  // expected-error@+1 {{'tile.atomic_rmw' op compare-and-swap is 'tile.atomic_cas'}}
  %o = tile.atomic_rmw cas %v, %t[0] : !tile.tensor<i32, gmem, "(4):(1)", 4>
  return
}

// -----

func.func @value_type(%t: !tile.tensor<i32, gmem, "(4):(1)", 4>, %v: i64) {
  // expected-error@+1 {{'tile.atomic_rmw' op operand has type 'i64', but the memory holds 'i32'}}
  %o = "tile.atomic_rmw"(%v, %t) <{coord = "0", kind = "add"}> : (i64, !tile.tensor<i32, gmem, "(4):(1)", 4>) -> i32
  return
}

// -----

func.func @out_of_range(%t: !tile.tensor<i32, gmem, "(4):(1)", 4>, %v: i32) {
  // expected-error@+1 {{coordinate}}
  %o = tile.atomic_rmw add %v, %t[9] : !tile.tensor<i32, gmem, "(4):(1)", 4>
  return
}

// -----

func.func @cas_result(%t: !tile.tensor<i32, smem, "(4):(1)", 4>, %c: i32, %v: i32) {
  // expected-error@+1 {{'tile.atomic_cas' op result type 'i64' should be 'i32' (the old value)}}
  %o = "tile.atomic_cas"(%c, %v, %t) <{coord = "0"}> : (i32, i32, !tile.tensor<i32, smem, "(4):(1)", 4>) -> i64
  return
}
