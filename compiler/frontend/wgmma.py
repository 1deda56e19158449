"""Hopper warpgroup MMA in the DSL: CuTe's ``warpgroup_arrive``/``warpgroup_commit_batch``/
``warpgroup_wait`` and the canonical GMMA shared-memory layout atoms.

The MMA itself is ``lc.gemm(tiled_mma, tCsA, tCsB, tCrC)`` with a tiled MMA of a warpgroup
atom (``lc.make_tiled_mma("SM90_64x128x16_F32BF16BF16_SS")``), A and B partitions of
shared-memory tensors whose layouts the compiler proves canonical (docs/hopper.md).
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import LayoutError
from ..ir.dialects import nvvm as _nvvm  # noqa: F401 (registers the wgmma ops first)
from ..ir.dialects import nvvm_wgmma as W
from ..ir.dialects.tile import gmma
from . import state
from .dtypes import ElementType


def warpgroup_arrive() -> None:
    """``wgmma.fence.sync.aligned``: orders the warpgroup's earlier register and shared-memory
    writes before the next ``wgmma.mma_async`` (CuTe's ``warpgroup_arrive``)."""
    state.emit(W.WgmmaFenceAlignedOp())


def warpgroup_commit_batch() -> None:
    """``wgmma.commit_group.sync.aligned``: the wgmmas issued since the last commit form one
    group (CuTe's ``warpgroup_commit_batch``)."""
    state.emit(W.WgmmaGroupSyncAlignedOp())


def warpgroup_wait(pending: int = 0) -> None:
    """``wgmma.wait_group.sync.aligned N``: wait until at most ``pending`` groups are in flight;
    the accumulators of the retired groups are then valid (CuTe's ``warpgroup_wait<N>``)."""
    if not isinstance(pending, int) or isinstance(pending, bool) or not 0 <= pending <= 7:
        raise state.error(f"lc.warpgroup_wait needs a static int in [0, 7], got {pending!r}")
    state.emit(W.WgmmaWaitGroupSyncOp(pending))


def warpgroup_fence_operand(fragment: Any) -> None:
    """CuTe's ``warpgroup_fence_operand(accum)``: a register fence on every value of a register
    fragment, so that the compiler neither reads the accumulators before the
    ``warpgroup_wait`` that makes them valid nor moves their last writes past the
    ``warpgroup_arrive`` of the next wgmma."""
    from ..ir.algebra import size
    from ..ir.dialects import tile as T
    from ..ir.dialects.tile.ops_wgmma import FenceOperandOp
    from .tensor import Tensor

    if not isinstance(fragment, Tensor) or fragment.type.space != "rmem":
        raise state.error(
            f"lc.warpgroup_fence_operand expects a register fragment, got {fragment!r}"
        )
    n = size(fragment.type.layout())
    if type(n) is not int:
        raise state.error("lc.warpgroup_fence_operand needs a fragment of static size")
    values = [state.emit(T.LoadOp(fragment.value, i)).results[0] for i in range(n)]
    fenced = state.emit(FenceOperandOp(values)).results
    for i, v in enumerate(fenced):
        state.emit(T.StoreOp(v, fragment.value, i))


def gmma_layout_atom(major: str, swizzle: str, dtype: ElementType) -> Any:
    """CuTe's ``GMMA::Layout_{major}_{swizzle}_Atom<T>``: ``lc.gmma_layout_atom("K", "SW128",
    lc.bf16)`` is ``Sw<3,3,3> o (8,64):(64,1)``; ``lc.tile_to_shape`` repeats it to a tile."""
    if not isinstance(dtype, ElementType):
        raise state.error(f"gmma_layout_atom: expected an element type, got {dtype!r}")
    try:
        return gmma.layout_atom(major, swizzle, dtype.bits)
    except LayoutError as e:
        raise state.error(str(e)) from None
