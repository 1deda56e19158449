// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @if_without_else(%c: i1) {
  // expected-error@+1 {{'scf.if' op must have an else block if defining values}}
  %r = scf.if %c -> (i32) {
    %z = arith.constant 0 : i32
    scf.yield %z : i32
  }
  return
}

// -----

func.func @zero_step(%lb: index) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{constant step operand must be positive}}
  scf.for %i = %lb to %lb step %c0 {
  }
  return
}

// -----

func.func @yield_outside() {
  // expected-error@+1 {{'scf.yield' op expects parent op to be one of 'scf.for', 'scf.if'}}
  scf.yield
}

// -----

func.func @while_without_condition(%a: i32) {
  // expected-error@+1 {{'scf.while' op expects the 'before' region to end with 'scf.condition'}}
  %w = scf.while (%x = %a) : (i32) -> i32 {
    scf.yield %x : i32
  } do {
  ^bb0(%y: i32):
    scf.yield %y : i32
  }
  return
}

// -----

func.func @yield_types(%c: i1, %a: i64) {
  // expected-error@+1 {{'scf.if' op along control flow edge from Region #0 to parent results: source type #0 'i64' should match input type #0 'i32'}}
  %r = scf.if %c -> (i32) {
    scf.yield %a : i64
  } else {
    scf.yield %a : i64
  }
  return
}
