// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s -p "builtin.module(lower-layouts)" | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @atomics
// CHECK: %old = tile.atomic_rmw add %v, %t[(%i, 2)] : !tile.tensor<f32, gmem, "(8,4):(1,8)", 16>
// CHECK: %m = tile.atomic_rmw max %w, %s[%i] : !tile.tensor<i32, smem, "(32):(1)", 16>
// CHECK: %o = tile.atomic_cas %c, %w, %s[3] : !tile.tensor<i32, smem, "(32):(1)", 16>
// The accesses become a pointer and an element offset, as tile.store's do.
// LOWER: tile.atomic_rmw add %v, %{{.*}}[%{{.*}}] : !tile.ptr<f32, gmem, 16>
// LOWER: tile.atomic_rmw max %w, %{{.*}}[%i] : !tile.ptr<i32, smem, 16>
// LOWER: tile.atomic_cas %c, %w, %{{.*}}[3] : !tile.ptr<i32, smem, 16>
func.func @atomics(%t: !tile.tensor<f32, gmem, "(8,4):(1,8)", 16>, %s: !tile.tensor<i32, smem, "(32):(1)", 16>, %i: index, %v: f32, %w: i32, %c: i32) -> (f32, i32, i32) {
  %old = tile.atomic_rmw add %v, %t[(%i, 2)] : !tile.tensor<f32, gmem, "(8,4):(1,8)", 16>
  %m = tile.atomic_rmw max %w, %s[%i] : !tile.tensor<i32, smem, "(32):(1)", 16>
  %o = tile.atomic_cas %c, %w, %s[3] : !tile.tensor<i32, smem, "(32):(1)", 16>
  return %old, %m, %o : f32, i32, i32
}
