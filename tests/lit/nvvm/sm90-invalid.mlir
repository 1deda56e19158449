// Verifiers of the Hopper nvvm ops, and verify-target's refusals (docs/codegen.md, "Target
// features"): an op whose feature the target lacks is an error naming the op and the target.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(verify-target{arch=sm_90a})'

func.func @regs() {
  // expected-error@+1 {{the register count must be a multiple of 8 in [24, 256], got 100}}
  nvvm.setmaxregister increase 100
  return
}

// -----

func.func @proxy() {
  // expected-error@+1 {{'space' is given exactly for the async.shared proxy kind}}
  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>, space = #nvvm.shared_space<cta>}
  return
}

// -----

func.func @box(%d: !llvm.ptr<3>, %t: !llvm.ptr, %c: i32) {
  // expected-error@+1 {{expects 1 to 5 coordinates (a tensor of rank 1-5), got 6}}
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %d, box[%c, %c, %c, %c, %c, %c] : !llvm.ptr, !llvm.ptr<3>
  return
}

// -----

// MLIR 22's verifyTMALoadParams: im2col needs rank >= 3 and rank - 2 offsets.
func.func @im2col_rank(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %c: i32) {
  // expected-error@+1 {{to use im2col mode, the tensor has to be at least 3-dimensional}}
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%c, %c] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  return
}

// -----

func.func @im2col_offsets(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %c: i32, %o: i16) {
  // expected-error@+1 {{im2col offsets expected 3 (provided 2)}}
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%c, %c, %c, %c, %c] im2col[%o, %o] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  return
}

// -----

func.func @tile_offsets(%d: !llvm.ptr<7>, %t: !llvm.ptr, %b: !llvm.ptr<3>, %c: i32, %o: i16) {
  // expected-error@+1 {{im2col offsets expected 0 (provided 1)}}
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %b, box[%c, %c, %c] im2col[%o] : !llvm.ptr<7>, !llvm.ptr
  return
}

// -----

// MLIR 22: an arrive on another block's mbarrier (shared::cluster) returns no state.
func.func @remote_state(%p: !llvm.ptr<7>) {
  // expected-error@+1 {{mbarrier in shared_cluster space cannot return any value}}
  %s = nvvm.mbarrier.arrive %p : !llvm.ptr<7> -> i64
  return
}

// -----

func.func @arrive_scope(%b: !llvm.ptr<3>) {
  // expected-error@+1 {{mbarrier scope must be either CTA or Cluster}}
  nvvm.mbarrier.arrive %b {scope = #nvvm.mem_scope<gpu>} : !llvm.ptr<3>
  return
}

// -----

func.func @prefetch_global_tensormap(%g: !llvm.ptr<1>) {
  // expected-error@+1 {{prefetch tensormap requires a generic or constant pointer}}
  nvvm.prefetch tensormap, %g : !llvm.ptr<1>
  return
}

// -----

func.func @prefetch_evict(%g: !llvm.ptr<1>) {
  // expected-error@+1 {{cache eviction priority supported only for cache level L2}}
  nvvm.prefetch level = L1, evict_priority = evict_last, %g : !llvm.ptr<1>
  return
}
