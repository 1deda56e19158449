// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @operand_count(%a: i32) {
  // expected-error@+1 {{'cf.br' op branch has 1 operands for successor #0, but target block has 0}}
  cf.br ^bb1(%a : i32)
^bb1:
  return
}

// -----

func.func @condition_type(%a: i32) {
  // expected-note@-1 {{prior use here}}
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'i1' vs 'i32'}}
  cf.cond_br %a, ^bb1, ^bb1
^bb1:
  return
}

// -----

func.func @undefined_block() {
  // expected-error@+1 {{reference to an undefined block '^missing'}}
  cf.br ^missing
}

// -----

func.func @no_terminator(%a: i32) {
  cf.br ^bb1
^bb1:
  // expected-error@+1 {{block with no terminator, has 'arith.addi'}}
  %0 = arith.addi %a, %a : i32
}
