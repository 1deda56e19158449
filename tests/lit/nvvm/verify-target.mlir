// verify-target refuses ops that need a feature the target lacks; sm_90a has them all.
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(verify-target{arch=sm_90})'
// RUN: layoutc-opt %s -p 'builtin.module(verify-target{arch=sm_90a})' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(verify-target{arch=host})' | FileCheck %s

// CHECK: nvvm.setmaxregister increase 232
func.func @k(%bar: !llvm.ptr<3>, %c: i32) {
  // expected-error@+1 {{'nvvm.setmaxregister' op needs target sm_90a (setmaxnreg is an arch-specific feature), but the kernel is compiled for sm_90; compile with target='sm_90a'}}
  nvvm.setmaxregister increase 232
  nvvm.mbarrier.arrive.expect_tx %bar, %c : !llvm.ptr<3>, i32
  %p = nvvm.elect.sync -> i1
  return
}
