"""Thread and block indices, block and grid sizes, barriers and warp shuffles:
``lc.thread_idx.x`` and friends.

Indices are dynamic (``gpu.thread_id``/``gpu.block_id``, non-negative). The block shape is part
of the compile spec, so ``lc.block_dim.x`` is a plain Python int when the kernel was specialised
on a block (and ``lc.thread_idx.y`` is the static 0 when the block's y extent is 1); the grid is
not in the spec, so ``lc.grid_dim`` is always dynamic.
"""

from __future__ import annotations

from typing import Any

from ..ir.core.types import FloatType, IndexType, IntegerType, f32, i1, i32, i64
from ..ir.dialects import gpu
from . import scalars, state
from .scalars import Bool, Float, Int

_DIMS = ("x", "y", "z")


class _Dim3:
    """``.x``, ``.y``, ``.z`` of one gpu quantity; also unpacks as ``x, y, z = lc.thread_idx``."""

    __slots__ = ("_kind",)

    def __init__(self, kind: str):
        self._kind = kind

    def _get(self, dim: str) -> Any:
        st = state.current()
        i = _DIMS.index(dim)
        block = st.block_size
        if self._kind == "block_dim" and block is not None:
            return block[i]
        if self._kind == "thread_idx" and block is not None and block[i] == 1:
            return 0
        op = {
            "thread_idx": gpu.ThreadIdOp,
            "block_idx": gpu.BlockIdOp,
            "block_dim": gpu.BlockDimOp,
            "grid_dim": gpu.GridDimOp,
        }[self._kind]
        return Int(state.emit(op(dim)).results[0], nonneg=True)

    @property
    def x(self) -> Any:
        return self._get("x")

    @property
    def y(self) -> Any:
        return self._get("y")

    @property
    def z(self) -> Any:
        return self._get("z")

    def __iter__(self):
        return iter((self.x, self.y, self.z))

    def __repr__(self) -> str:
        return f"lc.{self._kind}"


thread_idx = _Dim3("thread_idx")
block_idx = _Dim3("block_idx")
block_dim = _Dim3("block_dim")
grid_dim = _Dim3("grid_dim")


def lane_idx() -> Int:
    """The thread's lane in its warp (0..31)."""
    return Int(state.emit(gpu.LaneIdOp()).results[0], nonneg=True)


def syncthreads() -> None:
    """``__syncthreads()``: a barrier for every thread of the block (``gpu.barrier``)."""
    state.emit(gpu.BarrierOp())


# -------------------------------------------------------------------------------------------
# warp shuffles
# -------------------------------------------------------------------------------------------

_SHUFFLE_TYPES = (i32, i64, f32)
WARP = 32


def _shuffle(mode: str, value: Any, lane: Any, width: Any) -> Any:
    """CUDA's ``__shfl_*_sync`` over all 32 lanes: ``value`` as held by another lane (the
    lane's own value when the source is outside its ``width``-lane segment).

    ``gpu.shuffle`` (MLIR's) has no segments (its width is the number of participating
    lanes), so every shuffle is a full-warp one and a segment narrower than the warp is
    arithmetic on the lane index around it, exactly as CUDA defines it.
    """
    what = f"lc.shuffle_{mode}"
    w = _segment_width(width, what)
    if isinstance(value, (bool, int, float)):
        return value  # every lane holds the same value
    if not isinstance(value, (Int, Float, Bool)):
        raise state.error(f"{what} shuffles a number, got {scalars._describe(value)}")
    v = value.value
    t = v.type
    # the hardware moves 32-bit words (64-bit as two): other types travel widened
    if isinstance(t, IndexType) or t is i1 or (isinstance(t, IntegerType) and t.width < 32):
        carrier = i64 if isinstance(t, IndexType) else i32
    elif isinstance(t, FloatType) and t.width < 32:
        carrier = f32
    elif t in _SHUFFLE_TYPES or (isinstance(t, FloatType) and t.width == 64):
        carrier = t
    else:
        raise state.error(f"{what}: not supported for values of type {t.text}")
    amount = _lane_operand(lane, what, "lane" if mode == "idx" else "offset")
    me = lane_idx() if w < WARP else None
    if mode == "idx" and me is not None:
        amount = me - me % w + amount % w  # srcLane modulo width, within the segment
    op = state.emit(
        gpu.ShuffleOp(
            mode,
            scalars.cast_value(v, carrier),
            scalars.as_value(amount, i32),
            scalars.as_value(WARP, i32),
        )
    )
    moved = scalars.wrap(op.results[0])
    if me is not None and mode != "idx":
        own = scalars.wrap(scalars.cast_value(v, carrier))
        moved = scalars.select(_outside_segment(mode, me, amount, w), own, moved)
    result = scalars.cast_value(moved.value, t) if carrier is not t else moved.value
    return scalars.wrap(result, nonneg=isinstance(value, Int) and value.nonneg)


def _outside_segment(mode: str, me: Any, amount: Any, w: int) -> Any:
    """Whether the source lane of a ``w``-lane segment shuffle leaves the segment."""
    pos = me % w
    if mode == "down":
        return pos + amount >= w
    if mode == "up":
        return pos < amount
    return (me ^ amount) >= me - pos + w  # xor: a later segment (earlier ones are allowed)


def _segment_width(width: Any, what: str) -> int:
    if isinstance(width, bool) or not isinstance(width, int):
        raise state.error(
            f"{what}: not supported: the width must be a static int (a power of two up to 32), "
            f"got {width!r}"
        )
    if width < 1 or width > WARP or width & (width - 1):
        raise state.error(f"{what}: the width must be a power of two from 1 to 32, got {width}")
    return width


def _lane_operand(x: Any, what: str, name: str) -> Any:
    if isinstance(x, bool) or not isinstance(x, (int, Int)):
        raise state.error(f"{what}: the {name} must be an integer, got {x!r}")
    if isinstance(x, int) and not 0 <= x < WARP:
        raise state.error(f"{what}: the {name} must be in [0, 32), got {x}")
    return x


def shuffle_xor(value: Any, mask: Any, width: int = WARP) -> Any:
    """``__shfl_xor_sync``: the value of lane ``lane ^ mask`` (butterfly reductions)."""
    return _shuffle("xor", value, mask, width)


def shuffle_down(value: Any, delta: Any, width: int = WARP) -> Any:
    """``__shfl_down_sync``: the value of lane ``lane + delta`` (own value past the segment)."""
    return _shuffle("down", value, delta, width)


def shuffle_up(value: Any, delta: Any, width: int = WARP) -> Any:
    """``__shfl_up_sync``: the value of lane ``lane - delta`` (own value before the segment)."""
    return _shuffle("up", value, delta, width)


def shuffle_idx(value: Any, lane: Any, width: int = WARP) -> Any:
    """``__shfl_sync``: the value of lane ``lane`` of the segment (``lane % width``)."""
    return _shuffle("idx", value, lane, width)
