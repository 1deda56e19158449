"""Helpers for the translation tests (no tests here): parse LLVM-level IR, run it on the CPU
runtime, compile it for GPUs. Kept in a ``test_translate*`` module so it lives with them."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.codegen.toolchain import GpuBinary, ToolchainOptions, compile_gpu
from layoutc.codegen.translate import translate_host, translate_nvvm
from layoutc.ir.core import parse
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cpu_kernel import CpuKernel

ARCHS = ("sm_80", "sm_90")

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")


def module(text: str):
    """Parse and verify MLIR text."""
    m = parse(text)
    m.verify()
    return m


def cpu_kernel(
    text: str, name: str, params: Sequence[tuple[str, str, str]], backend: str = "auto"
) -> CpuKernel:
    """Translate ``text`` for the host and load kernel ``name``; params are (name, kind, dtype)
    (``backend`` is the GPU's PTX back end, meaningless here)."""
    tr = translate_host(module(text))
    info = tr.kernels[name]
    spec = KernelSpec(
        name,
        tuple(Param(n, k, d) for n, k, d in params),
        launch_bounds=info.launch_bounds,
        static_smem=info.static_smem,
    )
    return CpuKernel(tr.module, spec)


@functools.cache
def gpu_binary(text: str, arch: str, backend: str = "auto") -> GpuBinary:
    """NVVM translation of ``text`` compiled to PTX and cubin for ``arch`` (cached)."""
    target = Target.parse(arch)
    tr = translate_nvvm(module(text), target)
    return compile_gpu(tr.module, target, ToolchainOptions(ptx_backend=backend, cubin="always"))


def ptx_lines(binary: GpuBinary, needle: str) -> list[str]:
    return [line.strip() for line in binary.ptx.splitlines() if needle in line]


@functools.cache
def device_target() -> Target:
    return Target.from_device()


def gpu_kernel(
    text: str, name: str, params: Sequence[tuple[str, str, str]], backend: str = "auto"
) -> Any:
    """Translate ``text`` for this machine's GPU, compile it and load kernel ``name``."""
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.cuda_kernel import load_kernel

    target = device_target()
    tr = translate_nvvm(module(text), target)
    info = tr.kernels[name]
    spec = KernelSpec(
        name,
        tuple(Param(n, k, d) for n, k, d in params),
        launch_bounds=info.launch_bounds,
        static_smem=info.static_smem,
    )
    opts = ToolchainOptions(ptx_backend=backend, driver_version=cuda_driver.driver_version())
    kind, image = compile_gpu(tr.module, target, opts).image
    return load_kernel(image, kind, spec)


#: Where the execution tests run: the CPU runtime always, the GPU where there is one.
RUNNERS = [
    pytest.param(cpu_kernel, id="cpu"),
    pytest.param(gpu_kernel, id="gpu", marks=pytest.mark.gpu),
]
