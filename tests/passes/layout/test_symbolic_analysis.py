"""The symbolic value analysis: arith as expressions (exact semantics, checked against an
interpreter), facts of kernel arguments, thread ids, loop variables and tile.assume, layouts
and tensors through producer chains; and emit: expressions back as arith, equal in value,
with shared subexpressions, strength reduction and hoisting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter
from layout_pass_helpers import examples, kernel_func, parse_module
from layoutc.ir.algebra import Layout
from layoutc.ir.algebra.symbolic import Symbol, SymInt
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.passes.analysis import emitter as E
from layoutc.passes.analysis.symbolic import SymbolicAnalysis, binding_of, default_analysis


def func_of(text: str):
    return kernel_func(parse_module(text))


def values(func):
    out = {}
    for op in func.walk_ops():
        for r in op.results:
            if r.name_hint:
                out[r.name_hint] = r
    for a in func.regions[0].blocks[0].args:
        out[a.name_hint] = a
    return out


# -- arith semantics against the interpreter ----------------------------------------------------

ARITH = [
    "addi", "subi", "muli", "divsi", "divui", "floordivsi", "ceildivsi", "remsi", "remui",
    "minsi", "maxsi", "andi", "shli", "shrsi", "shrui",
]  # fmt: skip


@st.composite
def arith_programs(draw):
    """Straight-line index arithmetic on two arguments and small constants."""
    lines = []
    names = ["%a", "%b"]
    for i in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(ARITH))
        x = draw(st.sampled_from(names))
        if op in ("shli", "shrsi", "shrui"):
            c = draw(st.integers(0, 4))
            lines.append(f"%k{i} = arith.constant {c} : index")
            y = f"%k{i}"
        elif op == "andi":
            c = draw(st.sampled_from([1, 3, 7, 15, -4, -8, 6]))
            lines.append(f"%k{i} = arith.constant {c} : index")
            y = f"%k{i}"
        elif op in ("divsi", "divui", "floordivsi", "ceildivsi", "remsi", "remui"):
            c = draw(st.sampled_from([1, 2, 3, 4, 8, -2]))
            lines.append(f"%k{i} = arith.constant {c} : index")
            y = f"%k{i}"
        else:
            y = draw(st.sampled_from(names))
        lines.append(f"%v{i} = arith.{op} {x}, {y} : index")
        names.append(f"%v{i}")
    return lines, names[-1]


@examples(150)
@given(arith_programs(), st.integers(-40, 40), st.integers(0, 40))
def test_sym_of_agrees_with_arith_semantics(program, a, b):
    lines, result = program
    body = "\n".join(lines)
    text = f"""
    func.func @k(%a: index, %b: index {{layoutc.lower = 0 : i64}}) {{
      {body}
      %r = arith.addi {result}, {result} : index
      return
    }}"""
    func = func_of(text)
    analysis = SymbolicAnalysis(func)
    v = values(func)
    x = analysis.sym_of(v["r"])
    env = {}
    for name, val in (("a", a), ("b", b)):
        s = analysis.sym_of(v[name])
        env[s] = val
    expected = _run(func, a, b)
    if expected is None:  # an unsigned op on a negative value: no defined value to compare
        return
    got = (
        x
        if type(x) is int
        else x.evaluate({s: env[s] for s in x.free_symbols if s in env} | _opaque(x, func, a, b))
    )
    assert got == expected


def _opaque(x, func, a, b):
    """Values of symbols the analysis bound to intermediate results (ops it does not see
    through for these operands), read from the interpreter."""
    env = {}
    if isinstance(x, SymInt):
        interp = _Recorder(func)
        interp.run([a, b])
        for s in x.free_symbols:
            v = binding_of(s)
            if v is not None and v in interp.values:
                env[s] = interp.values[v]
    return env


class _Recorder(Interpreter):
    def run(self, args, **kw):
        self.values = {}
        super().run(args, **kw)

    def _op(self, op, env):
        super()._op(op, env)
        for r in op.results:
            if r in env:
                self.values[r] = env[r]


def _run(func, a, b):
    interp = _Recorder(func)
    try:
        interp.run([a, b])
    except AssertionError:
        return None
    v = values(func)
    return interp.values[v["r"]]


# -- facts ---------------------------------------------------------------------------------------


def test_kernel_argument_facts():
    func = func_of(
        """func.func @k(%n: i32 {layoutc.divisible_by = 8 : i64, layoutc.lower = 8 : i64, layoutc.upper = 4096 : i64}) attributes {gpu.kernel} {
          %i = arith.index_cast %n : i32 to index
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    x = a.sym_of(values(func)["i"])
    assert isinstance(x, Symbol) and x.divisible_by == 8 and x.bounds == (8, 4096)


def test_thread_ids_loop_variables_and_assume():
    func = func_of(
        """func.func @k(%n: index) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 2, 1>} {
          %t = gpu.thread_id x
          %ty = gpu.thread_id y
          %tz = gpu.thread_id z
          %bd = gpu.block_dim y
          %b = gpu.block_id x
          %c0 = arith.constant 0 : index
          %c4 = arith.constant 4 : index
          %c64 = arith.constant 64 : index
          scf.for %i = %c0 to %c64 step %c4 {
            %w = arith.muli %i, %c4 : index
          }
          %m = tile.assume %n {divisible_by = 16 : i64, lower = 16 : i64} : index
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    v = values(func)
    assert a.sym_of(v["t"]).bounds == (0, 127)
    assert a.sym_of(v["ty"]).bounds == (0, 1)
    assert a.sym_of(v["bd"]) == 2
    assert a.sym_of(v["b"]).bounds == (0, None)
    loop = next(op for op in func.walk_ops() if op.name == "scf.for")
    iv = a.sym_of(loop.induction_var)
    assert iv.divisible_by == 4 and iv.bounds == (0, 60)
    m = a.sym_of(v["m"])
    assert m.known_divisor() == 16 and m.bounds[0] == 16
    assert binding_of(m) is v["m"]


def test_every_read_of_a_gpu_id_is_the_first_reads_symbol():
    """Two reads of the block index (a kernel and a function inlined into it each read it) are
    one value in a thread, so one symbol: their difference is 0 and an offset mixing them is
    bounded. A read inside a loop takes the symbol of the read before the loop; the first read
    of another dimension, or in a branch that does not run before, is its own."""
    func = func_of(
        """func.func @k(%n: index) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>} {
          %b1 = gpu.block_id x
          %by = gpu.block_id y
          %b2 = gpu.block_id x
          %t1 = gpu.thread_id x
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c8 = arith.constant 8 : index
          scf.for %i = %c0 to %c8 step %c1 {
            %b3 = gpu.block_id x
            %t2 = gpu.thread_id x
          }
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    v = values(func)
    b1 = a.sym_of(v["b1"])
    assert a.sym_of(v["b2"]) is b1 and a.sym_of(v["b3"]) is b1
    assert a.sym_of(v["b2"]) - b1 == 0
    assert a.sym_of(v["by"]) is not b1
    assert a.sym_of(v["t2"]) is a.sym_of(v["t1"])
    assert binding_of(b1) is v["b1"]
    # the same questions in the other order get the same answers
    a2 = SymbolicAnalysis(func)
    assert a2.sym_of(v["b3"]) is a2.sym_of(v["b1"])


VIEW_KERNEL = """func.func @k(%p: !tile.ptr<f32, gmem, 16> {layoutc.align = 16 : i64}, %n: index {layoutc.divisible_by = 4 : i64}) attributes {gpu.kernel} {
  %s = layout.make_shape %n : !layout.int_tuple<"(8,?)">
  %d = layout.make_stride %n : !layout.int_tuple<"(?,1)">
  %l = layout.make_layout %s, %d : !layout.layout<"(8,?):(?,1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,?):(?,1)">) -> !tile.tensor<f32, gmem, "(8,?):(?,1)", 16>
  %b = gpu.block_id x
  %tile = tile.local_tile %t[(%b, 0)] {tiler = #layout.int_tuple<"(2,4)">} : !tile.tensor<f32, gmem, "(8,?):(?,1)", 16> -> !tile.tensor<f32, gmem, "(2,4):(?,1)", 16>
  return
}"""


def test_layouts_and_tensors_through_views():
    func = func_of(
        VIEW_KERNEL.replace(
            "  return",
            '  %sz = layout.size %l : !layout.layout<"(8,?):(?,1)">\n  return',
        )
    )
    a = SymbolicAnalysis(func)
    v = values(func)
    layout = a.layout_of(v["l"])
    n = layout.shape[1]  # %n as a shape entry: an alias of %n that is at least 1
    assert binding_of(n) is v["n"] and n.bounds[0] >= 1 and n.known_divisor() == 4
    assert layout == Layout((8, n), (n, 1))
    info = a.tensor_of(v["tile"])
    b = a.sym_of(v["b"])
    assert info.layout == Layout((2, 4), (n, 1))
    assert info.offset == 2 * n * b
    assert info.base is v["p"] and info.alignment == 16
    assert info.first_alignment() == 16  # 2*n*b elements, n a multiple of 4: 32-byte steps
    assert a.sym_of(v["sz"]) == 8 * n


def test_coordinate_tensors_carry_their_origin_through_views():
    func = func_of(
        """func.func @k(%n: index, %b: index {layoutc.lower = 0 : i64}, %t: index {layoutc.lower = 0 : i64}) {
          %s = layout.make_shape %n, %n : !layout.int_tuple<"(?,?)">
          %c = tile.make_identity_tensor %s : !layout.int_tuple<"(?,?)"> -> !tile.tensor<coord, "(?,?):(1@0,1@1)">
          %tile = tile.local_tile %c[(%b, 2)] {tiler = #layout.int_tuple<"(8,16)">} : !tile.tensor<coord, "(?,?):(1@0,1@1)"> -> !tile.tensor<coord, "(8,16):(1@0,1@1)", origin = "(?,32)">
          %row = tile.slice %tile[(%t, _)] : !tile.tensor<coord, "(8,16):(1@0,1@1)", origin = "(?,32)"> -> !tile.tensor<coord, "(16):(1@1)", origin = "(?,32)">
          %x = tile.load %row[5] : !tile.tensor<coord, "(16):(1@1)", origin = "(?,32)"> -> !layout.int_tuple<"(?,37)">
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    v = values(func)
    b, t = a.sym_of(v["b"]), a.sym_of(v["t"])
    assert tuple(a.tensor_of(v["c"]).offset) == (0, 0)  # CuTe: coprofile of the identity
    assert tuple(a.tensor_of(v["tile"]).offset) == (8 * b, 32)
    assert tuple(a.tensor_of(v["row"]).offset) == (8 * b + t, 32)
    assert tuple(a.value_of(v["x"])) == (8 * b + t, 37)  # origin + layout(5) = (.., 32 + 5)


def test_default_analysis_is_shared_per_module():
    func = func_of("func.func @k(%n: index) { return }")
    (n,) = func.regions[0].blocks[0].args
    assert default_analysis(n) is default_analysis(n)


# -- emit ------------------------------------------------------------------------------------------

I_ = Symbol.fresh("i", positive=False, lower=0, upper=1000)
J = Symbol.fresh("j", positive=False, lower=-50, upper=50)
N = Symbol.fresh("n", divisible_by=4, upper=64)


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from([I_, J, N, 0, 1, 3, 4, 8, -2]))
    a = draw(expressions(depth - 1))
    b = draw(expressions(depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "//", "%"]))
    if op in ("//", "%"):
        b = draw(st.sampled_from([2, 3, 4, 8, 16, N]))
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return a // b if op == "//" else a % b


def _emitting_function():
    func = func_of(
        """func.func @k(%i: index, %j: index, %n: index, %out: !tile.ptr<i64, gmem, 8>) {
          return
        }"""
    )
    args = func.regions[0].blocks[0].args
    import layoutc.passes.analysis.symbolic as S

    for sym, arg in zip((I_, J, N), args):
        S._BINDINGS[sym] = arg
    return func, args


@examples(200)
@given(expressions(), st.integers(0, 1000), st.integers(-50, 50), st.integers(1, 16))
def test_emitted_arith_computes_the_expression(x, i, j, n4):
    from layoutc.ir.dialects import arith
    from layoutc.ir.dialects import tile as TD

    func, args = _emitting_function()
    ret = func.regions[0].blocks[0].last_op
    b = Builder(InsertionPoint.before_op(ret))
    v = E.emit(x, b)
    cast = b.create(arith.IndexCastOp, v, args[3].type.element)
    b.create(TD.StoreOp, cast.results[0], args[3], 0)
    import numpy as np
    from layout_interp import Ptr

    out = np.zeros(1, np.int64)
    Interpreter(func).run([i, j, 4 * n4, Ptr(out, 0)])
    env = {I_: i, J: j, N: 4 * n4}
    expected = x if type(x) is int else x.evaluate(env)
    assert int(out[0]) == expected


def test_emit_shares_subexpressions_and_reduces_strength():
    func, _ = _emitting_function()
    ret = func.regions[0].blocks[0].last_op
    b = Builder(InsertionPoint.before_op(ret))
    e = E.IndexEmitter(b)
    first = e.emit(8 * I_ + I_ % 16 + I_ // 4)
    second = e.emit(8 * I_ + I_ % 16)
    text = str(func)
    assert "arith.muli" not in text and "arith.remui" not in text and "arith.divui" not in text
    assert "arith.shli" in text and "arith.andi" in text and "arith.shrui" in text
    assert text.count("arith.shli") == 1 and text.count("arith.andi") == 1
    assert first is not second
    assert e.emit(8 * I_ + I_ % 16) is second  # memoised


def test_emit_hoists_loop_invariant_parts():
    func = func_of(
        """func.func @k(%n: index) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c9 = arith.constant 9 : index
          scf.for %i = %c0 to %c9 step %c1 {
          }
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    loop = next(op for op in func.walk_ops() if op.name == "scf.for")
    n = a.sym_of(func.regions[0].blocks[0].args[0])
    i = a.sym_of(loop.induction_var)
    b = Builder(InsertionPoint.before_op(loop.body_block.last_op))
    E.emit(n * 12 + i, b)
    body = [op.name for op in loop.body_block.ops]
    assert body == ["arith.addi", "scf.yield"]


def test_emit_hoists_what_predicated_accesses_share_out_of_their_guards():
    """Inside an ``scf.if`` with no control flow of its own (a predicated access) the index is
    built before the guard, so sibling guards share it (a tile's coordinates, divisions and
    all, were rebuilt at every predicated load of a residue tile); an ``if`` around a loop
    (a warp role) keeps its code inside, and a division by a value that may be 0 stays under
    its guard."""
    func = func_of(
        """func.func @k(%n: index, %d: index, %p: i1) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          scf.if %p {
          }
          scf.if %p {
          }
          scf.if %p {
            scf.for %i = %c0 to %n step %c1 {
            }
          }
          return
        }"""
    )
    a = SymbolicAnalysis(func)
    args = func.regions[0].blocks[0].args
    n, d = a.sym_of(args[0]), a.sym_of(args[1])
    first, second, role = (op for op in func.walk_ops() if op.name == "scf.if")
    e = E.IndexEmitter(Builder())
    for guard in (first, second):
        e.builder.insertion_point = InsertionPoint.before_op(guard.regions[0].blocks[0].last_op)
        e.emit(n // 7 * 3 + 5)
    assert [op.name for op in first.regions[0].blocks[0].ops] == ["scf.yield"]
    assert [op.name for op in second.regions[0].blocks[0].ops] == ["scf.yield"]
    assert sum("div" in op.name for op in func.walk_ops()) == 1  # shared
    e.builder.insertion_point = InsertionPoint.before_op(first.regions[0].blocks[0].last_op)
    e.emit(n // d)  # d may be 0: the division only where the guard holds
    assert any("div" in op.name for op in first.regions[0].blocks[0].ops)
    inner = role.regions[0].blocks[0]
    e.builder.insertion_point = InsertionPoint.before_op(inner.first_op)
    e.emit(n * 12 + 1)
    assert [op.name for op in inner.ops if op.name != "arith.constant"] == [
        "arith.muli",
        "arith.addi",
        "scf.for",
        "scf.yield",
    ]


def test_emit_refuses_symbols_without_values():
    func, _ = _emitting_function()
    b = Builder(InsertionPoint.before_op(func.regions[0].blocks[0].last_op))
    with pytest.raises(E.EmitError, match="stands for no value"):
        E.emit(Symbol.fresh("lost") + 1, b)


# -- views memoised up to the symbols' identities (renaming.py) ----------------------------------


@st.composite
def thread_slices(draw):
    """A (swizzled) static tile of a thread mode and a value mode: the partitions every pass
    reads (a thread's slice, then a loop's), with fresh symbols of the same facts each time."""
    from layoutc.ir.algebra import Swizzle
    from layoutc.ir.algebra.composed import ComposedLayout

    threads = draw(st.sampled_from([(4, 8), (8, 16), (16, 2, 2, 2), (4, 8, 2, 2)]))
    values = draw(st.sampled_from([(4, 4), (2, (2, 2)), (8, 4)]))
    strides, s = [], 1
    for t in threads:
        strides.append(s * draw(st.sampled_from([1, 2, 4])))
        s = strides[-1] * t
    d0, d1 = (draw(st.sampled_from([1, 1024, 4096, 32])) for _ in range(2))
    vstrides = (d0, (d1, 2 * d1) if isinstance(values[1], tuple) else d1)
    inner = Layout((threads, values), (tuple(strides), vstrides))
    if draw(st.booleans()):
        inner = ComposedLayout(Swizzle(3, 2, draw(st.sampled_from([3, 5]))), 0, inner)
    size = 1
    for t in threads:
        size *= t
    return inner, size


def _slices(layout, threads):
    from layoutc.ir.algebra.inttuple import _
    from layoutc.ir.algebra.layout import slice_and_offset

    t = Symbol.fresh("tid_x", positive=False, lower=0, upper=threads - 1)
    e = Symbol.fresh("e", positive=False, lower=0, upper=3)
    sliced, off = slice_and_offset((t, _), layout)
    again, off2 = slice_and_offset(((_, e),), sliced)
    return t, e, (sliced, off, again, off2)


@examples(60)
@given(thread_slices())
def test_slices_by_new_symbols_are_the_slices_by_old_ones_renamed(case):
    """What the symbol-generic memo rests on: the algebra on symbols with the same names and
    facts gives the same canonical results, renamed (term order included)."""
    from layoutc.passes.analysis.renaming import generic_key, rename

    layout, threads = case
    t1, e1, first = _slices(layout, threads)
    t2, e2, second = _slices(layout, threads)
    assert t1 is not t2
    assert rename(first, {t1: t2, e1: e2}) == second
    named1, _, _ = generic_key(first)
    named2, _, back2 = generic_key(second)
    assert named1 == named2  # one placeholder form
    assert rename(named2, back2) == second


def test_a_new_analysis_takes_the_view_from_the_memo_renamed(monkeypatch):
    """A second analysis of the same function (new symbols for %n and the block index) does
    not compute the view again: it renames the stored one, which equals the view computed
    with its own symbols."""
    from layoutc.ir.dialects import tile as TD
    from layoutc.passes.analysis import symbolic as S

    func = func_of(VIEW_KERNEL)
    v = values(func)
    first = SymbolicAnalysis(func).tensor_of(v["tile"])
    second_analysis = SymbolicAnalysis(func)

    def no_compute(*args, **kwargs):
        raise AssertionError("computed again")

    with monkeypatch.context() as m:
        m.setattr(TD.LocalTileOp, "compute", staticmethod(no_compute))
        second = second_analysis.tensor_of(v["tile"])
    n, b = second.layout.stride[0], second_analysis.sym_of(v["b"])
    assert b is not first.offset.free_symbols[0]
    assert second.layout == Layout((2, 4), (n, 1)) and second.offset == 2 * n * b
    S._GENERIC_VIEWS.clear()
    second_analysis._tensors.clear()  # (its symbols stay)
    second_analysis._views.clear()
    again = second_analysis.tensor_of(v["tile"])  # computed with these symbols
    assert again.layout == second.layout and again.offset is second.offset
