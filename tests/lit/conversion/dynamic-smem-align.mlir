// The dynamic shared-memory base: the GPU puts it right after the static shared memory, 16-byte
// aligned only (ptxas does not pad the static bytes to the extern's .align). When a
// tile.dynamic_smem wants more, the base is realigned at run time, once per function, to the
// widest alignment of the module (every tile.dynamic_smem agrees on it): a GEP by
// (-ptrtoint(base)) & (align - 1) bytes, keeping the global's provenance. The global stays
// declared 16-byte aligned, so LLVM cannot fold the offset to 0. The launch adds align - 16
// bytes for it (the front end, tile.dynamic_smem_padding).
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(convert-to-llvm{target=host})' | FileCheck %s

// CHECK: llvm.mlir.global external @__dynamic_shmem__() {addr_space = 3 : i32, alignment = 16 : i64}
// CHECK: llvm.mlir.global internal @__layoutc_smem() {addr_space = 3 : i32, alignment = 8 : i64}
// CHECK-LABEL: func.func @static_and_swizzled
// CHECK: %[[G:.*]] = llvm.mlir.addressof @__dynamic_shmem__ : !llvm.ptr<3>
// CHECK-NEXT: %[[A:.*]] = llvm.ptrtoint %[[G]] : !llvm.ptr<3> to i32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[M:.*]] = arith.constant 1023 : i32
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[Z]], %[[A]] : i32
// CHECK-NEXT: %[[O:.*]] = arith.andi %[[N]], %[[M]] : i32
// CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %[[G]][%[[O]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NOT: llvm.mlir.addressof @__dynamic_shmem__
// CHECK: llvm.getelementptr %[[B]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f16
// CHECK: llvm.getelementptr %[[B]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, f32
func.func @static_and_swizzled(%i: index) attributes {gpu.kernel} {
  %bar = tile.alloc_smem : !tile.tensor<i64, smem, "(2):(1)", 8>
  %a = tile.dynamic_smem : !tile.ptr<f16, smem, 1024>
  %c = tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  %x = tile.load %a[%i] : !tile.ptr<f16, smem, 1024> -> f16
  %y = arith.extf %x : f16 to f32
  tile.store %y, %c[%i] : !tile.ptr<f32, smem, 16>
  return
}

// -----

// Every function realigns its own base to the module's one alignment.
// CHECK-LABEL: func.func @narrow_use
// CHECK: llvm.mlir.addressof @__dynamic_shmem__
// CHECK: arith.constant 127 : i32
// CHECK-LABEL: func.func @wide_use
// CHECK: arith.constant 127 : i32
func.func @narrow_use(%i: index) -> f32 attributes {gpu.kernel} {
  %p = tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  %x = tile.load %p[%i] : !tile.ptr<f32, smem, 16> -> f32
  return %x : f32
}
func.func @wide_use(%i: index) -> f32 attributes {gpu.kernel} {
  %p = tile.dynamic_smem : !tile.ptr<f32, smem, 128>
  %x = tile.load %p[%i] : !tile.ptr<f32, smem, 128> -> f32
  return %x : f32
}

// -----

// At most 16 bytes: the base as it is (no padding at launch either).
// CHECK-LABEL: func.func @sixteen
// CHECK: %[[G:.*]] = llvm.mlir.addressof @__dynamic_shmem__ : !llvm.ptr<3>
// CHECK-NOT: llvm.ptrtoint
// CHECK: llvm.getelementptr %[[G]][0]
func.func @sixteen(%i: index) -> f32 attributes {gpu.kernel} {
  %bar = tile.alloc_smem : !tile.tensor<i64, smem, "(2):(1)", 8>
  %p = tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  %x = tile.load %p[%i] : !tile.ptr<f32, smem, 16> -> f32
  return %x : f32
}
