// tile.tma_im2col_descriptor round-trips; its verifier states the im2col descriptor's rules
// (rank 3-5, one corner per spatial dimension in the rank's signed range, channels <= 256,
// pixels <= 1024).
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK: tile.tma_im2col_descriptor %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {channels = 32 : i64, lower = array<i64: 0, 0, 0>, pixels = 256 : i64, swizzle = 128 : i64, upper = array<i64: -2, -2, -2>} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
func.func @ok(%p: !tile.ptr<f32, gmem, 16>, %n: index, %e: index) {
  %d = tile.tma_im2col_descriptor %p, [%n, %e, %e, %e, %e], [%e, %e, %e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0, 0, 0>, upper = array<i64: -2, -2, -2>, swizzle = 128 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @corner_range(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{a rank-5 tensor's box corners must be in [-16, 15], got lower [0, 0, 0], upper [-2, -20, -2]}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e, %e, %e], [%e, %e, %e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0, 0, 0>, upper = array<i64: -2, -20, -2>, swizzle = 0 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @corners(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{expects one lower and one upper corner per spatial dimension (1), got [0, 0] and [0, 0]}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e], [%e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0, 0>, upper = array<i64: 0, 0>, swizzle = 0 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @rank(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{expects a tensor of rank 3 to 5 with one extent and stride each, got 2 extents and 2 strides}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e], [%e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64>, upper = array<i64>, swizzle = 0 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @pixels(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{channels must be in [1, 256] and pixels in [1, 1024], got 32 and 2048}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e], [%e, %e, %e] {channels = 32 : i64, pixels = 2048 : i64, lower = array<i64: 0>, upper = array<i64: 0>, swizzle = 0 : i64} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

// The traversal strides (a convolution's stride, W first) round-trip.
// CHECK-LABEL: func.func @strided
// CHECK: tile.tma_im2col_descriptor {{.*}}traversal = array<i64: 2, 1, 3>
func.func @strided(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e, %e, %e], [%e, %e, %e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0, 0, 0>, upper = array<i64: -2, -2, -2>, swizzle = 0 : i64, traversal = array<i64: 2, 1, 3>} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @traversal_range(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{expects one traversal stride in [1, 8] per spatial dimension (3), got [2, 9, 1]}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e, %e, %e], [%e, %e, %e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0, 0, 0>, upper = array<i64: -2, -2, -2>, swizzle = 0 : i64, traversal = array<i64: 2, 9, 1>} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}

// -----

func.func @traversal_count(%p: !tile.ptr<f32, gmem, 16>, %e: index) {
  // expected-error@+1 {{expects one traversal stride in [1, 8] per spatial dimension (1), got [2, 2]}}
  %d = tile.tma_im2col_descriptor %p, [%e, %e, %e], [%e, %e, %e] {channels = 32 : i64, pixels = 256 : i64, lower = array<i64: 0>, upper = array<i64: 0>, swizzle = 0 : i64, traversal = array<i64: 2, 2>} : !tile.ptr<f32, gmem, 16> -> !llvm.ptr
  return
}
