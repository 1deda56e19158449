"""The vectorization proof of a copy or a fill: the widest access legal for every value of the
symbols.

A copy moves ``size`` elements; element ``i`` of the source goes to element ``i`` of the
destination (logical, colexicographic order). It may move ``w`` elements per access when:

1. **element size**: source and destination hold one element type and ``w * bits`` is 8, 16,
   32, 64 or 128 bits;
2. **contiguity**: ``w`` divides the length of the longest run that both layouts map to
   consecutive addresses (the algebra's ``max_common_layout``), which gives the *lanes*
   ``cv`` (lane -> logical index), and the copy's domain splits as ``R = (cv, complement(cv))``
   ("divisibility of extents": the complement must exist, e.g. ``w | N`` for a symbolic
   extent N); ``composition(layout, R)`` must then map the lanes to ``w:1`` in both tensors;
3. **alignment** (global and shared memory): the base is aligned to ``w * bits / 8`` bytes, and
   the tensor's offset and every stride between accesses (the strides of
   ``composition(layout, R)`` beyond the lanes) are multiples of ``w`` elements, for all values
   of the symbols (:func:`..analysis.proofs.prove_divisible`). Register fragments need no
   alignment: their accesses carry whatever alignment is proven for them.
4. **swizzles** (``Sw<B,M,S> o offset o L``): the swizzle rewrites only the index bits from
   ``M`` up, so ``w`` lanes survive it when ``w`` divides ``2^M`` and every access starts at a
   multiple of ``w`` before it (the composed offset, dynamic for a thread's slice, and the
   strides between accesses); the remark says so.

For ``copy_if`` the predicate must also be the same for all lanes of every vector
(:mod:`.uniform_predicate`: a stride-0 predicate tensor, or a coordinate predicate whose lanes
walk one coordinate from a multiple of ``w`` below a bound that is a multiple of ``w``).

A fill (or clear) is a copy from a broadcast value: the same proof with the destination as the
only side (:func:`plan_fill`). A register fragment is filled element by element (each element
is its own register; there is no memory access to widen).

The result, :class:`CopyPlan`, carries the tiling ``R`` that lower-algorithms iterates and the
sentence prove-vectorization reports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from layoutc.ir.algebra import composition, intops, make_layout
from layoutc.ir.algebra.complement import complement
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.layout import Layout, coalesce, cosize, get, size
from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.vector import max_common_layout

from ..analysis.proofs import prove_divisible
from ..analysis.symbolic import TensorInfo, aligned_after
from .contiguity import contiguity_reason
from .gather_vectors import POSITION_SCALE, NoProxy, dense_proxy
from .uniform_predicate import uniform_predicate
from .vector_common import Refused, describe, rest_strides, unit_run

__all__ = ["CopyPlan", "describe", "plan_copy", "plan_fill", "MAX_VECTOR_BITS"]

MAX_VECTOR_BITS = 128
MEMORY = ("gmem", "smem")

Side = tuple[str, TensorInfo]
"""A tensor an access touches and how remarks name it (``source``, ``destination``,
``tensor``)."""


@dataclass(frozen=True)
class CopyPlan:
    """How a copy (or a fill) is vectorized.

    ``bits``: the access width in bits (the element width for element-wise accesses);
    ``width``: elements per access; ``tiling``: the layout ``(lanes, rest) -> logical index``
    (None for element-wise accesses); ``alignments``: the byte alignment proven for each
    side's accesses (source, destination; a fill has one side); ``reason``: why this width, in
    words.
    """

    bits: int
    width: int
    tiling: Any
    alignments: tuple[int, ...]
    reason: str


def _elem_name(info: TensorInfo) -> str:
    return info.element.text if info.element is not None else "coord"


def _bits(info: TensorInfo) -> int:
    return info.element_bytes * 8


def plan_copy(
    src: TensorInfo,
    dst: TensorInfo,
    *,
    max_bits: int = MAX_VECTOR_BITS,
    pred: TensorInfo | None = None,
    bounds: Any = None,
) -> CopyPlan:
    """The widest legal access of ``copy(src, dst)`` (``copy_if`` when ``pred`` is given)."""
    e = _bits(src)
    name = _elem_name(src)
    scalar = (src.element_bytes, dst.element_bytes)
    if src.element is not dst.element:
        why = f"element types differ ({name} -> {_elem_name(dst)}): each element is converted"
        return CopyPlan(e, 1, None, scalar, why)
    sides = [("source", src), ("destination", dst)]
    return _gathered(sides, e, name, max_bits, pred, bounds)


def plan_fill(dst: TensorInfo, *, max_bits: int = MAX_VECTOR_BITS) -> CopyPlan:
    """The widest legal store of ``fill(dst, v)``/``clear(dst)``: a copy from a broadcast value,
    so only the destination's contiguity and alignment count."""
    e = _bits(dst)
    name = _elem_name(dst)
    if dst.space not in MEMORY:
        why = f"the tensor is a register fragment: each {name} is its own register"
        return CopyPlan(e, 1, None, (dst.element_bytes,), why)
    return _gathered([("tensor", dst)], e, name, max_bits, None, None)


def _gathered(
    sides: Sequence[Side], e: int, name: str, max_bits: int, pred: TensorInfo | None, bounds: Any
) -> CopyPlan:
    """:func:`_widest` with each gather side replaced by its dense proxy
    (:mod:`.gather_vectors`), the width capped by the gathered rows' stride (the row starts
    are aligned to it only), and a remark naming the rows."""
    proxied = []
    notes = []
    for role, info in sides:
        try:
            found = dense_proxy(info)
        except NoProxy as why:
            scalar = tuple(i.element_bytes for _, i in sides)
            return CopyPlan(e, 1, None, scalar, f"the {role} is gathered element by element: {why}")
        if found is None:
            proxied.append((role, info))
            continue
        proxy, rows = found
        proxied.append((role, proxy))
        cap = rows & -rows  # the largest power of two dividing the row stride
        max_bits = min(max_bits, cap * e)
        notes.append(f"the {role} gathers rows of {rows} {name}")
    plan = _widest(proxied, e, name, max_bits, pred, bounds)
    if not notes:
        return plan
    if plan.width > 1:
        reason = plan.reason + "; " + "; ".join(notes) + " at aligned starts"
    else:  # the proof speaks of the proxy: its position strides k * 2^40 are k@0 (a row step)
        reason = "; ".join(notes) + ", so only a row's elements are contiguous: "
        reason += _PROXY_STEP.sub(_as_basis, plan.reason)
    return CopyPlan(plan.bits, plan.width, plan.tiling, plan.alignments, reason)


_PROXY_STEP = re.compile(r"\b\d{13,}\b")


def _as_basis(m: re.Match) -> str:
    """A number of the dense proxy's reason as the gather's basis stride (``k@0 + d``)."""
    k, d = divmod(int(m.group(0)), POSITION_SCALE)
    return f"{k}@0" + (f"+{d}" if d else "")


def _widest(
    sides: Sequence[Side], e: int, name: str, max_bits: int, pred: TensorInfo | None, bounds: Any
) -> CopyPlan:
    """Try every width from ``max_bits`` down; the first legal one wins."""
    scalar_alignments = tuple(info.element_bytes for _, info in sides)

    def scalar(reason: str) -> CopyPlan:
        return CopyPlan(e, 1, None, scalar_alignments, reason)

    if e >= max_bits or max_bits % e:
        return scalar(f"one {name} is already {e} bits")
    if name == "i1":
        return scalar("i1 elements (predicates, one byte each) have no vector access")
    first, last = sides[0][1].layout, sides[-1][1].layout
    try:
        cv = _common_run(first, last)
        run = size(cv)
    except LayoutError:
        cv, run = None, 1
    if type(run) is not int or run <= 1:
        return scalar(contiguity_reason([(role, i.layout) for role, i in sides], name))
    n = size(first)
    failure: str | None = None
    w = max_bits // e
    while w > 1:
        if run % w == 0:
            try:
                tiling, alignments, notes, uniform = _try_width(w, e, cv, n, sides, pred, bounds)
            except Refused as refused:
                failure = str(refused)  # the narrowest failure decides
            else:
                reason = _success(w, e, name, run, failure, notes, uniform, len(sides))
                return CopyPlan(w * e, w, tiling, alignments, reason)
        w //= 2
    if failure is None:  # no width up to max_bits divides the run (a run of 3 or 5, say)
        widths = ", ".join(str(1 << k) for k in range(1, (max_bits // e).bit_length()))
        failure = f"no vector width ({widths} elements) divides the run"
    return scalar(f"{run} contiguous {name}, but {failure}")


def _swizzle_of(layout: Any) -> Swizzle | None:
    if isinstance(layout, ComposedLayout) and isinstance(layout.outer, Swizzle):
        return layout.outer
    return None


def _common_run(a: Any, b: Any) -> Any:
    """The lanes (lane -> logical index) of the longest run both layouts may store
    contiguously (``a`` and ``b`` may be one layout: a fill). Two swizzled layouts: the inner
    layouts' common run, cut to the shorter swizzle run (each side's swizzle is then checked on
    its own, :func:`_swizzle_note`)."""
    sa, sb = _swizzle_of(a), _swizzle_of(b)
    if sa is None or sb is None:
        return max_common_layout(a, b)
    common = max_common_layout(a.inner, b.inner)
    cap = min(1 << sa.base, 1 << sb.base)
    return composition(common, cap) if cap < size(common) else common


def _success(
    w: int,
    e: int,
    name: str,
    run: int,
    failure: str | None,
    notes: list[str],
    uniform: str | None,
    num_sides: int = 2,
) -> str:
    """The remark of a width that passed: what is contiguous (and for copy_if why the predicate
    is uniform), the alignment, and the failure of the next width up if there was one."""
    nbytes = w * e // 8
    what = f"{w} contiguous {name}"
    if uniform is not None:
        what = f"predicate uniform over {what}"
    inside = [uniform] if uniform is not None else []
    if failure is not None:
        inside.append(f"{run} are contiguous, but {failure}")
    text = f"{what} ({'; '.join(inside)})" if inside else what
    text += f", {nbytes}-byte alignment proven"
    if failure is None and w < MAX_VECTOR_BITS // e and w == run:
        where = "both tensors" if num_sides == 2 else "the tensor"
        text += f" (the longest run contiguous in {where})"
    if notes:
        text += "; " + "; ".join(notes)
    return text


def _try_width(
    w: int,
    e: int,
    cv: Any,
    n: Any,
    sides: Sequence[Side],
    pred: TensorInfo | None,
    bounds: Any,
) -> tuple[Any, tuple[int, ...], list[str], str | None]:
    """For ``w`` lanes: the tiling, each side's alignment, what the proof relied on beyond
    plain contiguity (swizzles), and why a copy_if predicate is uniform; or raise Refused."""
    refused = Refused(f"the {describe(n)} elements do not provably split into runs of {w}")
    try:
        lanes = composition(cv, Layout(w))
        rest = complement(lanes, n)
        tiling = make_layout(lanes, rest)
        # The tiling must visit the domain [0, n) exactly once: a bijection onto it.
        if not (intops.prove_eq(size(tiling), n) and intops.prove_eq(cosize(tiling), n)):
            raise refused
    except LayoutError:
        raise refused from None
    alignments = []
    notes: list[str] = []
    for role, info in sides:
        alignment, note = _side_alignment(role, info, tiling, w, e)
        alignments.append(alignment)
        if note is not None:
            notes.append(note)
    uniform = uniform_predicate(pred, bounds, tiling, w) if pred is not None else None
    return tiling, tuple(alignments), notes, uniform


def _split(layout: Any) -> tuple[Any, Any, Swizzle | None]:
    """(plain layout, extra offset, swizzle) of a layout or a swizzled composed layout."""
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.outer, Swizzle) or not isinstance(layout.inner, Layout):
            raise Refused("gather layouts are accessed element by element")
        if layout.outer.is_identity():
            return layout.inner, layout.offset, None
        return layout.inner, layout.offset, layout.outer
    return layout, 0, None


def _swizzle_note(role: str, sw: Swizzle, extra: Any, steps: list[Any], w: int) -> str:
    """``Sw<B,M,S>`` reads and writes only the index bits from M up: ``w`` lanes stay
    contiguous (and keep their alignment) exactly when ``w`` divides ``2^M`` and every access
    starts at a multiple of ``w`` before the swizzle (its offset and the strides between
    accesses), so the lanes differ only in bits the swizzle leaves alone."""
    run = 1 << sw.base
    if run % w:
        raise Refused(
            f"the {role}'s swizzle {sw} keeps runs of only {run} elements (it rewrites the index "
            f"bits from {sw.base} up)"
        )
    for x in (extra, *steps):
        if not prove_divisible(w, x):
            raise Refused(
                f"the {role}'s swizzled offset {describe(x)} is not provably a multiple of {w} "
                f"elements (the swizzle {sw} keeps runs contiguous only from an aligned start)"
            )
    return (
        f"the {role}'s swizzle {sw} keeps runs of {run} elements and its offset "
        f"{describe(extra)} is a multiple of {w}"
    )


def _side_alignment(
    role: str, info: TensorInfo, tiling: Any, w: int, e: int
) -> tuple[int, str | None]:
    """The byte alignment of one side's ``w``-lane accesses and, for a swizzled layout, the
    sentence saying why the swizzle keeps them contiguous (raise Refused)."""
    try:
        mapped = composition(info.layout, tiling)
    except LayoutError:
        raise Refused(f"the {role} layout does not compose with the vector tiling") from None
    inner, extra, sw = _split(mapped)
    lanes = coalesce(get(inner, 0))
    if not unit_run(lanes, w):
        raise Refused(f"the {role}'s {w} lanes are not contiguous ({lanes})")
    nbytes = w * e // 8
    steps = rest_strides(inner)
    note = _swizzle_note(role, sw, extra, steps, w) if sw is not None else None
    offsets = [info.offset, extra]
    if info.space not in MEMORY:
        return _register_alignment(info, steps, offsets, nbytes), note
    if info.alignment < nbytes:
        raise Refused(f"the {role} base pointer is only {info.alignment}-byte aligned")
    for off in offsets:
        if not prove_divisible(w, off):
            raise Refused(
                f"the {role} offset {describe(off)} is not provably a multiple of {w} elements"
            )
    for d in steps:
        if not prove_divisible(w, d):
            raise Refused(
                f"the {role} advances {describe(d)} elements between accesses, not provably a "
                f"multiple of {w}"
            )
    return nbytes, note


def _register_alignment(info: TensorInfo, steps: list[Any], offsets: list[Any], nbytes: int) -> int:
    """What alignment register accesses have (they need none; LLVM may use it)."""
    a = nbytes
    eb = info.element_bytes
    a = min(a, info.alignment)
    for x in (*offsets, *steps):
        a = aligned_after(a, eb, x)
    return max(a, 1)
