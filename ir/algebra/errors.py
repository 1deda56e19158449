"""Errors raised by the layout algebra.

Every inadmissible operation raises `LayoutError` with a message that names the operation, the
operands and the condition that failed (or could not be proven for symbolic values), so that the
front end can turn it into a diagnostic at the user's line.
"""

from __future__ import annotations


class LayoutError(ValueError):
    """An algebra operation whose precondition fails or cannot be proven."""


class LayoutZeroDivisionError(LayoutError, ZeroDivisionError):
    """A division by zero in the algebra (a zero stride or divisor in the operands): a
    `LayoutError`, so that front ends report it, and still a `ZeroDivisionError`."""


class LayoutParseError(LayoutError):
    """CuTe notation that does not parse; `pos` is the 0-based character offset."""

    def __init__(self, message: str, text: str, pos: int):
        self.text = text
        self.pos = pos
        shown, at = text, pos
        if len(text) > 120:  # a window around the error, not megabytes of input
            lo = max(0, pos - 50)
            shown = (
                ("..." if lo else "")
                + text[lo : pos + 50]
                + ("..." if pos + 50 < len(text) else "")
            )
            at = pos - lo + (3 if lo else 0)
        caret = " " * at + "^"
        super().__init__(f"{message} at position {pos}\n  {shown}\n  {caret}")
