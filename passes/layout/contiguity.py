"""Why no two consecutive elements are contiguous in every tensor an access touches: the
sentence of an element-wise remark, naming the stride or the modes that decide."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.layout import Layout

from .vector_common import describe, flat_modes

__all__ = ["contiguity_reason"]


def _inner(layout: Any) -> Any:
    return layout.inner if isinstance(layout, ComposedLayout) else layout


def _unit_modes(layout: Layout) -> list[tuple[str, Any]]:
    """(path, extent) of the stride-1 leaf modes."""
    return [(p, s) for p, d, s in flat_modes(layout) if type(d) is int and d == 1]


def contiguity_reason(sides: Sequence[tuple[str, Any]], name: str) -> str:
    """``sides`` are (role, layout) pairs (source and destination of a copy, or the one tensor a
    fill writes). The first side without a stride-1 mode is named with its smallest stride;
    when every side has one, the reason is where their runs disagree."""
    units = []
    for role, layout in sides:
        inner = _inner(layout)
        if not isinstance(inner, Layout):
            return f"the {role} layout is not a plain layout"
        modes = flat_modes(inner)
        unit = _unit_modes(inner)
        units.append(unit)
        if not modes or unit:
            continue
        i, d, _ = min(modes, key=_stride_order)
        text = f"stride of mode {i} of the {role} is {describe(d)}"
        if len(modes) >= 2 and all(type(m[1]) is not int or abs(m[1]) > 1 for m in modes):
            text += " (affine2 layout: strides above 1 in every mode)"
        return text
    single = [role for (role, layout), _u in zip(sides, units) if not flat_modes(_inner(layout))]
    if single:  # every mode has the static extent 1
        verb = "holds" if len(single) == 1 else "hold"
        return f"the {' and the '.join(single)} {verb} a single element: one {name} per access"
    firsts = [u[0] for u in units if u]
    if len(firsts) == len(sides) and all(p == firsts[0][0] for p, _ in firsts):
        path, extent = firsts[0]
        if type(extent) is not int:
            return (
                f"the {name} are contiguous along mode {path}, but its extent "
                f"{describe(extent)} is not provably a multiple of 2"
            )
        return f"no run of 2 {name} is provably contiguous in the {_roles(sides)}"
    where = ", ".join(f"{role} mode {u[0][0]}" for (role, _), u in zip(sides, units))
    return (
        f"the {_roles(sides)} are contiguous along different modes ({where}): one {name} per access"
    )


def _roles(sides: Sequence[tuple[str, Any]]) -> str:
    return " and the ".join(role for role, _ in sides)


def _stride_order(mode: tuple[str, Any, Any]) -> tuple[int, int]:
    d = mode[1]
    return (0, abs(d)) if type(d) is int else (1, 0)
