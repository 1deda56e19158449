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
