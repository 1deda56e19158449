"""Round-trips: custom and generic forms re-print exactly; generic and custom agree."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ir_corpus import ALL, MLIR_ONLY
from ir_gen import random_module
from ir_helpers import ctx, examples
from layoutc.ir.core import parse

CORPUS = {**ALL, "mlir_only": MLIR_ONLY}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_custom_form_prints_exactly_as_written(name: str) -> None:
    src = CORPUS[name]
    module = parse(src, ctx())
    module.verify()
    assert str(module) == src


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_generic_form_round_trips(name: str) -> None:
    c = ctx()
    generic = parse(CORPUS[name], c).to_text(generic=True)
    again = parse(generic, c)
    again.verify()
    assert again.to_text(generic=True) == generic
    # The generic form carries everything: printing it in custom form gives the source back.
    assert str(again) == CORPUS[name]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_debug_locations_round_trip(name: str) -> None:
    c = ctx()
    first = parse(CORPUS[name], c, buffer_name="in.mlir").to_text(debug_info=True)
    assert 'loc("in.mlir":' in first
    second = parse(first, c, buffer_name="other.mlir").to_text(debug_info=True)
    assert second == first
    generic = parse(first, c).to_text(generic=True, debug_info=True)
    assert parse(generic, c).to_text(generic=True, debug_info=True) == generic


def _argument_locations(module) -> list[str]:
    return [
        arg.loc.text
        for op in module.walk_ops()
        for region in op.regions
        for block in region.blocks
        for arg in block.args
    ]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_arguments_without_locations_round_trip_with_debug_info(name: str) -> None:
    # Builders may leave an argument without a location of its own (it then has its op's, as
    # MLIR's builders give it); printing, parsing and printing again must not change anything,
    # in either form, and must not invent positions in the printed text ("<string>":l:c).
    c = ctx()
    module = parse(CORPUS[name], c, buffer_name="in.mlir")
    for op in module.walk_ops():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.loc = None
                    assert arg.loc is op.location
    want = _argument_locations(module)
    everything = module.to_text(generic=True, debug_info=True)
    for generic in (False, True):
        first = module.to_text(generic=generic, debug_info=True)
        again = parse(first, c)
        assert again.to_text(generic=generic, debug_info=True) == first
        assert _argument_locations(again) == want
        # What the custom form leaves unwritten (scf.for's induction variable, an omitted
        # scf.yield) comes back with the location it was built with, not a position in `first`.
        assert again.to_text(generic=True, debug_info=True) == everything


def test_argument_locations_follow_the_mlir_rules() -> None:
    src = """\
"test.r"() ({
^bb0(%a: i32, %b: i32 loc("b.py":2:2)):
  "test.r"() ({
  ^bb0(%c: i32):
    "test.t"() : () -> ()
  }) : () -> () loc(#inner)
}) : () -> () loc("op.py":1:1)
"test.r"() ({
^bb0(%d: i32):
  "test.t"() : () -> ()
}) : () -> ()
#inner = loc("inner.py":3:3)
"""
    module = parse(src, ctx(), buffer_name="t.mlir")
    outer, plain = list(module.body.block.ops)
    a, b = outer.regions[0].blocks[0].args
    (c,) = outer.regions[0].blocks[0].first_op.regions[0].blocks[0].args
    (d,) = plain.regions[0].blocks[0].args
    assert a.loc.text == 'loc("op.py":1:1)'  # no loc(...): the op's written location
    assert b.loc.text == 'loc("b.py":2:2)'  # its own
    assert c.loc.text == 'loc("inner.py":3:3)'  # the op's location alias, defined later
    assert d.loc.text == 'loc("t.mlir":9:6)'  # nothing written: its place in the text (MLIR)


def test_implicit_module_wraps_top_level_ops() -> None:
    module = parse('"test.a"() : () -> ()\n"test.b"() : () -> ()', ctx())
    assert module.name == "builtin.module"
    assert [op.name for op in module.body.block.ops] == ["test.a", "test.b"]
    assert str(module) == 'module {\n  "test.a"() : () -> ()\n  "test.b"() : () -> ()\n}'


def test_name_hints_deduplicate_like_mlir() -> None:
    src = """\
"test.r"() ({
  %x = "test.a"() : () -> i32
  "test.r"() ({
    %x_0 = "test.a"() : () -> i32
  }) : () -> ()
  "test.r"() ({
    %y = "test.a"() : () -> i32
  }) : () -> ()
}) : () -> ()"""
    module = parse(src, ctx())
    ops = list(module.walk_ops())
    inner = [op for op in ops if op.name == "test.a"]
    inner[1].results[0].name_hint = "x"
    inner[2].results[0].name_hint = "x"
    text = str(module)
    # Nested %x clash with the enclosing one; sibling regions restart the conflict counter.
    assert text.count("%x = ") == 1 and text.count("%x_0 = ") == 2
    assert str(parse(text, ctx())) == text


def test_unnamed_values_are_numbered_per_region() -> None:
    src = """\
module {
  func.func @f(%arg0: index) {
    %0 = "test.a"() : () -> i32
    scf.for %arg1 = %arg0 to %arg0 step %arg0 {
      %2 = "test.b"() : () -> i32
    }
    scf.for %arg1 = %arg0 to %arg0 step %arg0 {
      %2 = "test.b"() : () -> i32
    }
    %1 = "test.c"() : () -> i32
    return
  }
}"""
    assert str(parse(src, ctx())) == src


def test_result_groups_and_individual_names() -> None:
    src = """\
module {
  %0:2 = "test.pair"() : () -> (i32, i32)
  %a, %b = "test.pair"() : () -> (i32, i32)
  "test.use"(%0#1, %a, %b, %0#0) : (i32, i32, i32, i32) -> ()
}"""
    assert str(parse(src, ctx())) == src


def test_forward_references_across_blocks_print_and_reparse() -> None:
    src = """\
module {
  func.func @f(%c: i1) -> i32 {
    cf.br ^bb2
  ^bb1:
    return %0 : i32
  ^bb2:
    %0 = "test.v"() : () -> i32
    cf.br ^bb1
  }
}"""
    module = parse(src, ctx())
    assert str(module) == src


def test_graph_region_allows_use_before_def() -> None:
    src = """\
module {
  "test.use"(%0) : (i32) -> ()
  %0 = "test.def"() : () -> i32
}"""
    module = parse(src, ctx())
    module.verify()
    assert str(module) == src


def test_location_aliases_at_end_of_file() -> None:
    src = """\
#early = loc("src.py":10:20)
"test.op"() : () -> () loc(#loc1)
"test.op"(%a) : (i32) -> () loc(#loc)
%a = "test.def"() : () -> i32 loc(fused<"meta">[#early, "name"("f.py":3:4), callsite("x" at "y":1:2), unknown])
#loc = loc("src.py":10:20)
#loc1 = loc("src.py":11:1)
"""
    module = parse(src, ctx())
    ops = list(module.body.block.ops)
    assert ops[0].location.file_line_col() == ("src.py", 11, 1)
    assert ops[1].location.file_line_col() == ("src.py", 10, 20)
    text = module.to_text(debug_info=True)
    assert (
        'loc(fused<"meta">["src.py":10:20, "name"("f.py":3:4), callsite("x" at "y":1:2), unknown])'
        in text
    )
    assert parse(text, ctx()).to_text(debug_info=True) == text


def test_aliases_for_types_and_attributes() -> None:
    src = """\
!ptr = !llvm.ptr<1>
#attrs = {k = 3 : i8}
"test.op"() {a = #attrs, t = !ptr} : () -> !ptr
"""
    text = str(parse(src, ctx()))
    assert '"test.op"() {a = {k = 3 : i8}, t = !llvm.ptr<1>} : () -> !llvm.ptr<1>' in text


def test_split_buffer_line_offsets() -> None:
    from layoutc.ir.core import parse_source

    c = ctx()
    module = parse_source('"test.op"() : () -> ()', c, buffer_name="split.mlir", line_offset=40)
    assert module is not None
    op = next(iter(module.body.block.ops))
    assert op.location.file_line_col() == ("split.mlir", 41, 1)


@examples(40)
@given(seed=st.integers(0, 2**32))
def test_random_programs_round_trip_in_both_forms(seed: int) -> None:
    module = random_module(seed)
    module.verify()
    c = ctx(allow_unregistered=False)
    custom = str(module)
    assert str(parse(custom, c)) == custom
    generic = module.to_text(generic=True)
    reparsed = parse(generic, c)
    assert reparsed.to_text(generic=True) == generic
    assert str(reparsed) == custom


def test_comments_are_ignored_everywhere() -> None:
    src = """\
// leading comment
func.func @f(%a: i32) -> i32 { // after a brace
  // a whole line
  %0 = arith.addi %a, %a : i32 // trailing
  return %0 : i32
}
// CHECK: (f32) -> f32"""
    module = parse(src, ctx())
    module.verify()
    assert "//" not in str(module) and "arith.addi %a, %a : i32" in str(module)
