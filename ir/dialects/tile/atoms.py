"""The atom registry: the hardware instructions that ``tile.copy`` and ``tile.gemm`` use.

An *atom* is one instruction seen through layouts, exactly as CuTe defines it:

- a **copy operation** (CuTe's ``Copy_Traits``) maps ``(thread, value) -> bit`` for its source,
  destination and reference views, over the threads that execute it together (``thr_id``);
  combined with an element type it becomes a copy atom (CuTe's ``Copy_Atom<Op, T>``, see
  :mod:`.tiled`), whose layouts count elements instead of bits;
- an **MMA operation** (CuTe's ``MMA_Traits``) has a shape ``(M, N, K)``, a thread count and
  thread-value layouts mapping ``(thread, value)`` to the column-major index of the ``(M, K)``
  tile of A, the ``(N, K)`` tile of B and the ``(M, N)`` tile of C.

The definitions are transcribed from CUTLASS's ``include/cute/atom/copy_traits.hpp``,
``copy_traits_sm75.hpp``, ``copy_traits_sm80.hpp`` and ``mma_traits_sm80.hpp`` (and the
instruction strings from ``include/cute/arch/copy_sm75.hpp``, ``copy_sm80.hpp``,
``mma_sm80.hpp``); the register fragments follow the PTX ISA's tables for
``mma.m16n8k8``/``mma.m16n8k16`` and ``ldmatrix``. Code generation reads the instruction text
and fragments from here, so the layouts and the instructions cannot drift apart.

Lookups of unknown names or widths raise :class:`AtomError` with the valid choices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ...algebra import Layout
from .spaces import GMEM, RMEM, SMEM

__all__ = [
    "COPY_OPERATIONS",
    "MMA_OPERATIONS",
    "AtomError",
    "CopyOperation",
    "Fragment",
    "MMAOperation",
    "CUTE_COPY_NAMES",
    "copy_operation",
    "copy_operation_names",
    "cute_copy_name",
    "mma_operation",
    "mma_operation_names",
]


class AtomError(ValueError):
    """An unknown atom, or an atom used with operands it does not support."""


# ---------------------------------------------------------------------------------------------
# copy operations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CopyOperation:
    """One copy instruction per group of ``num_threads`` threads (CuTe's ``Copy_Traits``).

    ``src_bits``/``dst_bits``/``ref_bits`` map (thread, value) to a bit of the data the group
    moves; ``bits`` is what one thread moves per instruction (its destination register width
    for ldmatrix). ``element_bits`` lists the element widths the instruction supports (None:
    any width dividing ``bits``).
    """

    name: str
    bits: int
    thr_id: Layout
    src_bits: Layout
    dst_bits: Layout
    ref_bits: Layout
    src_spaces: frozenset[str]
    dst_spaces: frozenset[str]
    element_bits: frozenset[int] | None
    asynchronous: bool
    min_sm: int
    asm: str
    """PTX instruction text (LLVM inline-asm template, ``$n`` operands) or a description."""
    constraints: str
    """LLVM inline-asm constraints for ``asm`` (empty when the copy is plain loads/stores)."""
    origin: str = field(compare=False)

    @property
    def num_threads(self) -> int:
        return self.thr_id.size()

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.bits)

    def check_spaces(self, src_space: str, dst_space: str) -> str | None:
        """Why this operation cannot copy from ``src_space`` to ``dst_space`` (None if it can)."""
        if src_space not in self.src_spaces or dst_space not in self.dst_spaces:
            return (
                f"atom '{self.name}' copies {_spaces(self.src_spaces)} -> "
                f"{_spaces(self.dst_spaces)}, not {src_space} -> {dst_space}"
            )
        return None

    def check_element_bits(self, bits: int) -> str | None:
        """Why this operation cannot move elements of ``bits`` bits (None if it can)."""
        if self.element_bits is not None:
            if bits not in self.element_bits:
                allowed = "- or ".join(str(b) for b in sorted(self.element_bits))
                return f"atom '{self.name}' needs {allowed}-bit elements, got {bits}-bit elements"
            return None
        if bits > self.bits or self.bits % bits != 0:
            return (
                f"atom '{self.name}' moves {self.bits} bits per thread, which is not a whole "
                f"number of {bits}-bit elements"
            )
        return None


def _spaces(spaces: Iterable[str]) -> str:
    order = [GMEM, SMEM, RMEM]
    names = [s for s in order if s in spaces]
    return names[0] if len(names) == 1 else "{" + ",".join(names) + "}"


_UNIVERSAL_BITS = (8, 16, 32, 64, 128)
_ANY_SPACE = frozenset({GMEM, SMEM, RMEM})


def vector_access(bits: int) -> tuple[int, int]:
    """(lanes, lane bits) of the one vector access that moves ``bits``: 128 -> v4.b32."""
    if bits == 128:
        return 4, 32
    if bits == 64:
        return 2, 32
    return 1, bits


def _universal(bits: int) -> CopyOperation:
    lanes, lane_bits = vector_access(bits)
    vec = f".v{lanes}" if lanes > 1 else ""
    one = Layout((1, bits))
    return CopyOperation(
        name="universal",
        bits=bits,
        thr_id=Layout(1),
        src_bits=one,
        dst_bits=one,
        ref_bits=one,
        src_spaces=_ANY_SPACE,
        dst_spaces=_ANY_SPACE,
        element_bits=None,
        asynchronous=False,
        min_sm=0,
        asm=(
            f"one {bits}-bit access per thread: ld.<space>{vec}.b{lane_bits} then "
            f"st.<space>{vec}.b{lane_bits} (a register move in registers)"
        ),
        constraints="",
        origin="cute/atom/copy_traits.hpp: Copy_Traits<UniversalCopy<S,D>>",
    )


def _cp_async(cache: str, bits: int, zfill: bool = False) -> CopyOperation:
    """``cp.async.{ca,cg}``; the ``zfill`` form (CuTe's ``SM80_CP_ASYNC_CACHE*_ZFILL``) takes
    the copy_if predicate as its ``src-size``: a predicated-off copy reads nothing and fills its
    destination with zeros (a GEMM's residue tiles then contribute 0 to the sum)."""
    one = Layout((1, bits))
    suffix = ", $2" if zfill else ""
    cute = (
        f"SM80_CP_ASYNC_CACHE{'ALWAYS' if cache == 'ca' else 'GLOBAL'}{'_ZFILL' if zfill else ''}"
    )
    return CopyOperation(
        name=f"cp.async.{cache}" + (".zfill" if zfill else ""),
        bits=bits,
        thr_id=Layout(1),
        src_bits=one,
        dst_bits=one,
        ref_bits=one,
        src_spaces=frozenset({GMEM}),
        dst_spaces=frozenset({SMEM}),
        element_bits=None,
        asynchronous=True,
        min_sm=80,
        asm=f"cp.async.{cache}.shared.global.L2::128B [$0], [$1], {bits // 8}{suffix};",
        constraints="r,l,r" if zfill else "r,l",
        origin=f"cute/atom/copy_traits_sm80.hpp: Copy_Traits<{cute}<S,D>>",
    )


def _ldmatrix(count: int, trans: bool) -> CopyOperation:
    """``ldmatrix.sync.aligned.x{count}[.trans].m8n8.shared.b16``.

    Source: each of the first 8*count threads gives the address of one 128-bit row of an 8x8
    b16 matrix (the others are ignored: stride 0). Destination: thread t receives 32 bits of
    each matrix (two b16 values: row t/4, columns 2*(t%4)+{0,1}); with ``.trans`` the matrix
    is transposed on the way, so each b16 value lands in a different row.
    """
    rows = 8 * count
    if count == 4:
        src = Layout((32, 128), (128, 1))
    else:
        src = Layout(((rows, 32 // rows), 128), ((128, 0), 1))
    if not trans:
        if count == 1:
            dst = Layout((32, 32), (32, 1))
        else:
            dst = Layout((32, (32, count)), (32, (1, 1024)))
        cute_name = f"SM75_U32x{count}_LDSM_N"
    else:
        if count == 1:
            dst = Layout(((4, 8), (16, 2)), ((256, 16), (1, 128)))
        else:
            dst = Layout(((4, 8), (16, 2, count)), ((256, 16), (1, 128, 1024)))
        cute_name = f"SM75_U16x{2 * count}_LDSM_T"
    regs = ", ".join(f"${i}" for i in range(count))
    suffix = ".trans" if trans else ""
    return CopyOperation(
        name=f"ldmatrix.x{count}{suffix}",
        bits=32 * count,
        thr_id=Layout(32),
        src_bits=src,
        dst_bits=dst,
        ref_bits=dst,
        src_spaces=frozenset({SMEM}),
        dst_spaces=frozenset({RMEM}),
        # The transposing form moves individual b16 values; the plain form moves whole 32-bit
        # words, so 32-bit elements (tf32 in CUTLASS example 59) and 8-bit ones (FP8 A
        # fragments of the _RS wgmma atoms, as CUTLASS loads them) pass through bit-exactly.
        element_bits=frozenset({16}) if trans else frozenset({8, 16, 32}),
        asynchronous=False,
        min_sm=75,
        asm=f"ldmatrix.sync.aligned.x{count}{suffix}.m8n8.shared.b16 {{{regs}}}, [${count}];",
        constraints=",".join(["=r"] * count + ["r"]),
        origin=f"cute/atom/copy_traits_sm75.hpp: Copy_Traits<{cute_name}>",
    )


def _stmatrix(count: int, trans: bool) -> CopyOperation:
    """``stmatrix.sync.aligned.x{count}[.trans].m8n8.shared.b16``: ldmatrix mirrored (CuTe's
    ``Copy_Traits<SM90_U32x{count}_STSM_N>`` takes the LDSM's destination layout as its source
    and its source layout as its destination): thread t's register i holds two b16 values of
    matrix i (row t/4, columns 2*(t%4)+{0,1}; transposed with ``.trans``), and each of the first
    8*count threads gives the address of one 16-byte row the matrices are stored to."""
    ld = _ldmatrix(count, trans)
    regs = ", ".join(f"${i + 1}" for i in range(count))
    suffix = ".trans" if trans else ""
    cute_name = f"SM90_U32x{count}_STSM_N" if not trans else f"SM90_U16x{2 * count}_STSM_T"
    return CopyOperation(
        name=f"stmatrix.x{count}{suffix}",
        bits=32 * count,
        thr_id=Layout(32),
        src_bits=ld.dst_bits,
        dst_bits=ld.src_bits,
        ref_bits=ld.dst_bits,
        src_spaces=frozenset({RMEM}),
        dst_spaces=frozenset({SMEM}),
        element_bits=ld.element_bits,
        asynchronous=False,
        min_sm=90,
        asm=f"stmatrix.sync.aligned.x{count}{suffix}.m8n8.shared.b16 [$0], {{{regs}}};",
        constraints=",".join(["r"] * (count + 1)),
        origin=f"cute/atom/copy_traits_sm90.hpp: Copy_Traits<{cute_name}>",
    )


def _build_copy_registry() -> dict[tuple[str, int], CopyOperation]:
    ops: list[CopyOperation] = [_universal(b) for b in _UNIVERSAL_BITS]
    for zfill in (False, True):
        ops += [_cp_async("ca", b, zfill) for b in (32, 64, 128)]
        # PTX ISA: cp.async.cg supports only a 16-byte copy size.
        ops.append(_cp_async("cg", 128, zfill))
    for count in (1, 2, 4):
        ops.append(_ldmatrix(count, trans=False))
        ops.append(_ldmatrix(count, trans=True))
        ops.append(_stmatrix(count, trans=False))
        ops.append(_stmatrix(count, trans=True))
    return {op.key: op for op in ops}


COPY_OPERATIONS: dict[tuple[str, int], CopyOperation] = _build_copy_registry()


def copy_operation_names() -> list[str]:
    return sorted({name for name, _ in COPY_OPERATIONS})


def copy_operation(name: str, bits: int) -> CopyOperation:
    """The copy operation ``name`` (ours, or CuTe's ``SM90_U32x4_STSM_N``...) moving ``bits``
    per thread (AtomError with the choices)."""
    entry = CUTE_COPY_NAMES.get(name)
    if entry is not None:
        name = entry[0]
    op = COPY_OPERATIONS.get((name, bits))
    if op is not None:
        return op
    widths = sorted(b for n, b in COPY_OPERATIONS if n == name)
    if not widths:
        raise AtomError(
            f"unknown copy atom '{name}'; expected one of {', '.join(copy_operation_names())} "
            "or a CuTe name (UniversalCopy<uint128_t>, SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, "
            "SM80_CP_ASYNC_CACHEALWAYS<uint32_t>, SM75_U32x4_LDSM_N, SM75_U16x8_LDSM_T, ...)"
        )
    if name in ("cp.async.cg", "cp.async.cg.zfill"):
        raise AtomError(
            f"copy atom '{name}' copies 128 bits (16 bytes) only, not {bits} "
            "(PTX: .cg requires cp-size 16); use 'cp.async.ca' for 32 or 64 bits"
        )
    choices = ", ".join(str(b) for b in widths)
    if len(widths) == 1:
        raise AtomError(f"copy atom '{name}' moves {widths[0]} bits per thread, not {bits}")
    raise AtomError(f"copy atom '{name}' supports {choices} bits, not {bits}")


# CuTe's own names for the copy operations (``include/cute/arch/copy.hpp``, ``copy_sm75.hpp``,
# ``copy_sm80.hpp``): CuTe name -> (registry name, bits per thread). The one table both spellings
# resolve through; ``cute::`` prefixes and spaces are ignored.
_CUTE_TYPE_BITS = {
    "uint8_t": 8,
    "int8_t": 8,
    "uint16_t": 16,
    "int16_t": 16,
    "half_t": 16,
    "bfloat16_t": 16,
    "uint32_t": 32,
    "int32_t": 32,
    "float": 32,
    "tfloat32_t": 32,
    "uint64_t": 64,
    "int64_t": 64,
    "double": 64,
    "uint128_t": 128,
}


def _build_cute_names() -> dict[str, tuple[str, int]]:
    names: dict[str, tuple[str, int]] = {}
    for t, bits in _CUTE_TYPE_BITS.items():
        names[f"UniversalCopy<{t}>"] = ("universal", bits)
        if bits in (32, 64, 128):
            names[f"SM80_CP_ASYNC_CACHEALWAYS<{t}>"] = ("cp.async.ca", bits)
            names[f"SM80_CP_ASYNC_CACHEALWAYS_ZFILL<{t}>"] = ("cp.async.ca.zfill", bits)
        if bits == 128:
            names[f"SM80_CP_ASYNC_CACHEGLOBAL<{t}>"] = ("cp.async.cg", bits)
            names[f"SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<{t}>"] = ("cp.async.cg.zfill", bits)
    for count in (1, 2, 4):
        names[f"SM75_U32x{count}_LDSM_N"] = (f"ldmatrix.x{count}", 32 * count)
        names[f"SM75_U16x{2 * count}_LDSM_T"] = (f"ldmatrix.x{count}.trans", 32 * count)
        names[f"SM90_U32x{count}_STSM_N"] = (f"stmatrix.x{count}", 32 * count)
        names[f"SM90_U16x{2 * count}_STSM_T"] = (f"stmatrix.x{count}.trans", 32 * count)
    return names


CUTE_COPY_NAMES: dict[str, tuple[str, int]] = _build_cute_names()


def cute_copy_name(name: str, bits: int | None) -> tuple[str, int | None]:
    """(registry name, bits) for ``name`` in either spelling: a CuTe name fixes its width (a
    different ``bits`` is an AtomError); a registry name passes through."""
    key = name.replace(" ", "").replace("cute::", "")
    entry = CUTE_COPY_NAMES.get(key)
    if entry is None:
        return name, bits
    op_name, op_bits = entry
    if bits is not None and bits != op_bits:
        raise AtomError(f"copy atom '{name}' moves {op_bits} bits per thread, not {bits}")
    return op_name, op_bits


# ---------------------------------------------------------------------------------------------
# MMA operations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fragment:
    """How one thread's values of an MMA operand travel: ``count`` registers of PTX type
    ``reg_type`` (``b32`` for packed 16-bit pairs or tf32 bits), ``per_register`` values each."""

    count: int
    reg_type: str
    per_register: int

    @property
    def constraint(self) -> str:
        return {"f32": "f", "f64": "d", "b32": "r"}[self.reg_type]


@dataclass(frozen=True)
class MMAOperation:
    """One MMA instruction per group of ``num_threads`` threads (CuTe's ``MMA_Traits``).

    Element types are names (``"f16"``, ``"tf32"``, ...); the FMA atom has None for all four
    (it adopts the operands' types, see :meth:`check_types`). ``accepts_a``/``accepts_b`` list
    the element types A and B may have in memory: besides the instruction's own type, the TF32
    atoms accept ``f32``, which the lowering rounds to tf32 (``cvt.rna.tf32.f32``).
    """

    name: str
    shape_mnk: tuple[int, int, int]
    thr_id: Layout
    layout_a: Layout
    layout_b: Layout
    layout_c: Layout
    type_a: str | None
    type_b: str | None
    type_c: str | None
    type_d: str | None
    accepts_a: frozenset[str]
    accepts_b: frozenset[str]
    frag_a: Fragment | None
    frag_b: Fragment | None
    frag_c: Fragment | None
    instruction: str
    min_sm: int
    origin: str = field(compare=False)
    wgmma: Wgmma | None = None
    """For Hopper's warpgroup MMAs: where A comes from and the instruction's shape."""

    @property
    def num_threads(self) -> int:
        return self.thr_id.size()

    @property
    def is_fma(self) -> bool:
        return self.type_a is None

    @property
    def is_wgmma(self) -> bool:
        return self.wgmma is not None

    def asm(self) -> str:
        """LLVM inline-asm template: ``instr {d...}, {a...}, {b...}, {c...};``."""
        if self.frag_a is None or self.frag_b is None or self.frag_c is None:
            raise AtomError(f"atom '{self.name}' is not one inline-asm instruction")
        groups = []
        n = 0
        for frag in (self.frag_c, self.frag_a, self.frag_b, self.frag_c):
            groups.append("{" + ", ".join(f"${n + i}" for i in range(frag.count)) + "}")
            n += frag.count
        return f"{self.instruction} {', '.join(groups)};"

    def constraints(self) -> str:
        """Constraints for :meth:`asm`: D outputs, then A, B and C inputs."""
        if self.frag_a is None or self.frag_b is None or self.frag_c is None:
            raise AtomError(f"atom '{self.name}' is not one inline-asm instruction")
        out = [f"={self.frag_c.constraint}"] * self.frag_c.count
        ins = [self.frag_a.constraint] * self.frag_a.count
        ins += [self.frag_b.constraint] * self.frag_b.count
        ins += [self.frag_c.constraint] * self.frag_c.count
        return ",".join(out + ins)

    def wgmma_rs_asm(self, transpose_b: int) -> tuple[str, str]:
        """(LLVM inline-asm template, constraints) of a register-A ``wgmma.mma_async``: the
        accumulators ``$0..`` tied to inputs, then A's registers, B's descriptor and scale-d
        (a register set into a predicate, as PTX requires). PTX's operand list is ``d, a,
        b-desc, scale-d, imm-scale-a, imm-scale-b[, imm-trans-b]`` (imm-trans-b for 16-bit
        types only; A from registers is K-major, so there is no imm-trans-a)."""
        if self.wgmma is None or not self.wgmma.a_from_registers:
            raise AtomError(f"atom '{self.name}' is not a register-A warpgroup MMA")
        assert self.frag_a is not None and self.frag_c is not None
        n, na = self.frag_c.count, self.frag_a.count
        d = ", ".join(f"${i}" for i in range(n))
        a = ", ".join(f"${2 * n + i}" for i in range(na))
        db, sd = 2 * n + na, 2 * n + na + 1
        imms = ["1", "1"] + ([str(transpose_b)] if self.wgmma.transpose else [])
        asm = (
            "{\n.reg .pred p;\n"
            f"setp.ne.b32 p, ${sd}, 0;\n"
            f"{self.instruction} {{{d}}}, {{{a}}}, ${db}, p, {', '.join(imms)};\n"
            "}"
        )
        out = [f"={self.frag_c.constraint}"] * n
        constraints = [*out, *(str(i) for i in range(n)), *(["r"] * na), "l", "r", "~{memory}"]
        return asm, ",".join(constraints)

    def check_types(self, a: str, b: str, c: str) -> str | None:
        """Why A, B, C of these element types cannot use this atom (None if they can)."""
        if self.is_fma:
            if a != b:
                return f"atom 'FMA' needs A and B of one element type, got {a} and {b}"
            if a == "i1" or c == "i1":
                return "atom 'FMA' does not multiply i1 elements"
            a_float = a in _FLOATS
            if a_float != (c in _FLOATS):
                return (
                    f"atom 'FMA' needs A/B and C both floating-point or both integer, "
                    f"got {a} and {c}"
                )
            if _WIDTH[c] < _WIDTH[a]:
                return f"atom 'FMA' accumulates in C, which is narrower ({c}) than A and B ({a})"
            return None
        if a not in self.accepts_a:
            return f"atom '{self.name}' needs A of element type {_one_of(self.accepts_a)}, got {a}"
        if b not in self.accepts_b:
            return f"atom '{self.name}' needs B of element type {_one_of(self.accepts_b)}, got {b}"
        if c != self.type_c:
            return f"atom '{self.name}' needs C of element type {self.type_c}, got {c}"
        return None


_FLOATS = frozenset({"f16", "bf16", "tf32", "f32", "f64"})
_WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}
_WIDTH.update({"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64})


def _one_of(types: Iterable[str]) -> str:
    names = sorted(types)
    return names[0] if len(names) == 1 else " or ".join(names)


# (T32,V4) -> (M16,N8): CuTe's SM80_16x8_Row, the C/D layout of every m16n8 instruction.
_SM80_16x8_ROW = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))


def _fma() -> MMAOperation:
    unit = Layout((1, 1))
    return MMAOperation(
        name="FMA",
        shape_mnk=(1, 1, 1),
        thr_id=Layout(1),
        layout_a=unit,
        layout_b=unit,
        layout_c=unit,
        type_a=None,
        type_b=None,
        type_c=None,
        type_d=None,
        accepts_a=frozenset(),
        accepts_b=frozenset(),
        frag_a=None,
        frag_b=None,
        frag_c=None,
        instruction="fma.rn (floating point) / mad.lo (integer), one per thread",
        min_sm=0,
        origin="cute/atom/mma_traits.hpp: MMA_Traits<UniversalFMA<D,A,B,C>>",
    )


def _m16n8k8_tf32() -> MMAOperation:
    return MMAOperation(
        name="SM80_16x8x8_F32TF32TF32F32_TN",
        shape_mnk=(16, 8, 8),
        thr_id=Layout(32),
        layout_a=Layout(((4, 8), (2, 2)), ((16, 1), (8, 64))),
        layout_b=Layout(((4, 8), 2), ((8, 1), 32)),
        layout_c=_SM80_16x8_ROW,
        type_a="tf32",
        type_b="tf32",
        type_c="f32",
        type_d="f32",
        accepts_a=frozenset({"tf32", "f32"}),
        accepts_b=frozenset({"tf32", "f32"}),
        frag_a=Fragment(4, "b32", 1),
        frag_b=Fragment(2, "b32", 1),
        frag_c=Fragment(4, "f32", 1),
        instruction="mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        min_sm=80,
        origin="cute/atom/mma_traits_sm80.hpp: MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>",
    )


# m16n8k16 with 16-bit A/B: CuTe's MMA_Traits<SM80_16x8x16_F16F16F16F16_TN> layouts.
_K16_A = Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
_K16_B = Layout(((4, 8), (2, 2)), ((16, 1), (8, 64)))


def _m16n8k16(ab: str, c: str) -> MMAOperation:
    tag = {"f16": "F16", "bf16": "BF16", "f32": "F32"}
    name = f"SM80_16x8x16_{tag[c]}{tag[ab]}{tag[ab]}{tag[c]}_TN"
    frag_c = Fragment(4, "f32", 1) if c == "f32" else Fragment(2, "b32", 2)
    return MMAOperation(
        name=name,
        shape_mnk=(16, 8, 16),
        thr_id=Layout(32),
        layout_a=_K16_A,
        layout_b=_K16_B,
        layout_c=_SM80_16x8_ROW,
        type_a=ab,
        type_b=ab,
        type_c=c,
        type_d=c,
        accepts_a=frozenset({ab}),
        accepts_b=frozenset({ab}),
        frag_a=Fragment(4, "b32", 2),
        frag_b=Fragment(2, "b32", 2),
        frag_c=frag_c,
        instruction=f"mma.sync.aligned.m16n8k16.row.col.{c}.{ab}.{ab}.{c}",
        min_sm=80,
        origin=f"cute/atom/mma_traits_sm80.hpp: MMA_Traits<{name}>",
    )


def _m8n8k4_f64() -> MMAOperation:
    """The sm_80 double-precision tensor core: CuTe's SM80_8x4 (A, B) and SM80_8x8_Row (C)."""
    sm80_8x4 = Layout(((4, 8), 1), ((8, 1), 0))  # (T32,V1) -> (M8,K4) / (N8,K4)
    sm80_8x8_row = Layout(((4, 8), 2), ((16, 1), 8))  # (T32,V2) -> (M8,N8)
    return MMAOperation(
        name="SM80_8x8x4_F64F64F64F64_TN",
        shape_mnk=(8, 8, 4),
        thr_id=Layout(32),
        layout_a=sm80_8x4,
        layout_b=sm80_8x4,
        layout_c=sm80_8x8_row,
        type_a="f64",
        type_b="f64",
        type_c="f64",
        type_d="f64",
        accepts_a=frozenset({"f64"}),
        accepts_b=frozenset({"f64"}),
        frag_a=Fragment(1, "f64", 1),
        frag_b=Fragment(1, "f64", 1),
        frag_c=Fragment(2, "f64", 1),
        instruction="mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
        min_sm=80,
        origin="cute/atom/mma_traits_sm80.hpp: MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>",
    )


def _build_mma_registry() -> dict[str, MMAOperation]:
    ops = [
        _fma(),
        _m16n8k8_tf32(),
        _m16n8k16("f16", "f32"),
        _m16n8k16("bf16", "f32"),
        _m16n8k16("f16", "f16"),
        _m8n8k4_f64(),
    ]
    return {op.name: op for op in ops}


MMA_OPERATIONS: dict[str, MMAOperation] = _build_mma_registry()


def mma_operation_names() -> list[str]:
    """The sm80 atoms by name (the wgmma family: :func:`wgmma_operation_names`)."""
    return sorted(MMA_OPERATIONS)


def mma_operation(name: str) -> MMAOperation:
    """The MMA operation ``name`` (AtomError with the choices)."""
    op = MMA_OPERATIONS.get(name)
    if op is None:
        op = wgmma_operation(name)
    if op is None:
        raise AtomError(
            f"unknown MMA atom '{name}'; expected one of {', '.join(mma_operation_names())} "
            "or a Hopper warpgroup MMA SM90_64xNxK_<D><A><B>_{SS,RS}[_TN] (e.g. "
            "SM90_64x128x16_F32BF16BF16_SS, N a multiple of 8 up to 256)"
        )
    return op


# ---------------------------------------------------------------------------------------------
# Hopper warpgroup MMAs (wgmma.mma_async)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wgmma:
    """The wgmma-specific facts of an atom: ``m64nNkK``, whether A is read from shared memory
    through a descriptor (``SS``) or from registers (``RS``); B always comes from shared
    memory. ``transpose`` says whether the instruction takes the imm-trans-a/b operands (MN-major
    shared-memory operands: 16-bit types only)."""

    n: int
    k: int
    a_from_registers: bool
    transpose: bool

    @property
    def kind(self) -> str:
        return "RS" if self.a_from_registers else "SS"


#: (CuTe's type tag of D/C, A, B; PTX types of D, A, B; K; name suffix) of each wgmma family.
#: Every atom, every N (8..256 step 8), SS and RS, is derived from these rows.
WGMMA_KINDS: tuple[tuple[str, str, str, str, int, str], ...] = (
    ("F32BF16BF16", "f32", "bf16", "bf16", 16, ""),
    ("F32F16F16", "f32", "f16", "f16", 16, ""),
    ("F16F16F16", "f16", "f16", "f16", 16, ""),
    ("F32TF32TF32", "f32", "tf32", "tf32", 8, "_TN"),
    ("F32E4M3E4M3", "f32", "e4m3", "e4m3", 32, "_TN"),
    ("F32E4M3E5M2", "f32", "e4m3", "e5m2", 32, "_TN"),
    ("F32E5M2E4M3", "f32", "e5m2", "e4m3", 32, "_TN"),
    ("F32E5M2E5M2", "f32", "e5m2", "e5m2", 32, "_TN"),
)
#: PTX's FP8 type names -> the tile element types (MLIR's names) that hold them
FP8_ELEMENTS = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}
WGMMA_NS: tuple[int, ...] = tuple(range(8, 257, 8))
_WGMMA_NAME = re.compile(
    r"SM90_64x(\d+)x(\d+)_(F32BF16BF16|F32F16F16|F16F16F16|F32TF32TF32|F32E4M3E4M3|F32E4M3E5M2"
    r"|F32E5M2E4M3|F32E5M2E5M2)(F32)?_(SS|RS)(_TN)?"
)


def _wgmma_c_layout(n: int) -> Layout:
    """CuTe's ``GMMA::CLayout_64xN``: (T128,V) -> (M64,N); warp w holds rows 16w..16w+15."""
    return Layout(((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))


def _wgmma_a_registers(k: int) -> Layout:
    """CuTe's ``GMMA::ALayout_64x16`` (16-bit) / ``ALayout_64x8`` (tf32) / ``ALayout_64x32``
    (8-bit): A from registers, warp w holding rows 16w..16w+15 as mma.sync's m16 fragments do."""
    if k == 32:
        return Layout(((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024)))
    if k == 16:
        return Layout(((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512)))
    return Layout(((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256)))


def _wgmma_smem(mn: int, k: int) -> Layout:
    """CuTe's ``GMMA::ABLayout<MN,K>``: every thread sees the whole (MN,K) tile (stride 0)."""
    return Layout((128, (mn, k)), (0, (1, mn)))


def wgmma_operation_names() -> list[str]:
    """Every warpgroup MMA atom, by CuTe's name."""
    out = []
    for tag, _, _, _, k, suffix in WGMMA_KINDS:
        for n in WGMMA_NS:
            for kind in ("SS", "RS"):
                out.append(f"SM90_64x{n}x{k}_{tag}_{kind}{suffix}")
    return out


_WGMMA_CACHE: dict[str, MMAOperation] = {}


def wgmma_operation(name: str) -> MMAOperation | None:
    """The warpgroup MMA atom ``name`` (CuTe's, e.g. ``SM90_64x128x16_F32BF16BF16_SS``; the tf32
    atoms also as ``SM90_64xNx8_F32TF32TF32F32_SS_TN``), or None if ``name`` is not one."""
    op = _WGMMA_CACHE.get(name)
    if op is not None:
        return op
    match = _WGMMA_NAME.fullmatch(name)
    if match is None:
        return None
    n, k = int(match.group(1)), int(match.group(2))
    tag, extra_c, kind, tn = match.group(3), match.group(4), match.group(5), match.group(6)
    row = next(r for r in WGMMA_KINDS if r[0] == tag)
    _, c, a, b, k_want, suffix = row
    if (tn or "") != suffix or (extra_c and tag != "F32TF32TF32"):
        return None
    if k != k_want:
        raise AtomError(f"MMA atom '{name}': {a} warpgroup MMAs have K = {k_want}, not {k}")
    if n not in WGMMA_NS:
        raise AtomError(
            f"MMA atom '{name}': wgmma N must be a multiple of 8 from 8 to 256, got {n}"
        )
    rs = kind == "RS"
    tf32 = a == "tf32"
    frag_a = Fragment(4, "b32", k // 8) if rs else None  # 1 tf32, 2 16-bit, 4 8-bit values
    frag_c = Fragment(n // 2, "f32", 1) if c == "f32" else Fragment(n // 4, "b32", 2)
    cute = f"SM90_64x{n}x{k}_{tag}_{kind}{suffix}"
    op = MMAOperation(
        name=cute,
        shape_mnk=(64, n, k),
        thr_id=Layout(128),
        layout_a=_wgmma_a_registers(k) if rs else _wgmma_smem(64, k),
        layout_b=_wgmma_smem(n, k),
        layout_c=_wgmma_c_layout(n),
        type_a=a,
        type_b=b,
        type_c=c,
        type_d=c,
        accepts_a=frozenset({a, "f32"} if tf32 else {FP8_ELEMENTS.get(a, a)}),
        accepts_b=frozenset({b, "f32"} if tf32 else {FP8_ELEMENTS.get(b, b)}),
        frag_a=frag_a,
        frag_b=None,
        frag_c=frag_c,
        instruction=f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{c}.{a}.{b}",
        min_sm=90,
        origin=f"cute/atom/mma_traits_sm90_gmma.hpp: MMA_Traits<{cute}>",
        wgmma=Wgmma(n, k, rs, a in ("f16", "bf16")),
    )
    _WGMMA_CACHE[name] = op
    _WGMMA_CACHE[cute] = op
    return op
