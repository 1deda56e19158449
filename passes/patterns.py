"""Pattern sets frozen for fast lookup: the patterns that may apply to an op, best first.

A :class:`FrozenPatternSet` indexes patterns by the op they are rooted at (name, class or any
op) and, for the canonicalizer, adds each op class's ``canonicalization_patterns``. The list
for an op class is computed once and sorted by decreasing benefit; on equal benefit, patterns
rooted at the op come before "any op" patterns, and otherwise keep their given order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from layoutc.ir.core.operation import Operation
from layoutc.ir.core.rewrite import RewritePattern


def pattern_name(pattern: RewritePattern) -> str:
    """The name used by ``disable-patterns``/``enable-patterns`` (class or function name)."""
    name = getattr(pattern, "__name__", None)
    return name if isinstance(name, str) else type(pattern).__name__


class FrozenPatternSet:
    """Immutable set of patterns with a per-op-class cache of applicable patterns."""

    def __init__(
        self,
        patterns: Iterable[RewritePattern] = (),
        *,
        canonicalization: bool = False,
        disabled: Collection[str] = (),
        enabled: Collection[str] = (),
    ):
        """``canonicalization`` adds every op's own canonicalization patterns.

        ``disabled``/``enabled`` filter patterns by :func:`pattern_name` (``enabled`` empty
        means all), like MLIR's ``disable-patterns``/``enable-patterns``.
        """
        self._disabled = frozenset(disabled)
        self._enabled = frozenset(enabled)
        patterns = [p for p in patterns if self._allowed(p)]
        for p in patterns:
            if not isinstance(p, RewritePattern):
                raise TypeError(f"expected a RewritePattern, got {p!r}")
        self._rooted = [p for p in patterns if p.root is not None]
        self._any = [p for p in patterns if p.root is None]
        self._canonicalization = canonicalization
        self.cache: dict[Any, tuple[RewritePattern, ...]] = {}
        """Op class (registered ops) or op name (unregistered ops) -> patterns, best first."""

    def _allowed(self, p: RewritePattern) -> bool:
        name = pattern_name(p)
        if name in self._disabled:
            return False
        return not self._enabled or name in self._enabled

    @property
    def is_empty(self) -> bool:
        return not (self._rooted or self._any or self._canonicalization)

    def for_op(self, op: Operation) -> tuple[RewritePattern, ...]:
        """Patterns that may match ``op``, best first (cached per op class / name)."""
        cls = type(op)
        key: Any = cls if cls._def is not None else op.name
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._compute(op)
        return found

    def _compute(self, op: Operation) -> tuple[RewritePattern, ...]:
        specific = [p for p in self._rooted if p.matches_root(op)]
        if self._canonicalization:
            for p in type(op).canonicalization_patterns:
                if self._allowed(p) and (p.root is None or p.matches_root(op)):
                    specific.append(p)
        # Stable sort: higher benefit first; op-rooted before any-op on ties.
        ranked = [(-p.benefit, 0, i, p) for i, p in enumerate(specific)]
        ranked += [(-p.benefit, 1, i, p) for i, p in enumerate(self._any)]
        ranked.sort(key=lambda t: t[:3])
        return tuple(t[3] for t in ranked)
