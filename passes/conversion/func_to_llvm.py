"""``convert-func-to-llvm``: ``func.func`` -> ``llvm.func``, ``func.return`` -> ``llvm.return``,
``func.call`` -> ``llvm.call`` (upstream MLIR's mapping).

- Several results become one ``!llvm.struct`` (packed with ``llvm.insertvalue`` at the return,
  unpacked with ``llvm.extractvalue`` after the call); ``index`` becomes
  ``i<index-bitwidth>`` in signatures and block arguments.
- Argument attributes and discardable attributes stay. A private definition gets ``internal``
  linkage (what it means in LLVM IR).
- A kernel (``gpu.kernel``) also gets ``nvvm.kernel`` and, with ``gpu.known_block_size``, the
  same bound as ``nvvm.maxntid``: what upstream's gpu-to-nvvm lowering puts on kernels, so
  that upstream's LLVM IR translation emits a kernel entry with its launch bound.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import TypeAttr, UnitAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import IndexType, IntegerType, Type, VectorType
from layoutc.ir.dialects.func import CallOp, FuncOp, ReturnOp
from layoutc.ir.dialects.llvm import (
    ExtractValueOp,
    InsertValueOp,
    LinkageAttr,
    LLVMCallOp,
    LLVMFuncOp,
    LLVMFunctionType,
    LLVMReturnOp,
    LLVMStructType,
    PoisonOp,
    is_llvm_type,
)

from ..base import Option, Pass, Statistic
from ..registry import register_pass

KERNEL_ATTR = "gpu.kernel"
BLOCK_SIZE_ATTR = "gpu.known_block_size"
NVVM_KERNEL_ATTR = "nvvm.kernel"
NVVM_MAXNTID_ATTR = "nvvm.maxntid"


class FuncToLLVMError(Exception):
    """A function whose signature has no LLVM form (the message names the type)."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def _llvm_type_name_error(t: Type) -> str:
    if t.text == "tf32":
        return "not supported: 'tf32' has no LLVM type (tf32 lives in i32 bits)"
    return f"not supported: '{t.text}' has no LLVM type"


class _Types:
    def __init__(self, index_bitwidth: int):
        self.index = IntegerType(index_bitwidth)

    def __call__(self, t: Type) -> Type:
        if isinstance(t, IndexType):
            return self.index
        if isinstance(t, VectorType) and isinstance(t.element_type, IndexType):
            return VectorType(t.shape, self.index, t.scalable)
        return t

    def result(self, results: Any) -> Type | None:
        if not results:
            return None
        if len(results) == 1:
            return self(results[0])
        return LLVMStructType([self(t) for t in results])


def _convert_func(f: FuncOp, conv: _Types) -> LLVMFuncOp:
    ftype = f.type
    declaration = not f.body.blocks
    for t in (*ftype.inputs, *ftype.results):
        if not is_llvm_type(conv(t)):
            raise FuncToLLVMError(f, _llvm_type_name_error(t))
    props: dict[str, Any] = {
        "sym_name": f.sym_name,
        "function_type": TypeAttr(
            LLVMFunctionType([conv(t) for t in ftype.inputs], conv.result(ftype.results))
        ),
    }
    vis = f.sym_visibility
    if vis is not None and vis.value == "private" and not declaration:
        props["linkage"] = LinkageAttr("internal")
    elif vis is not None:
        props["sym_visibility"] = vis
    if f.arg_attrs is not None:
        props["arg_attrs"] = f.arg_attrs
    if f.res_attrs is not None and len(ftype.results) == 1:
        props["res_attrs"] = f.res_attrs
    attrs = dict(f.attributes)
    if f.no_inline is not None:
        attrs.setdefault("no_inline", UnitAttr())
    if KERNEL_ATTR in attrs:
        attrs.setdefault(NVVM_KERNEL_ATTR, UnitAttr())
        if BLOCK_SIZE_ATTR in attrs:
            attrs.setdefault(NVVM_MAXNTID_ATTR, attrs[BLOCK_SIZE_ATTR])
    new = LLVMFuncOp.create(
        properties=props, attributes=attrs, regions=[_take_body(f)], loc=f.location
    )
    for block in new.body.blocks:
        for a in block.args:
            a.type = conv(a.type)
    result_type = new.type.result
    for block in new.body.blocks:
        term = block.last_op
        if isinstance(term, ReturnOp):
            _convert_return(term, result_type)
    f.parent.insert_before(new, f)
    f.erase()
    return new


def _take_body(f: FuncOp) -> Any:
    from layoutc.ir.core.block import Region

    region = Region()
    region.take_body(f.body)
    return region


def _convert_return(op: ReturnOp, result_type: Type | None) -> None:
    b = Builder(InsertionPoint.before_op(op), op.location)
    values = list(op.operands)
    if len(values) <= 1:
        b.create(LLVMReturnOp, values[0] if values else None)
    else:
        agg = b.create(PoisonOp, result_type).results[0]
        for i, v in enumerate(values):
            agg = b.create(InsertValueOp, agg, v, [i]).results[0]
        b.create(LLVMReturnOp, agg)
    op.erase()


def _convert_call(op: CallOp, conv: _Types) -> None:
    b = Builder(InsertionPoint.before_op(op), op.location)
    result_type = conv.result([r.type for r in op.results])
    call = b.create(LLVMCallOp, op.callee.root, list(op.operands), result_type)
    if op.arg_attrs is not None:
        call.properties["arg_attrs"] = op.arg_attrs
    for k, v in op.attributes.items():
        call.attributes[k] = v
    if len(op.results) == 1:
        op.results[0].replace_all_uses_with(call.results[0])
    elif op.results:
        for i, r in enumerate(op.results):
            r.replace_all_uses_with(b.create(ExtractValueOp, call.results[0], [i]).results[0])
    op.erase()


def convert_func_to_llvm(root: Operation, index_bitwidth: int = 64) -> int:
    """Convert every func op nested in ``root``; return how many functions."""
    conv = _Types(index_bitwidth)
    funcs, calls = [], []
    for op in root.walk_ops():
        if isinstance(op, FuncOp):
            funcs.append(op)
        elif isinstance(op, CallOp):
            calls.append(op)
    for call in calls:
        _convert_call(call, conv)
    for f in funcs:
        _convert_func(f, conv)
    return len(funcs)


@register_pass
class ConvertFuncToLLVM(Pass):
    """func.func/return/call to llvm.func/return/call."""

    argument = "convert-func-to-llvm"
    display_name = "ConvertFuncToLLVMPass"
    summary = "Convert func.func, func.return and func.call to the llvm dialect"
    anchor = "builtin.module"

    index_bitwidth = Option(
        int, 64, "bit width of index values", name="index-bitwidth", choices=(32, 64)
    )
    converted = Statistic("Number of functions converted")

    def run_on_operation(self, op: Operation) -> None:
        try:
            self.converted += convert_func_to_llvm(op, self.index_bitwidth)
        except FuncToLLVMError as e:
            self.emit_error(e.op, e.message)
            self.signal_failure()


__all__ = ["ConvertFuncToLLVM", "FuncToLLVMError", "convert_func_to_llvm"]
