"""Finishing an ``llvmlite.ir.Module`` as NVVM IR: what libNVVM and LLVM's NVPTX require.

The IR translation builds kernels as plain LLVM functions; this module adds what makes them
GPU kernels: the ``nvptx64-nvidia-cuda`` triple, the NVVM data layout, the
``!nvvm.annotations`` entries (``kernel``, ``maxntid*``/``reqntid*``, ``minctasm``) and the
``!nvvmir.version`` libNVVM insists on. Both back ends read the same annotations (LLVM
upgrades them to its ``ptx_kernel`` calling convention and ``nvvm.*`` attributes).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from layoutc.runtime.abi import LaunchBounds

from .target import Target

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

#: The 64-bit data layout libNVVM documents for NVVM IR (accepted by LLVM's NVPTX as well).
NVVM_DATA_LAYOUT = (
    "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64"
    "-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
)

#: What libNVVM 13 reports from ``nvvm.ir_version()``; used when libNVVM is not installed.
DEFAULT_NVVM_IR_VERSION = (2, 0, 3, 2)


@functools.cache
def nvvm_ir_version() -> tuple[int, ...]:
    """``nvvm.ir_version()`` of the installed libNVVM, else the version libNVVM 13 expects.

    Cached: asking libNVVM costs about 1.4 ms and the answer cannot change within a process.
    """
    try:
        from cuda.bindings import nvvm

        return tuple(nvvm.ir_version())
    except Exception:  # libNVVM missing or unloadable: the LLVM back end ignores the value
        return DEFAULT_NVVM_IR_VERSION


def prepare_nvvm_module(
    module: Any,
    kernels: Sequence[str],
    target: Target,
    launch_bounds: Mapping[str, LaunchBounds] | None = None,
    grid_constants: Mapping[str, Sequence[int]] | None = None,
    clusters: Mapping[str, Sequence[int] | None] | None = None,
    max_cluster_blocks: Mapping[str, int | None] | None = None,
) -> Any:
    """Make ``module`` (an ``llvmlite.ir.Module``) a finished NVVM IR module; returns it.

    ``kernels`` names the functions to mark as kernels; ``launch_bounds`` maps some of them
    to their bounds, ``grid_constants`` to the indices of their grid-constant (``byval``,
    read in place) parameters, ``clusters`` to their required cluster shapes (``0, 0, 0``:
    clusters of a shape chosen at launch), ``max_cluster_blocks`` to their largest clusters. Idempotent for the module-level settings; call it once per module.
    """
    from llvmlite import ir

    module.triple = NVPTX_TRIPLE
    module.data_layout = NVVM_DATA_LAYOUT
    i32 = ir.IntType(32)
    annotations = module.add_named_metadata("nvvm.annotations")
    bounds = launch_bounds or {}
    for name in kernels:
        try:
            fn = module.get_global(name)
        except KeyError:
            raise ValueError(f"prepare_nvvm_module: no function {name!r} in the module") from None
        if not isinstance(fn, ir.Function) or fn.is_declaration:
            raise ValueError(f"prepare_nvvm_module: {name!r} is not a defined function")
        if not isinstance(fn.function_type.return_type, ir.VoidType):
            raise ValueError(f"prepare_nvvm_module: kernel {name!r} must return void")

        def note(key: str, value: int, fn: Any = fn) -> None:
            annotations.add(module.add_metadata([fn, ir.MetaDataString(module, key), i32(value)]))

        note("kernel", 1)
        constants = (grid_constants or {}).get(name)
        if constants:  # 1-based parameter indices, as NVVM and LLVM's NVPTX read them
            indices = module.add_metadata([i32(i + 1) for i in constants])
            annotations.add(
                module.add_metadata([fn, ir.MetaDataString(module, "grid_constant"), indices])
            )
        cluster = (clusters or {}).get(name)
        if cluster is not None:  # .explicitcluster, and .reqnctapercluster unless 0, 0, 0
            for axis, extent in zip("xyz", cluster):
                note(f"cluster_dim_{axis}", extent)
        max_blocks = (max_cluster_blocks or {}).get(name)
        if max_blocks is not None:  # .maxclusterrank (the name both PTX back ends read)
            note("cluster_max_blocks", max_blocks)
        b = bounds.get(name)
        if b is None:
            continue
        if b.block is not None:
            for axis, extent in zip("xyz", b.block):
                note(f"reqntid{axis}", extent)
        if b.max_threads is not None:
            note("maxntidx", b.max_threads)
            note("maxntidy", 1)
            note("maxntidz", 1)
        if b.min_blocks is not None:
            note("minctasm", b.min_blocks)
    if "nvvmir.version" not in module.namedmetadata:
        version = module.add_named_metadata("nvvmir.version")
        version.add(module.add_metadata([i32(v) for v in nvvm_ir_version()]))
    return module
