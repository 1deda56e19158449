"""Device memory: allocation, copies and memset, plus a minimal device array.

``DeviceArray`` exists so that users without torch or CuPy (and the runtime's own staging of
numpy arguments) have device arrays; it exports ``__cuda_array_interface__`` so every other
library can read it too.
"""

from __future__ import annotations

import contextlib
from typing import Any

from . import cuda_driver as cd
from .arrays import CUDA, ArrayFacts, compact_strides
from .dtypes import DTYPES, from_numpy_name


class DeviceBuffer:
    """``nbytes`` of device memory on ``device``; freed by ``free()`` or garbage collection."""

    def __init__(self, nbytes: int, device: cd.Device | None = None) -> None:
        self.device = device or cd.current_device()
        self.nbytes = nbytes
        self.device.activate()
        self.ptr = int(
            cd.check(
                cd.api().cuMemAlloc(max(nbytes, 1)),
                f"allocating {nbytes} bytes on device {self.device.ordinal}",
            )
        )

    def free(self) -> None:
        if self.ptr:
            ptr, self.ptr = self.ptr, 0
            self.device.activate()
            cd.check(cd.api().cuMemFree(ptr), f"freeing device memory at {ptr:#x}")

    def __del__(self) -> None:
        # At interpreter shutdown or with a dead context there is nothing left to free.
        with contextlib.suppress(Exception):
            self.free()

    def copy_from_host(self, host_ptr: int, nbytes: int, stream: int = 0) -> None:
        self.device.activate()
        cd.check(
            cd.api().cuMemcpyHtoDAsync(self.ptr, host_ptr, nbytes, stream),
            f"copying {nbytes} bytes host -> device",
        )

    def copy_to_host(self, host_ptr: int, nbytes: int, stream: int = 0) -> None:
        self.device.activate()
        cd.check(
            cd.api().cuMemcpyDtoHAsync(host_ptr, self.ptr, nbytes, stream),
            f"copying {nbytes} bytes device -> host",
        )

    def copy_from_device(self, src_ptr: int, nbytes: int, stream: int = 0) -> None:
        self.device.activate()
        cd.check(
            cd.api().cuMemcpyDtoDAsync(self.ptr, src_ptr, nbytes, stream),
            f"copying {nbytes} bytes device -> device",
        )

    def memset(self, byte: int, stream: int = 0) -> None:
        self.device.activate()
        cd.check(
            cd.api().cuMemsetD8Async(self.ptr, byte, self.nbytes, stream),
            f"setting {self.nbytes} bytes of device memory",
        )


class DeviceArray:
    """A C-contiguous device array of an ABI dtype (``f32``, ``i32``, ...)."""

    def __init__(self, shape: tuple[int, ...], dtype: str, device: cd.Device | None = None) -> None:
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.itemsize = DTYPES[dtype].itemsize
        size = 1
        for s in self.shape:
            size *= s
        self.size = size
        self.buffer = DeviceBuffer(size * self.itemsize, device)

    @classmethod
    def from_host(cls, array: Any, device: cd.Device | None = None) -> DeviceArray:
        """Copy a numpy array to the device (synchronously)."""
        import numpy as np

        host = np.ascontiguousarray(array)
        name = from_numpy_name(host.dtype.name)
        if name is None:
            raise TypeError(f"numpy dtype {host.dtype} has no layoutc element type")
        out = cls(host.shape, name, device)
        out.buffer.copy_from_host(host.ctypes.data, host.nbytes)
        out.buffer.device.synchronize()
        return out

    def to_host(self) -> Any:
        """Copy to a new numpy array (synchronously)."""
        import numpy as np

        np_name = {v: k for k, v in _NUMPY.items()}[self.dtype]
        host = np.empty(self.shape, dtype=np_name)
        self.buffer.device.synchronize()
        self.buffer.copy_to_host(host.ctypes.data, host.nbytes)
        self.buffer.device.synchronize()
        return host

    @property
    def ptr(self) -> int:
        return self.buffer.ptr

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        typestr = {"float": "<f", "int": "<i", "uint": "<u"}[DTYPES[self.dtype].kind]
        if self.dtype == "bf16":
            raise TypeError("bf16 has no __cuda_array_interface__ typestr")
        return {
            "shape": self.shape,
            "typestr": f"{typestr}{self.itemsize}",
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
        }

    def _layoutc_facts(self, stream: int | None = None) -> ArrayFacts:
        """Fast path for the argument binder (no driver query for the owning device)."""
        return ArrayFacts(
            self.ptr, self.shape, self.strides, self.dtype, CUDA, self.buffer.device.ordinal, self
        )

    def _layoutc_probe(self) -> tuple[int, tuple[int, ...], tuple[()], str, int]:
        """The binder's per-call read (array_probes.py): always compact, so no strides."""
        return (self.buffer.ptr, self.shape, (), self.dtype, self.buffer.device.ordinal)

    @property
    def strides(self) -> tuple[int, ...]:
        return compact_strides(self.shape)


_NUMPY = {
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
}
