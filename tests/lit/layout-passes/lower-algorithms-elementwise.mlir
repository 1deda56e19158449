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

// f32 scalars on f16 tensors (CuTe's C++ conversions): the elements are extended, the
// arithmetic is f32, and the result is rounded to f16 once, when stored.
// CHECK-LABEL: func.func @axpby_f16_in_f32
// CHECK: %[[X:.*]] = tile.load %x[(0)]
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: %[[AX:.*]] = arith.mulf %alpha, %[[XF]]
// CHECK: %[[Y:.*]] = tile.load %y[(0)]
// CHECK: %[[YF:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK: %[[BY:.*]] = arith.mulf %beta, %[[YF]]
// CHECK: %[[S:.*]] = arith.addf %[[AX]], %[[BY]]
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[AX]], %[[S]] : f32
// CHECK: %[[H:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK: tile.store %[[H]], %y[(0)]
func.func @axpby_f16_in_f32(%alpha: f32, %x: !tile.tensor<f16, gmem, "(1):(1)", 16>, %beta: f32, %y: !tile.tensor<f16, gmem, "(1):(1)", 16>) {
  tile.axpby %alpha, %x, %beta, %y : f32, !tile.tensor<f16, gmem, "(1):(1)", 16>, f32, !tile.tensor<f16, gmem, "(1):(1)", 16>
  return
}

// -----

// float scalars on integer tensors: computed in the float type, truncated toward zero on store.
// CHECK-LABEL: func.func @axpby_i32_in_f32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[AX:.*]] = arith.mulf %alpha
// CHECK: %[[I:.*]] = arith.fptosi %[[AX]] : f32 to i32
// CHECK: tile.store %[[I]], %y[(0)]
func.func @axpby_i32_in_f32(%alpha: f32, %x: !tile.tensor<i32, gmem, "(1):(1)", 16>, %y: !tile.tensor<i32, gmem, "(1):(1)", 16>) {
  %beta = arith.constant 0.0 : f32
  tile.axpby %alpha, %x, %beta, %y : f32, !tile.tensor<i32, gmem, "(1):(1)", 16>, f32, !tile.tensor<i32, gmem, "(1):(1)", 16>
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

// -----

// fill and clear of global memory store whole vectors when the destination is contiguous and
// aligned: the vector is built once, before the stores (a splat of the value; zero for clear).
// CHECK-LABEL: func.func @vector_fill_clear
// CHECK: %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK: %[[V0:.*]] = llvm.insertelement %v, %[[U]][%{{.*}} : i32] : vector<4xf32>
// CHECK: %[[V1:.*]] = llvm.insertelement %v, %[[V0]]
// CHECK: %[[V2:.*]] = llvm.insertelement %v, %[[V1]]
// CHECK: %[[V3:.*]] = llvm.insertelement %v, %[[V2]]
// CHECK: tile.store_vector %[[V3]], %t[(0, 0)] {alignment = 16 : i64}
// CHECK: tile.store_vector %[[V3]], %t[(0, 1)] {alignment = 16 : i64}
// CHECK: %[[Z:.*]] = llvm.mlir.zero : vector<2xf64>
// CHECK: tile.store_vector %[[Z]], %u[(0, 0)] {alignment = 16 : i64}
// CHECK: tile.store_vector %[[Z]], %u[(0, 1)] {alignment = 16 : i64}
// CHECK-NOT: tile.store
func.func @vector_fill_clear(%t: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %v: f32, %u: !tile.tensor<f64, smem, "(2,2):(1,2)", 16>) {
  tile.fill %t, %v : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, f32
  tile.clear %u : !tile.tensor<f64, smem, "(2,2):(1,2)", 16>
  return
}

// -----

// A negative zero is not all-zero bits: it is splat, not replaced by llvm.mlir.zero.
// CHECK-LABEL: func.func @negative_zero
// CHECK-NOT: llvm.mlir.zero
// CHECK: llvm.mlir.undef : vector<4xf32>
func.func @negative_zero(%t: !tile.tensor<f32, gmem, "(4):(1)", 16>) {
  %z = arith.constant -0.0 : f32
  tile.fill %t, %z : !tile.tensor<f32, gmem, "(4):(1)", 16>, f32
  return
}
