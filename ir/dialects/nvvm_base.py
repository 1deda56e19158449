"""Base classes shared by the nvvm dialect's modules (nvvm.py, nvvm_sm90.py, nvvm_wgmma.py);
its enum attributes derive from the core's `EnumAttr`/`NamespaceEnumAttr`."""

from __future__ import annotations

from typing import ClassVar

from ..core.constraints import Constraint
from ..core.location import Location
from ..core.opdef import result
from ..core.operation import Operation
from ..core.traits import Pure
from ..core.types import i32

_I32 = Constraint(lambda t: t is i32, "i32", exact=i32)


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
