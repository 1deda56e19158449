"""The LLVM dialect's pointer type ``!llvm.ptr`` / ``!llvm.ptr<3>`` (MLIR's spelling).

Only the type for now: lowering passes need pointers with address spaces before the llvm ops
exist. The llvm ops module will take over the ``llvm`` registry entry and include this type.
"""

from __future__ import annotations

from ..core.attr_parser import AttrParser
from ..core.context import Dialect
from ..core.types import DialectType


class LLVMPointerType(DialectType):
    """An opaque pointer in an address space (0 generic, 1 global, 3 shared on NVPTX)."""

    __slots__ = ("address_space",)
    name = "llvm.ptr"
    address_space: int

    def __new__(cls, address_space: int = 0) -> LLVMPointerType:
        inst = cls._instances.get(address_space)
        if inst is not None:
            return inst
        if (
            not isinstance(address_space, int)
            or isinstance(address_space, bool)
            or not 0 <= address_space < 1 << 24
        ):
            raise ValueError(f"invalid address space {address_space!r}")
        return cls._unique(address_space, address_space=address_space)

    def __reduce__(self):
        return (LLVMPointerType, (self.address_space,))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> LLVMPointerType:
        if not parser.accept("<"):
            return cls(0)
        at = parser.pos
        space = parser.parse_integer()
        if space < 0:
            raise parser.error("address space must be non-negative", at)
        parser.expect(">", "after address space")
        return cls(space)

    def print_parameters(self) -> str:
        return f"<{self.address_space}>" if self.address_space else ""


DIALECT = Dialect("llvm", types=[LLVMPointerType])
