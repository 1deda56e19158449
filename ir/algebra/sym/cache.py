"""Bounded memo caches for the symbolic engine.

Every symbolic operation is memoised on its (hash-consed) operands, so a long-running process
that builds many distinct expressions would grow these tables forever. A `MemoCache` is a plain
dict (C-speed lookups) that drops its oldest half when it reaches its limit; `clear_caches()`
empties all of them. Dropping entries never changes results: the operations are pure functions
of their operands.

Results derived from proofs are the exception: a proof that stops at the prover's depth limit
or elimination budget answers "not proven" where a call with more budget left might prove it.
The prover counts those stops (`PROOF_CUTOFFS`); a memo of anything computed from proofs is
written only when the count did not move during the computation, so results never depend on
the order of calls.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

DEFAULT_LIMIT = 1 << 16

_REGISTRY: list[MemoCache] = []


class MemoCache(dict):
    """A dict with a size limit; `put` evicts the oldest half when the limit is reached."""

    __slots__ = ("limit", "name")

    def __init__(self, name: str, limit: int = DEFAULT_LIMIT):
        super().__init__()
        self.name = name
        self.limit = limit
        _REGISTRY.append(self)

    def put(self, key: Any, value: Any) -> Any:
        """Store and return `value` (so callers can `return cache.put(key, compute())`)."""
        if len(self) >= self.limit:
            for old in list(islice(self, max(1, len(self) // 2))):
                del self[old]
        self[key] = value
        return value


class ProofCutoffs:
    """A counter of proofs stopped at a budget (`prove` counts, memoising callers compare)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


PROOF_CUTOFFS = ProofCutoffs()
"""The engine's one counter of proofs stopped at a budget (never reset: callers compare)."""


def clear_caches() -> None:
    """Forget every memoised symbolic result (interned expressions still alive stay valid)."""
    for cache in _REGISTRY:
        cache.clear()


def cache_info() -> dict[str, int]:
    """Current number of entries per cache, by name."""
    return {cache.name: len(cache) for cache in _REGISTRY}


def set_cache_limit(limit: int) -> None:
    """Change the entry limit of every cache (at least 16)."""
    if type(limit) is not int or limit < 16:
        raise ValueError(f"set_cache_limit: expected an int >= 16, got {limit!r}")
    for cache in _REGISTRY:
        cache.limit = limit
        while len(cache) > limit:
            for old in list(islice(cache, len(cache) - limit)):
                del cache[old]
