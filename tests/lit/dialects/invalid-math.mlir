// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @integer(%a: i32) {
  // expected-error@+1 {{'math.tanh' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = "math.tanh"(%a) : (i32) -> i32
  return
}

// -----

func.func @result_type(%a: f32) {
  // expected-error@+1 {{'math.tanh' op requires the same type for all operands and results}}
  %0 = "math.tanh"(%a) : (f32) -> f16
  return
}

// -----

func.func @flag(%a: f32) {
  // expected-error@+1 {{unknown arith.fastmath flag 'quick'}}
  %0 = math.tanh %a fastmath<quick> : f32
  return
}

// -----

func.func @fma_types(%a: f32, %b: f64) {
  // expected-error@+1 {{'math.fma' op requires the same type for all operands and results}}
  %0 = "math.fma"(%a, %b, %a) : (f32, f64, f32) -> f32
  return
}
