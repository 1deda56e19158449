"""The vectorization proofs of fill/clear and of copy_if never claim what a sampled admissible
assignment refutes: every store a fill plan makes is contiguous and aligned, and every vector
a copy_if plan guards with one predicate has one predicate value on all of its lanes. The
remarks name the deciding fact."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from layout_pass_helpers import examples, factorizations, injective_strides
from layoutc.ir.algebra import Layout, make_identity_layout, size
from layoutc.ir.algebra.symbolic import Symbol, SymInt
from layoutc.ir.core.types import f16, f32, f64, i1
from layoutc.ir.dialects.tile.origins import element_at
from layoutc.passes.analysis.symbolic import TensorInfo
from layoutc.passes.layout.vectorize import plan_copy, plan_fill
from test_prove_vectorization import ELEMENTS, check_plan, concrete

# -- fill and clear ---------------------------------------------------------------------------------


def check_fill_plan(plan, dst: TensorInfo, env: dict) -> None:
    """Every store of the plan writes ``w`` contiguous, aligned elements; together they cover
    the tensor's domain exactly once."""
    if plan.width == 1:
        return
    w, eb = plan.width, dst.element_bytes
    tiling = concrete(plan.tiling, env)
    n = int(size(concrete(dst.layout, env)))
    assert sorted(tiling(i) for i in range(n)) == list(range(n))
    layout = concrete(dst.layout, env)
    offset = dst.offset.evaluate(env) if isinstance(dst.offset, SymInt) else dst.offset
    for r in range(n // w):
        first = offset + layout(tiling(0, r))
        assert [offset + layout(tiling(i, r)) for i in range(w)] == list(range(first, first + w))
        assert (first * eb) % (w * eb) == 0 and dst.alignment % (w * eb) == 0
    assert plan.alignments == (w * eb,)


@st.composite
def fills(draw):
    shape = draw(factorizations(max_size=64))
    stride = draw(injective_strides(shape))
    elem = draw(st.sampled_from(["f16", "f32", "f64"]))
    align = draw(st.sampled_from([2, 4, 8, 16]))
    align = max(align, ELEMENTS[elem].width // 8)
    space = draw(st.sampled_from(["gmem", "smem", "rmem"]))
    offset = draw(st.sampled_from([0, 0, 1, 2, 4, 8]))
    return TensorInfo(None, offset, Layout(shape, stride), space, ELEMENTS[elem], align)


@examples(150)
@given(fills())
def test_claimed_fill_width_is_legal(dst):
    plan = plan_fill(dst)
    assert plan.bits == plan.width * dst.element_bytes * 8
    if dst.space == "rmem":
        assert plan.width == 1 and "register fragment" in plan.reason
    check_fill_plan(plan, dst, {})


@examples(60)
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4, 8]), st.data())
def test_claimed_fill_width_is_legal_for_symbolic_rows(ndiv, tdiv, data):
    """A thread's rows of a (4, N) row-major matrix: N and the thread offset symbolic."""
    n = Symbol.fresh("N", divisible_by=ndiv)
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=63)
    dst = TensorInfo(None, tdiv * tid, Layout((4, 4), (1, n)), "gmem", f32, 16)
    plan = plan_fill(dst)
    for _ in range(3):
        env = {n: ndiv * data.draw(st.integers(1, 8)), tid: data.draw(st.integers(0, 63))}
        if env[n] >= 4:
            check_fill_plan(plan, dst, env)
    assert plan.width == min(4, ndiv, tdiv)


def test_fill_reasons():
    row = Layout((8,), (1,))
    assert (
        plan_fill(TensorInfo(None, 0, row, "gmem", f32, 16)).reason
        == "4 contiguous f32, 16-byte alignment proven"
    )
    assert "the tensor base pointer is only 8-byte aligned" in (
        plan_fill(TensorInfo(None, 0, row, "smem", f32, 8)).reason
    )
    strided = plan_fill(TensorInfo(None, 0, Layout((4, 4), (2, 16)), "gmem", f32, 16))
    assert strided.width == 1 and "stride of mode 0 of the tensor is 2" in strided.reason
    n = Symbol.fresh("n")
    ragged = plan_fill(TensorInfo(None, 0, Layout((n,), (1,)), "gmem", f32, 16))
    assert ragged.width == 1
    assert (
        ragged.reason
        == "the f32 are contiguous along mode 0, but its extent n is not provably a multiple of 2"
    )
    registers = plan_fill(TensorInfo(None, 0, row, "rmem", f64, 16))
    assert registers.width == 1
    assert registers.reason == "the tensor is a register fragment: each f64 is its own register"
    flags = plan_fill(TensorInfo(None, 0, row, "gmem", i1, 16))
    assert flags.width == 1 and "i1 elements" in flags.reason


def test_fill_of_f16_uses_eight_lanes():
    plan = plan_fill(TensorInfo(None, 8, Layout((16,), (1,)), "gmem", f16, 16))
    assert plan.bits == 128 and plan.width == 8


# -- copy_if ---------------------------------------------------------------------------------------


def _ev(x, env):
    if isinstance(x, SymInt):
        return x.evaluate(env)
    if isinstance(x, tuple):
        return tuple(_ev(e, env) for e in x)
    return x


def _less(c, b) -> bool:
    """CuTe's elem_less on flat coordinates."""
    if not isinstance(c, tuple):
        return c < (b[0] if isinstance(b, tuple) else b)
    return all(x < y for x, y in zip(c, b))


def predicate_values(pred: TensorInfo, bounds, tiling, w: int, r: int, env: dict) -> list:
    """The predicate of each lane of vector ``r``: the i1 element each lane reads (its index in
    the tensor), or elem_less(coordinate, bounds)."""
    lanes = [tiling(i, r) for i in range(w)]
    if pred.space != "coord":
        layout = concrete(pred.layout, env)
        return [layout(i) for i in lanes]
    origin = _ev(pred.offset, env)
    b = _ev(bounds, env)
    return [_less(_ev(element_at(origin, pred.layout(i)), env), b) for i in lanes]


def check_uniform(plan, pred, bounds, env) -> None:
    if plan.width == 1:
        return
    tiling = concrete(plan.tiling, env)
    n = int(size(tiling))
    for r in range(n // plan.width):
        values = predicate_values(pred, bounds, tiling, plan.width, r, env)
        assert len(set(values)) == 1, (plan.reason, r, values)


@st.composite
def predicated_copies(draw):
    """A contiguous (a, b):(1, a) copy under a predicate: an i1 fragment whose modes may have
    stride 0, or the identity tensor of a thread's slice (symbolic origin) with a bound."""
    a = draw(st.sampled_from([1, 2, 4, 8]))
    b = draw(st.sampled_from([1, 2, 4]))
    elem = draw(st.sampled_from(["f16", "f32"]))
    layout = Layout((a, b), (1, a))
    src = TensorInfo(None, 0, layout, "gmem", ELEMENTS[elem], 16)
    dst = TensorInfo(None, 0, layout, "smem", ELEMENTS[elem], 16)
    samples = []
    if draw(st.booleans()):
        inner = draw(st.sampled_from([(a, 1), (1, a), (2, 0), (0, 1)]))
        sa = draw(st.sampled_from([0, 1, 2]))
        sb = draw(st.sampled_from([0, 1, a]))
        if a % 2 or inner[0] != 2:  # ((2, a/2), b) with one stride-0 pair of lanes
            pl = Layout((a, b), (sa, sb))
        else:
            pl = Layout(((2, a // 2), b), ((inner[1], 1), sb))
        pred = TensorInfo(None, 0, pl, "rmem", i1, 1)
        bounds = None
        samples.append({})
    else:
        tid = Symbol.fresh("tid", positive=False, lower=0, upper=63)
        k = draw(st.sampled_from([1, 2, 4, 8]))
        c = draw(st.sampled_from([0, 0, 1, 2, 4]))
        two_d = draw(st.booleans())
        if two_d:  # the coordinates of an (a, b) block at row k*tid + c of a matrix
            pl = make_identity_layout((a, b))
            origin = (k * tid + c, draw(st.sampled_from([0, 3])))
        else:
            pl = make_identity_layout((a * b,))
            origin = (k * tid + c,)
            src = src._replace(layout=Layout((a * b,), (1,)))
            dst = dst._replace(layout=Layout((a * b,), (1,)))
        div = draw(st.sampled_from([1, 2, 4, 8]))
        if draw(st.booleans()):
            bound = Symbol.fresh("n", divisible_by=div, lower=1)
            values = [div * draw(st.integers(1, 80)) for _ in range(3)]
        else:
            bound = div * draw(st.integers(1, 80))
            values = [bound] * 3
        bounds = (bound, draw(st.integers(1, 4))) if two_d else (bound,)
        pred = TensorInfo(None, origin, pl, "coord", None, 1)
        for v in values:
            env = {tid: draw(st.integers(0, 63))}
            if isinstance(bound, Symbol):
                env[bound] = v
            samples.append(env)
    return src, dst, pred, bounds, samples


@examples(200)
@given(predicated_copies())
def test_a_vector_guarded_by_one_predicate_has_one_predicate_value(case):
    src, dst, pred, bounds, samples = case
    plan = plan_copy(src, dst, pred=pred, bounds=bounds)
    for env in samples:
        check_plan(plan, src, dst, env)
        check_uniform(plan, pred, bounds, env)
    if plan.width > 1:
        assert plan.reason.startswith(f"predicate uniform over {plan.width} contiguous")


def test_copy_if_reasons():
    row = Layout((16,), (1,))
    src = TensorInfo(None, 0, row, "gmem", f32, 16)
    dst = TensorInfo(None, 0, row, "gmem", f32, 16)
    coords = make_identity_layout((16,))
    tid = Symbol.fresh("tid", positive=False, lower=0, upper=255)

    def coord_plan(origin, bound):
        return plan_copy(
            src, dst, pred=TensorInfo(None, (origin,), coords, "coord", None, 1), bounds=(bound,)
        )

    n4 = Symbol.fresh("N", divisible_by=4)
    ok = coord_plan(16 * tid, n4)
    assert ok.bits == 128
    assert ok.reason == (
        "predicate uniform over 4 contiguous f32 (the bound N is a multiple of 4 and every vector "
        "starts at a multiple of 4), 16-byte alignment proven"
    )
    odd = Symbol.fresh("N")
    assert coord_plan(16 * tid, odd).reason == (
        "16 contiguous f32, but the bound N is not provably a multiple of 2"
    )
    n2 = Symbol.fresh("N", divisible_by=2)
    half = coord_plan(16 * tid, n2)
    assert half.bits == 64 and "the bound N is not provably a multiple of 4" in half.reason
    shifted = coord_plan(16 * tid + 2, n4)
    assert shifted.bits == 64
    assert (
        "a vector's first coordinate 16*tid + 2 is not provably a multiple of 4" in shifted.reason
    )
    tApA = TensorInfo(None, 0, Layout((4, 4), (0, 1)), "rmem", i1, 1)
    tiled = Layout((4, 4), (1, 4))
    stride0 = plan_copy(src._replace(layout=tiled), dst._replace(layout=tiled), pred=tApA)
    assert stride0.reason == (
        "predicate uniform over 4 contiguous f32 (stride 0), 16-byte alignment proven"
    )
    flags = TensorInfo(None, 0, row, "rmem", i1, 1)
    each = plan_copy(src, dst, pred=flags)
    assert each.width == 1 and each.reason == (
        "16 contiguous f32, but the predicate tensor may differ within a vector: its 2 lanes "
        "have layout 2:1, not stride 0"
    )


def test_predicate_coordinates_along_another_mode_are_uniform():
    """Vectors along rows of a (4, 8) tile; the bound of the *other* mode never splits one."""
    coords = make_identity_layout((4, 8))
    src = TensorInfo(None, 0, Layout((4, 8), (1, 4)), "gmem", f32, 16)
    for row_bound, col_bound in itertools.product(
        (4, 8, Symbol.fresh("m", divisible_by=4)), (3, 5)
    ):
        pred = TensorInfo(None, (0, 0), coords, "coord", None, 1)
        plan = plan_copy(src, src, pred=pred, bounds=(row_bound, col_bound))
        assert plan.bits == 128, plan.reason
