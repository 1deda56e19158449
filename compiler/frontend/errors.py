"""User-facing compile errors of the front end.

Everything a kernel author can get wrong while a kernel is traced (a shape mismatch, a dynamic
value where Python needs a static one, an algebra ``LayoutError``, a Python mistake in the kernel
body) is raised as :class:`CompileError`, whose message is an MLIR-style diagnostic at the
author's own line: ``file:line:col: error: message``, followed by that source line and a caret.
"""

from __future__ import annotations

import linecache
from collections.abc import Sequence

from ..ir.core.location import CallSiteLoc, Location


class CompileError(Exception):
    """A diagnostic about the user's program (``file:line:col: error: ...``).

    ``diagnostics`` holds ``(location, message)`` pairs: the first is the error, the others are
    notes (e.g. where a conflicting value was defined). ``location`` and ``message`` are the
    error's own, for tests and tools that want them without parsing the text.

    ``internal`` is False: the error is about the user's program, so the public entry points
    show it without layoutc's frames (:mod:`.tracebacks`); bugs in layoutc set it to True.
    """

    internal: bool = False

    def __init__(
        self,
        message: str,
        location: Location | None = None,
        notes: Sequence[tuple[str, Location | None]] = (),
        severity: str = "error",
    ):
        self.message = message
        self.location = location
        self.notes = list(notes)
        self.severity = severity
        super().__init__(self.render())

    def render(self) -> str:
        """The diagnostic text: the error line, the source excerpt, then the notes."""
        lines = diagnostic_lines(self.severity, self.message, self.location)
        for caller in call_sites(self.location):
            lines.extend(diagnostic_lines("note", "called from here", caller))
        for message, loc in self.notes:
            lines.extend(diagnostic_lines("note", message, loc))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class NotSupportedError(CompileError):
    """A construct layoutc does not implement (yet): always says "not supported: ..."."""


def call_sites(location: Location | None) -> list[Location]:
    """The callers of a call-site location, innermost first (helper -> kernel)."""
    out: list[Location] = []
    while isinstance(location, CallSiteLoc):
        caller = location.caller
        out.append(caller.callee if isinstance(caller, CallSiteLoc) else caller)
        location = caller
    return out


def location_prefix(location: Location | None) -> str:
    """``file:line:col: `` for a location that carries one, else ``""``."""
    flc = location.file_line_col() if location is not None else None
    if flc is None:
        return ""
    return f"{flc[0]}:{flc[1]}:{flc[2]}: "


def source_excerpt(location: Location | None) -> list[str]:
    """The source line of ``location`` and a caret under its column (empty if unavailable)."""
    flc = location.file_line_col() if location is not None else None
    if flc is None:
        return []
    text = linecache.getline(flc[0], flc[1])
    if not text:
        return []
    text = text.rstrip("\n").expandtabs(1)
    return [text, " " * max(flc[2] - 1, 0) + "^"]


def diagnostic_lines(severity: str, message: str, location: Location | None) -> list[str]:
    return [f"{location_prefix(location)}{severity}: {message}", *source_excerpt(location)]
