"""Thread and block indices, block and grid sizes, barriers: ``lc.thread_idx.x`` and friends.

Indices are dynamic (``gpu.thread_id``/``gpu.block_id``, non-negative). The block shape is part
of the compile spec, so ``lc.block_dim.x`` is a plain Python int when the kernel was specialised
on a block (and ``lc.thread_idx.y`` is the static 0 when the block's y extent is 1); the grid is
not in the spec, so ``lc.grid_dim`` is always dynamic.
"""

from __future__ import annotations

from typing import Any

from ..ir.dialects import gpu
from . import state
from .scalars import Int

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
