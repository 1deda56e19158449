// Bad pipelines and command lines: one diagnostic pointing into the pipeline, exit status 1
// (2 for a bad command line), and no traceback.
// RUN: not layoutc-opt %s -p 'builtin.module(func.func(canonicalise))' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not layoutc-opt %s -p 'builtin.module(canonicalize{max-iteration=3})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not layoutc-opt %s -p 'builtin.module(canonicalize{max-iterations=abc})' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not layoutc-opt %s -p 'builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not layoutc-opt %s -p 'cse(canonicalize)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not layoutc-opt %s -p 'cse' --cse 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not layoutc-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not layoutc-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// UNKNOWN: <pass-pipeline>:1:26: error: 'canonicalise' does not refer to a registered pass or pass pipeline; did you mean 'canonicalize'?
// UNKNOWN-NEXT: builtin.module(func.func(canonicalise))
// UNKNOWN-NEXT: {{^                         \^$}}
// OPTION: <pass-pipeline>:1:29: error: no such option 'max-iteration' for pass 'canonicalize'; did you mean 'max-iterations'?
// VALUE: <pass-pipeline>:1:29: error: invalid value 'abc' for int option 'max-iterations'
// SYNTAX: <pass-pipeline>:1:19: error: expected ',' or ')', found end of pipeline
// ANCHOR: error: 'cse' is a pass, not an operation name
// BOTH: layoutc-opt: error: '--pass-pipeline' cannot be combined with individual pass flags
// FLAG: layoutc-opt: error: unrecognized argument '--no-such-flag'
// MISSING: layoutc-opt: error: could not open input file '{{.*}}.missing'
// UNKNOWN-NOT: Traceback
// MISSING-NOT: Traceback

func.func @f() {
  return
}
