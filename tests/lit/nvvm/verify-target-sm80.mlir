// On sm_80 every Hopper op is refused, each naming its feature.
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(verify-target{arch=sm_80})'

func.func @k(%bar: !llvm.ptr<3>, %dst: !llvm.ptr<7>, %desc: !llvm.ptr, %c: i32) {
  // mbarrier.init and arrive exist since sm_80.
  nvvm.mbarrier.init %bar, %c : !llvm.ptr<3>, i32
  // expected-error@+1 {{'nvvm.mbarrier.arrive.expect_tx' op needs target sm_90 or newer (TMA), but the kernel is compiled for sm_80; compile with target='sm_90'}}
  nvvm.mbarrier.arrive.expect_tx %bar, %c : !llvm.ptr<3>, i32
  // expected-error@+1 {{'nvvm.cp.async.bulk.tensor.shared.cluster.global' op needs target sm_90 or newer (TMA)}}
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c, %c] : !llvm.ptr<7>, !llvm.ptr
  // expected-error@+1 {{'nvvm.cluster.arrive' op needs target sm_90 or newer (thread block clusters)}}
  nvvm.cluster.arrive {aligned}
  // expected-error@+1 {{'nvvm.setmaxregister' op needs target sm_90a (setmaxnreg is an arch-specific feature), but the kernel is compiled for sm_80}}
  nvvm.setmaxregister decrease 40
  return
}
