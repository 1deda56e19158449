"""How an element-wise algorithm walks its tensors: one iteration space, a coordinate per tensor.

Element ``i`` of every tensor is visited together (``dst(i) = src(i)``, CuTe's logical order).
Rather than handing each tensor the 1-D index ``i`` (which lowers to a division and a remainder
per mode), the walk iterates the *common refinement* of the tensors' flattened shapes: each
shape is a mixed-radix factorization of the size, and when their prefix products form one
divisibility chain, every tensor's natural coordinate is an affine function of the iteration
coordinates. Tensors whose shape the refinement does not refine get the 1-D index.

A vectorized copy (:class:`.vectorize.CopyPlan`) moves ``w`` lanes per access; the lanes are
the first ``w`` elements of one iteration mode, which is split as ``(w, extent / w)`` and walked
at lane 0 only. When the lanes do not line up with a mode this way, the walk falls back to the
plan's tiling ``R = (lanes, rest)``: iterate ``rest`` and give every tensor the 1-D index
``R(0, r)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from layoutc.ir.algebra import intops
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.layout import Layout, coalesce, get, shape

from ..analysis.conform import fits_shape

__all__ = ["Walk", "plan_walk"]


@dataclass
class Walk:
    """An iteration space (``extents``, innermost first) and, per tensor, how to turn an
    iteration point into that tensor's coordinate (:meth:`coordinate`)."""

    extents: list[Any]
    prefixes: list[Any]
    """Domain-index stride of each iteration mode (1-D index = sum of coord * prefix)."""
    scales: list[Any]
    """Step of each iteration mode in domain elements per iteration (lane modes are skipped)."""
    shapes: list[Any]
    maps: list[list[tuple[int, Any]] | None]
    """Per tensor and flat mode: the (iteration mode, multiplier) pairs, or None (1-D index)."""
    tiling_rest: Any = None
    """Fallback: the plan's rest layout (iteration over its flattened shape)."""

    def domain_index(self, point: Sequence[Any]) -> Any:
        """The logical (1-D) index of lane 0 at an iteration point."""
        if self.tiling_rest is not None:
            r = sum((c * p for c, p in zip(point, self.prefixes)), 0)
            return self.tiling_rest(r)
        return sum((c * s for c, s in zip(point, self.scales)), 0)

    def coordinate(self, t: int, point: Sequence[Any]) -> Any:
        """Tensor ``t``'s coordinate of lane 0 at an iteration point (natural or 1-D)."""
        m = self.maps[t]
        if m is None:
            return self.domain_index(point)
        flat = []
        for pairs in m:  # type: ignore[union-attr]
            # sum((point[k] * mult for ...), 0) without a generator: the same additions in the
            # same order (about 500 coordinates per GEMM compile)
            total: Any = 0
            for k, mult in pairs:
                total = total + point[k] * mult
            flat.append(total)
        shp = self.shapes[t]
        if not isinstance(shp, tuple):
            return flat[0]
        return it.unflatten(tuple(flat), shp)


def _prefixes(flat: Sequence[Any]) -> list[Any]:
    out, p = [], 1
    for s in flat:
        out.append(p)
        p = p * s
    out.append(p)
    return out


def _same(a: Any, b: Any) -> bool:
    return (type(a) is int and type(b) is int and a == b) or a is b or intops.prove_eq(a, b)


def _chain(points: list[Any]) -> list[Any] | None:
    """Sort prefix products into a divisibility chain, or None if they do not form one."""
    uniq: list[Any] = []
    for p in points:
        if not any(_same(p, q) for q in uniq):
            uniq.append(p)
    chain: list[Any] = []
    rest = uniq
    while rest:
        smallest = [p for p in rest if all(_same(p, q) or intops.divides(p, q) for q in rest)]
        if not smallest:
            return None
        p = smallest[0]
        chain.append(p)
        rest = [q for q in rest if q is not p]
    return chain


def _flat_shape(layout: Any) -> tuple[Any, ...]:
    inner = getattr(layout, "inner", layout)
    return it.flatten_to_tuple(shape(inner))


def plan_walk(
    layouts: Sequence[Any], tiling: Any = None, type_layouts: Sequence[Any] | None = None
) -> Walk:
    """The walk of tensors with these layouts (same size); ``tiling`` vectorizes it.

    ``type_layouts`` (the operands' type layouts): coordinates must have their shapes, so a
    tensor whose analysis layout is shaped otherwise gets the 1-D index."""
    flats = [_flat_shape(lay) for lay in layouts]
    points: list[Any] = []
    for f in flats:
        points.extend(_prefixes(f))
    chain = _chain(points)
    if chain is None:
        base = flats[-1]
        chain = _prefixes(base)
        chain = [p for i, p in enumerate(chain) if i == 0 or not _same(p, chain[i - 1])]
    extents = [chain[i + 1] // chain[i] for i in range(len(chain) - 1)]
    prefixes = chain[:-1]
    if tiling is not None:
        split = _split_lanes(extents, prefixes, tiling)
        if split is None:
            return _fallback(layouts, tiling)
        extents, prefixes, lane_modes = split
    else:
        lane_modes = set()
    maps = [_tensor_map(f, prefixes, extents) for f in flats]
    if type_layouts is not None:
        for t, (lay, typed) in enumerate(zip(layouts, type_layouts)):
            if not fits_shape(lay, shape(typed)):
                maps[t] = None
    scales = list(prefixes)
    iter_extents = [1 if k in lane_modes else e for k, e in enumerate(extents)]
    return Walk(
        iter_extents, prefixes, scales, [shape(getattr(lay, "inner", lay)) for lay in layouts], maps
    )


def _tensor_map(
    flat: Sequence[Any], prefixes: list[Any], extents: list[Any]
) -> list[list[tuple[int, Any]]] | None:
    """For each flat mode of a tensor, the iteration modes inside it with their multipliers."""
    own = _prefixes(flat)
    out: list[list[tuple[int, Any]]] = []
    k = 0
    for i, s in enumerate(flat):
        lo, hi = own[i], own[i + 1]
        pairs: list[tuple[int, Any]] = []
        if type(s) is int and s == 1:
            out.append(pairs)
            continue
        if k >= len(prefixes) or not _same(prefixes[k], lo):
            return None
        while k < len(prefixes) and not _same(prefixes[k], hi):
            pairs.append((k, prefixes[k] // lo))
            k += 1
        if k < len(prefixes) and not _same(prefixes[k], hi):
            return None
        out.append(pairs)
    return out if k == len(prefixes) else None


def _split_lanes(
    extents: list[Any], prefixes: list[Any], tiling: Any
) -> tuple[list[Any], list[Any], set[int]] | None:
    """Split the iteration so the lanes are whole leading parts of modes; None if they are not."""
    try:
        lanes = coalesce(get(tiling, 0))
    except LayoutError:
        return None
    if not isinstance(lanes, Layout):
        return None
    w, p = lanes.shape, lanes.stride
    if isinstance(w, tuple) or type(w) is not int:
        return None
    for k, q in enumerate(prefixes):
        if not _same(q, p):
            continue
        new_ext, new_pre = list(extents[:k]), list(prefixes[:k])
        lane_modes: set[int] = set()
        need = w
        j = k
        while need > 1 and j < len(extents):
            e = extents[j]
            if type(e) is int and e <= need and need % e == 0:
                new_ext.append(e)
                new_pre.append(prefixes[j])
                lane_modes.add(len(new_ext) - 1)
                need //= e
                j += 1
                continue
            if not intops.divides(need, e):
                return None
            new_ext.extend([need, e // need])
            new_pre.extend([prefixes[j], prefixes[j] * need])
            lane_modes.add(len(new_ext) - 2)
            need = 1
            j += 1
        if need != 1:
            return None
        new_ext.extend(extents[j:])
        new_pre.extend(prefixes[j:])
        return new_ext, new_pre, lane_modes
    return None


def _fallback(layouts: Sequence[Any], tiling: Any) -> Walk:
    rest = get(tiling, 1)
    flat = it.flatten_to_tuple(rest.shape)
    prefixes = _prefixes(flat)[:-1]
    return Walk(list(flat), prefixes, prefixes, [None] * len(layouts), [None] * len(layouts), rest)
