"""TMA in im2col mode: the descriptor (``cuTensorMapEncodeIm2col``) and a model of the box
one load brings to shared memory, for the CPU runtime and for tests against numpy.

An im2col load reads ``pixels`` pixels of ``channels`` channels from an N-spatial-C tensor
(NWC, NHWC or NDHWC; TMA's dimension order is innermost first: C, W, (H, (D,)) N). The
descriptor fixes a *bounding box* per spatial dimension, ``[lower, extent - 1 + upper]``
(``pixelBoxLowerCorner`` / ``pixelBoxUpperCorner``: ``-padding`` and ``padding - (filter - 1)``
for a convolution, the output positions' top-left input pixels); the instruction gives the
first pixel (``c, w, h, d, n``) and the filter tap (``offW, offH, offD``). Pixels are walked
W fastest, then H, D, N, wrapping at the box's upper corner to its lower one; each pixel reads
its channels at ``pixel + offsets``, and elements outside the tensor read 0. So one load of a
convolution's K-block (32 channels of one tap) is a ``(pixels, channels)`` tile of the im2col
matrix with the output positions ordered (Q, P, Z, N): examples/conv3d_fprop.py's ``B`` tile.
The first pixel must lie in the bounding box: on an H200 one below it raises an illegal
instruction (measured); this model and the CPU runtime refuse any outside it. Channels past
the tensor, images past N and a channel start that is not a multiple of the channels per
pixel behave as modelled (measured on an H200 against this model).

This module is plain Python (numpy only in :func:`im2col_load`); the descriptor goes through
the driver bindings like :func:`layoutc.runtime.tma.encode_tiled`. Kernels issue the loads
with ``lc.make_im2col_tma_copy`` and ``lc.tma_copy(..., offsets=)``; the CPU runtime's
``__layoutc_tma_load_im2col`` (runtime/cpu_support.ll) implements this model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import cuda_driver
from .errors import ArgumentError
from .tma import DATA_TYPES, ELEMENT_BYTES, SWIZZLES, TmaBox, check_tma_rules

#: the corner range per tensor rank (bits of the signed field in the descriptor)
_CORNER_BITS = {3: 16, 4: 8, 5: 5}


@dataclass(frozen=True)
class Im2colBox:
    """What an im2col descriptor fixes: element type, channels and pixels per load, the
    bounding box's corners (spatial dimensions innermost first: W, H, D) and the swizzle."""

    dtype: str
    channels: int
    pixels: int
    lower: tuple[int, ...]
    upper: tuple[int, ...]
    swizzle: int = 0
    traversal: tuple[int, ...] = ()
    """The traversal strides (``elementStrides``, a convolution's stride) of the spatial
    dimensions, innermost first; ``()`` is all ones."""

    @property
    def rank(self) -> int:
        return len(self.lower) + 2

    @property
    def strides(self) -> tuple[int, ...]:
        """The traversal stride of each spatial dimension, innermost first."""
        return self.traversal or (1,) * len(self.lower)

    def output_extents(self, extents: tuple[int, ...]) -> tuple[int, ...]:
        """The positions the box walks per spatial dimension (innermost first) for a tensor of
        ``extents`` (innermost first): CuTe's ``(extent + upper - lower - 1) / stride + 1``,
        a convolution's output extents."""
        return tuple(
            (extents[k + 1] + u - lo - 1) // s + 1
            for k, (lo, u, s) in enumerate(zip(self.lower, self.upper, self.strides))
        )


def check_im2col_box(name: str, box: Im2colBox) -> None:
    """The rules of the descriptor's static part (what the compiler fixed: channels, pixels,
    corners, traversal strides, element type and swizzle); ``ArgumentError`` naming the rule
    and the value. The C launchers of ``--emit-c`` check these when they are generated."""
    where = f"TMA im2col descriptor of {name!r}"
    rank = box.rank
    if rank not in _CORNER_BITS or len(box.upper) != len(box.lower):
        raise ArgumentError(
            f"{where}: im2col needs a tensor of rank 3, 4 or 5 (1 to 3 spatial dimensions) and "
            f"one lower and upper corner per spatial dimension; got corners {box.lower}, "
            f"{box.upper}"
        )
    if not 1 <= box.channels <= 256 or not 1 <= box.pixels <= 1024:
        raise ArgumentError(
            f"{where}: channels per pixel must be in [1, 256] and pixels per column in "
            f"[1, 1024]; got {box.channels} and {box.pixels}"
        )
    if len(box.strides) != rank - 2 or any(not 1 <= s <= 8 for s in box.strides):
        raise ArgumentError(
            f"{where}: traversal strides (elementStrides) must be in [1, 8], one per spatial "
            f"dimension ({rank - 2}); got {box.strides}"
        )
    bits = _CORNER_BITS[rank]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    for corner in (*box.lower, *box.upper):
        if not lo <= corner <= hi:
            raise ArgumentError(
                f"{where}: a rank-{rank} tensor's box corners must be in [{lo}, {hi}]; got "
                f"lower {box.lower}, upper {box.upper}"
            )
    if box.dtype not in DATA_TYPES:
        raise ArgumentError(f"{where}: TMA does not move {box.dtype} elements")
    if box.swizzle not in SWIZZLES:
        raise ArgumentError(f"{where}: swizzle must be 0, 32, 64 or 128 bytes, got {box.swizzle}")
    inner = box.channels * ELEMENT_BYTES[box.dtype]
    if inner % 16:
        raise ArgumentError(
            f"{where}: the box's inner extent (a pixel's channels) must be a multiple of 16 "
            f"bytes, got {inner}"
        )
    if box.swizzle and inner > box.swizzle:
        raise ArgumentError(
            f"{where}: with a {box.swizzle}-byte swizzle the box's inner extent must be at most "
            f"{box.swizzle} bytes, got {inner}"
        )


def check_im2col_rules(
    name: str, box: Im2colBox, address: int, extents: tuple[int, ...], strides: tuple[int, ...]
) -> None:
    """Raise ``ArgumentError`` naming the rule and the value for anything the im2col
    descriptor refuses. ``extents`` (elements) and ``strides`` (bytes) innermost first."""
    check_im2col_box(name, box)
    rank = box.rank
    where = f"TMA im2col descriptor of {name!r}"
    # the tensor rules are the tiled descriptor's, with a box of one pixel of `channels`
    check_tma_rules(name, TmaBox(box.dtype, (box.channels,) + (1,) * (rank - 1), box.swizzle),
                    address, extents, strides)  # fmt: skip
    for k, (lower, upper) in enumerate(zip(box.lower, box.upper)):
        if extents[k + 1] - 1 + upper < lower:
            raise ArgumentError(
                f"{where}: spatial dimension {k + 1} (extent {extents[k + 1]}) has an empty "
                f"bounding box [{lower}, {extents[k + 1] - 1 + upper}]"
            )


def encode_im2col(
    box: Im2colBox, address: int, extents: tuple[int, ...], strides: tuple[int, ...]
) -> bytes:
    """The 128-byte tensor map (``cuTensorMapEncodeIm2col``; out-of-bounds elements read 0)."""
    drv = cuda_driver.api()
    u32, u64 = drv.cuuint32_t, drv.cuuint64_t
    result = drv.cuTensorMapEncodeIm2col(
        getattr(drv.CUtensorMapDataType, DATA_TYPES[box.dtype]),
        u32(box.rank),
        address,
        [u64(n) for n in extents],
        [u64(n) for n in strides[1:]],  # the strides of dimensions 1..rank-1
        list(box.lower),
        list(box.upper),
        u32(box.channels),
        u32(box.pixels),
        [u32(s) for s in (1, *box.strides, 1)],  # C and N are walked one by one
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(drv.CUtensorMapSwizzle, SWIZZLES[box.swizzle]),
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    tmap = cuda_driver.check(result, "encoding a TMA descriptor (cuTensorMapEncodeIm2col)")
    return b"".join(int(w).to_bytes(8, "little") for w in tmap.opaque)


def im2col_load(
    tensor: Any, box: Im2colBox, coords: tuple[int, ...], offsets: tuple[int, ...]
) -> Any:
    """The ``(pixels, channels)`` tile one im2col load brings (before any swizzle).

    ``tensor`` is a numpy array in memory order, outermost first (N, [D, [H,]] W, C);
    ``coords`` the instruction's first pixel innermost first (c, w, [h, [d,]] n) and
    ``offsets`` its filter tap (w, [h, [d]]; a dilated tap already times the dilation).
    Pixels advance by the traversal strides, wrapping to the lower corner when past the upper
    one. Elements outside the tensor read 0."""
    import numpy as np

    spatial = len(box.lower)
    if tensor.ndim != spatial + 2 or len(coords) != spatial + 2 or len(offsets) != spatial:
        raise ArgumentError(
            f"im2col_load: a rank-{spatial + 2} tensor, {spatial + 2} coordinates and "
            f"{spatial} offsets; got shape {tensor.shape}, {coords}, {offsets}"
        )
    extents = tensor.shape[::-1]  # innermost first: C, W, H, D, N
    first = [box.lower[k] for k in range(spatial)]
    last = [extents[k + 1] - 1 + box.upper[k] for k in range(spatial)]
    step = box.strides
    for k in range(spatial):
        if not first[k] <= coords[1 + k] <= last[k]:
            raise ArgumentError(
                f"im2col_load: the first pixel {coords[1:-1]} (innermost first) lies outside the "
                f"bounding box: dimension {k + 1} must be in [{first[k]}, {last[k]}] (an H200 "
                "raises an illegal instruction)"
            )
        if (coords[1 + k] - first[k]) % step[k]:
            raise ArgumentError(
                f"im2col_load: the first pixel {coords[1:-1]} (innermost first) is off the "
                f"traversal grid: dimension {k + 1} must be {first[k]} plus a multiple of its "
                f"stride {step[k]} (an output position's pixel)"
            )
    c0 = coords[0]
    pixel = list(coords[1:])  # w, h, d, n
    out = np.zeros((box.pixels, box.channels), dtype=tensor.dtype)
    for j in range(box.pixels):
        at = [pixel[k] + offsets[k] for k in range(spatial)] + [pixel[spatial]]
        if all(0 <= at[k] < extents[k + 1] for k in range(spatial + 1)):
            index = tuple(reversed(at))  # outermost first
            row = tensor[index]
            lo, hi = max(c0, 0), min(c0 + box.channels, extents[0])
            if lo < hi:
                out[j, lo - c0 : hi - c0] = row[lo:hi]
        # the next pixel: W fastest, wrapping at the box's upper corner to its lower one
        for k in range(spatial):
            pixel[k] += step[k]
            if pixel[k] <= last[k]:
                break
            pixel[k] = first[k]
        else:
            pixel[spatial] += 1
    return out


__all__ = [
    "Im2colBox",
    "check_im2col_box",
    "check_im2col_rules",
    "encode_im2col",
    "im2col_load",
]
