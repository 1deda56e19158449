"""The nvvm dialect: NVIDIA GPU thread semantics with MLIR's op names and forms.

Special registers (``nvvm.read.ptx.sreg.tid.x`` ... ``laneid``, ``warpsize``), the block
barrier (``nvvm.barrier0``), warp synchronisation (``nvvm.bar.warp.sync``), warp shuffles
(``nvvm.shfl.sync``), asynchronous copies (``nvvm.cp.async.shared.global``, ``...commit.group``,
``...wait.group``), ``nvvm.ldmatrix`` and ``nvvm.mma.sync``.

These ops mean what the PTX ISA says, on both code-generation flavours: the NVVM translation
emits NVVM intrinsics (special registers, barriers, shuffles) or the exact PTX instruction as
inline assembly (cp.async, ldmatrix, mma.sync), and the host translation realises each op
through the CPU thread context of docs/runtime.md (docs/codegen.md explains both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.asm import OpAsmParser, OpAsmPrinter
from ..core.attr_parser import AttrParser
from ..core.attributes import (
    Attribute,
    DenseArrayAttr,
    DialectAttribute,
    EnumAttr,
    IntegerAttr,
    NamespaceEnumAttr,
    UnitAttr,
)
from ..core.constraints import Constraint, integer_attr
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.location import Location
from ..core.opdef import operand, opt_operand, opt_prop, prop, result, var_operand
from ..core.operation import Operation
from ..core.types import Type, VectorType, f16, f32, f64, i1, i32
from ..core.values import Value
from .llvm.types import LLVMPointerType, LLVMStructType
from .nvvm_base import _I32, SpecialRegisterOp, _NoOperandOp

__all__ = [
    "DIALECT",
    "SPECIAL_REGISTERS",
    "BarWarpSyncOp",
    "Barrier0Op",
    "CpAsyncCommitGroupOp",
    "CpAsyncOp",
    "CpAsyncWaitGroupOp",
    "LdMatrixOp",
    "LoadCacheModifierAttr",
    "MMALayoutAttr",
    "MMAShapeAttr",
    "MMATypesAttr",
    "MmaConfig",
    "MmaOp",
    "ShflKindAttr",
    "ShflOp",
    "SpecialRegisterOp",
    "mma_config",
]

# ---------------------------------------------------------------------------------------------
# attributes
# ---------------------------------------------------------------------------------------------


class ShflKindAttr(NamespaceEnumAttr):
    """``#nvvm<shfl_kind bfly>``: how ``nvvm.shfl.sync`` computes the source lane."""

    __slots__ = ()
    name = "nvvm.shfl_kind"
    VALUES = ("bfly", "up", "down", "idx")


class MMALayoutAttr(EnumAttr):
    """``#nvvm.mma_layout<row>``: operand layout of an MMA or the transposition of ldmatrix."""

    __slots__ = ()
    name = "nvvm.mma_layout"
    VALUES = ("row", "col")


class MMATypesAttr(EnumAttr):
    """``#nvvm.mma_type<tf32>``: the PTX type of an MMA multiplicand held in ``i32`` registers."""

    __slots__ = ()
    name = "nvvm.mma_type"
    VALUES = ("f16", "f32", "tf32", "bf16", "s8", "u8", "s32", "s4", "u4", "b1", "f64")


class LoadCacheModifierAttr(NamespaceEnumAttr):
    """``#nvvm<load_cache_modifier cg>``: the cache operator of ``cp.async``."""

    __slots__ = ()
    name = "nvvm.load_cache_modifier"
    VALUES = ("ca", "cg", "cs", "lu", "cv")


class LdStMatrixEltTypeAttr(EnumAttr):
    """``#nvvm.ld_st_matrix_elt_type<b16>``: the element type of ``ldmatrix``/``stmatrix``."""

    __slots__ = ()
    name = "nvvm.ld_st_matrix_elt_type"
    VALUES = ("b16", "b8", "b8x16.b6x16_p32", "b8x16.b4x16_p64")


class LdStMatrixShapeAttr(DialectAttribute):
    """``#nvvm.ld_st_matrix_shape<m = 8, n = 8>``: the matrix shape of ``ldmatrix``/
    ``stmatrix``."""

    __slots__ = ("m", "n")
    name = "nvvm.ld_st_matrix_shape"
    m: int
    n: int

    def __new__(cls, m: int, n: int) -> LdStMatrixShapeAttr:
        key = (m, n)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if any(not isinstance(v, int) or v <= 0 for v in key):
            raise ValueError(f"matrix shape entries must be positive integers, got {key}")
        return cls._unique(key, m=m, n=n)

    def __reduce__(self):
        return (LdStMatrixShapeAttr, (self.m, self.n))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> LdStMatrixShapeAttr:
        parser.expect("<", f"after '#{cls.name}'")
        values: dict[str, int] = {}
        for key in ("m", "n"):
            if key != "m":
                parser.expect(",", f"in '#{cls.name}'")
            parser.parse_keyword(key)
            parser.expect("=", f"after '{key}'")
            values[key] = parser.parse_integer()
        parser.expect(">", f"to close '#{cls.name}'")
        return cls(values["m"], values["n"])

    def print_parameters(self) -> str:
        return f"<m = {self.m}, n = {self.n}>"


class MMAShapeAttr(DialectAttribute):
    """``#nvvm.shape<m = 16, n = 8, k = 8>``: the shape of an MMA instruction."""

    __slots__ = ("k", "m", "n")
    name = "nvvm.shape"
    m: int
    n: int
    k: int

    def __new__(cls, m: int, n: int, k: int) -> MMAShapeAttr:
        key = (m, n, k)
        inst = cls._instances.get(key)
        if inst is not None:
            return inst
        if any(not isinstance(v, int) or v <= 0 for v in key):
            raise ValueError(f"MMA shape entries must be positive integers, got {key}")
        return cls._unique(key, m=m, n=n, k=k)

    def __reduce__(self):
        return (MMAShapeAttr, (self.m, self.n, self.k))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> MMAShapeAttr:
        parser.expect("<", "after '#nvvm.shape'")
        values: dict[str, int] = {}
        for key in ("m", "n", "k"):
            if key != "m":
                parser.expect(",", "in '#nvvm.shape'")
            parser.parse_keyword(key)
            parser.expect("=", f"after '{key}'")
            values[key] = parser.parse_integer()
        parser.expect(">", "to close '#nvvm.shape'")
        return cls(values["m"], values["n"], values["k"])

    def print_parameters(self) -> str:
        return f"<m = {self.m}, n = {self.n}, k = {self.k}>"

    @property
    def text_mnk(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"


# ---------------------------------------------------------------------------------------------
# special registers
# ---------------------------------------------------------------------------------------------


def _special_register(register: str) -> type[SpecialRegisterOp]:
    cls_name = "".join(part.capitalize() for part in register.replace(".", "_").split("_"))
    return type(
        f"Read{cls_name}Op",
        (SpecialRegisterOp,),
        {
            "__slots__": (),
            "__doc__": f"``nvvm.read.ptx.sreg.{register}``: PTX's ``%{register}``.",
            "name": f"nvvm.read.ptx.sreg.{register}",
            "register": register,
        },
    )


#: register name (``tid.x``) -> op class (``nvvm.read.ptx.sreg.tid.x``).
SPECIAL_REGISTERS: dict[str, type[SpecialRegisterOp]] = {
    reg: _special_register(reg)
    for reg in [
        *(f"{base}.{axis}" for base in ("tid", "ntid", "ctaid", "nctaid") for axis in "xyz"),
        "laneid",
        "warpsize",
    ]
}

# ---------------------------------------------------------------------------------------------
# synchronisation and shuffles
# ---------------------------------------------------------------------------------------------


class Barrier0Op(_NoOperandOp):
    """``nvvm.barrier0``: ``bar.sync 0`` (``__syncthreads()``)."""

    name = "nvvm.barrier0"


class BarWarpSyncOp(Operation):
    """``nvvm.bar.warp.sync %mask : i32``: ``bar.warp.sync`` (``__syncwarp(mask)``)."""

    name = "nvvm.bar.warp.sync"
    assembly_format = "$mask attr-dict `:` type($mask)"
    mask = operand(_I32)

    def __init__(self, mask: Value, loc: Location | None = None):
        super().__init__(operands=[mask], loc=loc)


_ShflValue = Constraint(lambda t: t is i32 or t is f32, "i32 or f32")


class ShflOp(Operation):
    """``%r = nvvm.shfl.sync bfly %mask, %v, %offset, %clamp : f32 -> f32``: PTX
    ``shfl.sync.<kind>.b32 d|p, a, b, c, membermask``. With ``return_value_and_is_valid``
    the result is ``!llvm.struct<(T, i1)>`` (the value and PTX's predicate ``p``)."""

    name = "nvvm.shfl.sync"
    assembly_format = "$kind $thread_mask `,` $val `,` $offset `,` $mask_and_clamp attr-dict `:` type($val) `->` type($res)"
    thread_mask = operand(_I32)
    val = operand(_ShflValue)
    offset = operand(_I32)
    mask_and_clamp = operand(_I32)
    res = result()
    kind = prop(ShflKindAttr)
    return_value_and_is_valid = opt_prop(UnitAttr)

    def __init__(
        self,
        kind: str,
        thread_mask: Value,
        val: Value,
        offset: Value,
        mask_and_clamp: Value,
        *,
        with_predicate: bool = False,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {"kind": ShflKindAttr(kind)}
        t: Type = val.type
        if with_predicate:
            props["return_value_and_is_valid"] = UnitAttr()
            t = LLVMStructType([val.type, i1])
        super().__init__(
            operands=[thread_mask, val, offset, mask_and_clamp],
            result_types=[t],
            properties=props,
            loc=loc,
        )

    @property
    def with_predicate(self) -> bool:
        return self.return_value_and_is_valid is not None

    def verify_(self) -> None:
        want = LLVMStructType([self.val.type, i1]) if self.with_predicate else self.val.type
        if self.res.type is not want:
            raise VerifyError(
                f"expected result type '{want.text}' for a shuffle of '{self.val.type.text}'"
                + (" with 'return_value_and_is_valid'" if self.with_predicate else "")
            )


# ---------------------------------------------------------------------------------------------
# asynchronous copies
# ---------------------------------------------------------------------------------------------

_SharedPtr = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space == 3, "shared-memory pointer"
)
_GlobalPtr = Constraint(
    lambda t: isinstance(t, LLVMPointerType) and t.address_space == 1, "global-memory pointer"
)
_I32Attr = integer_attr(i32, "32-bit integer")


class CpAsyncOp(Operation):
    """``nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>``:
    start copying ``size`` bytes from global to shared memory; with ``%cpSize`` only that many
    bytes are read and the rest of the destination is zero-filled."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "nvvm.cp.async.shared.global"
    assembly_format = "$dst `,` $src `,` $size `,` `cache` `=` $modifier (`,` $cpSize^)? attr-dict `:` type($dst) `,` type($src) (`,` type($cpSize)^)?"
    dst = operand(_SharedPtr)
    src = operand(_GlobalPtr)
    cpSize = opt_operand(_I32)
    size = prop(_I32Attr)
    modifier = prop(LoadCacheModifierAttr)

    def __init__(
        self,
        dst: Value,
        src: Value,
        size: int,
        modifier: str = "ca",
        cp_size: Value | None = None,
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[dst, src, [cp_size] if cp_size is not None else []],
            properties={
                "size": IntegerAttr(size, i32),
                "modifier": LoadCacheModifierAttr(modifier),
            },
            loc=loc,
        )

    def verify_(self) -> None:
        size = self.size.value
        if size not in (4, 8, 16):
            raise VerifyError(f"expected size to be 4, 8 or 16 bytes, got {size}")
        mod = self.modifier.value
        if mod not in ("ca", "cg"):
            raise VerifyError(
                f"only the 'ca' and 'cg' cache modifiers exist for cp.async, got {mod}"
            )
        if mod == "cg" and size != 16:
            raise VerifyError("the 'cg' cache modifier needs a 16-byte copy")


class CpAsyncCommitGroupOp(_NoOperandOp):
    """``nvvm.cp.async.commit.group``: close the current group of cp.async copies."""

    name = "nvvm.cp.async.commit.group"


class CpAsyncWaitGroupOp(Operation):
    """``nvvm.cp.async.wait.group 0``: wait until at most ``n`` groups are still pending."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "nvvm.cp.async.wait.group"
    assembly_format = "$n attr-dict"
    n = prop(_I32Attr)

    def __init__(self, n: int, loc: Location | None = None):
        super().__init__(properties={"n": IntegerAttr(n, i32)}, loc=loc)

    def verify_(self) -> None:
        if self.n.value < 0:
            raise VerifyError("the number of pending groups must be non-negative")


# ---------------------------------------------------------------------------------------------
# ldmatrix and mma.sync
# ---------------------------------------------------------------------------------------------


def _i32_registers(n: int) -> Type:
    return i32 if n == 1 else LLVMStructType([i32] * n)


class LdMatrixOp(Operation):
    """``%r = nvvm.ldmatrix %p {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout =
    #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
    : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>``: PTX
    ``ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`` (``col`` layout = ``.trans``);
    upstream's properties (MLIR 22 requires ``shape`` and ``eltType``), of which layoutc
    generates the m8n8 b16 form.

    Each lane passes the address of one 16-byte row; lane ``8*i + r`` addresses row ``r`` of
    matrix ``i``."""

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "nvvm.ldmatrix"
    assembly_format = "$ptr attr-dict `:` functional-type($ptr, $res)"
    ptr = operand(_SharedPtr)
    res = result()
    num = prop(_I32Attr)
    layout = prop(MMALayoutAttr)
    shape = prop(LdStMatrixShapeAttr)
    eltType = prop(LdStMatrixEltTypeAttr)

    def __init__(self, ptr: Value, num: int, layout: str = "row", loc: Location | None = None):
        super().__init__(
            operands=[ptr],
            result_types=[_i32_registers(num)],
            properties={
                "num": IntegerAttr(num, i32),
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
        num = self.num.value
        if num not in (1, 2, 4):
            raise VerifyError(f"expected num attribute to be 1, 2 or 4, got {num}")
        shape, elt = self.shape, self.eltType
        if (shape.m, shape.n) != (8, 8) or elt.value != "b16":
            raise VerifyError(
                f"not supported: ldmatrix of shape m{shape.m}n{shape.n} with {elt.value} "
                "elements (layoutc generates m8n8 b16)"
            )
        want = _i32_registers(num)
        if self.res.type is not want:
            raise VerifyError(f"expected result type '{want.text}' for num = {num}")


_V2F16 = VectorType([2], f16)


@dataclass(frozen=True)
class MmaConfig:
    """One supported ``mma.sync`` variant: shape, PTX types, and the register lists.

    ``a_regs``/``b_regs``/``c_regs`` count registers per thread (32-bit; 64-bit for f64);
    ``*_type`` is the LLVM type each register has in the op (``vector<2xf16>`` for packed
    halves, ``i32`` for packed bf16 or a tf32 value, ``f32``/``f64`` for f32/f64 values).
    """

    shape: tuple[int, int, int]
    a_ptx: str
    b_ptx: str
    c_ptx: str
    a_regs: int
    b_regs: int
    c_regs: int
    a_type: Type
    b_type: Type
    c_type: Type

    @property
    def instruction(self) -> str:
        """The PTX instruction, e.g. ``mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32``."""
        m, n, k = self.shape
        return (
            f"mma.sync.aligned.m{m}n{n}k{k}.row.col."
            f"{self.c_ptx}.{self.a_ptx}.{self.b_ptx}.{self.c_ptx}"
        )

    @property
    def result_type(self) -> LLVMStructType:
        return LLVMStructType([self.c_type] * self.c_regs)


_MMA_CONFIGS: dict[tuple[tuple[int, int, int], str, str, str], MmaConfig] = {}
for _shape, _ab, _c, _ra, _rb, _rc, _ta, _tc in [
    ((16, 8, 8), "tf32", "f32", 4, 2, 4, i32, f32),
    ((16, 8, 8), "f16", "f32", 2, 1, 4, _V2F16, f32),
    ((16, 8, 8), "bf16", "f32", 2, 1, 4, i32, f32),
    ((16, 8, 16), "f16", "f32", 4, 2, 4, _V2F16, f32),
    ((16, 8, 16), "f16", "f16", 4, 2, 2, _V2F16, _V2F16),
    ((16, 8, 16), "bf16", "f32", 4, 2, 4, i32, f32),
    ((8, 8, 4), "f64", "f64", 1, 1, 2, f64, f64),
]:
    _MMA_CONFIGS[(_shape, _ab, _ab, _c)] = MmaConfig(
        _shape, _ab, _ab, _c, _ra, _rb, _rc, _ta, _ta, _tc
    )


def _ptx_type_of(t: Type) -> str | None:
    """The PTX type a register type implies (None when it needs an explicit mma_type)."""
    if t is _V2F16:
        return "f16"
    if t is f32:
        return "f32"
    if t is f64:
        return "f64"
    return None


def mma_config(shape: tuple[int, int, int], a_ptx: str, b_ptx: str, c_ptx: str) -> MmaConfig | None:
    """The supported mma.sync variant with these PTX types (None if unsupported)."""
    return _MMA_CONFIGS.get((shape, a_ptx, b_ptx, c_ptx))


def supported_mma_variants() -> list[str]:
    return sorted(c.instruction for c in _MMA_CONFIGS.values())


class MmaOp(Operation):
    """``%d = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0, %c1, %c2, %c3]
    {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
    multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>,
    shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, ...)>``

    One warp-wide ``mma.sync.aligned`` (D = A*B + C) with the fragment layouts of the PTX ISA;
    the supported variants are in :func:`supported_mma_variants`.
    """

    rules_by_signature = True  # verify_op checks the rules once per signature

    name = "nvvm.mma.sync"
    operandA = var_operand()
    operandB = var_operand()
    operandC = var_operand()
    res = result()
    shape = prop(MMAShapeAttr)
    layoutA = prop(MMALayoutAttr)
    layoutB = prop(MMALayoutAttr)
    multiplicandAPtxType = opt_prop(MMATypesAttr)
    multiplicandBPtxType = opt_prop(MMATypesAttr)

    def __init__(
        self,
        config: MmaConfig,
        a: Sequence[Value],
        b: Sequence[Value],
        c: Sequence[Value],
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {
            "shape": MMAShapeAttr(*config.shape),
            "layoutA": MMALayoutAttr("row"),
            "layoutB": MMALayoutAttr("col"),
            # Always stated, as upstream's parser states them: its verifier needs them.
            "multiplicandAPtxType": MMATypesAttr(config.a_ptx),
            "multiplicandBPtxType": MMATypesAttr(config.b_ptx),
        }
        super().__init__(
            operands=[list(a), list(b), list(c)],
            result_types=[config.result_type],
            properties=props,
            loc=loc,
        )

    def _ptx_types(self) -> tuple[str, str, str]:
        def one(values: Sequence[Value], explicit: MMATypesAttr | None, what: str) -> str:
            if explicit is not None:
                return explicit.value
            if not values:
                raise VerifyError(f"expected operands for {what}")
            implied = _ptx_type_of(values[0].type)
            if implied is None:
                raise VerifyError(
                    f"cannot infer the PTX type of {what} from '{values[0].type.text}'; "
                    f"set multiplicand{what[-1]}PtxType"
                )
            return implied

        a = one(self.operandA, self.multiplicandAPtxType, "operand A")
        b = one(self.operandB, self.multiplicandBPtxType, "operand B")
        c = one(self.operandC, None, "operand C")
        return a, b, c

    @property
    def config(self) -> MmaConfig:
        """The variant this op is (VerifyError if unsupported)."""
        s = self.shape
        a, b, c = self._ptx_types()
        cfg = mma_config((s.m, s.n, s.k), a, b, c)
        if cfg is None:
            raise VerifyError(
                f"not supported: mma.sync {s.text_mnk} with A {a}, B {b}, C/D {c}; supported: "
                + ", ".join(supported_mma_variants())
            )
        return cfg

    def verify_(self) -> None:
        if self.layoutA.value != "row" or self.layoutB.value != "col":
            raise VerifyError("not supported: layouts other than layoutA = row, layoutB = col")
        cfg = self.config
        for what, values, n, t in (
            ("A", self.operandA, cfg.a_regs, cfg.a_type),
            ("B", self.operandB, cfg.b_regs, cfg.b_type),
            ("C", self.operandC, cfg.c_regs, cfg.c_type),
        ):
            if len(values) != n or any(v.type is not t for v in values):
                found = ", ".join(v.type.text for v in values) or "none"
                raise VerifyError(
                    f"expected {n} operands of type '{t.text}' for {what}, got [{found}]"
                )
        if self.res.type is not cfg.result_type:
            raise VerifyError(f"expected result type '{cfg.result_type.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        for label, values in (("A", self.operandA), ("B", self.operandB), ("C", self.operandC)):
            p.write(f" {label}[")
            p.print_operands(values)
            p.write("]")
        # Upstream's custom form leaves out the multiplicand types its parser infers.
        elided = ["operandSegmentSizes"]
        for key, values in (
            ("multiplicandAPtxType", self.operandA),
            ("multiplicandBPtxType", self.operandB),
        ):
            explicit = self.properties.get(key)
            if explicit is not None and values and _ptx_type_of(values[0].type) == explicit.value:
                elided.append(key)
        p.print_attr_dict(self, elided=tuple(elided))
        groups = (self.operandA, self.operandB, self.operandC)
        p.write(" : (" + ", ".join(g[0].type.text if g else "none" for g in groups) + ")")
        p.write(f" -> {self.res.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> MmaOp:
        groups = []
        for label in ("A", "B", "C"):
            p.parse_keyword(label)
            groups.append(p.parse_operand_list("["))
        attrs = p.parse_optional_attr_dict()
        props = {k: attrs.pop(k) for k in list(attrs) if k in cls._def.props}  # type: ignore[union-attr]
        p.expect(":")
        at = p.pos
        types = p.parse_comma_separated("(", p.parse_type, "in mma.sync operand types")
        if len(types) != 3:
            raise p.error("expected three operand types (A, B, C)", at)
        p.expect("->")
        rt = p.parse_type()
        values = [p.resolve_operands(g, [t] * len(g)) for g, t in zip(groups, types)]
        props["operandSegmentSizes"] = DenseArrayAttr(i32, [len(g) for g in values])
        for key, t in (("multiplicandAPtxType", types[0]), ("multiplicandBPtxType", types[1])):
            implied = _ptx_type_of(t)
            if key not in props and implied is not None:
                props[key] = MMATypesAttr(implied)  # what upstream's parser infers
        flat = [v for g in values for v in g]
        return cls.create(flat, [rt], properties=props, attributes=attrs, loc=p.loc)


# ---------------------------------------------------------------------------------------------

from .nvvm_sm90 import SM90_ATTRIBUTES, SM90_OPS  # noqa: E402 (needs the classes above)
from .nvvm_wgmma import WGMMA_ATTRIBUTES, WGMMA_OPS  # noqa: E402 (needs the classes above)

ALL_OPS: list[type[Operation]] = [
    *SPECIAL_REGISTERS.values(),
    Barrier0Op,
    BarWarpSyncOp,
    ShflOp,
    CpAsyncOp,
    CpAsyncCommitGroupOp,
    CpAsyncWaitGroupOp,
    LdMatrixOp,
    MmaOp,
    *SM90_OPS,
    *WGMMA_OPS,
]

DIALECT = Dialect(
    "nvvm",
    ops=ALL_OPS,
    attributes=[
        ShflKindAttr,
        MMALayoutAttr,
        MMATypesAttr,
        MMAShapeAttr,
        LoadCacheModifierAttr,
        LdStMatrixShapeAttr,
        LdStMatrixEltTypeAttr,
        *SM90_ATTRIBUTES,
        *WGMMA_ATTRIBUTES,
    ],
)
