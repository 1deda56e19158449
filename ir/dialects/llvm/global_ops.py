"""LLVM dialect globals: ``llvm.mlir.global`` and ``llvm.mlir.addressof``.

Shared memory is an ``addr_space = 3`` global (a zero-sized external one for dynamic shared
memory); ``llvm.mlir.addressof`` gives its address as ``!llvm.ptr<3>``.
"""

from __future__ import annotations

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import (
    Attribute,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ...core.block import Region
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import opt_prop, prop, region, result
from ...core.operation import Operation
from ...core.symbols import lookup_nearest_symbol_from
from ...core.traits import IsolatedFromAbove, Pure, Symbol
from ...core.types import IntegerType, Type, i32, i64
from .attributes import LinkageAttr
from .common import I32Attr, I64Attr, Pointer, check_alignment
from .types import LLVMArrayType, LLVMPointerType, is_llvm_type

_TypeAttr = Constraint(lambda a: isinstance(a, TypeAttr) and is_llvm_type(a.type), "LLVM type")
_FlatRef = Constraint(lambda a: isinstance(a, SymbolRefAttr) and a.is_flat, "flat symbol reference")
_FLAG_KEYWORDS = {"constant": "constant", "thread_local": "thread_local_"}


class GlobalOp(Operation):
    """``llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64}
    : !llvm.array<256 x f32>``; an optional ``(value)`` initialises a scalar or an i8 array."""

    name = "llvm.mlir.global"
    traits = (IsolatedFromAbove, Symbol())
    global_type = prop(_TypeAttr)
    constant = opt_prop(UnitAttr)
    sym_name = prop(StringAttr)
    linkage = prop(LinkageAttr)
    dso_local = opt_prop(UnitAttr)
    thread_local_ = opt_prop(UnitAttr)
    externally_initialized = opt_prop(UnitAttr)
    value = opt_prop((IntegerAttr, FloatAttr, StringAttr))
    alignment = opt_prop(I64Attr)
    addr_space = prop(I32Attr, default=IntegerAttr(0, i32))
    unnamed_addr = opt_prop(I64Attr)
    section = opt_prop(StringAttr)
    visibility_ = prop(I64Attr, default=IntegerAttr(0, i64))
    initializer = region()

    def __init__(
        self,
        sym_name: str,
        global_type: Type,
        *,
        linkage: str = "internal",
        addr_space: int = 0,
        alignment: int | None = None,
        value: Attribute | None = None,
        constant: bool = False,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "global_type": TypeAttr(global_type),
            "linkage": LinkageAttr(linkage),
            "addr_space": IntegerAttr(addr_space, i32),
        }
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        if value is not None:
            props["value"] = value
        if constant:
            props["constant"] = UnitAttr()
        super().__init__(properties=props, regions=[Region()], loc=loc)

    @property
    def type(self) -> Type:
        return self.global_type.type

    @property
    def address_space(self) -> int:
        return self.addr_space.value

    def verify_(self) -> None:
        check_alignment(self.alignment)
        if self.addr_space.value < 0:
            raise VerifyError("address space must be non-negative")
        if self.initializer.blocks:
            raise VerifyError(
                "not supported: initializer regions; give the initial value as an attribute"
            )
        v, t = self.value, self.type
        if isinstance(v, StringAttr):
            n = len(v.value.encode("utf-8"))
            if not (
                isinstance(t, LLVMArrayType) and t.element_type is IntegerType(8) and t.size == n
            ):
                raise VerifyError(f"a string initializer needs type '!llvm.array<{n} x i8>'")
        elif v is not None and v.type is not t:
            raise VerifyError(
                f"initial value of type '{v.type.text}' does not match the global type '{t.text}'"
            )
        if self.address_space == 3 and v is not None:
            raise VerifyError("shared-memory globals (address space 3) cannot be initialised")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(f" {self.linkage.value}")
        if self.constant is not None:
            p.write(" constant")
        if self.thread_local_ is not None:
            p.write(" thread_local")
        p.write(" ")
        p.print_symbol_name(self.sym_name.value)
        p.write("(")
        if self.value is not None:
            p.print_attribute(self.value)
        p.write(")")
        p.print_attr_dict(
            self,
            elided=(
                "sym_name",
                "global_type",
                "linkage",
                "value",
                "constant",
                "thread_local_",
                "visibility_" if self.visibility_.value == 0 else "",
                "addr_space" if self.addr_space.value == 0 else "",
            ),
        )
        p.write(f" : {self.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> GlobalOp:
        props: dict[str, Attribute] = {}
        at = p.pos
        word = p.parse_keyword()
        if word not in LinkageAttr.KEYWORDS:
            raise p.error(
                f"expected a linkage ({', '.join(LinkageAttr.KEYWORDS)}), found '{word}'", at
            )
        props["linkage"] = LinkageAttr(word)
        while p.peek() in _FLAG_KEYWORDS:
            props[_FLAG_KEYWORDS[p.advance()]] = UnitAttr()
        props["sym_name"] = StringAttr(p.parse_symbol_name())
        p.expect("(", "after the global's name")
        if not p.accept(")"):
            props["value"] = p.parse_attribute()
            p.expect(")", "after the initial value")
        attrs = p.parse_optional_attr_dict()
        for k in [k for k in attrs if k in cls._def.props]:  # type: ignore[union-attr]
            props[k] = attrs.pop(k)
        value = props.get("value")
        if isinstance(value, StringAttr) and p.peek() != ":":
            # Upstream leaves out the type of a string-initialised global: an i8 array of its
            # bytes.
            size = len(value.value.encode("utf-8"))
            props["global_type"] = TypeAttr(LLVMArrayType(size, IntegerType(8)))
        else:
            props["global_type"] = TypeAttr(p.parse_colon_type())
        props.setdefault("addr_space", IntegerAttr(0, i32))
        props.setdefault("visibility_", IntegerAttr(0, i64))
        return cls.create(properties=props, attributes=attrs, regions=[Region()], loc=p.loc)


class AddressOfOp(Operation):
    """``%p = llvm.mlir.addressof @smem : !llvm.ptr<3>``."""

    name = "llvm.mlir.addressof"
    assembly_format = "$global_name attr-dict `:` type($res)"
    traits = (Pure,)
    global_name = prop(_FlatRef)
    res = result(Pointer)

    def __init__(self, global_op: GlobalOp | str, result_type: Type | None = None, loc=None):
        if isinstance(global_op, GlobalOp):
            name = global_op.sym_name.value
            result_type = result_type or LLVMPointerType(global_op.address_space)
        else:
            name = global_op
        if result_type is None:
            raise TypeError("AddressOfOp needs the global op or an explicit result type")
        super().__init__(
            result_types=[result_type], properties={"global_name": SymbolRefAttr(name)}, loc=loc
        )

    def verify_(self) -> None:
        target = lookup_nearest_symbol_from(self, self.global_name)
        if target is None:
            if self.parent_op is None:
                return
            raise VerifyError("must reference a global defined by 'llvm.mlir.global'")
        if not isinstance(target, GlobalOp):
            raise VerifyError(f"'{self.global_name.root}' is not an 'llvm.mlir.global'")
        if self.res.type.address_space != target.address_space:
            raise VerifyError(
                "pointer address space must match address space of the referenced global"
            )


GLOBAL_OPS: list[type[Operation]] = [GlobalOp, AddressOfOp]
