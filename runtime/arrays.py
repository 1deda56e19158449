"""Turning user arrays into (pointer, shape, strides, dtype, device) facts, fast.

Each supported array kind has an adapter; the adapter for a Python type is chosen once and
cached, so a launch pays one dict lookup plus the adapter's attribute reads. Supported: numpy,
torch (without importing it), CuPy, anything with ``__cuda_array_interface__``, DLPack
(``__dlpack__``/``__dlpack_device__``), and anything with ``__array_interface__``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import dlpack
from .dtypes import (
    dlpack_element_name,
    numpy_element_name,
    torch_element_name,
    typestr_element_name,
    unsupported,
)

CPU = "cpu"
CUDA = "cuda"


@dataclass(slots=True)
class ArrayFacts:
    """What marshalling needs to know about one array argument.

    ``strides`` are in elements; ``keepalive`` holds whatever must outlive the launch call.
    ``dtype`` is the ABI name of the element type (``runtime.dtypes.DTYPES``) or, for a type
    with no ABI equivalent, the array library's own name (``complex64``, ``bool``), which never
    equals an ABI name: errors can name what the user passed.
    """

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str | None
    device_type: str
    device_id: int
    keepalive: object = None
    readonly: bool = False
    """The array says it must not be written (numpy ``writeable=False``, a read-only
    ``__array_interface__``/``__cuda_array_interface__``)."""

    @property
    def where(self) -> str:
        if self.device_type == CPU:
            return CPU
        return f"{self.device_type}:{self.device_id}"


def compact_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major (C order) strides in elements."""
    out = []
    acc = 1
    for extent in reversed(shape):
        out.append(acc)
        acc *= max(extent, 1)
    return tuple(reversed(out))


def _byte_strides_to_elements(
    strides: tuple[int, ...], itemsize: int, what: str
) -> tuple[int, ...]:
    if any(s % itemsize for s in strides):
        raise ValueError(f"{what} has strides {strides} (bytes) that are not whole elements")
    return tuple(s // itemsize for s in strides)


_DTYPE_NAMES: dict[object, str | None] = {}


def _dtype_name(dt: object, convert: Callable[[object], str | None]) -> str | None:
    """ABI name of a framework dtype object, memoised (``numpy.dtype.name`` costs ~3 us)."""
    try:
        return _DTYPE_NAMES[dt]
    except KeyError:
        name = _DTYPE_NAMES[dt] = convert(dt)
        return name
    except TypeError:  # unhashable dtype-like object
        return convert(dt)


def _numpy_dtype_name(dt: object) -> str:
    """A byte-swapped dtype (``>f4`` here) is not the ABI's type even though it is "float32"."""
    if dt.isnative:  # type: ignore[attr-defined]
        return numpy_element_name(dt.name)  # type: ignore[attr-defined]
    return unsupported(f"{dt.name} (byte-swapped)")  # type: ignore[attr-defined]


def _numpy(a, stream: int | None = None) -> ArrayFacts:
    name = _dtype_name(a.dtype, _numpy_dtype_name)
    itemsize = a.itemsize or 1
    strides = a.strides
    if any(st % itemsize for st in strides):
        raise ValueError(f"numpy array has strides {strides} (bytes) that are not whole elements")
    ptr = a.ctypes.data
    return ArrayFacts(
        ptr,
        a.shape,
        tuple(st // itemsize for st in strides),
        name,
        CPU,
        0,
        keepalive=a,
        readonly=not a.flags.writeable,
    )


def _torch(t, stream: int | None = None) -> ArrayFacts:
    if t.is_cuda:
        device_type, device_id = CUDA, t.get_device()
    else:  # "cpu", or a device neither runtime reads ("mps", "meta", ...)
        device = t.device
        device_type, device_id = device.type, device.index or 0
    return ArrayFacts(
        t.data_ptr(),
        tuple(t.shape),
        tuple(t.stride()),
        _dtype_name(t.dtype, torch_element_name),
        device_type,
        device_id,
        keepalive=t,
    )


def _cupy(a, stream: int | None = None) -> ArrayFacts:
    strides = _byte_strides_to_elements(a.strides, a.itemsize or 1, "CuPy array")
    return ArrayFacts(
        a.data.ptr, a.shape, strides, numpy_element_name(a.dtype.name), CUDA, a.device.id
    )


def pointer_device(ptr: int) -> int:
    """The CUDA device ordinal that owns ``ptr`` (through the driver)."""
    from . import cuda_driver

    return cuda_driver.pointer_device(ptr)


def _cuda_array_interface(a, stream: int | None = None) -> ArrayFacts:
    cai = a.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    name = typestr_element_name(typestr)
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
    strides = (
        compact_strides(shape)
        if cai.get("strides") is None
        else _byte_strides_to_elements(tuple(cai["strides"]), itemsize, "__cuda_array_interface__")
    )
    ptr = cai["data"][0]
    device = pointer_device(ptr) if ptr else 0
    readonly = bool(cai["data"][1])
    return ArrayFacts(ptr, shape, strides, name, CUDA, device, keepalive=a, readonly=readonly)


def _array_interface(a, stream: int | None = None) -> ArrayFacts:
    ai = a.__array_interface__
    shape = tuple(ai["shape"])
    typestr = ai["typestr"]
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
    strides = (
        compact_strides(shape)
        if ai.get("strides") is None
        else _byte_strides_to_elements(tuple(ai["strides"]), itemsize, "__array_interface__")
    )
    ptr, readonly = ai["data"][0], bool(ai["data"][1])
    name = typestr_element_name(typestr)
    return ArrayFacts(ptr, shape, strides, name, CPU, 0, keepalive=a, readonly=readonly)


def _dlpack(a, stream: int | None = None) -> ArrayFacts:
    device_type, device_id = a.__dlpack_device__()
    if device_type in (dlpack.DL_CUDA, dlpack.DL_CUDA_MANAGED):
        kind = CUDA
        try:  # lets the producer order its work before our stream (DLPack stream protocol)
            capsule = a.__dlpack__(stream=stream or 1)
        except TypeError:
            capsule = a.__dlpack__()
    elif device_type in (dlpack.DL_CPU, dlpack.DL_CUDA_HOST):
        kind = CPU
        capsule = a.__dlpack__()
    else:
        raise ValueError(f"DLPack device type {device_type} is neither CPU nor CUDA")
    tensor = dlpack.read_capsule(capsule)
    ptr, shape, strides = dlpack.tensor_facts(tensor)
    name = dlpack_element_name(tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes)
    return ArrayFacts(
        ptr,
        shape,
        strides if strides is not None else compact_strides(shape),
        name,
        kind,
        device_id,
        keepalive=(a, capsule),
    )


def _adapter_for(cls: type) -> Callable[..., ArrayFacts] | None:
    module = cls.__module__ or ""
    if hasattr(cls, "_layoutc_facts"):
        return lambda a, stream=None: a._layoutc_facts(stream)
    if module == "numpy" and cls.__name__ in ("ndarray", "memmap"):
        return _numpy
    if module.startswith("torch") and hasattr(cls, "data_ptr") and hasattr(cls, "stride"):
        return _torch
    if module.startswith("cupy") and hasattr(cls, "__cuda_array_interface__"):
        return _cupy
    if hasattr(cls, "__cuda_array_interface__"):
        return _cuda_array_interface
    if hasattr(cls, "__dlpack__") and hasattr(cls, "__dlpack_device__"):
        return _dlpack
    if hasattr(cls, "__array_interface__"):
        return _array_interface
    try:
        import numpy as np

        if issubclass(cls, np.ndarray):
            return _numpy
    except ImportError:
        pass
    return None


_ADAPTERS: dict[type, Callable[..., ArrayFacts] | None] = {}


def array_facts(obj: object, stream: int | None = None) -> ArrayFacts | None:
    """Facts about ``obj`` if it is an array this runtime understands, else None.

    ``stream`` is the CUDA stream the launch will use (DLPack producers synchronise with it).
    """
    cls = type(obj)
    try:
        adapter = _ADAPTERS[cls]
    except KeyError:
        adapter = _ADAPTERS[cls] = _adapter_for(cls)
    if adapter is None:
        # Objects that carry an interface as an instance attribute (not on their class).
        if hasattr(obj, "__cuda_array_interface__"):
            adapter = _cuda_array_interface
        elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            adapter = _dlpack
        elif hasattr(obj, "__array_interface__"):
            adapter = _array_interface
        else:
            return None
    return adapter(obj, stream)
