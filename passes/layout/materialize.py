"""Building IR for algebra values: a layout or int-tuple value as one constant or one
``make_layout`` of ``make_shape``/``make_stride`` whose ``?`` operands are emitted expressions,
and a tensor as one ``tile.make_tensor`` of a (possibly offset) root pointer."""

from __future__ import annotations

import re
from typing import Any

from layoutc.ir.algebra.layout import Layout
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.location import Location
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import layout as LD
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.layout.symbolic_types import from_symbolic, static_attribute
from layoutc.ir.dialects.layout.text import Kind
from layoutc.ir.dialects.layout.types import IntTupleType

from ..analysis.emitter import IndexEmitter
from ..analysis.proofs import known_divisor
from ..analysis.symbolic import TensorInfo

__all__ = ["NotMaterializable", "layout_value", "pointer_at", "refines"]

_TOKENS = re.compile(r"\?|-?\d+|[^\d?\s]")


class NotMaterializable(Exception):
    """The value has no single-op form (a symbolic swizzled, composed or gather layout)."""


def refines(new: str, old: str) -> bool:
    """``new`` layout text has the structure of ``old`` and agrees with every static entry of
    ``old`` (a ``?`` of ``old`` may be anything): a value of type ``new`` may stand wherever one
    of type ``old`` is used."""
    a, b = _TOKENS.findall(new), _TOKENS.findall(old)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if y == "?":
            if not (x == "?" or x.lstrip("-").isdigit()):
                return False
        elif x != y:
            return False
    return True


def _entries(values: list[Any], emitter: IndexEmitter) -> list[Value]:
    return [emitter.emit(x) for x in values]


def layout_value(
    value: Any,
    kind: Kind,
    builder: Builder,
    emitter: IndexEmitter,
    loc: Location,
    shape: bool = False,
) -> Value:
    """One op (plus its ``make_shape``/``make_stride``) producing ``value``; ``shape`` makes an
    int-tuple with ``layout.make_shape`` (entries at least 1)."""
    t, dynamic = from_symbolic(value, kind)
    if not dynamic:
        return builder.create(LD.ConstantOp, static_attribute(value, kind), loc=loc).results[0]
    if kind is Kind.INT_TUPLE:
        cls = LD.MakeShapeOp if shape else LD.MakeIntTupleOp
        return builder.create(cls, _entries(dynamic, emitter), type=t, loc=loc).results[0]
    if kind is Kind.LAYOUT and isinstance(value, Layout):
        s = layout_value(value.shape, Kind.INT_TUPLE, builder, emitter, loc, shape=True)
        d = layout_value(value.stride, Kind.INT_TUPLE, builder, emitter, loc)
        made = builder.create(LD.MakeLayoutOp, s, d, loc=loc).results[0]
        if made.type is not t:
            raise NotMaterializable(f"make_layout gives '{made.type.text}', not '{t.text}'")
        return made
    raise NotMaterializable(f"no single-op form for the symbolic value '{t.text}'")


def pointer_at(
    info: TensorInfo, base_ptr: Value, builder: Builder, emitter: IndexEmitter, loc: Location
) -> Value:
    """``base_ptr`` moved by the tensor's offset, with the offset's proven divisibility stated
    by ``tile.assume`` so that the pointer type carries the alignment the analysis proved."""
    offset = info.offset
    if type(offset) is int and offset == 0:
        return base_ptr
    off = emitter.emit(offset)
    if type(offset) is not int:
        # The canonical form only: the type's alignment is informative here (prove-vectorization
        # proves what accesses need), so a SymPy proof would not pay for itself.
        kd = known_divisor(offset)
        k = 1
        while k < 16 and kd % (2 * k) == 0:
            k *= 2
        if k > 1:
            off = builder.create(TD.AssumeOp, off, divisible_by=k, loc=loc).results[0]
    return builder.create(TD.PtrOffsetOp, base_ptr, off, loc=loc).results[0]


def is_int_tuple(t: Any) -> bool:
    return isinstance(t, IntTupleType)
