"""``convert-gpu-to-nvvm``: gpu ids, sizes, barrier and shuffles to the nvvm dialect (MLIR's GPUToNVVM lowering, on the IR that still uses ``index``).

- ``gpu.thread_id``/``block_id``/``block_dim``/``grid_dim`` x|y|z and ``gpu.lane_id`` read
  ``nvvm.read.ptx.sreg.{tid,ctaid,ntid,nctaid}.{x,y,z}``/``laneid`` (``i32``), widened to
  ``index`` with ``arith.index_castui`` (they are never negative).
- ``gpu.barrier`` -> ``nvvm.barrier0``.
- ``gpu.shuffle mode %v, %offset, %width`` -> ``nvvm.shfl.sync`` with MLIR's operands: active
  mask ``-1 >> (32 - width)``, mask-and-clamp ``width - 1``; for ``up`` the segment mask
  ``(32 - width) << 8`` (CUDA's ``__shfl_up_sync``; MLIR's ``32 - width`` clamp marks every
  lane below ``32 - width`` invalid). The valid flag is PTX's predicate. 64-bit values are
  shuffled as two 32-bit halves.

The nvvm ops mean the same on both code-generation flavours (the host translation realises
them with the CPU thread context), so this pass has no target option.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import FloatType, IntegerType, Type, i32, i64, index
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith, gpu
from layoutc.ir.dialects.llvm import ExtractValueOp
from layoutc.ir.dialects.nvvm import SPECIAL_REGISTERS, Barrier0Op, ShflOp

from ..base import Pass, Statistic
from ..registry import register_pass

_REGISTERS: dict[type[Operation], str] = {
    gpu.ThreadIdOp: "tid",
    gpu.BlockIdOp: "ctaid",
    gpu.BlockDimOp: "ntid",
    gpu.GridDimOp: "nctaid",
}
_SHFL_KIND = {"xor": "bfly", "up": "up", "down": "down", "idx": "idx"}


def convert_gpu_to_nvvm(root: Operation, ops: list[Operation] | None = None) -> int:
    """Rewrite every gpu op nested in ``root`` (a module or a function); return how many.
    ``ops``: the gpu ops in walk order, when the caller has them (convert-to-llvm's walk)."""
    count = 0
    if ops is None:
        ops = [o for o in root.walk_ops() if o.dialect is gpu.DIALECT]
    for op in ops:
        b = Builder(InsertionPoint.before_op(op), op.location)
        register = _REGISTERS.get(type(op))
        if register is not None:
            _replace_with_register(b, op, f"{register}.{op.dimension.value}")
        elif isinstance(op, gpu.LaneIdOp):
            _replace_with_register(b, op, "laneid")
        elif isinstance(op, gpu.BarrierOp):
            b.create(Barrier0Op)
            op.erase()
        elif isinstance(op, gpu.ShuffleOp):
            _lower_shuffle(b, op)
        else:
            continue
        count += 1
    return count


def _replace_with_register(b: Builder, op: Operation, register: str) -> None:
    value = b.create(SPECIAL_REGISTERS[register]).results[0]
    widened = b.create(arith.IndexCastUIOp, value, index).results[0]
    op.replace_all_uses_with([widened])
    op.erase()


def _const(b: Builder, v: int) -> Value:
    return b.insert(arith.ConstantOp.from_int(v, i32)).results[0]


def _shuffle_32(
    b: Builder, kind: str, mask: Value, value: Value, offset: Value, clamp: Value, pred: bool
) -> tuple[Value, Value | None]:
    op = b.create(ShflOp, kind, mask, value, offset, clamp, with_predicate=pred)
    if not pred:
        return op.results[0], None
    v = b.create(ExtractValueOp, op.results[0], [0]).results[0]
    p = b.create(ExtractValueOp, op.results[0], [1]).results[0]
    return v, p


def _lower_shuffle(b: Builder, op: Any) -> None:
    mode = op.mode.value
    kind = _SHFL_KIND[mode]
    width = op.width
    mask = b.create(arith.ShRUIOp, _const(b, -1), b.create(arith.SubIOp, _const(b, 32), width))
    if mode == "up":
        # CUDA's __shfl_up_sync operand: the segment mask (32 - width) in bits 8..12, clamp 0.
        # (MLIR passes 32 - width as the clamp, which PTX reads as "lanes below 32 - width
        # have no source": wrong for every width below 32.)
        inactive = b.create(arith.SubIOp, _const(b, 32), width)
        clamp = b.create(arith.ShLIOp, inactive.results[0], _const(b, 8))
    else:
        clamp = b.create(arith.SubIOp, width, _const(b, 1))
    mask_v, clamp_v = mask.results[0], clamp.results[0]
    want_pred = bool(op.valid.uses)
    t: Type = op.value.type
    if t in (i32,) or (isinstance(t, FloatType) and t.width == 32):
        value, pred = _shuffle_32(b, kind, mask_v, op.value, op.offset, clamp_v, want_pred)
    else:
        value, pred = _shuffle_64(b, kind, mask_v, op, clamp_v, want_pred)
    op.shuffleResult.replace_all_uses_with(value)
    if pred is not None:
        op.valid.replace_all_uses_with(pred)
    op.erase()


def _shuffle_64(
    b: Builder, kind: str, mask: Value, op: Any, clamp: Value, want_pred: bool
) -> tuple[Value, Value | None]:
    """A 64-bit value as two 32-bit shuffles of its halves (the same source lane for both)."""
    t = op.value.type
    bits = (
        op.value
        if isinstance(t, IntegerType)
        else b.create(arith.BitcastOp, op.value, i64).results[0]
    )
    lo = b.create(arith.TruncIOp, bits, i32).results[0]
    hi_wide = b.create(arith.ShRUIOp, bits, b.insert(arith.ConstantOp.from_int(32, i64)))
    hi = b.create(arith.TruncIOp, hi_wide.results[0], i32).results[0]
    lo_s, pred = _shuffle_32(b, kind, mask, lo, op.offset, clamp, want_pred)
    hi_s, _ = _shuffle_32(b, kind, mask, hi, op.offset, clamp, False)
    lo_w = b.create(arith.ExtUIOp, lo_s, i64).results[0]
    hi_w = b.create(arith.ExtUIOp, hi_s, i64).results[0]
    shifted = b.create(arith.ShLIOp, hi_w, b.insert(arith.ConstantOp.from_int(32, i64)))
    joined = b.create(arith.OrIOp, shifted.results[0], lo_w).results[0]
    if isinstance(t, IntegerType):
        return joined, pred
    return b.create(arith.BitcastOp, joined, t).results[0], pred


@register_pass
class ConvertGPUToNVVM(Pass):
    """gpu dialect ops to nvvm special registers, barrier0 and shfl.sync."""

    argument = "convert-gpu-to-nvvm"
    display_name = "ConvertGpuOpsToNVVMOps"
    summary = "Lower gpu ids, sizes, barrier and shuffle to nvvm"

    converted = Statistic("Number of gpu ops converted")

    def run_on_operation(self, op: Operation) -> None:
        self.converted += convert_gpu_to_nvvm(op)
