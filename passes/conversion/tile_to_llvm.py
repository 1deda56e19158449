"""The tile dialect's lowered forms -> llvm and nvvm ops (part of ``convert-to-llvm``).

- ``tile.load``/``tile.store`` and ``tile.load_vector``/``tile.store_vector`` on a pointer plus
  element offset (or a tensor whose layout :mod:`.tensor_access` can address): a
  ``llvm.getelementptr`` and a (vector) ``llvm.load``/``llvm.store`` with the alignment known
  from the pointer type, the offset and the op's proven ``alignment``.
- ``tile.ptr_offset`` -> ``llvm.getelementptr``; ``tile.get_ptr`` -> the tensor's base;
  ``tile.assume`` -> its operand (the facts were used by the passes before).
- ``tile.alloc_smem`` -> an internal ``addr_space = 3`` ``llvm.mlir.global`` of the layout's
  cosize, aligned; ``tile.dynamic_smem`` -> the address of ``@__dynamic_shmem__`` (a
  zero-sized external ``addr_space = 3`` global, aligned to 16 bytes at least: MLIR's name); ``tile.alloc_fragment`` -> an ``llvm.alloca`` in the function's entry block
  (promoted to registers by LLVM).
- ``tile.cp_async``/``tile.cp_async_commit``/``tile.cp_async_wait`` ->
  ``nvvm.cp.async.shared.global``/``commit.group``/``wait.group``; ``tile.ldmatrix`` ->
  ``nvvm.ldmatrix`` and the values unpacked from its registers; ``tile.mma`` -> the values
  packed into the atom's registers, ``nvvm.mma.sync``, and D unpacked.

The nvvm ops are the same for both targets: the host translation realises them on the CPU
thread context (docs/codegen.md). Only the tf32 rounding differs (inline PTX on the GPU,
integer arithmetic on the host).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from layoutc.ir.core.attributes import DenseArrayAttr, IntegerAttr, TypeAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.dispatch import OpTable
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.symbols import lookup_symbol_in, unique_symbol_name
from layoutc.ir.core.types import IntegerType, Type, f32, i64
from layoutc.ir.core.types import i32 as i32_t
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import layout as L
from layoutc.ir.dialects import tile as T
from layoutc.ir.dialects.llvm import (
    DYNAMIC_INDEX,
    AddressOfOp,
    AllocaOp,
    AtomicRMWOp,
    BitcastOp,
    CmpXchgOp,
    ConstantOp,
    ExtractValueOp,
    GEPOp,
    GlobalOp,
    LLVMArrayType,
    LoadOp,
    PtrToIntOp,
    StoreOp,
)
from layoutc.ir.dialects.llvm.attributes import AtomicBinOp, AtomicOrdering
from layoutc.ir.dialects.nvvm import (
    CpAsyncCommitGroupOp,
    CpAsyncOp,
    CpAsyncWaitGroupOp,
    LdMatrixOp,
    MmaOp,
    mma_config,
)
from layoutc.ir.dialects.tile import coords as C
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from .fragment_pairs import pair_register_halves
from .llvm_types import ADDRESS_SPACES, LLVMTypeConverter
from .mma_fragments import pack_registers, struct_fields, unpack_registers, wgmma_a_registers
from .tensor_access import AccessError, IndexEmitter, TensorDesc, element_offset
from .tma_descriptor import lower_tma_descriptor

_LAYOUT_MAKERS = (
    L.MakeIntTupleOp,
    L.MakeLayoutOp,
    L.MakeComposedLayoutOp,
    L.MakeIdentityOp,
)
_TENSOR_MAKERS = (T.AllocSmemOp, T.AllocFragmentOp, T.MakeTensorOp)

Handler = Callable[["TileLowering", Any], None]
TILE_TO_LLVM: OpTable[Handler] = OpTable("convert-to-llvm (tile)")
"""The lowering of each tile op class that survives lower-layouts."""


class ConversionError(Exception):
    """An op convert-to-llvm cannot lower; ``op`` locates the diagnostic."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class TileLowering:
    """Lowers the tile ops of one module; ``tensors`` maps tensor values to descriptors."""

    def __init__(self, module: Operation, types: LLVMTypeConverter, target: str):
        self.module = module
        self.types = types
        self.target = target
        self.tensors: dict[Value, TensorDesc] = {}
        self._dynamic_smem: dict[Operation, Value] = {}  # each function's aligned base
        self._dynamic_smem_align: int | None = None
        self._func: Operation | None = None  # the function run() lowers
        self._opaque: dict[tuple[Value, Any], Operation] = {}  # (pointer, block) -> its asm
        # (base, offset: static or a value, element type, block) -> its GEP (_static_gep)
        self._geps: dict[tuple[Value, Value | int, Type, Any], Operation] = {}
        self._peeled: list[Operation] = []  # see run()

    def dynamic_smem_base(self, op: T.DynamicSmemOp) -> Value:
        """The dynamic shared-memory base of ``op``'s function, aligned to the module's widest
        ``tile.dynamic_smem`` alignment (one base for all, made once per function)."""
        if self._dynamic_smem_align is None:
            self._dynamic_smem_align = dynamic_smem_alignment(self.module)
        func = self._func
        base = self._dynamic_smem.get(func)
        if base is None:
            align = self._dynamic_smem_align
            base = realigned_dynamic_smem(self, func, align, op.location)
            self._dynamic_smem[func] = base
        return base

    def opaque(self, ptr: Value, user: Operation) -> Value:
        """``ptr`` through an empty inline asm tied to it (``"=l,0"``: the same register, which
        LLVM cannot look through), made before ``user``, once per pointer and block."""
        from layoutc.ir.dialects.llvm import InlineAsmOp

        key = (ptr, user.parent)
        found = self._opaque.get(key)
        if found is None or found.parent is None:
            asm = InlineAsmOp("", "=l,0", [ptr], ptr.type, loc=user.location)
            user.parent.insert_before(asm, user)
            found = self._opaque[key] = asm
        return found.results[0]

    # -- driver ---------------------------------------------------------------------------------
    def run(self, func: Operation) -> None:
        self._func = func
        pair_register_halves(func)
        ops = [op for op in func.walk_ops(include_self=False) if op.dialect is T.DIALECT]
        for op in ops:
            if isinstance(op, _TENSOR_MAKERS):
                self._tensor_maker(func, op)
        for op in ops:
            if isinstance(op, _TENSOR_MAKERS):
                continue
            handler = TILE_TO_LLVM.lookup(op)
            if handler is None:
                raise ConversionError(op, _unsupported(op))
            try:
                handler(self, op)
            except AccessError as e:
                raise ConversionError(op, str(e)) from None
        for op in reversed(ops):
            if isinstance(op, _TENSOR_MAKERS):
                if any(r.uses for r in op.results):
                    user = next(iter(op.results[0].uses)).owner
                    raise ConversionError(
                        user,
                        f"not supported: '{user.name}' on a tensor (convert-to-llvm "
                        "addresses tensors in tile accesses and tile.get_ptr only)",
                    )
                op.erase()
        # The additions of a constant that the accesses looked through (_peel_constant) are
        # left without uses when only accesses used them (170 in the sm80 GEMM): erased here,
        # outermost first, rather than built into the module for canonicalize to erase.
        for op in self._peeled:
            if op.parent is not None and not op.results[0].uses:
                op.erase()
        self._peeled.clear()

    # -- tensors --------------------------------------------------------------------------------
    def _tensor_maker(self, func: Operation, op: Any) -> None:
        b = Builder(InsertionPoint.before_op(op), op.location)
        t: TensorType = op.result.type
        if isinstance(op, T.MakeTensorOp):
            self.tensors[op.result] = TensorDesc(op.ptr, t, _layout_dynamic_values(op))
            return
        elem = self.types.element(t.element)
        n = _cosize(t)
        if isinstance(op, T.AllocSmemOp):
            name = unique_symbol_name(self.module, "__layoutc_smem")
            g = GlobalOp(
                name,
                LLVMArrayType(n, elem),
                linkage="internal",
                addr_space=ADDRESS_SPACES["smem"],
                alignment=t.alignment,
                loc=op.location,
            )
            self.module.regions[0].blocks[0].insert_at_start(g)
            base = b.create(AddressOfOp, g).results[0]
        else:
            entry = func.regions[0].blocks[0]
            eb = Builder(InsertionPoint.at_start(entry), op.location)
            one = eb.create(ConstantOp, IntegerAttr(1, i64)).results[0]
            # 16-bit fragments hold register pairs (ldmatrix results, mma operands): 4-byte
            # alignment lets a pair move as one 32-bit vector (fragment_pairs.py)
            align = max(t.alignment, 4) if t.element_bits == 16 else t.alignment
            base = eb.create(AllocaOp, one, LLVMArrayType(n, elem), align).results[0]
        self.tensors[op.result] = TensorDesc(base, t, [])

    def desc(self, op: Operation, v: Value) -> TensorDesc:
        d = self.tensors.get(v)
        if d is None:
            raise ConversionError(
                op,
                f"not supported: a tensor of type '{v.type.text}' whose base pointer "
                "convert-to-llvm cannot find (it must come from a kernel argument, "
                "tile.make_tensor or an allocation)",
            )
        return d

    # -- addressing -----------------------------------------------------------------------------
    def address(
        self, op: Operation, source: Value, pattern: Any, coords: Iterator[Value], b: Builder
    ) -> tuple[Value, Type, int]:
        """(element pointer, element type, known alignment in bytes) of an access."""
        e = IndexEmitter(b)
        t = source.type
        if isinstance(t, PtrType):
            base, elem, align = source, t.element, t.alignment
            if pattern is C.DYNAMIC:
                offset: Value | int = next(coords)
            elif isinstance(pattern, int):
                offset = pattern
            else:
                raise AccessError(
                    f'a pointer takes one element offset, got "{C.format_pattern(pattern)}"'
                )
        elif isinstance(t, TensorType) and not t.is_coord:
            d = self.desc(op, source)
            base, elem, align = d.base, t.element, t.alignment
            offset = element_offset(d, pattern, coords, e)
        else:
            raise AccessError(
                f"not supported: accessing '{t.text}' (coordinate tensors are lower-layouts' job)"
            )
        llvm_elem = self.types.element(elem)
        nbytes = self.types.element_bytes(llvm_elem)
        if isinstance(offset, int):
            align = math.gcd(align, offset * nbytes) if offset else align
            if offset == 0:
                return base, llvm_elem, align
            return self._static_gep(op, b, base, offset, llvm_elem), llvm_elem, align
        dynamic, constant = _peel_constant(e.value(offset), self._peeled)
        ptr = self._static_gep(op, b, base, dynamic, llvm_elem)
        if constant:  # a GEP of its own: the constant becomes the address's immediate
            ptr = self._static_gep(op, b, ptr, constant, llvm_elem)
        return ptr, llvm_elem, math.gcd(align, nbytes)

    def _static_gep(
        self, op: Operation, b: Builder, base: Value, offset: Value | int, elem: Type
    ) -> Value:
        """``base + offset`` (a static offset, or an index value) for an access in ``op``'s
        block: the GEP an earlier access of that block or of an enclosing one made for the
        same address (it dominates ``op``: the walk has not reached the ops after ``op``'s
        ancestors yet), else a new one. The unrolled register-fragment accesses address the
        same elements over and over (2,600 static GEPs in a GEMM, 560 distinct), and the
        shared-memory accesses of one block repeat a dynamic offset (160 of the 590 GEPs
        the sm80 GEMM would get): cse would keep the first of each and erase the others, so
        building only the first gives the same IR without building and erasing the rest."""
        if isinstance(offset, int) and offset not in _GEP_IMMEDIATE:
            return _gep(b, base, offset, elem)
        geps = self._geps
        block = op.parent
        while block is not None:  # this block's, else an enclosing block's (made before)
            found = geps.get((base, offset, elem, block))
            if found is not None and found.parent is not None:
                return found.results[0]
            parent = block.parent_op
            block = parent.parent if parent is not None else None
        found = geps[(base, offset, elem, op.parent)] = _new_gep(b, base, offset, elem)
        return found.results[0]


_GEP_IMMEDIATE = range(DYNAMIC_INDEX + 1, 1 << 31)


def _gep(b: Builder, base: Value, index: Value | int, elem: Type) -> Value:
    """``base + index`` elements. A constant index is an immediate of the GEP only where it
    fits ``rawConstantIndices`` (i32, less the dynamic marker, as in MLIR); a larger one (a
    static offset past 2^31 elements) is an ``index`` constant operand, which ``retype`` gives
    the index width (or a diagnostic when that width cannot hold it)."""
    if isinstance(index, int) and index not in _GEP_IMMEDIATE:
        index = IndexEmitter(b).const(index)
    return _new_gep(b, base, index, elem).results[0]


_NO_WRAP = IntegerAttr(0, i32_t)
_RAW_DYNAMIC = DenseArrayAttr(i32_t, [DYNAMIC_INDEX])
_RAW_STATIC: dict[int, DenseArrayAttr] = {}


def _new_gep(b: Builder, base: Value, index: Value | int, elem: Type) -> GEPOp:
    """``GEPOp(base, [index], elem)`` inserted by ``b``, built from the parts it would compute
    (the 430 GEPs of a GEMM): a value index is a dynamic operand, a static one (in
    ``_GEP_IMMEDIATE``) a raw constant index; no flags."""
    if isinstance(index, Value):
        operands = [base, index]
        raw = _RAW_DYNAMIC
    else:
        operands = [base]
        raw = _RAW_STATIC.get(index)
        if raw is None:
            if index not in _GEP_IMMEDIATE:
                raise ValueError(
                    f"GEP constant index {index} does not fit in i32: pass it as an index operand"
                )
            raw = _RAW_STATIC[index] = DenseArrayAttr(i32_t, [index])
    props = {"elem_type": TypeAttr(elem), "rawConstantIndices": raw, "noWrapFlags": _NO_WRAP}
    return b.insert(GEPOp.create(operands, [base.type], props))


def _peel_constant(offset: Value, peeled: list[Operation] | None = None) -> tuple[Value, int]:
    """``offset`` as ``dynamic + constant``, looking through ``arith.addi``/``subi`` with a
    constant operand. Index arithmetic does not wrap (docs/dialects.md), so ``base + (x + c)``
    is ``(base + x) + c``; LLVM cannot see that once the index is a fixed-width integer whose
    additions lost their no-wrap flags, and keeps the constant out of the addressing mode.
    The ops looked through are appended to ``peeled``, outermost first."""
    constant = 0
    while True:
        op = offset.defining_op
        if not isinstance(op, (arith.AddIOp, arith.SubIOp)):
            return offset, constant
        lhs, rhs = op.operands
        c = _index_constant(rhs)
        if c is not None:
            constant += c if isinstance(op, arith.AddIOp) else -c
            offset = lhs
            if peeled is not None:
                peeled.append(op)
            continue
        c = _index_constant(lhs) if isinstance(op, arith.AddIOp) else None
        if c is None:
            return offset, constant
        constant += c
        offset = rhs
        if peeled is not None:
            peeled.append(op)


def _index_constant(v: Value) -> int | None:
    op = v.defining_op
    if not isinstance(op, arith.ConstantOp):
        return None
    value = op.properties.get("value")
    return value.value if isinstance(value, IntegerAttr) else None


def _unsupported(op: Operation) -> str:
    hint = "lower-algorithms" if isinstance(op, T.ALGORITHM_OPS) else "lower-layouts"
    return f"cannot be converted to the LLVM level: run {hint} first"


def _cosize(t: TensorType) -> int:
    """Elements of an allocation: every offset its layout produces, swizzled ones included."""
    from layoutc.ir.algebra import storage_cosize

    try:
        n = storage_cosize(t.layout())
    except Exception as e:  # the algebra names what is wrong with the layout
        raise AccessError(f"cannot size the allocation of '{t.text}': {e}") from None
    if not isinstance(n, int):
        raise AccessError(f"an allocation needs a static layout, got '{t.text}'")
    return n


def _layout_dynamic_values(op: Any) -> list[Value]:
    """The values of a tile.make_tensor layout's ``?`` entries, in text order."""
    t: TensorType = op.result.type
    if t.num_dynamic == 0:
        return []
    maker = op.layout.defining_op
    if isinstance(maker, L.MakeLayoutOp):
        values: list[Value] = []
        for part in maker.operands:
            inner = part.defining_op
            if not isinstance(inner, _LAYOUT_MAKERS):
                break
            values.extend(inner.operands)
        else:
            if len(values) == t.num_dynamic:
                return values
    raise AccessError(
        "not supported: a tensor whose dynamic layout is not a layout.make_layout of "
        "make_shape/make_stride values (lower-layouts must leave pointer + offset accesses)"
    )


# -- handlers ---------------------------------------------------------------------------------


def _builder(op: Operation) -> Builder:
    return Builder(InsertionPoint.before_op(op), op.location)


@TILE_TO_LLVM.register(T.LoadOp)
def _load(lw: TileLowering, op: T.LoadOp) -> None:
    b = _builder(op)
    ptr, elem, align = lw.address(op, op.source, op.pattern, iter(op.coords), b)
    value = b.create(LoadOp, ptr, elem, align).results[0]
    op.replace_all_uses_with([value])
    op.erase()


@TILE_TO_LLVM.register(T.StoreOp)
def _store(lw: TileLowering, op: T.StoreOp) -> None:
    b = _builder(op)
    ptr, _, align = lw.address(op, op.dest, op.pattern, iter(op.coords), b)
    b.create(StoreOp, op.value, ptr, align)
    op.erase()


# CUDA's atomic functions on signed int/float elements -> llvm.atomicrmw operations.
_RMW_INT = {
    "add": AtomicBinOp.add,
    "sub": AtomicBinOp.sub,
    "max": AtomicBinOp.max,
    "min": AtomicBinOp.min,
    "exch": AtomicBinOp.xchg,
    "and": AtomicBinOp.and_,
    "or": AtomicBinOp.or_,
    "xor": AtomicBinOp.xor_,
}
_RMW_FLOAT = {"add": AtomicBinOp.fadd, "exch": AtomicBinOp.xchg}
# CUDA's atomics are relaxed, at device scope (the host runs every scope as the system's).
_ATOMIC_SCOPE = "device"


@TILE_TO_LLVM.register(T.AtomicRMWOp)
def _atomic_rmw(lw: TileLowering, op: T.AtomicRMWOp) -> None:
    b = _builder(op)
    ptr, _elem, align = lw.address(op, op.dest, op.pattern, iter(op.coords), b)
    kind = op.kind.value
    table = _RMW_FLOAT if op.dest.type.element.text.startswith("f") else _RMW_INT
    rmw = b.create(
        AtomicRMWOp, table[kind], ptr, op.value, AtomicOrdering.monotonic, align, _ATOMIC_SCOPE
    )
    op.replace_all_uses_with([rmw.results[0]])
    op.erase()


@TILE_TO_LLVM.register(T.AtomicCASOp)
def _atomic_cas(lw: TileLowering, op: T.AtomicCASOp) -> None:
    b = _builder(op)
    ptr, _elem, align = lw.address(op, op.dest, op.pattern, iter(op.coords), b)
    ordering = AtomicOrdering.monotonic
    cas = b.create(CmpXchgOp, ptr, op.compare, op.value, ordering, ordering, align, _ATOMIC_SCOPE)
    old = b.create(ExtractValueOp, cas.results[0], [0])
    op.replace_all_uses_with([old.results[0]])
    op.erase()


def _vector_alignment(op: Any, known: int) -> int:
    proven = op.alignment.value if op.alignment is not None else 1
    return max(proven, known)


@TILE_TO_LLVM.register(T.LoadVectorOp)
def _load_vector(lw: TileLowering, op: T.LoadVectorOp) -> None:
    b = _builder(op)
    pattern = C.parse_pattern(op.coord.value)
    ptr, elem, align = lw.address(op, op.source, pattern, iter(op.coords), b)
    vt = op.result.type
    from layoutc.ir.core.types import VectorType

    value = b.create(LoadOp, ptr, VectorType(vt.shape, elem), _vector_alignment(op, align))
    op.replace_all_uses_with([value.results[0]])
    op.erase()


@TILE_TO_LLVM.register(T.StoreVectorOp)
def _store_vector(lw: TileLowering, op: T.StoreVectorOp) -> None:
    b = _builder(op)
    pattern = C.parse_pattern(op.coord.value)
    ptr, _, align = lw.address(op, op.dest, pattern, iter(op.coords), b)
    b.create(StoreOp, op.value, ptr, _vector_alignment(op, align))
    op.erase()


@TILE_TO_LLVM.register(T.PtrOffsetOp)
def _ptr_offset(lw: TileLowering, op: T.PtrOffsetOp) -> None:
    """A GEP. An ``i64`` offset (lower-layouts' 64-bit row term of a gathered access) moves
    an opaque copy of the base on the GPU (an empty inline asm tied to it, made once per base
    and block): LLVM would otherwise merge the GEPs into one index, ``(row * scale | plain)``
    shifted and added (three instructions per row in the SASS), where ``base + row * scale``
    with the base in a register is one ``IMAD.WIDE``."""
    b = _builder(op)
    elem = lw.types.element(op.ptr.type.element)
    base = op.ptr
    if lw.target != "host" and isinstance(op.offset.type, IntegerType):
        base = lw.opaque(base, op)
    gep = _gep(b, base, op.offset, elem).defining_op
    gep.results[0].type = op.result.type  # keeps the !tile.ptr alignment until retyping
    op.replace_all_uses_with(list(gep.results))
    op.erase()


@TILE_TO_LLVM.register(T.GetPtrOp)
def _get_ptr(lw: TileLowering, op: T.GetPtrOp) -> None:
    d = lw.desc(op, op.operands[0])
    base = d.base
    if base.type is not op.result.type:
        # An allocation's base is already an !llvm.ptr: keep the !tile.ptr type for the
        # accesses through it until retyping, as _ptr_offset does.
        gep = _builder(op).create(GEPOp, base, [0], lw.types.element(op.result.type.element))
        gep.results[0].type = op.result.type
        base = gep.results[0]
    op.replace_all_uses_with([base])
    op.erase()


DYNAMIC_SHARED_MEMORY = "__dynamic_shmem__"


@TILE_TO_LLVM.register(T.DynamicSmemOp)
def _dynamic_smem(lw: TileLowering, op: T.DynamicSmemOp) -> None:
    base = lw.dynamic_smem_base(op)
    if base.type != op.result.type:
        # keeps the !tile.ptr alignment until retyping, as _ptr_offset does
        gep = _builder(op).create(GEPOp, base, [0], lw.types.element(op.result.type.element))
        gep.results[0].type = op.result.type
        base = gep.results[0]
    op.replace_all_uses_with([base])
    op.erase()


def _dynamic_smem_global(lw: TileLowering, loc: Any) -> GlobalOp:
    """``@__dynamic_shmem__``, declared 16-byte aligned: all the hardware guarantees (its
    ``.align`` does not move it past the static shared memory), and a wider declared alignment
    would let LLVM fold the run-time realignment away."""
    g = lookup_symbol_in(lw.module, DYNAMIC_SHARED_MEMORY)
    if g is None:
        g = GlobalOp(
            DYNAMIC_SHARED_MEMORY,
            LLVMArrayType(0, IntegerType(8)),
            linkage="external",
            addr_space=ADDRESS_SPACES["smem"],
            alignment=T.DYNAMIC_SMEM_BASE_ALIGN,
            loc=loc,
        )
        lw.module.regions[0].blocks[0].insert_at_start(g)
    return g


def dynamic_smem_alignment(module: Operation) -> int:
    """The one alignment every ``tile.dynamic_smem`` of ``module`` shares: the widest."""
    aligns = [
        op.result.type.alignment
        for op in module.walk_ops(include_self=False)
        if isinstance(op, T.DynamicSmemOp)
    ]
    return max([T.DYNAMIC_SMEM_BASE_ALIGN, *aligns])


def realigned_dynamic_smem(lw: TileLowering, func: Operation, align: int, loc: Any) -> Value:
    """The dynamic shared-memory base of ``func`` aligned to ``align`` bytes, at the start of
    its entry block: ``@__dynamic_shmem__ + ((-ptrtoint) & (align - 1))`` bytes when the
    padding is positive (:func:`~layoutc.ir.dialects.tile.ops_tensor.dynamic_smem_padding`,
    which the launch adds), the global itself otherwise. A GEP keeps the global's provenance
    (bounds check, alias analysis); the CPU runtime's base is aligned, so the offset is 0
    there."""
    g = _dynamic_smem_global(lw, loc)
    b = Builder(InsertionPoint.at_start(func.regions[0].blocks[0]), loc)
    base = b.create(AddressOfOp, g).results[0]
    if T.dynamic_smem_padding(align) == 0:
        return base
    address = b.create(PtrToIntOp, base, i32_t).results[0]
    zero = b.create(arith.ConstantOp, IntegerAttr(0, i32_t)).results[0]
    mask = b.create(arith.ConstantOp, IntegerAttr(align - 1, i32_t)).results[0]
    negated = b.create(arith.SubIOp, zero, address).results[0]
    offset = b.create(arith.AndIOp, negated, mask).results[0]
    return b.create(GEPOp, base, [offset], IntegerType(8)).results[0]


@TILE_TO_LLVM.register(T.RecastPtrOp)
def _recast_ptr(lw: TileLowering, op: T.RecastPtrOp) -> None:
    # The same address: a zero GEP over the new element type keeps the !tile.ptr type (element
    # and alignment) for the accesses through it until retyping, as _get_ptr does.
    gep = _builder(op).create(GEPOp, op.ptr, [0], lw.types.element(op.result.type.element))
    gep.results[0].type = op.result.type
    op.replace_all_uses_with([gep.results[0]])
    op.erase()


@TILE_TO_LLVM.register(T.AssumeOp)
def _assume(lw: TileLowering, op: T.AssumeOp) -> None:
    op.replace_all_uses_with([op.input])
    op.erase()


@TILE_TO_LLVM.register(T.CpAsyncOp)
def _cp_async(lw: TileLowering, op: T.CpAsyncOp) -> None:
    b = _builder(op)
    src, _, _ = lw.address(op, op.src, C.parse_pattern(op.src_coord.value), iter(op.src_coords), b)
    dst, _, _ = lw.address(op, op.dst, C.parse_pattern(op.dst_coord.value), iter(op.dst_coords), b)
    cache = op.cache.value if op.cache is not None else "ca"
    size = None
    if op.pred is not None:  # zero fill: src-size = bytes where the predicate holds, else 0
        from layoutc.ir.dialects import arith

        full = b.insert(arith.ConstantOp.from_int(op.bytes.value, i32_t)).results[0]
        none = b.insert(arith.ConstantOp.from_int(0, i32_t)).results[0]
        size = b.create(arith.SelectOp, op.pred, full, none).results[0]
    b.create(CpAsyncOp, dst, src, op.bytes.value, cache, size)
    op.erase()


@TILE_TO_LLVM.register(T.CpAsyncCommitOp)
def _cp_async_commit(lw: TileLowering, op: T.CpAsyncCommitOp) -> None:
    _builder(op).create(CpAsyncCommitGroupOp)
    op.erase()


@TILE_TO_LLVM.register(T.CpAsyncWaitOp)
def _cp_async_wait(lw: TileLowering, op: T.CpAsyncWaitOp) -> None:
    _builder(op).create(CpAsyncWaitGroupOp, op.pending.value)
    op.erase()


@TILE_TO_LLVM.register(T.LdmatrixOp)
def _ldmatrix(lw: TileLowering, op: T.LdmatrixOp) -> None:
    b = _builder(op)
    atom = op.atom.op
    num = atom.bits // 32
    ptr, _, _ = lw.address(op, op.source, C.parse_pattern(op.coord.value), iter(op.coords), b)
    transposed = atom.name.endswith(".trans")
    ld = b.create(LdMatrixOp, ptr, num, "col" if transposed else "row")
    regs = struct_fields(b, ld.results[0], num)
    elem = op.source.type.element
    per = 32 // op.source.type.element_bits
    # the LLVM element type whatever the packing: an FP8 fragment's values are their i8 bits,
    # as a load of the fragment gives them (fragment-scalrep forwards these values to the
    # consumers, e.g. a register-A wgmma, that read them from the fragment before)
    values = unpack_registers(b, regs, lw.types.element(elem), per)
    op.replace_all_uses_with(values)
    op.erase()


_MMA_PROPERTIES: dict[tuple[Any, int, int, int], dict[str, Any]] = {}


@TILE_TO_LLVM.register(T.MmaOp)
def _mma(lw: TileLowering, op: T.MmaOp) -> None:
    atom = op.atom.op
    if atom.is_fma:
        raise ConversionError(op, "the FMA atom is plain arithmetic: lower-algorithms expands it")
    cfg = mma_config(atom.shape_mnk, atom.type_a, atom.type_b, atom.type_c)
    if cfg is None:
        raise ConversionError(op, f"not supported: no mma.sync variant for atom '{atom.name}'")
    b = _builder(op)
    c_values = op.c
    a = pack_registers(b, op.a, cfg.a_ptx, cfg.a_type, lw.target)
    bb = pack_registers(b, op.b, cfg.b_ptx, cfg.b_type, lw.target)
    c = pack_registers(b, c_values, cfg.c_ptx, cfg.c_type, lw.target)
    # MmaOp(cfg, a, bb, c), its properties made once per variant and operand counts
    key = (cfg, len(a), len(bb), len(c))
    props = _MMA_PROPERTIES.get(key)
    if props is None:
        model = MmaOp(cfg, a, bb, c)
        model.drop_all_references()  # (never inserted: only its properties are kept)
        props = _MMA_PROPERTIES[key] = dict(model.properties)
    mma = b.insert(MmaOp.create([*a, *bb, *c], [cfg.result_type], props))
    regs = struct_fields(b, mma.results[0], cfg.c_regs)
    per = 1 if cfg.c_ptx in ("f32", "f64") else 2
    d = unpack_registers(b, regs, c_values[0].type, per)
    op.replace_all_uses_with(d)
    op.erase()


@TILE_TO_LLVM.register(T.TmaDescriptorOp, T.TmaIm2colDescriptorOp)
def _tma_descriptor(lw: TileLowering, op: T.TmaDescriptorOp | T.TmaIm2colDescriptorOp) -> None:
    lower_tma_descriptor(lw, op, ConversionError)


def element_bits_of(t: Type) -> int:
    return getattr(t, "width", 32)


@TILE_TO_LLVM.register(T.WgmmaDescOp)
def _wgmma_desc(lw: TileLowering, op: T.WgmmaDescOp) -> None:
    """``bits | ((shared address >> 4) & 0x3FFF)``: the shared-window address of the tile's
    first element (ptrtoint of an ``addrspace(3)`` pointer; the CPU runtime reads the same low
    bits relative to the block's shared memory, docs/hopper.md). The field is computed in 32
    bits (it reads bits 4-17 only, which the truncation keeps), then widened: 64-bit address
    arithmetic per descriptor (each wgmma's K-step has its own) cost ptxas about twice the
    instructions, in the consumer warps' issue slots.

    A dynamic offset (a pipeline stage's, ``s * stage_bytes``) is added after the mask and
    the bits, as ``offset >> 4`` (CuTe's descriptor iterator, a stage's step at a time): the
    pointer's part is loop-invariant, so a stage's descriptor is one add (ptxas had rebuilt
    each from its address: a shift, an and and an or per operand and K-block). The offset is
    a multiple of 16 bytes (lower-wgmma proves it) and shared-window addresses stay below
    2^18, so on the GPU the sum is the field of the offset address; it is masked to the
    field's 14 bits all the same, since on the CPU runtime the field holds a host address's
    bits (modulo 2^14 there, as the runtime decodes it) and a negative offset's borrow would
    otherwise run into the leading-byte offset above it."""
    from layoutc.ir.dialects.llvm import PtrToIntOp

    b = use = _builder(op)
    base, elem, _ = lw.address(op, op.ptr, 0, iter(()), b)
    addr = b.create(PtrToIntOp, base, i32_t).results[0]

    def const(v: int, t: Type = i32_t, b: Builder = b) -> Value:
        return b.insert(arith.ConstantOp.from_int(v, t)).results[0]

    e = IndexEmitter(use)
    off = e.mul(op.offset, lw.types.element_bytes(elem))
    bits = op.bits.value
    if isinstance(off, int):
        if off:
            addr = b.create(arith.AddIOp, addr, const(off)).results[0]
        off = None
    field = b.create(arith.ShRUIOp, addr, const(4)).results[0]
    field = b.create(arith.AndIOp, field, const(0x3FFF)).results[0]
    if off is not None:
        off = use.create(arith.IndexCastOp, e.value(off), i32_t).results[0]
        step = use.create(arith.ShRSIOp, off, const(4, b=use)).results[0]
        field = use.create(arith.AddIOp, field, step).results[0]
        field = use.create(arith.AndIOp, field, const(0x3FFF, b=use)).results[0]
    lo = bits & 0xFFFFFFFF
    low = use.create(arith.OrIOp, field, const(lo - (lo >> 31 << 32), b=use)).results[0]
    low = use.create(arith.ExtUIOp, low, i64).results[0]
    desc = use.create(arith.OrIOp, low, const(bits & ~0xFFFFFFFF, i64, use)).results[0]
    op.replace_all_uses_with([desc])
    op.erase()


@TILE_TO_LLVM.register(T.WgmmaOp)
def _wgmma(lw: TileLowering, op: T.WgmmaOp) -> None:
    from layoutc.ir.dialects.llvm import InsertValueOp, UndefOp
    from layoutc.ir.dialects.nvvm_wgmma import WgmmaMmaAsyncOp, wgmma_accumulator_type

    atom = op.atom.op
    b = _builder(op)
    n = atom.wgmma.n
    acc_t = wgmma_accumulator_type(n, atom.type_c)
    if atom.type_c == "f32":
        regs = list(op.c)
    else:
        regs = pack_registers(b, list(op.c), "f16", acc_t.body[0], lw.target)
    acc = b.create(UndefOp, acc_t).results[0]
    for i, r in enumerate(regs):
        acc = b.create(InsertValueOp, acc, r, [i]).results[0]
    mma = b.create(
        WgmmaMmaAsyncOp,
        op.desc_a,
        op.desc_b,
        acc,
        n,
        atom.type_a,
        atom.type_c,
        op.transpose_a.value == 0,
        op.transpose_b.value == 0,
        type_b=atom.type_b,
        scale_d="zero" if op.scale_d is not None and op.scale_d.value == 0 else "one",
    )
    out = struct_fields(b, mma.results[0], len(regs))
    per = 1 if atom.type_c == "f32" else 2
    d = unpack_registers(b, out, op.c[0].type, per)
    op.replace_all_uses_with(d)
    op.erase()


@TILE_TO_LLVM.register(T.WgmmaRSOp)
def _wgmma_rs(lw: TileLowering, op: T.WgmmaRSOp) -> None:
    """A register-A ``wgmma.mma_async`` is inline PTX (upstream's NVVM dialect has no such op:
    ``nvvm.wgmma.mma_async`` takes descriptors only): A packed into the atom's 32-bit
    registers, the accumulators an ``!llvm.struct`` of tied operands. The op carries the atom
    as ``tile.wgmma_rs``: the host translation emulates exactly the instruction that atom
    defines (it refuses an asm string the atom would not produce)."""
    from layoutc.ir.dialects.llvm import InlineAsmOp, InsertValueOp, UndefOp
    from layoutc.ir.dialects.nvvm_wgmma import wgmma_accumulator_type

    atom = op.atom.op
    b = _builder(op)
    acc_t = wgmma_accumulator_type(atom.wgmma.n, atom.type_c)
    if atom.type_c == "f32":
        regs = list(op.c)
    else:
        regs = pack_registers(b, list(op.c), "f16", acc_t.body[0], lw.target)
    a_regs = wgmma_a_registers(b, list(op.a), atom.type_a, lw.target)
    acc = b.create(UndefOp, acc_t).results[0]
    for i, r in enumerate(regs):
        acc = b.create(InsertValueOp, acc, r, [i]).results[0]
    sd = 0 if op.scale_d is not None and op.scale_d.value == 0 else 1
    one = b.insert(arith.ConstantOp.from_int(sd, i32_t)).results[0]  # scale-d
    asm, constraints = atom.wgmma_rs_asm(op.transpose_b.value)
    call = b.create(
        InlineAsmOp,
        asm,
        constraints,
        [*regs, *a_regs, op.desc_b, one],
        acc_t,
        has_side_effects=True,
    )
    call.attributes["tile.wgmma_rs"] = op.atom
    out = struct_fields(b, call.results[0], len(regs))
    per = 1 if atom.type_c == "f32" else 2
    d = unpack_registers(b, out, op.c[0].type, per)
    op.replace_all_uses_with(d)
    op.erase()


@TILE_TO_LLVM.register(T.FenceOperandOp)
def _fence_operand(lw: TileLowering, op: T.FenceOperandOp) -> None:
    """An empty volatile inline asm per value (``"=f,0"``/``"=r,0"``, or ``"=h,0"`` for 16-bit
    values) on the GPU; the values themselves on the host, whose emulated wgmma is synchronous."""
    from layoutc.ir.dialects.llvm import InlineAsmOp

    if lw.target == "host":
        op.replace_all_uses_with(list(op.values))
        op.erase()
        return
    b = _builder(op)
    out = []
    for v in op.values:
        t = v.type
        letter = "f" if t is f32 else ("h" if element_bits_of(t) == 16 else "r")
        fence = b.create(InlineAsmOp, "", f"={letter},0", [v], t, has_side_effects=True)
        out.append(fence.results[0])
    op.replace_all_uses_with(out)
    op.erase()


@TILE_TO_LLVM.register(T.StmatrixOp)
def _stmatrix(lw: TileLowering, op: T.StmatrixOp) -> None:
    from layoutc.ir.dialects.nvvm_wgmma import StMatrixOp

    b = _builder(op)
    atom = op.atom.op
    ptr, _, _ = lw.address(op, op.dest, C.parse_pattern(op.coord.value), iter(op.coords), b)
    elem = op.dest.type.element
    bits = op.dest.type.element_bits
    values = list(op.values)
    if bits == 16:
        regs = pack_registers(b, values, elem.text if elem.text == "bf16" else "f16", i32_t, "")
    else:
        regs = [v if v.type is i32_t else b.create(BitcastOp, v, i32_t).results[0] for v in values]
    transposed = atom.name.endswith(".trans")
    b.create(StMatrixOp, ptr, regs, "col" if transposed else "row")
    op.erase()
