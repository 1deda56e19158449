// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @redefinition() {
  // expected-note@+1 {{previously defined here}}
  %x = arith.constant 1 : i32
  // expected-error@+1 {{redefinition of SSA value '%x'}}
  %x = arith.constant 2 : i32
  return
}

// -----

func.func @undeclared() -> i32 {
  // expected-error@+1 {{use of undeclared SSA value name '%nope'}}
  return %nope : i32
}

// -----

// expected-error@+1 {{operation 'unknown.op' belongs to an unregistered dialect}}
"unknown.op"() : () -> ()

// -----

// expected-error@+2 {{expected '}' to end region, found end of file}}
func.func @unterminated() {
  return

// -----

// expected-error-re@+1 {{expected '{{[(]}}' to start function arguments, found '%{{[a-z]+}}'}}
func.func @bad %x

// -----

func.func @unknown_type() {
  // expected-error@+1 {{unknown type '!arith.foo' in dialect 'arith'}}
  %0 = "arith.constant"() : () -> !arith.foo
  return
}

// -----

// expected-error@+1 {{dialect 'nodialect' is not registered (type '!nodialect.t')}}
func.func @unregistered_type(%a: !nodialect.t) {
  return
}
