"""layoutc's runtimes: launching compiled kernels on a GPU or on the CPU, loading AOT artifacts.

Self-contained by design (docs/architecture.md): nothing here imports ``layoutc.ir``,
``layoutc.passes``, ``layoutc.compiler``, SymPy or llvmlite on the GPU path, so a production
process needs only ``cuda-bindings``. Names are resolved lazily, so ``import layoutc.runtime`` is
cheap and does not touch the CUDA driver.

    lib = layoutc.runtime.load("build/kernels")      # an AOT artifact directory
    lib.copy(src, dst, n, grid=(64,), block=(256,))  # torch/CuPy/numpy/DLPack arrays
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "load": "artifact",
    "write_artifact": "artifact",
    "ArtifactKernel": "artifact",
    "Variant": "artifact",
    "KernelLibrary": "artifact",
    "KernelSpec": "abi",
    "Param": "abi",
    "LaunchBounds": "abi",
    "CudaKernel": "cuda_kernel",
    "load_kernel": "cuda_kernel",
    "CudaModule": "cuda_module",
    "DeviceArray": "cuda_memory",
    "DeviceBuffer": "cuda_memory",
    "get_device": "cuda_driver",
    "set_device": "cuda_driver",
    "current_device": "cuda_driver",
    "driver_version": "cuda_driver",
    "CpuKernel": "cpu_kernel",
    "RuntimeErrorBase": "errors",
    "CudaError": "errors",
    "CudaUnavailableError": "errors",
    "ArgumentError": "errors",
    "ArtifactError": "errors",
    "IncompatibleDriverError": "errors",
    "CpuExecutionError": "errors",
    "OutOfBoundsError": "errors",
    "NotSupportedError": "errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'layoutc.runtime' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
