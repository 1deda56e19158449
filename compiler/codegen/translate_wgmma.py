"""The wgmma and stmatrix nvvm ops -> LLVM IR, for the GPU and for the host.

GPU: every op is its PTX instruction as inline assembly. ``wgmma.mma_async`` has no LLVM
intrinsic; ``llvm.nvvm.wgmma.{fence,commit_group,wait_group}.sync.aligned`` exist in LLVM's
NVPTX back end but libNVVM (CUDA 13.0) emits them as calls to undefined functions, which ptxas
rejects, so inline PTX is the one form both back ends assemble. ``wgmma.mma_async`` takes, the accumulators tied in/out operands (CUTLASS's form); ``stmatrix`` is
inline assembly like ``ldmatrix``.

Host: fence/commit/wait are no-ops (the emulated ``wgmma.mma_async`` completes before it
returns, so nothing is ever pending). ``wgmma.mma_async`` is a warpgroup-collective product
computed by each thread for its own accumulators: it decodes the two matrix descriptors
(start address, LBO, SBO, layout type), computes the byte address of every A and B element it
needs by the hardware's canonical-layout address function and swizzle
(``ir/dialects/tile/gmma.py: hardware_offset``), reads them from the block's shared memory,
and accumulates with fused multiply-adds in k order; which (row, column) each accumulator
register holds comes from the atom's C layout (CuTe's ``CLayout_64xN``). A descriptor,
swizzle or fragment bug therefore shows up on the CPU as it would on the GPU.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import llvm, nvvm_wgmma
from layoutc.runtime import cpu_context as cc
from llvmlite import ir

from .llvm_builder import IRBuilder
from .translate_function import FunctionTranslator
from .translate_host import NVVM_HOST
from .translate_llvm import inline_asm
from .translate_nvvm import NVVM_GPU
from .translate_types import I16, I32, I64, VOID, fail

_F32 = ir.FloatType()
_HALF = ir.HalfType()

# -- GPU -----------------------------------------------------------------------------------------


@NVVM_GPU.register(nvvm_wgmma.WgmmaFenceAlignedOp)
def _fence_gpu(ft: FunctionTranslator, op: nvvm_wgmma.WgmmaFenceAlignedOp) -> None:
    inline_asm(ft, "wgmma.fence.sync.aligned;", "~{memory}", [], VOID, True)


@NVVM_GPU.register(nvvm_wgmma.WgmmaGroupSyncAlignedOp)
def _commit_gpu(ft: FunctionTranslator, op: nvvm_wgmma.WgmmaGroupSyncAlignedOp) -> None:
    inline_asm(ft, "wgmma.commit_group.sync.aligned;", "~{memory}", [], VOID, True)


@NVVM_GPU.register(nvvm_wgmma.WgmmaWaitGroupSyncOp)
def _wait_gpu(ft: FunctionTranslator, op: nvvm_wgmma.WgmmaWaitGroupSyncOp) -> None:
    inline_asm(ft, f"wgmma.wait_group.sync.aligned {op.group.value};", "~{memory}", [], VOID, True)


def wgmma_asm(op: Any, n_regs: int) -> tuple[str, str]:
    """(inline-asm template, constraints) of a ``wgmma.mma_async``: the accumulators are
    outputs ``$0..`` tied to inputs, then the two descriptors and scale-d (a register, set into
    a predicate as PTX requires)."""
    letter = "f" if op.typeD.value == "f32" else "r"
    regs = ", ".join(f"${i}" for i in range(n_regs))
    da, db, sd = 2 * n_regs, 2 * n_regs + 1, 2 * n_regs + 2
    imms = [
        "1" if op.scaleA.value == "one" else "-1",
        "1" if op.scaleB.value == "one" else "-1",
    ]
    if op.typeA.value in ("f16", "bf16"):
        imms += [str(op.transpose_a), str(op.transpose_b)]
    asm = (
        "{\n.reg .pred p;\n"
        f"setp.ne.b32 p, ${sd}, 0;\n"
        f"{op.instruction} {{{regs}}}, ${da}, ${db}, p, {', '.join(imms)};\n"
        "}"
    )
    constraints = [f"={letter}"] * n_regs + [str(i) for i in range(n_regs)] + ["l", "l", "r"]
    return asm, ",".join([*constraints, "~{memory}"])


@NVVM_GPU.register(nvvm_wgmma.WgmmaMmaAsyncOp)
def _mma_async_gpu(ft: FunctionTranslator, op: nvvm_wgmma.WgmmaMmaAsyncOp) -> None:
    b = ft.builder
    acc = ft.get(op.inouts)
    st = acc.type
    n = len(st.elements)
    regs = [b.extract_value(acc, i) for i in range(n)]
    scale_d = I32(1 if op.scaleD.value == "one" else 0)
    asm, constraints = wgmma_asm(op, n)
    args = [*regs, ft.get(op.descriptorA), ft.get(op.descriptorB), scale_d]
    ft.set_result(op, inline_asm(ft, asm, constraints, args, st, True))


@NVVM_GPU.register(nvvm_wgmma.StMatrixOp)
def _stmatrix_gpu(ft: FunctionTranslator, op: nvvm_wgmma.StMatrixOp) -> None:
    num = len(op.sources)
    regs = ", ".join(f"${i + 1}" for i in range(num))
    trans = ".trans" if op.transposed else ""
    asm = f"stmatrix.sync.aligned.x{num}{trans}.m8n8.shared.b16 [$0], {{{regs}}};"
    constraints = ",".join(["l"] + ["r"] * num + ["~{memory}"])
    args = [ft.get(op.ptr), *(ft.get(v) for v in op.sources)]
    inline_asm(ft, asm, constraints, args, VOID, True)


# -- host ----------------------------------------------------------------------------------------


@NVVM_HOST.register(
    nvvm_wgmma.WgmmaFenceAlignedOp,
    nvvm_wgmma.WgmmaGroupSyncAlignedOp,
    nvvm_wgmma.WgmmaWaitGroupSyncOp,
)
def _wgmma_sync_host(ft: FunctionTranslator, op: Any) -> None:
    """The emulated wgmma.mma_async is complete when it returns: nothing is pending."""


def _wgmma_atom(op: Any) -> Any:
    from layoutc.ir.dialects.tile.atoms import WGMMA_KINDS, mma_operation

    s = op.shape
    for tag, d, a, b, k, suffix in WGMMA_KINDS:
        if (d, a, b, k) == (op.typeD.value, op.typeA.value, op.typeB.value, s.k):
            return mma_operation(f"SM90_64x{s.n}x{k}_{tag}_SS{suffix}")
    raise LookupError(op.instruction)


def _layout_terms(layout: Any) -> list[tuple[int, int]]:
    """(shape, stride) of each flat mode of a static layout, in colexicographic order."""
    from layoutc.ir.algebra.inttuple import flatten

    shapes = flatten(layout.shape)
    strides = flatten(layout.stride)
    if not isinstance(shapes, tuple):
        shapes, strides = (shapes,), (strides,)
    return list(zip(shapes, strides))


def _emit_layout(b: IRBuilder, layout: Any, x: ir.Value) -> ir.Value:
    """``layout(x)`` of a static layout at a run-time flat index ``x`` (i32)."""
    total: ir.Value = I32(0)
    for shape, stride in _layout_terms(layout):
        c = b.urem(x, I32(shape)) if shape > 1 else I32(0)
        x = b.udiv(x, I32(shape)) if shape > 1 else x
        if stride:
            total = b.add(total, b.mul(c, I32(stride)))
    return total


def _select_width(b: IRBuilder, layout_type: ir.Value) -> ir.Value:
    """W (16-byte chunks per swizzled row) of a descriptor layout type: 0->1, 1->8, 2->4, 3->2."""
    w = b.select(b.icmp_unsigned("==", layout_type, I32(1)), I32(8), I32(1))
    w = b.select(b.icmp_unsigned("==", layout_type, I32(2)), I32(4), w)
    return b.select(b.icmp_unsigned("==", layout_type, I32(3)), I32(2), w)


class _Desc:
    """A matrix descriptor's fields as i32 values (addresses are shared-window offsets)."""

    def __init__(self, b: IRBuilder, word: ir.Value, smem_base: ir.Value):
        def field(shift: int) -> ir.Value:
            bits = b.and_(b.lshr(word, I64(shift)), I64(0x3FFF))
            return b.shl(b.trunc(bits, I32), I32(4))

        # The start field holds the low bits of the shared address; on the host the block's
        # shared memory is an ordinary buffer, so the window offset is relative to its base.
        raw = field(0)
        base_low = b.trunc(b.and_(smem_base, I64(0x3FFFF)), I32)
        self.start = b.and_(b.sub(raw, base_low), I32(0x3FFFF))
        self.lbo = field(16)
        self.sbo = field(32)
        self.w = _select_width(b, b.trunc(b.lshr(word, I64(62)), I32))


def _gmma_address(
    b: IRBuilder, d: _Desc, k_major: bool, eb: int, mn: ir.Value, k: ir.Value
) -> ir.Value:
    """Shared-window byte address of element (mn, k): gmma.hardware_offset, then the swizzle."""
    t = 16 // eb
    inter = b.icmp_unsigned("==", d.w, I32(1))
    if k_major:
        row = b.add(
            b.mul(b.mul(b.urem(mn, I32(8)), I32(16)), d.w), b.mul(b.udiv(mn, I32(8)), d.sbo)
        )
        k_inter = b.add(b.mul(b.urem(k, I32(t)), I32(eb)), b.mul(b.udiv(k, I32(t)), d.lbo))
        col = b.select(inter, k_inter, b.mul(k, I32(eb)))
        off = b.add(row, col)
    else:
        lane = b.mul(b.urem(mn, I32(t)), I32(eb))
        g = b.udiv(mn, I32(t))
        inter_off = b.add(
            b.add(lane, b.mul(g, d.sbo)),
            b.add(b.mul(b.urem(k, I32(8)), I32(16)), b.mul(b.udiv(k, I32(8)), d.lbo)),
        )
        sw_off = b.add(
            b.add(lane, b.mul(b.urem(g, d.w), I32(16))),
            b.add(
                b.mul(b.udiv(g, d.w), d.lbo),
                b.add(
                    b.mul(b.mul(b.urem(k, I32(8)), I32(16)), d.w), b.mul(b.udiv(k, I32(8)), d.sbo)
                ),
            ),
        )
        off = b.select(inter, inter_off, sw_off)
    addr = b.add(d.start, off)
    # Swizzle<B,4,3> on the absolute address: bits [7,7+B) into [4,4+B), B = log2(W)
    mask = b.shl(b.sub(d.w, I32(1)), I32(4))
    return b.xor(addr, b.and_(b.lshr(addr, I32(3)), mask))


def fp8_to_f32(b: IRBuilder, byte: ir.Value, ptx: str) -> ir.Value:
    """The exact f32 value of an FP8 byte (i32, low 8 bits). E5M2 is f16's top byte (same
    exponent bias and special values). E4M3 (FN: no infinities) has bias 7: a normal number
    re-biases to f32 (+120), a subnormal is m * 2^-9, and 0x7F/0xFF are its NaNs."""
    byte = b.and_(byte, I32(0xFF))
    if ptx == "e5m2":
        return b.fpext(b.bitcast(b.trunc(b.shl(byte, I32(8)), I16), _HALF), _F32)
    sign = b.shl(b.and_(byte, I32(0x80)), I32(24))
    exp = b.and_(b.lshr(byte, I32(3)), I32(0xF))
    mant = b.and_(byte, I32(7))
    normal = b.bitcast(
        b.or_(sign, b.or_(b.shl(b.add(exp, I32(120)), I32(23)), b.shl(mant, I32(20)))), _F32
    )
    tiny = b.fmul(b.uitofp(mant, _F32), ir.Constant(_F32, 2.0**-9))
    tiny = b.bitcast(b.or_(b.bitcast(tiny, I32), sign), _F32)
    value = b.select(b.icmp_unsigned("==", exp, I32(0)), tiny, normal)
    is_nan = b.icmp_unsigned("==", b.and_(byte, I32(0x7F)), I32(0x7F))
    return b.select(is_nan, ir.Constant(_F32, float("nan")), value)


def _load_f32(b: IRBuilder, smem: ir.Value, addr: ir.Value, ptx: str) -> ir.Value:
    p = b.gep(smem, [b.zext(addr, I64)])
    if ptx in ("e4m3", "e5m2"):
        return fp8_to_f32(b, b.zext(b.load(p), I32), ptx)
    if ptx == "tf32":
        word = b.load(b.bitcast(p, I32.as_pointer()), align=4)
        return b.bitcast(b.and_(word, I32(0xFFFFE000 - (1 << 32))), _F32)
    half = b.load(b.bitcast(p, I16.as_pointer()), align=2)
    if ptx == "bf16":
        return b.bitcast(b.shl(b.zext(half, I32), I32(16)), _F32)
    return b.fpext(b.bitcast(half, _HALF), _F32)


def _accumulate(
    module: Any,
    fn: ir.Function,
    b: IRBuilder,
    atom: Any,
    st: ir.Type,
    acc_in: ir.Value,
    keep_d: ir.Value,
    tid: ir.Value,
    operands: Any,
) -> None:
    """The warpgroup product as thread ``tid`` (0..127) sees it, returned from ``fn``: for each
    accumulator value (its (row, column) from the atom's C layout), ``D = (keep_d ? C : 0) +
    sum over k of A[row, k] * B[col, k]``, fused multiply-adds in k order. ``operands(b, row,
    col, k)`` gives the pair (A, B) as f32; f16 accumulators are rounded once at the end."""
    from layoutc.ir.algebra import get

    name = fn.name
    n_regs = len(st.elements)
    f32_acc = atom.type_c == "f32"
    n_vals = n_regs if f32_acc else 2 * n_regs
    k_ = atom.shape_mnk[2]
    thread_part = _emit_layout(b, get(atom.layout_c, 0), tid)
    v_layout = get(atom.layout_c, 1)
    table_t = ir.ArrayType(I32, n_vals)
    table = ir.GlobalVariable(module.llvm, table_t, name + "_values")
    table.linkage = "internal"
    table.global_constant = True
    table.initializer = ir.Constant(table_t, [I32(v_layout(v)) for v in range(n_vals)])
    accs = b.alloca(ir.ArrayType(_F32, n_vals), name="acc")
    for r in range(n_regs):
        reg = b.extract_value(acc_in, r)
        if f32_acc:
            b.store(reg, b.gep(accs, [I32(0), I32(r)]))
            continue
        vec = b.bitcast(reg, ir.VectorType(_HALF, 2))
        for e in range(2):
            x = b.fpext(b.extract_element(vec, I32(e)), _F32)
            b.store(x, b.gep(accs, [I32(0), I32(2 * r + e)]))
    fma = module.intrinsic("llvm.fma.f32", _F32, [_F32, _F32, _F32])
    # for v in values: for k in K: acc[v] = fma(A[row, k], B[col, k], acc[v])
    entry = b.block
    v_head = fn.append_basic_block("v")
    v_body = fn.append_basic_block("v.body")
    k_head = fn.append_basic_block("k")
    k_body = fn.append_basic_block("k.body")
    v_next = fn.append_basic_block("v.next")
    done = fn.append_basic_block("done")
    b.branch(v_head)
    b.position_at_end(v_head)
    v = b.phi(I32, "v")
    v.add_incoming(I32(0), entry)
    b.cbranch(b.icmp_unsigned("<", v, I32(n_vals)), v_body, done)
    b.position_at_end(v_body)
    index = b.add(thread_part, b.load(b.gep(table, [I32(0), v], inbounds=True)))
    row = b.urem(index, I32(64))
    col = b.udiv(index, I32(64))
    slot = b.gep(accs, [I32(0), v], inbounds=True)
    start = b.select(keep_d, b.load(slot), ir.Constant(_F32, 0.0))
    b.branch(k_head)
    b.position_at_end(k_head)
    kk = b.phi(I32, "k")
    kk.add_incoming(I32(0), v_body)
    acc = b.phi(_F32, "a")
    acc.add_incoming(start, v_body)
    b.cbranch(b.icmp_unsigned("<", kk, I32(k_)), k_body, v_next)
    b.position_at_end(k_body)
    x, y = operands(b, row, col, kk)
    acc.add_incoming(b.call(fma, [x, y, acc]), b.block)
    kk.add_incoming(b.add(kk, I32(1)), b.block)
    b.branch(k_head)
    b.position_at_end(v_next)
    b.store(acc, slot)
    v.add_incoming(b.add(v, I32(1)), v_next)
    b.branch(v_head)
    b.position_at_end(done)
    out: ir.Value = ir.Constant(st, ir.Undefined)
    for r in range(n_regs):
        if f32_acc:
            value = b.load(b.gep(accs, [I32(0), I32(r)]))
        else:
            vec = ir.Constant(ir.VectorType(_HALF, 2), ir.Undefined)
            for e in range(2):
                x = b.fptrunc(b.load(b.gep(accs, [I32(0), I32(2 * r + e)])), _HALF)
                vec = b.insert_element(vec, x, I32(e))
            value = b.bitcast(vec, I32)
        out = b.insert_value(out, value, r)
    b.ret(out)


def _mma_async_helper(ft: FunctionTranslator, op: Any, st: ir.Type) -> ir.Function:
    module = ft.module
    key = ("wgmma", op.instruction, op.transpose_a, op.transpose_b, op.scaleD.value)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    atom = _wgmma_atom(op)
    ptx_a, ptx_b = op.typeA.value, op.typeB.value
    name = "__layoutc_" + op.instruction.replace(".", "_") + f"_t{op.transpose_a}{op.transpose_b}"
    if op.scaleD.value != "one":
        name += "_d0"
    fnty = ir.FunctionType(st, [cc.context_pointer_type(), I64, I64, st])
    fn = ir.Function(module.llvm, fnty, name)
    fn.linkage = "internal"
    ctx, word_a, word_b, acc_in = fn.args
    b = IRBuilder(fn.append_basic_block("entry"))
    smem = cc.load_field(b, ctx, "smem")
    base = b.ptrtoint(smem, I64)
    da, db = _Desc(b, word_a, base), _Desc(b, word_b, base)
    tid = b.and_(cc.load_field(b, ctx, "linear_tid"), I32(127))

    def operands(b: IRBuilder, row: ir.Value, col: ir.Value, k: ir.Value) -> Any:
        pa = _gmma_address(b, da, op.transpose_a == 0, _BYTES[ptx_a], row, k)
        pb = _gmma_address(b, db, op.transpose_b == 0, _BYTES[ptx_b], col, k)
        return _load_f32(b, smem, pa, ptx_a), _load_f32(b, smem, pb, ptx_b)

    keep = ir.Constant(ir.IntType(1), op.scaleD.value == "one")
    _accumulate(module, fn, b, atom, st, acc_in, keep, tid, operands)
    module.helpers[key] = fn
    return fn


_BYTES = {"e4m3": 1, "e5m2": 1, "f16": 2, "bf16": 2, "tf32": 4}


@NVVM_HOST.register(nvvm_wgmma.WgmmaMmaAsyncOp)
def _mma_async_host(ft: FunctionTranslator, op: nvvm_wgmma.WgmmaMmaAsyncOp) -> None:
    acc = ft.get(op.inouts)
    fn = _mma_async_helper(ft, op, acc.type)
    args = [ft.context_struct, ft.get(op.descriptorA), ft.get(op.descriptorB), acc]
    ft.set_result(op, ft.builder.call(fn, args, name=ft.name(op)))


def _decode_a(b: IRBuilder, word: ir.Value, e: int, ptx: str) -> ir.Value:
    """Value ``e`` of a 32-bit A register holding ``ptx``-typed data, as f32."""
    if ptx == "tf32":
        return b.bitcast(b.and_(word, I32(0xFFFFE000 - (1 << 32))), _F32)
    if ptx in ("e4m3", "e5m2"):
        return fp8_to_f32(b, b.lshr(word, I32(8 * e)), ptx)
    half = b.trunc(b.lshr(word, I32(16 * e)), I16)
    if ptx == "bf16":
        return b.bitcast(b.shl(b.zext(half, I32), I32(16)), _F32)
    return b.fpext(b.bitcast(half, _HALF), _F32)


def wgmma_rs_exchange(atom: Any) -> tuple[tuple[int, ...], ...]:
    """For each lane of a warp, for each A value it holds (the atom's value order): the value's
    index in the warp's 16 x K slice of A, column-major (row within the warp's 16 rows + 16 *
    k). Warp w holds rows 16w..16w+15 (the A layout's warp mode has stride 16), so one table
    serves all four warps."""
    k_ = atom.shape_mnk[2]
    n_values = atom.frag_a.count * atom.frag_a.per_register
    rows = []
    for lane in range(32):
        row = []
        for v in range(n_values):
            index = atom.layout_a(lane, v)
            m, k = index % 64, index // 64
            assert m < 16 and k < k_, (atom.name, lane, v)
            row.append(m + 16 * k)
        rows.append(tuple(row))
    return tuple(rows)


def _mma_async_rs_helper(module: Any, atom: Any, transpose_b: int, st: ir.Type) -> ir.Function:
    """The register-A wgmma on the host: every lane posts its A registers to the warp scratch
    (two per round), each lane of the warp copies the warp's 16 x K slice of A out of them by
    the atom's A layout, then computes its accumulators as the SS form does, B through its
    descriptor."""
    from .translate_host import _Helper

    key = ("wgmma_rs", atom.name, transpose_b)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    frag = atom.frag_a
    k_ = atom.shape_mnk[2]
    ptx_a, ptx_b = atom.type_a, atom.type_b
    name = f"__layoutc_wgmma_rs_{atom.name}_t{transpose_b}"
    h = _Helper(module, name, st, [*([I32] * frag.count), I64, I32, st])
    b = h.b
    *a_regs, word_b, scale_d, acc_in = h.args
    smem = cc.load_field(b, h.ctx, "smem")
    db = _Desc(b, word_b, b.ptrtoint(smem, I64))
    a_warp = b.alloca(ir.ArrayType(_F32, 16 * k_), name="A")
    places = h.table(name + "_places", wgmma_rs_exchange(atom))
    per = frag.per_register
    for start in range(0, frag.count, 2):
        chunk = list(range(start, min(start + 2, frag.count)))
        for word, r in enumerate(chunk):
            b.store(a_regs[r], h.slot(h.lane, word, I32))
        h.sync()
        entry = b.block
        head = h.fn.append_basic_block(f"round{start // 2}")
        body = h.fn.append_basic_block(f"round{start // 2}.body")
        done = h.fn.append_basic_block(f"round{start // 2}.done")
        b.branch(head)
        b.position_at_end(head)
        src = b.phi(I32, "src")
        src.add_incoming(I32(0), entry)
        b.cbranch(b.icmp_unsigned("<", src, I32(32)), body, done)
        b.position_at_end(body)
        for word, r in enumerate(chunk):
            bits = b.load(h.slot(src, word, I32))
            for e in range(per):
                index = b.load(b.gep(places, [I32(0), src, I32(r * per + e)], inbounds=True))
                value = _decode_a(b, bits, e, ptx_a)
                b.store(value, b.gep(a_warp, [I32(0), index], inbounds=True))
        src.add_incoming(b.add(src, I32(1)), b.block)
        b.branch(head)
        b.position_at_end(done)
        h.sync()
    tid = b.and_(cc.load_field(b, h.ctx, "linear_tid"), I32(127))

    def operands(b: IRBuilder, row: ir.Value, col: ir.Value, k: ir.Value) -> Any:
        a = b.load(b.gep(a_warp, [I32(0), b.add(b.urem(row, I32(16)), b.mul(k, I32(16)))]))
        pb = _gmma_address(b, db, transpose_b == 0, _BYTES[ptx_b], col, k)
        return a, _load_f32(b, smem, pb, ptx_b)

    keep = b.icmp_unsigned("!=", scale_d, I32(0))
    _accumulate(module, h.fn, b, atom, st, acc_in, keep, tid, operands)
    module.helpers[key] = h.fn
    return h.fn


def emulate_inline_asm(ft: FunctionTranslator, op: llvm.InlineAsmOp) -> None:
    """Inline PTX has no meaning on the CPU, except the register-A wgmma that convert-to-llvm
    marks with its atom (``tile.wgmma_rs``): emulated, once its text is checked to be exactly
    the instruction that atom defines."""
    from layoutc.ir.dialects.tile.attributes import MMAAtomAttr

    attr = op.attributes.get("tile.wgmma_rs")
    if not isinstance(attr, MMAAtomAttr):
        raise fail(op, "not supported: inline assembly in the host flavour (it is GPU code)")
    atom = attr.op
    texts = [atom.wgmma_rs_asm(t) for t in (0, 1)]
    got = (op.asm_string.value, op.constraints.value)
    if got not in texts or atom.frag_a is None:
        raise fail(op, f"internal error: inline assembly is not the wgmma of '{atom.name}'")
    transpose_b = texts.index(got)
    args = ft.operands(op)
    n_regs = atom.frag_c.count
    acc_t = ft.result_type(op)
    b = ft.builder
    acc: ir.Value = ir.Constant(acc_t, ir.Undefined)
    for i in range(n_regs):
        acc = b.insert_value(acc, args[i], i)
    a_regs = args[n_regs : n_regs + atom.frag_a.count]
    word_b, scale_d = args[n_regs + atom.frag_a.count :]
    fn = _mma_async_rs_helper(ft.module, atom, transpose_b, acc_t)
    call = b.call(fn, [ft.context_struct, *a_regs, word_b, scale_d, acc], name=ft.name(op))
    ft.set_result(op, call)


def _stmatrix_atom(num: int, transposed: bool) -> Any:
    from layoutc.ir.dialects.tile.atoms import copy_operation

    return copy_operation(f"stmatrix.x{num}{'.trans' if transposed else ''}", 32 * num)


def stmatrix_targets(num: int, transposed: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each lane, for each 16-bit element of its source registers in order: (the lane
    whose row address receives it, byte offset in that 16-byte row), from the copy atom."""
    atom = _stmatrix_atom(num, transposed)
    receiver: dict[int, int] = {}
    for lane in range(32):
        receiver.setdefault(atom.dst_bits(lane, 0) // 128, lane)
    return tuple(
        tuple(
            (receiver[bit // 128], (bit % 128) // 8)
            for bit in (atom.src_bits(lane, 16 * e) for e in range(2 * num))
        )
        for lane in range(32)
    )


def _stmatrix_helper(module: Any, num: int, transposed: bool) -> ir.Function:
    from .translate_host import _Helper

    key = ("stmatrix", num, transposed)
    fn = module.helpers.get(key)
    if fn is not None:
        return fn
    name = f"__layoutc_stmatrix_x{num}{'_trans' if transposed else ''}"
    h = _Helper(module, name, VOID, [ir.PointerType(ir.IntType(8)), *([I32] * num)])
    b = h.b
    table = h.table(
        name + "_targets",
        tuple(
            tuple(lane * 16 + byte for lane, byte in row)
            for row in stmatrix_targets(num, transposed)
        ),
    )
    b.store(b.ptrtoint(h.args[0], I64), h.slot(h.lane, 0, I64))
    h.sync()
    for e in range(2 * num):
        code = h.lookup(table, e)
        dst_lane = b.lshr(code, I32(4))
        byte = b.and_(code, I32(15))
        row = b.inttoptr(b.load(h.slot(dst_lane, 0, I64)), ir.PointerType(ir.IntType(8)))
        reg = h.args[1 + e // 2]
        half = b.trunc(b.lshr(reg, I32(16 * (e % 2))), I16)
        b.store(half, b.bitcast(b.gep(row, [byte]), I16.as_pointer()), align=2)
    h.sync()
    b.ret_void()
    module.helpers[key] = h.fn
    return h.fn


@NVVM_HOST.register(nvvm_wgmma.StMatrixOp)
def _stmatrix_host(ft: FunctionTranslator, op: nvvm_wgmma.StMatrixOp) -> None:
    """Each lane posts its row address to the warp scratch; after a warp sync every lane
    writes its b16 values to the rows the copy atom's layouts send them to."""
    fn = _stmatrix_helper(ft.module, len(op.sources), op.transposed)
    b = ft.builder
    ptr = b.bitcast(ft.get(op.ptr), ir.PointerType(ir.IntType(8)))
    ft.builder.call(fn, [ft.context_struct, ptr, *(ft.get(v) for v in op.sources)])
