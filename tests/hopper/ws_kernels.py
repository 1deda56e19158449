"""Kernels using Hopper warp-specialization primitives (imported by the tests and the CLI)."""

import layoutc as lc


@lc.kernel
def warp_specialized(x: lc.Tensor):
    tid = lc.thread_idx.x
    if tid < 128:
        lc.warpgroup_reg_dealloc(40)
    else:
        lc.warpgroup_reg_alloc(232)
    lc.named_barrier_sync(1, 256)
    lc.fence_proxy_async()
    if lc.elect_one_sync():
        x[tid] = x[tid] + 1.0
