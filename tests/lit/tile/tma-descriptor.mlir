// tile.tma_descriptor round-trips; its verifier states TMA's static rules.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK: tile.tma_descriptor %{{.*}}, [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}] {box = array<i64: 32, 8>, dims = array<i64: 1, 0>, swizzle = 128 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
func.func @ok(%p: !tile.ptr<f32, gmem, 16>, %m: index, %k: index, %ld: index, %one: index) {
  %d = tile.tma_descriptor %p, [%m, %k], [%ld, %one] {box = array<i64: 32, 8>, dims = array<i64: 1, 0>, swizzle = 128 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @big_box(%p: !tile.ptr<f32, gmem, 16>, %m: index) {
  // expected-error@+1 {{TMA box extents must be in [1, 256], got [512]}}
  %d = tile.tma_descriptor %p, [%m], [%m] {box = array<i64: 512>, dims = array<i64: 0>, swizzle = 0 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @swizzle(%p: !tile.ptr<f32, gmem, 16>, %m: index) {
  // expected-error@+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %d = tile.tma_descriptor %p, [%m], [%m] {box = array<i64: 8>, dims = array<i64: 0>, swizzle = 16 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @smem(%p: !tile.ptr<f32, smem, 16>, %m: index) {
  // expected-error@+1 {{expects a global-memory pointer}}
  %d = tile.tma_descriptor %p, [%m], [%m] {box = array<i64: 8>, dims = array<i64: 0>, swizzle = 0 : i64} : !tile.ptr<f32, smem, 16> -> !llvm.ptr
  return
}
