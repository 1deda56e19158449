// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @operand_type(%a: i32, %b: f32) {
  // expected-error@+1 {{'arith.addi' op operand #1 must be signless-integer-like, but got 'f32'}}
  %0 = "arith.addi"(%a, %b) : (i32, f32) -> i32
  return
}

// -----

func.func @float_for_int() {
  // expected-error@+1 {{floating point value not valid for type 'i32'}}
  %c = arith.constant 1.0 : i32
  return
}

// -----

func.func @predicate(%a: i32) {
  // expected-error@+1 {{unknown predicate 'foo' for 'arith.cmpi'}}
  %0 = arith.cmpi foo, %a, %a : i32
  return
}

// -----

func.func @constant_type() {
  // expected-error@+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i64}> : () -> i32
  return
}

// -----

func.func @unknown_op(%a: i32) {
  // expected-error@+1 {{custom op 'arith.foo' is unknown}}
  %0 = arith.foo %a : i32
  return
}

// -----

func.func @dominance(%a: i32) {
  // expected-error@+1 {{operand #1 does not dominate this use}}
  %b = arith.addi %a, %c : i32
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %c = arith.addi %a, %a : i32
  return
}
