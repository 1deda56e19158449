"""Lowering of the element-wise algorithms ``tile.axpby``, ``tile.fill`` and ``tile.clear``.

- axpby: ``y(i) = alpha * x(i) + beta * y(i)`` computed in the scalars' type (the elements
  converted to it, the result converted back once when stored, as C++ does), except that, as CuTe's ``axpby`` does, ``y`` is
  not read into the result when ``beta == 0`` (``y = alpha * x``: a NaN in ``y`` does not
  survive). A constant ``beta`` decides at compile time, otherwise an ``arith.select`` does.
- fill: ``t(i) = value``; clear: ``t(i) = 0``. Both store ``w`` elements per access when
  :func:`.vectorize.plan_fill` proves it (a fill is a copy from a broadcast value: only the
  destination's contiguity and alignment count); the width is the op's ``vector_bits`` (from
  prove-vectorization), re-proven here, or the widest proven one. The stored vector is built
  once before the loops (:mod:`.splat`).

The walk is the one of :mod:`.traversal` (affine coordinates in every tensor).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.folding import constant_value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import tile as TD

from .common import copy_word
from .loops import Dim, LoweringError
from .lowering import Lowering
from .scalars import add, convert, is_float, mul, zero
from .splat import splat, splattable
from .traversal import plan_walk
from .vectorize import CopyPlan, plan_fill

__all__ = ["lower_axpby", "lower_clear", "lower_fill"]


def _walk_dims(
    low: Lowering, infos: list[Any], values: list[Any], tiling: Any = None
) -> tuple[Any, list[Dim]]:
    """The walk of tensors ``values`` (``infos``: their analysis) and its loop dimensions."""
    walk = plan_walk([i.layout for i in infos], tiling, [v.type.layout() for v in values])
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
    walk, dims = _walk_dims(low, [xi, yi], [op.x, op.y])
    beta_zero = _is_zero(op.beta)
    t = yi.element
    c = op.alpha.type  # the compute type: t, or a float at least as wide
    cond = None
    if beta_zero is None:  # decided once, before the loops
        z = zero(low.builder, c, low.loc)
        if is_float(c):
            cond = low.create(arith.CmpFOp, "oeq", op.beta, z).results[0]
        else:
            cond = low.create(arith.CmpIOp, "eq", op.beta, z).results[0]

    def body(b: Any, point: list[Any]) -> None:
        xc = low.coordinate(walk.coordinate(0, point))
        yc = low.coordinate(walk.coordinate(1, point))
        x = convert(b, low.create(TD.LoadOp, op.x, xc).results[0], c, low.loc)
        ax = mul(b, op.alpha, x, low.loc)
        if beta_zero is True:
            low.create(TD.StoreOp, convert(b, ax, t, low.loc), op.y, yc)
            return
        y = convert(b, low.create(TD.LoadOp, op.y, yc).results[0], c, low.loc)
        full = add(b, ax, mul(b, op.beta, y, low.loc), low.loc)
        if cond is not None:
            full = low.create(arith.SelectOp, cond, ax, full).results[0]
        low.create(TD.StoreOp, convert(b, full, t, low.loc), op.y, yc)

    low.nest(dims, body)


def _fill_plan(op: Any, info: Any) -> CopyPlan:
    """The store width: the op's ``vector_bits`` re-proven (a claim that is not legal is an
    error, never a wrong program), else the widest proven one."""
    best = plan_fill(info)
    attr = op.properties.get("vector_bits")
    if attr is None:
        return best
    bits = attr.value
    word = copy_word(op)
    if bits > best.bits:
        raise LoweringError(
            f"vector_bits = {bits} is not proven for this {word}: only {best.bits}-bit stores "
            f"are legal ({best.reason})"
        )
    plan = plan_fill(info, max_bits=bits)
    if plan.bits != bits and bits > info.element_bytes * 8:
        raise LoweringError(f"vector_bits = {bits} is not legal for this {word}: {plan.reason}")
    return plan


def _store_all(low: Lowering, op: Any, value: Any) -> None:
    tensor = op.tensor
    info = low.analysis.tensor_of(tensor)
    plan = _fill_plan(op, info)
    if plan.width > 1 and not splattable(value):
        plan = plan_fill(info, max_bits=info.element_bytes * 8)
    walk, dims = _walk_dims(low, [info], [tensor], plan.tiling)
    if plan.width > 1:
        vector = splat(low.builder, value, plan.width, low.loc)

        def body(b: Any, point: list[Any]) -> None:
            c = low.coordinate(walk.coordinate(0, point))
            low.create(TD.StoreVectorOp, vector, tensor, c, plan.alignments[0])

    else:

        def body(b: Any, point: list[Any]) -> None:
            c = low.coordinate(walk.coordinate(0, point))
            low.create(TD.StoreOp, value, tensor, c)

    low.nest(dims, body)


def lower_fill(low: Lowering, op: Any) -> None:
    _store_all(low, op, op.value)


def lower_clear(low: Lowering, op: Any) -> None:
    info = low.analysis.tensor_of(op.tensor)
    _store_all(low, op, zero(low.builder, info.element, low.loc))
