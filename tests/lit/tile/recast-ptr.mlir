// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --canonicalize | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @recast
// CHECK: %q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 16> -> !tile.ptr<f16, gmem, 16>
// CHECK: %r = tile.recast_ptr %s : !tile.ptr<f16, smem, 4> -> !tile.ptr<i32, smem, 4>
func.func @recast(%p: !tile.ptr<f32, gmem, 16>, %s: !tile.ptr<f16, smem, 4>) -> (!tile.ptr<f16, gmem, 16>, !tile.ptr<i32, smem, 4>) {
  %q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 16> -> !tile.ptr<f16, gmem, 16>
  %r = tile.recast_ptr %s : !tile.ptr<f16, smem, 4> -> !tile.ptr<i32, smem, 4>
  return %q, %r : !tile.ptr<f16, gmem, 16>, !tile.ptr<i32, smem, 4>
}

// A recast to the pointer's own type folds away.
// CANON-LABEL: func.func @same
// CANON-NOT: tile.recast_ptr
// CANON: return %p
func.func @same(%p: !tile.ptr<f32, gmem, 16>) -> !tile.ptr<f32, gmem, 16> {
  %q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 16> -> !tile.ptr<f32, gmem, 16>
  return %q : !tile.ptr<f32, gmem, 16>
}
