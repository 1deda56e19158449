"""CUDA's atomic functions on one element of a global or shared tensor.

``old = lc.atomic_add(t, coord, v)`` is CuTe code's ``atomicAdd(&t(coord), v)``: the element
becomes ``old + v`` atomically and ``old`` is returned. Likewise ``atomic_sub``, ``atomic_max``,
``atomic_min`` (signed), ``atomic_exch``, ``atomic_and``/``or``/``xor``, and
``lc.atomic_cas(t, coord, compare, v)`` (atomicCAS: store ``v`` if the element equals
``compare``). Element types are CUDA's (``tile.atomic_rmw``/``tile.atomic_cas`` in
``ir/dialects/tile/ops_atomic.py``); ``v`` converts to the element type like a store.

CUDA's atomics are relaxed: ``lc.threadfence()`` (``__threadfence``) orders them with the
thread's other memory accesses, the fence-based release/acquire of the PTX memory model
(data, fence, flag on one side; flag, fence, data on the other).
"""

from __future__ import annotations

from typing import Any

from ..ir.dialects import llvm
from ..ir.dialects import tile as T
from ..ir.dialects.llvm.attributes import AtomicOrdering
from ..ir.dialects.tile.ops_atomic import atomic_type_problem
from . import scalars, state
from .tensor import Tensor, _element_value, _has_wildcard, coordinate


def _target(t: Any, coord: Any, kind: str, fn: str) -> tuple[Tensor, Any]:
    if not isinstance(t, Tensor):
        raise state.error(f"lc.{fn} expects a tensor first, got {t!r}")
    why = atomic_type_problem(kind, t.type)
    if why is not None:
        raise state.error(f"lc.{fn}: {why}")
    c = coordinate(coord)
    if _has_wildcard(c):
        raise state.error(f"lc.{fn}: the coordinate has '_': an atomic updates one element")
    return t, c


def _rmw(kind: str):
    fn = f"atomic_{kind}"

    def atomic(t: Any, coord: Any, value: Any) -> Any:
        t, c = _target(t, coord, kind, fn)
        v = _element_value(value, t.type.element)
        return scalars.wrap(state.emit(T.AtomicRMWOp(kind, v, t.value, c)).results[0])

    atomic.__name__ = atomic.__qualname__ = fn
    atomic.__doc__ = (
        f"CUDA's atomic{kind.capitalize()}: the element of ``t`` at ``coord`` is updated with "
        "``value`` atomically; returns its old value."
    )
    return atomic


atomic_add = _rmw("add")
atomic_sub = _rmw("sub")
atomic_max = _rmw("max")
atomic_min = _rmw("min")
atomic_exch = _rmw("exch")
atomic_and = _rmw("and")
atomic_or = _rmw("or")
atomic_xor = _rmw("xor")


def atomic_cas(t: Any, coord: Any, compare: Any, value: Any) -> Any:
    """CUDA's atomicCAS: stores ``value`` if the element equals ``compare``; returns the old
    element either way."""
    t, c = _target(t, coord, "cas", "atomic_cas")
    elem = t.type.element
    cmp, v = _element_value(compare, elem), _element_value(value, elem)
    return scalars.wrap(state.emit(T.AtomicCASOp(cmp, v, t.value, c)).results[0])


def threadfence() -> None:
    """CUDA's ``__threadfence()``: a sequentially consistent fence at device (GPU) scope,
    ``llvm.fence syncscope("agent") seq_cst``: ``membar.gl`` on the GPU, a fence on the CPU.
    Before a relaxed atomic flag store it makes the thread's earlier writes (and, after a
    block barrier, the block's) visible to a thread that sees the flag and fences in turn."""
    state.emit(llvm.FenceOp(AtomicOrdering.seq_cst, "agent"))
