"""Reading a DLPack capsule with ctypes, so that any DLPack producer works without torch.

Only the fields the runtime needs are read (data pointer, device, dtype, shape, strides). The
capsule is not renamed ("used_dltensor"): the producer's capsule destructor keeps ownership and
frees the tensor when the caller drops the capsule, after the launch has been enqueued.
"""

from __future__ import annotations

import ctypes

DL_CPU = 1
DL_CUDA = 2
DL_CUDA_HOST = 3
DL_CUDA_MANAGED = 13


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def read_capsule(capsule: object) -> DLTensor:
    """The ``DLTensor`` inside a legacy (``dltensor``) or versioned (``dltensor_versioned``)
    capsule. Raises ``ValueError`` for anything else (e.g. an already consumed capsule)."""
    if _is_valid(capsule, b"dltensor"):
        managed = DLManagedTensor.from_address(_get_pointer(capsule, b"dltensor"))
        return managed.dl_tensor
    if _is_valid(capsule, b"dltensor_versioned"):
        managed_v = DLManagedTensorVersioned.from_address(
            _get_pointer(capsule, b"dltensor_versioned")
        )
        if managed_v.version.major != 1:
            raise ValueError(f"DLPack version {managed_v.version.major} is not supported")
        return managed_v.dl_tensor
    raise ValueError("object is not an unconsumed DLPack capsule")


def tensor_facts(t: DLTensor) -> tuple[int, tuple[int, ...], tuple[int, ...] | None]:
    """(data pointer including byte_offset, shape, strides in elements or None if compact)."""
    n = t.ndim
    shape = tuple(t.shape[i] for i in range(n))
    strides = tuple(t.strides[i] for i in range(n)) if t.strides else None
    return (t.data or 0) + t.byte_offset, shape, strides
