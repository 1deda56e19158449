"""Lowering of the element-wise algorithms ``tile.axpby``, ``tile.fill`` and ``tile.clear``.

- axpby: ``y(i) = alpha * x(i) + beta * y(i)``, except that, as CuTe's ``axpby`` does, ``y`` is
  not read into the result when ``beta == 0`` (``y = alpha * x``: a NaN in ``y`` does not
  survive). A constant ``beta`` decides at compile time, otherwise an ``arith.select`` does.
- fill: ``t(i) = value``; clear: ``t(i) = 0``.

The walk is the one of :mod:`.traversal` (affine coordinates in every tensor).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.folding import constant_value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import tile as TD

from .loops import Dim
from .lowering import Lowering
from .scalars import add, is_float, mul, zero
from .traversal import plan_walk

__all__ = ["lower_axpby", "lower_clear", "lower_fill"]


def _walk_dims(low: Lowering, infos: list[Any]) -> tuple[Any, list[Dim]]:
    walk = plan_walk([i.layout for i in infos])
    dims = []
    for k, e in enumerate(walk.extents):
        registers = any(
            i.space == "rmem"
            and (walk.maps[t] is None or any(k == j for pairs in walk.maps[t] for j, _ in pairs))
            for t, i in enumerate(infos)
        )
        dims.append(Dim(e, must_unroll=registers and not (type(e) is int and e == 1)))
    return walk, dims


def _is_zero(v: Any) -> bool | None:
    """True/False when ``v`` is a constant (zero or not), None when unknown."""
    c = constant_value(v)
    if isinstance(c, FloatAttr):
        return c.value == 0.0
    if isinstance(c, IntegerAttr):
        return c.value == 0
    return None


def lower_axpby(low: Lowering, op: Any) -> None:
    xi = low.analysis.tensor_of(op.x)
    yi = low.analysis.tensor_of(op.y)
    walk, dims = _walk_dims(low, [xi, yi])
    beta_zero = _is_zero(op.beta)
    t = yi.element
    cond = None
    if beta_zero is None:  # decided once, before the loops
        z = zero(low.builder, t, low.loc)
        if is_float(t):
            cond = low.create(arith.CmpFOp, "oeq", op.beta, z).results[0]
        else:
            cond = low.create(arith.CmpIOp, "eq", op.beta, z).results[0]

    def body(b: Any, point: list[Any]) -> None:
        xc = low.coordinate(walk.coordinate(0, point))
        yc = low.coordinate(walk.coordinate(1, point))
        x = low.create(TD.LoadOp, op.x, xc).results[0]
        ax = mul(b, op.alpha, x, low.loc)
        if beta_zero is True:
            low.create(TD.StoreOp, ax, op.y, yc)
            return
        y = low.create(TD.LoadOp, op.y, yc).results[0]
        full = add(b, ax, mul(b, op.beta, y, low.loc), low.loc)
        if cond is not None:
            full = low.create(arith.SelectOp, cond, ax, full).results[0]
        low.create(TD.StoreOp, full, op.y, yc)

    low.nest(dims, body)


def _store_all(low: Lowering, tensor: Any, value_of: Any) -> None:
    info = low.analysis.tensor_of(tensor)
    walk, dims = _walk_dims(low, [info])

    def body(b: Any, point: list[Any]) -> None:
        c = low.coordinate(walk.coordinate(0, point))
        low.create(TD.StoreOp, value_of(b), tensor, c)

    low.nest(dims, body)


def lower_fill(low: Lowering, op: Any) -> None:
    _store_all(low, op.tensor, lambda b: op.value)


def lower_clear(low: Lowering, op: Any) -> None:
    info = low.analysis.tensor_of(op.tensor)
    z = zero(low.builder, info.element, low.loc)
    _store_all(low, op.tensor, lambda b: z)
