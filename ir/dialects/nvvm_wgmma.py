"""Hopper warpgroup MMA ops of the nvvm dialect, with MLIR's names, operands and forms.

- ``nvvm.wgmma.fence.aligned``: ``wgmma.fence.sync.aligned`` (orders register accesses of the
  accumulators and of A before the next ``wgmma.mma_async``; CuTe's ``warpgroup_arrive``);
- ``nvvm.wgmma.commit.group.sync.aligned``: closes the current group of ``wgmma.mma_async``
  (CuTe's ``warpgroup_commit_batch``);
- ``nvvm.wgmma.wait.group.sync.aligned N``: waits until at most N groups are pending (CuTe's
  ``warpgroup_wait<N>``);
- ``nvvm.wgmma.mma_async``: ``D = A * B + D`` over a warpgroup of 128 threads, A and B read
  from shared memory through 64-bit matrix descriptors (``ir/dialects/tile/gmma.py``), the
  accumulators an ``!llvm.struct`` in and out;
- ``nvvm.stmatrix``: ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16``, the mirror
  of ``nvvm.ldmatrix``.

The NVVM translation emits the NVVM intrinsics for fence/commit/wait (both back ends have
them) and the PTX instruction as inline assembly for ``wgmma.mma_async`` (it has no LLVM
intrinsic) and ``stmatrix``; the host translation gives each its hardware semantics on the CPU
thread context (docs/hopper.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.asm import OpAsmParser, OpAsmPrinter
from ..core.attributes import Attribute, EnumAttr, IntegerAttr
from ..core.constraints import Constraint, integer_attr
from ..core.errors import VerifyError
from ..core.location import Location
from ..core.opdef import operand, prop, result, var_operand
from ..core.operation import Operation
from ..core.traits import RequiresTarget
from ..core.types import Type, f32, i32, i64
from ..core.values import Value
from .llvm.types import LLVMPointerType, LLVMStructType
from .nvvm import (
    LdStMatrixEltTypeAttr,
    LdStMatrixShapeAttr,
    MMALayoutAttr,
    MMAShapeAttr,
    _NoOperandOp,
)

__all__ = [
    "WGMMA_ATTRIBUTES",
    "WGMMA_OPS",
    "StMatrixOp",
    "WGMMAScaleInAttr",
    "WGMMAScaleOutAttr",
    "WGMMATypesAttr",
    "WgmmaFenceAlignedOp",
    "WgmmaGroupSyncAlignedOp",
    "WgmmaMmaAsyncOp",
    "WgmmaWaitGroupSyncOp",
    "wgmma_accumulator_type",
]

WGMMA = RequiresTarget("sm_90a", "wgmma")
STMATRIX = RequiresTarget("sm_90", "stmatrix")

_I64 = Constraint(lambda t: t is i64, "i64")
_I32 = Constraint(lambda t: t is i32, "i32")
_Shared = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space == 3, "shared-memory pointer"
)
_Struct = Constraint(lambda t: isinstance(t, LLVMStructType), "!llvm.struct")


class WGMMATypesAttr(EnumAttr):
    """``#nvvm.wgmma_type<bf16>``: a wgmma operand's PTX type."""

    __slots__ = ()
    name = "nvvm.wgmma_type"
    VALUES = ("f16", "tf32", "u8", "s8", "b1", "bf16", "e4m3", "e5m2", "f32", "s32")


class WGMMAScaleInAttr(EnumAttr):
    """``#nvvm.wgmma_scale_in<one>``: imm-scale-a/b (``neg`` negates the operand)."""

    __slots__ = ()
    name = "nvvm.wgmma_scale_in"
    VALUES = ("one", "neg")


class WGMMAScaleOutAttr(EnumAttr):
    """``#nvvm.wgmma_scale_out<one>``: scale-d (``zero``: D = A*B, ``one``: D = A*B + D)."""

    __slots__ = ()
    name = "nvvm.wgmma_scale_out"
    VALUES = ("zero", "one")


class WgmmaFenceAlignedOp(_NoOperandOp):
    """``nvvm.wgmma.fence.aligned``: PTX ``wgmma.fence.sync.aligned``."""

    name = "nvvm.wgmma.fence.aligned"
    traits = (WGMMA,)


class WgmmaGroupSyncAlignedOp(_NoOperandOp):
    """``nvvm.wgmma.commit.group.sync.aligned``: PTX ``wgmma.commit_group.sync.aligned``."""

    name = "nvvm.wgmma.commit.group.sync.aligned"
    traits = (WGMMA,)


class WgmmaWaitGroupSyncOp(Operation):
    """``nvvm.wgmma.wait.group.sync.aligned 0``: PTX ``wgmma.wait_group.sync.aligned N``."""

    name = "nvvm.wgmma.wait.group.sync.aligned"
    assembly_format = "attr-dict $group"
    traits = (WGMMA,)
    group = prop(integer_attr(i64, "64-bit integer"))

    def __init__(self, group: int, loc: Location | None = None):
        super().__init__(properties={"group": IntegerAttr(group, i64)}, loc=loc)

    def verify_(self) -> None:
        if not 0 <= self.group.value <= 7:
            raise VerifyError(f"the group count must be in [0, 7], got {self.group.value}")


#: PTX accumulator type -> the LLVM type of each accumulator register
_ACC_REGISTER = {"f32": f32, "f16": i32}
#: (type A/B, type D) -> K of the instruction
_WGMMA_K = {("bf16", "f32"): 16, ("f16", "f32"): 16, ("f16", "f16"): 16, ("tf32", "f32"): 8}
_WGMMA_K.update({("e4m3", "f32"): 32, ("e5m2", "f32"): 32})
_FP8 = ("e4m3", "e5m2")


def wgmma_accumulator_type(n: int, type_d: str) -> LLVMStructType:
    """``!llvm.struct`` of an m64nN accumulator: N/2 f32 registers, or N/4 i32 registers of
    packed f16 pairs."""
    count = n // 2 if type_d == "f32" else n // 4
    return LLVMStructType([_ACC_REGISTER[type_d]] * count)


class WgmmaMmaAsyncOp(Operation):
    """``%d = nvvm.wgmma.mma_async %descA, %descB, %acc, #nvvm.shape<m = 64, n = 64, k = 16>,
    D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>],
    B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>] : !llvm.struct<(...)> -> !llvm.struct<(...)>``

    ``wgmma.mma_async.sync.aligned.m64nNkK.<D>.<A>.<B>`` with A and B in shared memory (i64
    matrix descriptors). ``layoutA = row`` and ``layoutB = col`` are K-major operands (PTX
    imm-trans 0); ``col``/``row`` are MN-major (imm-trans 1, 16-bit types only)."""

    name = "nvvm.wgmma.mma_async"
    traits = (WGMMA,)
    inouts = operand(_Struct)  # first, as upstream's operand order (its custom form differs)
    descriptorA = operand(_I64)
    descriptorB = operand(_I64)
    res = result()
    shape = prop(MMAShapeAttr)
    typeA = prop(WGMMATypesAttr)
    typeB = prop(WGMMATypesAttr)
    typeD = prop(WGMMATypesAttr)
    scaleD = prop(WGMMAScaleOutAttr)
    scaleA = prop(WGMMAScaleInAttr)
    scaleB = prop(WGMMAScaleInAttr)
    layoutA = prop(MMALayoutAttr)
    layoutB = prop(MMALayoutAttr)

    def __init__(
        self,
        desc_a: Value,
        desc_b: Value,
        acc: Value,
        n: int,
        type_ab: str,
        type_d: str,
        a_k_major: bool = True,
        b_k_major: bool = True,
        loc: Location | None = None,
        type_b: str | None = None,
        scale_d: str = "one",
    ):
        k = _WGMMA_K.get((type_ab, type_d), 16)
        props: dict[str, Attribute] = {
            "shape": MMAShapeAttr(64, n, k),
            "typeA": WGMMATypesAttr(type_ab),
            "typeB": WGMMATypesAttr(type_b or type_ab),
            "typeD": WGMMATypesAttr(type_d),
            "scaleD": WGMMAScaleOutAttr(scale_d),
            "scaleA": WGMMAScaleInAttr("one"),
            "scaleB": WGMMAScaleInAttr("one"),
            "layoutA": MMALayoutAttr("row" if a_k_major else "col"),
            "layoutB": MMALayoutAttr("col" if b_k_major else "row"),
        }
        super().__init__(
            operands=[acc, desc_a, desc_b], result_types=[acc.type], properties=props, loc=loc
        )

    @property
    def transpose_a(self) -> int:
        return 0 if self.layoutA.value == "row" else 1

    @property
    def transpose_b(self) -> int:
        return 0 if self.layoutB.value == "col" else 1

    @property
    def instruction(self) -> str:
        s = self.shape
        return (
            f"wgmma.mma_async.sync.aligned.m{s.m}n{s.n}k{s.k}."
            f"{self.typeD.value}.{self.typeA.value}.{self.typeB.value}"
        )

    def verify_(self) -> None:
        s = self.shape
        a, b, d = self.typeA.value, self.typeB.value, self.typeD.value
        if a != b and not (a in _FP8 and b in _FP8):
            raise VerifyError(f"not supported: A of type {a} with B of type {b}")
        k = _WGMMA_K.get((a, d))
        if k is None:
            raise VerifyError(
                f"not supported: wgmma with A/B {a} and D {d} (supported: "
                + ", ".join(f"{x}->{y}" for x, y in _WGMMA_K)
                + ")"
            )
        if s.m != 64 or s.k != k or s.n % 8 or not 8 <= s.n <= 256:
            raise VerifyError(
                f"shape m{s.m}n{s.n}k{s.k} is not m64nNk{k} with N a multiple of 8 in [8, 256]"
            )
        if (self.transpose_a or self.transpose_b) and a not in ("f16", "bf16"):
            raise VerifyError(f"MN-major (transposed) operands need f16 or bf16, not {a}")
        want = wgmma_accumulator_type(s.n, d)
        if self.inouts.type is not want or self.res.type is not want:
            raise VerifyError(f"expected accumulators of type '{want.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands([self.descriptorA, self.descriptorB, self.inouts])
        p.write(f", #nvvm.shape{self.shape.print_parameters()},")
        p.write(f" D [<{self.typeD.value}>, #nvvm.wgmma_scale_out<{self.scaleD.value}>],")
        for label, t, sc, lay in (
            ("A", self.typeA, self.scaleA, self.layoutA),
            ("B", self.typeB, self.scaleB, self.layoutB),
        ):
            p.write(f" {label} [<{t.value}>, #nvvm.wgmma_scale_in<{sc.value}>, <{lay.value}>]")
            if label == "A":
                p.write(",")
        p.print_attr_dict(self, elided=tuple(self._def.props))  # type: ignore[union-attr]
        p.write(f" : {self.inouts.type.text} -> {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> WgmmaMmaAsyncOp:
        operands = [p.parse_operand()]
        for _ in range(2):
            p.expect(",")
            operands.append(p.parse_operand())
        p.expect(",")
        # Upstream prints the attributes without their names (`<m = 64, n = 8, k = 16>`,
        # `<one>`); both spellings are read.
        if p.peek() == "<":
            props: dict[str, Attribute] = {"shape": MMAShapeAttr.parse_parameters(p)}
        else:
            props = {"shape": p.parse_attribute()}
        p.expect(",")

        def short(attr_cls: type[EnumAttr]) -> EnumAttr:
            p.expect("<")
            value = attr_cls._parse_value(p)  # type: ignore[arg-type]
            p.expect(">")
            return value

        def scale(attr_cls: type[EnumAttr]) -> Attribute:
            return short(attr_cls) if p.peek() == "<" else p.parse_attribute()

        p.parse_keyword("D")
        p.expect("[")
        props["typeD"] = short(WGMMATypesAttr)
        p.expect(",")
        props["scaleD"] = scale(WGMMAScaleOutAttr)
        p.expect("]")
        for label in ("A", "B"):
            p.expect(",")
            p.parse_keyword(label)
            p.expect("[")
            props[f"type{label}"] = short(WGMMATypesAttr)
            p.expect(",")
            props[f"scale{label}"] = scale(WGMMAScaleInAttr)
            p.expect(",")
            props[f"layout{label}"] = short(MMALayoutAttr)
            p.expect("]")
        attrs = p.parse_optional_attr_dict()
        t = p.parse_colon_type()
        p.expect("->")
        rt = p.parse_type()
        a, b, acc = p.resolve_operands(operands, [i64, i64, t])
        return cls.create([acc, a, b], [rt], properties=props, attributes=attrs, loc=p.loc)


def _i32_list(n: int) -> list[Type]:
    return [i32] * n


class StMatrixOp(Operation):
    """``nvvm.stmatrix %ptr, %r0, %r1 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout =
    #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32,
    i32``: PTX ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (``col`` =
    ``.trans``; MLIR 22 requires ``shape`` and ``eltType``, of which code generation supports
    m8n8 b16). Lane ``8*i + r`` gives the address of row ``r`` of matrix ``i``; each lane's
    register ``i`` holds two b16 values of matrix ``i`` (ldmatrix's fragment)."""

    name = "nvvm.stmatrix"
    assembly_format = "$ptr `,` $sources attr-dict `:` type($ptr) `,` type($sources)"
    traits = (STMATRIX,)
    ptr = operand(_Shared)
    sources = var_operand(_I32)
    layout = prop(MMALayoutAttr)
    shape = prop(LdStMatrixShapeAttr)
    eltType = prop(LdStMatrixEltTypeAttr)

    def __init__(
        self, ptr: Value, sources: Sequence[Value], layout: str = "row", loc: Location | None = None
    ):
        super().__init__(
            operands=[ptr, list(sources)],
            properties={
                "layout": MMALayoutAttr(layout),
                "shape": LdStMatrixShapeAttr(8, 8),
                "eltType": LdStMatrixEltTypeAttr("b16"),
            },
            loc=loc,
        )

    @property
    def transposed(self) -> bool:
        return self.layout.value == "col"

    def verify_(self) -> None:
        if len(self.sources) not in (1, 2, 4):
            raise VerifyError(f"expected 1, 2 or 4 source registers, got {len(self.sources)}")
        shape, elt = self.shape, self.eltType
        if (shape.m, shape.n) != (8, 8) or elt.value != "b16":
            raise VerifyError(
                f"not supported: stmatrix of shape m{shape.m}n{shape.n} with {elt.value} "
                "elements (layoutc supports m8n8 b16)"
            )


WGMMA_OPS: list[type[Operation]] = [
    WgmmaFenceAlignedOp,
    WgmmaGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
    WgmmaMmaAsyncOp,
    StMatrixOp,
]
WGMMA_ATTRIBUTES = [WGMMATypesAttr, WGMMAScaleInAttr, WGMMAScaleOutAttr]
