// A failing pass writes a reproducer (the input and the pipeline) that replays the failure.
// RUN: not layoutc-opt %s -p 'builtin.module(func.func(canonicalize{test-convergence=true max-iterations=1}),cse)' --crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: FileCheck %s --input-file %t.repro.mlir --check-prefix=FILE
// RUN: not layoutc-opt --run-reproducer %t.repro.mlir 2>&1 | FileCheck %s --check-prefix=REPLAY
// A reproducer read without --run-reproducer is plain input (its block is ignored).
// RUN: layoutc-opt %t.repro.mlir -p 'builtin.module(cse)' | FileCheck %s --check-prefix=PLAIN

// FAIL: error: 'func.func' op canonicalization did not converge within max-iterations=1
// FAIL: error: failures have been detected while processing the pass pipeline
// FAIL-NEXT: note: reproducer written to '{{.*}}repro.mlir'; replay with: layoutc-opt --run-reproducer {{.*}}repro.mlir

// FILE: func.func @f
// FILE: {-#
// FILE-NEXT: external_resources: {
// FILE-NEXT: mlir_reproducer: {
// FILE-NEXT: pipeline: "builtin.module(func.func(canonicalize{max-iterations=1 test-convergence=true}),cse)",
// FILE-NEXT: disable_threading: true,
// FILE-NEXT: verify_each: true
// FILE-NEXT: }
// FILE-NEXT: }
// FILE-NEXT: #-}

// The replayed diagnostic points at the same line as the original one.
// REPLAY: repro.mlir:[[# @LINE + 2]]:1: error: 'func.func' op canonicalization did not converge within max-iterations=1
// PLAIN: func.func @f
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}
