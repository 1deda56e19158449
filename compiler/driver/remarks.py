"""Remarks and warnings of a compilation: collected from the passes' diagnostics, kept on the
compiled kernel (``ck.remarks``), stored in the compile cache and printed on request.

They are plain data (text and a ``file:line:col`` string), so a cached kernel reports the same
remarks as a freshly compiled one without any IR in memory.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO


@dataclass(frozen=True)
class Remark:
    """One remark (or warning) with its location in the user's program and its notes."""

    severity: str  # "remark" or "warning"
    message: str
    location: str | None = None  # "file:line:col", or None when the compiler had none
    notes: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        head = f"{self.location}: " if self.location else ""
        lines = [f"{head}{self.severity}: {self.message}"]
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "message": self.message,
            "location": self.location,
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Remark:
        return cls(data["severity"], data["message"], data.get("location"), tuple(data["notes"]))


def location_text(loc: Any) -> str | None:
    """``file:line:col`` of an IR location, or None."""
    flc = loc.file_line_col() if loc is not None else None
    if flc is None:
        return None
    return f"{flc[0]}:{flc[1]}:{flc[2]}"


def from_diagnostic(diag: Any) -> Remark:
    return Remark(
        diag.severity.label,
        diag.message,
        location_text(diag.location),
        tuple(n.message for n in diag.notes),
    )


def format_remarks(remarks: Iterable[Remark]) -> str:
    return "".join(f"{r}\n" for r in remarks)


def print_remarks(remarks: Iterable[Remark], kernel: str, stream: TextIO | None = None) -> None:
    """Print remarks to stderr, after a line naming the kernel they belong to."""
    items = list(remarks)
    out = stream if stream is not None else sys.stderr
    out.write(f"// layoutc remarks for kernel '{kernel}' ({len(items)})\n{format_remarks(items)}")
