"""``lower-algorithms``: copy, copy_if, gemm, axpby, fill and clear become loops over element
accesses (``tile.load``/``store``, ``tile.load_vector``/``store_vector``, ``tile.cp_async``,
``tile.ldmatrix``, ``tile.mma``), fully unrolled when the iteration space is static and small
or touches register fragments, ``scf.for`` otherwise (:mod:`.loops`).

Accesses address the algorithm's own tensors with coordinates; lower-layouts then turns every
tensor access into pointer + offset arithmetic. Each lowering lives in its own module
(:mod:`.lower_copy`, :mod:`.lower_gemm`, :mod:`.lower_elementwise`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.dispatch import OpTable
from layoutc.ir.core.location import UnknownLoc
from layoutc.ir.dialects import scf
from layoutc.ir.dialects import tile as T

from ..analysis.emitter import IndexEmitter
from ..analysis.symbolic import AnalysisError, SymbolicAnalysis
from ..base import Option, Pass, Statistic
from ..registry import register_pass
from .common import ALGORITHM_OPS, ops_of_type
from .loops import DEFAULT_UNROLL_LIMIT, LoweringError
from .lower_copy import lower_copy
from .lower_elementwise import lower_axpby, lower_clear, lower_fill
from .lower_gemm import flush_known, lower_gemm
from .lowering import Lowering

__all__ = ["LowerAlgorithms"]

LOWERINGS: OpTable[Callable[[Lowering, Any], None]] = OpTable("lower-algorithms")
LOWERINGS.register(T.CopyOp, T.CopyIfOp)(lower_copy)
LOWERINGS.register(T.GemmOp)(lower_gemm)
LOWERINGS.register(T.AxpbyOp)(lower_axpby)
LOWERINGS.register(T.FillOp)(lower_fill)
LOWERINGS.register(T.ClearOp)(lower_clear)


@register_pass
class LowerAlgorithms(Pass):
    argument = "lower-algorithms"
    summary = "Lower tile algorithms to loops of element, vector, cp.async and MMA accesses"
    description = (
        "copy/copy_if (vectorized by their atom or proven vector_bits), gemm (five mode forms; "
        "FMA or MMA atoms on register fragments), axpby, fill and clear become scf.for loops or "
        "unrolled code over tile.load/store, tile.load_vector/store_vector, tile.cp_async, "
        "tile.ldmatrix and tile.mma."
    )

    unroll_limit = Option(
        int, DEFAULT_UNROLL_LIMIT, "Most loop-body instances to unroll a static nest into"
    )

    forward_fragments = Option(
        bool,
        True,
        "Build no load of a register-fragment element that an unrolled MMA gemm before it in "
        "the block wrote, nor that gemm's store the next one overwrites (what fragment-scalrep "
        "would remove)",
    )

    num_lowered = Statistic("Algorithm ops lowered")
    num_loops = Statistic("scf.for loops created")

    def run_on_operation(self, op: Any) -> None:
        analysis = self.get_analysis(SymbolicAnalysis)
        builder = Builder()
        emitter = IndexEmitter(builder)
        addresses: dict[Any, Any] = {}  # register-fragment element addresses (lowering.py)
        # register-fragment element values (lower_gemm.py), None: every access is built
        known: dict[Any, Any] | None = {} if self.forward_fragments else None
        for alg in ops_of_type(op, ALGORITHM_OPS):
            low = Lowering(analysis, builder, emitter, alg, self.unroll_limit, addresses, known)
            start = alg.prev_op
            try:
                LOWERINGS.lookup(alg)(low, alg)  # type: ignore[misc]
            except (AnalysisError, LoweringError, LayoutError) as e:
                if known is not None:
                    flush_known(known)  # the stores the gemms before it left to build
                _discard_since(start, alg)
                emitter = IndexEmitter(builder)  # its memo may name erased values
                addresses = {}  # so may this one (a fragment's pointer)
                known = {} if known is not None else None  # and this one
                message = e.message if isinstance(e, AnalysisError) else str(e)
                loc = e.location if isinstance(e, AnalysisError) else alg.location
                if isinstance(loc, UnknownLoc):
                    loc = alg.location
                self.emit_error(loc, f"'{alg.name}' cannot be lowered: {message}")
                self.signal_failure()
                continue
            self.num_loops += _count_loops_before(start, alg)
            alg.erase()
            self.num_lowered += 1
        if known is not None:
            flush_known(known)
        # new ops before each algorithm op, which had no results: existing values keep their
        # meaning, and lower-layouts reuses what was computed about them
        self.mark_analyses_preserved(SymbolicAnalysis)


def _count_loops_before(start: Any, alg: Any) -> int:
    """scf.for ops created between ``start`` (exclusive) and ``alg``."""
    n = 0
    cur = start.next_op if start is not None else alg.parent.first_op
    while cur is not None and cur is not alg:
        if cur.regions:  # a loop has a region: the ops without are not walked (most of them)
            n += sum(1 for o in cur.walk_ops() if isinstance(o, scf.ForOp))
        cur = cur.next_op
    return n


def _discard_since(start: Any, alg: Any) -> None:
    """Erase what a failed lowering built before ``alg`` (after ``start``)."""
    ops = []
    cur = start.next_op if start is not None else alg.parent.first_op
    while cur is not None and cur is not alg:
        ops.append(cur)
        cur = cur.next_op
    for o in reversed(ops):
        o.drop_all_references()
    for o in reversed(ops):
        o.erase(check_uses=False)
