"""CuTe's ``recast<NewType>(tensor)``: the same bytes viewed as another element type.

``lc.recast(t, lc.f16)`` is ``make_tensor(recast_ptr<f16>(t.data()), recast_layout<Old,
f16>(t.layout()))``, as CuTe defines it: a ``tile.recast_ptr`` of the tensor's pointer and the
algebra's ``recast_layout`` of its layout (``layoutc.ir.algebra.recast``). It works on global,
shared and register tensors (a register fragment seen through another type is the same
alloca, which LLVM's SROA turns back into registers).
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import ComposedLayout, LayoutError
from ..ir.algebra.recast import recast_layout
from ..ir.dialects import tile as T
from . import state
from .dtypes import ElementType
from .tensor import Pointer, Tensor, make_tensor


def _storage_bits(bits: int) -> int:
    return max(bits, 8)  # i1 is stored as a byte (C++'s bool): sizeof_bits<bool> is 8


_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8"}
_NUMPY.update({"i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool"})


def _host_recast(array: Any, dtype: ElementType) -> Any:
    """Outside kernels: the host array's memory as ``dtype`` (numpy's ``view``, which is
    CuTe's recast of a tensor whose stride-1 mode is the last axis)."""
    import numpy as np

    name = _NUMPY.get(dtype.name)
    if name is None:
        raise TypeError(f"lc.recast: numpy has no {dtype.name} type to view a host array as")
    try:
        return np.asarray(array).view(name)
    except ValueError as e:
        raise TypeError(f"lc.recast of a host array to {dtype.name}: {e}") from None


def recast(t: Any, dtype: ElementType) -> Any:
    """``lc.recast(t, dtype)``: tensor ``t``'s memory as elements of ``dtype`` (CuTe's
    ``recast<NewType>(tensor)``); outside kernels, a host array's numpy view. On a layout,
    ``recast_layout`` needs the two types: ``lc.recast_layout(layout, old, new)``."""
    if not isinstance(dtype, ElementType):
        raise state.error(f"lc.recast: expected an element type (lc.f16, ...), got {dtype!r}")
    if not isinstance(t, Tensor):
        if state.active() is None and hasattr(t, "__array__"):
            return _host_recast(t, dtype)
        raise state.error(
            f"lc.recast expects a tensor, got {t!r}; for a layout use "
            "lc.recast_layout(layout, old_type, new_type)"
        )
    if t.type.is_coord:
        raise state.error("lc.recast: a coordinate tensor has no memory to reinterpret")
    old_bits = _storage_bits(t.type.element_bits)
    new_bits = _storage_bits(dtype.bits)
    need = new_bits // 8
    if t.alignment < need:
        raise state.error(
            f"lc.recast: the tensor is only {t.alignment}-byte aligned, so its elements cannot "
            f"be read as {dtype.name} ({need}-byte elements)"
        )
    template = t.type.layout()
    if isinstance(template, ComposedLayout) and not (
        type(template.offset) is int and template.offset == 0
    ):
        raise state.error(
            f"not supported: lc.recast of a view of a swizzled tensor ({t.type.layout_text}): "
            "its offset lives inside the swizzle; recast the whole tensor, then take the view"
        )
    try:
        layout = recast_layout(t.layout, old_bits, new_bits)
    except LayoutError as e:
        raise state.error(f"lc.recast to {dtype.name}: {e}") from None
    ptr = state.emit(T.RecastPtrOp(t.iterator.value, dtype.ir_type)).results[0]
    return make_tensor(Pointer(ptr), layout)
