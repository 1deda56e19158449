"""Declarative assembly formats: concise custom forms, MLIR spacing, checked at class creation."""

from __future__ import annotations

import pytest
from ir_helpers import ctx
from layoutc.ir.core import (
    Block,
    Context,
    Operation,
    StringAttr,
    SymbolRefAttr,
    i1,
    i32,
    index,
    operand,
    opt_prop,
    parse,
    prop,
    region,
    result,
    successor,
    var_operand,
    var_result,
)
from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.constraints import integer_attr
from layoutc.ir.core.context import Dialect
from layoutc.ir.core.traits import Pure, SameOperandsAndResultType, Terminator
from layoutc.ir.dialects.arith.attributes import OVERFLOW_NONE, IntegerOverflowFlagsAttr


class AddOp(Operation):
    name = "fmt.add"
    traits = (Pure, SameOperandsAndResultType)
    lhs = operand()
    rhs = operand()
    res = result()
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($res)"


class CallOp(Operation):
    name = "fmt.call"
    callee = prop(SymbolRefAttr)
    args = var_operand()
    res = var_result()
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"


class CondOp(Operation):
    name = "fmt.cond"
    traits = (Terminator,)
    cond = operand(i1)
    args = var_operand()
    assembly_format = "`(` $cond `)` attr-dict ($args^ `:` type($args))?"


class CastOp(Operation):
    name = "fmt.cast"
    input = operand()
    out = result()
    mode = opt_prop(StringAttr)
    assembly_format = "$input (`mode` $mode^)? attr-dict `:` type($input) `to` type($out)"


class WrapOp(Operation):
    name = "fmt.wrap"
    body = region()
    res = var_result()
    assembly_format = "attr-dict-with-keyword (`->` type($res)^)? $body"


class BrOp(Operation):
    name = "fmt.br"
    traits = (Terminator,)
    operands_ = var_operand()
    dest = successor()
    assembly_format = "$dest (`(` $operands_^ `:` type($operands_) `)`)? attr-dict"


class CountOp(Operation):
    name = "fmt.count"
    values = var_operand(index)
    n = result()
    tag = prop(StringAttr, default=StringAttr("none"))

    @staticmethod
    def infer_result_types(operand_types, properties):
        return [i32]

    assembly_format = "`[` $values `]` attr-dict"


class _FlagsOp(Operation):
    """A property at its default is absent in an optional group; properties whose declaration
    fixes their storage print short (``<nsw>``, ``4``); subclasses inherit the format."""

    traits = (SameOperandsAndResultType,)
    input = operand()
    res = result()
    flags = prop(IntegerOverflowFlagsAttr, default=OVERFLOW_NONE)
    step = prop(integer_attr(i32, "32-bit integer"), default=IntegerAttr(1, i32))
    assembly_format = "$input (`overflow` `` $flags^)? (`step` $step^)? attr-dict `:` type($res)"


class FlagsOp(_FlagsOp):
    name = "fmt.flags"


class OtherFlagsOp(_FlagsOp):
    name = "fmt.other_flags"


FMT = Dialect(
    "fmt",
    ops=[AddOp, CallOp, CondOp, CastOp, WrapOp, BrOp, CountOp, FlagsOp, OtherFlagsOp],
)


def _ctx() -> Context:
    c = ctx()
    c.register("fmt", lambda: FMT)
    return c


SRC = """\
module {
  %0 = "test.a"() : () -> i32
  %i = "test.i"() : () -> index
  %1 = fmt.add %0, %0 : i32
  %2 = fmt.add %1, %0 {k = 1 : i64} : i32
  %3:2 = fmt.call @f(%1, %2) : (i32, i32) -> (i32, f32)
  fmt.call @g() : () -> ()
  %4 = fmt.cast %3#0 mode "x" : i32 to f32
  %5 = fmt.cast %3#0 : i32 to i64
  %6 = fmt.wrap attributes {a} -> i32 {
    "test.r"() : () -> ()
  }
  fmt.wrap {
  }
  %7 = fmt.count[%i, %i]
  %8 = fmt.count[] {tag = "t"}
  %t = "test.b"() : () -> i1
  "test.r"() ({
    fmt.cond(%t) %0, %1 : i32, i32
  }) : () -> ()
  "test.r"() ({
    fmt.cond(%t)
  }) : () -> ()
  "test.cfg"() ({
    fmt.br ^bb1(%0, %1 : i32, i32)
  ^bb1(%9: i32, %10: i32):
    fmt.br ^bb2
  ^bb2:
    "test.end"() : () -> ()
  }) : () -> ()
}"""


def test_formats_round_trip_in_both_forms() -> None:
    c = _ctx()
    module = parse(SRC, c)
    module.verify()
    assert str(module) == SRC
    generic = module.to_text(generic=True)
    assert '"fmt.call"(%1, %2) <{callee = @f}> : (i32, i32) -> (i32, f32)' in generic
    assert '"fmt.count"(%i, %i) <{tag = "none"}> : (index, index) -> i32' in generic
    assert str(parse(generic, c)) == SRC


FLAGS_SRC = """\
module {
  %0 = "test.a"() : () -> i32
  %1 = fmt.flags %0 : i32
  %2 = fmt.flags %1 overflow<nsw, nuw> step 4 : i32
  %3 = fmt.other_flags %2 step -2 {k} : i32
}"""


def test_defaults_are_absent_and_stored_attributes_print_short() -> None:
    c = _ctx()
    module = parse(FLAGS_SRC, c)
    module.verify()
    assert str(module) == FLAGS_SRC
    ops = [op for op in module.walk_ops() if isinstance(op, _FlagsOp)]
    assert [type(op) for op in ops] == [FlagsOp, FlagsOp, OtherFlagsOp]
    assert ops[0].flags is OVERFLOW_NONE and ops[0].step is IntegerAttr(1, i32)
    assert ops[1].flags is IntegerOverflowFlagsAttr(("nsw", "nuw"))
    assert ops[2].step is IntegerAttr(-2, i32)
    generic = module.to_text(generic=True)
    assert (
        '"fmt.flags"(%1) <{flags = #arith.overflow<nsw, nuw>, step = 4 : i32}> : (i32) -> i32'
        in generic
    )
    assert str(parse(generic, c)) == FLAGS_SRC


def test_formats_report_parse_errors_at_tokens() -> None:
    from ir_helpers import messages

    c = _ctx()
    with c.diagnostics.collect() as found:
        from layoutc.ir.core import parse_source

        parse_source(
            '%0 = "test.a"() : () -> i32\n%1 = fmt.add %0 %0 : i32', c, buffer_name="f.mlir"
        )
    assert messages(found) == ["2:17: error: expected ',', found '%0'"]


@pytest.mark.parametrize(
    ("fields", "fmt", "message"),
    [
        ({"x": operand()}, "attr-dict", "operand '$x' does not appear in the format"),
        ({"x": operand(), "r": result()}, "$x attr-dict", "cannot be inferred"),
        ({"x": operand()}, "$x", "must contain attr-dict"),
        ({"x": operand()}, "$y attr-dict", "'$y' is not an operand"),
        ({"x": var_operand()}, "($x `,`)? attr-dict : type($x)", "exactly one anchor"),
        ({"x": operand()}, "$x attr-dict `:` type($x) )", "groups must be written"),
    ],
)
def test_bad_formats_are_rejected_when_the_class_is_created(fields, fmt: str, message: str) -> None:
    namespace = {"name": "bad.op", "assembly_format": fmt, **fields}
    with pytest.raises(TypeError, match=message.replace("$", r"\$").replace("(", r"\(")):
        type("BadOp", (Operation,), namespace)


def test_builder_and_format_agree() -> None:
    block = Block([i32])
    op = AddOp.create([block.args[0], block.args[0]], [i32])
    block.append(op)
    assert op.to_text() == "%0 = fmt.add %arg0, %arg0 : i32"
