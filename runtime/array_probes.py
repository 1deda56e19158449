"""Cheap per-call reads of the array kinds launched most often (torch, numpy, CuPy, DeviceArray).

A launch with the same kind of array as last time should not rebuild every fact about it.
A *probe* reads, in the library's own terms and without allocating much, what decides whether
an array is acceptable: ``(data pointer, shape, strides, dtype object, device code)``. Strides
are as the library states them (bytes for numpy and CuPy, elements for torch); the device code
is -1 for host memory, the CUDA ordinal for device memory, and -2 for anything else. The
argument binder (packing.py) checks an array fully the first time, then remembers the probe's
answer for it: a later array whose probe matches in everything but the pointer has the same
facts, so only the pointer (alignment) is checked again. A probe that does not match sends the
call down the full path, which gives the error messages.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

Probe = Callable[[Any], tuple[int, Any, Any, Any, int]]

HOST = -1
OTHER = -2

_read_pointer = ctypes.c_void_p.from_address
#: numpy's ``PyArrayObject`` starts with ``PyObject_HEAD`` followed by ``char *data`` (the field
#: ``PyArray_DATA`` reads); reading it costs a fifth of ``a.ctypes.data``.
_NUMPY_DATA_OFFSET = object.__basicsize__


READONLY_HOST = -3
"""The device code of a read-only host array: never learned, so that such arrays always take
the full checks (which refuse them for parameters the kernel writes)."""


def _numpy_probe(a: Any) -> tuple[int, Any, Any, Any, int]:
    device = HOST if a.flags.writeable else READONLY_HOST
    return (
        _read_pointer(id(a) + _NUMPY_DATA_OFFSET).value or 0,
        a.shape,
        a.strides,
        a.dtype,
        device,
    )


def _numpy_probe_portable(a: Any) -> tuple[int, Any, Any, Any, int]:
    return (
        a.ctypes.data,
        a.shape,
        a.strides,
        a.dtype,
        HOST if a.flags.writeable else READONLY_HOST,
    )


def _numpy_struct_readable() -> bool:
    """Whether the data pointer sits where ``_numpy_probe`` reads it (checked on a real array)."""
    import numpy as np

    view = np.arange(8, dtype=np.float32)[3:]
    return _read_pointer(id(view) + _NUMPY_DATA_OFFSET).value == view.ctypes.data


def torch_probe(t: Any) -> tuple[int, Any, Any, Any, int]:
    """torch's probe (packing_fast.py inlines these very reads)."""
    if t.is_cuda:
        device = t.get_device()
    else:
        device = HOST if t.is_cpu else OTHER
    return (t.data_ptr(), t.shape, t.stride(), t.dtype, device)


def _cupy_probe(a: Any) -> tuple[int, Any, Any, Any, int]:
    return (a.data.ptr, a.shape, a.strides, a.dtype, a.device.id)


def _own_probe(a: Any) -> tuple[int, Any, Any, Any, int]:
    return a._layoutc_probe()


def _probe_for(cls: type) -> Probe | None:
    module = cls.__module__ or ""
    if hasattr(cls, "_layoutc_probe"):
        return _own_probe
    if module == "numpy" and cls.__name__ in ("ndarray", "memmap"):
        return _numpy_probe if _numpy_struct_readable() else _numpy_probe_portable
    if (
        module.startswith("torch")
        and hasattr(cls, "data_ptr")
        and hasattr(cls, "is_cuda")
        and hasattr(cls, "is_cpu")
    ):
        return torch_probe
    if module.startswith("cupy") and hasattr(cls, "__cuda_array_interface__"):
        return _cupy_probe
    return None


_PROBES: dict[type, Probe | None] = {}

#: ``known_probe(cls)``: the probe of a class ``probe_for`` has seen, else None (no lookup).
known_probe = _PROBES.get


def probe_for(cls: type) -> Probe | None:
    """The probe for arrays of class ``cls``, or None (such arrays always take the full path)."""
    try:
        return _PROBES[cls]
    except KeyError:
        probe = _PROBES[cls] = _probe_for(cls)
        return probe
