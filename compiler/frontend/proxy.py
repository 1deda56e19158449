"""The protocol of DSL objects that stand for run-time (SSA) values.

Control flow needs to move such objects across region boundaries: a dynamic ``if`` yields the
SSA values of each variable assigned in its branches, a dynamic loop carries them as iter_args.
Every such object (a scalar, a tensor, a coordinate tuple of scalars, ...) can list its SSA
values, describe its static part (what must agree between two branches), and rebuild itself
from new SSA values of the same types.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ..ir.core.values import Value


class TraceValue:
    """Base of DSL objects backed by SSA values."""

    __slots__ = ()

    def _lc_values(self) -> list[Value]:
        """The SSA values this object is made of, in a fixed order."""
        raise NotImplementedError

    def _lc_signature(self) -> Hashable:
        """The static part: two objects with equal signatures can be merged by their values."""
        raise NotImplementedError

    def _lc_rebuild(self, values: Sequence[Value]) -> Any:
        """An object like this one over ``values`` (same count and types)."""
        raise NotImplementedError

    def _lc_describe(self) -> str:
        """A short description for diagnostics (``a dynamic index``, ``a tensor f32 ...``)."""
        return type(self).__name__
