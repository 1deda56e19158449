"""Shared pieces of the tile ops: builder errors, type signatures in custom assembly, and the
checks every tensor op repeats.

Custom forms end with the op's signature, ``: T`` for one operand type or
``: (T1, T2) -> R`` when there are results, as the layout dialect prints them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.diagnostics import Diagnostic, DiagnosticError, Severity
from ...core.errors import VerifyError
from ...core.location import Location, UnknownLoc
from ...core.types import Type, result_list_text
from .inference import symbol_notes
from .spaces import COORD, SPACE_DESCRIPTIONS
from .types import TensorType

__all__ = [
    "build_error",
    "parse_signature",
    "print_signature",
    "require_memory_tensor",
]


def build_error(
    op_name: str, message: str, loc: Location | None, operand_types: Sequence[Type] = ()
) -> DiagnosticError:
    """The error a builder raises: a diagnostic at ``loc`` (the user's line)."""
    diag = Diagnostic(Severity.ERROR, f"'{op_name}' op {message}", loc or UnknownLoc())
    for note in symbol_notes(message, operand_types):
        diag.attach_note(note)
    return DiagnosticError([diag])


def print_signature(
    p: OpAsmPrinter, operand_types: Sequence[Type], results: Sequence[Type]
) -> None:
    """`` : T``, `` : T1, T2`` (no results) or `` : (T1, T2) -> R``."""
    ins = ", ".join(t.text for t in operand_types)
    if not results:
        p.write(f" : {ins}")
    elif len(operand_types) == 1:
        p.write(f" : {ins} -> {result_list_text(results)}")
    else:
        p.write(f" : ({ins}) -> {result_list_text(results)}")


def parse_signature(
    p: OpAsmParser, num_operands: int, has_results: bool
) -> tuple[list[Type], list[Type]]:
    """Inverse of :func:`print_signature`."""
    p.expect(":")
    if not has_results:
        return (p.parse_type_list() if num_operands else []), []
    if num_operands == 1:
        t = p.parse_type()
        return [t], p.parse_arrow_type_list()
    at = p.pos
    fn = p.parse_function_type()
    if len(fn.inputs) != num_operands:
        raise p.error(f"expected {num_operands} operand types, got {len(fn.inputs)}", at)
    return list(fn.inputs), list(fn.results)


def require_memory_tensor(t: Any, what: str) -> TensorType:
    """``t`` must be a tensor in gmem/smem/rmem (not a coordinate tensor)."""
    if not isinstance(t, TensorType):
        raise VerifyError(f"{what} must be a !tile.tensor, got '{t.text}'")
    if t.space == COORD:
        raise VerifyError(
            f"{what} is a coordinate tensor ({SPACE_DESCRIPTIONS[COORD]}), which has no memory"
        )
    return t
