// RUN: layoutc-opt %s -p 'builtin.module(convert-gpu-to-nvvm)' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-gpu-to-nvvm)' --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @ids
func.func @ids() -> (index, index, index, index, index) attributes {gpu.kernel} {
  // CHECK: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: arith.index_castui %[[T]] : i32 to index
  %t = gpu.thread_id x
  // CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
  %b = gpu.block_id y
  // CHECK: nvvm.read.ptx.sreg.ntid.z : i32
  %d = gpu.block_dim z
  // CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
  %g = gpu.grid_dim x
  // CHECK: nvvm.read.ptx.sreg.laneid : i32
  %l = gpu.lane_id
  // CHECK: nvvm.barrier0
  gpu.barrier
  return %t, %b, %d, %g, %l : index, index, index, index, index
}

// MLIR's operands: active mask -1 >> (32 - width), clamp width - 1; for up the segment mask
// (32 - width) << 8, as CUDA's __shfl_up_sync.
// CHECK-LABEL: func.func @shuffles
// CHECK-SAME: (%[[V:.*]]: f32, %[[O:.*]]: i32, %[[W:.*]]: i32, %[[D:.*]]: i64)
func.func @shuffles(%v: f32, %o: i32, %w: i32, %d: i64) -> (f32, i1, f32, i64) {
  // CHECK: %[[M1:.*]] = arith.constant -1 : i32
  // CHECK: %[[C32:.*]] = arith.constant 32 : i32
  // CHECK: %[[N:.*]] = arith.subi %[[C32]], %[[W]] : i32
  // CHECK: %[[MASK:.*]] = arith.shrui %[[M1]], %[[N]] : i32
  // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
  // CHECK: %[[CLAMP:.*]] = arith.subi %[[W]], %[[ONE]] : i32
  // CHECK: %[[S:.*]] = nvvm.shfl.sync bfly %[[MASK]], %[[V]], %[[O]], %[[CLAMP]] {return_value_and_is_valid} : f32 -> !llvm.struct<(f32, i1)>
  // CHECK: llvm.extractvalue %[[S]][0] : !llvm.struct<(f32, i1)>
  // CHECK: llvm.extractvalue %[[S]][1] : !llvm.struct<(f32, i1)>
  %x, %ok = gpu.shuffle xor %v, %o, %w : f32
  // CHECK: arith.shrui
  // CHECK: %[[INACTIVE:.*]] = arith.subi %{{.*}}, %[[W]] : i32
  // CHECK: %[[C8:.*]] = arith.constant 8 : i32
  // CHECK: %[[UPC:.*]] = arith.shli %[[INACTIVE]], %[[C8]] : i32
  // CHECK: nvvm.shfl.sync up %{{.*}}, %[[V]], %[[O]], %[[UPC]] : f32 -> f32
  %u, %ok2 = gpu.shuffle up %v, %o, %w : f32
  // 64-bit values move as two 32-bit halves.
  // CHECK: arith.trunci %[[D]] : i64 to i32
  // CHECK: nvvm.shfl.sync idx {{.*}} : i32 -> i32
  // CHECK: nvvm.shfl.sync idx {{.*}} : i32 -> i32
  // CHECK: arith.ori
  %e, %ok3 = gpu.shuffle idx %d, %o, %w : i64
  return %x, %ok, %u, %e : f32, i1, f32, i64
}

// XDSL: "nvvm.shfl.sync"
