func.func @k(%bar: !llvm.ptr<3>, %dst: !llvm.ptr<3>, %desc: !llvm.ptr, %c: i32, %m: i16) attributes {gpu.kernel} {
  nvvm.setmaxregister increase 232
  nvvm.setmaxregister decrease 40
  %p = nvvm.elect.sync -> i1
  nvvm.barrier id = %c number_of_threads = %c
  nvvm.barrier
  nvvm.fence.mbarrier.init
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  nvvm.cluster.arrive {aligned}
  nvvm.cluster.wait {aligned}
  %r = nvvm.read.ptx.sreg.cluster.ctarank : i32
  %rp = nvvm.mapa %bar, %r : !llvm.ptr<3> -> !llvm.ptr<7>
  nvvm.mbarrier.arrive %rp : !llvm.ptr<7>
  nvvm.mbarrier.arrive %rp, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  %s1 = nvvm.mbarrier.arrive %bar, %c : !llvm.ptr<3> -> i64
  nvvm.mbarrier.init %bar, %c : !llvm.ptr<3>, i32
  %s = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
  nvvm.mbarrier.arrive.expect_tx %bar, %c : !llvm.ptr<3>, i32
  nvvm.mbarrier.try_wait.parity %bar, %c, %c : !llvm.ptr<3>, i32, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c, %c] : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c] multicast_mask = %m : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c, %c, %c, %c, %c] im2col[%m, %m, %m] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c, %c, %c] im2col[%m] multicast_mask = %m {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.global.shared.cta %desc, %dst, box[%c, %c, %c] : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group 0 {read}
  nvvm.prefetch tensormap, %desc : !llvm.ptr
  return
}
