"""What is known about a run-time index value before any arithmetic: the assumptions of the
symbol that stands for it.

The symbolic value analysis gives every value it cannot see through (a kernel argument, a
thread index, a loop induction variable, a load result) a fresh symbol; this module says which
facts that symbol may carry (docs/dialects.md, "Symbols and dynamic values"):

- kernel arguments: the argument attributes ``layoutc.divisible_by``, ``layoutc.lower`` and
  ``layoutc.upper`` that the front end writes from the compile spec (``layoutc.symbol`` is the
  symbol's name: the user's, from an annotation);
- ``gpu.thread_id``: ``[0, block size)`` under ``gpu.known_block_size`` (else ``[0, 1024)``, the
  hardware limit), ``gpu.block_id``: ``>= 0``, ``gpu.block_dim``: ``[1, 1024]``,
  ``gpu.grid_dim``: ``>= 1``, ``gpu.lane_id``: ``[0, 32)``;
- ``scf.for`` induction variables: ``lb + k * step`` for ``k >= 0``, so the lower bound of
  ``lb``, the upper bound of ``ub`` minus one, and ``gcd(divisor(lb), divisor(step))``.

Facts are ``(divisible_by, lower, upper)`` triples with None for "unknown"; :func:`combine`
merges two of them (both hold).
"""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING, Any

from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.values import BlockArgument
from layoutc.ir.dialects import gpu
from layoutc.ir.dialects.func import FuncOp

if TYPE_CHECKING:
    from layoutc.ir.core.operation import Operation

Facts = tuple[int, int | None, int | None]
"""``(divisible_by, lower, upper)``: ``divisible_by >= 1``; None bounds are unknown."""

NO_FACTS: Facts = (1, None, None)

MAX_THREADS_PER_BLOCK = 1024
WARP_SIZE = 32


def combine(a: Facts, b: Facts) -> Facts:
    """Facts that hold when both ``a`` and ``b`` hold."""
    div = a[0] * b[0] // gcd(a[0], b[0])
    lower = _pick(a[1], b[1], max)
    upper = _pick(a[2], b[2], min)
    return (div, lower, upper)


def _pick(x: int | None, y: int | None, fn: Any) -> int | None:
    if x is None:
        return y
    if y is None:
        return x
    return fn(x, y)


def _int_attr(attrs: Any, name: str) -> int | None:
    if attrs is None:
        return None
    a = attrs.get(name)
    return a.value if isinstance(a, IntegerAttr) else None


def function_argument_attrs(arg: BlockArgument) -> Any:
    """The argument attribute dictionary of a ``func.func`` entry-block argument, or None."""
    block = arg.block
    op = block.parent_op
    if not isinstance(op, FuncOp) or not block.is_entry:
        return None
    arrays = op.properties.get("arg_attrs")
    if arrays is None:
        return None
    entries = list(arrays)
    return entries[arg.index] if arg.index < len(entries) else None


def argument_facts(arg: BlockArgument) -> Facts:
    """Facts of a kernel argument from its ``layoutc.*`` argument attributes."""
    attrs = function_argument_attrs(arg)
    div = _int_attr(attrs, "layoutc.divisible_by")
    return (
        div if div is not None and div > 0 else 1,
        _int_attr(attrs, "layoutc.lower"),
        _int_attr(attrs, "layoutc.upper"),
    )


def argument_symbol_name(arg: BlockArgument) -> str | None:
    """The user's name of the value a kernel argument carries (``layoutc.symbol``: ``K`` of an
    annotation ``(M,K):(K,1)``), so that remarks say ``K`` rather than the carrier's name."""
    attrs = function_argument_attrs(arg)
    a = attrs.get("layoutc.symbol") if attrs is not None else None
    value = getattr(a, "value", None)
    return value if isinstance(value, str) and value.isidentifier() else None


def argument_alignment(arg: BlockArgument) -> int | None:
    """The ``layoutc.align`` attribute of a pointer argument (bytes), if any."""
    return _int_attr(function_argument_attrs(arg), "layoutc.align")


def gpu_facts(op: Operation) -> Facts | None:
    """Facts of the result of a gpu id/size op, or None for other ops."""
    if isinstance(op, gpu.LaneIdOp):
        return (1, 0, WARP_SIZE - 1)
    if not isinstance(op, (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)):
        return None
    dim = op.properties["dimension"].index  # type: ignore[attr-defined]
    if isinstance(op, gpu.ThreadIdOp):
        sizes = gpu.known_block_size(op)
        top = sizes[dim] if sizes is not None else MAX_THREADS_PER_BLOCK
        return (1, 0, top - 1)
    if isinstance(op, gpu.BlockDimOp):
        sizes = gpu.known_block_size(op)
        if sizes is not None:
            return (1, sizes[dim], sizes[dim])
        return (1, 1, MAX_THREADS_PER_BLOCK)
    if isinstance(op, gpu.BlockIdOp):
        return (1, 0, None)
    return (1, 1, None)


def loop_facts(lower: Any, upper: Any, step: Any) -> Facts:
    """Facts of ``scf.for``'s induction variable from its bounds and step (ints or SymInts)."""
    from layoutc.ir.algebra.intops import static_value
    from layoutc.ir.algebra.symbolic import sym_known_divisor

    def kd(x: Any) -> int:
        if type(x) is int:
            return abs(x)
        return sym_known_divisor(x)

    def low(x: Any) -> int | None:
        if type(x) is int:
            return x
        return x.bounds[0]

    def high(x: Any) -> int | None:
        if type(x) is int:
            return x
        return x.bounds[1]

    div = gcd(kd(lower), kd(step)) or 1
    lo = low(lower)
    hi = high(upper)
    if static_value(step) is not None and static_value(step) <= 0:  # type: ignore[operator]
        return (1, None, None)  # invalid loop (the verifier reports constant steps)
    return (div, lo, None if hi is None else hi - 1)
