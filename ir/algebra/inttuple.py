"""CuTe's IntTuple: an integer or a (nested) tuple of IntTuples.

Shapes, strides and coordinates are IntTuples. Leaves are plain Python ints (static values,
fast path) or symbolic integers (`SymInt`); stride leaves may also be `ScaledBasis` values
(basis.py) or a `CustomStride` (gather.py). This module holds the tuple operations of
`include/cute/int_tuple.hpp` and `stride.hpp` (crd2idx, idx2crd, compact strides) with CuTe's
semantics; every arithmetic step that may see a symbol goes through `intops` or the Python
operators that `SymInt` overloads, never through `<` or `bool()`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from . import intops
from .errors import LayoutError, LayoutZeroDivisionError

_SYMINT_MODULE = __name__.rpartition(".")[0] + ".sym.expr"  # where SymInt is defined

IntTuple = Any  # int | SymInt | tuple[IntTuple, ...]


class Underscore:
    """CuTe's `_`: keeps a mode when slicing, and is a no-op tiler."""

    __slots__ = ()
    _instance: Underscore | None = None

    def __new__(cls) -> Underscore:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "_"

    def __reduce__(self) -> str:
        return "_"


_ = Underscore()


# ----------------------------------------------------------------------------------------------
# Structure
# ----------------------------------------------------------------------------------------------


def is_tuple(x: object) -> bool:
    return isinstance(x, tuple)


def all_int(t: tuple) -> bool:
    """True when every element of a flat tuple is a plain int (the static fast path)."""
    for x in t:  # noqa: SIM110 - an explicit loop is faster than all() on small tuples
        if type(x) is not int:
            return False
    return True


def is_flat(t: tuple) -> bool:
    return not any(isinstance(x, tuple) for x in t)


def _flatten_into(t: tuple, out: list) -> None:
    for x in t:
        if isinstance(x, tuple):
            _flatten_into(x, out)
        else:
            out.append(x)


def flatten(t: IntTuple) -> IntTuple:
    """Depth-1 tuple of the leaves of `t`; a non-tuple is returned unchanged."""
    if not isinstance(t, tuple):
        return t
    for x in t:
        if isinstance(x, tuple):
            out: list = []
            _flatten_into(t, out)
            return tuple(out)
    return t


def flatten_to_tuple(t: IntTuple) -> tuple:
    """Like `flatten`, but a non-tuple becomes a rank-1 tuple."""
    if not isinstance(t, tuple):
        return (t,)
    return flatten(t)


def wrap(t: IntTuple) -> tuple:
    return t if isinstance(t, tuple) else (t,)


def unwrap(t: IntTuple) -> IntTuple:
    """The single element of a rank-1 tuple (recursively), else `t`."""
    while isinstance(t, tuple) and len(t) == 1:
        t = t[0]
    return t


def rank(t: IntTuple) -> int:
    return len(t) if isinstance(t, tuple) else 1


def depth(t: IntTuple) -> int:
    if not isinstance(t, tuple):
        return 0
    return 1 + max((depth(x) for x in t), default=0)


def get(t: IntTuple, *index: int) -> IntTuple:
    """Hierarchical get<I0, I1, ...>: get<0> of a non-tuple is the value itself."""
    for i in index:
        if isinstance(t, tuple):
            if not -len(t) <= i < len(t):
                raise LayoutError(
                    f"get: index {i} out of range for {format_tuple(t)} of rank {len(t)}"
                )
            t = t[i]
        elif i != 0:
            raise LayoutError(f"get: index {i} out of range for {format_tuple(t)} of rank 1")
    return t


def product(t: IntTuple) -> Any:
    """Product of all leaves (CuTe's size of an IntTuple); 1 for the empty tuple."""
    if not isinstance(t, tuple):
        return t
    result: Any = 1
    for x in t:
        result = result * (product(x) if isinstance(x, tuple) else x)
    return result


def product_each(t: IntTuple) -> tuple:
    return tuple(product(x) for x in wrap(t))


def product_like(t: IntTuple, guide: IntTuple) -> IntTuple:
    """Product of `t` at the leaves of `guide`."""
    if isinstance(guide, tuple):
        return tuple(product_like(x, g) for x, g in zip(wrap(t), guide))
    return product(t)


def sum_(t: IntTuple) -> Any:
    if not isinstance(t, tuple):
        return t
    result: Any = 0
    for x in t:
        result = result + sum_(x)
    return result


def inner_product(a: IntTuple, b: IntTuple) -> Any:
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            raise LayoutError(
                f"inner_product: mismatched ranks {format_tuple(a)} and {format_tuple(b)}"
            )
        result: Any = 0
        for x, y in zip(a, b):
            result = result + inner_product(x, y)
        return result
    return a * b


def repeat_like(t: IntTuple, x: Any) -> IntTuple:
    if isinstance(t, tuple):
        return tuple(repeat_like(e, x) for e in t)
    return x


def repeat(n: int, x: Any) -> Any:
    """CuTe's repeat<N>: `x` itself for N == 1, else an N-tuple of x."""
    return x if n == 1 else (x,) * n


def transform_leaf(t: IntTuple, f: Callable[[Any], Any]) -> IntTuple:
    if isinstance(t, tuple):
        return tuple(transform_leaf(e, f) for e in t)
    return f(t)


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """Same hierarchical profile."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(congruent, a, b))
    return not isinstance(b, tuple)


def weakly_congruent(a: IntTuple, b: IntTuple) -> bool:
    """`a`'s profile is a coarsening of `b`'s (a <= b)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(weakly_congruent, a, b))
    return True


def compatible(a: IntTuple, b: IntTuple) -> bool:
    """Every coordinate of shape `a` is a coordinate of shape `b` (and the sizes agree)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(compatible, a, b))
    return intops.prove_eq(a, product(b))


def unflatten(flat: IntTuple, profile: IntTuple) -> IntTuple:
    """Rebuild the hierarchy of `profile` from the leaves in `flat`."""
    leaves = list(flatten_to_tuple(flat))
    it = iter(leaves)
    try:
        result = _unflatten(profile, it)
    except StopIteration:
        raise LayoutError(
            f"unflatten: {format_tuple(flat)} has too few leaves for profile {format_tuple(profile)}"
        ) from None
    if next(it, it) is not it:
        raise LayoutError(
            f"unflatten: {format_tuple(flat)} has too many leaves for profile {format_tuple(profile)}"
        )
    return result


def _unflatten(p: IntTuple, leaves: Iterator[Any]) -> IntTuple:
    # a module function, not a closure: a self-recursive closure is cyclic garbage
    if isinstance(p, tuple):
        return tuple([_unflatten(x, leaves) for x in p])
    return next(leaves)


def elem_scale(a: IntTuple, b: IntTuple) -> IntTuple:
    if isinstance(a, tuple):
        return tuple(elem_scale(x, y) for x, y in zip(a, wrap(b)))
    return a * product(b)


def filter_zeros_tuple(a: IntTuple, b: IntTuple) -> IntTuple:
    """Replace the elements of `b` paired with a 0 in `a` by 1."""
    if isinstance(a, tuple):
        return tuple(filter_zeros_tuple(x, y) for x, y in zip(a, b))
    if type(a) is int and a == 0:
        return repeat_like(b, 1)
    return b


# ----------------------------------------------------------------------------------------------
# Tuple editing (append/prepend/take/select/group/replace/zip)
# ----------------------------------------------------------------------------------------------


def append(t: IntTuple, x: Any, n: int | None = None) -> IntTuple:
    """append(t, x), or append<N>(t, x): pad `t` with copies of `x` up to rank N."""
    if n is None:
        return (*t, x) if isinstance(t, tuple) else (t, x)
    if isinstance(t, tuple):
        if n < len(t):
            raise LayoutError(f"append: rank {len(t)} of {format_tuple(t)} is larger than {n}")
        return t + (x,) * (n - len(t))
    if n < 1:
        raise LayoutError(f"append: rank 1 of {format_tuple(t)} is larger than {n}")
    return t if n == 1 else (t,) + (x,) * (n - 1)


def prepend(t: IntTuple, x: Any, n: int | None = None) -> IntTuple:
    if n is None:
        return (x, *t) if isinstance(t, tuple) else (x, t)
    if isinstance(t, tuple):
        if n < len(t):
            raise LayoutError(f"prepend: rank {len(t)} of {format_tuple(t)} is larger than {n}")
        return (x,) * (n - len(t)) + t
    if n < 1:
        raise LayoutError(f"prepend: rank 1 of {format_tuple(t)} is larger than {n}")
    return t if n == 1 else (x,) * (n - 1) + (t,)


def _check_range(what: str, t: IntTuple, b: int, e: int) -> None:
    r = rank(t)
    if not (0 <= b < e <= r):
        raise LayoutError(f"{what}: range [{b},{e}) is empty or out of bounds for rank {r}")


def take(t: IntTuple, b: int, e: int) -> IntTuple:
    """Modes [b, e) (CuTe's take<B,E>); an empty range is an error as in CuTe."""
    _check_range("take", t, b, e)
    return wrap(t)[b:e]


def select(t: IntTuple, *idx: int | tuple[int, ...]) -> tuple:
    """Modes idx (CuTe's select<I...>), given as ints or as one tuple of ints: `select(t, 2, 0)`
    and `select(t, (2, 0))` are the same, since users write CuTe's index pack either way."""
    w = wrap(t)
    indices = select_indices(idx)
    for i in indices:
        if not 0 <= i < len(w):
            raise LayoutError(f"select: mode {i} out of range for rank {len(w)}")
    return tuple(w[i] for i in indices)


def select_indices(idx: tuple) -> tuple[int, ...]:
    """The mode indices of a select call: the ints, or the ints of a single tuple/list."""
    if len(idx) == 1 and isinstance(idx[0], (tuple, list)):
        idx = tuple(idx[0])
    for i in idx:
        if type(i) is not int:
            raise LayoutError(
                f"select: mode indices must be ints (select(L, 2, 0) or select(L, (2, 0))), "
                f"got {i!r}"
            )
    return idx


def group(t: IntTuple, b: int, e: int) -> IntTuple:
    """Group modes [b, e) into a single mode (CuTe's group<B,E>); e == -1 means 'to the end'."""
    w = wrap(t)
    if e == -1:
        e = len(w)
    if not (0 <= b <= e <= len(w)):
        raise LayoutError(f"group: range [{b},{e}) out of bounds for rank {len(w)}")
    if b == e:
        return w[:b] + w[e:]
    return (*w[:b], w[b:e], *w[e:])


def replace(t: IntTuple, i: int, x: Any) -> IntTuple:
    if not isinstance(t, tuple):
        if i != 0:
            raise LayoutError(f"replace: mode {i} out of range for rank 1")
        return x
    if not 0 <= i < len(t):
        raise LayoutError(f"replace: mode {i} out of range for rank {len(t)}")
    return (*t[:i], x, *t[i + 1 :])


def zip_(t: IntTuple) -> IntTuple:
    """CuTe's zip: ((a,b,c),(x,y,z)) -> ((a,x),(b,y),(c,z))."""
    if not isinstance(t, tuple):
        return t
    if not t or not isinstance(t[0], tuple):
        return (t,)
    n = len(t[0])
    for x in t:
        if not isinstance(x, tuple) or len(x) != n:
            raise LayoutError(f"zip: mismatched ranks in {format_tuple(t)}")
    return tuple(tuple(x[j] for x in t) for j in range(n))


def zip2_by(t: IntTuple, guide: Any) -> IntTuple:
    """Guided zip of rank-2 modes: ((A,a),((B,b),(C,c)),d) by (X,(X,X)) -> ((A,(B,C)),(a,(b,c),d))."""
    if isinstance(guide, tuple):
        tt = wrap(t)
        if len(tt) < len(guide):
            raise LayoutError(
                f"zip2_by: {format_tuple(t)} has fewer modes than the tiler {len(guide)}"
            )
        split = [zip2_by(tt[i], guide[i]) for i in range(len(guide))]
        return (tuple(s[0] for s in split), tuple(s[1] for s in split) + tt[len(guide) :])
    if not isinstance(t, tuple) or len(t) != 2:
        raise LayoutError(f"zip2_by: expected a rank-2 mode, got {format_tuple(t)}")
    return t


# ----------------------------------------------------------------------------------------------
# Arithmetic on tuples
# ----------------------------------------------------------------------------------------------


def ceil_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's ceil_div on IntTuples (tuple/int folds the divisor through the modes)."""
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            if len(b) > len(a):
                raise LayoutError(
                    f"ceil_div: mismatched ranks {format_tuple(a)} and {format_tuple(b)}"
                )
            b = b + (1,) * (len(a) - len(b))
            return tuple(ceil_div(x, y) for x, y in zip(a, b))
        out = []
        rest = b
        for x in a:
            out.append(ceil_div(x, rest))
            rest = ceil_div(rest, x)
        return tuple(out)
    if isinstance(b, tuple):
        return ceil_div(a, product(b))
    return intops.ceil_div(a, b)


def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's shape_div: like ceil_div but requires divisibility (a|b or b|a) at each step."""
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            if len(a) != len(b):
                raise LayoutError(
                    f"shape_div: mismatched ranks {format_tuple(a)} and {format_tuple(b)}"
                )
            return tuple(shape_div(x, y) for x, y in zip(a, b))
        out = []
        rest = b
        for x in a:
            out.append(shape_div(x, rest))
            rest = shape_div(rest, x)
        return tuple(out)
    if isinstance(b, tuple):
        return shape_div(a, product(b))
    return intops.shape_div(a, b)


def prefix_product(t: IntTuple, init: Any = 1) -> IntTuple:
    """Exclusive prefix product in colexicographic order (generalized column-major strides)."""
    if isinstance(t, tuple):
        out = []
        cur = init
        for x in t:
            out.append(prefix_product(x, cur))
            cur = cur * product(x)
        return tuple(out)
    return init


def compact_col_major(shape: IntTuple, current: Any = 1) -> IntTuple:
    """LayoutLeft strides: exclusive prefix product left to right; size-1 modes get stride 0."""
    if isinstance(current, tuple):
        return tuple(compact_col_major(s, c) for s, c in zip(shape, current))
    return _compact_left(shape, current)[0]


def _compact_left(shape: IntTuple, current: Any) -> tuple[IntTuple, Any]:
    if isinstance(shape, tuple):
        out = []
        for s in shape:
            r, current = _compact_left(s, current)
            out.append(r)
        return tuple(out), current
    if type(shape) is int and shape == 1:
        return 0, current
    return current, current * shape


def compact_row_major(shape: IntTuple, current: Any = 1) -> IntTuple:
    """LayoutRight strides: exclusive prefix product right to left, regardless of hierarchy."""
    if isinstance(current, tuple):
        return tuple(compact_row_major(s, c) for s, c in zip(shape, current))
    return _compact_right(shape, current)[0]


def _compact_right(shape: IntTuple, current: Any) -> tuple[IntTuple, Any]:
    if isinstance(shape, tuple):
        out = []
        for s in reversed(shape):
            r, current = _compact_right(s, current)
            out.append(r)
        out.reverse()
        return tuple(out), current
    if type(shape) is int and shape == 1:
        return 0, current
    return current, current * shape


def compact_order(shape: IntTuple, order: IntTuple) -> IntTuple:
    """Compact strides visiting the modes of `shape` in increasing `order` (CuTe compact_order)."""
    flat_order = flatten_to_tuple(order)
    for o in flat_order:
        if type(o) is not int:
            raise LayoutError(
                f"compact_order: the order {format_tuple(order)} must be static integers"
            )
    if not weakly_congruent(order, shape):
        raise LayoutError(
            f"compact_order: order {format_tuple(order)} does not match shape {format_tuple(shape)}"
        )
    ref_shape = flatten_to_tuple(product_like(shape, order))

    def build(s: IntTuple, o: IntTuple) -> IntTuple:
        if isinstance(o, tuple):
            return tuple(build(x, y) for x, y in zip(s, o))
        start: Any = 1
        for rs, ro in zip(ref_shape, flat_order):
            if ro < o:
                start = start * rs
        return compact_col_major(s, start)

    return build(shape, order)


def coalesce_shape(shape: IntTuple) -> IntTuple:
    """CuTe's coalesce(Shape): multiply neighbouring leaves that are both static or both symbolic."""
    flat = flatten_to_tuple(shape)
    out = [flat[0]]
    for a in flat[1:]:
        if (type(out[-1]) is int) == (type(a) is int):
            out[-1] = out[-1] * a
        else:
            out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


# ----------------------------------------------------------------------------------------------
# Coordinates
# ----------------------------------------------------------------------------------------------


def _divmod(c: Any, n: Any) -> tuple[Any, Any]:
    """Quotient and remainder with C++ semantics (truncation) for negative static values."""
    if type(c) is int and type(n) is int:
        if n == 0:
            raise LayoutZeroDivisionError(f"division by zero: {c} / 0 (a shape of size 0)")
        if c >= 0:
            return divmod(c, n)
        q = -(-c // n)
        return q, c - q * n
    return c // n, c % n


def crd2idx(coord: IntTuple, shape: IntTuple, stride: IntTuple) -> Any:
    """Map a coordinate (1-D, R-D or natural) to an index: CuTe's crd2idx(c, shape, stride).

    No range check: coordinates past the end extrapolate through the last mode, as in CuTe.
    """
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple):
            raise LayoutError(
                f"coordinate {format_tuple(coord)} has more modes than shape {format_tuple(shape)}"
            )
        if len(coord) != len(shape):
            raise LayoutError(
                f"coordinate {format_tuple(coord)} has rank {len(coord)} but shape {format_tuple(shape)} has rank {len(shape)}"
            )
        result: Any = 0
        for c, s, d in zip(coord, shape, stride):
            result = result + crd2idx(c, s, d)
        return result
    if isinstance(shape, tuple):
        if type(coord) is not int:
            return _crd2idx_symbolic(coord, shape, stride)
        return _crd2idx_modes(coord, shape, stride)
    if type(stride) is int and type(coord) is int:
        return coord * stride
    apply = getattr(stride, "apply_stride", None)
    if apply is not None:
        return apply(coord)
    return coord * stride


_SYMBOLIC_MEMO: dict[tuple[Any, Any, Any], Any] = {}
_SYMBOLIC_MEMO_SIZE = 4096


def _crd2idx_symbolic(coord: Any, shape: tuple, stride: Any) -> Any:
    """:func:`crd2idx` of a symbolic 1-D coordinate over a tuple shape, memoised: splitting it
    into the modes' coordinates takes symbolic divisions, and the tracer, the verifier and the
    passes ask for the same ones (a thread index through a partition) again and again. The
    key's parts compare structurally (SymInts by their interned canonical form), and the
    result depends on nothing else."""
    key = (coord, shape, stride)
    try:
        found = _SYMBOLIC_MEMO.get(key)
    except TypeError:  # an unhashable stride: compute without the memo
        return _crd2idx_modes(coord, shape, stride)
    if found is None:
        found = _crd2idx_modes(coord, shape, stride)
        if len(_SYMBOLIC_MEMO) >= _SYMBOLIC_MEMO_SIZE:
            _SYMBOLIC_MEMO.clear()
        _SYMBOLIC_MEMO[key] = found
    return found


def _crd2idx_modes(coord: Any, shape: tuple, stride: Any) -> Any:
    """:func:`crd2idx` of a 1-D coordinate over a tuple shape (colexicographic split)."""
    n = len(shape)
    if n == 0:
        return 0
    result = 0
    last = n - 1
    for i in range(last):
        s = shape[i]
        d = stride[i]
        if type(coord) is int and type(s) is int and type(d) is int and coord >= 0:
            result = result + (coord % s) * d  # the static fast path
            coord //= s
            continue
        q, r = _divmod(coord, product(s) if isinstance(s, tuple) else s)
        result = result + crd2idx(r, s, d)
        coord = q
    s = shape[last]
    d = stride[last]
    if type(coord) is int and type(d) is int and type(s) is int:
        return result + coord * d
    return result + crd2idx(coord, s, d)


def crd2idx_colex(coord: IntTuple, shape: IntTuple) -> Any:
    """CuTe's crd2idx(c, shape): the colexicographic 1-D index of a coordinate within `shape`."""
    if not isinstance(coord, tuple):
        return coord
    if not isinstance(shape, tuple) or len(coord) != len(shape):
        raise LayoutError(
            f"coordinate {format_tuple(coord)} does not match shape {format_tuple(shape)}"
        )
    result: Any = 0
    scale: Any = 1
    for c, s in zip(coord, shape):
        result = result + crd2idx_colex(c, s) * scale
        scale = scale * product(s)
    return result


def idx2crd(idx: IntTuple, shape: IntTuple, stride: IntTuple | None = None) -> IntTuple:
    """Split an index into the natural coordinate of `shape` (colexicographic), or, with
    `stride`, CuTe's idx2crd(i, shape, stride) = (i / stride) % shape per leaf."""
    if stride is not None:
        return _idx2crd_strided(idx, shape, stride)
    if isinstance(idx, tuple):
        if not isinstance(shape, tuple) or len(idx) != len(shape):
            raise LayoutError(
                f"coordinate {format_tuple(idx)} does not match shape {format_tuple(shape)}"
            )
        return tuple(idx2crd(i, s) for i, s in zip(idx, shape))
    if isinstance(shape, tuple):
        out = []
        n = len(shape)
        for k, s in enumerate(shape):
            if k == n - 1:
                out.append(idx2crd(idx, s))
            else:
                q, r = _divmod(idx, product(s))
                out.append(idx2crd(r, s))
                idx = q
        return tuple(out)
    return idx


def _idx2crd_strided(idx: Any, shape: IntTuple, stride: IntTuple) -> IntTuple:
    if isinstance(idx, tuple):
        return tuple(_idx2crd_strided(i, s, d) for i, s, d in zip(idx, shape, stride))
    if isinstance(shape, tuple):
        if not isinstance(stride, tuple):
            stride = compact_col_major(shape, stride)
        return tuple(_idx2crd_strided(idx, s, d) for s, d in zip(shape, stride))
    if type(shape) is int and shape == 1:
        return 0
    if type(stride) is int and stride == 0:
        raise LayoutZeroDivisionError(
            f"idx2crd: a mode of size {format_tuple(shape)} has stride 0 (the index does not "
            "determine its coordinate)"
        )
    return (idx // stride) % shape


def crd2crd(coord: IntTuple, src_shape: IntTuple, dst_shape: IntTuple) -> IntTuple:
    if isinstance(coord, tuple) and isinstance(src_shape, tuple) and isinstance(dst_shape, tuple):
        return tuple(crd2crd(c, s, d) for c, s, d in zip(coord, src_shape, dst_shape))
    return idx2crd(crd2idx_colex(coord, src_shape), dst_shape)


def has_underscore(coord: IntTuple) -> bool:
    if coord is _:
        return True
    if isinstance(coord, tuple):
        return any(has_underscore(c) for c in coord)
    return False


def slice_tuple(coord: IntTuple, t: IntTuple) -> IntTuple:
    """Keep the elements of `t` paired with `_` in `coord` (CuTe's slice on tuples)."""
    if isinstance(coord, tuple):
        out: list = []
        for c, x in zip(coord, t):
            out.extend(_lift_slice(c, x))
        return tuple(out)
    if coord is _:
        return t
    return ()


def _lift_slice(c: IntTuple, x: IntTuple) -> tuple:
    if isinstance(c, tuple):
        out: list = []
        for ci, xi in zip(c, x):
            out.extend(_lift_slice(ci, xi))
        return tuple(out)
    if c is _:
        return (x,)
    return ()


def dice_tuple(coord: IntTuple, t: IntTuple) -> IntTuple:
    """Keep the elements of `t` paired with integers in `coord` (CuTe's dice on tuples)."""
    if isinstance(coord, tuple):
        out: list = []
        for c, x in zip(coord, t):
            out.extend(_lift_dice(c, x))
        return tuple(out)
    if coord is _:
        return ()
    return t


def _lift_dice(c: IntTuple, x: IntTuple) -> tuple:
    if isinstance(c, tuple):
        out: list = []
        for ci, xi in zip(c, x):
            out.extend(_lift_dice(ci, xi))
        return tuple(out)
    if c is _:
        return ()
    return (x,)


def underscore_to_zero(coord: IntTuple) -> IntTuple:
    if coord is _:
        return 0
    if isinstance(coord, tuple):
        return tuple(underscore_to_zero(c) for c in coord)
    return coord


# ----------------------------------------------------------------------------------------------
# Signs (negative strides follow CuTe's abs/signum rules)
# ----------------------------------------------------------------------------------------------


def abs_value(x: Any, why: str) -> Any:
    """|x|; for a symbol the sign must be provable."""
    if type(x) is int:
        return -x if x < 0 else x
    if intops.prove_le(0, x):
        return x
    if intops.prove_le(x, 0):
        return -x
    raise LayoutError(f"{why}: cannot determine the sign of {x}")


def is_negative(x: Any, why: str) -> bool:
    if type(x) is int:
        return x < 0
    if intops.prove_le(0, x):
        return False
    if intops.prove_lt(x, 0):
        return True
    raise LayoutError(f"{why}: cannot determine the sign of {x}")


# ----------------------------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------------------------


def format_leaf(x: Any, static_markers: bool = False) -> str:
    if type(x) is int:
        return f"_{x}" if static_markers else str(x)
    if x is _:
        return "_"
    fmt = getattr(type(x), "cute_format", None)
    if fmt is not None:
        return fmt(x, static_markers)
    return str(x)


def format_tuple(t: Any, static_markers: bool = False) -> str:
    """CuTe notation: `(2,(3,4))`, no spaces; with `static_markers` ints print as `_2`."""
    if isinstance(t, tuple):
        return "(" + ",".join(format_tuple(x, static_markers) for x in t) + ")"
    return format_leaf(t, static_markers)


def to_int_tuple(t: Any, what: str = "value") -> IntTuple:
    """Normalize user input: int-like objects (numpy ints...) become ints, lists become tuples."""
    if type(t) is int:
        return t
    if isinstance(t, (tuple, list)):
        return tuple(to_int_tuple(x, what) for x in t)
    if isinstance(t, bool):
        raise LayoutError(f"{what}: expected an integer, got the bool {t}")
    if is_symbolic(t):
        return t
    try:
        import operator

        return operator.index(t)
    except TypeError:
        raise LayoutError(
            f"{what}: expected an integer or a tuple of integers, got {t!r}"
        ) from None


def check_positive_shape(shape: IntTuple, what: str) -> None:
    for s in flatten_to_tuple(shape):
        if type(s) is int:
            if s < 1:
                raise LayoutError(
                    f"{what}: shape entries must be positive, got {s} in {format_tuple(shape)}"
                )
        elif not is_symbolic(s):
            raise LayoutError(f"{what}: shape entries must be integers, got {s!r}")


def is_symbolic(x: object) -> bool:
    """True for a symbolic integer (`SymInt`); False while the symbolic engine is not loaded.

    The engine's module is looked up, not imported: no SymInt exists before it is loaded, and
    the lookup costs a tenth of an import statement (the layout walks ask per entry)."""
    if type(x) is int:
        return False
    cls = getattr(sys.modules.get(_SYMINT_MODULE), "SymInt", None)  # None: not (yet) loaded
    return cls is not None and isinstance(x, cls)
