"""Tracebacks of user errors without layoutc's frames (JAX-style filtering).

A :class:`~.errors.CompileError` or :class:`~.spec.SpecError` is about the user's program: its
message already names the user's ``file:line:col``, and the frames of layoutc's driver, tracer
and passes between the user's call and the ``raise`` only bury it. The public entry points
(calling a kernel, ``kernel.trace``, ``layoutc.compile``) are wrapped in :func:`api_boundary`,
which drops every frame in layoutc's own folders from such an exception's traceback before it
reaches the caller. Internal errors (``internal = True``, e.g. the driver's
InternalCompilerError) are bugs and keep every frame, as does everything when the environment
sets ``LAYOUTC_FULL_TRACEBACK=1`` (for layoutc's developers).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from .errors import CompileError
from .locations import is_internal_file
from .spec import SpecError

__all__ = ["api_boundary", "filtered_traceback", "full_traceback_wanted"]

_F = TypeVar("_F", bound=Callable[..., Any])

FULL_TRACEBACK_ENV = "LAYOUTC_FULL_TRACEBACK"


def full_traceback_wanted() -> bool:
    """True when the environment asks for layoutc's frames (``LAYOUTC_FULL_TRACEBACK=1``)."""
    return os.environ.get(FULL_TRACEBACK_ENV, "") not in ("", "0")


def filtered_traceback(tb: TracebackType | None) -> TracebackType | None:
    """The chain of ``tb`` without the frames of layoutc's own files (same order)."""
    kept: list[TracebackType] = []
    while tb is not None:
        if not is_internal_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    out: TracebackType | None = None
    for entry in reversed(kept):
        out = TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def _is_user_error(e: BaseException) -> bool:
    if isinstance(e, CompileError):
        return not getattr(e, "internal", False)
    return isinstance(e, SpecError)


def api_boundary(fn: _F) -> _F:
    """Wrap a public entry point: user errors leave it with only the user's frames.

    The bare ``raise`` re-raises with the filtered traceback and adds no frame of its own.
    """

    @functools.wraps(fn)
    def entry_point(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if _is_user_error(e) and not full_traceback_wanted():
                e.with_traceback(filtered_traceback(e.__traceback__))
            raise

    return entry_point  # type: ignore[return-value]
