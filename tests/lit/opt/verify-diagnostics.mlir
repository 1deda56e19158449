// --verify-diagnostics matches expected-* annotations exactly as mlir-opt does.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(func.func(canonicalize{test-convergence=true max-iterations=1}))'

// A pass error at the op, expected with @+N, on the line of the op and with @above.
// expected-error@+1 {{canonicalization did not converge}}
func.func @changes(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// -----

func.func @not_converged(%a: i32) -> i32 { // expected-error {{did not converge within max-iterations=1}}
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// -----

func.func @above(%a: i32) -> i32 {
// expected-error@above {{op canonicalization}}
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// -----

func.func @minus(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32

// expected-error@-3 {{op canonicalization}}
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// -----

// Notes, @below and regular expressions.
// expected-note@below {{see existing symbol definition here}}
func.func @dup() {
  return
}
// expected-error-re@+1 {{redefinition of symbol named '{{[a-z]+}}'}}
func.func @dup() {
  return
}

// -----

// A chunk with no diagnostics and no annotations is fine.
func.func @quiet() {
  return
}
