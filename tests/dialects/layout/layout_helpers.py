"""Shared helpers for the layout dialect tests (module name unique across test areas)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout
from layoutc.ir.core import Context, Diagnostic, parse_source, verify_op

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def examples(n: int) -> settings:
    """Hypothesis settings: ``n`` examples locally, a quarter on CI; no deadline."""
    return settings(
        max_examples=max(10, n // 4) if CI else n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def ctx() -> Context:
    return Context(allow_unregistered=True)


def diagnose(text: str) -> list[Diagnostic]:
    """Diagnostics from parsing and (if it parsed) verifying ``text``."""
    c = ctx()
    with c.diagnostics.collect() as found:
        module = parse_source(text, c, buffer_name="test.mlir")
    if module is not None:
        found.extend(verify_op(module))
    return found


def canonicalize(root: Any) -> int:
    """Test-only fixpoint driver: folds, canonicalization patterns, dead pure ops.

    The real greedy driver lives in layoutc.passes; this one exercises the dialect's hooks
    directly. Returns the number of changes.
    """
    from layoutc.ir.core import PatternRewriter
    from layoutc.ir.core.folding import try_fold
    from layoutc.ir.core.traits import ConstantLike, would_be_trivially_dead

    changes = 0
    for _ in range(20):
        changed = False
        for op in list(root.walk_ops(include_self=False)):
            if op.parent is None:
                continue
            if would_be_trivially_dead(op):
                op.erase()
                changed = True
                continue
            if not op.has_trait(ConstantLike):
                folded = try_fold(op)
                if folded is not None and folded != list(op.results):
                    op.replace_all_uses_with(folded)
                    op.erase()
                    changed = True
                    continue
            for pattern in type(op).canonicalization_patterns:
                if pattern.match_and_rewrite(op, PatternRewriter()):
                    changed = True
                    break
        if not changed:
            return changes
        changes += 1
    raise AssertionError("canonicalization did not converge")


# -- random static layouts ------------------------------------------------------------------------


@st.composite
def shapes(draw: Any, max_depth: int = 2, max_rank: int = 3) -> Any:
    """A small shape: an int or a (nested) tuple of ints 1..6."""
    if max_depth == 0 or draw(st.booleans()):
        return draw(st.integers(1, 6))
    n = draw(st.integers(1, max_rank))
    return tuple(draw(shapes(max_depth - 1, max_rank)) for _ in range(n))


def _strides_like(draw: Any, shape: Any) -> Any:
    if isinstance(shape, tuple):
        return tuple(_strides_like(draw, s) for s in shape)
    return draw(st.integers(0, 24))


@st.composite
def layouts(
    draw: Any, max_depth: int = 2, max_rank: int = 3, compact: bool | None = None
) -> Layout:
    """A small static layout: compact column-major or with random strides."""
    shape = draw(shapes(max_depth, max_rank))
    if compact is None:
        compact = draw(st.booleans())
    if compact:
        return Layout(shape)
    return Layout(shape, _strides_like(draw, shape))


@st.composite
def injective_layouts(draw: Any) -> Layout:
    """A compact layout with its modes permuted: injective, with a complement."""
    shape = draw(shapes(1, 3))
    flat = shape if isinstance(shape, tuple) else (shape,)
    order = draw(st.permutations(range(len(flat))))
    strides = [0] * len(flat)
    current = 1
    for i in order:
        strides[i] = current
        current *= flat[i]
    return Layout(shape, tuple(strides) if isinstance(shape, tuple) else strides[0])


def same_function(a: Any, b: Any) -> bool:
    """Equal sizes and equal values at every 1-D index (layouts compared as functions)."""
    from layoutc.ir.algebra import size

    n = size(a)
    if n != size(b):
        return False
    return all(a(i) == b(i) for i in range(n))
