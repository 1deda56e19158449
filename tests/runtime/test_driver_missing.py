"""A machine without the NVIDIA driver: the runtime says so in one clear error.

``cuda.bindings`` loads libcuda on the first driver call and raises cuda-pathfinder's
``DynamicLibNotFoundError`` (a RuntimeError) when it is missing; older bindings raise an
OSError. Both must become the runtime's ``CudaUnavailableError`` with what to do about it.
"""

from __future__ import annotations

import types

import fake_driver
import pytest
from layoutc.runtime import cuda_driver
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cuda_kernel import load_kernel
from layoutc.runtime.errors import CudaUnavailableError

COPY = KernelSpec("copy", (Param("src", "pointer", "f32"), Param("dst", "pointer", "f32")))


class DynamicLibNotFoundError(RuntimeError):
    """What cuda-pathfinder raises where libcuda.so cannot be found."""


def driver_without_library(error: Exception) -> types.ModuleType:
    """The fake driver, except that its first call fails to load the driver library."""
    module = types.ModuleType("driver_without_library")
    module.__dict__.update({k: v for k, v in vars(fake_driver).items() if not k.startswith("__")})

    def cuInit(flags):
        raise error

    module.cuInit = cuInit
    return module


@pytest.fixture(params=["pathfinder", "oserror"])
def no_driver(request):
    error = (
        DynamicLibNotFoundError(
            '"cuda" is an NVIDIA driver library and can only be found via system search.'
        )
        if request.param == "pathfinder"
        else OSError("libcuda.so.1: cannot open shared object file: No such file or directory")
    )
    previous = cuda_driver.use_driver(driver_without_library(error))
    yield type(error).__name__
    cuda_driver.use_driver(previous)


def test_loading_a_kernel_without_a_driver_is_cuda_unavailable(no_driver):
    with pytest.raises(CudaUnavailableError) as info:
        load_kernel(b"// copy", "cubin", COPY)
    text = str(info.value)
    assert text.startswith(
        "CUDA unavailable: the NVIDIA driver library (libcuda) could not be loaded"
    )
    assert no_driver in text
    assert "install the NVIDIA driver" in text
    assert "target='cpu'" in text


def test_device_queries_without_a_driver_are_cuda_unavailable(no_driver):
    for query in (cuda_driver.driver_version, cuda_driver.device_count, cuda_driver.current_device):
        with pytest.raises(CudaUnavailableError, match="CUDA unavailable"):
            query()
