"""Random (mostly invalid) tile and gpu ops in generic form: every one parses and verifies, or
gets diagnostics, never an internal error; the valid ones round-trip."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from layoutc.ir.core import Context, parse, parse_source, print_op, verify_op
from layoutc.ir.dialects.gpu import ALL_OPS as GPU_OPS
from layoutc.ir.dialects.tile import ALL_OPS
from tile_helpers import examples

TYPES = [
    '!tile.tensor<f32, gmem, "(4,8):(1,4)", 16>',
    '!tile.tensor<f16, smem, "(32,64):(64,1)", 16>',
    '!tile.tensor<coord, "(4,8):(1@0,1@1)">',
    '!tile.tensor<i1, rmem, "(4,8):(1,4)", 1>',
    '!tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>',
    '!tile.tensor<f32, gmem, "(?,64):(64,1)", 16>',
    '!tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>',
    "!tile.ptr<f32, gmem, 16>",
    "!tile.ptr<f16, smem, 2>",
    "index",
    "f32",
    "f16",
    "i32",
    "i1",
    "vector<4xf32>",
    '!layout.layout<"(4,?):(1,?)">',
    '!layout.int_tuple<"(4,8)">',
    '!layout.tile<"<2:1,4:1>">',
]
PROPS = [
    'coord = "(?,_)"',
    'coord = "(_,1)"',
    'coord = "?"',
    'coord = "((?,?),_)"',
    'coord = "(1,2)"',
    'coord = "(1,"',
    "coord = 3",
    'atom = #tile.copy_atom<"ldmatrix.x4", 128>',
    'atom = #tile.copy_atom<"universal", 32>',
    'atom = #tile.mma_atom<"FMA">',
    'atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">',
    'tiler = #layout.int_tuple<"(2,4)">',
    'tiler = #layout.layout<"4:1">',
    "proj = array<i1: true, false>",
    'thr_layout = #layout.layout<"(2,2):(2,1)">',
    'tv_layout = #layout.layout<"(4,2):(2,1)">',
    "begin = 0 : i64",
    "end = 5 : i64",
    "width = 4 : i64",
    "alignment = 3 : i64",
    "bytes = 16 : i64",
    'src_coord = "?"',
    'dst_coord = "(?,?)"',
    'cache = "xx"',
    "pending = 2 : i64",
    "vector_bits = 64 : i64",
    'layout = #layout.layout<"(4,4):(1,4)">',
    "elem = f32",
    "align = 16 : i64",
    "divisible_by = 0 : i64",
    'profile = #layout.int_tuple<"(1,1)">',
    "dimension = #gpu<dim x>",
    "mode = #gpu<shuffle_mode xor>",
    "operandSegmentSizes = array<i32: 1, 1, 1>",
]
OPS = sorted(c.name for c in (*ALL_OPS, *GPU_OPS))


@examples(150)
@given(
    name=st.sampled_from(OPS),
    operands=st.lists(st.sampled_from(TYPES), max_size=5),
    results=st.lists(st.sampled_from(TYPES), max_size=2),
    props=st.lists(st.sampled_from(PROPS), max_size=4, unique=True),
)
def test_random_ops_get_diagnostics_not_internal_errors(name, operands, results, props) -> None:
    args = ", ".join(f"%a{i}" for i in range(len(operands)))
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operands))
    prop_text = (" <{" + ", ".join(props) + "}>") if props else ""
    defs = (", ".join(f"%r{i}" for i in range(len(results))) + " = ") if results else ""
    sig = f"({', '.join(operands)}) -> ({', '.join(results)})"
    text = f'func.func @f({params}) {{\n  {defs}"{name}"({args}){prop_text} : {sig}\n  return\n}}'
    ctx = Context()
    with ctx.diagnostics.collect() as found:
        module = parse_source(text, ctx)
    diags = list(found)
    if module is not None:
        diags += verify_op(module)
        if not diags:
            printed = print_op(module)
            assert print_op(parse(printed, Context())) == printed
    assert not [d for d in diags if "internal error" in d.message], [d.message for d in diags]
