"""The whole layout lowering preserves what each algorithm means: lowered kernels, run by a
small interpreter on numpy buffers, agree with the algorithm computed directly from the
algebra (random static and symbolic layouts, every gemm form, predicates, conversions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import (
    LOWERING,
    Kernel,
    examples,
    factorizations,
    injective_strides,
    kernel_func,
    parse_module,
    run,
    tensor_type,
)
from layoutc.ir.algebra import Layout, Swizzle, composition, cosize, size
from layoutc.ir.core import StringAttr, f32, index
from layoutc.ir.dialects.layout.text import Kind, format_value
from layoutc.ir.dialects.tile import SliceOp, TensorType

NP = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i32": np.int32,
    "i8": np.int8,
    "i1": np.bool_,
}


def aligned(n: int, dtype: object, fill: float = 0, align: int = 16) -> np.ndarray:
    """A buffer whose first element is ``align``-byte aligned (what the pointer types claim)."""
    item = np.dtype(dtype).itemsize
    raw = np.zeros(n + align, dtype=dtype)
    skip = (-raw.ctypes.data % align) // item
    buf = raw[skip : skip + n]
    buf[:] = fill
    return buf


def lowered(k: Kernel) -> object:
    m = parse_module(k.text())
    run(m)
    text = str(m)
    assert "layout." not in text and "tile.copy" not in text and "tile.gemm" not in text
    return kernel_func(m)


# -- copy -------------------------------------------------------------------------------------------


def copy_kernel(src: Layout, dst: Layout, elem: str = "f32", delem: str | None = None) -> Kernel:
    delem = delem or elem
    k = Kernel()
    s, d = k.pointer("src", elem), k.pointer("dst", delem)
    st_, dt_ = str(src), str(dst)
    ts, tts = k.tensor(s, k.layout(st_), st_, elem)
    td, ttd = k.tensor(d, k.layout(dt_), dt_, delem)
    k.op(f"tile.copy {ts}, {td} : {tts}, {ttd}")
    return k


def check_copy(func: object, src_layout: Layout, dst_layout: Layout, args: list, sdt, ddt) -> None:
    src = aligned(int(cosize(src_layout)), sdt)
    src[:] = np.arange(src.size) + 1
    dst = aligned(int(cosize(dst_layout)), ddt, fill=-7)
    Interpreter(func).run([Ptr(src, 0), Ptr(dst, 0), *args])
    expected = aligned(dst.size, ddt, fill=-7)
    for i in range(int(size(src_layout))):
        expected[dst_layout(i)] = src[src_layout(i)]
    np.testing.assert_array_equal(dst, expected)


@st.composite
def copy_layouts(draw):
    shape = draw(factorizations())
    dst = Layout(shape, draw(injective_strides(shape)))
    if draw(st.booleans()):
        src = Layout(shape, draw(injective_strides(shape)))
    else:  # broadcast modes are fine in a source
        src = Layout(shape, tuple(draw(st.sampled_from([0, 1, 2, 5])) for _ in shape))
    return src, dst


@examples(60)
@given(copy_layouts(), st.sampled_from(["f32", "f16", "f64", "i8", "i32"]))
def test_copy_between_random_static_layouts(layouts, elem):
    src, dst = layouts
    dt = NP[elem]
    check_copy(lowered(copy_kernel(src, dst, elem)), src, dst, [], dt, dt)


def test_copy_converts_each_element():
    src, dst = Layout((4, 4), (1, 4)), Layout((4, 4), (4, 1))
    func = lowered(copy_kernel(src, dst, "f32", "f16"))
    check_copy(func, src, dst, [], np.float32, np.float16)


@st.composite
def symbolic_copies(draw):
    """A (4,N):(1,ld) style copy: dynamic extent and leading dimension, with facts."""
    inner = draw(st.sampled_from([1, 2, 4, 8]))
    div = draw(st.sampled_from([1, 2, 4]))
    n = draw(st.integers(1, 6)) * div
    ld_extra = draw(st.sampled_from([0, 1, 4]))
    transposed = draw(st.booleans())
    return inner, div, n, ld_extra, transposed


@examples(40)
@given(symbolic_copies())
def test_copy_with_dynamic_extent_and_stride(case):
    inner, div, n, ld_extra, transposed = case
    k = Kernel()
    s, d = k.pointer("src"), k.pointer("dst")
    nv = k.index_arg("n", divisible_by=div, lower=1)
    ldv = k.index_arg("ld", divisible_by=1, lower=inner)
    text = f"({inner},?):(1,?)"
    ls = k.layout(text, [nv], [ldv])
    dtext = f"({inner},?):(?,1)" if transposed else f"({inner},?):(1,{inner})"
    ld_ = k.layout(dtext, [nv], [nv] if transposed else [])
    ts, tts = k.tensor(s, ls, text)
    td, ttd = k.tensor(d, ld_, dtext)
    k.op(f"tile.copy {ts}, {td} : {tts}, {ttd}")
    func = lowered(k)
    ld = inner + ld_extra
    src_layout = Layout((inner, n), (1, ld))
    dst_layout = Layout((inner, n), (n, 1)) if transposed else Layout((inner, n), (1, inner))
    check_copy(func, src_layout, dst_layout, [n, ld], np.float32, np.float32)


def test_copy_of_thread_partitions_covers_the_tile():
    """Every thread copies its (4,):(1,) slice of a (4,128) tile; all threads together copy it."""
    k = Kernel(block=(128, 1, 1))
    s, d = k.pointer("src"), k.pointer("dst")
    lt = "(4,128):(1,4)"
    ts, tts = k.tensor(s, k.layout(lt), lt)
    td, ttd = k.tensor(d, k.layout(lt), lt)
    k.op("%tid = gpu.thread_id x")
    part = tensor_type("(4):(1)")
    k.op(f"%a = tile.slice {ts}[(_, %tid)] : {tts} -> {part}")
    k.op(f"%b = tile.slice {td}[(_, %tid)] : {ttd} -> {part}")
    k.op(f"tile.copy %a, %b : {part}, {part}")
    func = lowered(k)
    assert "tile.load_vector" in str(func)
    src = aligned(512, np.float32)
    src[:] = np.arange(512)
    dst = aligned(512, np.float32, fill=-1)
    for t in range(128):
        Interpreter(func, (128, 1, 1)).run([Ptr(src, 0), Ptr(dst, 0)], thread=(t, 0, 0))
    np.testing.assert_array_equal(src, dst)


# -- swizzled layouts at run-time coordinates ------------------------------------------------------------


@st.composite
def swizzled_tiles(draw):
    """A (T, V) tile behind a swizzle, sliced per thread ((tid, _), a dynamic offset inside the
    swizzle), copied to and from a plain or another swizzled tile; and which way."""
    b = draw(st.integers(1, 2))
    m = draw(st.integers(0, 3))
    sw = Swizzle(b, m, draw(st.integers(b, 3)) * draw(st.sampled_from([1, -1])))
    t = draw(st.sampled_from([2, 4, 8]))
    v = draw(st.sampled_from([2, 4, 8]))
    inner = Layout((t, v), (v, 1)) if draw(st.booleans()) else Layout((t, v), (1, t))
    other = Layout((t, v), (v, 1))
    if draw(st.booleans()):  # both sides swizzled, differently
        b2 = draw(st.integers(1, 2))
        other = composition(Swizzle(b2, draw(st.integers(0, 3)), draw(st.integers(b2, 3))), other)
    return composition(sw, inner), other, draw(st.booleans())


@examples(40)
@given(swizzled_tiles())
def test_thread_slices_of_swizzled_tiles_copy_what_cute_addresses(case):
    swizzled, other, into_swizzle = case
    t, v = other.shape
    k = Kernel(block=(t, 1, 1))
    s, d = k.pointer("src", space="smem"), k.pointer("dst", space="smem")
    k.op("%tid = gpu.thread_id x")
    src_layout, dst_layout = (other, swizzled) if into_swizzle else (swizzled, other)
    slices = []
    for ptr, layout in ((s, src_layout), (d, dst_layout)):
        text = format_value(layout, Kind.LAYOUT)[1]
        tv, tt = k.tensor(ptr, k.layout(text), text, space="smem")
        row = SliceOp.infer([TensorType(f32, "smem", text, 16), index], _ROW, [None, None])
        name = k.fresh("row")
        k.op(f"{name} = tile.slice {tv}[(%tid, _)] : {tt} -> {row.text}")
        slices.append((name, row.text))
    (a, ta), (b, tb) = slices
    k.op(f"tile.copy {a}, {b} : {ta}, {tb}")
    # and one element at a run-time coordinate: dst(tid, v - 1 - tid % v) = 0
    k.op(f"%c = arith.constant {v} : index")
    k.op("%one = arith.constant 1 : index")
    k.op("%r = arith.remui %tid, %c : index")
    k.op("%j0 = arith.subi %c, %r : index")
    k.op("%j = arith.subi %j0, %one : index")
    k.op("%zero = arith.constant 0.0 : f32")
    k.op(f"tile.store %zero, {b}[%j] : {tb}")
    func = lowered(k)
    n = 1 << 12  # swizzles permute within blocks of 2^(M+B+|S|) <= 2^9 elements
    src = aligned(n, np.float32)
    src[:] = np.arange(n) + 1
    dst = aligned(n, np.float32, fill=-1)
    for tid in range(t):
        Interpreter(func, (t, 1, 1)).run([Ptr(src, 0), Ptr(dst, 0)], thread=(tid, 0, 0))
    expected = np.full(n, -1, np.float32)
    for tid in range(t):
        for j in range(v):
            expected[dst_layout((tid, j))] = src[src_layout((tid, j))]
        expected[dst_layout((tid, v - 1 - tid % v))] = 0
    np.testing.assert_array_equal(dst, expected)


_ROW = {"coord": StringAttr("(?,_)")}


# -- copy_if ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 5, 8, 13])
def test_copy_if_with_identity_tensor_predicate(n):
    """dst(i) = src(i) for coordinates below the bound, untouched elsewhere (a ragged tail)."""
    k = Kernel()
    s, d = k.pointer("src"), k.pointer("dst")
    nv = k.index_arg("n", lower=1)
    lt = "(16):(1)"
    ts, tts = k.tensor(s, k.layout(lt), lt)
    td, ttd = k.tensor(d, k.layout(lt), lt)
    k.op('%shape = layout.make_shape : !layout.int_tuple<"(16)">')
    k.op(
        '%ct = tile.make_identity_tensor %shape : !layout.int_tuple<"(16)"> -> !tile.tensor<coord, "(16):(1@0)">'
    )
    k.op(f'%bound = layout.make_int_tuple {nv} : !layout.int_tuple<"(?)">')
    k.op(
        f'tile.copy_if %ct, {ts}, {td}, %bound : !tile.tensor<coord, "(16):(1@0)">, {tts}, {ttd}, '
        '!layout.int_tuple<"(?)">'
    )
    func = lowered(k)
    src = aligned(16, np.float32)
    src[:] = np.arange(16) + 1
    dst = aligned(16, np.float32, fill=-1)
    Interpreter(func).run([Ptr(src, 0), Ptr(dst, 0), n])
    expected = np.where(np.arange(16) < n, src, -1)
    np.testing.assert_array_equal(dst, expected)


def test_copy_if_with_i1_fragment_predicate():
    k = Kernel()
    s, d, p = k.pointer("src"), k.pointer("dst"), k.pointer("pred", "i1", align=1)
    lt = "(2,4):(4,1)"
    ts, tts = k.tensor(s, k.layout(lt), lt)
    td, ttd = k.tensor(d, k.layout(lt), lt)
    tp, ttp = k.tensor(p, k.layout("(2,4):(1,2)"), "(2,4):(1,2)", "i1", align=1)
    k.op(f"tile.copy_if {tp}, {ts}, {td} : {ttp}, {tts}, {ttd}")
    func = lowered(k)
    rng = np.random.default_rng(0)
    pred = aligned(8, np.bool_)
    pred[:] = rng.integers(0, 2, 8).astype(bool)
    src = aligned(8, np.float32)
    src[:] = np.arange(8) + 1
    dst = aligned(8, np.float32, fill=-1)
    Interpreter(func).run([Ptr(src, 0), Ptr(dst, 0), Ptr(pred, 0)])
    sl, pl = Layout((2, 4), (4, 1)), Layout((2, 4), (1, 2))
    expected = np.full(8, -1, np.float32)
    for i in range(8):
        if pred[pl(i)]:
            expected[sl(i)] = src[sl(i)]
    np.testing.assert_array_equal(dst, expected)


# -- gemm ---------------------------------------------------------------------------------------------

# form: ranks of A, B, C and how each mode letter reads
GEMM_FORMS = {
    "V": ("V", "V", "V"),
    "MN": ("M", "N", "MN"),
    "MNK": ("MK", "NK", "MN"),
    "VMN": ("VM", "VN", "VMN"),
    "VMNK": ("VMK", "VNK", "VMN"),
}


def _form_layout(modes: str, extents: dict, rng: np.random.Generator) -> Layout:
    shape = tuple(extents[m] for m in modes)
    order = rng.permutation(len(shape))
    stride = [0] * len(shape)
    cur = 1
    for i in order:
        stride[i] = cur
        cur *= shape[i]
    return Layout(shape, tuple(stride))


def _coord(at: dict, modes: str) -> object:
    c = tuple(at[m] for m in modes)
    return c[0] if len(c) == 1 else c


def _gemm_kernel(form: str, extents: dict, rng, gemms: int, c_space: str):
    """A kernel of ``gemms`` tile.gemm ops of ``form`` (C in ``c_space``: "rmem" copies C into
    a register fragment and back around them), its layouts, random small-integer A, B and C
    (exact in f32), and the C expected: C + gemms * (A @ B) over the form's modes."""
    la, lb, lc = (_form_layout(m, extents, rng) for m in GEMM_FORMS[form])
    k = Kernel()
    pa, pb, pc = k.pointer("a"), k.pointer("b"), k.pointer("c")
    ta, tta = k.tensor(pa, k.layout(str(la)), str(la))
    tb, ttb = k.tensor(pb, k.layout(str(lb)), str(lb))
    tc, ttc = k.tensor(pc, k.layout(str(lc)), str(lc))
    if c_space == "rmem":
        frag = tensor_type(str(lc), space="rmem", align=4)
        k.op(f"%frag = tile.alloc_fragment : {frag}")
        k.op(f"tile.copy {tc}, %frag : {ttc}, {frag}")
        for _ in range(gemms):
            k.op(f"tile.gemm {ta}, {tb}, %frag : {tta}, {ttb}, {frag}")
        k.op(f"tile.copy %frag, {tc} : {frag}, {ttc}")
    else:
        for _ in range(gemms):
            k.op(f"tile.gemm {ta}, {tb}, {tc} : {tta}, {ttb}, {ttc}")
    a = aligned(int(cosize(la)), np.float32)
    b = aligned(int(cosize(lb)), np.float32)
    c = aligned(int(cosize(lc)), np.float32)
    a[:] = rng.integers(-3, 4, a.size)
    b[:] = rng.integers(-3, 4, b.size)
    c[:] = rng.integers(-3, 4, c.size)
    expected = c.copy()
    ma, mb, mc = GEMM_FORMS[form]
    letters = sorted(set(ma + mb + mc), key="VMNK".index)
    for idx in np.ndindex(*(extents[x] for x in letters)):
        at = dict(zip(letters, idx))
        ca, cb, cc = (_coord(at, modes) for modes in (ma, mb, mc))
        expected[lc(cc)] += gemms * a[la(ca)] * b[lb(cb)]
    return k, lc, (a, b, c), expected


@pytest.mark.parametrize("form", list(GEMM_FORMS))
@pytest.mark.parametrize("c_space", ["gmem", "rmem"])
def test_gemm_forms_with_fma(form, c_space):
    rng = np.random.default_rng(len(form))
    extents = {"V": 3, "M": 2, "N": 4, "K": 5}
    k, _, (a, b, c), expected = _gemm_kernel(form, extents, rng, 1, c_space)
    func = lowered(k)
    Interpreter(func).run([Ptr(a, 0), Ptr(b, 0), Ptr(c, 0)])
    np.testing.assert_array_equal(c, expected)


@pytest.mark.parametrize("form", list(GEMM_FORMS))
def test_register_gemm_with_and_without_fragment_scalrep(form):
    """Two gemms into one register fragment between a copy in and a copy out (an MMA main
    loop's shape): fragment-scalrep forwards the fragment's values and drops dead stores, and
    the kernel computes the same with it as without it."""
    rng = np.random.default_rng(7 + len(form))
    extents = {"V": 2, "M": 2, "N": 3, "K": 2}
    k, lc, (a, b, c0), expected = _gemm_kernel(form, extents, rng, 2, "rmem")
    accesses = {}
    for label, pipeline in (
        ("with", LOWERING),
        ("without", LOWERING.replace("fragment-scalrep, ", "")),
    ):
        m = parse_module(k.text())
        run(m, pipeline)
        func = kernel_func(m)
        accesses[label] = sum(
            1
            for o in func.walk_ops()
            if o.name in ("tile.load", "tile.store") and o.source.type.space == "rmem"
        )
        c = c0.copy()
        Interpreter(func).run([Ptr(a, 0), Ptr(b, 0), Ptr(c, 0)])
        np.testing.assert_array_equal(c, expected)
    # the second gemm's loads of C are the first one's results, and the first one's stores
    # are overwritten unread (the copies are vector accesses, which the pass leaves)
    assert accesses["with"] <= accesses["without"] - 2 * size(lc), accesses


def test_gemm_with_dynamic_k_loops_over_k():
    k = Kernel()
    pa, pb, pc = k.pointer("a"), k.pointer("b"), k.pointer("c")
    kv = k.index_arg("kk", lower=1)
    la_t, lb_t = "(2,?):(1,2)", "(4,?):(1,4)"
    ta, tta = k.tensor(pa, k.layout(la_t, [kv], []), la_t)
    tb, ttb = k.tensor(pb, k.layout(lb_t, [kv], []), lb_t)
    lc_t = "(2,4):(1,2)"
    tc, ttc = k.tensor(pc, k.layout(lc_t), lc_t)
    frag = tensor_type(lc_t, space="rmem", align=4)
    k.op(f"%frag = tile.alloc_fragment : {frag}")
    k.op(f"tile.clear %frag : {frag}")
    k.op(f"tile.gemm {ta}, {tb}, %frag : {tta}, {ttb}, {frag}")
    k.op(f"tile.copy %frag, {tc} : {frag}, {ttc}")
    func = lowered(k)
    assert "scf.for" in str(func)
    kk = 7
    rng = np.random.default_rng(1)
    a = aligned(2 * kk, np.float32)
    b = aligned(4 * kk, np.float32)
    a[:] = rng.integers(-3, 4, a.size)
    b[:] = rng.integers(-3, 4, b.size)
    c = aligned(8, np.float32, fill=99)
    Interpreter(func).run([Ptr(a, 0), Ptr(b, 0), Ptr(c, 0), kk])
    expected = np.zeros(8, np.float32)
    for m in range(2):
        for n in range(4):
            expected[m + 2 * n] = sum(a[m + 2 * j] * b[n + 4 * j] for j in range(kk))
    np.testing.assert_array_equal(c, expected)


# -- axpby, fill, clear ----------------------------------------------------------------------------


@pytest.mark.parametrize("beta", [0.0, 2.0, None])
def test_axpby(beta):
    k = Kernel()
    px, py = k.pointer("x"), k.pointer("y")
    lx, ly = "(4,3):(3,1)", "(4,3):(1,4)"
    tx, ttx = k.tensor(px, k.layout(lx), lx)
    ty, tty = k.tensor(py, k.layout(ly), ly)
    k.op("%alpha = arith.constant 1.5 : f32")
    if beta is None:
        k.args.append("%beta: f32")
        bv = "%beta"
    else:
        k.op(f"%beta = arith.constant {beta} : f32")
        bv = "%beta"
    k.op(f"tile.axpby %alpha, {tx}, {bv}, {ty} : f32, {ttx}, f32, {tty}")
    func = lowered(k)
    x = aligned(12, np.float32)
    x[:] = np.arange(12)
    y = aligned(12, np.float32)
    y[:] = np.arange(12) * 10
    y[5] = np.nan
    xl, yl = Layout((4, 3), (3, 1)), Layout((4, 3), (1, 4))
    b = 0.0 if beta is None else beta
    expected = y.copy()
    for i in range(12):
        v = np.float32(1.5) * x[xl(i)]
        expected[yl(i)] = v if b == 0 else v + np.float32(b) * y[yl(i)]
    args = [Ptr(x, 0), Ptr(y, 0)] + ([np.float32(0.0)] if beta is None else [])
    Interpreter(func).run(args)
    np.testing.assert_array_equal(y, expected)


def test_fill_and_clear():
    k = Kernel()
    p, q = k.pointer("p"), k.pointer("q", "i32", align=4)
    lp, lq = "(3,(2,2)):(4,(1,2))", "(5):(2)"
    tp, ttp = k.tensor(p, k.layout(lp), lp)
    tq, ttq = k.tensor(q, k.layout(lq), lq, "i32", align=4)
    k.op("%v = arith.constant 2.5 : f32")
    k.op(f"tile.fill {tp}, %v : {ttp}, f32")
    k.op(f"tile.clear {tq} : {ttq}")
    func = lowered(k)
    pb = aligned(12, np.float32, fill=-1)
    qb = aligned(10, np.int32, fill=-1)
    Interpreter(func).run([Ptr(pb, 0), Ptr(qb, 0)])
    lpl = Layout((3, (2, 2)), (4, (1, 2)))
    exp_p = np.full(12, -1, np.float32)
    for i in range(12):
        exp_p[lpl(i)] = 2.5
    np.testing.assert_array_equal(pb, exp_p)
    np.testing.assert_array_equal(qb, np.array([0, -1] * 5, np.int32))
