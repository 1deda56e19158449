// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>}
func.func @kernel(%v: f32) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>} {
  // CHECK: gpu.thread_id x
  // GENERIC: "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  // XDSL: "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %tx = gpu.thread_id x
  // CHECK: gpu.thread_id y
  %ty = gpu.thread_id y
  // CHECK: gpu.block_id z
  // GENERIC: "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
  %bz = gpu.block_id z
  // CHECK: gpu.block_dim x
  %bd = gpu.block_dim x
  // CHECK: gpu.grid_dim y
  // XDSL: "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
  %gd = gpu.grid_dim y
  // CHECK: gpu.lane_id
  // GENERIC: "gpu.lane_id"() : () -> index
  %lane = gpu.lane_id
  // CHECK: gpu.barrier
  // GENERIC: "gpu.barrier"() : () -> ()
  // XDSL: "gpu.barrier"() : () -> ()
  gpu.barrier
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  // CHECK: %{{.*}}, %{{.*}} = gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
  // GENERIC: "gpu.shuffle"(%{{.*}}, %{{.*}}, %{{.*}}) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (f32, i1)
  %s, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
  // CHECK: gpu.shuffle down
  %s2, %ok2 = gpu.shuffle down %v, %c1, %c32 : f32
  // CHECK: gpu.shuffle up
  %s3, %ok3 = gpu.shuffle up %v, %c1, %c32 : f32
  // CHECK: gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : i32
  %s4, %ok4 = gpu.shuffle idx %c1, %c1, %c32 : i32
  return
}
