"""nvvm ops -> LLVM IR for the GPU: NVVM intrinsics, and exact PTX as inline assembly.

Special registers, ``barrier0``, ``bar.warp.sync`` and ``shfl.sync`` are NVVM intrinsics,
which both libNVVM and LLVM's NVPTX back end know. ``cp.async``, ``ldmatrix`` and
``mma.sync`` are emitted as the PTX instruction itself (inline assembly): the PTX text is what
the ISA documents and what the tests grep for, it needs no intrinsic that one of the two back
ends may lack, and it is how CUTLASS issues them. Pointers are 64-bit (``l``) operands, the
NVVM data layout's pointer size for every address space. The memory-touching ones clobber
``memory`` so LLVM keeps them ordered with the surrounding loads and stores.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects import nvvm
from llvmlite import ir

from .translate_function import FunctionTranslator, HandlerTable
from .translate_host import shuffle_predicate
from .translate_llvm import inline_asm
from .translate_types import I1, I32, VOID

NVVM_GPU = HandlerTable("translate nvvm")


def _sreg(ft: FunctionTranslator, op: Any) -> None:
    fn = ft.module.intrinsic(f"llvm.nvvm.read.ptx.sreg.{op.register}", I32, [])
    ft.set_result(op, ft.builder.call(fn, [], name=ft.name(op)))


def _register_special_registers() -> None:
    from layoutc.ir.dialects.nvvm import SPECIAL_REGISTERS

    NVVM_GPU.register(*SPECIAL_REGISTERS.values())(_sreg)


_register_special_registers()


@NVVM_GPU.register(nvvm.Barrier0Op)
def _barrier0(ft: FunctionTranslator, op: nvvm.Barrier0Op) -> None:
    ft.builder.call(ft.module.intrinsic("llvm.nvvm.barrier0", VOID, []), [])


@NVVM_GPU.register(nvvm.BarWarpSyncOp)
def _bar_warp_sync(ft: FunctionTranslator, op: nvvm.BarWarpSyncOp) -> None:
    fn = ft.module.intrinsic("llvm.nvvm.bar.warp.sync", VOID, [I32])
    ft.builder.call(fn, [ft.get(op.mask)])


@NVVM_GPU.register(nvvm.ShflOp)
def _shfl_sync(ft: FunctionTranslator, op: nvvm.ShflOp) -> None:
    """``llvm.nvvm.shfl.sync.<kind>.<type>``; the predicate (``return_value_and_is_valid``) is
    computed from the lane id and operands by its PTX definition: libNVVM has no ``...p``
    intrinsics, and the arithmetic is the host flavour's too."""
    mask, val, offset, clamp = ft.operands(op)
    t = val.type
    suffix = "i32" if isinstance(t, ir.IntType) else "f32"
    fn = ft.module.intrinsic(f"llvm.nvvm.shfl.sync.{op.kind.value}.{suffix}", t, [I32, t, I32, I32])
    value = ft.builder.call(fn, [mask, val, offset, clamp], name=ft.name(op))
    if not op.with_predicate:
        ft.set_result(op, value)
        return
    b = ft.builder
    lane = b.call(ft.module.intrinsic("llvm.nvvm.read.ptx.sreg.laneid", I32, []), [])
    pred = shuffle_predicate(b, op.kind.value, lane, offset, clamp)
    agg = ir.Constant(ir.LiteralStructType([t, I1]), ir.Undefined)
    ft.set_result(op, b.insert_value(b.insert_value(agg, value, 0), pred, 1))


@NVVM_GPU.register(nvvm.CpAsyncOp)
def _cp_async(ft: FunctionTranslator, op: nvvm.CpAsyncOp) -> None:
    args = [ft.get(op.dst), ft.get(op.src)]
    asm = f"cp.async.{op.modifier.value}.shared.global [$0], [$1], {op.size.value}"
    constraints = "l,l"
    if op.cpSize is not None:
        args.append(ft.get(op.cpSize))
        asm += ", $2"
        constraints += ",r"
    inline_asm(ft, asm + ";", constraints + ",~{memory}", args, VOID, True)


@NVVM_GPU.register(nvvm.CpAsyncCommitGroupOp)
def _commit(ft: FunctionTranslator, op: nvvm.CpAsyncCommitGroupOp) -> None:
    inline_asm(ft, "cp.async.commit_group;", "~{memory}", [], VOID, True)


@NVVM_GPU.register(nvvm.CpAsyncWaitGroupOp)
def _wait(ft: FunctionTranslator, op: nvvm.CpAsyncWaitGroupOp) -> None:
    inline_asm(ft, f"cp.async.wait_group {op.n.value};", "~{memory}", [], VOID, True)


def ldmatrix_instruction(num: int, transposed: bool) -> str:
    """PTX ``ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16``."""
    return f"ldmatrix.sync.aligned.m8n8.x{num}{'.trans' if transposed else ''}.shared.b16"


@NVVM_GPU.register(nvvm.LdMatrixOp)
def _ldmatrix(ft: FunctionTranslator, op: nvvm.LdMatrixOp) -> None:
    num = op.num.value
    regs = ", ".join(f"${i}" for i in range(num))
    asm = f"{ldmatrix_instruction(num, op.transposed)} {{{regs}}}, [${num}];"
    constraints = ",".join(["=r"] * num + ["l", "~{memory}"])
    ret = ft.result_type(op)
    ft.set_result(op, inline_asm(ft, asm, constraints, [ft.get(op.ptr)], ret, True))


def _as_b32(ft: FunctionTranslator, v: ir.Value) -> ir.Value:
    """A register value as PTX sees it: f32, f64 and integers stay, everything else (packed
    halves) is its 32 bits."""
    if isinstance(v.type, (ir.FloatType, ir.DoubleType, ir.IntType)):
        return v
    return ft.builder.bitcast(v, I32)


_CONSTRAINT = {"f32": "f", "f64": "d"}  # PTX register classes; the rest are b32 ("r")


@NVVM_GPU.register(nvvm.MmaOp)
def _mma(ft: FunctionTranslator, op: nvvm.MmaOp) -> None:
    props = op.properties
    operands = op._operands
    na, nb, nc = props["operandSegmentSizes"].values
    # The variant follows from the properties and the first type of each group (verified
    # before translation): op.config once per such signature and translation
    memo = ft.module.memo
    signature = (
        "mma.config",
        tuple(props.items()),
        *(operands[k].value.type if n else None for k, n in ((0, na), (na, nb), (na + nb, nc))),
    )
    cfg = memo.get(signature)
    if cfg is None:
        cfg = memo[signature] = op.config
    b = ft.builder
    values = [_as_b32(ft, ft.get(u.value)) for u in operands]
    a, bb, c = values[:na], values[na : na + nb], values[na + nb :]
    c_letter = _CONSTRAINT.get(cfg.c_ptx, "r")
    a_letter = "d" if cfg.a_ptx == "f64" else "r"  # packed 16-bit and tf32 A/B are b32
    reg_t = c[0].type
    key = ("mma", cfg, id(reg_t))
    got = ft.module.memo.get(key)
    if got is None:  # the text and result struct of this variant (the struct holds reg_t)
        n = 0
        groups = []
        for count in (cfg.c_regs, cfg.a_regs, cfg.b_regs, cfg.c_regs):
            groups.append("{" + ", ".join(f"${n + i}" for i in range(count)) + "}")
            n += count
        constraints = ",".join(
            [f"={c_letter}"] * cfg.c_regs
            + [a_letter] * (cfg.a_regs + cfg.b_regs)
            + [c_letter] * cfg.c_regs
        )
        struct = ir.LiteralStructType([reg_t] * cfg.c_regs)
        got = ft.module.memo[key] = (f"{cfg.instruction} {', '.join(groups)};", constraints, struct)
    asm, constraints, struct = got
    raw = inline_asm(ft, asm, constraints, a + bb + c, struct, True)
    out_t = ft.result_type(op)
    if out_t.elements[0] == reg_t:
        ft.set_result(op, raw)
        return
    agg: ir.Value = ir.Constant(out_t, ir.Undefined)
    for i in range(cfg.c_regs):
        agg = b.insert_value(agg, b.bitcast(b.extract_value(raw, i), out_t.elements[i]), i)
    ft.set_result(op, agg)


from . import translate_nvvm_sm90 as _sm90  # noqa: E402,F401 (registers the Hopper ops)
