// convert-to-llvm{target=nvvm} lowers gpu.printf to CUDA's vprintf in llvm ops (upstream's
// GPU-to-NVVM lowering); the host flavour keeps it for the C library's printf.
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=host})' | FileCheck %s --check-prefix=HOST

// CHECK: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK: llvm.mlir.global private constant @[[HELLO:.*]]("hello\0A\00") : !llvm.array<7 x i8>
// CHECK: llvm.mlir.global private constant @[[FMT:.*]]("%d %f %lld %d\0A\00") : !llvm.array<15 x i8>
// CHECK-LABEL: func.func @printf
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[BUF:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(i32, f64, i64, i32)> : (i64) -> !llvm.ptr
// CHECK: %[[H:.*]] = llvm.mlir.addressof @[[HELLO]] : !llvm.ptr
// CHECK: %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.call @vprintf(%[[H]], %[[NONE]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK: %[[F:.*]] = llvm.mlir.addressof @[[FMT]] : !llvm.ptr
// CHECK: llvm.fpext %{{.*}} : f32 to f64
// CHECK: llvm.sext %{{.*}} : i8 to i32
// CHECK: llvm.getelementptr %[[BUF]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, f64, i64, i32)>
// CHECK: llvm.call @vprintf(%[[F]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT: gpu.printf
// HOST-NOT: vprintf
// HOST: gpu.printf "hello\0A"
func.func @printf(%i: i32, %x: f32, %n: index, %c: i8) {
  gpu.printf "hello\n"
  gpu.printf "%d %f %lld %d\n", %i, %x, %n, %c : i32, f32, index, i8
  return
}
