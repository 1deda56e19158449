// Mismatches are reported at the annotation or diagnostic and the exit status is 1.
// RUN: not layoutc-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

func.func @unexpected() -> i32 {
  // CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:10: error: unexpected error: use of undeclared SSA value name '%x'
  return %x : i32
}

// -----

func.func @not_produced() {
  // CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:6: error: expected error "this never happens" was not produced
  // expected-error@+1 {{this never happens}}
  return
}

// -----

func.func @wrong_kind() -> i32 {
  // CHECK: verify-diagnostics-mismatch.mlir:[[# @LINE + 1]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
  // expected-warning@+1 {{use of undeclared SSA value name}}
  return %x : i32
}

// -----

func.func @wrong_line() -> i32 {
  // CHECK: error: unexpected error: use of undeclared SSA value name '%x'
  // CHECK: error: expected error "use of undeclared" was not produced
  // expected-error@+2 {{use of undeclared}}
  return %x : i32
}
