// Access flags MLIR's llvm.load has but xDSL 0.74's does not define (volatile_, nontemporal,
// syncscope on loads): checked by our round trip only.
// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @flags
func.func @flags(%p: !llvm.ptr<1>) {
  // CHECK: %[[V:.*]] = llvm.load volatile %{{.*}} {alignment = 4 : i64, nontemporal} : !llvm.ptr<1> -> f32
  // GENERIC: "llvm.load"(%{{.*}}) <{alignment = 4 : i64, nontemporal, ordering = 0 : i64, volatile_}> : (!llvm.ptr<1>) -> f32
  %v = llvm.load volatile %p {alignment = 4 : i64, nontemporal} : !llvm.ptr<1> -> f32
  // CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // GENERIC: <{alignment = 4 : i64, invariant, ordering = 4 : i64, syncscope = "device"}>
  %a = llvm.load %p atomic syncscope("device") acquire invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK: llvm.store %{{.*}}, %{{.*}} atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr<1>
  llvm.store %a, %p atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr<1>
  return
}
