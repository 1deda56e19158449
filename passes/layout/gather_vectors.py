"""Vector accesses through gather layouts: the dense proxy the vectorization proof works on.

A gather layout ``(1,1):(Custom{idx,S},1) o off o inner`` addresses
``idx[inner(c)[0]] * S + inner(c)[1]`` (CUTLASS example 59: rows of ``S`` channels gathered
by an index buffer). ``w`` elements are one aligned vector access when the lanes move only the
dense offset, by 1 each, from a multiple of ``w``, and ``S`` is a multiple of ``w``: the row
start ``idx[...] * S`` is then aligned whatever the buffer holds.

:func:`dense_proxy` turns such a layout into a plain layout with the same dense part and the
buffer position scaled by a large power of two (``2^40``): a linear map that is contiguous and
aligned exactly where the gathered addresses are (a run of stride 1 cannot involve the buffer
position, whose steps are multiples of ``2^40``, and every alignment proof modulo ``w`` ignores
them). The ordinary proof of :mod:`.vectorize` then runs on it unchanged.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.basis import ScaledBasis
from layoutc.ir.algebra.gather import CustomStride, gather_strides
from layoutc.ir.algebra.layout import Layout

from ..analysis.symbolic import TensorInfo

__all__ = ["POSITION_SCALE", "dense_proxy"]

POSITION_SCALE = 1 << 40
"""What one step of the index-buffer position weighs in the proxy."""


class NoProxy(Exception):
    """The gather layout has no dense proxy (the reason is the message)."""


def dense_proxy(info: TensorInfo) -> tuple[TensorInfo, int] | None:
    """``(info with the proxy layout and offset, the row stride S)`` for a tensor with a gather
    layout; None for other tensors; raises :class:`NoProxy` for a gather layout whose
    accesses must stay element by element."""
    layout = info.layout
    strides = gather_strides(layout)
    if strides is None:
        return None
    if len(strides) != 2 or not isinstance(strides[0], CustomStride) or strides[1] != 1:
        raise NoProxy(f"the gather's outer strides {strides} are not (Custom{{idx,S}},1)")
    scale = strides[0].stride
    if type(scale) is not int or scale <= 0:
        raise NoProxy(f"the gathered rows' stride {scale} is not a static positive int")
    inner = layout.inner
    if not isinstance(inner, Layout):
        raise NoProxy("the gather's inner layout is itself composed")
    try:
        stride = _map(inner.stride)
        offset = _component(layout.offset)
    except NoProxy:
        raise
    proxy = Layout._new(inner.shape, stride)
    return info._replace(layout=proxy, offset=info.offset + offset), scale


def _map(d: Any) -> Any:
    if isinstance(d, tuple):
        return tuple(_map(e) for e in d)
    return _component(d)


def _component(x: Any) -> Any:
    """``x`` (a basis stride, an arithmetic tuple or 0) as ``dense + position * 2^40``."""
    if isinstance(x, ScaledBasis):
        if x.modes == (0,):
            return x.value * POSITION_SCALE
        if x.modes == (1,):
            return x.value
        raise NoProxy(f"the inner stride {x} is not on the buffer position or the dense offset")
    if isinstance(x, tuple):
        parts = it.flatten_to_tuple(x) if any(isinstance(e, tuple) for e in x) else x
        if len(parts) > 2:
            raise NoProxy(f"the offset {x} has more than two components")
        position = parts[0] if parts else 0
        dense = parts[1] if len(parts) > 1 else 0
        return dense + position * POSITION_SCALE
    if type(x) is int and x == 0:
        return 0
    raise NoProxy(f"the inner stride {x} is not a basis stride")
