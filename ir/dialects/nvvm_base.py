"""Base classes shared by the nvvm dialect's modules (nvvm.py, nvvm_sm90.py)."""

from __future__ import annotations

from typing import ClassVar

from ..core.attr_parser import AttrParser
from ..core.attributes import DialectAttribute
from ..core.constraints import Constraint
from ..core.location import Location
from ..core.opdef import result
from ..core.operation import Operation
from ..core.traits import Pure
from ..core.types import i32

_I32 = Constraint(lambda t: t is i32, "i32", exact=i32)


class _EnumAttr(DialectAttribute):
    """One keyword of a fixed set, printed ``#nvvm.<mnemonic><keyword>`` (MLIR's forms)."""

    __slots__ = ("value",)
    value: str
    VALUES: ClassVar[tuple[str, ...]] = ()

    def __new__(cls, value: str):
        inst = cls._instances.get(value)
        if inst is not None:
            return inst
        if value not in cls.VALUES:
            raise ValueError(
                f"'{value}' is not a valid {cls.name}; expected one of {', '.join(cls.VALUES)}"
            )
        return cls._unique(value, value=value)

    def __reduce__(self):
        return (type(self), (self.value,))

    @classmethod
    def _parse_value(cls, parser: AttrParser) -> _EnumAttr:
        at = parser.pos
        word = parser.parse_keyword()
        if word not in cls.VALUES:
            raise parser.error(
                f"expected one of {', '.join(cls.VALUES)} for {cls.name}, got '{word}'", at
            )
        return cls(word)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> _EnumAttr:
        parser.expect("<", f"after '#{cls.name}'")
        attr = cls._parse_value(parser)
        parser.expect(">", f"to close '#{cls.name}'")
        return attr

    def print_parameters(self) -> str:
        return f"<{self.value}>"


class _NamespaceEnumAttr(_EnumAttr):
    """An enum upstream declares without an assembly format: it prints in the dialect
    namespace form, ``#nvvm<mnemonic keyword>``; the bracketed ``#nvvm.mnemonic<keyword>`` is
    read too."""

    __slots__ = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> _EnumAttr:
        if parser.peek() == "<":
            return super().parse_parameters(parser)
        return cls._parse_value(parser)

    def print_parameters(self) -> str:
        return f" {self.value}"

    def _print(self) -> str:
        return f"#nvvm<{self.name.split('.', 1)[1]} {self.value}>"


class SpecialRegisterOp(Operation):
    """``%t = nvvm.read.ptx.sreg.tid.x : i32``: read a PTX special register."""

    assembly_format = "attr-dict `:` type($res)"

    traits = (Pure,)
    res = result(_I32)
    register: ClassVar[str] = ""

    def __init__(self, loc: Location | None = None):
        super().__init__(result_types=[i32], loc=loc)


class _NoOperandOp(Operation):
    assembly_format = "attr-dict"

    def __init__(self, loc: Location | None = None):
        super().__init__(loc=loc)
