"""Breaking up IR that nothing will read again, so that reference counting frees it.

IR is cyclic: an op and its results point at each other (``OpResult.op``), so do an op and its
operand slots (``OpOperand.owner``), a value and its uses (``uses`` holds the slots, a slot its
value), a block and its ops (``parent``, ``_prev``/``_next``), a region and its blocks and its
op. Dropped IR is therefore garbage that only Python's cyclic collector frees, and it walks
every object of it: a GEMM compile leaves about 70,000 (its erased ops and the lowered module),
a young-generation collection of 30 to 90 ms after every compile (docs/driver.md,
"Compile time").

A compile knows when its IR is dead. While :func:`recording_erased` is active, every op
erased in this thread (``Operation.erase``, ``Block.erase``) is remembered; once the compile
has its products, :func:`dispose` breaks up those ops and the lowered module, and reference
counting frees them at once. A disposed op is empty (no operands, results, regions or
parent): dispose only IR that no one holds any more.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .operation import Operation

__all__ = ["dispose", "record_erased", "recording_erased"]

_state = threading.local()


@contextmanager
def recording_erased() -> Iterator[list[Operation]]:
    """Remember the ops this thread erases in the body, in the list yielded (nested: each
    level records its own)."""
    outer = getattr(_state, "erased", None)
    erased: list[Operation] = []
    _state.erased = erased
    try:
        yield erased
    finally:
        _state.erased = outer


def record_erased(op: Operation) -> None:
    """Called by the IR when ``op`` is erased: remembered if a recording is active."""
    erased = getattr(_state, "erased", None)
    if erased is not None:
        erased.append(op)


def dispose(ops: Iterable[Operation]) -> None:
    """Break the reference cycles of ``ops`` and everything nested in them (their use lists,
    blocks and regions), so that they are freed as soon as the last outside reference goes.
    Only for IR that nothing will read again."""
    stack = list(ops)
    while stack:
        op = stack.pop()
        for region in op.regions:
            for block in region.blocks:
                nested = block._first
                while nested is not None:
                    stack.append(nested)
                    nested = nested._next
                block._first = block._last = None
                block.parent = None
                for arg in block.args:
                    arg.uses = {}
                block.args = []
                block.uses = {}
            region.blocks = []
            region.parent = None
        op._operands = []
        for result in op.results:
            result.uses = {}
        op.results = ()
        op.successors = ()
        op.regions = ()
        op.parent = op._prev = op._next = None
