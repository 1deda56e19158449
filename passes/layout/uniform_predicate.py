"""When may ``copy_if`` guard a whole vector with one predicate? When the predicate provably
has one value for all ``w`` lanes of every vector, for every value of the symbols:

- **stride 0**: the predicate tensor maps the lanes to one element (CuTe's ``tApA``, whose
  value mode has stride 0): one element, one value, whatever it holds. This holds for ``i1``
  tensors and coordinate tensors alike.
- **coordinate predicates** ``elem_less(coord, bound)``: the lanes walk one coordinate mode by
  1 (other modes fixed), every vector starts at a multiple of ``w`` in that mode (the view's
  origin and the step between vectors are multiples of ``w``), and the bound of that mode is a
  multiple of ``w``. Then ``c0 < bound`` and ``c0 + w - 1 < bound`` agree, since both ``c0``
  and ``bound`` are multiples of ``w``.

Anything else (an ``i1`` tensor that varies across lanes, a bound not provably a multiple of
``w``) is refused with the fact that failed, so copy_if stays element-wise: a mask that could
differ within a vector is never vectorized.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import composition
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.basis import ScaledBasis
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.layout import Layout, coalesce, get

from ..analysis.proofs import prove_divisible
from ..analysis.symbolic import TensorInfo
from .vector_common import Refused, describe, flat_modes, is_zero_stride, rest_strides

__all__ = ["uniform_predicate"]


def uniform_predicate(pred: TensorInfo, bounds: Any, tiling: Any, w: int) -> str:
    """Why the predicate is the same for the ``w`` lanes of every vector of ``tiling``
    (``(lanes, rest) -> logical index``): a phrase for the remark. Raise :class:`Refused`."""
    try:
        mapped = composition(pred.layout, tiling)
        lanes = coalesce(get(mapped, 0))
    except LayoutError:
        raise Refused("the predicate's layout does not compose with the vector tiling") from None
    if not isinstance(lanes, Layout) or not isinstance(mapped, Layout):
        raise Refused("the predicate's layout is not a plain layout")
    modes = flat_modes(lanes)
    if all(is_zero_stride(d) for _, d, _ in modes):
        return "stride 0"
    if pred.space != "coord":
        raise Refused(
            f"the predicate tensor may differ within a vector: its {w} lanes have layout {lanes}, "
            "not stride 0"
        )
    if bounds is None:
        raise Refused("the coordinate predicate has no bounds")
    return _coordinate_walk(pred, bounds, mapped, modes, w)


def _coordinate_walk(
    pred: TensorInfo, bounds: Any, mapped: Layout, modes: list[Any], w: int
) -> str:
    """``elem_less(origin + mapped(lane, r), bounds)`` is one value for every lane."""
    stride = modes[0][1] if len(modes) == 1 and modes[0][2] == w else None
    if not (isinstance(stride, ScaledBasis) and type(stride.value) is int and stride.value == 1):
        raise Refused(
            "the predicate's coordinates do not walk one mode by 1 across a vector "
            f"(lanes {describe(stride) if stride is not None else modes})"
        )
    path = stride.modes

    def component(x: Any) -> Any:
        """The entry of a coordinate (or coordinate step) along the walked mode; refuse what
        cannot be read exactly (guessing 0 could vectorize a mask that varies)."""
        if isinstance(x, ScaledBasis):
            return x.value if x.modes == path else 0
        if type(x) is int and x == 0:
            return 0
        if isinstance(x, tuple) or path in ((), (0,)):
            try:
                entry = it.get(x, *path)
            except (LayoutError, IndexError, TypeError):
                entry = None
            if entry is not None and not isinstance(entry, tuple):
                return entry
        raise Refused(f"the predicate's coordinate {describe(x)} has no entry along the lanes")

    try:
        bound = it.get(bounds, *path)
    except (LayoutError, IndexError, TypeError):
        raise Refused(
            "the predicate's bounds do not name the coordinate the vector walks"
        ) from None
    if isinstance(bound, tuple):
        raise Refused(f"the predicate's bound {describe(bound)} is not one integer")
    if not prove_divisible(w, bound):
        raise Refused(f"the bound {describe(bound)} is not provably a multiple of {w}")
    start = component(pred.offset)
    if not prove_divisible(w, start):
        raise Refused(
            f"a vector's first coordinate {describe(start)} is not provably a multiple of {w}"
        )
    for d in rest_strides(mapped):
        step = component(d)
        if not prove_divisible(w, step):
            raise Refused(
                f"the predicate's coordinates advance {describe(step)} between vectors, not "
                f"provably a multiple of {w}"
            )
    return (
        f"the bound {describe(bound)} is a multiple of {w} and every vector starts at a "
        f"multiple of {w}"
    )
