"""Exceptions used inside the IR core.

``VerifyError`` is what an op's ``verify_()`` (or a trait) raises; the verifier turns it into a
diagnostic located at the op. ``IRError`` reports misuse of the Python API (erasing an op whose
results are still used, inserting an op that already has a parent, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .location import Location


class VerifyError(Exception):
    """An op-level verification failure; ``notes`` are (message, location-or-None) pairs.

    ``at`` names another op (e.g. a nested symbol) to report the error on instead of the op
    being verified.
    """

    def __init__(
        self,
        message: str,
        notes: Sequence[tuple[str, Location | None]] = (),
        at: Any = None,
    ):
        super().__init__(message)
        self.message = message
        self.notes = list(notes)
        self.at = at


class IRError(Exception):
    """Misuse of the IR construction/mutation API."""
