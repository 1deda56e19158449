"""``canonicalize``: fold, apply every op's canonicalization patterns, erase dead code.

MLIR's canonicalizer with the same options: the greedy driver runs over the op's regions with
the folders of all ops and the ``canonicalization_patterns`` each op class declares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ListOption, Option, Pass, Statistic
from .greedy import GreedyRewriteConfig, apply_patterns_greedily
from .patterns import FrozenPatternSet
from .registry import register_pass

if TYPE_CHECKING:
    from layoutc.ir.core.context import Context
    from layoutc.ir.core.operation import Operation


@register_pass
class Canonicalize(Pass):
    argument = "canonicalize"
    display_name = "Canonicalizer"
    summary = "Canonicalize operations"
    description = (
        "Folds ops, applies the canonicalization patterns of every op and erases dead code "
        "until nothing changes."
    )

    top_down = Option(bool, True, "Seed the worklist in general top-down order")
    region_simplify = Option(bool, True, "Erase unreachable blocks after each iteration")
    max_iterations = Option(
        int, 10, "Max. iterations between applying patterns / simplifying regions (-1: no limit)"
    )
    max_num_rewrites = Option(int, -1, "Max. number of pattern rewrites within an iteration")
    test_convergence = Option(bool, False, "Fail (with an error) if the rewrite does not converge")
    disable_patterns = ListOption(str, (), "Labels of patterns that should not be used")
    enable_patterns = ListOption(str, (), "Labels of patterns that may be used (default: all)")

    num_folded = Statistic("Number of ops folded")
    num_rewrites = Statistic("Number of pattern rewrites")
    num_erased = Statistic("Number of dead ops erased")

    def initialize(self, context: Context) -> None:
        self._patterns = FrozenPatternSet(
            canonicalization=True,
            disabled=self.disable_patterns,
            enabled=self.enable_patterns,
        )

    def run_on_operation(self, op: Operation) -> None:
        config = GreedyRewriteConfig(
            max_iterations=self.max_iterations,
            max_num_rewrites=self.max_num_rewrites,
            top_down=self.top_down,
            region_simplify=self.region_simplify,
        )
        result = apply_patterns_greedily(op, self._patterns, config)
        self.num_folded += result.num_folded
        self.num_rewrites += result.num_rewrites
        self.num_erased += result.num_erased
        if not result.changed:
            self.mark_all_analyses_preserved()
        if self.test_convergence and not result.converged:
            self.emit_error(
                op,
                f"canonicalization did not converge within max-iterations={self.max_iterations}",
            )
            self.signal_failure()
