// RUN: layoutc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// The IR verifier: every problem is reported, at the right op, with MLIR's wording.

func.func @f(%a: i32) -> i64 {
  // expected-error@+1 {{'func.return' op type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f}}
  return %a : i32
}

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'arith.addi' op operand #0 does not dominate this use}}
  %0 = arith.addi %1, %a : i32
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %1 = arith.addi %a, %a : i32
  return
}

// -----

func.func @f(%a: i32) {
  %0 = "test.x"() ({
    // expected-error@+1 {{'test.use' op operand #0 does not dominate this use}}
    "test.use"(%1) : (i32) -> ()
  }) : () -> i32
  // expected-note@+1 {{operand defined here (op in a parent region)}}
  %1 = arith.addi %a, %a : i32
  return
}

// -----

func.func @f(%a: i32) {
  // expected-note@+1 {{operand defined here (op in a parent region)}}
  %0 = "test.x"() ({
    // expected-error@+1 {{'test.use' op operand #0 does not dominate this use}}
    "test.use"(%0) : (i32) -> ()
  }) : () -> i32
  return
}

// -----

func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  // expected-note@+1 {{operand defined here (op in the same region)}}
  %x = "test.v"() : () -> i32
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  // expected-error@+1 {{'func.return' op operand #0 does not dominate this use}}
  return %x : i32
}

// -----

// expected-note@+1 {{operand defined as a block argument (block #1 in the same region)}}
func.func @f(%c: i1) -> i32 {
  cf.br ^bb2
^bb1(%x: i32):
  cf.br ^bb2
^bb2:
  // expected-error@+1 {{'func.return' op operand #0 does not dominate this use}}
  return %x : i32
}

// -----

// Unreachable blocks are exempt from dominance.
func.func @f() -> i32 {
  %0 = "test.v"() : () -> i32
  return %0 : i32
^bb1:
  return %1 : i32
^bb2:
  %1 = "test.v"() : () -> i32
  cf.br ^bb1
}

// -----

func.func @f() {
  // expected-error@+1 {{'arith.constant' op block with no terminator, has 'arith.constant'}}
  %0 = arith.constant 1 : i32
}

// -----

"func.func"() <{sym_name = "f", function_type = () -> ()}> ({
  // expected-error@+1 {{'func.return' op must be the last operation in the parent block}}
  "func.return"() : () -> ()
  "test.x"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'func.func' op empty block: expect at least a terminator}}
func.func @f() {
}

// -----

// expected-error@+1 {{'func.func' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')}}
"func.func"() <{sym_name = "f", function_type = (i32) -> ()}> ({
^bb0(%a: i64):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error@+1 {{'arith.addi' op expected 2 operands, but found 0}}
"arith.addi"() : () -> i32

// -----

%a = "test.a"() : () -> f32
// expected-error@+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'}}
"arith.addi"(%a, %a) : (f32, f32) -> f32

// -----

%a = "test.a"() : () -> i32
// expected-error@+1 {{'arith.addi' op has unknown property 'bogus'}}
"arith.addi"(%a, %a) <{bogus = 1}> : (i32, i32) -> i32

// -----

// expected-error@+1 {{'arith.constant' op requires attribute 'value'}}
%0 = "arith.constant"() : () -> i32

// -----

// expected-error@+1 {{'arith.constant' op failed to verify that all of {value, result} have same type ('i64' vs 'i32')}}
%0 = "arith.constant"() <{value = 1 : i64}> : () -> i32

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'arith.extsi' op result type 'i16' must be wider than operand type 'i32'}}
  %0 = arith.extsi %a : i32 to i16
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error@+1 {{'arith.bitcast' op operand type 'f32' and result type 'i64' are cast incompatible}}
  %0 = arith.bitcast %a : f32 to i64
  return
}

// -----

func.func @f(%n: index) {
  // expected-error@+1 {{'scf.for' op region control flow edge from Region #0 to parent results: source has 0 operands, but target successor needs 1}}
  %0 = scf.for %i = %n to %n step %n iter_args(%x = %n) -> (index) {
    scf.yield
  }
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'scf.for' op constant step operand must be positive}}
  scf.for %i = %n to %n step %c0 {
  }
  return
}

// -----

func.func @f(%c: i1) {
  // expected-error@+1 {{'scf.if' op must have an else block if defining values}}
  %0 = scf.if %c -> (i32) {
    %1 = arith.constant 1 : i32
    scf.yield %1 : i32
  }
  return
}

// -----

func.func @f(%c: i1) {
  // expected-error@+1 {{'scf.yield' op expects parent op to be one of 'scf.for', 'scf.if', 'scf.while', 'scf.execute_region', 'scf.index_switch'}}
  scf.yield
}

// -----

func.func @f() {
  // expected-error@+1 {{'func.call' op 'g' does not reference a valid function}}
  %0 = call @g() : () -> i32
  return
}

// -----

func.func @g(i32)
func.func @f() {
  // expected-error@+1 {{'func.call' op incorrect number of operands for callee}}
  %0 = call @g() : () -> i32
  return
}

// -----

// expected-note@+1 {{see existing symbol definition here}}
func.func @g()
// expected-error@+1 {{'func.func' op redefinition of symbol named 'g'}}
func.func @g()

// -----

func.func @f(%c: i1, %a: i32) {
  // expected-error@+1 {{'cf.cond_br' op branch has 0 operands for successor #1, but target block has 1}}
  cf.cond_br %c, ^bb1(%a : i32), ^bb1
^bb1(%x: i32):
  return
}

// -----

// expected-error@+1 {{'builtin.module' op region #0 should have no arguments}}
"builtin.module"() ({
^bb0(%x: i32):
}) : () -> ()

// -----

func.func @f(%a: i32) {
  // expected-error@+1 {{'arith.cmpi' op invalid predicate 42 : i64}}
  %0 = "arith.cmpi"(%a, %a) <{predicate = 42 : i64}> : (i32, i32) -> i1
  return
}

// -----

func.func @f(%c: i1) -> i32 {
  // expected-error@+1 {{'scf.while' op expects the 'scf.condition' arguments to match the op's result types}}
  %0 = scf.while (%x = %c) : (i1) -> i32 {
    scf.condition(%x) %x : i1
  } do {
  ^bb0(%y: i32):
    scf.yield %c : i1
  }
  return %0 : i32
}

// -----

// Every error is reported, not just the first.
func.func @f(%a: i32, %b: f32) -> i64 {
  // expected-error@+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = "arith.addi"(%b, %b) : (f32, f32) -> f32
  // expected-error@+1 {{'arith.extsi' op result type 'i8' must be wider than operand type 'i32'}}
  %1 = arith.extsi %a : i32 to i8
  // expected-error@+1 {{'arith.addi' op operand #0 does not dominate this use}}
  %2 = arith.addi %3, %a : i32
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %3 = arith.addi %a, %a : i32
  // expected-error@+1 {{'func.return' op type of return operand 0 ('i32') doesn't match function result type ('i64') in function @f}}
  return %a : i32
}
func.func @g() {
  // expected-error@+1 {{'arith.constant' op block with no terminator, has 'arith.constant'}}
  %x = arith.constant 1 : i32
}
