"""Symbol-generic memos: a result of the layout algebra computed for some symbols is the same
result, renamed, for any other symbols with the same facts.

The analysis binds a fresh symbol (``Symbol.fresh``: a new uid) to each run-time value of each
function it reads, so the same view of the same tile (a thread's slice by ``tid_x``, bounded by
the block) is a new computation for every pass that asks and for every compile. Nothing in the
symbolic engine depends on a symbol's identity beyond its facts (divisibility and bounds) and its
place in the canonical order (``_okey``: name, then uid): renaming each fresh symbol to a
*placeholder* with the same name and facts and a uid that keeps the order of same-named symbols
(``-1, -2, ...``: negative, so never a fresh symbol's) maps every computation to one on
placeholders, step for step. :func:`generic_key` renames the arguments (None when they hold
anything other than ints, symbolic integers, int-tuples, ``_``, swizzles and layouts of those);
:func:`rename` maps a result back.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.inttuple import Underscore
from layoutc.ir.algebra.layout import Layout
from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.sym.expr import Op, Sum, Symbol, make_op, make_sum

__all__ = ["generic_key", "rename", "symbols_within"]

_UNSUPPORTED = object()


def _collect(x: Any, found: dict) -> bool:
    """Add the fresh symbols of ``x`` to ``found``; False for a value this module cannot
    rename."""
    t = type(x)
    if t is int or t is Underscore or t is Swizzle:
        return True
    if t is tuple:
        return all(type(e) is int or _collect(e, found) for e in x)
    if t is Symbol or t is Sum or t is Op:
        for s in x.free_symbols:
            if s.uid is not None:
                found[s] = None
        return True
    if t is Layout:
        return _collect(x.shape, found) and _collect(x.stride, found)
    if t is ComposedLayout:
        return _collect(x.outer, found) and _collect(x.offset, found) and _collect(x.inner, found)
    return False


def _placeholder(s: Symbol, rank: int) -> Symbol:
    return Symbol(
        s.name,
        divisible_by=s.divisible_by,
        lower=s.lower,
        upper=s.upper,
        positive=False,
        uid=-1 - rank,
    )


def generic_key(values: tuple) -> tuple[tuple, dict, dict] | None:
    """(``values`` with each fresh symbol renamed to its placeholder, symbol -> placeholder,
    placeholder -> symbol), or None when a value cannot be renamed."""
    found: dict = {}
    if not _collect(values, found):
        return None
    by_name: dict[str, list[Symbol]] = {}
    for s in found:
        by_name.setdefault(s.name, []).append(s)
    forward: dict = {}
    for same in by_name.values():
        same.sort(key=lambda s: s.uid)
        for rank, s in enumerate(same):
            forward[s] = _placeholder(s, rank)
    backward = {p: s for s, p in forward.items()}
    return rename(values, forward), forward, backward


def symbols_within(x: Any, allowed: dict) -> bool:
    """Whether every fresh symbol of ``x`` is a key of ``allowed`` (and ``x`` renamable)."""
    found: dict = {}
    return _collect(x, found) and all(s in allowed for s in found)


def rename(x: Any, mapping: dict, memo: dict | None = None) -> Any:
    """``x`` with the symbols of ``mapping`` replaced (values :func:`_collect` accepts)."""
    if not mapping:
        return x
    return _rename(x, mapping, {} if memo is None else memo)


def _rename(x: Any, mapping: dict, memo: dict) -> Any:
    t = type(x)
    if t is int or t is Underscore or t is Swizzle:
        return x
    if t is tuple:
        # (a part without renamed symbols is kept, the same object)
        parts = [e if type(e) is int else _rename(e, mapping, memo) for e in x]
        return x if all(a is b for a, b in zip(parts, x)) else tuple(parts)
    if t is Layout:
        shape, stride = _rename(x.shape, mapping, memo), _rename(x.stride, mapping, memo)
        return x if shape is x.shape and stride is x.stride else Layout._new(shape, stride)
    if t is ComposedLayout:
        outer = _rename(x.outer, mapping, memo)
        offset = _rename(x.offset, mapping, memo)
        inner = _rename(x.inner, mapping, memo)
        if outer is x.outer and offset is x.offset and inner is x.inner:
            return x
        return ComposedLayout(outer, offset, inner)
    found = memo.get(x)
    if found is not None:
        return found
    if t is not Symbol and not any(s in mapping for s in x.free_symbols):
        found = x
    elif t is Symbol:
        found = mapping.get(x, x)
    elif t is Sum:
        # the order of terms and of atoms is kept: the renaming keeps the canonical order
        terms = tuple(
            (tuple((_rename(a, mapping, memo), e) for a, e in mono), k) for mono, k in x.terms
        )
        found = make_sum(x.const, terms)
        if x._nf and type(found) is Sum:
            found._nf = True  # a fixed point of the builder stays one (arith.build)
    else:
        found = make_op(x.kind, tuple(_rename(a, mapping, memo) for a in x.args))
    memo[x] = found
    return found
