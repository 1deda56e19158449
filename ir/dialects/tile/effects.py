"""Memory effects of tile ops, as a trait passes can query.

The IR core knows ``Pure``/``NoMemoryEffect`` only; an op without them is treated as having
unknown effects, which keeps every pass correct. This trait says *which* operands an op reads,
writes or allocates, so that passes which care (alias-aware CSE, scheduling of cp.async) can
be precise: ``op.get_trait(MemoryEffects).reads`` names the operand groups read.
"""

from __future__ import annotations

from ...core.traits import Trait

__all__ = ["MemoryEffects"]


class MemoryEffects(Trait):
    """Reads ``reads``, writes ``writes`` (operand group names); ``allocates`` marks ops that
    create fresh memory (never CSE'd); ``synchronizes`` marks barriers and waits that order
    other memory operations."""

    __slots__ = ("allocates", "reads", "synchronizes", "writes")

    def __init__(
        self,
        reads: tuple[str, ...] = (),
        writes: tuple[str, ...] = (),
        allocates: bool = False,
        synchronizes: bool = False,
    ):
        self.reads = reads
        self.writes = writes
        self.allocates = allocates
        self.synchronizes = synchronizes

    def __repr__(self) -> str:
        parts = []
        if self.reads:
            parts.append(f"reads={self.reads}")
        if self.writes:
            parts.append(f"writes={self.writes}")
        if self.allocates:
            parts.append("allocates")
        if self.synchronizes:
            parts.append("synchronizes")
        return f"MemoryEffects({', '.join(parts)})"
