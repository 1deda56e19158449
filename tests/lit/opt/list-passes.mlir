// RUN: layoutc-opt --list-passes | FileCheck %s
// RUN: layoutc-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: Available passes:
// CHECK: --canonicalize {{ *}}Canonicalize operations
// CHECK-NEXT: --top-down=<bool> {{ *}}Seed the worklist in general top-down order (default: true)
// CHECK: --max-iterations=<int>
// CHECK: --disable-patterns=<list of str>
// CHECK: --cse {{ *}}Eliminate common sub-expressions
// CHECK: --dce {{ *}}Erase dead operations and unreachable blocks
// CHECK: --symbol-dce {{ *}}Eliminate dead private symbols

// HELP: usage: layoutc-opt
// HELP: --verify-diagnostics
// HELP: --split-input-file
