"""prove-vectorization never claims a width that some admissible assignment of the symbols
violates: every claimed access is contiguous in both tensors and aligned in memory, checked
concretely on sampled values; and the reasons it gives name the deciding fact."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from layout_pass_helpers import (
    Kernel,
    examples,
    factorizations,
    injective_strides,
    parse_module,
    remarks,
    run,
)
from layoutc.ir.algebra import Layout, Swizzle, size
from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.symbolic import Symbol, SymInt
from layoutc.ir.core.types import f16, f32, f64
from layoutc.passes.analysis.symbolic import TensorInfo
from layoutc.passes.layout.vectorize import plan_copy, plan_fill

ELEMENTS = {"f16": f16, "f32": f32, "f64": f64}


def _value(x, env):
    return x.evaluate(env) if isinstance(x, SymInt) else x


def concrete(layout, env):
    """The layout with every symbol replaced by its sampled value."""
    if isinstance(layout, ComposedLayout):  # a swizzled layout: its offset may be symbolic
        return ComposedLayout(layout.outer, _value(layout.offset, env), concrete(layout.inner, env))
    return Layout(
        it.transform_leaf(layout.shape, lambda x: _value(x, env)),
        it.transform_leaf(layout.stride, lambda x: _value(x, env)),
    )


def check_plan(plan, src: TensorInfo, dst: TensorInfo, env: dict) -> None:
    """Every access the plan makes is legal for these values of the symbols."""
    if plan.width == 1:
        return
    w = plan.width
    eb = src.element_bytes
    tiling = concrete(plan.tiling, env)
    n = int(size(concrete(src.layout, env)))
    assert size(tiling) == n
    seen = sorted(tiling(i) for i in range(n))
    assert seen == list(range(n)), "the tiling must visit every element once"
    vectors = n // w
    for side in (src, dst):
        layout = concrete(side.layout, env)
        offset = _value(side.offset, env)
        for r in range(vectors):
            first = offset + layout(tiling(0, r))
            for i in range(w):
                assert offset + layout(tiling(i, r)) == first + i, "lanes must be contiguous"
            if side.space in ("gmem", "smem"):
                assert (first * eb) % (w * eb) == 0, "vector starts must be aligned"
                assert side.alignment % (w * eb) == 0


@st.composite
def static_copies(draw):
    shape = draw(factorizations(max_size=64))
    strides = [draw(injective_strides(shape)) for _ in range(2)]
    elem = draw(st.sampled_from(["f16", "f32", "f64"]))
    infos = []
    for s in strides:
        align = (
            draw(st.sampled_from([2, 4, 8, 16]))
            if elem == "f16"
            else draw(st.sampled_from([4, 8, 16]))
        )
        if elem == "f64":
            align = max(align, 8)
        space = draw(st.sampled_from(["gmem", "smem", "rmem"]))
        offset = draw(st.sampled_from([0, 0, 1, 2, 4, 8]))
        infos.append(TensorInfo(None, offset, Layout(shape, s), space, ELEMENTS[elem], align))
    return infos


@examples(150)
@given(static_copies())
def test_claimed_width_is_legal_for_static_layouts(infos):
    src, dst = infos
    plan = plan_copy(src, dst)
    assert plan.bits in (16, 32, 64, 128) and plan.bits == plan.width * src.element_bytes * 8
    check_plan(plan, src, dst, {})


@st.composite
def symbolic_copies(draw):
    """(a, N):(1, ld) tensors with symbolic extent, leading dimension and thread offset."""
    a = draw(st.sampled_from([1, 2, 4, 8]))
    ndiv = draw(st.sampled_from([1, 2, 4, 8]))
    lddiv = draw(st.sampled_from([1, 2, 4, 8]))
    n = Symbol.fresh("N", divisible_by=ndiv)
    ld = Symbol.fresh("ld", divisible_by=lddiv, lower=a)
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=127)
    k = draw(st.sampled_from([1, 2, 4, 8]))
    c = draw(st.sampled_from([0, 1, 2, 4]))
    src = TensorInfo(None, k * tid * ld + c, Layout((a, n), (1, ld)), "gmem", f32, 16)
    dst_layout = Layout((a, n), (1, a)) if draw(st.booleans()) else Layout((a, n), (n, 1))
    dst = TensorInfo(None, 0, dst_layout, draw(st.sampled_from(["smem", "rmem"])), f32, 16)
    samples = []
    for _ in range(3):
        samples.append(
            {
                n: ndiv * draw(st.integers(1, 4)),
                ld: lddiv * draw(st.integers(-(-a // lddiv), 8 + 8 // lddiv)),
                tid: draw(st.integers(0, 127)),
            }
        )
    return src, dst, samples


@examples(120)
@given(symbolic_copies())
def test_claimed_width_is_legal_for_every_sampled_assignment(case):
    src, dst, samples = case
    plan = plan_copy(src, dst)
    for env in samples:
        assume(all(s.admits(v) for s, v in env.items()))
        check_plan(plan, src, dst, env)


def test_symbolic_facts_prove_128_bits():
    n = Symbol.fresh("N", divisible_by=4)
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=255)
    src = TensorInfo(None, 4 * tid, Layout((4, n), (1, 4)), "gmem", f32, 16)
    dst = TensorInfo(None, 4 * tid, Layout((4, n), (1, 4)), "gmem", f32, 16)
    plan = plan_copy(src, dst)
    assert plan.bits == 128
    assert plan.reason == "4 contiguous f32, 16-byte alignment proven"


@pytest.mark.parametrize(
    ("src", "dst", "bits", "words"),
    [
        (
            Layout((4, 4), (2, 16)),
            Layout((4, 4), (1, 4)),
            64,
            ["stride of mode 0", "is 2", "affine2"],
        ),
        (Layout((4, 8), (8, 1)), Layout((4, 8), (1, 4)), 64, ["contiguous along different modes"]),
        (Layout((2, 8), (1, 2)), Layout((2, 8), (1, 2)), 128, ["2 contiguous f64"]),
    ],
)
def test_reasons_name_the_deciding_fact(src, dst, bits, words):
    s = TensorInfo(None, 0, src, "gmem", f64, 16)
    d = TensorInfo(None, 0, dst, "gmem", f64, 16)
    plan = plan_copy(s, d)
    assert plan.bits == bits
    for w in words:
        assert w in plan.reason, plan.reason


def test_single_element_reasons_are_english():
    one = Layout((1, 1), (0, 7))
    plan = plan_fill(TensorInfo(None, 0, one, "gmem", f32, 16))
    assert plan.bits == 32
    assert plan.reason == "the tensor holds a single element: one f32 per access"
    plan = plan_copy(
        TensorInfo(None, 0, one, "gmem", f32, 16), TensorInfo(None, 0, one, "smem", f32, 16)
    )
    assert plan.reason == "the source and the destination hold a single element: one f32 per access"


def test_a_fill_s_longest_run_is_in_the_tensor():
    plan = plan_fill(TensorInfo(None, 0, Layout((2, 4), (1, 8)), "gmem", f32, 16))
    assert plan.bits == 64
    assert plan.reason.endswith("(the longest run contiguous in the tensor)"), plan.reason
    both = TensorInfo(None, 0, Layout((2, 4), (1, 8)), "gmem", f32, 16)
    assert plan_copy(both, both).reason.endswith("(the longest run contiguous in both tensors)")


def test_alignment_and_offset_reasons():
    tid = Symbol.fresh("t", positive=False, lower=0, upper=31)
    layout = Layout((4,), (1,))
    plan = plan_copy(
        TensorInfo(None, 0, layout, "gmem", f32, 8), TensorInfo(None, 0, layout, "gmem", f32, 16)
    )
    assert plan.bits == 64 and "only 8-byte aligned" in plan.reason
    plan = plan_copy(
        TensorInfo(None, 4 * tid + 2, layout, "gmem", f32, 16),
        TensorInfo(None, 0, layout, "gmem", f32, 16),
    )
    assert plan.bits == 64 and "4*t + 2 is not provably a multiple of 4" in plan.reason


def test_rounded_offsets_are_proven_with_sympy():
    """(t // 4) * 4 canonicalizes to t - t % 4, which only SymPy shows to be a multiple of 4."""
    t = Symbol.fresh("t", positive=False, lower=0, upper=1023)
    layout = Layout((4,), (1,))
    plan = plan_copy(
        TensorInfo(None, (t // 4) * 4, layout, "gmem", f32, 16),
        TensorInfo(None, 0, layout, "gmem", f32, 16),
    )
    assert plan.bits == 128


def test_conversions_are_element_wise():
    layout = Layout((8,), (1,))
    plan = plan_copy(
        TensorInfo(None, 0, layout, "gmem", f32, 16), TensorInfo(None, 0, layout, "gmem", f16, 16)
    )
    assert plan.width == 1 and "element types differ (f32 -> f16)" in plan.reason


def test_pass_records_vector_bits_and_remarks():
    k = Kernel()
    s, d = k.pointer("src", "f64"), k.pointer("dst", "f64")
    t1, tt1 = k.tensor(s, k.layout("(4,4):(2,16)"), "(4,4):(2,16)", "f64")
    t2, tt2 = k.tensor(d, k.layout("(4,4):(1,4)"), "(4,4):(1,4)", "f64")
    k.op(f"tile.copy {t1}, {t2} : {tt1}, {tt2}")
    m = parse_module(k.text())
    found = remarks(run(m, "builtin.module(prove-vectorization)"))
    assert found == [
        "copy uses 64-bit accesses: stride of mode 0 of the source is 2 (affine2 layout: "
        "strides above 1 in every mode)"
    ]
    assert "vector_bits = 64" in str(m)


# -- swizzled layouts -------------------------------------------------------------------------------


@st.composite
def swizzled_copies(draw):
    """A thread's row of a swizzled (R, C) tile, ``Sw o (C*tid + c0) o (C):(1)``, copied to or
    from a plain row: the swizzle's argument is symbolic (its offset moves with the thread)."""
    b = draw(st.integers(1, 3))
    m = draw(st.integers(0, 4))
    sw = Swizzle(b, m, draw(st.integers(b, 4)) * draw(st.sampled_from([1, -1])))
    cols = draw(st.sampled_from([2, 4, 8, 16, 32]))
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=31)
    c0 = draw(st.sampled_from([0, 0, 1, 2, 4]))
    elem = draw(st.sampled_from(["f16", "f32"]))
    row = Layout((cols,), (1,))
    swizzled = TensorInfo(
        None, 0, ComposedLayout(sw, cols * tid + c0, row), "smem", ELEMENTS[elem], 16
    )
    plain = TensorInfo(None, 0, row, draw(st.sampled_from(["gmem", "rmem"])), ELEMENTS[elem], 16)
    which = draw(st.sampled_from(["src", "dst", "both"]))
    if which == "both":  # another swizzle and another thread offset on the other side
        b2 = draw(st.integers(1, 3))
        sw2 = Swizzle(b2, draw(st.integers(0, 4)), draw(st.integers(b2, 4)))
        c2 = draw(st.sampled_from([0, 2, 4]))
        other = ComposedLayout(sw2, 2 * cols * tid + c2, row)
        pair = (swizzled, TensorInfo(None, 0, other, "smem", ELEMENTS[elem], 16))
    else:
        pair = (swizzled, plain) if which == "src" else (plain, swizzled)
    return pair, [{tid: draw(st.integers(0, 31))} for _ in range(3)]


@examples(150)
@given(swizzled_copies())
def test_claimed_width_is_legal_through_a_swizzle(case):
    (src, dst), samples = case
    plan = plan_copy(src, dst)
    for env in samples:
        check_plan(plan, src, dst, env)


def _row(sw, offset, cols=16, elem=f32):
    return TensorInfo(None, 0, ComposedLayout(sw, offset, Layout((cols,), (1,))), "smem", elem, 16)


def test_swizzle_remarks_say_why():
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=31)
    plain = TensorInfo(None, 0, Layout((16,), (1,)), "rmem", f32, 16)
    ok = plan_copy(plain, _row(Swizzle(3, 2, 3), 16 * tid))
    assert ok.bits == 128
    assert ok.reason == (
        "4 contiguous f32, 16-byte alignment proven; the destination's swizzle Sw<3,2,3> keeps "
        "runs of 4 elements and its offset 16*tid is a multiple of 4"
    )
    runs = plan_copy(_row(Swizzle(2, 1, 2), 16 * tid), plain)
    assert runs.bits == 64
    assert runs.reason == (
        "2 contiguous f32, 8-byte alignment proven (the longest run contiguous in both tensors); "
        "the source's swizzle Sw<2,1,2> keeps runs of 2 elements and its offset 16*tid is a "
        "multiple of 2"
    )
    unaligned = plan_copy(_row(Swizzle(3, 2, 3), 16 * tid + 2), plain)
    assert unaligned.bits == 64
    assert (
        "the source's swizzled offset 16*tid + 2 is not provably a multiple of 4 elements (the "
        "swizzle Sw<3,2,3> keeps runs contiguous only from an aligned start)" in unaligned.reason
    )
    f16_runs = plan_copy(_row(Swizzle(3, 2, 3), 16 * tid, elem=f16), _f16_row())
    assert f16_runs.bits == 64 and "swizzle Sw<3,2,3> keeps runs of 4 elements" in f16_runs.reason


def _f16_row():
    return TensorInfo(None, 0, Layout((16,), (1,)), "rmem", f16, 16)


def test_copies_between_two_swizzles_keep_the_shorter_run():
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=31)
    plan = plan_copy(_row(Swizzle(1, 2, 3), 16 * tid), _row(Swizzle(2, 1, 2), 8 * tid))
    assert plan.bits == 64
    assert "the source's swizzle Sw<1,2,3> keeps runs of 4 elements" in plan.reason
    assert "the destination's swizzle Sw<2,1,2> keeps runs of 2 elements" in plan.reason
