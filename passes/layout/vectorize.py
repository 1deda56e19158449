"""The vectorization proof of a copy: the widest access legal for every value of the symbols.

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

For ``copy_if`` the predicate must also be the same for all lanes: a coordinate predicate
whose lanes walk one coordinate by 1 from a multiple of ``w``, compared with a bound that is a
multiple of ``w``. The result, :class:`CopyPlan`, carries the tiling ``R`` that
lower-algorithms iterates and the sentence prove-vectorization reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutc.ir.algebra import composition, flatten, intops, make_layout
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.basis import ScaledBasis
from layoutc.ir.algebra.complement import complement
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.layout import Layout, coalesce, cosize, get, size
from layoutc.ir.algebra.swizzle import Swizzle
from layoutc.ir.algebra.vector import max_common_layout

from ..analysis.proofs import prove_divisible
from ..analysis.symbolic import TensorInfo, aligned_after

__all__ = ["CopyPlan", "describe", "plan_copy", "MAX_VECTOR_BITS"]

MAX_VECTOR_BITS = 128
MEMORY = ("gmem", "smem")


@dataclass(frozen=True)
class CopyPlan:
    """How a copy is vectorized.

    ``bits``: the access width in bits (the element width for element-wise copies);
    ``width``: elements per access; ``tiling``: the layout ``(lanes, rest) -> logical index``
    (None for element-wise copies); ``alignments``: the byte alignment proven for the
    source's and the destination's accesses; ``reason``: why this width, in words.
    """

    bits: int
    width: int
    tiling: Any
    alignments: tuple[int, int]
    reason: str


class _Refused(Exception):
    """A width is not legal; the message says which fact failed."""


def _elem_name(info: TensorInfo) -> str:
    return info.element.text if info.element is not None else "coord"


def _bits(info: TensorInfo) -> int:
    return info.element_bytes * 8


def describe(x: Any) -> str:
    return it.format_tuple(x) if isinstance(x, tuple) else str(x)


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

    def scalar(reason: str) -> CopyPlan:
        return CopyPlan(e, 1, None, (src.element_bytes, dst.element_bytes), reason)

    if src.element is not dst.element:
        return scalar(
            f"element types differ ({name} -> {_elem_name(dst)}): each element is converted"
        )
    if e >= max_bits or max_bits % e:
        return scalar(f"one {name} is already {e} bits")
    if name == "i1":
        return scalar("i1 elements (predicates, one byte each) have no vector access")
    try:
        cv = _common_run(src.layout, dst.layout)
        run = size(cv)
    except LayoutError:
        cv, run = None, 1
    if type(run) is not int or run <= 1:
        return scalar(contiguity_reason(src.layout, dst.layout, name))
    n = size(src.layout)
    failure: str | None = None
    w = max_bits // e
    while w > 1:
        if run % w == 0:
            try:
                tiling, alignments, notes = _try_width(w, e, cv, n, src, dst, pred, bounds)
            except _Refused as refused:
                failure = str(refused)  # the narrowest failure decides
            else:
                reason = _success(w, e, name, run, failure, notes)
                return CopyPlan(w * e, w, tiling, alignments, reason)
        w //= 2
    return scalar(f"{run} contiguous {name}, but {failure}")


def _swizzle_of(layout: Any) -> Swizzle | None:
    if isinstance(layout, ComposedLayout) and isinstance(layout.outer, Swizzle):
        return layout.outer
    return None


def _common_run(a: Any, b: Any) -> Any:
    """The lanes (lane -> logical index) of the longest run both layouts may store
    contiguously. Two swizzled layouts: the inner layouts' common run, cut to the shorter
    swizzle run (each side's swizzle is then checked on its own, :func:`_swizzle_note`)."""
    sa, sb = _swizzle_of(a), _swizzle_of(b)
    if sa is None or sb is None:
        return max_common_layout(a, b)
    common = max_common_layout(a.inner, b.inner)
    cap = min(1 << sa.base, 1 << sb.base)
    return composition(common, cap) if cap < size(common) else common


def _success(
    w: int, e: int, name: str, run: int, failure: str | None, notes: list[str] | None = None
) -> str:
    nbytes = w * e // 8
    text = f"{w} contiguous {name}, {nbytes}-byte alignment proven"
    if failure is not None:
        text = (
            f"{w} contiguous {name} ({run} are contiguous, but {failure}), {nbytes}-byte "
            "alignment proven"
        )
    elif w < MAX_VECTOR_BITS // e and w == run:
        text = f"{text} (the longest run contiguous in both tensors)"
    if notes:
        text += "; " + "; ".join(notes)
    return text


def _try_width(
    w: int,
    e: int,
    cv: Any,
    n: Any,
    src: TensorInfo,
    dst: TensorInfo,
    pred: TensorInfo | None,
    bounds: Any,
) -> tuple[Any, tuple[int, int]]:
    """The tiling, the two sides' alignments and what the proof relied on beyond plain
    contiguity (swizzles) for ``w`` lanes, or raise _Refused."""
    refused = _Refused(f"the copy's {describe(n)} elements do not provably split into runs of {w}")
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
    for role, info in (("source", src), ("destination", dst)):
        alignment, note = _side_alignment(role, info, tiling, w, e)
        alignments.append(alignment)
        if note is not None:
            notes.append(note)
    if pred is not None:
        _check_uniform_predicate(pred, bounds, tiling, w)
    return tiling, (alignments[0], alignments[1]), notes


def _split(layout: Any) -> tuple[Any, Any, Swizzle | None]:
    """(plain layout, extra offset, swizzle) of a layout or a swizzled composed layout."""
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.outer, Swizzle) or not isinstance(layout.inner, Layout):
            raise _Refused("gather layouts are accessed element by element")
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
        raise _Refused(
            f"the {role}'s swizzle {sw} keeps runs of only {run} elements (it rewrites the index "
            f"bits from {sw.base} up)"
        )
    for x in (extra, *steps):
        if not prove_divisible(w, x):
            raise _Refused(
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
    sentence saying why the swizzle keeps them contiguous (raise _Refused)."""
    try:
        mapped = composition(info.layout, tiling)
    except LayoutError:
        raise _Refused(f"the {role} layout does not compose with the vector tiling") from None
    inner, extra, sw = _split(mapped)
    lanes = coalesce(get(inner, 0))
    if not _unit_run(lanes, w):
        raise _Refused(f"the {role}'s {w} lanes are not contiguous ({lanes})")
    nbytes = w * e // 8
    steps = _rest_strides(inner)
    note = _swizzle_note(role, sw, extra, steps, w) if sw is not None else None
    offsets = [info.offset, extra]
    if info.space not in MEMORY:
        return _register_alignment(info, steps, offsets, nbytes), note
    if info.alignment < nbytes:
        raise _Refused(f"the {role} base pointer is only {info.alignment}-byte aligned")
    for off in offsets:
        if not prove_divisible(w, off):
            raise _Refused(
                f"the {role} offset {describe(off)} is not provably a multiple of {w} elements"
            )
    for d in steps:
        if not prove_divisible(w, d):
            raise _Refused(
                f"the {role} advances {describe(d)} elements between accesses, not provably a "
                f"multiple of {w}"
            )
    return nbytes, note


def _unit_run(layout: Any, w: int) -> bool:
    """``layout`` is ``w:1`` (one mode of w elements at stride 1, size-1 modes ignored)."""
    modes = _flat_modes(layout) if isinstance(layout, Layout) else []
    return (
        len(modes) == 1
        and type(modes[0][1]) is int
        and modes[0][1] == 1
        and type(modes[0][2]) is int
        and modes[0][2] == w
    )


def _rest_strides(inner: Layout) -> list[Any]:
    """The strides of the modes beyond the lanes (mode 0), without size-1 modes."""
    if not isinstance(inner.shape, tuple) or len(inner.shape) < 2:
        return []
    rest = Layout._new(inner.shape[1:], inner.stride[1:])
    flat = flatten(rest)
    shapes = it.flatten_to_tuple(flat.shape)
    strides = it.flatten_to_tuple(flat.stride)
    return [d for s, d in zip(shapes, strides) if not (type(s) is int and s == 1)]


def _register_alignment(info: TensorInfo, steps: list[Any], offsets: list[Any], nbytes: int) -> int:
    """What alignment register accesses have (they need none; LLVM may use it)."""
    a = nbytes
    eb = info.element_bytes
    a = min(a, info.alignment)
    for x in (*offsets, *steps):
        a = aligned_after(a, eb, x)
    return max(a, 1)


def _check_uniform_predicate(pred: TensorInfo, bounds: Any, tiling: Any, w: int) -> None:
    """All lanes of every vector share their predicate (raise _Refused otherwise)."""
    if pred.space != "coord" or bounds is None:
        raise _Refused("the predicate may differ between the elements of a vector")
    try:
        mapped = composition(pred.layout, tiling)
        lanes = coalesce(get(mapped, 0))
    except LayoutError:
        raise _Refused(
            "the predicate's coordinates do not compose with the vector tiling"
        ) from None
    modes = _flat_modes(lanes)
    stride = modes[0][1] if len(modes) == 1 and modes[0][2] == w else None
    if not (isinstance(stride, ScaledBasis) and stride.value == 1):
        raise _Refused("the predicate's coordinates do not walk one mode across a vector")
    modes = stride.modes

    def component(x: Any) -> Any:
        if isinstance(x, ScaledBasis):
            return x.value if x.modes == modes else 0
        if isinstance(x, tuple):
            try:
                return it.get(x, *modes) if modes else x
            except (LayoutError, IndexError, TypeError):
                return 0
        return x if not modes else 0

    try:
        bound = it.get(bounds, *modes) if modes else bounds
    except (LayoutError, IndexError, TypeError):
        raise _Refused(
            "the predicate's bounds do not name the coordinate the vector walks"
        ) from None
    checks = [component(pred.offset), bound]
    checks += [component(d) for d in _rest_strides(mapped)]
    for x in checks:
        if not prove_divisible(w, x):
            raise _Refused(
                f"the predicate may change within a vector ({describe(x)} is not provably a "
                f"multiple of {w})"
            )


def contiguity_reason(src: Any, dst: Any, name: str) -> str:
    """Why no two consecutive elements are contiguous in both layouts, naming the stride."""
    for role, layout in (("source", src), ("destination", dst)):
        inner = layout.inner if isinstance(layout, ComposedLayout) else layout
        if not isinstance(inner, Layout):
            return f"the {role} layout is not a plain layout"
        modes = _flat_modes(inner)
        if not modes:
            continue
        if any(type(d) is int and d == 1 for _, d, _ in modes):
            continue
        i, d, _ = min(modes, key=_stride_order)
        text = f"stride of mode {i} of the {role} is {describe(d)}"
        if len(modes) >= 2 and all(type(m[1]) is not int or abs(m[1]) > 1 for m in modes):
            text += " (affine2 layout: strides above 1 in every mode)"
        return text
    return (
        "the source and the destination are contiguous along different modes "
        f"(source {_unit_mode(src)}, destination {_unit_mode(dst)}): one {name} per access"
    )


def _stride_order(mode: tuple[str, Any, Any]) -> tuple[int, int]:
    d = mode[1]
    return (0, abs(d)) if type(d) is int else (1, 0)


def _flat_modes(layout: Layout) -> list[tuple[str, Any, Any]]:
    """(mode path, stride, shape) of every non-trivial leaf mode."""
    out: list[tuple[str, Any, Any]] = []

    def visit(shape: Any, stride: Any, path: tuple[int, ...]) -> None:
        if isinstance(shape, tuple):
            for i, (s, d) in enumerate(zip(shape, stride)):
                visit(s, d, (*path, i))
            return
        if type(shape) is int and shape == 1:
            return
        out.append((",".join(map(str, path)) if path else "0", stride, shape))

    visit(layout.shape, layout.stride, ())
    return out


def _unit_mode(layout: Any) -> str:
    inner = layout.inner if isinstance(layout, ComposedLayout) else layout
    for path, d, _ in _flat_modes(inner):
        if type(d) is int and d == 1:
            return f"mode {path}"
    return "no mode"
