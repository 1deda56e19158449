"""The state one algorithm lowering works with: the analysis, a builder and an index emitter
positioned at the op, the unrolling budget, and helpers to turn symbolic coordinates into the
operands of ``tile.load``/``tile.store``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from layoutc.ir.algebra.symbolic import SymInt
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.location import Location
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.values import Value

from ..analysis.emitter import IndexEmitter
from ..analysis.symbolic import SymbolicAnalysis
from .loops import DEFAULT_UNROLL_LIMIT, Dim, build_nest, choose_unrolling

__all__ = ["Lowering"]


class Lowering:
    """Builds the replacement of one algorithm op, just before it."""

    def __init__(
        self,
        analysis: SymbolicAnalysis,
        builder: Builder,
        emitter: IndexEmitter,
        op: Operation,
        unroll_limit: int = DEFAULT_UNROLL_LIMIT,
    ):
        self.analysis = analysis
        self.builder = builder
        self.emitter = emitter
        self.op = op
        self.loc: Location = op.location
        self.unroll_limit = unroll_limit
        builder.insertion_point = InsertionPoint.before_op(op)
        builder.loc = op.location
        emitter.loc = op.location

    def coordinate(self, coord: Any) -> Any:
        """A coordinate with SymInt entries replaced by emitted ``index`` values."""
        if isinstance(coord, tuple):
            return tuple(self.coordinate(c) for c in coord)
        if isinstance(coord, SymInt):
            return self.emitter.emit(coord)
        if type(coord) is int:
            if coord < 0:
                raise ValueError(f"negative coordinate {coord}")
            return coord
        if isinstance(coord, Value):
            return coord
        raise TypeError(f"unexpected coordinate entry {coord!r}")

    def nest(self, dims: Sequence[Dim], body: Any) -> None:
        """Choose unrolling and build the loop nest with ``body(builder, point)``."""
        choose_unrolling(dims, self.unroll_limit)
        build_nest(self.analysis, self.builder, self.emitter, dims, body, self.loc)

    def create(self, cls: Any, *args: Any, **kwargs: Any) -> Operation:
        kwargs.setdefault("loc", self.loc)
        return self.builder.create(cls, *args, **kwargs)
