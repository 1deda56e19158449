"""Shared helpers for the IR tests (module name is unique to avoid clashes across areas)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from layoutc.ir.core import Context, Diagnostic, parse_source

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def examples(n: int) -> settings:
    """Hypothesis settings: ``n`` examples locally, fewer on CI; no deadline (shared machines)."""
    return settings(
        max_examples=max(10, n // 4) if CI else n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


def ctx(allow_unregistered: bool = True) -> Context:
    return Context(allow_unregistered=allow_unregistered)


def diagnose(
    text: str, *, allow_unregistered: bool = True, verify: bool = True
) -> list[Diagnostic]:
    """Diagnostics from parsing (and verifying, if it parsed) ``text``."""
    c = ctx(allow_unregistered)
    with c.diagnostics.collect() as found:
        module = parse_source(text, c, buffer_name="test.mlir")
    if module is not None and verify:
        from layoutc.ir.core import verify_op

        found.extend(verify_op(module))
    return found


def messages(diags: list[Diagnostic]) -> list[str]:
    """``line:col: severity: message`` for each diagnostic and note."""
    out = []
    for d in diags:
        for item in (d, *d.notes):
            flc = item.location.file_line_col()
            where = f"{flc[1]}:{flc[2]}" if flc else "?"
            out.append(f"{where}: {item.severity.label}: {item.message}")
    return out


def canonicalize(root) -> int:
    """Test-only fixpoint driver: folds, op canonicalization patterns and dead-op removal.

    The real greedy driver lives in layoutc.passes; this one exercises the IR hooks directly.
    Returns the number of rewrites applied.
    """
    from layoutc.ir.core import PatternRewriter, RewriterListener
    from layoutc.ir.core.folding import try_fold
    from layoutc.ir.core.traits import would_be_trivially_dead

    class Listener(RewriterListener):
        def __init__(self) -> None:
            self.erased: set = set()

        def notify_op_erased(self, op) -> None:
            self.erased.add(op)

    total = 0
    for _ in range(50):
        listener = Listener()
        rewriter = PatternRewriter(listener)
        changed = False
        for op in list(root.walk_ops(include_self=False)):
            if op in listener.erased or op.parent is None:
                continue
            if would_be_trivially_dead(op):
                rewriter.erase_op(op)
                changed = True
                continue
            values = try_fold(op, rewriter)
            if values is not None:
                if values != list(op.results):
                    rewriter.replace_op(op, values)
                changed = True
                continue
            for pattern in type(op).canonicalization_patterns:
                if pattern.matches_root(op) and pattern.match_and_rewrite(op, rewriter):
                    changed = True
                    break
        if not changed:
            return total
        total += 1
    raise AssertionError("canonicalization did not converge")
