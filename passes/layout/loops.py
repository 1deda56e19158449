"""Loop nests for lowered algorithms: ``scf.for`` where the trip count is large or dynamic, full
unrolling where it is static and small or where register fragments are indexed (a register
array may only be indexed with constants, so every dimension that moves through one must be
unrolled).

A nest is a list of :class:`Dim` (innermost first, CuTe's colexicographic order); the body
callback receives one coordinate per dimension: an ``int`` for unrolled dimensions, the
``SymInt`` of the induction variable (through the analysis, with the loop's bounds as facts)
otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.location import Location
from layoutc.ir.dialects import scf

from ..analysis.emitter import IndexEmitter
from ..analysis.symbolic import SymbolicAnalysis

__all__ = ["DEFAULT_UNROLL_LIMIT", "Dim", "LoweringError", "build_nest", "choose_unrolling"]

DEFAULT_UNROLL_LIMIT = 256
"""Most loop-body instances a nest is unrolled into (when nothing forces unrolling)."""

MAX_FORCED_UNROLL = 1 << 15
"""Most body instances a nest indexing register fragments may need (every element of a register
fragment is its own instruction). A thread has at most 255 32-bit registers; CuTe's largest
per-thread fragments hold a few hundred elements. Past this bound the lowering would build
millions of ops for minutes (a 1024x1024 register accumulator): a diagnostic instead."""


class LoweringError(Exception):
    """An algorithm this lowering does not support (the message says what and why)."""


@dataclass
class Dim:
    """One loop dimension: its extent and whether it is unrolled; ``must_unroll`` marks
    dimensions that index register fragments; ``name`` is used in messages."""

    extent: Any
    unroll: bool = False
    must_unroll: bool = False
    name: str = ""


def choose_unrolling(dims: Sequence[Dim], limit: int = DEFAULT_UNROLL_LIMIT) -> None:
    """Decide ``unroll`` for each dimension (innermost first, in place).

    Dimensions that must be unrolled are, and must be static; the others are unrolled from the
    innermost outwards while static and while the total number of body instances stays within
    ``limit``.
    """
    budget = 1
    for d in dims:
        if d.must_unroll:
            if type(d.extent) is not int:
                raise LoweringError(
                    f"not supported: the {d.name or 'loop'} dimension indexes a register fragment "
                    f"but its extent {d.extent} is not static (register arrays are indexed with "
                    "constants only)"
                )
            d.unroll = True
            budget *= max(d.extent, 1)
            if budget > MAX_FORCED_UNROLL:
                shape = " x ".join(str(x.extent) for x in dims if x.must_unroll)
                raise LoweringError(
                    f"not supported: register fragments of {shape} elements would unroll into "
                    f"more than {MAX_FORCED_UNROLL} instructions (each element of a register "
                    "fragment is its own instruction, and a thread has 255 registers); "
                    "partition the work over threads or keep the data in shared memory"
                )
    for d in dims:
        if d.must_unroll:
            continue
        if type(d.extent) is int and budget * max(d.extent, 1) <= limit:
            d.unroll = True
            budget *= max(d.extent, 1)
        else:
            break
    # Outer dimensions beyond the first loop stay loops (a loop inside unrolled copies of an
    # outer dimension would duplicate the loop).
    seen_loop = False
    for d in dims:
        if not d.unroll:
            seen_loop = True
        elif seen_loop and not d.must_unroll:
            d.unroll = False


Body = Callable[[Builder, list[Any]], None]


def build_nest(
    analysis: SymbolicAnalysis,
    builder: Builder,
    emitter: IndexEmitter,
    dims: Sequence[Dim],
    body: Body,
    loc: Location,
) -> None:
    """Build the nest at ``builder``'s insertion point and call ``body`` for each instance."""
    point: list[Any] = [0] * len(dims)

    # ``inner`` is the function itself, passed in: a closure that named itself would be a
    # reference cycle keeping the builder, the emitter, the analysis and the body's lowering
    # alive until the next collection
    def level(k: int, inner: Callable[[int, Any], None]) -> None:
        if k < 0:
            body(builder, list(point))
            return
        d = dims[k]
        if d.unroll:
            for v in range(d.extent):
                point[k] = v
                inner(k - 1, inner)
            return
        if type(d.extent) is int and d.extent <= 0:
            return
        lb = emitter.emit(0, loc)
        ub = emitter.emit(d.extent, loc)
        step = emitter.emit(1, loc)
        loop = scf.ForOp(lb, ub, step, loc=loc)
        builder.insert(loop)
        point[k] = analysis.sym_of(loop.induction_var)
        saved = builder.insertion_point
        builder.insertion_point = InsertionPoint.before_op(loop.body_block.last_op)
        try:
            inner(k - 1, inner)
        finally:
            builder.insertion_point = saved

    level(len(dims) - 1, level)
