"""Function signatures at the LLVM level: the kernel ABI of docs/architecture.md.

A ``!tile.tensor`` parameter becomes its pointer (``!tile.ptr`` of the tensor's element, space
and alignment, later ``!llvm.ptr<1>`` for global memory) followed by one ``index`` parameter
per ``?`` entry of its layout, in the order the layout text lists them (shape entries, then
strides). Other parameters keep their types (``index`` becomes ``iN`` with everything else).
For the host target a kernel gets one more, last parameter: the CPU thread context pointer,
marked with the ``layoutc.thread_context`` argument attribute.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import ArrayAttr, DictionaryAttr, UnitAttr
from layoutc.ir.core.types import FunctionType, Type, index
from layoutc.ir.core.values import Value
from layoutc.ir.dialects.llvm.types import LLVMPointerType
from layoutc.ir.dialects.tile.types import TensorType

from .tensor_access import TensorDesc

KERNEL_ATTR = "gpu.kernel"
CONTEXT_ARG_ATTR = "layoutc.thread_context"
HOST = "host"


def _is_memory_tensor(t: Type) -> bool:
    return isinstance(t, TensorType) and not t.is_coord


def flattened_types(t: Type) -> list[Type]:
    """The parameters one parameter of type ``t`` becomes."""
    if _is_memory_tensor(t):
        return [t.ptr_type()] + [index] * t.num_dynamic  # type: ignore[union-attr]
    return [t]


def convert_signature(func: Any, target: str, tensors: dict[Value, TensorDesc]) -> list[Value]:
    """Flatten ``func``'s tensor parameters (recording their descriptors in ``tensors``) and add
    the host context parameter to kernels; return the old tensor arguments (to erase once
    unused)."""
    ftype: FunctionType = func.type
    old_attrs = list(func.arg_attrs) if func.arg_attrs is not None else []
    old_attrs += [DictionaryAttr()] * (len(ftype.inputs) - len(old_attrs))
    inputs: list[Type] = []
    attrs: list[DictionaryAttr] = []
    for t, a in zip(ftype.inputs, old_attrs):
        parts = flattened_types(t)
        inputs.extend(parts)
        attrs.append(a)
        attrs.extend([DictionaryAttr()] * (len(parts) - 1))
    retired: list[Value] = []
    defined = bool(func.body.blocks)
    if defined:
        entry = func.body.blocks[0]
        pos = 0
        for arg in list(entry.args):
            t = arg.type
            if _is_memory_tensor(t):
                ptr = entry.insert_argument(pos + 1, t.ptr_type(), arg.loc)
                dyn = [
                    entry.insert_argument(pos + 2 + k, index, arg.loc) for k in range(t.num_dynamic)
                ]
                if arg.name_hint:
                    ptr.name_hint = arg.name_hint
                tensors[arg] = TensorDesc(ptr, t, dyn)
                retired.append(arg)
                pos += 2 + len(dyn)
            else:
                pos += 1
    if target == HOST and KERNEL_ATTR in func.attributes and defined:
        ctx_t = LLVMPointerType(0)
        inputs.append(ctx_t)
        attrs.append(DictionaryAttr({CONTEXT_ARG_ATTR: UnitAttr()}))
        func.body.blocks[0].add_argument(ctx_t, func.location).name_hint = "ctx"
    func.function_type = _type_attr(FunctionType(inputs, ftype.results))
    if any(len(d) for d in attrs):
        func.arg_attrs = ArrayAttr(attrs)
    elif func.arg_attrs is not None:
        func.arg_attrs = None
    return retired


def _type_attr(t: FunctionType) -> Any:
    from layoutc.ir.core.attributes import TypeAttr

    return TypeAttr(t)


def erase_retired(func: Any, retired: list[Value]) -> None:
    """Remove the old tensor parameters (their uses were rewritten) from the entry block."""
    if not retired:
        return
    entry = func.body.blocks[0]
    for arg in retired:
        entry.erase_argument(arg.index)
