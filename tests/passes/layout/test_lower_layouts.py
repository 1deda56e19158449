"""lower-layouts: the index code it emits equals the algebra's crd2idx/idx2crd (random static and
symbolic layouts, dynamic coordinates), no layout op or tensor view survives, and what it
cannot lower is a diagnostic."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import Kernel, examples, kernel_func, parse_module, remarks, run
from layoutc.ir.algebra import Layout, crd2idx, idx2crd
from layoutc.ir.algebra import inttuple as it

PIPELINE = "builtin.module(lower-layouts, canonicalize, cse)"


@st.composite
def nested_layouts(draw):
    """A hierarchical layout with random (possibly non-injective) strides."""

    def mode(depth):
        if depth < 2 and draw(st.booleans()):
            return tuple(mode(depth + 1) for _ in range(draw(st.integers(1, 3))))
        return draw(st.integers(1, 5))

    shape = tuple(mode(0) for _ in range(draw(st.integers(1, 3))))
    stride = it.transform_leaf(shape, lambda _: draw(st.integers(0, 40)))
    return Layout(shape, stride)


def _coordinate_text(shape, names):
    if isinstance(shape, tuple):
        return "(" + ",".join(_coordinate_text(s, names) for s in shape) + ")"
    names.append(None)
    return "?"


def _leaves(t):
    return list(it.flatten_to_tuple(t)) if isinstance(t, tuple) else [t]


def crd2idx_kernel(layout_text: str, shape):
    k = Kernel()
    out = k.pointer("out", "i64", align=8)
    names: list = []
    text = _coordinate_text(shape, names)
    coords = [k.index_arg(f"c{i}") for i in range(len(names))]
    lv = k.layout(layout_text)
    k.op(f'%crd = layout.make_coord {", ".join(coords)} : !layout.int_tuple<"{text}">')
    k.op(
        f'%i = layout.crd2idx %crd, {lv} : !layout.int_tuple<"{text}">, !layout.layout<"{layout_text}">'
    )
    k.op("%i64 = arith.index_cast %i : index to i64")
    k.op(f"tile.store %i64, {out}[0] : !tile.ptr<i64, gmem, 8>")
    return k


def run_kernel(k: Kernel, args) -> int:
    m = parse_module(k.text())
    run(m, PIPELINE)
    text = str(m)
    assert "layout." not in text, text
    out = np.zeros(1, np.int64)
    Interpreter(kernel_func(m)).run([Ptr(out, 0), *args])
    return int(out[0])


@examples(80)
@given(nested_layouts(), st.data())
def test_crd2idx_matches_the_algebra(layout, data):
    k = crd2idx_kernel(str(layout), layout.shape)
    coord = it.transform_leaf(layout.shape, lambda s: data.draw(st.integers(0, s - 1)))
    assert run_kernel(k, _leaves(coord)) == crd2idx(coord, layout.shape, layout.stride)


@examples(40)
@given(st.data())
def test_crd2idx_with_symbolic_shape_and_stride(data):
    n = data.draw(st.integers(1, 9))
    ld = data.draw(st.integers(1, 20))
    k = Kernel()
    out = k.pointer("out", "i64", align=8)
    nv = k.index_arg("n", lower=1)
    ldv = k.index_arg("ld")
    c0 = k.index_arg("c0")
    c1 = k.index_arg("c1")
    lt = "((2,?),3):((?,1),7)"
    lv = k.layout(lt, [nv], [ldv])
    k.op(f'%crd = layout.make_coord {c0}, {c1} : !layout.int_tuple<"(?,?)">')
    k.op(f'%i = layout.crd2idx %crd, {lv} : !layout.int_tuple<"(?,?)">, !layout.layout<"{lt}">')
    k.op("%i64 = arith.index_cast %i : index to i64")
    k.op(f"tile.store %i64, {out}[0] : !tile.ptr<i64, gmem, 8>")
    c0v = data.draw(st.integers(0, 2 * n - 1))
    c1v = data.draw(st.integers(0, 2))
    got = run_kernel(k, [n, ld, c0v, c1v])
    assert got == Layout(((2, n), 3), ((ld, 1), 7))((c0v, c1v))


@examples(40)
@given(nested_layouts(), st.data())
def test_idx2crd_matches_the_algebra(layout, data):
    shape = layout.shape
    k = Kernel()
    leaves = _leaves(shape)
    out = k.pointer("out", "i64", align=8)
    iv = k.index_arg("i")
    shape_text = it.format_tuple(shape)
    k.op(f'%s = layout.constant #layout.int_tuple<"{shape_text}">')
    flat = it.flatten_to_tuple(shape) if isinstance(shape, tuple) else (shape,)
    crd_type = _coordinate_text(shape, [])
    k.op(
        f'%crd = layout.idx2crd {iv}, %s : (index, !layout.int_tuple<"{shape_text}">) -> !layout.int_tuple<"{crd_type}">'
    )
    k.op(
        f'%flat = layout.flatten %crd : (!layout.int_tuple<"{crd_type}">) -> !layout.int_tuple<"{_flat_text(len(flat))}">'
    )
    for j in range(len(leaves)):
        k.op(
            f'%g{j} = layout.get %flat[{j}] : (!layout.int_tuple<"{_flat_text(len(flat))}">) -> !layout.int_tuple<"?">'
        )
        k.op(f'%e{j} = layout.size %g{j} : !layout.int_tuple<"?">')
        k.op(f"%x{j} = arith.index_cast %e{j} : index to i64")
        k.op(f"tile.store %x{j}, {out}[{j}] : !tile.ptr<i64, gmem, 8>")
    m = parse_module(k.text())
    run(m, PIPELINE)
    assert "layout." not in str(m)
    i = data.draw(st.integers(0, int(np.prod(flat)) - 1))
    buf = np.zeros(len(leaves), np.int64)
    Interpreter(kernel_func(m)).run([Ptr(buf, 0), i])
    assert list(buf) == list(_leaves(idx2crd(i, shape)))


def _flat_text(n):
    return "(" + ",".join(["?"] * n) + ")" if n > 1 else "(?)"


def test_no_layout_op_or_view_remains_and_accesses_use_pointers():
    text = """
    func.func @k(%p: !tile.ptr<f32, gmem, 16>, %i: index) attributes {gpu.kernel} {
      %l = layout.constant #layout.layout<"(8,8):(8,1)">
      %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,8):(8,1)">) -> !tile.tensor<f32, gmem, "(8,8):(8,1)", 16>
      %r = tile.slice %t[(%i, _)] : !tile.tensor<f32, gmem, "(8,8):(8,1)", 16> -> !tile.tensor<f32, gmem, "(8):(1)", 4>
      %x = tile.load %r[(3)] : !tile.tensor<f32, gmem, "(8):(1)", 4> -> f32
      tile.store %x, %r[(5)] : !tile.tensor<f32, gmem, "(8):(1)", 4>
      return
    }
    """
    m = parse_module(text)
    run(m, PIPELINE)
    out = str(m)
    assert "layout." not in out and "tile.slice" not in out and "tile.make_tensor" not in out
    assert "tile.load %p[" in out and "tile.store %" in out
    buf = np.arange(64, dtype=np.float32)
    Interpreter(kernel_func(m)).run([Ptr(buf, 0), 2])
    assert buf[2 * 8 + 5] == 2 * 8 + 3


def test_shared_address_arithmetic_is_emitted_once():
    text = """
    func.func @k(%p: !tile.ptr<f32, gmem, 16>, %i: index, %j: index) attributes {gpu.kernel} {
      %l = layout.constant #layout.layout<"(64,64):(64,1)">
      %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(64,64):(64,1)">) -> !tile.tensor<f32, gmem, "(64,64):(64,1)", 16>
      %x = tile.load %t[(%i, %j)] : !tile.tensor<f32, gmem, "(64,64):(64,1)", 16> -> f32
      tile.store %x, %t[(%i, %j)] : !tile.tensor<f32, gmem, "(64,64):(64,1)", 16>
      return
    }
    """
    m = parse_module(text)
    run(m, "builtin.module(lower-layouts)")
    out = str(m)
    assert out.count("arith.shli") == 1 and out.count("arith.addi") == 1, out
    assert "arith.muli" not in out


def test_register_fragments_indexed_at_run_time_live_in_local_memory():
    text = """
    func.func @k(%i: index) attributes {gpu.kernel} {
      %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(8):(2)", 4>
      %c = arith.constant 1.0 : f32
      tile.store %c, %r[(%i)] : !tile.tensor<f32, rmem, "(8):(2)", 4>
      %x = tile.load %r[(%i)] : !tile.tensor<f32, rmem, "(8):(2)", 4> -> f32
      return
    }
    """
    m = parse_module(text)
    found = remarks(run(m, PIPELINE))
    assert len(found) == 1 and "lives in local memory (an alloca)" in found[0]
    out = str(m)
    # both accesses address the fragment's pointer at the run-time offset 2 * %i
    assert "tile.get_ptr %r" in out and out.count("arith.shli") == 1, out


def test_algorithms_must_be_lowered_first():
    text = """
    func.func @k(%p: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel} {
      %l = layout.constant #layout.layout<"(8):(1)">
      %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8):(1)">) -> !tile.tensor<f32, gmem, "(8):(1)", 16>
      tile.clear %t : !tile.tensor<f32, gmem, "(8):(1)", 16>
      return
    }
    """
    m = parse_module(text)
    with pytest.raises(AssertionError, match="run lower-algorithms before lower-layouts"):
        run(m, PIPELINE)
