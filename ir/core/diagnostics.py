"""Diagnostics: errors, warnings and remarks with notes, routed through a DiagnosticEngine.

Everything a user can get wrong in IR (bad text, invalid IR, failed folds) is reported as a
:class:`Diagnostic` carrying a :class:`~.location.Location`, printed MLIR-style as
``file:line:col: error: message``. Handlers see every diagnostic first (tests collect them,
``--verify-diagnostics`` matches them against expectations); unhandled ones go to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from enum import IntEnum
from typing import TextIO

from .location import Location, UnknownLoc


class Severity(IntEnum):
    NOTE = 0
    REMARK = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class Diagnostic:
    """One message with a severity, a location and attached notes."""

    __slots__ = ("location", "message", "notes", "severity")

    def __init__(self, severity: Severity, message: str, location: Location | None = None):
        self.severity = severity
        self.message = message
        self.location = location if location is not None else UnknownLoc()
        self.notes: list[Diagnostic] = []

    def attach_note(self, message: str, location: Location | None = None) -> Diagnostic:
        """Attach a note (shown after the message); returns the note."""
        note = Diagnostic(
            Severity.NOTE, message, location if location is not None else self.location
        )
        self.notes.append(note)
        return note

    def location_prefix(self) -> str:
        flc = self.location.file_line_col()
        if flc is None:
            return "" if isinstance(self.location, UnknownLoc) else f"{self.location.text}: "
        return f"{flc[0]}:{flc[1]}:{flc[2]}: "

    def format(self, sources: SourceRegistry | None = None) -> str:
        """``file:line:col: error: message`` plus notes, with source excerpts if available."""
        lines = [f"{self.location_prefix()}{self.severity.label}: {self.message}"]
        if sources is not None:
            lines.extend(sources.excerpt(self.location))
        for note in self.notes:
            lines.append(note.format(sources))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Diagnostic({self.severity.label}, {self.message!r}, {self.location.text})"


Handler = Callable[[Diagnostic], bool | None]
"""A handler returns True when it has consumed the diagnostic (later handlers do not see it)."""


class SourceRegistry:
    """Text of parsed buffers, to show the offending line under a diagnostic."""

    def __init__(self) -> None:
        self._buffers: dict[str, tuple[list[str], int]] = {}

    def add(self, name: str, text: str, line_offset: int = 0) -> None:
        lines, offset = self._buffers.get(name, ([], 0))
        new = text.split("\n")
        if not lines or line_offset == 0:
            self._buffers[name] = (new, line_offset)
            return
        # A split file (`// -----`): keep one line list for the whole buffer.
        need = line_offset + len(new) - offset
        if len(lines) < need:
            lines.extend([""] * (need - len(lines)))
        lines[line_offset - offset : line_offset - offset + len(new)] = new
        self._buffers[name] = (lines, offset)

    def excerpt(self, location: Location) -> list[str]:
        flc = location.file_line_col()
        if flc is None or flc[0] not in self._buffers:
            return []
        lines, offset = self._buffers[flc[0]]
        row = flc[1] - 1 - offset
        if not 0 <= row < len(lines):
            return []
        text, caret = clip_source_line(lines[row].rstrip("\n").expandtabs(1), flc[2] - 1)
        return [text, " " * caret + "^"]


EXCERPT_WIDTH = 120


def clip_source_line(text: str, column: int, width: int = EXCERPT_WIDTH) -> tuple[str, int]:
    """The part of a source line to show under a diagnostic, and the caret's 0-based column in it.

    A generated or minified line can be tens of kilobytes; the excerpt keeps `width` characters
    around `column` and marks what it cut with "...", so a diagnostic stays a few lines long.
    """
    column = max(column, 0)
    if len(text) <= width:
        return text, column
    start = min(max(column - width // 2, 0), max(len(text) - width, 0))
    end = start + width
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    return head + text[start:end] + tail, column - start + len(head)


class DiagnosticEngine:
    """Routes diagnostics to handlers (last pushed first) and counts errors."""

    def __init__(self, stream: TextIO | None = None, show_source: bool = True) -> None:
        self._handlers: list[Handler] = []
        self.sources = SourceRegistry()
        self.stream = stream
        self.show_source = show_source
        self.error_count = 0

    def push_handler(self, handler: Handler) -> Handler:
        self._handlers.append(handler)
        return handler

    def pop_handler(self, handler: Handler) -> None:
        self._handlers.remove(handler)

    @contextlib.contextmanager
    def handler(self, handler: Handler) -> Iterator[Handler]:
        """Install ``handler`` for the duration of a ``with`` block."""
        self.push_handler(handler)
        try:
            yield handler
        finally:
            self.pop_handler(handler)

    @contextlib.contextmanager
    def collect(self) -> Iterator[list[Diagnostic]]:
        """Collect (and swallow) every diagnostic emitted inside the ``with`` block."""
        found: list[Diagnostic] = []

        def keep(d: Diagnostic) -> bool:
            found.append(d)
            return True

        with self.handler(keep):
            yield found

    def emit(self, diag: Diagnostic) -> Diagnostic:
        if diag.severity is Severity.ERROR:
            self.error_count += 1
        for handler in reversed(self._handlers):
            if handler(diag):
                return diag
        stream = self.stream if self.stream is not None else sys.stderr
        stream.write(diag.format(self.sources if self.show_source else None) + "\n")
        return diag

    def error(self, message: str, location: Location | None = None) -> Diagnostic:
        """Build an error; call :meth:`emit` after attaching notes."""
        return Diagnostic(Severity.ERROR, message, location)

    def emit_error(self, message: str, location: Location | None = None) -> Diagnostic:
        return self.emit(Diagnostic(Severity.ERROR, message, location))

    def emit_warning(self, message: str, location: Location | None = None) -> Diagnostic:
        return self.emit(Diagnostic(Severity.WARNING, message, location))

    def emit_remark(self, message: str, location: Location | None = None) -> Diagnostic:
        return self.emit(Diagnostic(Severity.REMARK, message, location))


class DiagnosticError(Exception):
    """Raised by convenience APIs (``parse``, ``Operation.verify``) that fail with diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.format() for d in diagnostics) or "failed")

    def __reduce__(self) -> tuple:
        """Pickled with its diagnostics (a process pool sends it back to the caller)."""
        return (type(self), (self.diagnostics,))
