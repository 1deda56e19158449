// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @printf
// CHECK: gpu.printf "hello\0A"
// CHECK: gpu.printf "%d %f %lld %5.2e\0A", %i, %x, %n, %d : i32, f32, index, f64
// GENERIC: "gpu.printf"() <{format = "hello\0A"}> : () -> ()
// GENERIC: "gpu.printf"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{format = "%d %f %lld %5.2e\0A"}> : (i32, f32, index, f64) -> ()
func.func @printf(%i: i32, %x: f32, %n: index, %d: f64) {
  gpu.printf "hello\n"
  gpu.printf "%d %f %lld %5.2e\n", %i, %x, %n, %d : i32, f32, index, f64
  return
}
