// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' | FileCheck %s

// CHECK-LABEL: func.func @known
func.func @known() -> (index, index, index, index, index) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 2, 1>} {
  // CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[TX:.*]] = gpu.thread_id x
  // CHECK-DAG: %[[TY:.*]] = gpu.thread_id y
  // CHECK-NOT: gpu.block_dim
  // CHECK-NOT: gpu.thread_id z
  // CHECK: return %[[C128]], %[[C2]], %[[TX]], %[[TY]], %[[C0]]
  %bx = gpu.block_dim x
  %by = gpu.block_dim y
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %tz = gpu.thread_id z
  return %bx, %by, %tx, %ty, %tz : index, index, index, index, index
}

// CHECK-LABEL: func.func @unknown
func.func @unknown() -> index attributes {gpu.kernel} {
  // CHECK: %[[B:.*]] = gpu.block_dim x
  // CHECK: return %[[B]]
  %bx = gpu.block_dim x
  return %bx : index
}

// CHECK-LABEL: func.func @nested
func.func @nested(%n: index) -> index attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  // The folder finds the kernel's block size from inside nested regions.
  // CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
  // CHECK: scf.for
  // CHECK-NOT: gpu.block_dim
  // CHECK: arith.addi %{{.*}}, %[[C64]] : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %b = gpu.block_dim x
    %s = arith.addi %acc, %b : index
    scf.yield %s : index
  }
  return %r : index
}
