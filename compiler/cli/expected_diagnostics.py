"""``--verify-diagnostics``: match emitted diagnostics against annotations in the input.

Annotations follow MLIR exactly::

    %x = "foo.bar"() : () -> i32  // expected-error {{custom op 'foo.bar' is unknown}}
    // expected-error@+1 {{failed to verify}}       the next line (also @-2, @+3, ...)
    // expected-note@above {{...}}                  the last line without an annotation
    // expected-warning@below {{...}}               the next line without an annotation
    // expected-remark@unknown {{...}}              a diagnostic without a file location
    // expected-error-re {{value {{[0-9]+}} is}}    regular expressions inside {{ }}

A diagnostic matches an annotation on its line with the same severity whose text it contains
(or whose regex it matches). Notes attached to diagnostics are matched as diagnostics of their
own. Unexpected diagnostics and annotations nothing matched are reported as errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from layoutc.ir.core.diagnostics import Diagnostic, Severity
from layoutc.ir.core.location import FileLineColLoc, UnknownLoc

_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
    r"\{\{(.*)\}\}$"
)
_SEVERITY = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "remark": Severity.REMARK,
    "note": Severity.NOTE,
}


def _regex_from(text: str) -> re.Pattern[str]:
    """``a {{x+}} b`` -> literal ``a `` + regex ``x+`` + literal `` b``."""
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            parts.append(re.escape(text[pos:]))
            break
        end = text.find("}}", start + 2)
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        parts.append(re.escape(text[pos:start]))
        parts.append(f"(?:{text[start + 2 : end]})")
        pos = end + 2
    return re.compile("".join(parts))


@dataclass
class Expectation:
    severity: Severity
    message: str
    line: int | None  # None: a diagnostic without a file location (@unknown)
    location: FileLineColLoc
    regex: re.Pattern[str] | None = None
    matched: bool = False

    def matches(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.search(text) is not None
        return self.message in text


class ExpectedDiagnostics:
    """The annotations of one buffer and the diagnostics seen so far."""

    def __init__(self, text: str, buffer_name: str, line_offset: int = 0):
        self.buffer_name = buffer_name
        self.expectations: list[Expectation] = []
        self.problems: list[Diagnostic] = []
        self._parse(text, line_offset)

    def _parse(self, text: str, line_offset: int) -> None:
        lines = text.split("\n")
        last_plain = line_offset  # 1-based number of the last line without an annotation
        below: list[Expectation] = []
        for index, raw in enumerate(lines):
            number = line_offset + index + 1
            m = _EXPECTED.search(raw.rstrip())
            if m is None:
                for e in below:
                    e.line = number
                below.clear()
                last_plain = number
                continue
            kind, is_regex, _, where, message = m.groups()
            loc = FileLineColLoc(self.buffer_name, number, m.start() + 1)
            regex = None
            if is_regex:
                try:
                    regex = _regex_from(message)
                except (ValueError, re.error) as err:
                    self.problems.append(
                        Diagnostic(Severity.ERROR, f"invalid regular expression: {err}", loc)
                    )
                    continue
            e = Expectation(_SEVERITY[kind], message, number, loc, regex)
            if where is not None:
                if where == "unknown":
                    e.line = None
                elif where == "above":
                    e.line = last_plain
                elif where == "below":
                    e.line = line_offset + len(lines)  # if nothing follows
                    below.append(e)
                else:
                    e.line = number + int(where)
            self.expectations.append(e)

    # -- matching ----------------------------------------------------------------------------------
    def handle(self, diag: Diagnostic) -> bool:
        """DiagnosticEngine handler: consume ``diag`` (and its notes), checking each."""
        self._check(diag)
        for note in diag.notes:
            self._check(note)
        return True

    def _check(self, diag: Diagnostic) -> None:
        flc = diag.location.file_line_col()
        if flc is None:
            line: int | None = None
        elif flc[0] == self.buffer_name:
            line = flc[1]
        else:
            self._unexpected(diag)
            return
        near: Expectation | None = None
        best: Expectation | None = None
        for e in self.expectations:
            if e.line != line or not e.matches(diag.message):
                continue
            if e.severity is diag.severity:
                if not e.matched:
                    best = e
                    break
                best = best or e
            else:
                near = near or e
        if best is not None:
            best.matched = True
            return
        if near is not None:
            self.problems.append(
                Diagnostic(
                    Severity.ERROR,
                    f"'{diag.severity.label}' diagnostic emitted when expecting a "
                    f"'{near.severity.label}'",
                    near.location,
                )
            )
            return
        self._unexpected(diag)

    def _unexpected(self, diag: Diagnostic) -> None:
        self.problems.append(
            Diagnostic(
                Severity.ERROR,
                f"unexpected {diag.severity.label}: {diag.message}",
                diag.location if diag.location is not None else UnknownLoc(),
            )
        )

    def finish(self) -> list[Diagnostic]:
        """Every mismatch: unexpected diagnostics, then annotations nothing matched."""
        out = list(self.problems)
        for e in self.expectations:
            if not e.matched:
                out.append(
                    Diagnostic(
                        Severity.ERROR,
                        f'expected {e.severity.label} "{e.message}" was not produced',
                        e.location,
                    )
                )
        return out
