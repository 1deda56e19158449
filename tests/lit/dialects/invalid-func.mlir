// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @wrong_return_type(%a: i32) -> i64 {
  // expected-error@+1 {{'func.return' op type of return operand 0 ('i32') doesn't match function result type ('i64') in function @wrong_return_type}}
  return %a : i32
}

// -----

func.func @missing_callee() {
  // expected-error@+1 {{'nowhere' does not reference a valid function}}
  call @nowhere() : () -> ()
  return
}

// -----

func.func private @takes_i32(i32)
func.func @call_type_mismatch(%a: i64) {
  // expected-error@+1 {{operand type mismatch: expected operand type 'i32', but provided 'i64' for operand number 0}}
  call @takes_i32(%a) : (i64) -> ()
  return
}

// -----

// expected-note@+1 {{see existing symbol definition here}}
func.func @dup() {
  return
}
// expected-error@+1 {{redefinition of symbol named 'dup'}}
func.func @dup() {
  return
}

// -----

// Values of the enclosing function are not visible in an isolated function body.
func.func @isolated(%a: i32) {
  func.func @inner() {
    // expected-error@+1 {{use of undeclared SSA value name '%a'}}
    %b = arith.addi %a, %a : i32
    return
  }
  return
}
