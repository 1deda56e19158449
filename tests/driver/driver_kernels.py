"""Kernels for driver tests. They use only what lowers with the passes available in every
build (gpu ids, arith, scf), so the driver's back half (pipeline, translation, PTX, cubin, CPU
JIT, caches, dumps) is tested independently of the layout passes."""

from __future__ import annotations

import layoutc as lc

#: Lowers what the kernels below use to the LLVM level without the layout passes.
SCALAR_PIPELINE = "builtin.module(convert-gpu-to-nvvm,convert-scf-to-cf,canonicalize,cse)"


@lc.kernel
def branchy(n: int):
    tid = lc.thread_idx.x
    x = 0
    if tid < n:
        x = tid * 2
    y = x + 1  # noqa: F841


@lc.kernel
def with_constant(n: int, scale: lc.Constexpr[int]):
    y = lc.thread_idx.x * scale + n  # noqa: F841


@lc.kernel
def tensor_params(src: lc.Tensor, dst: lc.Tensor, n: int):
    y = lc.thread_idx.x + n  # noqa: F841
