"""The dynamic shared memory a kernel needs, as a formula over its parameters.

``lc.dynamic_smem_tensor`` with a run-time size records the bytes it needs as a ``SymInt``
(``start + cosize * element bytes``) whose symbols stand for dynamic values of the trace. When
each of those values is a kernel parameter (an integer scalar, a tensor's extent or stride
carrier, possibly through ``index_cast``/``ext``), the bytes are a formula the launch can
evaluate: the JSON tree of ``runtime/smem_need.py``. Otherwise (a size computed from a thread
index, say) there is no formula and the launch cannot check ``smem=``.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra.symbolic import Symbol, SymInt
from ..ir.core.values import BlockArgument, Value
from ..ir.dialects import arith

__all__ = ["smem_formula"]

_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp)


class _Unstatable(Exception):
    pass


class _TreeEmitter:
    """SymInt -> the runtime's formula tree, symbols as parameter names."""

    def __init__(self, name_of: dict[Symbol, str]):
        self.name_of = name_of

    def const(self, value: int) -> Any:
        return value

    def symbol(self, sym: Symbol) -> Any:
        name = self.name_of.get(sym)
        if name is None:
            raise _Unstatable
        return name

    def add(self, a: Any, b: Any) -> Any:
        return ("add", a, b)

    def sub(self, a: Any, b: Any) -> Any:
        return ("sub", a, b)

    def mul(self, a: Any, b: Any) -> Any:
        return ("mul", a, b)

    def floordiv(self, a: Any, b: Any) -> Any:
        return ("floordiv", a, b)

    def mod(self, a: Any, b: Any) -> Any:
        return ("mod", a, b)

    def ceildiv(self, a: Any, b: Any) -> Any:
        return ("ceildiv", a, b)

    def min(self, a: Any, b: Any) -> Any:
        return ("min", a, b)

    def max(self, a: Any, b: Any) -> Any:
        return ("max", a, b)


def _parameter(value: Value, func: Any, params: tuple) -> str | None:
    """The name of the integer kernel parameter ``value`` is (through casts), or None."""
    while not isinstance(value, BlockArgument):
        op = value.defining_op
        if not isinstance(op, _CASTS):
            return None
        value = op.operands[0]
    if value.block is not func.entry_block or value.index >= len(params):
        return None
    p = params[value.index]
    return p.name if p.kind == "scalar" and p.dtype in ("i32", "i64") else None


def smem_formula(need: Any, func: Any, params: tuple, extras: dict[str, Any]) -> Any:
    """The formula of ``need`` (an int or SymInt of bytes) over ``params``, or None."""
    if type(need) is int:
        return need
    if not isinstance(need, SymInt):
        return None
    values: dict[Symbol, Value] = {}
    by_symbol = extras.get("symbols", ({}, {}))[1]
    for sym, proxy in by_symbol.items():
        values[sym] = proxy.value
    for value, sym in extras.get("argument_symbols", {}).items():
        values.setdefault(sym, value)
    name_of: dict[Symbol, str] = {}
    for sym in need.free_symbols:
        value = values.get(sym)
        name = _parameter(value, func, params) if value is not None else None
        if name is None:
            return None
        name_of[sym] = name
    try:
        return need.emit(_TreeEmitter(name_of))
    except _Unstatable:
        return None
