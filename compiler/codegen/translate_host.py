"""nvvm ops -> LLVM IR for the host: GPU thread semantics on the CPU thread context.

The CPU kernel ABI (docs/runtime.md, ``runtime/cpu_context.py``) gives every GPU thread a
context: special registers are loads of its fields, ``barrier0``/``bar.warp.sync``/
``shfl.sync`` call the runtime's helpers, shared memory is the block's buffer. The rest is
emulated by its PTX definition:

- ``cp.async`` is a synchronous copy (with zero fill after ``src-size`` bytes); commit and wait
  are no-ops, since every copy is complete when it returns;
- ``ldmatrix``: each lane posts its row address to the warp scratch, the warp syncs, each lane
  reads the 16-bit elements the copy atom's TV layouts (``ir/dialects/tile/atoms.py``) assign
  to it, and the warp syncs again before the scratch is reused;
- ``mma.sync``: the A and B fragments travel through the warp scratch two registers per lane
  per round (a warp sync on each side); every lane rebuilds A and B from the MMA atom's TV
  layouts and computes its own C/D elements (fused multiply-adds in f32; tf32 operands use
  their 19 tf32 bits, as the tensor cores do).

The emulation code is one internal function per variant and module, called from each op.
"""

from __future__ import annotations

import functools
from typing import Any

from layoutc.ir.dialects import nvvm
from layoutc.runtime import cpu_context as cc
from llvmlite import ir

from .llvm_builder import IRBuilder
from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import I8, I16, I32, I64, VOID, fail

NVVM_HOST = HandlerTable("translate host")

_F32 = ir.FloatType()
_HALF = ir.HalfType()
_FULL_MASK = -1

_SREG_FIELDS = {f"{b}.{a}": f"{b}_{a}" for b in ("tid", "ntid", "ctaid", "nctaid") for a in "xyz"}
_SREG_FIELDS["laneid"] = "lane_id"

_SHFL_MODES = {"idx": cc.SHFL_IDX, "up": cc.SHFL_UP, "down": cc.SHFL_DOWN, "bfly": cc.SHFL_BFLY}


def context_field(ft: FunctionTranslator, op: Any, name: str) -> ir.Value:
    """Load field ``name`` of the thread context."""
    if ft.context_struct is None:
        raise fail(op, "internal error: no thread context in this function")
    return cc.load_field(ft.builder, ft.context_struct, name)


def _runtime_helper(ft: FunctionTranslator, name: str, ret: ir.Type, args: list[ir.Type]) -> Any:
    return ft.module.intrinsic(name, ret, [cc.context_pointer_type(), *args])


def shared_memory_address(ft: FunctionTranslator, op: Any, name: str) -> ir.Value:
    """A shared-memory global's address: its offset in the block's shared memory."""
    layout = ft.module.shared
    if name in layout.dynamic:
        return context_field(ft, op, "dynamic_smem")
    offset, _ = layout.offsets[name]
    base = context_field(ft, op, "smem")
    return ft.builder.gep(base, [I64(offset)], inbounds=True) if offset else base


# -- special registers, barriers, shuffles ---------------------------------------------------


def _sreg(ft: FunctionTranslator, op: Any) -> None:
    if op.register == "warpsize":
        ft.set_result(op, I32(cc.WARP_SIZE))
        return
    ft.set_result(op, context_field(ft, op, _SREG_FIELDS[op.register]))


def _register_special_registers() -> None:
    from layoutc.ir.dialects.nvvm import SPECIAL_REGISTERS

    NVVM_HOST.register(*SPECIAL_REGISTERS.values())(_sreg)


_register_special_registers()


@NVVM_HOST.register(nvvm.Barrier0Op)
def _barrier0(ft: FunctionTranslator, op: nvvm.Barrier0Op) -> None:
    fn = _runtime_helper(ft, cc.BARRIER, VOID, [])
    ft.builder.call(fn, [ft.context_struct])


def warp_sync(ft_or_builder: Any, ctx: ir.Value, mask: ir.Value, module: Any) -> None:
    fn = module.intrinsic(cc.WARP_SYNC, VOID, [cc.context_pointer_type(), I32])
    ft_or_builder.call(fn, [ctx, mask])


@NVVM_HOST.register(nvvm.BarWarpSyncOp)
def _bar_warp_sync(ft: FunctionTranslator, op: nvvm.BarWarpSyncOp) -> None:
    if ft.context_struct is None:
        raise fail(op, "internal error: no thread context in this function")
    warp_sync(ft.builder, ft.context_struct, ft.get(op.mask), ft.module)


@NVVM_HOST.register(nvvm.ShflOp)
def _shfl_sync(ft: FunctionTranslator, op: nvvm.ShflOp) -> None:
    mask, val, offset, clamp = ft.operands(op)
    b = ft.builder
    kind = op.kind.value
    name = cc.SHFL_I32 if isinstance(val.type, ir.IntType) else cc.SHFL_F32
    fn = _runtime_helper(ft, name, val.type, [I32, I32, val.type, I32, I32])
    ctx = ft.context_struct
    value = b.call(fn, [ctx, I32(_SHFL_MODES[kind]), mask, val, offset, clamp])
    if not op.with_predicate:
        ft.set_result(op, value)
        return
    lane = context_field(ft, op, "lane_id")
    pred = shuffle_predicate(b, kind, lane, offset, clamp)
    agg = ir.Constant(ft.result_type(op), ir.Undefined)
    agg = b.insert_value(b.insert_value(agg, value, 0), pred, 1)
    ft.set_result(op, agg)


def shuffle_predicate(
    b: IRBuilder, kind: str, lane: ir.Value, bval: ir.Value, c: ir.Value
) -> ir.Value:
    """PTX ``shfl.sync``'s predicate ``p``: whether the source lane ``j`` is in range."""
    m31 = I32(31)
    bv = b.and_(bval, m31)
    cval = b.and_(c, m31)
    segmask = b.and_(b.lshr(c, I32(8)), m31)
    max_lane = b.or_(b.and_(lane, segmask), b.and_(cval, b.not_(segmask)))
    if kind == "up":
        return b.icmp_signed(">=", b.sub(lane, bv), max_lane)
    if kind == "down":
        j = b.add(lane, bv)
    elif kind == "bfly":
        j = b.xor(lane, bv)
    else:
        j = b.or_(b.and_(lane, segmask), b.and_(bv, b.not_(segmask)))
    return b.icmp_signed("<=", j, max_lane)


# -- cp.async ----------------------------------------------------------------------------------


@NVVM_HOST.register(nvvm.CpAsyncOp)
def _cp_async(ft: FunctionTranslator, op: nvvm.CpAsyncOp) -> None:
    b = ft.builder
    dst, src = ft.get(op.dst), ft.get(op.src)
    size = op.size.value
    if op.cpSize is None:
        vt = ir.VectorType(I8, size)
        data = b.load(ft.typed_pointer(src, vt), align=1)
        b.store(data, ft.typed_pointer(dst, vt), align=1)
        return
    fn = _zero_fill_copy(ft.module)
    b.call(fn, [dst, src, I32(size), ft.get(op.cpSize)])


def _zero_fill_copy(module: Any) -> ir.Function:
    """``dst[i] = i < src_size ? src[i] : 0`` for ``i < size`` (never reads past src_size)."""
    key = "cp_async_zfill"
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    p = ir.PointerType(I8)
    fn = ir.Function(
        module.llvm, ir.FunctionType(VOID, [p, p, I32, I32]), "__layoutc_cp_async_zfill"
    )
    fn.linkage = "internal"
    dst, src, size, src_size = fn.args
    entry = fn.append_basic_block("entry")
    head = fn.append_basic_block("head")
    body = fn.append_basic_block("body")
    read = fn.append_basic_block("read")
    write = fn.append_basic_block("write")
    done = fn.append_basic_block("done")
    b = IRBuilder(entry)
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I32, "i")
    i.add_incoming(I32(0), entry)
    b.cbranch(b.icmp_unsigned("<", i, size), body, done)
    b.position_at_end(body)
    b.cbranch(b.icmp_unsigned("<", i, src_size), read, write)
    b.position_at_end(read)
    loaded = b.load(b.gep(src, [i]))
    b.branch(write)
    b.position_at_end(write)
    byte = b.phi(I8)
    byte.add_incoming(loaded, read)
    byte.add_incoming(I8(0), body)
    b.store(byte, b.gep(dst, [i]))
    i.add_incoming(b.add(i, I32(1)), write)
    b.branch(head)
    b.position_at_end(done)
    b.ret_void()
    module.helpers[key] = fn
    return fn


@NVVM_HOST.register(nvvm.CpAsyncCommitGroupOp, nvvm.CpAsyncWaitGroupOp)
def _cp_async_group(
    ft: FunctionTranslator, op: nvvm.CpAsyncCommitGroupOp | nvvm.CpAsyncWaitGroupOp
) -> None:
    """Host copies complete synchronously: nothing is ever pending."""


# -- warp collectives through the warp scratch ------------------------------------------------


class _Helper:
    """Builds one internal emulation function: context fields, scratch slots, tables."""

    def __init__(self, module: Any, name: str, ret: ir.Type, params: list[ir.Type]):
        self.module = module
        self.fn = ir.Function(
            module.llvm, ir.FunctionType(ret, [cc.context_pointer_type(), *params]), name
        )
        self.fn.linkage = "internal"
        # Every helper parks the fiber at a warp sync, which costs far more than the call, and
        # is called once per atom: inlining its 100-500 instructions at each of a GEMM's
        # hundreds of call sites (LLVM's -O3 does) only multiplies the JIT's work.
        self.fn.attributes.add("noinline")
        self.b = IRBuilder(self.fn.append_basic_block("entry"))
        self.ctx = self.fn.args[0]
        self.args = self.fn.args[1:]
        self.lane = cc.load_field(self.b, self.ctx, "lane_id")
        self.scratch = cc.load_field(self.b, self.ctx, "warp_scratch")

    def slot(self, lane: ir.Value | int, word: int, t: ir.Type) -> ir.Value:
        """Pointer to 4-byte word ``word`` (or the whole 8-byte slot) of ``lane``'s scratch."""
        b = self.b
        lane_v = I32(lane) if isinstance(lane, int) else lane
        offset = b.add(b.mul(b.zext(lane_v, I64), I64(8)), I64(4 * word))
        return b.bitcast(b.gep(self.scratch, [offset]), t.as_pointer())

    def sync(self) -> None:
        warp_sync(self.b, self.ctx, I32(_FULL_MASK), self.module)

    def table(self, name: str, rows: tuple[tuple[int, ...], ...]) -> ir.GlobalVariable:
        """A constant ``[32 x [n x i32]]`` table indexed by lane."""
        row_t = ir.ArrayType(I32, len(rows[0]))
        t = ir.ArrayType(row_t, len(rows))
        g = ir.GlobalVariable(self.module.llvm, t, name)
        g.linkage = "internal"
        g.global_constant = True
        g.initializer = ir.FormattedConstant(t, _table_text(rows))
        return g

    def lookup(self, table: ir.GlobalVariable, col: int) -> ir.Value:
        return self.b.load(self.b.gep(table, [I32(0), self.lane, I32(col)], inbounds=True))


@functools.cache
def _table_text(rows: tuple[tuple[int, ...], ...]) -> str:
    """LLVM IR text of a constant i32 table (cached: the tables are functions of the atoms)."""
    row_t = f"[{len(rows[0])} x i32]"
    return (
        "[" + ", ".join(f"{row_t} [" + ", ".join(f"i32 {v}" for v in r) + "]" for r in rows) + "]"
    )


def _ldmatrix_atom(num: int, transposed: bool) -> Any:
    from layoutc.ir.dialects.tile.atoms import COPY_OPERATIONS

    name = f"ldmatrix.x{num}{'.trans' if transposed else ''}"
    for atom in COPY_OPERATIONS.values():
        if atom.name == name:
            return atom
    raise LookupError(name)


@functools.cache
def ldmatrix_sources(num: int, transposed: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each lane, for each 16-bit element of its result registers in order: (the lane
    whose row address supplies it, byte offset in that 16-byte row), from the copy atom."""
    atom = _ldmatrix_atom(num, transposed)
    supplier: dict[int, int] = {}
    for lane in range(32):
        start = atom.src_bits(lane, 0)
        supplier.setdefault(start // 128, lane)
    out = []
    for lane in range(32):
        row = []
        for elem in range(2 * num):
            bit = atom.dst_bits(lane, 16 * elem)
            row.append((supplier[bit // 128], (bit % 128) // 8))
        out.append(tuple(row))
    return tuple(out)


def _ldmatrix_helper(module: Any, num: int, transposed: bool, ret: ir.Type) -> ir.Function:
    key = ("ldmatrix", num, transposed)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    h = _Helper(
        module,
        f"__layoutc_ldmatrix_x{num}{'_trans' if transposed else ''}",
        ret,
        [ir.PointerType(I8)],
    )
    b = h.b
    sources = ldmatrix_sources(num, transposed)
    table = h.table(
        f"__layoutc_ldmatrix_x{num}{'_trans' if transposed else ''}_sources",
        tuple(tuple(lane * 16 + byte for lane, byte in row) for row in sources),
    )
    b.store(b.ptrtoint(h.args[0], I64), h.slot(h.lane, 0, I64))
    h.sync()
    halves = []
    for elem in range(2 * num):
        code = h.lookup(table, elem)
        src_lane = b.lshr(code, I32(4))
        byte = b.and_(code, I32(15))
        row = b.inttoptr(b.load(h.slot(src_lane, 0, I64)), ir.PointerType(I8))
        ptr = b.bitcast(b.gep(row, [byte]), I16.as_pointer())
        halves.append(b.zext(b.load(ptr, align=2), I32))
    h.sync()
    regs = [b.or_(halves[2 * r], b.shl(halves[2 * r + 1], I32(16))) for r in range(num)]
    if num == 1:
        b.ret(regs[0])
    else:
        agg: ir.Value = ir.Constant(ret, ir.Undefined)
        for i, r in enumerate(regs):
            agg = b.insert_value(agg, r, i)
        b.ret(agg)
    module.helpers[key] = h.fn
    return h.fn


@NVVM_HOST.register(nvvm.LdMatrixOp)
def _ldmatrix(ft: FunctionTranslator, op: nvvm.LdMatrixOp) -> None:
    ret = ft.result_type(op)
    fn = _ldmatrix_helper(ft.module, op.num.value, op.transposed, ret)
    ft.set_result(op, ft.builder.call(fn, [ft.context_struct, ft.get(op.ptr)], name=ft.name(op)))


def mma_atom(cfg: Any) -> Any:
    """The MMA atom (TV layouts) of an nvvm.mma.sync variant, or None."""
    from layoutc.ir.dialects.tile.atoms import MMA_OPERATIONS

    for atom in MMA_OPERATIONS.values():
        if atom.instruction == cfg.instruction:
            return atom
    return None


@functools.cache
def mma_tables(
    atom_name: str, a_regs: int, b_regs: int, per_ab: int, c_values: int
) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], tuple[tuple[int, ...], ...]]:
    """From the atom's TV layouts: per exchange round, for each source lane, the column-major
    index in A (M x K) or B (N x K) of each value it posts; and per lane the index in C
    (M x N) of each of its C values."""
    from layoutc.ir.dialects.tile.atoms import mma_operation

    atom = mma_operation(atom_name)
    regs = [("A", r) for r in range(a_regs)] + [("B", r) for r in range(b_regs)]
    rounds = []
    for start in range(0, len(regs), 2):
        chunk = regs[start : start + 2]
        rounds.append(
            tuple(
                tuple(
                    (atom.layout_a if which == "A" else atom.layout_b)(src, r * per_ab + half)
                    for which, r in chunk
                    for half in range(per_ab)
                )
                for src in range(32)
            )
        )
    c = tuple(tuple(atom.layout_c(lane, v) for v in range(c_values)) for lane in range(32))
    return tuple(rounds), c


def _decode(b: IRBuilder, word: ir.Value, half: int, ptx: str) -> ir.Value:
    """Value ``half`` of a 32-bit register holding ``ptx``-typed data, as f32."""
    if ptx == "tf32":
        return b.bitcast(b.and_(word, I32(0xFFFFE000 - (1 << 32))), _F32)
    bits = b.lshr(word, I32(16 * half)) if half else word
    if ptx == "bf16":
        return b.bitcast(b.shl(bits, I32(16)), _F32)
    return b.fpext(b.bitcast(b.trunc(bits, I16), _HALF), _F32)


def _mma_helper(
    module: Any, cfg: Any, atom: Any, ret: ir.Type, c_types: list[ir.Type]
) -> ir.Function:
    key = ("mma", cfg.instruction)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    m_, n_, k_ = cfg.shape
    name = "__layoutc_mma_" + cfg.instruction.replace(".", "_")
    h = _Helper(module, name, ret, [I32] * (cfg.a_regs + cfg.b_regs) + c_types)
    b = h.b
    per_ab = 1 if cfg.a_ptx == "tf32" else 2
    a_full = b.alloca(ir.ArrayType(_F32, m_ * k_), name="A")
    b_full = b.alloca(ir.ArrayType(_F32, n_ * k_), name="B")
    regs = [("A", r, h.args[r]) for r in range(cfg.a_regs)]
    regs += [("B", r, h.args[cfg.a_regs + r]) for r in range(cfg.b_regs)]
    fma = module.intrinsic("llvm.fma.f32", _F32, [_F32, _F32, _F32])
    for start in range(0, len(regs), 2):
        chunk = regs[start : start + 2]
        for word, (_, _, value) in enumerate(chunk):
            b.store(value, h.slot(h.lane, word, I32))
        h.sync()
        # Every lane copies every posted value to its place in A or B: a loop over the
        # source lanes, with the places (from the atom's TV layouts) in a constant table.
        places = mma_tables(atom.name, cfg.a_regs, cfg.b_regs, per_ab, 1)[0][start // 2]
        table = h.table(f"{name}_round{start // 2}", places)
        head = h.fn.append_basic_block(f"round{start // 2}")
        body = h.fn.append_basic_block(f"round{start // 2}.body")
        done = h.fn.append_basic_block(f"round{start // 2}.done")
        entry = b.block
        b.branch(head)
        b.position_at_end(head)
        src = b.phi(I32, "src")
        src.add_incoming(I32(0), entry)
        b.cbranch(b.icmp_unsigned("<", src, I32(32)), body, done)
        b.position_at_end(body)
        col = 0
        for word, (which, _, _) in enumerate(chunk):
            bits = b.load(h.slot(src, word, I32))
            full = a_full if which == "A" else b_full
            for half in range(per_ab):
                index = b.load(b.gep(table, [I32(0), src, I32(col)], inbounds=True))
                col += 1
                b.store(
                    _decode(b, bits, half, cfg.a_ptx), b.gep(full, [I32(0), index], inbounds=True)
                )
        src.add_incoming(b.add(src, I32(1)), b.block)
        b.branch(head)
        b.position_at_end(done)
        h.sync()
    per_c = 1 if cfg.c_ptx == "f32" else 2
    n_values = cfg.c_regs * per_c
    table = h.table(name + "_c", mma_tables(atom.name, cfg.a_regs, cfg.b_regs, per_ab, n_values)[1])
    c_args = h.args[cfg.a_regs + cfg.b_regs :]
    rows, cols, start = [], [], []
    for v in range(n_values):
        index = h.lookup(table, v)
        rows.append(b.urem(index, I32(m_)))
        cols.append(b.udiv(index, I32(m_)))
        reg = c_args[v // per_c]
        start.append(reg if per_c == 1 else b.fpext(b.extract_element(reg, I32(v % per_c)), _F32))
    # D = C + sum over k of A[row, k] * B[col, k], one fused multiply-add per k, in k order.
    entry = b.block
    head = h.fn.append_basic_block("k")
    body = h.fn.append_basic_block("k.body")
    done = h.fn.append_basic_block("k.done")
    b.branch(head)
    b.position_at_end(head)
    kk = b.phi(I32, "kk")
    kk.add_incoming(I32(0), entry)
    accs = []
    for v in range(n_values):
        acc = b.phi(_F32, f"acc{v}")
        acc.add_incoming(start[v], entry)
        accs.append(acc)
    b.cbranch(b.icmp_unsigned("<", kk, I32(k_)), body, done)
    b.position_at_end(body)
    a_col = b.mul(kk, I32(m_))
    b_col = b.mul(kk, I32(n_))
    for v in range(n_values):
        a = b.load(b.gep(a_full, [I32(0), b.add(rows[v], a_col)], inbounds=True))
        bv = b.load(b.gep(b_full, [I32(0), b.add(cols[v], b_col)], inbounds=True))
        accs[v].add_incoming(b.call(fma, [a, bv, accs[v]]), body)
    kk.add_incoming(b.add(kk, I32(1)), body)
    b.branch(head)
    b.position_at_end(done)
    results = accs
    agg: ir.Value = ir.Constant(ret, ir.Undefined)
    for r in range(cfg.c_regs):
        if per_c == 1:
            value = results[r]
        else:
            vec = ir.Constant(c_types[r], ir.Undefined)
            for e in range(per_c):
                vec = b.insert_element(vec, b.fptrunc(results[r * per_c + e], _HALF), I32(e))
            value = vec
        agg = b.insert_value(agg, value, r)
    b.ret(agg)
    module.helpers[key] = h.fn
    return h.fn


_F64 = ir.DoubleType()


def _mma_f64_helper(module: Any, cfg: Any, atom: Any, ret: ir.Type) -> ir.Function:
    """``mma.sync.m8n8k4.f64``: every lane posts its A and its B value (one f64 each) in its
    8-byte scratch slot; every lane gathers A (M x K) and B (N x K) by the atom's TV layouts and
    computes its C values with one f64 fused multiply-add per k, in k order."""
    key = ("mma", cfg.instruction)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    m_, n_, k_ = cfg.shape
    name = "__layoutc_mma_" + cfg.instruction.replace(".", "_")
    h = _Helper(module, name, ret, [_F64, _F64] + [_F64] * cfg.c_regs)
    b = h.b
    fma = module.intrinsic("llvm.fma.f64", _F64, [_F64, _F64, _F64])
    fulls = []
    for which, (layout, rows) in enumerate(((atom.layout_a, m_), (atom.layout_b, n_))):
        full = b.alloca(ir.ArrayType(_F64, rows * k_), name="AB"[which])
        b.store(h.args[which], h.slot(h.lane, 0, _F64))
        h.sync()
        for src in range(32):  # static: 32 lanes, one value each
            index = layout(src, 0)
            b.store(b.load(h.slot(src, 0, _F64)), b.gep(full, [I32(0), I32(index)], inbounds=True))
        h.sync()
        fulls.append(full)
    a_full, b_full = fulls
    table = h.table(
        name + "_c", tuple(tuple(atom.layout_c(t, v) for v in range(cfg.c_regs)) for t in range(32))
    )
    agg: ir.Value = ir.Constant(ret, ir.Undefined)
    for v in range(cfg.c_regs):
        index = h.lookup(table, v)
        row, col = b.urem(index, I32(m_)), b.udiv(index, I32(m_))
        acc = h.args[2 + v]
        for kk in range(k_):
            a = b.load(b.gep(a_full, [I32(0), b.add(row, I32(kk * m_))], inbounds=True))
            bv = b.load(b.gep(b_full, [I32(0), b.add(col, I32(kk * n_))], inbounds=True))
            acc = b.call(fma, [a, bv, acc])
        agg = b.insert_value(agg, acc, v)
    b.ret(agg)
    module.helpers[key] = h.fn
    return h.fn


@NVVM_HOST.register(nvvm.MmaOp)
def _mma(ft: FunctionTranslator, op: nvvm.MmaOp) -> None:
    cfg = op.config
    atom = mma_atom(cfg)
    if atom is None:
        raise fail(
            op,
            f"not supported: host emulation of '{cfg.instruction}' (no MMA atom defines its "
            "fragment layouts)",
        )
    b = ft.builder
    if cfg.a_ptx == "f64":
        ret = ft.result_type(op)
        fn = _mma_f64_helper(ft.module, cfg, atom, ret)
        args = [ft.get(v) for v in (*op.operandA, *op.operandB, *op.operandC)]
        ft.set_result(op, b.call(fn, [ft.context_struct, *args], name=ft.name(op)))
        return
    ab = [ft.get(v) for v in (*op.operandA, *op.operandB)]
    ab = [v if v.type == I32 else b.bitcast(v, I32) for v in ab]
    c = [ft.get(v) for v in op.operandC]
    ret = ft.result_type(op)
    fn = _mma_helper(ft.module, cfg, atom, ret, [v.type for v in c])
    ft.set_result(op, b.call(fn, [ft.context_struct, *ab, *c], name=ft.name(op)))


from . import translate_host_sm90 as _sm90  # noqa: E402,F401 (registers the Hopper ops)
