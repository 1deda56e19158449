"""Python's cyclic garbage collector paused while a kernel compiles.

A GEMM compile allocates over a million short-lived objects (ops, layouts, symbolic
expressions). Each allocation burst triggers collections that walk every live object of the
process (SymPy's caches, llvmlite, the user's data), hundreds of times per compile: about a
fifth of a warm GEMM compile's CPU time. With the collector paused the compile's cyclic garbage
(an erased op and its block point at each other) waits for the first collection after it;
that costs about 30 MB more peak memory for a GEMM.

Nested and concurrent compiles (threads) share one pause: the collector comes back when the
last one ends, and only if it was enabled when the first one began.

A GPU compile's garbage is dead once its IR is translated, and libNVVM and nvJitLink run
without the GIL: :func:`collect_in_background` collects it on a helper thread meanwhile (about
0.1 s of a GEMM's collection off the compile's wall time when a core is free).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["collect_in_background", "gc_paused"]

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


def collect_in_background() -> Callable[[], None] | None:
    """Collect the young generation on a helper thread; the function returned waits for it.

    Only for the one compile in flight, with the collector paused by :func:`gc_paused` (a user
    who disabled it keeps it off); None otherwise. The caller starts it when the compile's
    garbage is dead and the thread has a GIL-free wait (the NVIDIA tools) to overlap.
    """
    with _lock:
        if _depth != 1 or not _paused_by_us:
            return None
    thread = threading.Thread(target=gc.collect, args=(0,), name="layoutc-gc", daemon=True)
    thread.start()
    return thread.join
