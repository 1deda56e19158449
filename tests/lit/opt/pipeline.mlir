// Pipelines: nesting, options, per-pass flags and the printed (normalized) pipeline.
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize{max-iterations=5 top-down=false}, cse), symbol-dce)' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: layoutc-opt %s -p 'func.func(canonicalize),cse' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=IMPLICIT
// RUN: layoutc-opt %s --canonicalize='max-iterations=2' --cse --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: layoutc-opt %s -p 'builtin.module(any(cse))' | FileCheck %s --check-prefix=ANY
// RUN: layoutc-opt %s -p 'builtin.module(func.func(canonicalize,cse))' | FileCheck %s

// DUMP: builtin.module(func.func(canonicalize{top-down=false max-iterations=5},cse),symbol-dce)
// IMPLICIT: builtin.module(func.func(canonicalize),cse)
// FLAGS: builtin.module(canonicalize{max-iterations=2},cse)

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32)
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[A]], %[[A]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %[[M]] : i32
// CHECK-NEXT: return %[[S]] : i32
// ANY-LABEL: func.func @f
// ANY: arith.addi %{{.*}}, %{{.*}} : i32
// ANY-NEXT: arith.muli
// ANY-NEXT: arith.addi
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.muli %0, %0 : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
