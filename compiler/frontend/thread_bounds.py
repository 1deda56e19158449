"""Refusing thread partitions that the block's extra threads would use past their tile.

A TV layout, a thread layout, a tiled copy or a tiled MMA partitions a tile among a fixed number
of threads. A thread whose index is past that count evaluates the layout outside its thread
mode: it reads or writes the next tile's elements (or past the array), silently. The block is
part of the spec, so the range of ``lc.thread_idx`` is known; when the index a partition is
given can reach the thread count, every memory access through that partition must sit under a
guard that narrows the index below it (``if tid < 64:``, or ``if tid >= 64: return``), else the
partition is a compile error at its own line, with a note at the unguarded access.

This is a proof on the traced IR, run once the kernel is complete (:func:`check_partitions`):

- the index's range comes from the passes' symbolic value analysis (``gpu.thread_id`` is in
  ``[0, block)`` under ``gpu.known_block_size``; ``%``, ``//``, sums and products keep bounds);
- the accesses are every op with a ``MemoryEffects`` read or write of the partition or of a
  view derived from it (pure ops with tensor or pointer results; values carried through
  ``scf.if``/``scf.for`` results and loop arguments); an op of unknown effects counts as one;
- the guards are the conditions of the ``scf.if`` regions around an access (then: true,
  else: false), split over ``and``/``or``/``not``; each ``arith.cmpi`` whose difference of
  operands is an affine function ``c*s + d`` of one symbol narrows that symbol's range, and one
  whose difference from the index is a constant bounds the index directly. The narrowed index
  must provably stay below the thread count.

Without a static block (the index's range is unknown) or when the analysis cannot describe the
index, nothing is refused: only a proof that the index can reach past the count is an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..ir.algebra import LayoutError
from ..ir.algebra.symbolic import Symbol, SymInt
from ..ir.core.location import Location
from ..ir.core.operation import Operation
from ..ir.core.traits import Pure
from ..ir.core.values import Value
from ..ir.dialects import arith, scf
from ..ir.dialects.tile import MemoryEffects, PtrType, TensorType
from . import state
from .errors import CompileError

__all__ = ["Partition", "check_partitions", "record_partition", "recorded"]

_EXTRAS_KEY = "thread_partitions"


@dataclass(frozen=True)
class Partition:
    """One partition by a thread index: the view it made and how many threads it serves."""

    view: Value
    index: Value | int
    threads: int
    what: str  # "lc.partition_tv: the thread-value layout (64,4):(4,1)"
    location: Location


def record_partition(view: Value, index: Any, threads: Any, what: str) -> None:
    """Note a partition made now (checked when the kernel is complete); needs a static block."""
    st = state.active()
    if st is None or st.block_size is None or type(threads) is not int:
        return
    from .scalars import Int

    if isinstance(index, bool) or not isinstance(index, (int, Int)):
        return
    idx: Value | int = index if isinstance(index, int) else index.value
    st.extras.setdefault(_EXTRAS_KEY, []).append(Partition(view, idx, threads, what, st.location()))


def recorded(st: Any) -> list[Partition]:
    """The partitions ``record_partition`` noted in the trace ``st``."""
    return st.extras.get(_EXTRAS_KEY, [])


def check_partitions(
    func: Operation, pending: list[Partition], block: tuple[int, int, int] | None
) -> None:
    """Raise a CompileError for the first partition an unguarded access uses past its count."""
    if not pending or block is None:
        return
    from ..passes.analysis.symbolic import AnalysisError, SymbolicAnalysis

    analysis = SymbolicAnalysis(func)
    for p in pending:
        try:
            index = p.index if type(p.index) is int else analysis.sym_of(p.index)
        except AnalysisError:
            continue
        if _below(index, p.threads):
            continue
        for access in _accesses(p.view):
            try:
                guards = _guards(access, analysis)
            except AnalysisError:
                guards = []
            if _below_under(index, p.threads, guards):
                continue
            hi = _bounds(index)[1]
            threads = block[0] * block[1] * block[2]
            shown = _GPU_NAMES.get(str(index), f"`{index}`")
            guard = (
                f"`if {shown.strip('`')} < {p.threads}:`"
                if str(index) in _GPU_NAMES
                else (f"a guard keeping it below {p.threads}")
            )
            raise CompileError(
                f"{p.what} partitions among {p.threads} threads, but its thread index {shown} "
                f"reaches {hi} in a block of {threads} threads: threads {p.threads} and up "
                f"would access elements outside their tile; put their accesses under {guard}, "
                f"or partition among {threads} threads",
                p.location,
                [("an access through the partition that no guard keeps below it", access.location)],
            )


_GPU_NAMES = {f"tid_{d}": f"lc.thread_idx.{d}" for d in "xyz"}


# -- ranges -------------------------------------------------------------------------------------


def _bounds(x: Any) -> tuple[int | None, int | None]:
    if type(x) is int:
        return x, x
    lo, hi = x.bounds
    return lo, hi


def _below(index: Any, threads: int) -> bool:
    """Provably ``index < threads`` (an unknown upper bound is no proof of the contrary)."""
    hi = _bounds(index)[1]
    return hi is None or hi < threads


def _below_under(index: Any, threads: int, guards: list[tuple[Any, str]]) -> bool:
    """``index < threads`` under the guards ``(difference, relation)``: each says
    ``difference REL 0`` with REL one of ``<=``, ``>=``, ``==``."""
    if type(index) is int:
        return index < threads
    upper: list[int] = []
    lower: dict[Symbol, int] = {}
    upper_of: dict[Symbol, int] = {}
    for diff, rel in guards:
        # a guard on the index itself: diff = index + k
        k = diff - index
        if type(k) is int and rel in ("<=", "=="):
            upper.append(-k)
        affine = _affine(diff)
        if affine is None:
            continue
        s, c, d = affine  # c*s + d REL 0
        bound_hi = rel in ("<=", "==") if c > 0 else rel in (">=", "==")
        bound_lo = rel in (">=", "==") if c > 0 else rel in ("<=", "==")
        if bound_hi:  # s <= floor(-d / c) for c > 0; s <= floor(d / -c) for c < 0
            v = (-d) // c if c > 0 else d // (-c)
            upper_of[s] = min(upper_of.get(s, v), v)
        if bound_lo:  # s >= ceil(-d / c)
            v = -((d) // c) if c > 0 else -((-d) // (-c))
            lower[s] = max(lower.get(s, v), v)
    narrowed = index
    if upper_of or lower:
        mapping: dict[Symbol, Any] = {}
        for s in set(upper_of) | set(lower):
            lo, hi = s.bounds
            if s in lower:
                lo = lower[s] if lo is None else max(lo, lower[s])
            if s in upper_of:
                hi = upper_of[s] if hi is None else min(hi, upper_of[s])
            if lo is not None and hi is not None and lo > hi:
                return True  # the guards contradict: the access never runs
            try:
                mapping[s] = Symbol.fresh(
                    s.name, divisible_by=s.divisible_by, lower=lo, upper=hi, positive=False
                )
            except LayoutError:
                return True  # no value of s satisfies the guard and the symbol's facts
        narrowed = index.subs(mapping)
    his = [h for h in [_bounds(narrowed)[1], *upper] if h is not None]
    return bool(his) and min(his) < threads


def _affine(x: Any) -> tuple[Symbol, int, int] | None:
    """``(s, c, d)`` when ``x == c*s + d`` for one symbol ``s`` and ints ``c != 0``, ``d``."""
    if not isinstance(x, SymInt):
        return None
    free = x.free_symbols
    if len(free) != 1:
        return None
    (s,) = free
    d = x.subs({s: 0})
    c = x.subs({s: 1}) - d if type(d) is int else None
    if type(c) is not int or c == 0 or not isinstance(s, Symbol):
        return None
    rest = x - c * s
    return (s, c, d) if type(rest) is int and rest == d else None


# -- guards -------------------------------------------------------------------------------------

_RELATIONS = {
    "slt": ("<=", -1),
    "ult": ("<=", -1),
    "sle": ("<=", 0),
    "ule": ("<=", 0),
    "sgt": (">=", 1),
    "ugt": (">=", 1),
    "sge": (">=", 0),
    "uge": (">=", 0),
    "eq": ("==", 0),
}
_NEGATED = {
    "slt": "sge",
    "ult": "uge",
    "sle": "sgt",
    "ule": "ugt",
    "sgt": "sle",
    "ugt": "ule",
    "sge": "slt",
    "uge": "ult",
    "eq": "ne",
    "ne": "eq",
}


def _guards(op: Operation, analysis: Any) -> list[tuple[Any, str]]:
    """The facts ``(difference, relation)`` that hold where ``op`` runs (its scf.if regions)."""
    out: list[tuple[Any, str]] = []
    child: Operation = op
    parent = op.parent_op
    while parent is not None:
        if isinstance(parent, scf.IfOp):
            region = child.parent_region
            truth = region is parent.thenRegion
            out.extend(_facts(parent.condition, truth, analysis))
        child, parent = parent, parent.parent_op
    return out


def _facts(cond: Value, truth: bool, analysis: Any) -> Iterator[tuple[Any, str]]:
    op = cond.defining_op
    if (isinstance(op, arith.AndIOp) and truth) or (isinstance(op, arith.OrIOp) and not truth):
        yield from _facts(op.lhs, truth, analysis)
        yield from _facts(op.rhs, truth, analysis)
    elif isinstance(op, arith.XOrIOp):
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if _is_true(b):
                yield from _facts(a, not truth, analysis)
    elif isinstance(op, arith.CmpIOp):
        name = op.predicate_enum.name
        if not truth:
            name = _NEGATED[name]
        if name not in _RELATIONS:
            return
        lhs, rhs = analysis.sym_of(op.lhs), analysis.sym_of(op.rhs)
        if name.startswith("u") and not (_nonnegative(lhs) and _nonnegative(rhs)):
            return  # unsigned order is the signed one only for non-negative operands
        rel, shift = _RELATIONS[name]  # lhs PRED rhs  <=>  lhs - rhs - shift REL 0
        yield lhs - rhs - shift, rel


def _nonnegative(x: Any) -> bool:
    lo = _bounds(x)[0]
    return lo is not None and lo >= 0


def _is_true(v: Value) -> bool:
    op = v.defining_op
    if not isinstance(op, arith.ConstantOp):
        return False
    value = getattr(op.value, "value", None)
    return value in (1, -1, True)


# -- accesses -----------------------------------------------------------------------------------


def _accesses(view: Value) -> Iterator[Operation]:
    """The ops that read or write memory through ``view`` or a view derived from it."""
    seen: set[Value] = set()
    work = [view]
    while work:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in list(v.uses):
            user = use.owner
            effects = user.get_trait(MemoryEffects)
            if effects is not None:
                if _touches(user, v, effects):
                    yield user
                continue
            if isinstance(user, scf.YieldOp):
                work.extend(_yield_targets(user, use))
                continue
            if isinstance(user, scf.ForOp):
                work.extend(_for_targets(user, v))
                continue
            if user.has_trait(Pure):
                work.extend(r for r in user.results if isinstance(r.type, (TensorType, PtrType)))
                continue
            yield user  # unknown effects: it may access memory through the view


def _touches(op: Operation, v: Value, effects: Any) -> bool:
    for group in (*effects.reads, *effects.writes):
        got = getattr(op, group, None)
        values = got if isinstance(got, (list, tuple)) else [got]
        if any(x is v for x in values):
            return True
    return False


def _yield_targets(y: Operation, use: Any) -> list[Value]:
    parent = y.parent_op
    index = use.index
    out: list[Value] = []
    if parent is not None and index < len(parent.results):
        out.append(parent.results[index])
    if isinstance(parent, scf.ForOp) and index < len(parent.region_iter_args):
        out.append(parent.region_iter_args[index])
    return out


def _for_targets(loop: Any, v: Value) -> list[Value]:
    out: list[Value] = []
    for i, init in enumerate(loop.initArgs):
        if init is v:
            out.extend([loop.region_iter_args[i], loop.results[i]])
    return out
