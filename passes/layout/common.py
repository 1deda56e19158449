"""Pieces the layout passes share: finding ops, reading copies, reporting analysis failures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from layoutc.ir.core.operation import Operation
from layoutc.ir.dialects.tile import ALGORITHM_OPS, COPY_OPS, FILL_OPS, CopyIfOp

from ..analysis.symbolic import AnalysisError, SymbolicAnalysis, TensorInfo

if TYPE_CHECKING:
    from ..base import Pass

__all__ = ["ALGORITHM_OPS", "COPY_OPS", "FILL_OPS", "CopyOperands", "copy_word", "ops_of_type"]


def ops_of_type(
    root: Operation, types: type[Operation] | tuple[type[Operation], ...]
) -> Iterator[Operation]:
    """Every op nested in ``root`` that is an instance of ``types`` (pre-order, a snapshot)."""
    return iter([op for op in root.walk_ops() if isinstance(op, types)])


def report(p: Pass, e: AnalysisError, op: Operation | None = None) -> None:
    """An analysis failure as an error diagnostic (at the failing value, else at ``op``)."""
    loc = e.location
    from layoutc.ir.core.location import UnknownLoc

    if isinstance(loc, UnknownLoc) and op is not None:
        loc = op.location
    p.emit_error(loc, e.message)
    p.signal_failure()


class CopyOperands:
    """The tensors of a ``tile.copy``/``tile.copy_if`` as the analysis sees them."""

    __slots__ = ("bounds", "dst", "pred", "src")

    def __init__(self, analysis: SymbolicAnalysis, op: Operation):
        self.src: TensorInfo = analysis.tensor_of(op.src)  # type: ignore[attr-defined]
        self.dst: TensorInfo = analysis.tensor_of(op.dst)  # type: ignore[attr-defined]
        self.pred: TensorInfo | None = None
        self.bounds: Any = None
        if isinstance(op, CopyIfOp):
            self.pred = analysis.tensor_of(op.pred)  # type: ignore[attr-defined]
            b = op.bounds  # type: ignore[attr-defined]
            self.bounds = analysis.value_of(b) if b is not None else None


def copy_word(op: Operation) -> str:
    """How remarks name the op: ``copy``, ``copy_if``, ``fill`` or ``clear``."""
    return op.name.split(".", 1)[1]
