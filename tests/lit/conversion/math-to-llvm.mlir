// convert-to-llvm lowers math.tanh (passes/conversion/math_to_llvm.py): with fastmath<afn>
// (or fast) on the GPU to the NVVM intrinsic of PTX's tanh.approx.f32; otherwise, and always
// on the CPU (host), to Eigen's rational approximation in arith ops. f16/bf16 compute in f32.
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s --check-prefix=GPU
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=host})' | FileCheck %s --check-prefix=CPU

// GPU-LABEL: func.func @accurate
// CPU-LABEL: func.func @accurate
func.func @accurate(%x: f32) -> f32 {
  // GPU-NOT: llvm.call_intrinsic
  // GPU: %[[LO:.*]] = arith.constant -7.905311e+00 : f32
  // GPU: %[[C0:.*]] = arith.maximumf %{{.*}}, %[[LO]] : f32
  // GPU: %[[HI:.*]] = arith.constant 7.905311e+00 : f32
  // GPU: %[[C:.*]] = arith.minimumf %[[C0]], %[[HI]] : f32
  // GPU: %[[C2:.*]] = arith.mulf %[[C]], %[[C]] : f32
  // GPU: %[[N:.*]] = arith.mulf %[[C]], %{{.*}} : f32
  // GPU: %[[R:.*]] = arith.divf %[[N]], %{{.*}} : f32
  // GPU: %[[TINY:.*]] = arith.cmpf olt, %[[C2]], %{{.*}} : f32
  // GPU: %[[T:.*]] = arith.select %[[TINY]], %{{.*}}, %[[R]] : f32
  // GPU: return %[[T]] : f32
  // CPU: arith.minimumf
  // CPU: arith.divf
  // CPU-NOT: llvm.call_intrinsic
  %0 = math.tanh %x : f32
  return %0 : f32
}

// GPU-LABEL: func.func @approximate
// CPU-LABEL: func.func @approximate
func.func @approximate(%x: f32, %h: bf16, %f: f16) -> (f32, f32, bf16, f16) {
  // GPU-NEXT: %[[A:.*]] = llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"(%{{.*}}) : (f32) -> f32
  // CPU: arith.divf
  // CPU-NOT: llvm.call_intrinsic
  %0 = math.tanh %x fastmath<afn> : f32
  // GPU-NEXT: %[[B:.*]] = llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"(%{{.*}}) : (f32) -> f32
  %1 = math.tanh %x fastmath<fast> : f32
  // GPU-NEXT: %[[HX:.*]] = arith.extf %{{.*}} : bf16 to f32
  // GPU-NEXT: %[[HT:.*]] = llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"(%[[HX]]) : (f32) -> f32
  // GPU-NEXT: %[[H:.*]] = arith.truncf %[[HT]] : f32 to bf16
  %2 = math.tanh %h fastmath<afn> : bf16
  // GPU-NEXT: %[[FX:.*]] = arith.extf %{{.*}} : f16 to f32
  // GPU-NEXT: %[[FT:.*]] = llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"(%[[FX]]) : (f32) -> f32
  // GPU-NEXT: %[[F:.*]] = arith.truncf %[[FT]] : f32 to f16
  // GPU-NEXT: return %[[A]], %[[B]], %[[H]], %[[F]] : f32, f32, bf16, f16
  %3 = math.tanh %f fastmath<afn> : f16
  return %0, %1, %2, %3 : f32, f32, bf16, f16
}

// math.fma becomes llvm.fma of its type on both targets (one rounding: PTX fma.rn).
// GPU-LABEL: func.func @fma
// CPU-LABEL: func.func @fma
func.func @fma(%a: f32, %b: f32, %c: f32, %d: f64) -> (f32, f64) {
  // GPU-NEXT: %[[R:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  // CPU-NEXT: %[[R:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
  %0 = math.fma %a, %b, %c : f32
  // GPU-NEXT: %[[D:.*]] = llvm.call_intrinsic "llvm.fma.f64"(%{{.*}}, %{{.*}}, %{{.*}}) : (f64, f64, f64) -> f64
  // CPU-NEXT: %[[D:.*]] = llvm.call_intrinsic "llvm.fma.f64"
  %1 = math.fma %d, %d, %d : f64
  return %0, %1 : f32, f64
}
