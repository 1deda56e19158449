// lower-algorithms on axpby, fill and clear.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(lower-algorithms)' | FileCheck %s

// axpby with a run-time beta: y = alpha*x when beta == 0 (y is not read into the result, as
// CuTe's axpby), alpha*x + beta*y otherwise.
// CHECK-LABEL: func.func @axpby
// CHECK: %[[Z:.*]] = arith.cmpf oeq, %beta, %{{.*}} : f32
// CHECK: %[[X:.*]] = tile.load %x[(0)]
// CHECK: %[[AX:.*]] = arith.mulf %alpha, %[[X]]
// CHECK: %[[Y:.*]] = tile.load %y[(0)]
// CHECK: %[[BY:.*]] = arith.mulf %beta, %[[Y]]
// CHECK: %[[S:.*]] = arith.addf %[[AX]], %[[BY]]
// CHECK: %[[R:.*]] = arith.select %[[Z]], %[[AX]], %[[S]] : f32
// CHECK: tile.store %[[R]], %y[(0)]
// CHECK-NOT: arith.cmpf
func.func @axpby(%alpha: f32, %x: !tile.tensor<f32, gmem, "(2):(1)", 16>, %beta: f32, %y: !tile.tensor<f32, gmem, "(2):(1)", 16>) {
  tile.axpby %alpha, %x, %beta, %y : f32, !tile.tensor<f32, gmem, "(2):(1)", 16>, f32, !tile.tensor<f32, gmem, "(2):(1)", 16>
  return
}

// -----

// A constant zero beta never reads y.
// CHECK-LABEL: func.func @axpby_beta_zero
// CHECK-NOT: tile.load %y
// CHECK: tile.store %{{.*}}, %y[(0)]
func.func @axpby_beta_zero(%alpha: f32, %x: !tile.tensor<f32, gmem, "(1):(1)", 16>, %y: !tile.tensor<f32, gmem, "(1):(1)", 16>) {
  %beta = arith.constant 0.0 : f32
  tile.axpby %alpha, %x, %beta, %y : f32, !tile.tensor<f32, gmem, "(1):(1)", 16>, f32, !tile.tensor<f32, gmem, "(1):(1)", 16>
  return
}

// -----

// fill and clear: a store per element, nested coordinates kept natural.
// CHECK-LABEL: func.func @fill_clear
// CHECK: tile.store %v, %t[(0, (0, 0))]
// CHECK: tile.store %v, %t[(1, (0, 0))]
// CHECK: tile.store %v, %t[(0, (1, 0))]
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: tile.store %[[Z]], %u[(0)]
// CHECK: tile.store %[[Z]], %u[(1)]
func.func @fill_clear(%t: !tile.tensor<f32, rmem, "(2,(2,2)):(1,(2,4))", 4>, %v: f32, %u: !tile.tensor<i32, smem, "(2):(1)", 4>) {
  tile.fill %t, %v : !tile.tensor<f32, rmem, "(2,(2,2)):(1,(2,4))", 4>, f32
  tile.clear %u : !tile.tensor<i32, smem, "(2):(1)", 4>
  return
}
