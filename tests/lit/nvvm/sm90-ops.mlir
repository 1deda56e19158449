// The Hopper nvvm ops round-trip in MLIR's custom forms and generic form.
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @k
// GENERIC: "nvvm.setmaxregister"() <{action = #nvvm<action increase>, regCount = 232 : i32}> : () -> ()
// GENERIC: "nvvm.barrier"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, i32) -> ()
// GENERIC: "nvvm.fence.proxy"() <{kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}> : () -> ()
// GENERIC: "nvvm.mbarrier.arrive"(%{{.*}}) <{relaxed = false, scope = #nvvm.mem_scope<cta>}> : (!llvm.ptr<7>) -> ()
// GENERIC: "nvvm.mbarrier.arrive"(%{{.*}}, %{{.*}}) <{relaxed = false, scope = #nvvm.mem_scope<cluster>}> : (!llvm.ptr<7>, i32) -> ()
// GENERIC: = "nvvm.mbarrier.arrive"(%{{.*}}, %{{.*}}) <{relaxed = true, scope = #nvvm.mem_scope<cta>}> : (!llvm.ptr<3>, i32) -> i64
// GENERIC: "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}) <{isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 1, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr, i32, !llvm.ptr<3>, i16) -> ()
// GENERIC: "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}) <{isCTAOnly = false, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 1, 1, 1>}> : (!llvm.ptr<7>, !llvm.ptr, i32, i32, !llvm.ptr<3>, i16, i64, i1) -> ()
// GENERIC: "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}) <{isCTAOnly = true, mode = #nvvm.tma_load_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0>}> : (!llvm.ptr<3>, !llvm.ptr, i32, !llvm.ptr<3>) -> ()
// GENERIC: "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}) <{isCTAOnly = false, mode = #nvvm.tma_load_mode<im2col>, operandSegmentSizes = array<i32: 1, 1, 4, 1, 2, 1, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr, i32, i32, i32, i32, !llvm.ptr<3>, i16, i16, i16) -> ()
// GENERIC: "nvvm.cp.async.bulk.tensor.global.shared.cta"(%{{.*}}) <{mode = #nvvm.tma_store_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 3, 0, 0>}> : (!llvm.ptr, !llvm.ptr<3>, i32, i32, i32) -> ()
// GENERIC: "nvvm.cp.async.bulk.tensor.global.shared.cta"(%{{.*}}) <{mode = #nvvm.tma_store_mode<tile>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>}> : (!llvm.ptr, !llvm.ptr<3>, i32, i1) -> ()
// GENERIC: "nvvm.prefetch"(%{{.*}}) <{tensormap}> : (!llvm.ptr) -> ()
// GENERIC: "nvvm.prefetch"(%{{.*}}, %{{.*}}) <{in_param_space, tensormap}> : (!llvm.ptr, i1) -> ()
// GENERIC: "nvvm.prefetch"(%{{.*}}) <{cacheLevel = #nvvm<prefetch_cache_level L2>, evictPriority = #nvvm<cache_eviction_priority evict_last>}> : (!llvm.ptr<1>) -> ()
func.func @k(%bar: !llvm.ptr<3>, %dst: !llvm.ptr<3>, %desc: !llvm.ptr, %c: i32, %m: i16, %h: i64, %pr: i1, %cl: !llvm.ptr<7>, %g: !llvm.ptr<1>) attributes {gpu.kernel} {
  // CHECK: nvvm.setmaxregister increase 232
  nvvm.setmaxregister increase 232
  // CHECK: nvvm.setmaxregister decrease 40
  nvvm.setmaxregister decrease 40
  // CHECK: %{{.*}} = nvvm.elect.sync -> i1
  %p = nvvm.elect.sync -> i1
  // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
  nvvm.barrier id = %c number_of_threads = %c
  // CHECK: nvvm.barrier{{$}}
  nvvm.barrier
  // CHECK: nvvm.fence.mbarrier.init
  nvvm.fence.mbarrier.init
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK: nvvm.cluster.arrive {aligned}
  nvvm.cluster.arrive {aligned}
  // CHECK: nvvm.cluster.wait {aligned}
  nvvm.cluster.wait {aligned}
  // CHECK: nvvm.read.ptx.sreg.cluster.ctarank : i32
  %r = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
  %rp = nvvm.mapa %bar, %r : !llvm.ptr<3> -> !llvm.ptr<7>
  // MLIR 22: an arrive on another block's mbarrier is nvvm.mbarrier.arrive on a
  // shared::cluster address, without a result.
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>{{$}}
  nvvm.mbarrier.arrive %rp : !llvm.ptr<7>
  // CHECK: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>{{$}}
  nvvm.mbarrier.arrive %rp, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  // CHECK: nvvm.mbarrier.arrive %{{.*}}, %{{.*}} {relaxed = true} : !llvm.ptr<3> -> i64
  %s2 = nvvm.mbarrier.arrive %bar, %c {relaxed = true} : !llvm.ptr<3> -> i64
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>{{$}}
  nvvm.mbarrier.arrive %bar : !llvm.ptr<3>
  // CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  nvvm.mbarrier.init %bar, %c : !llvm.ptr<3>, i32
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
  %s = nvvm.mbarrier.arrive %bar : !llvm.ptr<3> -> i64
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  nvvm.mbarrier.arrive.expect_tx %bar, %c : !llvm.ptr<3>, i32
  // CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
  nvvm.mbarrier.try_wait.parity %bar, %c, %c : !llvm.ptr<3>, i32, i32
  // MLIR 22: the destination is shared::cluster memory (7) unless isCTAOnly.
  // CHECK: box[%{{.*}}] multicast_mask = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %cl, %desc, %bar, box[%c] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
  // CHECK: box[%{{.*}}, %{{.*}}] multicast_mask = %{{.*}} l2_cache_hint = %{{.*}} predicate = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %cl, %desc, %bar, box[%c, %c] multicast_mask = %m l2_cache_hint = %h predicate = %pr : !llvm.ptr<7>, !llvm.ptr
  // CHECK: box[%{{.*}}] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %bar, box[%c] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  // CHECK: box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] im2col[%{{.*}}, %{{.*}}] multicast_mask = %{{.*}} {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %cl, %desc, %bar, box[%c, %c, %c, %c] im2col[%m, %m] multicast_mask = %m {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.global.shared.cta %desc, %dst, box[%c, %c, %c] : !llvm.ptr, !llvm.ptr<3>
  // Upstream prints the source type of the store as `<3>`: read too.
  // CHECK: box[%{{.*}}], predicate = %{{.*}} : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.global.shared.cta %desc, %dst, box[%c], predicate = %pr : !llvm.ptr, <3>
  // CHECK: nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.commit.group
  // CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
  nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK: nvvm.prefetch tensormap, %{{.*}} : !llvm.ptr{{$}}
  nvvm.prefetch tensormap, %desc : !llvm.ptr
  // CHECK: nvvm.prefetch tensormap in_param_space, %{{.*}}, predicate = %{{.*}} : !llvm.ptr, i1
  nvvm.prefetch tensormap in_param_space, %desc, predicate = %pr : !llvm.ptr, i1
  // CHECK: nvvm.prefetch level = L2, evict_priority = evict_last, %{{.*}} : !llvm.ptr<1>
  nvvm.prefetch level = L2, evict_priority = evict_last, %g : !llvm.ptr<1>
  // CHECK: nvvm.prefetch level = L1 uniform, %{{.*}} : !llvm.ptr{{$}}
  nvvm.prefetch level = L1 uniform, %desc : !llvm.ptr
  return
}
