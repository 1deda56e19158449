// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @count(%i: i32) {
  // expected-error@+1 {{'gpu.printf' op format "%d %d" has 2 conversions but the op has 1 arguments}}
  gpu.printf "%d %d", %i : i32
  return
}

// -----

func.func @float_for_int(%x: f32) {
  // expected-error@+1 {{'gpu.printf' op argument #0 has type 'f32' but conversion #0 of the format expects an int conversion}}
  gpu.printf "%d", %x : f32
  return
}

// -----

func.func @long_for_int(%n: i64) {
  // expected-error@+1 {{'gpu.printf' op argument #0 has type 'i64' but conversion #0 of the format expects an int conversion}}
  gpu.printf "%d", %n : i64
  return
}

// -----

func.func @int_for_float(%i: i32) {
  // expected-error@+1 {{'gpu.printf' op argument #0 has type 'i32' but conversion #0 of the format expects a floating conversion (%f, %e, %g)}}
  gpu.printf "%f", %i : i32
  return
}

// -----

func.func @string() {
  // expected-error@+1 {{'gpu.printf' op format "%s": the conversion '%s' is not supported}}
  gpu.printf "%s"
  return
}

// -----

func.func @star(%i: i32) {
  // expected-error@+1 {{'gpu.printf' op format "%*d": a '*' width or precision is not supported: write the number}}
  gpu.printf "%*d", %i : i32
  return
}

// -----

func.func @vector(%v: vector<2xf32>) {
  // expected-error@+1 {{'gpu.printf' op operand #0 must be integer, index or float}}
  gpu.printf "%f", %v : vector<2xf32>
  return
}

// -----

func.func @int_for_long(%i: i32) {
  // vprintf would read 8 bytes where the buffer holds 4
  // expected-error@+1 {{'gpu.printf' op argument #0 has type 'i32' but conversion #0 of the format expects a long conversion (%ld, %lld)}}
  gpu.printf "%lld", %i : i32
  return
}
