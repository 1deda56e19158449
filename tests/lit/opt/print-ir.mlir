// IR printing instrumentation (stderr), in MLIR's format.
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse))' --print-ir-before=cse --print-ir-after=cse -o %t 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse))' --print-ir-after-all -o %t 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse))' --print-ir-after-change -o %t 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: layoutc-opt %s -p 'builtin.module(func.func(cse))' --print-ir-before-all --print-ir-module-scope -o %t 2>&1 | FileCheck %s --check-prefix=SCOPE
// RUN: not layoutc-opt %s -p 'builtin.module(func.func(canonicalize{test-convergence=true max-iterations=1}))' --print-ir-after-failure -o %t 2>&1 | FileCheck %s --check-prefix=FAILURE

// NAMED: // -----// IR Dump Before CSE (cse) //----- //
// NAMED-NEXT: func.func @changes
// NAMED: // -----// IR Dump After CSE (cse) //----- //
// NAMED-NEXT: func.func @changes
// NAMED-NOT: Canonicalizer

// ALL: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// ALL-NEXT: func.func @changes
// ALL: // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func @changes
// ALL: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// ALL-NEXT: func.func @unchanged
// ALL: // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func @unchanged

// CHANGE: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHANGE-NEXT: func.func @changes
// CHANGE: // -----// IR Dump After CSE (cse) //----- //
// CHANGE-NEXT: func.func @changes
// CHANGE-NOT: IR Dump

// SCOPE: // -----// IR Dump Before CSE (cse) ('func.func' operation: @changes) //----- //
// SCOPE-NEXT: module {
// SCOPE: // -----// IR Dump Before CSE (cse) ('func.func' operation: @unchanged) //----- //
// SCOPE-NEXT: module {

// FAILURE: error: 'func.func' op canonicalization did not converge within max-iterations=1
// FAILURE: // -----// IR Dump After Canonicalizer Failed (canonicalize) //----- //
// FAILURE-NEXT: func.func @changes

func.func @changes(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.muli %0, %0 : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}

func.func @unchanged(%a: i32) -> i32 {
  return %a : i32
}
