"""How deep IR may nest, and the stack that lets every stage reach that depth.

The parser, verifier, printer, dominance and the rewrite drivers recurse over regions, and
the attribute parser over nested attributes and types. Python's default recursion limit (1000
frames) allowed about 165 nested regions, and a deeper input raised ``RecursionError`` from
whichever stage hit it first. Instead:

- the parsers refuse nesting past ``MAX_REGION_NESTING`` regions or ``MAX_ATTRIBUTE_NESTING``
  attributes/types with a diagnostic at the offending token (``regions nest deeper than ...``);
- the command-line tools run their work through ``with_deep_stack``: a thread with a large
  stack and a recursion limit that every stage needs for input within those bounds.

Real programs nest a few levels (MLIR's own tests rarely pass 10); the bounds are far beyond
that and the deep stack costs nothing until it is used (stack pages are touched on demand).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

#: Regions nested inside one another (``scf.if`` in ``scf.for`` in ``func.func`` ...).
MAX_REGION_NESTING = 1024
#: Attributes and types nested inside one another (``[[[...]]]``, ``vector<...>`` ...).
MAX_ATTRIBUTE_NESTING = 1024
#: Pass pipelines nested inside one another (``builtin.module(func.func(...))``).
MAX_PIPELINE_NESTING = 64
#: Frames a stage may use per nesting level, and the stack those frames may need.
_FRAMES = 60 * max(MAX_REGION_NESTING, MAX_ATTRIBUTE_NESTING) + 10_000
_STACK_BYTES = 1 << 30

T = TypeVar("T")


def with_deep_stack(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` on a thread whose stack and recursion limit hold IR nested up to
    the bounds above; exceptions propagate. Used by the CLIs (process-wide settings)."""
    result: list[Any] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(fn(*args, **kwargs))
        except BaseException as e:  # re-raised on the caller's thread
            error.append(e)

    old_limit = sys.getrecursionlimit()
    try:
        old_size = threading.stack_size(_STACK_BYTES)
    except (ValueError, RuntimeError):  # a platform without settable stacks: run here
        return fn(*args, **kwargs)
    sys.setrecursionlimit(max(old_limit, _FRAMES))
    try:
        worker = threading.Thread(target=run, name="layoutc-deep-stack")
        worker.start()
    finally:
        threading.stack_size(old_size)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]
