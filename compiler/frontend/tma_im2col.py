"""TMA in im2col mode in the DSL: ``lc.make_im2col_tma_copy`` (CuTe's ``make_im2col_tma_copy``
with ``SM90_TMA_LOAD_IM2COL``) and ``lc.tma_copy`` with ``offsets=``.

A convolution's implicit GEMM reads, per K-block, one filter tap's channels at every output
position of the CTA tile. TMA's im2col mode loads exactly that: ``pixels`` pixels of
``channels`` channels of an N-spatial-C tensor (NWC, NHWC, NDHWC), the pixels walked W
fastest through a *bounding box* per spatial dimension, ``[lower, extent - 1 + upper]``
(for a convolution of stride 1: ``lower = -padding``, ``upper = padding - (filter - 1)``,
the output positions), each read at ``pixel + offsets`` (the filter tap). The box lands in
shared memory as a dense ``(pixels, channels)`` matrix, swizzled like a tiled box.

``make_im2col_tma_copy(op, gmem_tensor, smem_layout, lower_corner, upper_corner)`` proves
``smem_layout`` is that matrix (``(pixels, channels)``, channels contiguous, optionally
``Swizzle<B,4,3>`` in bytes whose span is the channels' bytes) and refuses, with the rule and
the value, what breaks TMA's rules when the spec decides it (the tensor's rank and unit-stride
channel mode, 16-byte alignment and strides, corner ranges, channels <= 256, pixels <= 1024);
the rest is checked at launch (runtime/tma_im2col.py). The corners and the offsets are given
in the tensor's spatial mode order (D, H, W for NDHWC); TMA's own order is innermost first.

A convolution's stride, dilation and padding, as CuTe's ``make_im2col_tma_copy`` takes them:
``traversal_stride=`` is the descriptor's ``elementStrides`` (the pixels advance by it through
the box, so the box's positions are the output positions); ``dilation=`` scales the filter
tap ``lc.tma_copy(..., offsets=tap)`` takes into the instruction's offsets (CuTe's
``stride_srt``); ``filter_shape=`` with ``padding=`` derives the corners,
``lower = -padding_lower``, ``upper = padding_upper - (filter - 1) * dilation``, or checks the
corners given against them. ``copy.output_shape`` is the convolution's output (CuTe's
``(extent + upper - lower - 1) / stride + 1`` per spatial mode) and ``copy.first_pixel(pos)``
the pixel an output position's load starts at (``lower + pos * stride``).
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import coalesce, make_layout
from ..ir.core.types import IntegerType, i32, index
from ..ir.dialects import nvvm_sm90 as N
from ..ir.dialects import tile as T
from ..ir.dialects.llvm import AddrSpaceCastOp, LLVMPointerType
from ..ir.dialects.tile.ops_tma import CORNER_BITS
from . import scalars, state, symbols
from .hopper import barrier_pointer
from .tensor import Tensor
from .tma import _SWIZZLE_BYTES, _smem_pointer, _split_swizzle

OPS = ("SM90_TMA_LOAD_IM2COL", "SM90_TMA_LOAD_IM2COL_MULTICAST")


class Im2colTmaCopy:
    """An im2col TMA load of one kernel-argument tensor: pixels, channels, corners, swizzle."""

    def __init__(
        self, op, tensor, smem_layout, channels, pixels, lower, upper, swizzle, desc, multicast=1,
        traversal=None, dilation=None,
    ):  # fmt: skip
        spatial = len(lower)
        self.traversal = tuple(traversal or (1,) * spatial)
        """Traversal strides (a convolution's stride), spatial mode order."""
        self.dilation = tuple(dilation or (1,) * spatial)
        """What ``offsets=`` (a filter tap) is scaled by, spatial mode order."""
        self.op = op
        self.multicast = multicast
        self.tensor = tensor
        self.smem_layout = smem_layout
        self.channels = channels
        self.pixels = pixels
        self.lower = lower  # spatial mode order
        self.upper = upper
        self.swizzle_bytes = swizzle
        self.desc = desc
        self.rank = len(lower) + 2
        self.tx_bytes = pixels * channels * tensor.type.element_bits // 8
        """Bytes one load moves (what ``mbarrier_arrive_and_expect_tx`` expects)."""

    def __repr__(self) -> str:
        extra = ""
        if any(x != 1 for x in self.traversal + self.dilation):
            extra = f" traversal={self.traversal} dilation={self.dilation}"
        return (
            f"<Im2colTmaCopy {self.op} pixels={self.pixels} channels={self.channels} "
            f"lower={self.lower} upper={self.upper} swizzle={self.swizzle_bytes}B{extra}>"
        )

    @property
    def output_shape(self) -> tuple[Any, ...]:
        """The convolution's output ``(N, spatial...)`` in mode order: the box's positions per
        spatial mode, ``(extent + upper - lower - 1) // stride + 1`` (CuTe's ``gemm_mn``).
        A dynamic spatial extent is an error here (N may be dynamic)."""
        shape = self.tensor.layout.shape
        out = [shape[0]]
        for k in range(len(self.lower)):
            extent = shape[k + 1]
            if not isinstance(extent, int):
                raise state.error(
                    f"Im2colTmaCopy.output_shape: spatial mode {k + 1} has a dynamic extent "
                    f"{extent}; the output extents need static spatial extents"
                )
            out.append((extent + self.upper[k] - self.lower[k] - 1) // self.traversal[k] + 1)
        return tuple(out)

    def first_pixel(self, position: Any, c: Any = 0) -> tuple[Any, ...]:
        """The first pixel (tensor mode order, ``(n, spatial..., c)``) of a load starting at
        output ``position`` (``(n, spatial...)``, mode order): ``lower + position * stride``
        per spatial mode. Static or dynamic values."""
        spatial = len(self.lower)
        if not isinstance(position, tuple) or len(position) != spatial + 1:
            raise state.error(
                f"Im2colTmaCopy.first_pixel: an output position is (n, spatial...): "
                f"{spatial + 1} coordinates, got {position!r}"
            )
        pixel = [
            self.lower[k] + position[k + 1] * self.traversal[k]
            if self.traversal[k] != 1
            else position[k + 1] + self.lower[k]
            for k in range(spatial)
        ]
        return (position[0], *pixel, c)


def _corners(value: Any, spatial: int, name: str, what: str) -> tuple[int, ...]:
    if isinstance(value, int):
        value = (value,) * spatial
    if (
        not isinstance(value, tuple)
        or len(value) != spatial
        or not all(isinstance(x, int) for x in value)
    ):
        raise state.error(
            f"{what}: {name} must give a static int per spatial dimension ({spatial}), got "
            f"{value!r}"
        )
    return value


def _per_dim(value: Any, spatial: int, name: str, what: str, least: int) -> tuple[int, ...]:
    """A static int per spatial dimension (an int is broadcast), each at least ``least``."""
    got = _corners(value, spatial, name, what)
    if any(x < least for x in got):
        raise state.error(f"{what}: {name} must be at least {least} per dimension, got {got}")
    return got


def _padding(value: Any, spatial: int, what: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``padding=``: an int, one per spatial dimension (symmetric), or ``(lower, upper)``."""
    if value is None:
        value = 0
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(x, tuple) for x in value):
        return (
            _corners(value[0], spatial, "padding's lower half", what),
            _corners(value[1], spatial, "padding's upper half", what),
        )
    pad = _corners(value, spatial, "padding", what)
    return pad, pad


def _check_output(output: Any, shape: tuple, lower: tuple, upper: tuple, walk: tuple,
                  what: str) -> None:  # fmt: skip
    """The output tensor's (N, spatial...) modes against the activation's N and the box's
    positions per spatial mode, ``(extent + upper - lower - 1) // stride + 1``."""
    oshape = output.layout.shape if isinstance(output, Tensor) else None
    spatial = len(lower)
    if not isinstance(oshape, tuple) or len(oshape) != spatial + 2:
        raise state.error(
            f"{what}: output= is the convolution's output tensor (N, spatial..., K) of rank "
            f"{spatial + 2}, got {output!r}"
        )
    for k in range(spatial):
        extent, got = shape[k + 1], oshape[k + 1]
        if not isinstance(extent, int) or not isinstance(got, int):
            raise state.error(
                f"{what}: output= checks static spatial extents; mode {k + 1} is {extent} in "
                f"the activation and {got} in the output"
            )
    want = tuple((shape[k + 1] + upper[k] - lower[k] - 1) // walk[k] + 1 for k in range(spatial))
    if tuple(oshape[1 : spatial + 1]) != want:
        raise state.error(
            f"{what}: the output's spatial extents {tuple(oshape[1 : spatial + 1])} are not "
            f"the convolution's {want} ((extent + upper - lower - 1) // stride + 1 with "
            f"extents {tuple(shape[1 : spatial + 1])}, corners {lower}, {upper}, traversal "
            f"stride {walk})"
        )
    if oshape[0] != shape[0]:
        raise state.error(
            f"{what}: the output's image count {oshape[0]} is not the activation's "
            f"{shape[0]} (a dynamic count must be the same symbol in both annotations)"
        )


def make_im2col_tma_copy(
    op: str,
    gmem_tensor: Any,
    smem_layout: Any,
    lower_corner: Any = None,
    upper_corner: Any = None,
    multicast: int = 1,
    *,
    traversal_stride: Any = 1,
    dilation: Any = 1,
    filter_shape: Any = None,
    padding: Any = None,
    output: Any = None,
) -> Im2colTmaCopy:
    """CuTe's ``make_im2col_tma_copy`` for a kernel-argument tensor (see the module docstring);
    ``SM90_TMA_LOAD_IM2COL_MULTICAST`` loads into ``multicast`` blocks of a cluster. The
    corners, or ``filter_shape`` (and ``padding``) to derive them; ``traversal_stride`` and
    ``dilation`` per spatial dimension (or one int for all). ``output``, the convolution's
    output tensor ``(N, spatial..., K)``, is checked against the output shape the box gives."""
    what = "lc.make_im2col_tma_copy"
    if op not in OPS:
        raise state.error(f"{what}: the op must be one of {', '.join(OPS)}, got {op!r}")
    if not isinstance(multicast, int) or not 1 <= multicast <= 16:
        raise state.error(f"{what}: multicast must be a block count in [1, 16], got {multicast}")
    if multicast != 1 and op != "SM90_TMA_LOAD_IM2COL_MULTICAST":
        raise state.error(f"{what}: multicast={multicast} needs SM90_TMA_LOAD_IM2COL_MULTICAST")
    if not isinstance(gmem_tensor, Tensor) or gmem_tensor.memspace != "gmem":
        raise state.error(f"{what}: expects a global-memory tensor, got {gmem_tensor!r}")
    t = gmem_tensor.type
    layout = gmem_tensor.layout
    shape, stride = layout.shape, layout.stride
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    rank = len(shape)
    if rank not in CORNER_BITS or any(isinstance(s, tuple) for s in shape):
        raise state.error(
            f"{what}: im2col needs a tensor (N, spatial..., C) of rank 3 to 5 with flat modes "
            f"(1 to 3 spatial dimensions), got {t}"
        )
    if t.element_bits % 8:
        raise state.error(f"{what}: TMA moves whole bytes; {t.element} elements are not")
    elem_bytes = t.element_bits // 8
    if stride[-1] != 1:
        raise state.error(
            f"{what}: the channel mode (the last) must be contiguous for im2col; the tensor's "
            f"strides are {stride}"
        )
    if t.alignment < 16:
        raise state.error(
            f"{what}: TMA needs a 16-byte aligned global address; the tensor's base is only "
            f"known to be {t.alignment}-byte aligned"
        )
    for m in range(rank - 1):
        s = stride[m]
        if isinstance(s, int):
            ok = (s * elem_bytes) % 16 == 0
        else:
            from ..ir.algebra.intops import divides

            ok = divides(16, s * elem_bytes)
        if not ok:
            raise state.error(
                f"{what}: TMA needs byte strides that are multiples of 16; mode {m} has "
                f"stride {s} x {elem_bytes} bytes"
            )
    spatial = rank - 2
    walk = _per_dim(traversal_stride, spatial, "traversal_stride", what, 1)
    if any(x > 8 for x in walk):
        raise state.error(
            f"{what}: TMA's traversal strides (elementStrides) must be in [1, 8]; got "
            f"traversal_stride {walk}"
        )
    dil = _per_dim(dilation, spatial, "dilation", what, 1)
    if filter_shape is not None:
        filt = _per_dim(filter_shape, spatial, "filter_shape", what, 1)
        pad_lo, pad_hi = _padding(padding, spatial, what)
        derived_lower = tuple(-p for p in pad_lo)
        derived_upper = tuple(p - (f - 1) * d for p, f, d in zip(pad_hi, filt, dil))
        if lower_corner is None and upper_corner is None:
            lower_corner, upper_corner = derived_lower, derived_upper
        else:
            given = (
                _corners(lower_corner, spatial, "lower_corner", what),
                _corners(upper_corner, spatial, "upper_corner", what),
            )
            if given != (derived_lower, derived_upper):
                raise state.error(
                    f"{what}: the corners {given[0]}, {given[1]} disagree with filter_shape "
                    f"{filt}, padding {pad_lo}/{pad_hi} and dilation {dil}, which give lower "
                    f"-padding = {derived_lower} and upper padding - (filter - 1) * dilation "
                    f"= {derived_upper}"
                )
    elif padding is not None:
        raise state.error(f"{what}: padding= derives the corners with filter_shape=; pass both")
    if lower_corner is None or upper_corner is None:
        raise state.error(
            f"{what}: give the bounding box: lower_corner and upper_corner, or filter_shape= "
            f"(with padding=)"
        )
    lower = _corners(lower_corner, spatial, "lower_corner", what)
    upper = _corners(upper_corner, spatial, "upper_corner", what)
    bits = CORNER_BITS[rank]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if any(not lo <= x <= hi for x in (*lower, *upper)):
        raise state.error(
            f"{what}: a rank-{rank} tensor's box corners must be in [{lo}, {hi}] (the "
            f"descriptor's {bits}-bit fields); got lower {lower}, upper {upper}"
        )
    for k in range(spatial):
        extent = shape[k + 1]
        if isinstance(extent, int) and extent - 1 + upper[k] < lower[k]:
            raise state.error(
                f"{what}: spatial mode {k + 1} (extent {extent}) has an empty bounding box "
                f"[{lower[k]}, {extent - 1 + upper[k]}]"
            )
    if output is not None:
        _check_output(output, shape, lower, upper, walk, what)
    # -- the shared-memory side: a dense (pixels, channels) matrix --------------------------
    swz, inner = _split_swizzle(smem_layout, what)
    ishape = inner.shape
    if not isinstance(ishape, tuple) or len(ishape) != 2:
        raise state.error(
            f"{what}: the smem layout is one load's (pixels, channels) matrix, got {inner}"
        )
    pixels, channels = (coalesce(make_layout(x)).shape for x in ishape)
    if not isinstance(pixels, int) or not isinstance(channels, int):
        raise state.error(f"{what}: the smem layout must be static, got {inner}")
    want = make_layout((pixels, channels), (channels, 1))
    if coalesce(inner) != coalesce(want):
        raise state.error(
            f"{what}: the smem layout {inner} is not the matrix TMA writes: {pixels} pixels of "
            f"{channels} channels stored pixel by pixel, i.e. {want}"
        )
    if not 1 <= channels <= 256 or not 1 <= pixels <= 1024:
        raise state.error(
            f"{what}: channels per pixel must be in [1, 256] and pixels per load in [1, 1024]; "
            f"got {channels} and {pixels}"
        )
    inner_bytes = channels * elem_bytes
    if inner_bytes % 16:
        raise state.error(
            f"{what}: a pixel's channels must be a multiple of 16 bytes; {channels} x "
            f"{elem_bytes} bytes = {inner_bytes}"
        )
    swizzle_bytes = 0
    if swz is not None and swz.bits:
        log_e = elem_bytes.bit_length() - 1
        if swz.base + log_e != 4 or swz.shift != 3 or swz.bits not in (1, 2, 3):
            raise state.error(
                f"{what}: TMA swizzles 16-byte units (Swizzle<B,4,3> in bytes); the smem "
                f"layout's Swizzle<{swz.bits},{swz.base},{swz.shift}> on {elem_bytes}-byte "
                f"elements is Swizzle<{swz.bits},{swz.base + log_e},{swz.shift}> in bytes"
            )
        swizzle_bytes = _SWIZZLE_BYTES[swz.bits]
        if inner_bytes != swizzle_bytes:
            raise state.error(
                f"{what}: with a {swizzle_bytes}-byte swizzle a pixel's channels must be "
                f"{swizzle_bytes} bytes, got {channels} x {elem_bytes} = {inner_bytes}"
            )
    extents = [scalars.as_value(symbols.materialize(x), index) for x in shape]
    steps = [scalars.as_value(symbols.materialize(x), index) for x in stride]
    ptr = gmem_tensor.iterator.value
    desc = state.emit(
        T.TmaIm2colDescriptorOp(
            ptr,
            extents,
            steps,
            channels,
            pixels,
            list(reversed(lower)),
            list(reversed(upper)),
            swizzle_bytes,
            traversal=list(reversed(walk)),
        )
    )
    return Im2colTmaCopy(
        op, gmem_tensor, smem_layout, channels, pixels, lower, upper, swizzle_bytes,
        desc.results[0], multicast, walk, dil,
    )  # fmt: skip


def tma_copy_im2col(
    tma: Im2colTmaCopy, src: Any, dst: Any, mbar: Any, offsets: Any, mcast_mask: Any = None
) -> None:
    """One im2col load (``lc.tma_copy(tma, src, dst, mbar=, offsets=)``): ``src`` the first
    pixel's coordinates in the tensor's mode order (``(n, d, h, w, c)``), ``offsets`` the
    filter tap in spatial mode order (``(t, r, s)``; the copy's dilation scales it); ``dst``
    the smem matrix; completes
    ``mbar``'s transaction bytes (with ``mcast_mask``, in every block of the mask)."""
    what = "lc.tma_copy"
    mask = None
    if mcast_mask is not None:
        if tma.op != "SM90_TMA_LOAD_IM2COL_MULTICAST":
            raise state.error(f"{what}: mcast_mask needs an SM90_TMA_LOAD_IM2COL_MULTICAST copy")
        mask = scalars.as_value(mcast_mask, IntegerType(16))
    if mbar is None:
        raise state.error(f"{what}: a TMA load completes an mbarrier: pass mbar=")
    if not isinstance(src, tuple) or len(src) != tma.rank:
        raise state.error(
            f"{what}: an im2col load starts at a pixel: a tuple of the tensor's {tma.rank} "
            f"coordinates (N, spatial..., C), got {src!r}"
        )
    if not isinstance(offsets, tuple) or len(offsets) != tma.rank - 2:
        raise state.error(
            f"{what}: an im2col load takes offsets=, one per spatial dimension "
            f"({tma.rank - 2}: the filter tap), got {offsets!r}"
        )
    if any(d != 1 for d in tma.dilation):  # a filter tap times the dilation (CuTe's stride_srt)
        offsets = tuple(x * d if d != 1 else x for x, d in zip(offsets, tma.dilation))
    for x in offsets:
        if isinstance(x, int) and not -(1 << 15) <= x < 1 << 15:
            raise state.error(
                f"{what}: im2col offsets (filter tap x dilation) are 16-bit; got {x} in {offsets}"
            )
    ptr = _smem_pointer(dst, what)
    coords = [scalars.as_value(x, i32) for x in reversed(src)]
    offs = [scalars.as_value(x, IntegerType(16)) for x in reversed(offsets)]
    bar = barrier_pointer(mbar, what)
    cluster = state.emit(AddrSpaceCastOp(ptr, LLVMPointerType(7))).results[0]
    state.emit(
        N.CpAsyncBulkTensorGlobalToSharedClusterOp(
            cluster, tma.desc, coords, bar, mask, im2col_offsets=offs, mode="im2col"
        )
    )
