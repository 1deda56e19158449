"""Dynamic integers as algebra symbols, and algebra results back as IR.

The layout algebra works on ints and ``SymInt``s. To run it on dynamic values (a thread index,
a tensor's dynamic extent), each such value is bound to a fresh ``Symbol`` carrying what the
front end knows (non-negative); the algebra's result is then rebuilt as ``arith`` ops through
the symbolic engine's emitter. So ``lc.crd2idx((tid, 3), layout)`` or the shape of a dynamic
tensor cost nothing special: the algebra is the single source of truth.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra.symbolic import Symbol, SymInt, emit
from ..ir.core.values import Value
from . import scalars, state
from .scalars import Int


def _tables() -> tuple[dict[Any, Symbol], dict[Symbol, Int]]:
    st = state.current()
    tables = st.extras.get("symbols")
    if tables is None:
        tables = st.extras["symbols"] = ({}, {})
    return tables


def symbolize(x: Any, name: str = "v", **facts: Any) -> Any:
    """An int stays an int; a dynamic integer becomes (always the same) Symbol for its value.

    ``facts`` (``divisible_by``, ``lower``, ``upper``) are the symbol's assumptions when it is
    made (the first time the value is seen)."""
    if isinstance(x, bool):
        raise state.error(f"expected an integer, got the bool {x!r}")
    if isinstance(x, int):
        return x
    y = scalars.to_index(x)
    if isinstance(y, int):
        return y
    by_value, by_symbol = _tables()
    sym = by_value.get(y.value)
    if sym is None:
        facts.setdefault("lower", 0 if y.nonneg else None)
        sym = Symbol.fresh(name, positive=False, **facts)
        by_value[y.value] = sym
        by_symbol[sym] = y
    return sym


def name_argument_entry(value: Value, sym: Symbol) -> None:
    """Record that ``value`` (a kernel argument's layout entry) is the user's symbol ``sym``, so
    size proofs (:func:`argument_symbol`) speak the user's names (``N`` of an annotation)."""
    st = state.current()
    st.extras.setdefault("argument_symbols", {})[value] = sym


def argument_symbol(value: Value) -> Symbol | None:
    """The user's symbol of an argument's layout entry (None for any other value)."""
    st = state.active()
    if st is None:
        return None
    return st.extras.get("argument_symbols", {}).get(value)


def symbolize_tree(x: Any, name: str = "v") -> Any:
    """``symbolize`` over nested tuples (``_`` and other leaves kept)."""
    if isinstance(x, (tuple, list)):
        return tuple(symbolize_tree(e, name) for e in x)
    if isinstance(x, (int, scalars.Scalar)):
        return symbolize(x, name)
    return x


class _ProxyEmitter:
    """Rebuilds a SymInt with front-end proxies (so arith op choice and folding are shared)."""

    def __init__(self, by_symbol: dict[Symbol, Int]):
        self.by_symbol = by_symbol

    def const(self, value: int) -> Any:
        return value

    def symbol(self, sym: Symbol) -> Any:
        proxy = self.by_symbol.get(sym)
        if proxy is None:
            raise state.error(
                f"internal: the symbol {sym} is not bound to a value of this kernel (an algebra "
                "value from another kernel or made by hand was used)"
            )
        return proxy

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def sub(self, a: Any, b: Any) -> Any:
        return a - b

    def mul(self, a: Any, b: Any) -> Any:
        return a * b

    def floordiv(self, a: Any, b: Any) -> Any:
        return a // b

    def mod(self, a: Any, b: Any) -> Any:
        return a % b

    def ceildiv(self, a: Any, b: Any) -> Any:
        return -((-a) // b)

    def min(self, a: Any, b: Any) -> Any:
        return scalars.minimum(a, b)

    def max(self, a: Any, b: Any) -> Any:
        return scalars.maximum(a, b)


def all_bound(x: Any) -> bool:
    """True when every symbol in ``x`` (an int, SymInt or tuple) stands for a value of this
    kernel."""
    from ..ir.algebra.symbolic import walk

    if isinstance(x, tuple):
        return all(all_bound(e) for e in x)
    if not isinstance(x, SymInt):
        return True
    bound = _tables()[1]
    return all(s in bound for s in walk(x) if isinstance(s, Symbol))


def materialize(x: Any) -> Any:
    """An int stays an int; a SymInt over bound symbols becomes a dynamic integer (arith ops)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if not isinstance(x, SymInt):
        raise state.error(f"expected an integer expression, got {x!r}")
    return emit(x, _ProxyEmitter(_tables()[1]), {})


def materialize_tree(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(materialize_tree(e) for e in x)
    if isinstance(x, (int, SymInt)):
        return materialize(x)
    return x
