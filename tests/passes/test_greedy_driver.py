"""The greedy rewrite driver: convergence and its caps, benefits, folding and constants,
strictness, listeners and region simplification."""

from __future__ import annotations

import pytest
from layoutc.ir.core import (
    Context,
    IntegerAttr,
    PatternRewriter,
    RewritePattern,
    RewriterListener,
    parse,
)
from layoutc.ir.core.builder import InsertionPoint
from layoutc.ir.core.rewrite import rewrite_pattern
from layoutc.ir.core.types import i32, i64
from layoutc.ir.dialects.arith import AddIOp, ConstantOp
from layoutc.passes import (
    FrozenPatternSet,
    GreedyRewriteConfig,
    OperationFolder,
    PassManager,
    apply_patterns_greedily,
)
from layoutc.passes.folder import insertion_region


def load(text: str):
    return parse(text, Context(allow_unregistered=True))


COUNTERS = """
func.func @f() {
  "test.counter"() {n = 0 : i64} : () -> ()
  "test.counter"() {n = 0 : i64} : () -> ()
  return
}
"""


class SneakyIncrement(RewritePattern):
    """Bumps ``n`` up to 5 *without* telling the rewriter: only a new sweep sees the change."""

    root = "test.counter"

    def match_and_rewrite(self, op, rewriter):
        n = op.attributes["n"].value
        if n >= 5:
            return False
        op.attributes["n"] = IntegerAttr(n + 1, i64)
        return True


def counters(module) -> list[int]:
    return [o.attributes["n"].value for o in module.walk_ops() if o.name == "test.counter"]


def test_iterations_until_convergence_and_the_cap():
    module = load(COUNTERS)
    result = apply_patterns_greedily(module, [SneakyIncrement()])
    assert result.converged and result.changed
    assert result.iterations == 6  # five sweeps that change, one that confirms
    assert counters(module) == [5, 5]

    module = load(COUNTERS)
    result = apply_patterns_greedily(
        module, [SneakyIncrement()], GreedyRewriteConfig(max_iterations=3)
    )
    assert not result.converged and not bool(result)
    assert result.iterations == 3 and counters(module) == [3, 3]

    module = load(COUNTERS)
    result = apply_patterns_greedily(
        module, [SneakyIncrement()], GreedyRewriteConfig(max_iterations=-1)
    )
    assert result.converged and result.iterations == 6


def test_max_num_rewrites_stops_a_sweep():
    @rewrite_pattern("test.counter")
    def toggle(op, rewriter):  # never stops on its own: it re-queues the op every time
        rewriter.modify_op_in_place(
            op,
            lambda: op.attributes.__setitem__("n", IntegerAttr(1 - op.attributes["n"].value, i64)),
        )
        return True

    module = load(COUNTERS)
    result = apply_patterns_greedily(
        module, [toggle], GreedyRewriteConfig(max_iterations=2, max_num_rewrites=7)
    )
    assert not result.converged
    assert result.num_rewrites == 14  # 7 in each of the 2 sweeps


def test_canonicalize_reports_non_convergence():
    from layoutc.passes.canonicalize import Canonicalize

    ctx = Context(allow_unregistered=True)
    module = parse(COUNTERS, ctx)

    class Counting(Canonicalize):
        argument = "test-counting-canonicalize"

        def initialize(self, context):
            self._patterns = FrozenPatternSet([SneakyIncrement()])

    pm = PassManager(ctx)
    pm.add(Counting(max_iterations=2, test_convergence=True))
    with ctx.diagnostics.collect() as diags:
        assert not pm.run(module)
    assert [d.message for d in diags] == [
        "'builtin.module' op canonicalization did not converge within max-iterations=2"
    ]
    pm = PassManager(ctx)
    pm.add(Counting(max_iterations=10, test_convergence=True))
    assert pm.run(module)


def test_benefit_orders_patterns():
    applied: list[str] = []

    def marker(name: str, benefit: int, root):
        @rewrite_pattern(root, benefit=benefit)
        def pattern(op, rewriter):
            if op.name != "test.counter" or "done" in op.attributes:
                return False
            applied.append(name)
            rewriter.modify_op_in_place(op, lambda: op.attributes.__setitem__("done", i32_one))
            return True

        pattern.__name__ = name
        return pattern

    i32_one = IntegerAttr(1, i32)
    patterns = [
        marker("low", 1, "test.counter"),
        marker("any-high", 3, None),
        marker("high", 3, "test.counter"),
        marker("mid", 2, "test.counter"),
    ]
    frozen = FrozenPatternSet(patterns)
    module = load(COUNTERS)
    op = next(o for o in module.walk_ops() if o.name == "test.counter")
    assert [p.__name__ for p in frozen.for_op(op)] == ["high", "any-high", "mid", "low"]
    apply_patterns_greedily(module.regions[0].blocks[0].first_op.regions[0], frozen)
    assert applied == ["high", "high"]
    # disable/enable filters by pattern name
    assert [p.__name__ for p in FrozenPatternSet(patterns, disabled=["high"]).for_op(op)] == [
        "any-high",
        "mid",
        "low",
    ]
    assert [p.__name__ for p in FrozenPatternSet(patterns, enabled=["low"]).for_op(op)] == ["low"]


def test_folding_materializes_dedups_and_hoists_constants():
    module = load(
        """
func.func @f(%n: index) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %a = arith.addi %c1, %c2 : i32
  %r = scf.for %i = %n to %n step %n iter_args(%acc = %a) -> (i32) {
    %c3 = arith.constant 3 : i32
    %b = arith.addi %c2, %c1 : i32
    %s = arith.addi %acc, %b : i32
    scf.yield %s : i32
  }
  return %a, %r : i32, i32
}
"""
    )
    result = apply_patterns_greedily(module, [])
    assert result.converged and result.num_folded >= 2
    func = module.regions[0].blocks[0].first_op
    entry = func.regions[0].blocks[0]
    consts = [o for o in entry.ops if o.name == "arith.constant"]
    # One constant 3 (folded twice, materialized once), hoisted before the loop; the unused
    # constants are gone.
    assert [c.properties["value"].value for c in consts] == [3]
    assert entry.first_op is consts[0]
    loop = next(o for o in entry.ops if o.name == "scf.for")
    assert not any(o.name == "arith.constant" for o in loop.walk_ops())
    body_add = next(o for o in loop.walk_ops() if o.name == "arith.addi")
    assert body_add.operands[1] is consts[0].results[0]


def test_constants_go_to_the_nearest_isolated_region():
    module = load(
        """
func.func @f(%c: i1) {
  scf.if %c {
    "test.region"() ({
      %x = arith.constant 1 : i32
      "test.use"(%x) : (i32) -> ()
    }) : () -> ()
  }
  return
}
"""
    )
    ops = list(module.walk_ops())
    x = next(o for o in ops if o.name == "arith.constant")
    # Unregistered parents might be isolated: constants stay in their region.
    assert insertion_region(x).parent.name == "test.region"
    folder = OperationFolder(PatternRewriter())
    assert folder.insert_known_constant(x)
    func = ops[1]
    scf_if = next(o for o in ops if o.name == "scf.if")
    y = ConstantOp(IntegerAttr(5, i32))
    scf_if.regions[0].blocks[0].insert_at_start(y)
    assert insertion_region(y) is func.regions[0]
    assert folder.insert_known_constant(y)
    assert func.regions[0].blocks[0].first_op is y  # hoisted to the function entry
    z = ConstantOp(IntegerAttr(5, i32))
    scf_if.regions[0].blocks[0].insert_at_start(z)
    assert not folder.insert_known_constant(z)  # replaced by y
    assert z.parent is None


def test_strictness_limits_what_is_rewritten():
    text = """
func.func @f(%a: i32) -> i32 {
  %r = "test.make"(%a) : (i32) -> i32
  return %r : i32
}
"""

    @rewrite_pattern("test.make")
    def make(op, rewriter):
        # Replace with a + 0, which the folder would turn into a.
        with rewriter.at(InsertionPoint.before_op(op)):
            zero = rewriter.create(ConstantOp, IntegerAttr(0, i32))
            add = rewriter.create(AddIOp, op.operands[0], zero.results[0])
        rewriter.replace_op(op, add)
        return True

    def run(strictness: str) -> list[str]:
        module = load(text)
        apply_patterns_greedily(module, [make], GreedyRewriteConfig(strictness=strictness))
        return [o.name for o in module.walk_ops()]

    assert run("any") == ["builtin.module", "func.func", "func.return"]
    assert "arith.addi" not in run("existing-and-new")
    assert run("existing") == [
        "builtin.module",
        "func.func",
        "arith.constant",
        "arith.addi",
        "func.return",
    ]
    with pytest.raises(ValueError, match="strictness"):
        GreedyRewriteConfig(strictness="some")


def test_listener_hears_every_change_and_fold_can_be_disabled():
    text = """
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %dead = arith.muli %a, %a : i32
  return %x : i32
}
"""

    class Log(RewriterListener):
        def __init__(self):
            self.erased: list[str] = []
            self.modified: list[str] = []

        def notify_op_erased(self, op):
            self.erased.append(op.name)

        def notify_op_modified(self, op):
            self.modified.append(op.name)

    log = Log()
    module = load(text)
    apply_patterns_greedily(module, [], GreedyRewriteConfig(listener=log))
    assert sorted(log.erased) == ["arith.addi", "arith.constant", "arith.muli"]
    assert "func.return" in log.modified

    module = load(text)
    result = apply_patterns_greedily(module, [], GreedyRewriteConfig(fold=False))
    names = [o.name for o in module.walk_ops()]
    assert "arith.addi" in names and "arith.muli" not in names
    assert result.num_folded == 0 and result.num_erased == 1


def test_region_simplification_erases_unreachable_blocks_only_when_enabled():
    text = """
func.func @f() {
  return
^dead:
  "test.effect"() : () -> ()
  return
}
"""
    module = load(text)
    assert apply_patterns_greedily(module, []).changed
    assert len(module.regions[0].blocks[0].first_op.regions[0].blocks) == 1
    module = load(text)
    result = apply_patterns_greedily(module, [], GreedyRewriteConfig(region_simplify=False))
    assert not result.changed
    assert len(module.regions[0].blocks[0].first_op.regions[0].blocks) == 2


def test_target_may_be_a_region():
    module = load(
        """
func.func @f() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  return %s : i32
}
func.func @g() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  return %s : i32
}
"""
    )
    f, g = module.regions[0].blocks[0].ops
    apply_patterns_greedily(f.regions[0], [])
    assert [o.name for o in f.walk_ops()] == ["func.func", "arith.constant", "func.return"]
    assert len(list(g.walk_ops())) == 5  # untouched
