// convert-arith-to-llvm: arith.remf is C fmod, computed by an internal helper function per
// element type (passes/conversion/fmod.py), never llvm.frem (NVPTX lowers that inexactly).
// RUN: layoutc-opt %s -p 'builtin.module(convert-arith-to-llvm)' | FileCheck %s

// The helpers come first, once per type: f16 computes in f32.
// CHECK-LABEL: llvm.func internal @__layoutc_fmod_f64(%{{.*}}: f64, %{{.*}}: f64) -> f64
// CHECK: llvm.fcmp "uno"
// CHECK: llvm.fsub
// CHECK: llvm.return
// CHECK-LABEL: llvm.func internal @__layoutc_fmod_f32(%{{.*}}: f32, %{{.*}}: f32) -> f32
// CHECK-NOT: llvm.func internal @__layoutc_fmod_f32
// CHECK-NOT: llvm.frem
// CHECK-LABEL: func.func @rem
func.func @rem(%a: f32, %b: f32, %h: f16, %d: f64, %v: vector<2xf32>) -> (f32, f32, f16, f64, vector<2xf32>) {
  // CHECK: llvm.call @__layoutc_fmod_f32(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  %0 = arith.remf %a, %b : f32
  // CHECK: llvm.call @__layoutc_fmod_f32(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  %1 = arith.remf %b, %a fastmath<fast> : f32
  // CHECK: %[[X:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK: %[[Y:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK: %[[R:.*]] = llvm.call @__layoutc_fmod_f32(%[[X]], %[[Y]])
  // CHECK: llvm.fptrunc %[[R]] : f32 to f16
  %2 = arith.remf %h, %h : f16
  // CHECK: llvm.call @__layoutc_fmod_f64(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
  %3 = arith.remf %d, %d : f64
  // Vectors element by element.
  // CHECK: llvm.extractelement
  // CHECK: llvm.call @__layoutc_fmod_f32
  // CHECK: llvm.insertelement
  // CHECK: llvm.extractelement
  // CHECK: llvm.call @__layoutc_fmod_f32
  // CHECK: llvm.insertelement
  %4 = arith.remf %v, %v : vector<2xf32>
  return %0, %1, %2, %3, %4 : f32, f32, f16, f64, vector<2xf32>
}
