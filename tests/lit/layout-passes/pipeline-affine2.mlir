// Seed 002 (CUTLASS affine2: strides above 1 in both modes) through the whole layout lowering
// (the layout-lowering pipeline): the remark explains the element-wise copy and every element
// lands where the layouts say, with strided scalar accesses only.
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(layout-lowering)' | FileCheck %s

// CHECK-LABEL: func.func @affine2
// CHECK-NOT: layout.
// CHECK-NOT: tile.copy
// CHECK-NOT: tile.load_vector
// CHECK: %[[X:.*]] = tile.load %a[0] : !tile.ptr<f64, gmem, 16> -> f64
// CHECK: tile.store %[[X]], %b[0] : !tile.ptr<f64, gmem, 16>
// CHECK: %[[Y:.*]] = tile.load %a[2] : !tile.ptr<f64, gmem, 16> -> f64
// CHECK: tile.store %[[Y]], %b[1] : !tile.ptr<f64, gmem, 16>
// CHECK: tile.load %a[16]
// CHECK: tile.store %{{.*}}, %b[4]
// CHECK: tile.load %a[54]
// CHECK: tile.store %{{.*}}, %b[15]
func.func @affine2(%a: !tile.ptr<f64, gmem, 16>, %b: !tile.ptr<f64, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(4,4):(2,16)">
  %m = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %a, %l : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(2,16)">) -> !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>
  %u = tile.make_tensor %b, %m : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  // expected-remark@+1 {{copy uses 64-bit accesses: stride of mode 0 of the source is 2 (affine2 layout: strides above 1 in every mode)}}
  tile.copy %t, %u : !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>, !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  return
}
