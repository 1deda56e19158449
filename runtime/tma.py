"""TMA descriptors at launch: ``cuTensorMapEncodeTiled`` through cuda-bindings, with TMA's
rules checked first (each refusal names the rule and the value) and a cache so a repeated
launch with the same tensor does not encode again.

A descriptor is 128 bytes, 64-byte aligned; a kernel takes it as a grid-constant (``byval``)
parameter. It depends on the tensor's base address, element type, extents and byte strides
(TMA dimension order, innermost first), and the box and swizzle the compiler derived
(``lc.make_tma_copy``); :class:`TmaDescriptorCache` keys on exactly those. Plain Python plus
the driver bindings: the production loader imports it without any compiler library.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from . import cuda_driver
from .errors import ArgumentError

DESCRIPTOR_BYTES = 128
DESCRIPTOR_ALIGN = 64

#: The element types TMA moves: the tensor map's data type and the element's bytes, one record
#: from which both tables below derive (FP8 moves as bytes: the tensor map has no FP8 type, and
#: CUTLASS maps it to UINT8 too).
TMA_ELEMENTS: dict[str, tuple[str, int]] = {
    "u8": ("UINT8", 1), "i8": ("UINT8", 1), "f8e4m3": ("UINT8", 1), "f8e5m2": ("UINT8", 1),
    "u16": ("UINT16", 2), "i16": ("UINT16", 2), "f16": ("FLOAT16", 2), "bf16": ("BFLOAT16", 2),
    "u32": ("UINT32", 4), "i32": ("INT32", 4), "f32": ("FLOAT32", 4), "tf32": ("TFLOAT32", 4),
    "u64": ("UINT64", 8), "i64": ("INT64", 8), "f64": ("FLOAT64", 8),
}  # fmt: skip
DATA_TYPES = {k: f"CU_TENSOR_MAP_DATA_TYPE_{t}" for k, (t, _) in TMA_ELEMENTS.items()}
ELEMENT_BYTES = {k: n for k, (_, n) in TMA_ELEMENTS.items()}
SWIZZLES = {
    0: "CU_TENSOR_MAP_SWIZZLE_NONE",
    32: "CU_TENSOR_MAP_SWIZZLE_32B",
    64: "CU_TENSOR_MAP_SWIZZLE_64B",
    128: "CU_TENSOR_MAP_SWIZZLE_128B",
}


@dataclass(frozen=True)
class TmaBox:
    """What the compiler fixed: element type, box extents and swizzle span, TMA dim order."""

    dtype: str
    box: tuple[int, ...]
    swizzle: int = 0


def check_tma_rules(
    name: str, box: TmaBox, address: int, extents: tuple[int, ...], strides: tuple[int, ...]
) -> None:
    """Raise ``ArgumentError`` naming the rule and the value for anything TMA refuses.

    ``extents`` are in elements and ``strides`` in bytes, innermost dimension first; the
    innermost stride is the element size (TMA's dimension 0 is contiguous)."""
    where = f"TMA descriptor of {name!r}"
    if box.dtype not in DATA_TYPES:
        raise ArgumentError(f"{where}: TMA does not move {box.dtype} elements")
    e = ELEMENT_BYTES[box.dtype]
    rank = len(box.box)
    if not 1 <= rank <= 5 or len(extents) != rank or len(strides) != rank:
        raise ArgumentError(
            f"{where}: a tensor of rank 1 to 5 with one extent and stride per box dimension "
            f"(got box {box.box}, extents {extents}, strides {strides})"
        )
    if address % 16:
        raise ArgumentError(
            f"{where}: the global address must be 16-byte aligned, got {address:#x} "
            f"({address % 16} bytes past a 16-byte boundary)"
        )
    if strides[0] != e:
        raise ArgumentError(
            f"{where}: TMA's dimension 0 must be contiguous (stride {e} bytes), got {strides[0]}"
        )
    for k in range(1, rank):
        if strides[k] % 16 or strides[k] <= 0 or strides[k] >= 1 << 40:
            raise ArgumentError(
                f"{where}: byte strides must be positive multiples of 16 below 2^40; dimension "
                f"{k} has {strides[k]} bytes"
            )
    for k, n in enumerate(extents):
        if not 1 <= n <= 1 << 32:
            raise ArgumentError(f"{where}: extents must be in [1, 2^32]; dimension {k} is {n}")
    for k, b in enumerate(box.box):
        if not 1 <= b <= 256:
            raise ArgumentError(f"{where}: box extents must be in [1, 256]; dimension {k} is {b}")
    inner = box.box[0] * e
    if inner % 16:
        raise ArgumentError(
            f"{where}: the box's inner extent must be a multiple of 16 bytes, got {inner}"
        )
    if box.swizzle not in SWIZZLES:
        raise ArgumentError(f"{where}: swizzle must be 0, 32, 64 or 128 bytes, got {box.swizzle}")
    if box.swizzle and inner > box.swizzle:
        raise ArgumentError(
            f"{where}: with a {box.swizzle}-byte swizzle the box's inner extent must be at most "
            f"{box.swizzle} bytes, got {inner}"
        )


def encode_tiled(
    box: TmaBox, address: int, extents: tuple[int, ...], strides: tuple[int, ...]
) -> bytes:
    """The 128-byte tensor map (``cuTensorMapEncodeTiled``; out-of-bounds elements read 0)."""
    drv = cuda_driver.api()
    rank = len(box.box)
    u32, u64 = drv.cuuint32_t, drv.cuuint64_t
    result = drv.cuTensorMapEncodeTiled(
        getattr(drv.CUtensorMapDataType, DATA_TYPES[box.dtype]),
        u32(rank),
        address,
        [u64(n) for n in extents],
        [u64(n) for n in strides[1:]],  # the driver takes the strides of dimensions 1..rank-1
        [u32(n) for n in box.box],
        [u32(1)] * rank,
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(drv.CUtensorMapSwizzle, SWIZZLES[box.swizzle]),
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    tmap = cuda_driver.check(result, "encoding a TMA descriptor (cuTensorMapEncodeTiled)")
    words = tmap.opaque
    return b"".join(int(w).to_bytes(8, "little") for w in words)


class TmaDescriptorCache:
    """Encoded descriptors by (box, address, extents, strides): a launch with the same tensor
    reuses the bytes (encoding costs a driver call, microseconds per launch). ``box`` is a
    :class:`TmaBox` (``cuTensorMapEncodeTiled``) or an im2col box
    (:class:`~layoutc.runtime.tma_im2col.Im2colBox`, ``cuTensorMapEncodeIm2col``)."""

    def __init__(self, capacity: int = 1024):
        self.capacity = capacity
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple, bytes] = OrderedDict()
        self.encodes = 0

    def get(
        self,
        name: str,
        box: Any,
        address: int,
        extents: tuple[int, ...],
        strides: tuple[int, ...],
    ) -> bytes:
        key = (box, address, tuple(extents), tuple(strides))
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
                return hit
        if isinstance(box, TmaBox):
            check_tma_rules(name, box, address, extents, strides)
            data = encode_tiled(box, address, extents, strides)
        else:  # an im2col box (runtime/tma_im2col.py)
            from .tma_im2col import check_im2col_rules, encode_im2col

            check_im2col_rules(name, box, address, extents, strides)
            data = encode_im2col(box, address, extents, strides)
        with self._lock:
            self.encodes += 1
            self._entries[key] = data
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
        return data

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: The process-wide cache launches use.
DESCRIPTORS = TmaDescriptorCache()


def descriptor_parameter(data: bytes) -> Any:
    """The 128 bytes as a 64-byte aligned ctypes buffer to pass by value (grid constant)."""
    import ctypes

    raw = ctypes.create_string_buffer(DESCRIPTOR_BYTES + DESCRIPTOR_ALIGN)
    base = (ctypes.addressof(raw) + DESCRIPTOR_ALIGN - 1) & ~(DESCRIPTOR_ALIGN - 1)
    ctypes.memmove(base, data, DESCRIPTOR_BYTES)
    view = (ctypes.c_char * DESCRIPTOR_BYTES).from_address(base)
    view._keepalive = raw  # type: ignore[attr-defined]
    return view
