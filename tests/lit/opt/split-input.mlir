// Each chunk is processed on its own; diagnostics keep the file's line numbers; the outputs
// are joined with the marker; one failing chunk does not stop the others (exit status 1).
// RUN: not layoutc-opt %s --split-input-file -p 'builtin.module(canonicalize)' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --input-file %t.err --check-prefix=ERR

// CHECK: func.func @first
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: // -----
// CHECK-NEXT: {{^$}}
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @third
func.func @first() {
  %c = arith.constant 1 : i32
  return
}

// -----

func.func @second() {
  // ERR: split-input.mlir:[[# @LINE + 1]]:10: error: use of undeclared SSA value name '%x'
  return %x : i32
}

// -----

func.func @third() {
  return
}
// ERR-NOT: error
