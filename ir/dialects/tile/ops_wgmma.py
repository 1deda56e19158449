"""Hopper warpgroup MMA in the tile dialect: ``tile.wgmma_desc`` and ``tile.wgmma``.

``lower-algorithms`` turns a ``tile.gemm`` whose atom is a warpgroup MMA
(``SM90_64xNx16_F32BF16BF16_SS``...) into, per (k, m, n) step: one ``tile.wgmma_desc`` per
shared-memory operand tile (the 64-bit matrix descriptor: the static LBO/SBO/layout-type bits
that the proof of canonicity found, ``ir/dialects/tile/gmma.py``, OR-ed with the tile's
shared-memory start address) and one ``tile.wgmma`` on the two descriptors and the thread's
accumulator values. ``convert-to-llvm`` makes them ``nvvm.wgmma.mma_async``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...algebra import size
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import DenseArrayAttr, IntegerAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand, var_result
from ...core.operation import Operation
from ...core.traits import AttrSizedOperandSegments, Pure, RequiresTarget
from ...core.types import IndexType, i32, i64
from ...core.values import Value
from .attributes import MMAAtomAttr
from .base import build_error
from .spaces import SMEM
from .types import PtrType, element_name

__all__ = ["WGMMA_OPS", "FenceOperandOp", "WgmmaDescOp", "WgmmaOp", "WgmmaRSOp"]

_SmemPtr = Constraint(
    lambda t: isinstance(t, PtrType) and t.space == SMEM, "!tile.ptr in shared memory"
)
_Index = Constraint(lambda t: isinstance(t, IndexType), "index", exact=IndexType())
_I64 = Constraint(lambda t: t is i64, "i64")
_Int = Constraint(lambda a: isinstance(a, IntegerAttr), "integer")


class WgmmaDescOp(Operation):
    """``%d = tile.wgmma_desc %p[%off] {bits = 4611686293305294848 : i64} :
    !tile.ptr<bf16, smem, 1024> -> i64``: the matrix descriptor of the operand tile starting
    ``%off`` elements (before any swizzle) past ``%p``: ``bits | ((address >> 4) & 0x3FFF)``
    with ``address`` the shared-window byte address."""

    name = "tile.wgmma_desc"
    assembly_format = "$ptr `[` $offset `]` attr-dict `:` type($ptr) `->` type($res)"
    traits = (Pure,)
    ptr = operand(_SmemPtr)
    offset = operand(_Index)
    res = result()
    bits = prop(_Int)

    def __init__(self, ptr: Value, offset: Value, bits: int, loc: Location | None = None):
        super().__init__(
            operands=[ptr, offset],
            result_types=[i64],
            properties={"bits": IntegerAttr(_signed64(bits), i64)},
            loc=loc,
        )

    def verify_(self) -> None:
        if self.bits.value & 0x3FFF:
            raise VerifyError("the static bits must leave the start-address field [0,14) zero")
        if self.res.type is not i64:
            raise VerifyError("the descriptor is an i64")


def _signed64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _verify_scale_d(op: Operation) -> None:
    if op.scale_d is not None and op.scale_d.value not in (0, 1):
        raise VerifyError(f"scale_d = {op.scale_d.value} is not 0 or 1")


def scale_d_of(op: Operation) -> int:
    """The op's scale-d: 0 (D = A * B) or 1 (D = A * B + C, the default)."""
    return 1 if op.scale_d is None else op.scale_d.value


class WgmmaOp(Operation):
    """``%d:4 = tile.wgmma #tile.mma_atom<"SM90_64x8x16_F32BF16BF16_SS"> %da, %db, (%c0, %c1,
    %c2, %c3) {transpose_a = 0 : i32, transpose_b = 0 : i32} : f32 -> f32``: one
    ``wgmma.mma_async`` of the warpgroup (D = A*B + C), A and B through their matrix descriptors
    (``transpose_*`` 1: the operand is MN-major), C and D the thread's accumulator values in the
    atom's value order. Asynchronous: its results are defined once a
    ``wgmma.wait_group`` has retired it. It reads shared memory (no memory-effect trait: it is
    never reordered with stores or barriers)."""

    name = "tile.wgmma"
    traits = (RequiresTarget("sm_90a", "wgmma"),)
    desc_a = operand(_I64)
    desc_b = operand(_I64)
    c = var_operand()
    d = var_result()
    atom = prop(MMAAtomAttr)
    transpose_a = prop(_Int)
    transpose_b = prop(_Int)
    scale_d = opt_prop(_Int)  # 0: D = A * B (C's values ignored); absent: D = A * B + C

    def __init__(
        self,
        atom: MMAAtomAttr,
        desc_a: Value,
        desc_b: Value,
        c: Sequence[Value],
        transpose_a: int = 0,
        transpose_b: int = 0,
        loc: Location | None = None,
        scale_d: int = 1,
    ):
        if not c:
            raise build_error(self.name, "needs the C values", loc)
        props = {
            "atom": atom,
            "transpose_a": IntegerAttr(transpose_a, i32),
            "transpose_b": IntegerAttr(transpose_b, i32),
        }
        if scale_d != 1:
            props["scale_d"] = IntegerAttr(scale_d, i32)
        super().__init__(
            operands=[desc_a, desc_b, list(c)],
            result_types=[[v.type for v in c]],
            properties=props,
            loc=loc,
        )

    def verify_(self) -> None:
        op = self.atom.op
        if op.wgmma is None or op.wgmma.a_from_registers:
            raise VerifyError(f"atom '{op.name}' is not a shared-memory (SS) warpgroup MMA")
        _verify_accumulators(op, self.c, self.d)
        _verify_scale_d(self)
        for name in ("transpose_a", "transpose_b"):
            v = getattr(self, name).value
            if v not in (0, 1) or (v and not op.wgmma.transpose):
                raise VerifyError(f"{name} = {v} is not valid for atom '{op.name}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_attribute(self.atom)
        p.write(" ")
        p.print_operands([self.desc_a, self.desc_b])
        p.write(", (")
        p.print_operands(self.c)
        p.write(")")
        p.print_attr_dict(self, elided=("atom",))
        if self.c and self.d:
            p.write(f" : {self.c[0].type.text} -> {self.d[0].type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> WgmmaOp:
        atom = p.parse_attribute()
        da = p.parse_operand()
        p.expect(",")
        db = p.parse_operand()
        p.expect(",")
        cs = p.parse_operand_list("(")
        attrs = p.parse_optional_attr_dict()
        ct = dt = None
        if cs:
            ct = p.parse_colon_type()
            p.expect("->")
            dt = p.parse_type()
        props = {"atom": atom}
        for k in ("transpose_a", "transpose_b", "scale_d"):
            if k in attrs:
                props[k] = attrs.pop(k)
        values = [p.resolve_operand(da, i64), p.resolve_operand(db, i64)]
        values += p.resolve_operands(cs, [ct] * len(cs))
        return cls.create(values, [dt] * len(cs), properties=props, attributes=attrs, loc=p.loc)


class WgmmaRSOp(Operation):
    """``%d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a0, ..., %a7), %db,
    (%c0, %c1, %c2, %c3) {transpose_b = 0 : i32} : f16, f32 -> f32``: one ``wgmma.mma_async``
    of the warpgroup with A from registers (CuTe's ``_RS`` atoms): ``a`` are the thread's A
    values in the order of the atom's A layout (``GMMA::ALayout_64x16``...: warp w holds rows
    16w..16w+15), B comes through its matrix descriptor (``transpose_b`` 1: MN-major, 16-bit
    types only), C and D as for ``tile.wgmma``. A from registers is always K-major (PTX has no
    imm-trans-a in this form)."""

    name = "tile.wgmma_rs"
    traits = (AttrSizedOperandSegments, RequiresTarget("sm_90a", "wgmma"))
    a = var_operand()
    desc_b = operand(_I64)
    c = var_operand()
    d = var_result()
    atom = prop(MMAAtomAttr)
    transpose_b = prop(_Int)
    scale_d = opt_prop(_Int)  # 0: D = A * B (C's values ignored); absent: D = A * B + C

    def __init__(
        self,
        atom: MMAAtomAttr,
        a: Sequence[Value],
        desc_b: Value,
        c: Sequence[Value],
        transpose_b: int = 0,
        loc: Location | None = None,
        scale_d: int = 1,
    ):
        if not c or not a:
            raise build_error(self.name, "needs the A and C values", loc)
        props = {"atom": atom, "transpose_b": IntegerAttr(transpose_b, i32)}
        if scale_d != 1:
            props["scale_d"] = IntegerAttr(scale_d, i32)
        super().__init__(
            operands=[list(a), desc_b, list(c)],
            result_types=[[v.type for v in c]],
            properties=props,
            loc=loc,
        )

    def verify_(self) -> None:
        op = self.atom.op
        if op.wgmma is None or not op.wgmma.a_from_registers:
            raise VerifyError(f"atom '{op.name}' is not a register-A (RS) warpgroup MMA")
        want_a = size(op.layout_a, 1)
        if len(self.a) != want_a:
            raise VerifyError(
                f"atom '{op.name}' takes {want_a} A values per thread, got {len(self.a)}"
            )
        a_types = {element_name(v.type) for v in self.a}
        if len(a_types) != 1 or next(iter(a_types)) not in op.accepts_a:
            raise VerifyError(
                f"atom '{op.name}' takes A values of one type among "
                f"{', '.join(sorted(op.accepts_a))}, got {', '.join(sorted(map(str, a_types)))}"
            )
        _verify_accumulators(op, self.c, self.d)
        _verify_scale_d(self)
        v = self.transpose_b.value
        if v not in (0, 1) or (v and not op.wgmma.transpose):
            raise VerifyError(f"transpose_b = {v} is not valid for atom '{op.name}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_attribute(self.atom)
        p.write(" (")
        p.print_operands(self.a)
        p.write("), ")
        p.print_operand(self.desc_b)
        p.write(", (")
        p.print_operands(self.c)
        p.write(")")
        p.print_attr_dict(self, elided=("atom", "operandSegmentSizes"))
        if self.a and self.c and self.d:
            p.write(f" : {self.a[0].type.text}, {self.c[0].type.text} -> {self.d[0].type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> WgmmaRSOp:
        atom = p.parse_attribute()
        as_ = p.parse_operand_list("(")
        p.expect(",")
        db = p.parse_operand()
        p.expect(",")
        cs = p.parse_operand_list("(")
        attrs = p.parse_optional_attr_dict()
        at = ct = dt = None
        if as_ and cs:
            at = p.parse_colon_type()
            p.expect(",")
            ct = p.parse_type()
            p.expect("->")
            dt = p.parse_type()
        props = {"atom": atom, "operandSegmentSizes": DenseArrayAttr(i32, [len(as_), 1, len(cs)])}
        for k in ("transpose_b", "scale_d"):
            if k in attrs:
                props[k] = attrs.pop(k)
        values = p.resolve_operands(as_, [at] * len(as_))
        values.append(p.resolve_operand(db, i64))
        values += p.resolve_operands(cs, [ct] * len(cs))
        return cls.create(values, [dt] * len(cs), properties=props, attributes=attrs, loc=p.loc)


class FenceOperandOp(Operation):
    """``%r:2 = tile.fence_operand (%a, %b) : f32``: the values, unchanged, with a register
    fence: the compiler may not move their definitions or uses across it (CuTe's
    ``warpgroup_fence_operand``: an empty ``asm volatile`` reading and writing each register).
    After ``wgmma.wait_group`` it keeps reads of the accumulators from being scheduled before
    the wait, which the hardware's asynchronous writes would make wrong."""

    name = "tile.fence_operand"
    values = var_operand()
    out = var_result()

    def __init__(self, values: Sequence[Value], loc: Location | None = None):
        super().__init__(operands=[list(values)], result_types=[[v.type for v in values]], loc=loc)

    def verify_(self) -> None:
        if [r.type for r in self.out] != [v.type for v in self.values]:
            raise VerifyError("results must have the types of the operands")
        for v in self.values:
            if element_name(v.type) not in ("f32", "f16", "bf16", "tf32", "i32"):
                raise VerifyError(f"cannot fence a value of type '{v.type.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" (")
        p.print_operands(self.values)
        p.write(")")
        p.print_attr_dict(self)
        if self.values:
            p.write(" : " + ", ".join(v.type.text for v in self.values))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> FenceOperandOp:
        vs = p.parse_operand_list("(")
        attrs = p.parse_optional_attr_dict()
        types = p.parse_optional_colon_type_list() if vs else []
        values = p.resolve_operands(vs, types)
        return cls.create(values, types, attributes=attrs, loc=p.loc)


WGMMA_OPS: list[type[Operation]] = [WgmmaDescOp, WgmmaOp, WgmmaRSOp, FenceOperandOp]


def _verify_accumulators(op: Any, c: Sequence[Value], d: Sequence[Value]) -> None:
    """The C operands and D results a warpgroup MMA atom ``op`` takes and gives (SS and RS):
    one thread's share of the accumulator tile, all of the atom's accumulator type."""
    want = size(op.layout_c, 1)
    if len(c) != want or len(d) != want:
        raise VerifyError(
            f"atom '{op.name}' takes {want} C values per thread and gives as many D "
            f"values, got {len(c)} and {len(d)}"
        )
    types = {v.type for v in c}
    if len(types) != 1 or element_name(next(iter(types))) != op.type_c:
        raise VerifyError(f"atom '{op.name}' accumulates in {op.type_c}")
    if [r.type for r in d] != [v.type for v in c]:
        raise VerifyError("D values must have the types of the C values")
