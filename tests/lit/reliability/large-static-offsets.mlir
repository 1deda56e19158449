// Static element offsets past 2^31 (docs/reliability.md): a GEP's immediate indices are i32
// (MLIR's rawConstantIndices), so a larger constant becomes an index operand of the index
// width; with 32-bit indices it is a diagnostic at the access, never an internal error.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(convert-to-llvm)' | FileCheck %s
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(convert-to-llvm{index-bitwidth=32})' --verify-diagnostics

// CHECK-LABEL: func.func @past_i32
// CHECK: %[[C:.*]] = arith.constant 6442450942 : i64
// CHECK: %[[P:.*]] = llvm.getelementptr %A[%[[C]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %{{.*}}, %[[P]]
func.func @past_i32(%A: !tile.ptr<f32, gmem, 16>) {
  %cst = arith.constant 1.000000e+00 : f32
  // expected-error@+1 {{'arith.constant' op constant 6442450942 : index does not fit i32 (the index type is 32 bits wide here}}
  tile.store %cst, %A[6442450942] : !tile.ptr<f32, gmem, 16>
  return
}

// -----

// The largest immediate stays one.
// CHECK-LABEL: func.func @int32_max
// CHECK: llvm.getelementptr %A[2147483647] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
func.func @int32_max(%A: !tile.ptr<f32, gmem, 4>) {
  %cst = arith.constant 1.000000e+00 : f32
  tile.store %cst, %A[2147483647] : !tile.ptr<f32, gmem, 4>
  return
}

