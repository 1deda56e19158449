"""``@lc.func``: helper functions that kernels call, with the kernel's dynamic control flow.

A plain Python helper called from a kernel runs as Python: its ``if`` on a dynamic value is an
error (a dynamic value cannot be a Python bool). Decorated with ``@lc.func``, the helper's source
is rewritten like a kernel's (``if``/``for``/``while`` become scf ops when dynamic) the first time
it is called during a trace. Its ops are located at the helper's lines with the kernel's call site
(``callsite("helper.py":3:5 at "kernel.py":12:9)``). Outside a kernel it is the original function.
"""

from __future__ import annotations

import functools
import threading
from types import FunctionType
from typing import Any

from . import state


class Func:
    """A helper traced inline into the kernels that call it."""

    def __init__(self, fn: FunctionType):
        if not isinstance(fn, FunctionType):
            raise TypeError(f"@layoutc.func needs a Python function, got {fn!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self._rewritten: Any = None
        self._lock = threading.Lock()

    def rewritten(self) -> Any:
        with self._lock:
            if self._rewritten is None:
                from .rewrite import rewrite_kernel

                self._rewritten = rewrite_kernel(self.fn, kernel=False)
            return self._rewritten

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if state.active() is None:
            return self.fn(*args, **kwargs)
        return self.rewritten().fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<layoutc.func {self.fn.__qualname__}>"


def func(fn: FunctionType) -> Func:
    """Decorator for helpers with dynamic control flow (see the module docstring)."""
    return Func(fn)
