"""The algorithms' verifiers accept dynamic sizes only when the IR proves them equal: the
operands' layouts are evaluated through their producers with one symbol per SSA value
(``value_layouts``), so sizes built from the same values agree and sizes built from different
values are an error. Hypothesis checks the evaluation against the types: every evaluated layout
is an instance of its type's layout."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.algebra import size
from layoutc.ir.core import parse
from layoutc.ir.dialects.layout.text import is_instance
from layoutc.ir.dialects.tile.layouts import text_of_layout
from layoutc.ir.dialects.tile.value_layouts import ValueSymbols
from tile_helpers import ctx, examples, messages

PTR = "!tile.ptr<f32, gmem, 16>"


def kernel(body: str, args: str = "") -> str:
    params = f"%p: {PTR}, %q: {PTR}, %n: index {{layoutc.lower = 1 : i64}}, %m: index"
    return f"func.func @k({params}{args}) {{\n{body}\n  return\n}}"


def tensor(name: str, ptr: str, entry: str) -> str:
    t = '!tile.tensor<f32, gmem, "(?):(1)", 16>'
    return (
        f'  %s{name} = layout.make_shape {entry} : !layout.int_tuple<"(?)">\n'
        f'  %d{name} = layout.constant #layout.int_tuple<"(1)">\n'
        f'  %l{name} = layout.make_layout %s{name}, %d{name} : !layout.layout<"(?):(1)">\n'
        f'  %{name} = tile.make_tensor {ptr}, %l{name} : ({PTR}, !layout.layout<"(?):(1)">) '
        f"-> {t}\n"
    )


COPY = '  tile.copy %a, %b : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(1)", 16>'


def test_sizes_from_one_value_agree():
    assert messages(kernel(tensor("a", "%p", "%n") + tensor("b", "%q", "%n") + COPY)) == []


def test_sizes_from_different_values_do_not():
    found = messages(kernel(tensor("a", "%p", "%n") + tensor("b", "%q", "%m") + COPY))
    assert found == [
        "'tile.copy' op cannot prove that the source size n equals the destination size m "
        "(sizes that differ at run time would access memory out of bounds)"
    ]


def test_casts_assumptions_and_arithmetic_keep_the_value():
    body = (
        "  %c2 = arith.constant 2 : index\n"
        "  %i = arith.index_cast %n : index to i32\n"
        "  %j = arith.index_cast %i : i32 to index\n"
        "  %a4 = tile.assume %n {divisible_by = 4 : i64} : index\n"
        "  %x = arith.muli %j, %c2 : index\n"
        "  %y = arith.muli %a4, %c2 : index\n"
        + tensor("a", "%p", "%x")
        + tensor("b", "%q", "%y")
        + COPY
    )
    assert messages(kernel(body)) == []


def test_tensor_arguments_are_unrelated():
    t = '!tile.tensor<f32, gmem, "(?):(1)", 16>'
    text = f"func.func @k(%a: {t}, %b: {t}) {{\n  tile.copy %a, %b : {t}, {t}\n  return\n}}"
    (found,) = messages(text)
    assert found.startswith("'tile.copy' op cannot prove that the source size")
    same = f"func.func @k(%a: {t}) {{\n  tile.copy %a, %a : {t}, {t}\n  return\n}}"
    assert messages(same) == []


MATRIX = '!tile.tensor<f32, gmem, "(?,?):(?,1)", 16>'
ROW = '!tile.tensor<f32, gmem, "(?):(1)", 4>'


def matrix(name: str, ptr: str, rows: str, cols: str) -> str:
    return (
        f'  %s{name} = layout.make_shape {rows}, {cols} : !layout.int_tuple<"(?,?)">\n'
        f'  %d{name} = layout.make_stride {cols} : !layout.int_tuple<"(?,1)">\n'
        f'  %l{name} = layout.make_layout %s{name}, %d{name} : !layout.layout<"(?,?):(?,1)">\n'
        f'  %{name} = tile.make_tensor {ptr}, %l{name} : ({PTR}, !layout.layout<"(?,?):(?,1)">)'
        f" -> {MATRIX}\n"
        f"  %r{name} = tile.slice %{name}[(%i, _)] : {MATRIX} -> {ROW}\n"
    )


def test_views_follow_their_sources():
    """Rows of an (n,m) and an (m2,m) matrix: both rows have m elements."""
    args = ", %m2: index, %i: index"
    body = matrix("a", "%p", "%n", "%m") + matrix("b", "%q", "%m2", "%m")
    ok = body + f"  tile.copy %ra, %rb : {ROW}, {ROW}"
    assert messages(kernel(ok, args)) == []
    other = matrix("a", "%p", "%n", "%m") + matrix("b", "%q", "%m", "%n")
    (found,) = messages(kernel(other + f"  tile.copy %ra, %rb : {ROW}, {ROW}", args))
    assert "cannot prove that the source size m equals the destination size n" in found


def test_gemm_extents():
    a = '!tile.tensor<f32, gmem, "(4,?):(1,4)", 16>'
    c = '!tile.tensor<f32, rmem, "(4,4):(1,4)", 4>'

    def operand(name: str, ptr: str, k: str) -> str:
        return (
            f'  %s{name} = layout.make_shape {k} : !layout.int_tuple<"(4,?)">\n'
            f'  %d{name} = layout.constant #layout.int_tuple<"(1,4)">\n'
            f'  %l{name} = layout.make_layout %s{name}, %d{name} : !layout.layout<"(4,?):(1,4)">\n'
            f'  %{name} = tile.make_tensor {ptr}, %l{name} : ({PTR}, !layout.layout<"(4,?):(1,4)">)'
            f" -> {a}\n"
        )

    gemm = f"  %c = tile.alloc_fragment : {c}\n  tile.gemm %a, %b, %c : {a}, {a}, {c}"
    assert messages(kernel(operand("a", "%p", "%n") + operand("b", "%q", "%n") + gemm)) == []
    (found,) = messages(kernel(operand("a", "%p", "%n") + operand("b", "%q", "%m") + gemm))
    assert found.startswith(
        "'tile.gemm' op cannot prove that the K extents agree: A mode 1 has n but B mode 1 has m"
    )


@examples(60)
@given(
    rows=st.sampled_from(["%n", "%m", "%c4"]),
    cols_a=st.sampled_from(["%n", "%m", "%c4", "%c8"]),
    cols_b=st.sampled_from(["%n", "%m", "%c4", "%c8"]),
)
def test_rows_agree_exactly_when_built_from_one_column_count(rows, cols_a, cols_b):
    consts = "  %c4 = arith.constant 4 : index\n  %c8 = arith.constant 8 : index\n"
    body = consts + matrix("a", "%p", rows, cols_a) + matrix("b", "%q", rows, cols_b)
    text = kernel(body + f"  tile.copy %ra, %rb : {ROW}, {ROW}", ", %i: index")
    assert (messages(text) == []) == (cols_a == cols_b)
    # the evaluated layouts are instances of the types, with the values' symbols in them
    module = parse(kernel(body, ", %i: index"), ctx())
    vs = ValueSymbols()
    ops = []
    module.walk(ops.append)
    for op in ops:
        for r in op.results:
            if "tile.tensor" in r.type.text:
                assert is_instance(text_of_layout(vs.tensor(r))[0], r.type.layout_text)
            if r.name_hint in ("ra", "rb"):
                cols = cols_a if r.name_hint == "ra" else cols_b
                expected = {"%c4": 4, "%c8": 8}.get(cols)
                got = size(vs.tensor(r))
                assert got == expected if expected is not None else str(got) == cols[1:]
