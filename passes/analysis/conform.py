"""Give the analysis's layout of a tensor the shape of the tensor's type.

The analysis evaluates view ops on symbols that carry facts, so the algebra may prove more
than the type inference did over ``?`` entries and return a differently structured layout:
``((4,2,2)):((1,S,2S))`` composed with ``(2,8):(1,2)`` is ``(2,(2,4)):(1,(2,S))`` once
``2S = 2*S`` is seen, while the type says ``(2,(2,2,2)):(1,(2,?,?))``. Both are the same
function of the 1-D index, but coordinates in the IR follow the type, so the analysis must
address them in the type's shape.

:func:`conform_to_type` re-expresses the layout over the type's shape by composing it with the
compact layout of that shape (exact: composition with a compact layout of the same size keeps
every 1-D index's offset). Only a shape without ``?`` entries is used: the values of ``?``
entries cannot be recovered from a coarser layout without ambiguity (``(?,?)`` over ``6``).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import intops
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.errors import LayoutError

__all__ = ["conform_to_type", "fits_shape"]


def fits_shape(layout: Any, type_shape: Any) -> bool:
    """``layout``'s shape has ``type_shape``'s structure and provably equal static entries (a
    symbol of the type, standing for a ``?``, matches anything)."""
    return _fits(_shape_of(layout), type_shape)


def conform_to_type(layout: Any, type_layout: Any) -> Any:
    """``layout`` over ``type_layout``'s shape when the shapes differ and the type's is static;
    otherwise ``layout`` unchanged."""
    from layoutc.ir.algebra.composition import composition
    from layoutc.ir.algebra.layout import make_layout

    want = _shape_of(type_layout)
    if want is None or fits_shape(layout, want):
        return layout
    if not all(type(s) is int for s in it.flatten_to_tuple(want)):
        return layout
    try:
        conformed = composition(layout, make_layout(want))
    except LayoutError:
        return layout
    return conformed if fits_shape(conformed, want) else layout


def _shape_of(layout: Any) -> Any:
    inner = layout
    while hasattr(inner, "inner"):
        inner = inner.inner
    return getattr(inner, "shape", None)


def _fits(have: Any, want: Any) -> bool:
    if isinstance(want, tuple):
        return (
            isinstance(have, tuple)
            and len(have) == len(want)
            and all(_fits(h, w) for h, w in zip(have, want))
        )
    if isinstance(have, tuple):
        return False
    if type(want) is int:
        return intops.prove_eq(have, want)
    return True
