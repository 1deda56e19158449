"""``convert-to-llvm{target=nvvm|host index-bitwidth=64}``: the whole lowering to the LLVM
level that compiler/codegen/translate.py reads (docs/codegen.md).

Steps, in order: structured control flow to blocks (``convert-scf-to-cf``), ``math.tanh`` (math_to_llvm.py: the GPU's
``tanh.approx.f32`` where its fast-math flags allow, else a rational approximation in arith), gpu ops to nvvm
(``convert-gpu-to-nvvm``), the kernel ABI (tensor parameters flattened; the host's context
parameter), the tile dialect's lowered forms to llvm/nvvm ops, and finally the types of every
value (``index`` -> ``iN``, ``!tile.ptr`` -> ``!llvm.ptr``); for the GPU, ``gpu.printf`` becomes a
``vprintf`` call (printf_to_llvm.py). arith, cf and func stay for canonicalize and cse; the
pipeline's convert-arith-to-llvm, convert-cf-to-llvm and convert-func-to-llvm finish the job.
"""

from __future__ import annotations

from layoutc.ir.core.operation import Operation
from layoutc.ir.dialects.func import FuncOp
from layoutc.ir.dialects.gpu import DIALECT as GPU_DIALECT
from layoutc.ir.dialects.gpu import PrintfOp

from ..base import Option, Pass
from ..registry import register_pass
from .gpu_to_nvvm import convert_gpu_to_nvvm
from .kernel_abi import HOST, convert_signature, erase_retired
from .llvm_types import LLVMTypeConverter
from .math_to_llvm import MATH_OPS, lower_math
from .printf_to_llvm import lower_printf_to_vprintf
from .retype import retype
from .scf_to_cf import LoweringError, lower_scf_to_cf
from .tensor_access import AccessError
from .tile_to_llvm import ConversionError, TileLowering

TARGETS = ("nvvm", HOST)


def convert_to_llvm(module: Operation, target: str = "nvvm", index_bitwidth: int = 64) -> None:
    """Lower ``module`` in place (raises ConversionError/LoweringError at the failing op)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    types = LLVMTypeConverter(index_bitwidth)
    lower_scf_to_cf(module)
    # One walk finds what the steps below convert (none of them makes or moves the ops the
    # others look for, so each list is what a walk of its own would find).
    funcs: list[Operation] = []
    math_ops: list[Operation] = []
    gpu_ops: list[Operation] = []
    gpu_dialect = GPU_DIALECT
    for op in module.walk_ops(include_self=False):
        if op.dialect is gpu_dialect:
            gpu_ops.append(op)
        elif isinstance(op, FuncOp):
            funcs.append(op)
        elif isinstance(op, MATH_OPS):
            math_ops.append(op)
    printf = any(isinstance(op, PrintfOp) for op in gpu_ops)
    lower_math(module, target, math_ops)
    convert_gpu_to_nvvm(module, gpu_ops)
    lowering = TileLowering(module, types, target)
    retired = {f: convert_signature(f, target, lowering.tensors) for f in funcs}
    for f in funcs:
        if f.body.blocks:
            lowering.run(f)
    for f in funcs:
        for arg in retired[f]:
            if arg.uses:
                user = next(iter(arg.uses)).owner
                raise ConversionError(
                    user,
                    f"not supported: '{user.name}' on a tensor parameter (convert-to-llvm "
                    "addresses tensors in tile accesses and tile.get_ptr only)",
                )
        erase_retired(f, retired[f])
    retype(module, types)
    if target == "nvvm" and printf:
        lower_printf_to_vprintf(module)


@register_pass
class ConvertToLLVM(Pass):
    """Everything to llvm + nvvm + arith + cf for the NVVM or the host translation."""

    argument = "convert-to-llvm"
    summary = "Lower scf, gpu and tile to the LLVM level (llvm, nvvm, arith, cf) for a target"
    anchor = "builtin.module"

    target = Option(
        str, "nvvm", "code-generation flavour: nvvm (GPU) or host (CPU)", choices=TARGETS
    )
    index_bitwidth = Option(
        int, 64, "bit width of index values", name="index-bitwidth", choices=(32, 64)
    )

    def run_on_operation(self, op: Operation) -> None:
        try:
            convert_to_llvm(op, self.target, self.index_bitwidth)
        except (ConversionError, LoweringError) as e:
            self.emit_error(e.op, e.message)
            self.signal_failure()
        except AccessError as e:
            self.emit_error(op, str(e))
            self.signal_failure()
