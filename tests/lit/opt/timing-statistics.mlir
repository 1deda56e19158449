// --timing and --pass-statistics reports (stderr), in MLIR's format.
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse),symbol-dce)' --timing -o %t 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse),symbol-dce)' --timing --timing-display=list -o %t 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse),symbol-dce)' --pass-statistics -o %t 2>&1 | FileCheck %s --check-prefix=STATS

// TIME: ===-------------------------------------------------------------------------===
// TIME-NEXT: ... Execution time report ...
// TIME-NEXT: ===-------------------------------------------------------------------------===
// TIME-NEXT: Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIME-EMPTY:
// TIME-NEXT: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Parser
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  'func.func' Pipeline
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    Canonicalizer
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    CSE
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  SymbolDCE
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Output
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Rest
// TIME-NEXT: {{[0-9]+\.[0-9]+}} (100.0%)  Total

// LIST: ----Wall Time----  ----Name----
// LIST-DAG: Canonicalizer
// LIST-DAG: CSE
// LIST-DAG: SymbolDCE
// LIST: (100.0%)  Total

// STATS: ... Pass statistics report ...
// STATS: 'func.func' Pipeline
// STATS-NEXT: Canonicalizer
// STATS-NEXT: (S) 2 num-folded - Number of ops folded
// STATS: CSE
// STATS-NEXT: (S) 1 num-cse'd - Number of operations CSE'd
// STATS-NEXT: (S) 0 num-dce'd - Number of operations DCE'd
// STATS-NEXT: SymbolDCE
// STATS-NEXT: (S) 1 num-dce'd - Number of symbols DCE'd

func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.muli %0, %0 : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}

func.func private @dead(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.muli %a, %c1 : i32
  return %0 : i32
}
