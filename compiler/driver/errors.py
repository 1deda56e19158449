"""How the driver reports failures: every problem becomes a :class:`CompileError` with the
user's ``file:line:col`` when there is one; a crash inside a pass becomes an
:class:`InternalCompilerError` naming the reproducer file the pass manager wrote."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from layoutc.frontend.errors import CompileError

_INTERNAL = "internal error"
_REPRODUCER = "reproducer written to '"


class InternalCompilerError(CompileError):
    """A bug in layoutc (a pass raised, or produced IR the next stage refuses).

    ``reproducer`` is the path of the ``.mlir`` file that replays the failing pipeline
    (``layoutc-opt --run-reproducer FILE``) when one was written. It keeps layoutc's frames in
    its traceback (``internal``).
    """

    internal = True

    def __init__(self, *args: Any, reproducer: str | None = None, **kwargs: Any) -> None:
        self.reproducer = reproducer
        super().__init__(*args, **kwargs)


def _reproducer_path(notes: Sequence[Any]) -> str | None:
    for note in notes:
        text = note.message
        start = text.find(_REPRODUCER)
        if start >= 0:
            rest = text[start + len(_REPRODUCER) :]
            return rest.split("'", 1)[0]
    return None


def from_diagnostics(diagnostics: Sequence[Any], stage: str) -> CompileError:
    """A CompileError for the first error of ``diagnostics`` (later ones become notes)."""
    errors = [d for d in diagnostics if d.severity.label == "error"]
    if not errors:
        return CompileError(f"{stage} failed without a diagnostic (a bug in layoutc)")
    first = errors[0]
    notes = [(n.message, n.location) for n in first.notes]
    for other in errors[1:]:
        notes.append((other.message, other.location))
        notes.extend((n.message, n.location) for n in other.notes)
    everything = [*first.notes, *(n for d in errors[1:] for n in d.notes), *errors[1:]]
    reproducer = _reproducer_path(everything)
    if first.message.startswith(_INTERNAL) or reproducer is not None:
        return InternalCompilerError(first.message, first.location, notes, reproducer=reproducer)
    return CompileError(first.message, first.location, notes)


def internal(message: str, location: Any = None) -> InternalCompilerError:
    return InternalCompilerError(f"internal error: {message}", location)
