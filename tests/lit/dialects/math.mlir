// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' | FileCheck %s --check-prefix=FOLD

// math.tanh is upstream's op: one float operand, arith's fast-math flags, upstream's syntax.
// CHECK-LABEL: func.func @tanh
// FOLD-LABEL: func.func @tanh
func.func @tanh(%x: f32, %h: bf16) -> (f32, f32, bf16, f32) {
  // CHECK: math.tanh %{{.*}} : f32
  // GENERIC: "math.tanh"(%{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
  %0 = math.tanh %x : f32
  // CHECK: math.tanh %{{.*}} fastmath<afn> : f32
  // GENERIC: "math.tanh"(%{{.*}}) <{fastmath = #arith.fastmath<afn>}> : (f32) -> f32
  %1 = math.tanh %x fastmath<afn> : f32
  // CHECK: math.tanh %{{.*}} fastmath<fast> : bf16
  %2 = math.tanh %h fastmath<fast> : bf16
  // A constant folds to the correctly rounded tanh, whatever the flags.
  // FOLD: %[[C:.*]] = arith.constant 0.46211717 : f32
  // FOLD-NOT: math.tanh %cst
  // FOLD: arith.addf %{{.*}}, %[[C]] : f32
  %c = arith.constant 0.5 : f32
  %3 = math.tanh %c fastmath<afn> : f32
  %4 = arith.addf %1, %3 : f32
  return %0, %4, %2, %3 : f32, f32, bf16, f32
}

// math.fma is upstream's op: a * b + c rounded once, three operands of one float type.
// CHECK-LABEL: func.func @fma
func.func @fma(%a: f32, %b: f32, %c: f32) -> (f32, f32) {
  // CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
  // GENERIC: "math.fma"(%{{.*}}, %{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
  %0 = math.fma %a, %b, %c : f32
  // CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} fastmath<contract> : f32
  %1 = math.fma %a, %b, %c fastmath<contract> : f32
  return %0, %1 : f32, f32
}
