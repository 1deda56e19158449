"""Vectorized fill, clear and copy_if keep their meaning: lowered kernels run by the
interpreter agree with the algorithm computed from the algebra, and the lowered IR uses vector
accesses exactly where the proof allows them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import Kernel, examples, factorizations, injective_strides
from layoutc.ir.algebra import Layout, cosize, size
from layoutc.ir.core.types import f16, f32, f64, i32
from layoutc.passes.analysis.symbolic import TensorInfo
from layoutc.passes.layout.vectorize import plan_fill
from test_lowering_semantics import NP, aligned, lowered

TYPES = {"f32": f32, "f16": f16, "f64": f64, "i32": i32}


@st.composite
def fill_cases(draw):
    shape = draw(factorizations(max_size=64))
    layout = Layout(shape, draw(injective_strides(shape)))
    elem = draw(st.sampled_from(["f32", "f16", "f64", "i32"]))
    space = draw(st.sampled_from(["gmem", "smem"]))
    align = draw(st.sampled_from([4, 8, 16])) if elem != "f64" else draw(st.sampled_from([8, 16]))
    return layout, elem, space, align, draw(st.sampled_from(["fill", "clear"]))


@examples(60)
@given(fill_cases())
def test_fill_and_clear_write_every_element_once_with_the_proven_width(case):
    layout, elem, space, align, which = case
    k = Kernel()
    p = k.pointer("p", elem, space, align)
    text = str(layout)
    t, tt = k.tensor(p, k.layout(text), text, elem, space, align)
    if which == "fill":
        k.args.append(f"%x: {elem}")
        k.op(f"tile.fill {t}, %x : {tt}, {elem}")
    else:
        k.op(f"tile.clear {t} : {tt}")
    func = lowered(k)
    plan = plan_fill(TensorInfo(None, 0, layout, space, TYPES[elem], align))
    assert ("tile.store_vector" in str(func)) == (plan.width > 1)
    dt = NP[elem]
    buf = aligned(int(cosize(layout)), dt, fill=-7, align=align)
    value = dt(3) if which == "fill" else dt(0)
    Interpreter(func).run([Ptr(buf, 0)] + ([value] if which == "fill" else []))
    expected = np.full(buf.size, -7, dt)
    for i in range(int(size(layout))):
        expected[layout(i)] = value
    np.testing.assert_array_equal(buf, expected)


def test_fill_keeps_the_sign_of_negative_zero():
    k = Kernel()
    p = k.pointer("p")
    t, tt = k.tensor(p, k.layout("(8):(1)"), "(8):(1)")
    k.op("%z = arith.constant -0.0 : f32")
    k.op(f"tile.fill {t}, %z : {tt}, f32")
    func = lowered(k)
    assert "tile.store_vector" in str(func) and "llvm.mlir.zero" not in str(func)
    buf = aligned(8, np.float32, fill=5)
    Interpreter(func).run([Ptr(buf, 0)])
    assert np.all(buf == 0) and np.all(np.signbit(buf))


def test_copy_if_with_a_stride_zero_predicate_guards_whole_vectors():
    """CuTe's tApA: one predicate per 4-element vector (stride 0 across the vector)."""
    k = Kernel()
    s, d, q = k.pointer("src"), k.pointer("dst"), k.pointer("pred", "i1", align=1)
    lt = "(4,8):(1,4)"
    ts, tts = k.tensor(s, k.layout(lt), lt)
    td, ttd = k.tensor(d, k.layout(lt), lt)
    tp, ttp = k.tensor(q, k.layout("(4,8):(0,1)"), "(4,8):(0,1)", "i1", align=1)
    k.op(f"tile.copy_if {tp}, {ts}, {td} : {ttp}, {tts}, {ttd}")
    func = lowered(k)
    assert str(func).count("tile.load_vector") == 8
    rng = np.random.default_rng(3)
    for _ in range(4):
        pred = aligned(8, np.bool_)
        pred[:] = rng.integers(0, 2, 8).astype(bool)
        src = aligned(32, np.float32)
        src[:] = np.arange(32) + 1
        dst = aligned(32, np.float32, fill=-1)
        Interpreter(func).run([Ptr(src, 0), Ptr(dst, 0), Ptr(pred, 0)])
        expected = np.where(np.repeat(pred, 4), src, -1)
        np.testing.assert_array_equal(dst, expected)


@pytest.mark.parametrize("n", [4, 8, 12, 16, 28])
def test_copy_if_with_a_bound_that_is_a_multiple_of_the_vector(n):
    """A thread's 8 elements at 8 * tid, compared with a bound known to be a multiple of 4:
    one comparison per 128-bit access; the ragged end falls between vectors."""
    k = Kernel(block=(4, 1, 1))
    s, d = k.pointer("src"), k.pointer("dst")
    nv = k.index_arg("n", divisible_by=4, lower=4)
    lt = "(32):(1)"
    ts, tts = k.tensor(s, k.layout(lt), lt)
    td, ttd = k.tensor(d, k.layout(lt), lt)
    k.op("%tid = gpu.thread_id x")
    part = '!tile.tensor<f32, gmem, "((8)):((1))", 16>'
    k.op(
        f'%a = tile.local_tile {ts}[(%tid)] {{tiler = #layout.int_tuple<"(8)">}} : {tts} -> {part}'
    )
    k.op(
        f'%b = tile.local_tile {td}[(%tid)] {{tiler = #layout.int_tuple<"(8)">}} : {ttd} -> {part}'
    )
    k.op('%shape = layout.constant #layout.int_tuple<"(32)">')
    k.op(
        '%c = tile.make_identity_tensor %shape : !layout.int_tuple<"(32)"> -> '
        '!tile.tensor<coord, "(32):(1@0)">'
    )
    ct = '!tile.tensor<coord, "((8)):((1@0))", origin = "(?)">'
    k.op(
        '%p = tile.local_tile %c[(%tid)] {tiler = #layout.int_tuple<"(8)">} : '
        f'!tile.tensor<coord, "(32):(1@0)"> -> {ct}'
    )
    k.op(f'%bound = layout.make_int_tuple {nv} : !layout.int_tuple<"(?)">')
    k.op(f'tile.copy_if %p, %a, %b, %bound : {ct}, {part}, {part}, !layout.int_tuple<"(?)">')
    func = lowered(k)
    assert str(func).count("tile.load_vector") == 2
    src = aligned(32, np.float32)
    src[:] = np.arange(32) + 1
    dst = aligned(32, np.float32, fill=-1)
    for t in range(4):
        Interpreter(func, (4, 1, 1)).run([Ptr(src, 0), Ptr(dst, 0), n], thread=(t, 0, 0))
    np.testing.assert_array_equal(dst, np.where(np.arange(32) < n, src, -1))
