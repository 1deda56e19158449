"""Building and mutating IR through the Python API: builder, use lists, erase, move, clone,
walk, rewriter notifications, symbol tables."""

from __future__ import annotations

import pytest
from ir_helpers import ctx
from layoutc.ir.core import (
    Block,
    Builder,
    FileLineColLoc,
    FunctionType,
    InsertionPoint,
    IRError,
    IRMapping,
    PatternRewriter,
    Region,
    RewritePattern,
    RewriterListener,
    UnregisteredOp,
    WalkResult,
    f32,
    i1,
    i32,
    index,
    parse,
    rewrite_pattern,
)
from layoutc.ir.core.symbols import lookup_nearest_symbol_from, lookup_symbol_in, unique_symbol_name
from layoutc.ir.dialects import arith, scf
from layoutc.ir.dialects.builtin import ModuleOp
from layoutc.ir.dialects.func import CallOp, FuncOp, ReturnOp


def _func(name: str = "f", inputs=(i32, i32), results=(i32,)) -> tuple[FuncOp, Builder]:
    fn = FuncOp(name, FunctionType(list(inputs), list(results)))
    return fn, Builder(InsertionPoint.at_end(fn.entry_block))


def test_builder_creates_ops_in_order_with_locations() -> None:
    fn, b = _func()
    b.loc = FileLineColLoc("user.py", 3, 7)
    x, y = fn.args
    s = b.create(arith.AddIOp, x, y)
    c = b.create(arith.ConstantOp.from_int, 2, i32)
    m = b.create(arith.MulIOp, s.results[0], c.results[0])
    b.create(ReturnOp, m.results[0])
    module = ModuleOp([fn])
    module.verify()
    assert [op.name for op in fn.entry_block.ops] == [
        "arith.addi",
        "arith.constant",
        "arith.muli",
        "func.return",
    ]
    assert s.location == FileLineColLoc("user.py", 3, 7)
    assert (
        str(module)
        == """\
module {
  func.func @f(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.addi %arg0, %arg1 : i32
    %c2_i32 = arith.constant 2 : i32
    %1 = arith.muli %0, %c2_i32 : i32
    return %1 : i32
  }
}"""
    )


def test_insertion_points_before_after_start() -> None:
    fn, b = _func()
    ret = b.create(ReturnOp, fn.args[0])
    with b.at(InsertionPoint.before_op(ret)):
        first = b.create(arith.ConstantOp.from_int, 1, i32)
    with b.at(InsertionPoint.at_start(fn.entry_block)):
        zero = b.create(arith.ConstantOp.from_int, 0, i32)
    with b.at(InsertionPoint.after_op(first)):
        last = b.create(arith.ConstantOp.from_int, 2, i32)
    assert list(fn.entry_block.ops) == [zero, first, last, ret]
    assert zero.is_before_in_block(ret) and not ret.is_before_in_block(first)
    assert b.insertion_point.block is fn.entry_block and b.insertion_point.before is None


def test_use_lists_and_replace_all_uses() -> None:
    fn, b = _func()
    x, y = fn.args
    a = b.create(arith.AddIOp, x, x)
    m = b.create(arith.MulIOp, a.results[0], x)
    assert len(x.uses) == 3 and a.results[0].has_one_use
    assert m.results[0].use_empty
    x.replace_all_uses_with(y)
    assert not x.uses and len(y.uses) == 3
    assert a.operands == (y, y)
    a.results[0].replace_all_uses_except(y, [m])
    assert m.lhs is a.results[0]
    m.set_operand(0, x)
    assert a.results[0].use_empty
    assert [u.owner for u in x.uses] == [m] and x.users() == [m]


def test_erase_requires_unused_results() -> None:
    fn, b = _func()
    a = b.create(arith.AddIOp, *fn.args)
    b.create(ReturnOp, a.results[0])
    with pytest.raises(IRError, match=r"still used by 'func\.return'"):
        a.erase()
    ret = fn.entry_block.last_op
    ret.erase()
    a.erase()
    assert fn.entry_block.is_empty and not fn.args[0].uses


def test_move_and_detach() -> None:
    fn, b = _func()
    c1 = b.create(arith.ConstantOp.from_int, 1, i32)
    c2 = b.create(arith.ConstantOp.from_int, 2, i32)
    c3 = b.create(arith.ConstantOp.from_int, 3, i32)
    c3.move_before(c1)
    c1.move_after(c2)
    assert list(fn.entry_block.ops) == [c3, c2, c1]
    c2.detach()
    assert c2.parent is None and list(fn.entry_block.ops) == [c3, c1]
    with pytest.raises(IRError):
        fn.entry_block.append(c3)


def test_deep_clone_with_value_mapping() -> None:
    module = parse(
        """\
func.func @f(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) {
    %s = arith.addf %a, %x : f32
    scf.yield %s : f32
  }
  return %r : f32
}""",
        ctx(),
    )
    fn = module.body.block.first_op
    loop = next(op for op in fn.walk_ops() if op.name == "scf.for")
    mapping = IRMapping()
    replacement_x = fn.args[0]  # remap %x -> %n (types differ; only structure is checked)
    mapping.map(fn.args[1], replacement_x)
    copy = loop.clone(mapping)
    assert copy is not loop and copy.body_block is not loop.body_block
    inner = next(op for op in copy.walk_ops() if op.name == "arith.addf")
    assert inner.rhs is replacement_x
    assert inner.lhs is copy.region_iter_args[0]
    assert mapping.lookup(loop.results[0]) is copy.results[0]
    fn.entry_block.insert_before(copy, fn.entry_block.last_op)
    assert copy.results[0].name_hint == "r"


def test_walk_orders_early_exit_and_erase() -> None:
    module = parse(
        """\
func.func @f(%c: i1, %x: i32) {
  %0 = arith.addi %x, %x : i32
  scf.if %c {
    %1 = arith.muli %x, %x : i32
  }
  return
}""",
        ctx(),
    )
    post, pre = [], []
    module.walk(lambda op: post.append(op.name))
    module.walk(lambda op: pre.append(op.name), pre_order=True)
    assert pre[:3] == ["builtin.module", "func.func", "arith.addi"]
    assert post[-1] == "builtin.module" and post.index("arith.muli") < post.index("scf.if")
    seen = []

    def stop(op):
        seen.append(op.name)
        return WalkResult.INTERRUPT if op.name == "arith.muli" else None

    assert module.walk(stop) is WalkResult.INTERRUPT and seen[-1] == "arith.muli"

    def erase_arith(op):
        if op.name.startswith("arith."):
            op.erase()

    module.walk(erase_arith)
    assert not [op for op in module.walk_ops() if op.name.startswith("arith.")]
    skipped = []
    module.walk(
        lambda op: skipped.append(op.name) or (WalkResult.SKIP if op.name == "scf.if" else None),
        pre_order=True,
    )
    assert "scf.yield" not in skipped


def test_parent_queries() -> None:
    module = parse(
        "func.func @f(%c: i1) {\n  scf.if %c {\n    %x = arith.constant 1 : i32\n  }\n  return\n}",
        ctx(),
    )
    const = next(op for op in module.walk_ops() if op.name == "arith.constant")
    assert const.parent_op.name == "scf.if"
    assert const.get_parent_of_type(FuncOp).sym_name_str == "f"
    assert module.is_proper_ancestor(const) and not const.is_ancestor(module)
    assert const.parent_region.parent_op is const.parent_op


class _Recorder(RewriterListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def notify_op_inserted(self, op):
        self.events.append(("inserted", op.name))

    def notify_op_erased(self, op):
        self.events.append(("erased", op.name))

    def notify_op_modified(self, op):
        self.events.append(("modified", op.name))

    def notify_op_replaced(self, op, values):
        self.events.append(("replaced", op.name))


def test_rewriter_notifies_every_change() -> None:
    fn, b = _func()
    x, y = fn.args
    add = b.create(arith.AddIOp, x, y)
    b.create(ReturnOp, add.results[0])
    rec = _Recorder()
    rw = PatternRewriter(rec)
    rw.replace_op_with_new(add, arith.SubIOp, x, y)
    assert rec.events == [
        ("inserted", "arith.subi"),
        ("replaced", "arith.addi"),
        ("modified", "func.return"),
        ("erased", "arith.addi"),
    ]
    sub = fn.entry_block.first_op
    assert sub.name == "arith.subi" and sub.location == add.location
    rec.events.clear()
    rw.modify_op_in_place(sub, lambda: sub.set_operand(0, y))
    assert rec.events == [("modified", "arith.subi")]
    with pytest.raises(IRError, match="still has 1 uses"):
        rw.erase_op(sub)


def test_rewriter_inlines_blocks_and_erases_nested_ops() -> None:
    module = parse(
        "func.func @f(%c: i1, %x: i32) -> i32 {\n  %r = scf.if %c -> (i32) {\n    %a = arith.addi %x, %x : i32\n"
        "    scf.yield %a : i32\n  } else {\n    scf.yield %x : i32\n  }\n  return %r : i32\n}",
        ctx(),
    )
    if_op = next(op for op in module.walk_ops() if op.name == "scf.if")
    rec = _Recorder()
    rw = PatternRewriter(rec)
    then_block = if_op.then_block
    yielded = then_block.last_op.operands
    rw.erase_op(then_block.last_op)
    rw.inline_block_before(then_block, if_op.parent, if_op)
    rw.replace_op(if_op, list(yielded))
    assert ("erased", "scf.yield") in rec.events  # the else branch's yield, erased with scf.if
    assert str(module).splitlines()[2] == "    %a = arith.addi %x, %x : i32"
    module.verify()


def test_patterns_by_name_class_and_function() -> None:
    @rewrite_pattern(arith.AddIOp, benefit=3)
    def add_to_sub(op, rewriter):
        rewriter.replace_op_with_new(op, arith.SubIOp, op.lhs, op.rhs)
        return True

    class AnySub(RewritePattern):
        root = "arith.subi"

        def match_and_rewrite(self, op, rewriter):
            return rewriter.notify_match_failure(op, "never applies")

    fn, b = _func()
    add = b.create(arith.AddIOp, *fn.args)
    assert add_to_sub.matches_root(add) and add_to_sub.benefit == 3
    assert add_to_sub.root_name == "arith.addi" and not AnySub().matches_root(add)
    b.create(ReturnOp, add.results[0])
    rec = []

    class Fail(RewriterListener):
        def notify_match_failure(self, op, reason):
            rec.append(reason)

    rw = PatternRewriter(Fail())
    assert add_to_sub.match_and_rewrite(add, rw)
    sub = fn.entry_block.first_op
    assert AnySub().matches_root(sub) and not AnySub().match_and_rewrite(sub, rw)
    assert rec == ["never applies"]


def test_symbol_tables() -> None:
    module = parse(
        "module {\n  func.func private @g(i32) -> i32\n  func.func @f(%x: i32) -> i32 {\n"
        "    %0 = call @g(%x) : (i32) -> i32\n    return %0 : i32\n  }\n  module @inner {\n"
        "    func.func private @h()\n  }\n}",
        ctx(),
    )
    call = next(op for op in module.walk_ops() if isinstance(op, CallOp))
    assert lookup_nearest_symbol_from(call, call.callee).sym_name_str == "g"
    inner = lookup_symbol_in(module, "inner")
    from layoutc.ir.core import SymbolRefAttr

    assert lookup_symbol_in(module, SymbolRefAttr("inner", ["h"])).sym_name_str == "h"
    assert lookup_symbol_in(module, "nope") is None and inner is not None
    assert unique_symbol_name(module, "f") == "f_0" and unique_symbol_name(module, "new") == "new"


def test_scf_builders_make_valid_loops_and_ifs() -> None:
    fn, b = _func("loop", (index, f32, i1), (f32,))
    n, x, c = fn.args
    c0 = b.create(arith.ConstantOp.from_int, 0, index)
    c1 = b.create(arith.ConstantOp.from_int, 1, index)
    loop = b.create(scf.ForOp, c0.results[0], n, c1.results[0], [x])
    body = Builder(InsertionPoint.at_end(loop.body_block))
    s = body.create(arith.AddFOp, loop.region_iter_args[0], x)
    body.create(scf.YieldOp, s.results[0])
    plain = b.create(scf.ForOp, c0.results[0], n, c1.results[0])
    iff = b.create(scf.IfOp, c, [f32])
    Builder(InsertionPoint.at_end(iff.then_block)).create(scf.YieldOp, loop.results[0])
    Builder(InsertionPoint.at_end(iff.else_block)).create(scf.YieldOp, x)
    wh = b.create(scf.WhileOp, [x], [f32])
    Builder(InsertionPoint.at_end(wh.before_block)).create(
        scf.ConditionOp, c, wh.before_block.args[0]
    )
    Builder(InsertionPoint.at_end(wh.after_block)).create(scf.YieldOp, wh.after_block.args[0])
    b.create(ReturnOp, iff.results[0])
    module = ModuleOp([fn])
    module.verify()
    assert plain.body_block.last_op.name == "scf.yield"
    assert str(parse(str(module), ctx())) == str(module)


def test_operand_segments_are_derived_from_groups() -> None:
    from layoutc.ir.dialects.cf import CondBranchOp

    region = Region()
    entry, t, f = Block([i1, i32]), Block([i32]), Block()
    for blk in (entry, t, f):
        region.add_block(blk)
    op = CondBranchOp(entry.args[0], t, [entry.args[1]], f, [])
    entry.append(op)
    assert op.properties["operandSegmentSizes"].values == (1, 1, 0)
    assert op.trueDestOperands == (entry.args[1],) and op.falseDestOperands == ()
    assert op.successor_operands(0) == (entry.args[1],)
    assert list(t.predecessors) == [entry] and entry.successors == [t, f]


def test_unregistered_ops_through_the_api() -> None:
    op = UnregisteredOp(
        "test.op",
        result_types=[i32, f32],
        attributes={"k": arith.ConstantOp.from_int(1, i32).value},
    )
    assert op.name == "test.op" and op.num_results == 2 and not op.is_registered
    assert op.to_text(generic=True) == '%0:2 = "test.op"() {k = 1 : i32} : () -> (i32, f32)'
    with pytest.raises(IRError, match="not an SSA value"):
        UnregisteredOp("test.bad", operands=[3])
