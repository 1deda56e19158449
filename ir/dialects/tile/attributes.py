"""Attributes of the tile dialect: ``#tile.copy_atom<"name", bits>`` and
``#tile.mma_atom<"name">``, which name entries of the atom registry (:mod:`.atoms`).

An unknown name or width is rejected when the attribute is made (a parse error with the valid
choices), so an attribute in the IR always resolves to its registry entry (``attr.op``).
"""

from __future__ import annotations

from ...core.attr_parser import AttrParser
from ...core.attributes import DialectAttribute, quote_string
from .atoms import CopyOperation, MMAOperation, copy_operation, mma_operation

__all__ = ["CopyAtomAttr", "MMAAtomAttr"]


class CopyAtomAttr(DialectAttribute):
    """``#tile.copy_atom<"cp.async.ca", 128>``: a copy operation and its width in bits."""

    __slots__ = ("op",)
    name = "tile.copy_atom"
    op: CopyOperation

    def __new__(cls, atom_name: str, bits: int) -> CopyAtomAttr:
        key = (atom_name, bits)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        op = copy_operation(atom_name, bits)
        return cls._unique(key, op=op)

    def __reduce__(self):
        return (CopyAtomAttr, (self.op.name, self.op.bits))

    @property
    def atom_name(self) -> str:
        return self.op.name

    @property
    def bits(self) -> int:
        return self.op.bits

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> CopyAtomAttr:
        parser.expect("<", "after '#tile.copy_atom'")
        at = parser.pos
        name = parser.parse_string()
        parser.expect(",", "after the copy atom name")
        bits = parser.parse_integer()
        parser.expect(">", "to close '#tile.copy_atom'")
        try:
            return cls(name, bits)
        except ValueError as e:
            raise parser.error(str(e), at) from None

    def print_parameters(self) -> str:
        return f"<{quote_string(self.op.name)}, {self.op.bits}>"


class MMAAtomAttr(DialectAttribute):
    """``#tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">`` (or ``"FMA"``)."""

    __slots__ = ("op",)
    name = "tile.mma_atom"
    op: MMAOperation

    def __new__(cls, atom_name: str) -> MMAAtomAttr:
        inst = cls._instances.get(atom_name)
        if inst is not None:
            return inst
        op = mma_operation(atom_name)
        return cls._unique(atom_name, op=op)

    def __reduce__(self):
        return (MMAAtomAttr, (self.op.name,))

    @property
    def atom_name(self) -> str:
        return self.op.name

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> MMAAtomAttr:
        parser.expect("<", "after '#tile.mma_atom'")
        at = parser.pos
        name = parser.parse_string()
        parser.expect(">", "to close '#tile.mma_atom'")
        try:
            return cls(name)
        except ValueError as e:
            raise parser.error(str(e), at) from None

    def print_parameters(self) -> str:
        return f"<{quote_string(self.op.name)}>"
