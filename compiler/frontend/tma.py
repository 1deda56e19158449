"""TMA in the DSL: ``lc.make_tma_copy`` (CuTe's ``make_tma_copy``, the CuTe DSL's
``make_tiled_tma_atom``) and ``lc.tma_copy``.

``make_tma_copy(op, gmem_tensor, smem_layout, cta_tiler=None, multicast=1)`` derives, as CuTe
does, what the hardware's tensor map needs from the layouts:

- the TMA dimensions: the tensor's modes with its stride-1 mode first (TMA's dimension 0 is
  the contiguous one), then the others in mode order;
- the box: ``cta_tiler`` (default: the smem layout's shape) in that order;
- the swizzle: the smem layout's ``Swizzle<B,M,S>`` taken to bytes (``M + log2(element
  bytes)`` must be 4, ``S`` 3): ``B`` = 1, 2, 3 is the 32, 64, 128-byte swizzle;
- and it proves the smem layout is the box written by TMA: the (unswizzled) layout must be the
  compact layout of the box in TMA dimension order (``coalesce`` equal), the box's inner
  extent in bytes a multiple of 16 and, swizzled, exactly the swizzle span.

It refuses, with the rule and the value, what breaks TMA's rules when the spec decides it:
base alignment below 16 bytes, a byte stride not a multiple of 16, a box extent over 256, a
tensor without a unit-stride mode. ``tma.get_tma_tensor()`` is the coordinate tensor (CuTe's
``ArithTuple`` tensor with basis strides ``E<i>``) that ``local_tile`` partitions; its tiles'
first coordinates are the boxes' origins.
"""

from __future__ import annotations

import re
from typing import Any

from ..ir.algebra import Layout, coalesce, make_layout
from ..ir.algebra.composed import ComposedLayout
from ..ir.algebra.swizzle import Swizzle
from ..ir.core.types import IntegerType, i32, index
from ..ir.dialects import nvvm_sm90 as N
from ..ir.dialects import tile as T
from ..ir.dialects.llvm import AddrSpaceCastOp, LLVMPointerType
from . import scalars, state, symbols
from .hopper import barrier_pointer
from .tensor import IntTuple, Pointer, Tensor

_COMPOSED = re.compile(r"^Sw<(\d+),(\d+),(\d+)> o (\?|\d+) o ")
OPS = ("SM90_TMA_LOAD", "SM90_TMA_LOAD_MULTICAST", "SM90_TMA_STORE")
_SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}


class TmaCopy:
    """A TMA copy of one kernel-argument tensor: box, dimensions, swizzle and descriptor."""

    def __init__(self, op, tensor, smem_layout, box, dims, swizzle_bytes, desc, multicast):
        self.op = op
        self.tensor = tensor
        self.smem_layout = smem_layout
        self.box = box  # TMA dimension order
        self.dims = dims  # tensor mode of each TMA dimension
        self.swizzle_bytes = swizzle_bytes
        self.desc = desc
        self.multicast = multicast
        elem_bytes = tensor.type.element_bits // 8
        n = 1
        for b in box:
            n *= b
        self.tx_bytes = n * elem_bytes
        """Bytes one box moves (what ``mbarrier_arrive_and_expect_tx`` expects)."""

    def get_tma_tensor(self) -> Tensor:
        """The coordinate tensor of the gmem tensor's shape (CuTe's TMA tensor)."""
        from .tensor import make_identity_tensor

        return make_identity_tensor(self.tensor.shape)

    def __repr__(self) -> str:
        return f"<TmaCopy {self.op} box={self.box} dims={self.dims} swizzle={self.swizzle_bytes}B>"


def _split_swizzle(layout: Any, what: str) -> tuple[Swizzle | None, Layout]:
    if isinstance(layout, ComposedLayout):
        if (
            not isinstance(layout.outer, Swizzle)
            or not isinstance(layout.inner, Layout)
            or layout.offset not in (0, None)
        ):
            raise state.error(f"{what}: the smem layout must be Swizzle o Layout, got {layout}")
        return layout.outer, layout.inner
    if isinstance(layout, Layout):
        return None, layout
    raise state.error(f"{what}: the smem layout must be a static layout, got {layout!r}")


def make_tma_copy(
    op: str, gmem_tensor: Any, smem_layout: Any, cta_tiler: Any = None, multicast: int = 1
) -> TmaCopy:
    """CuTe's ``make_tma_copy`` for a kernel-argument tensor (see the module docstring)."""
    what = "lc.make_tma_copy"
    if op not in OPS:
        raise state.error(f"{what}: the op must be one of {', '.join(OPS)}, got {op!r}")
    if not isinstance(gmem_tensor, Tensor) or gmem_tensor.memspace != "gmem":
        raise state.error(f"{what}: expects a global-memory tensor, got {gmem_tensor!r}")
    if multicast != 1 and op != "SM90_TMA_LOAD_MULTICAST":
        raise state.error(f"{what}: multicast={multicast} needs SM90_TMA_LOAD_MULTICAST")
    if not isinstance(multicast, int) or not 1 <= multicast <= 16:
        raise state.error(f"{what}: multicast must be a block count in [1, 16], got {multicast}")
    t = gmem_tensor.type
    swz, inner = _split_swizzle(smem_layout, what)
    layout = gmem_tensor.layout  # symbols carry the spec's facts (divisibility)
    shape, stride = layout.shape, layout.stride
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    rank = len(shape)
    if any(isinstance(s, tuple) for s in shape) or not 1 <= rank <= 5:
        raise state.error(f"{what}: TMA needs a tensor of rank 1 to 5 with flat modes, got {t}")
    elem_bytes = t.element_bits // 8
    if t.element_bits % 8:
        raise state.error(f"{what}: TMA moves whole bytes; {t.element} elements are not")
    # -- TMA dimension order: the unit-stride mode first --------------------------------
    unit = [m for m in range(rank) if stride[m] == 1]
    if not unit:
        raise state.error(
            f"{what}: TMA needs a unit-stride (contiguous) mode; the tensor's strides are "
            f'{stride} (annotate it, e.g. lc.Tensor[..., "(M,K):(K,1)"], or pass a '
            "contiguous array)"
        )
    dims = [unit[0]] + [m for m in range(rank) if m != unit[0]]
    # -- the TMA rules the spec decides ------------------------------------------------
    if t.alignment < 16:
        raise state.error(
            f"{what}: TMA needs a 16-byte aligned global address; the tensor's base is only "
            f"known to be {t.alignment}-byte aligned"
        )
    for m in dims[1:]:
        s = stride[m]
        if isinstance(s, int):
            if (s * elem_bytes) % 16:
                raise state.error(
                    f"{what}: TMA needs byte strides that are multiples of 16; mode {m} has "
                    f"stride {s} elements = {s * elem_bytes} bytes"
                )
        else:
            from ..ir.algebra.intops import divides

            if not divides(16, s * elem_bytes):
                raise state.error(
                    f"{what}: TMA needs byte strides that are multiples of 16; mode {m}'s "
                    f"stride {s} x {elem_bytes} bytes is not known to be (arrays whose row "
                    "pitch is a multiple of 16 bytes are specialised so)"
                )
    # -- the box ------------------------------------------------------------------------
    tiler = cta_tiler if cta_tiler is not None else inner.shape
    if not isinstance(tiler, tuple):
        tiler = (tiler,)
    if len(tiler) != rank or not all(isinstance(x, int) and x > 0 for x in tiler):
        raise state.error(
            f"{what}: cta_tiler must give a static extent for each of the tensor's {rank} "
            f"modes, got {cta_tiler!r}"
        )
    box = [tiler[m] for m in dims]
    for k, b in enumerate(box):
        if b > 256:
            raise state.error(
                f"{what}: a TMA box extent is at most 256; dimension {k} (mode {dims[k]}) asks {b}"
            )
    inner_bytes = box[0] * elem_bytes
    if inner_bytes % 16:
        raise state.error(
            f"{what}: the box's inner extent must be a multiple of 16 bytes; {box[0]} x "
            f"{elem_bytes} bytes = {inner_bytes}"
        )
    # -- swizzle ------------------------------------------------------------------------
    swizzle_bytes = 0
    if swz is not None:
        log_e = elem_bytes.bit_length() - 1
        if swz.bits == 0:
            swizzle_bytes = 0
        elif swz.base + log_e != 4 or swz.shift != 3 or swz.bits not in (1, 2, 3):
            raise state.error(
                f"{what}: TMA swizzles 16-byte units (Swizzle<B,4,3> in bytes); the smem "
                f"layout's Swizzle<{swz.bits},{swz.base},{swz.shift}> on {elem_bytes}-byte "
                f"elements is Swizzle<{swz.bits},{swz.base + log_e},{swz.shift}> in bytes"
            )
        else:
            swizzle_bytes = _SWIZZLE_BYTES[swz.bits]
            if inner_bytes != swizzle_bytes:
                raise state.error(
                    f"{what}: with a {swizzle_bytes}-byte swizzle the box's inner extent must "
                    f"be {swizzle_bytes} bytes, got {box[0]} x {elem_bytes} = {inner_bytes}"
                )
    # -- the smem layout is the box, dense in TMA order --------------------------------
    strides = [0] * rank
    acc = 1
    for k, m in enumerate(dims):
        strides[m] = acc
        acc *= box[k]
    want = make_layout(tuple(tiler), tuple(strides))
    if coalesce(inner) != coalesce(want):
        raise state.error(
            f"{what}: the smem layout {inner} is not the box TMA writes: the box {tuple(tiler)} "
            f"is stored densely with the tensor's contiguous mode first, i.e. {want}"
        )
    extents = [scalars.as_value(symbols.materialize(x), index) for x in shape]
    steps = [scalars.as_value(symbols.materialize(x), index) for x in stride]
    ptr = gmem_tensor.iterator.value
    desc = state.emit(T.TmaDescriptorOp(ptr, extents, steps, box, dims, swizzle_bytes))
    return TmaCopy(
        op, gmem_tensor, smem_layout, box, dims, swizzle_bytes, desc.results[0], multicast
    )


def _box_origin(coords: Any, tma: TmaCopy, what: str) -> list[Any]:
    """The TMA coordinates (innermost first, i32) of a coordinate tile's first element."""
    if not isinstance(coords, Tensor) or not coords.type.is_coord:
        raise state.error(
            f"{what}: the global side is a tile of tma.get_tma_tensor() (a coordinate tensor), "
            f"got {coords!r}"
        )
    first = coords[0]
    rank = len(tma.dims)
    if isinstance(first, IntTuple):
        entries = [first[i] for i in range(rank)]
    else:
        entries = [first]
    return [scalars.as_value(entries[m], i32) for m in tma.dims]


def _smem_pointer(t: Any, what: str) -> Any:
    from ..ir.dialects.builtin import UnrealizedConversionCastOp
    from ..ir.dialects.llvm.types import LLVMPointerType

    if not isinstance(t, Tensor) or t.memspace != "smem":
        raise state.error(f"{what}: the shared-memory side must be an smem tensor, got {t!r}")
    if t.alignment < 128:
        raise state.error(
            f"{what}: TMA needs a 128-byte aligned shared-memory buffer (lc.smem_tensor(..., "
            f"align=128); 1024 for a 128-byte swizzle); this one is {t.alignment}-byte aligned"
        )
    p: Pointer = t.iterator
    m = _COMPOSED.match(t.type.layout_text)
    if m is not None:
        # CuTe: a view of a Swizzle o offset o Layout tensor keeps the base pointer and folds
        # the view's offset into the layout; TMA needs the address of the view's element 0.
        bits, base, shift, off = m.groups()
        if off == "?":
            raise state.error(
                f"{what}: the shared-memory side is a view of a swizzled tensor at a dynamic "
                f"offset ({t.type.layout_text}), whose address CuTe keeps as the base pointer; "
                "make the stage's tensor explicitly: lc.make_tensor(buf.iterator + "
                "stage * stage_size, smem_layout)"
            )
        off = int(off)
        if off:
            sw = Swizzle(int(bits), int(base), int(shift))
            p = p + sw(off)
    return state.emit(UnrealizedConversionCastOp([p.value], [LLVMPointerType(3)])).results[0]


def tma_copy(
    tma: TmaCopy,
    src: Any,
    dst: Any,
    mbar: Any = None,
    mcast_mask: Any = None,
    offsets: Any = None,
) -> None:
    """One TMA box: a load (``src`` a coordinate tile, ``dst`` smem, completing ``mbar``'s
    transaction bytes; with ``mcast_mask`` into every block of the mask) or a store (``src``
    smem, ``dst`` a coordinate tile; commit with ``lc.tma_store_arrive()``). With
    ``lc.make_im2col_tma_copy``'s copy, an im2col load: ``src`` the first pixel's coordinates
    and ``offsets`` the filter tap (compiler/frontend/tma_im2col.py)."""
    what = "lc.tma_copy"
    from .tma_im2col import Im2colTmaCopy, tma_copy_im2col

    if isinstance(tma, Im2colTmaCopy):
        tma_copy_im2col(tma, src, dst, mbar, offsets, mcast_mask)
        return
    if offsets is not None:
        raise state.error(f"{what}: offsets= is for im2col loads (lc.make_im2col_tma_copy)")
    if not isinstance(tma, TmaCopy):
        raise state.error(f"{what}: the first argument is lc.make_tma_copy's result, got {tma!r}")
    if tma.op == "SM90_TMA_STORE":
        if mbar is not None or mcast_mask is not None:
            raise state.error(f"{what}: a TMA store takes no mbarrier or multicast mask")
        ptr = _smem_pointer(src, what)
        coords = _box_origin(dst, tma, what)
        state.emit(N.CpAsyncBulkTensorSharedCTAToGlobalOp(tma.desc, ptr, coords))
        return
    if mbar is None:
        raise state.error(f"{what}: a TMA load completes an mbarrier: pass mbar=")
    ptr = _smem_pointer(dst, what)
    coords = _box_origin(src, tma, what)
    bar = barrier_pointer(mbar, what)
    mask = None
    if mcast_mask is not None:
        if tma.op != "SM90_TMA_LOAD_MULTICAST":
            raise state.error(f"{what}: mcast_mask needs an SM90_TMA_LOAD_MULTICAST copy")
        mask = scalars.as_value(mcast_mask, IntegerType(16))
    # MLIR 22's TMA load writes shared::cluster memory (address space 7): the block's own
    # buffer is the same address there.
    cluster = state.emit(AddrSpaceCastOp(ptr, LLVMPointerType(7))).results[0]
    state.emit(N.CpAsyncBulkTensorGlobalToSharedClusterOp(cluster, tma.desc, coords, bar, mask))


def tma_store_arrive() -> None:
    """``cp.async.bulk.commit_group``: close the group of TMA stores issued so far."""
    state.emit(N.CpAsyncBulkCommitGroupOp())


def tma_store_wait(n: int = 0) -> None:
    """``cp.async.bulk.wait_group.read n``: until at most ``n`` store groups still read smem."""
    if not isinstance(n, int) or n < 0:
        raise state.error(f"lc.tma_store_wait: n must be a non-negative int, got {n!r}")
    state.emit(N.CpAsyncBulkWaitGroupOp(n, read=True))


def prefetch_tma_descriptor(tma: TmaCopy) -> None:
    """``prefetch.tensormap``: bring the descriptor into the cache early."""
    state.emit(N.PrefetchOp(tma.desc, tensormap=True))
