// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @cas
// CHECK: %r = llvm.cmpxchg %p, %c, %v syncscope("device") monotonic monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
// CHECK: %w = llvm.cmpxchg weak volatile %q, %d, %u acq_rel acquire : !llvm.ptr<3>, i64
// GENERIC: "llvm.cmpxchg"(%{{.*}}, %{{.*}}, %{{.*}}) <{alignment = 4 : i64, failure_ordering = 2 : i64, success_ordering = 2 : i64, syncscope = "device"}> : (!llvm.ptr<1>, i32, i32) -> !llvm.struct<(i32, i1)>
// XDSL: "llvm.cmpxchg"
func.func @cas(%p: !llvm.ptr<1>, %c: i32, %v: i32, %q: !llvm.ptr<3>, %d: i64, %u: i64) -> i32 {
  %r = llvm.cmpxchg %p, %c, %v syncscope("device") monotonic monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
  %w = llvm.cmpxchg weak volatile %q, %d, %u acq_rel acquire : !llvm.ptr<3>, i64
  %old = llvm.extractvalue %r[0] : !llvm.struct<(i32, i1)>
  return %old : i32
}
