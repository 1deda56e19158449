"""Functional composition R = A o B with R(c) = A(B(c)) (CuTe's `composition`).

The algorithm is CuTe's `composition_impl`: coalesce A (keeping its last stride beyond its
domain), then for each integral mode s:d of B "divide out" d from A's shape and "mod out" s.
Where CuTe checks the stride and shape divisibility conditions only for static values, and
silently returns a layout that is not A o B in one corner case (a stride that is smaller than a
mode of A without dividing it, with elements left over), we check the exact condition for
every step and raise `LayoutError` naming it; for symbolic values the condition must be
provable from the symbols' assumptions.
"""

from __future__ import annotations

from typing import Any

from . import intops
from . import inttuple as it
from .basis import ScaledBasis, as_arithmetic_tuple, basis_get, has_basis
from .composed import ComposedLayout
from .errors import LayoutError
from .inttuple import _, format_tuple
from .layout import Layout, _describe, coalesce_x, modes
from .swizzle import Swizzle, compose_swizzles, make_swizzle


def composition(lhs: Any, rhs: Any, inner: Any = None) -> Any:
    """A o B. `rhs` is a Layout, a shape/tiler (int, tuple of tilers, `_`), or a Swizzle.

    `composition(A, offset, B)` (three arguments) builds the ComposedLayout A o offset o B.
    """
    if inner is not None:
        return make_composed(lhs, rhs, inner)
    if isinstance(lhs, Layout):
        if isinstance(rhs, Layout):
            return compose_layouts(lhs, rhs)
        if isinstance(rhs, tuple):
            return _compose_by_mode(lhs, rhs)
        if type(rhs) is int or it.is_symbolic(rhs):
            flat = coalesce_x(lhs)
            return _compose_impl(flat.shape, flat.stride, rhs, 1, lhs, rhs, None)
        if rhs is _ or rhs is None:
            return lhs
        if isinstance(rhs, Swizzle):
            return _compose_layout_swizzle(lhs, rhs)
        if isinstance(rhs, ComposedLayout):
            if not _is_zero(rhs.offset):
                raise LayoutError(
                    f"composition({lhs}, {rhs}): the composed layout's offset must be 0"
                )
            return composition(composition(lhs, rhs.outer), rhs.inner)
        raise LayoutError(f"composition({lhs}, ...): cannot compose with {_describe(rhs)}")
    if isinstance(lhs, Swizzle):
        if isinstance(rhs, Swizzle):
            return compose_swizzles(lhs, rhs)
        if isinstance(rhs, (Layout, ComposedLayout)):
            return make_composed(lhs, 0, rhs)
        raise LayoutError(
            f"composition({lhs}, ...): a swizzle composes with a layout, got {_describe(rhs)}"
        )
    if isinstance(lhs, ComposedLayout):
        return make_composed(lhs.outer, lhs.offset, composition(lhs.inner, rhs))
    raise LayoutError(f"composition: expected a layout as the first argument, got {_describe(lhs)}")


def _is_zero(x: Any) -> bool:
    if type(x) is int:
        return x == 0
    if isinstance(x, tuple):
        return all(_is_zero(e) for e in x)
    return False


def make_composed(outer: Any, offset: Any, inner: Any) -> Any:
    """A o offset o B; an identity swizzle with zero offset is dropped (CuTe)."""
    if isinstance(outer, Swizzle) and outer.is_identity() and _is_zero(offset):
        return inner
    return ComposedLayout(outer, offset, inner)


def _compose_by_mode(lhs: Layout, tiler: tuple) -> Layout:
    """By-mode composition with a tiler <T0, T1, ...>; modes of lhs not in the tiler are dropped."""
    ms = modes(lhs)
    if len(tiler) > len(ms):
        raise LayoutError(
            f"composition({lhs}, {format_tuple(tiler)}): the tiler has {len(tiler)} modes but the layout has {len(ms)}"
        )
    out = [composition(ms[i], t) for i, t in enumerate(tiler)]
    for r in out:
        if not isinstance(r, Layout):
            raise LayoutError(
                f"composition({lhs}, ...): by-mode composition must give layouts, got {r}"
            )
    return Layout._new(tuple(r.shape for r in out), tuple(r.stride for r in out))


def _coprofile(stride: Any) -> Any:
    """The profile of the codomain of a layout with basis strides (CuTe's coprofile)."""
    total: Any = 0
    for d in it.flatten_to_tuple(stride):
        if isinstance(d, ScaledBasis):
            total = total + d
    return it.repeat_like(as_arithmetic_tuple(total), 0)


def compose_layouts(lhs: Layout, rhs: Layout) -> Layout:
    """A o B for two layouts: the result is compatible with B and R(i) == A(B(i))."""
    if has_basis(rhs.stride):
        flat = coalesce_x(lhs, _coprofile(rhs.stride))
    else:
        flat = coalesce_x(lhs)
    if isinstance(rhs.shape, tuple) and isinstance(flat.shape, tuple):
        usage = _Usage()
        result = _compose_impl(flat.shape, flat.stride, rhs.shape, rhs.stride, lhs, rhs, usage)
        usage.check(lhs, rhs)
        return result
    return _compose_impl(flat.shape, flat.stride, rhs.shape, rhs.stride, lhs, rhs, None)


class _Usage:
    """How far the modes of B reach into each bounded mode of A.

    CuTe composes B mode by mode (A o (B0,B1) = (A o B0, A o B1)), which is only A o B when
    adding the images of B's modes never carries from one mode of A into the next. We record,
    per mode of A, the largest digit each mode of B contributes and check that their sum stays
    inside the mode (and that the strides of B do not mix signs).
    """

    __slots__ = ("digits", "extents", "signs")

    def __init__(self) -> None:
        self.digits: dict = {}
        self.extents: dict = {}
        self.signs: set = set()

    def add(self, key: Any, i: int, extent: Any, digit: Any) -> None:
        k = (key, i)
        self.extents[k] = extent
        prev = self.digits.get(k)
        self.digits[k] = [digit] if prev is None else [*prev, digit]

    def check(self, a: Any, b: Any) -> None:
        if len(self.signs) > 1:
            raise LayoutError(
                f"composition({a}, {b}): not supported: the modes of the second layout have strides of both signs"
            )
        for k, digits in self.digits.items():
            if len(digits) < 2:
                continue
            total: Any = 0
            for d in digits:
                total = total + d
            extent = self.extents[k]
            limit = extent - 1
            if type(total) is int and type(limit) is int:
                ok = total <= limit
            else:
                ok = intops.prove_le(total, limit)
            if not ok:
                raise LayoutError(
                    f"composition({a}, {b}): the modes of the second layout overlap in mode {k[1]} "
                    f"(of size {extent}) of the first: their images add up to {total} > {limit}, "
                    "so the result would not be the composition (is the second layout injective?)"
                )


def _compose_impl(
    ls: Any, ld: Any, rs: Any, rd: Any, a: Any, b: Any, usage: Any, key: Any = ()
) -> Layout:
    if isinstance(rs, tuple):
        out = [_compose_impl(ls, ld, s, d, a, b, usage, key) for s, d in zip(rs, rd)]
        return Layout._new(tuple(r.shape for r in out), tuple(r.stride for r in out))
    if isinstance(rd, ScaledBasis):
        return _compose_impl(
            basis_get(rd, ls), basis_get(rd, ld), rs, rd.value, a, b, usage, key + rd.modes
        )
    if type(rd) is int:
        if rd == 0:
            return Layout._new(rs, 0)
    elif not it.is_symbolic(rd):
        raise LayoutError(f"composition({a}, {b}): unsupported stride {rd!r}")
    if not isinstance(ls, tuple):
        return Layout._new(rs, rd * ld)
    if type(rs) is int and type(rd) is int and it.all_int(ls):
        return _compose_static(ls, ld, rs, rd, a, b, usage, key)
    return _compose_general(ls, ld, rs, rd, a, b, usage, key)


def _finish(
    result_shape: list, result_stride: list, rest_shape: Any, rest_stride: Any, last_stride: Any
) -> Layout:
    if not result_shape:
        return Layout._new(rest_shape, rest_stride * last_stride)
    if type(rest_shape) is int and rest_shape == 1:
        if len(result_shape) == 1:
            return Layout._new(result_shape[0], result_stride[0])
        return Layout._new(tuple(result_shape), tuple(result_stride))
    result_shape.append(rest_shape)
    result_stride.append(rest_stride * last_stride)
    return Layout._new(tuple(result_shape), tuple(result_stride))


def _compose_static(
    ls: tuple, ld: tuple, rest_shape: int, rest_stride: int, a: Any, b: Any, usage: Any, key: Any
) -> Layout:
    """The 1-D step of composition_impl with static shapes on the left and a static B mode."""
    result_shape: list = []
    result_stride: list = []
    if usage is not None and rest_shape != 1:
        usage.signs.add(rest_stride < 0)
    for i in range(len(ls) - 1):
        s = ls[i]
        d_abs = -rest_stride if rest_stride < 0 else rest_stride
        next_shape = -(-s // d_abs)
        next_stride = -(-d_abs // s)
        if rest_stride < 0:
            next_stride = -next_stride
        if rest_shape == 1:
            rest_stride = next_stride
            continue
        if d_abs % s == 0:  # the whole mode is divided out
            rest_stride = next_stride
            continue
        if s % d_abs != 0:
            if d_abs > s:
                raise LayoutError(
                    f"composition({a}, {b}): stride divisibility condition fails: "
                    f"stride {d_abs} and mode {i} of shape {s} do not divide each other"
                )
            if rest_shape > next_shape:
                raise LayoutError(
                    f"composition({a}, {b}): stride divisibility condition fails: stride {d_abs} does not "
                    f"divide mode {i} of shape {s}, and {rest_shape} elements do not fit in it"
                )
        new_shape = next_shape if next_shape < rest_shape else rest_shape
        if rest_shape % new_shape != 0:
            raise LayoutError(
                f"composition({a}, {b}): shape divisibility condition fails: "
                f"{new_shape} (from mode {i} of shape {s}) does not divide {rest_shape}"
            )
        if usage is not None:
            usage.add(key, i, s, (new_shape - 1) * d_abs)
        result_shape.append(new_shape)
        result_stride.append(rest_stride * ld[i])
        rest_shape //= new_shape
        rest_stride = next_stride
    return _finish(result_shape, result_stride, rest_shape, rest_stride, ld[-1])


def _compose_general(
    ls: tuple, ld: tuple, rest_shape: Any, rest_stride: Any, a: Any, b: Any, usage: Any, key: Any
) -> Layout:
    """composition_impl with symbolic values: every condition must be provable."""

    def why() -> str:
        return f"composition({a}, {b})"

    result_shape: list = []
    result_stride: list = []
    if usage is not None and not (type(rest_shape) is int and rest_shape == 1):
        usage.signs.add(_negative(rest_stride, why))
    for i in range(len(ls) - 1):
        s = ls[i]
        negative = _negative(rest_stride, why)
        d_abs = -rest_stride if negative else rest_stride
        next_stride = intops.ceil_div(d_abs, s)
        if negative:
            next_stride = -next_stride
        if type(rest_shape) is int and rest_shape == 1:
            rest_stride = next_stride
            continue
        if intops.divides(s, d_abs):
            rest_stride = next_stride
            continue
        next_shape = intops.ceil_div(s, d_abs)
        if not intops.divides(d_abs, s):
            if not intops.prove_lt(d_abs, s):
                raise LayoutError(
                    f"{why()}: stride divisibility condition: cannot prove that stride {d_abs} "
                    f"and mode {i} of shape {s} divide each other"
                )
            if not intops.prove_le(rest_shape, next_shape):
                raise LayoutError(
                    f"{why()}: stride divisibility condition: stride {d_abs} does not divide mode {i} "
                    f"of shape {s}, and cannot prove that {rest_shape} <= {next_shape}"
                )
        if intops.prove_le(rest_shape, next_shape):
            new_shape = rest_shape
            remaining: Any = 1
        elif intops.prove_le(next_shape, rest_shape):
            # next_shape = s/d exactly here (d divides s); `rest_shape % (s/d) == 0` is proven as
            # `s | rest_shape*d`, which needs no division atom: with s = N, d = 4, rest = 2*N it
            # is `N | 8*N` where `N // 4 | 2*N` is out of reach of a polynomial canonical form.
            new_shape = next_shape
            scaled = rest_shape * d_abs
            if not (intops.divides(new_shape, rest_shape) or intops.divides(s, scaled)):
                raise LayoutError(
                    f"{why()}: shape divisibility condition: cannot prove that {new_shape} divides {rest_shape}"
                )
            remaining = scaled // s
        else:
            raise LayoutError(
                f"{why()}: cannot order {next_shape} (from mode {i} of shape {s}) and {rest_shape} "
                "for all values of their symbols"
            )
        if usage is not None:
            usage.add(key, i, s, (new_shape - 1) * d_abs)
        result_shape.append(new_shape)
        result_stride.append(rest_stride * ld[i])
        rest_shape = remaining
        rest_stride = next_stride
    return _finish(result_shape, result_stride, rest_shape, rest_stride, ld[-1])


def _negative(x: Any, why: Any) -> bool:
    try:
        return it.is_negative(x, "")
    except LayoutError:
        raise LayoutError(f"{why()}: cannot determine the sign of the stride {x}") from None


def _compose_layout_swizzle(a: Layout, sw: Swizzle) -> Swizzle:
    """composition(Layout, Swizzle): the swizzle seen through the layout (CuTe, simple cases)."""
    y = it.crd2idx(sw.yyy_mask, a.shape, a.stride)
    z = it.crd2idx(sw.zzz_mask, a.shape, a.stride)
    if type(y) is not int or type(z) is not int:
        raise LayoutError(f"composition({a}, {sw}): needs a static integer layout")
    return make_swizzle(y, z)
