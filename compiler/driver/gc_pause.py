"""Python's cyclic garbage collector paused while a kernel compiles.

A GEMM compile allocates over a million short-lived objects (ops, layouts, symbolic
expressions). Each allocation burst triggers collections that walk every live object of the
process (SymPy's caches, llvmlite, the user's data), hundreds of times per compile: about a
fifth of a warm GEMM compile's CPU time. With the collector paused the compile's cyclic garbage
waits for the first collection after it (about 30 MB more peak memory for a GEMM); the largest
part of it, the IR the compile erased and its lowered module, the driver breaks up at the end
of the compile (ir/core/disposal.py), so reference counting frees it and that collection
walks little (about 20,000 young objects instead of 88,000 after a GEMM compile).

Nested and concurrent compiles (threads) share one pause: the collector comes back when the
last one ends, and only if it was enabled when the first one began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]

_lock = threading.Lock()
_depth = 0
_paused_by_us = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector disabled (restored afterwards)."""
    global _depth, _paused_by_us
    with _lock:
        if _depth == 0:
            _paused_by_us = gc.isenabled()
            if _paused_by_us:
                gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _paused_by_us:
                _paused_by_us = False
                gc.enable()
