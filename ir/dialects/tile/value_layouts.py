"""Layouts of tensor values traced through their producers: how a verifier proves that two
operands' dynamic sizes are equal.

A tensor type only says *which* layout entries are dynamic (``?``); two ``?`` of two types are
unrelated. The values behind them are known from the producers: ``tile.make_tensor`` takes a
layout value, ``layout.make_shape`` its ``index`` operands, a view's layout is the algebra applied
to its source's. :class:`ValueSymbols` evaluates a tensor value's layout along that chain with
each leaf ``index`` value as a symbol of its own, so two operands whose sizes come from the same
SSA value (or the same arithmetic on the same values) have provably equal sizes, and sizes built
from different values do not.

Leaves: constants are ints; ``tile.assume``, ``arith.index_cast``/``extsi``/``extui`` are the
value they wrap; ``arith.addi``/``subi``/``muli`` and the ``layout`` dialect's integer results
(``layout.size`` of a layout read back with ``tile.get_layout``) are expressions of their
operands; anything else (a kernel argument, a thread index, a loop variable, a load) is a
symbol carrying what its producer states (``layoutc.divisible_by``/``lower``/``upper`` argument
attributes, ``tile.assume``). A producer this module does not know makes the tensor's layout its
type's, with a symbol per ``?`` of that one value: still equal to itself, never to another.

``named`` lets the front end give the leaves it knows its own symbols (``N`` of an annotation),
so its diagnostics speak the user's names; the verifiers use the default symbols.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from ...algebra.errors import LayoutError
from ...algebra.layout import make_identity_layout
from ...algebra.symbolic import Symbol, SymInt
from ...core.attributes import IntegerAttr
from ...core.folding import constant_value
from ...core.types import IndexType, IntegerType
from ...core.values import OpResult, Value
from ..layout.base import AlgebraOp
from ..layout.ops_values import ConstantOp, MakeIntTupleOp, MakeShapeOp
from ..layout.symbolic_types import symbol_for
from ..layout.text import is_instance
from ..layout.types import LayoutTextType
from .inference import index_fact
from .layouts import roles_of_text, text_of_layout
from .ops_element import AssumeOp
from .ops_tensor import (
    AllocFragmentOp,
    AllocSmemOp,
    GetLayoutOp,
    MakeIdentityTensorOp,
    MakeTensorOp,
)
from .ops_view import ViewOp
from .types import TensorType

__all__ = ["IntLike", "ValueSymbols"]

IntLike = int | SymInt

_SAME_VALUE = frozenset({"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"})
_ARITH = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
}


class ValueSymbols:
    """Symbolic values of the ``index`` values, layout values and tensors of one piece of IR.

    Memoised per value: use one instance per question (a verifier call), since the IR may
    change between questions.
    """

    __slots__ = ("_ints", "_layouts", "_named", "_opaque", "_tensors")

    def __init__(self, named: Callable[[Value], IntLike | None] | None = None):
        self._named = named
        self._ints: dict[Value, IntLike] = {}
        self._layouts: dict[Value, Any] = {}
        self._tensors: dict[Value, Any] = {}
        self._opaque: dict[Value, list[Any]] = {}

    # -- index values ---------------------------------------------------------------------------
    def index(self, v: Value) -> IntLike:
        """An ``index``/integer value as an int or a symbolic expression."""
        found = self._ints.get(v)
        if found is None:
            found = self._named(v) if self._named is not None else None
            if found is None:
                found = self._compute_index(v)
            self._ints[v] = found
        return found

    def _compute_index(self, v: Value) -> IntLike:
        attr = constant_value(v)
        if isinstance(attr, IntegerAttr):
            return attr.value
        op = v.defining_op
        if op is not None:
            if isinstance(op, AssumeOp) or op.name in _SAME_VALUE:
                return self.index(op.operands[0])
            arith = _ARITH.get(op.name)
            if arith is not None:
                return arith(self.index(op.operands[0]), self.index(op.operands[1]))
            if isinstance(op, AlgebraOp):
                result = self._algebra_result(op, v)
                if type(result) is int or isinstance(result, SymInt):
                    return result
        return self._leaf(v)

    def _leaf(self, v: Value) -> Symbol:
        """A symbol for a value nothing is known about but its producer's facts."""
        facts: dict[str, int] = {}
        fact = index_fact(v)
        if fact is not None and fact[0] == "assume":
            _, div, lower, upper = fact
            if div is not None:
                facts["divisible_by"] = div
            if lower is not None:
                facts["lower"] = lower
            if upper is not None:
                facts["upper"] = upper
        # the layout dialect's contract: entries are non-negative, shape entries positive
        floor = 1 if any(isinstance(u.owner, MakeShapeOp) for u in v.uses) else 0
        facts["lower"] = max(facts.get("lower", floor), floor)
        hint = getattr(v, "name_hint", None) or "v"
        return _leaf_symbol(v, hint, facts, floor)

    # -- layout-dialect values ------------------------------------------------------------------
    def value(self, v: Value) -> Any:
        """A ``!layout.*`` value as an algebra value (an integer value: :meth:`index`)."""
        if isinstance(v.type, (IndexType, IntegerType)):
            return self.index(v)
        found = self._layouts.get(v)
        if found is None:
            found = self._compute_value(v)
            self._layouts[v] = found
        return found

    def _compute_value(self, v: Value) -> Any:
        op = v.defining_op
        t = v.type
        if isinstance(op, ConstantOp):
            return op.value.value  # type: ignore[attr-defined]
        if isinstance(op, MakeIntTupleOp) and isinstance(t, LayoutTextType):
            return t.parsed.substitute([self.index(x) for x in op.operands])
        if isinstance(op, GetLayoutOp):
            return self.tensor(op.operands[0])
        if isinstance(op, AlgebraOp):
            result = self._algebra_result(op, v)
            if result is not None:
                return result
        if isinstance(t, LayoutTextType):
            return t.parsed.substitute(self._opaque_entries(v, t.parsed.roles))
        raise LayoutError(f"'{t.text}' is not a layout value")

    def _algebra_result(self, op: Any, v: Value) -> Any:
        try:
            args = [self.value(x) for x in op.operands]
            cls = type(op)
            results = _memoised(cls.evaluate, cls, op.properties, cls._pad_args(args))
        except LayoutError:
            return None
        assert isinstance(v, OpResult)
        return results[v.index]

    # -- tensors --------------------------------------------------------------------------------
    def tensor(self, v: Value) -> Any:
        """The layout of a ``!tile.tensor`` value (its entries ints or symbolic expressions)."""
        found = self._tensors.get(v)
        if found is None:
            found = self._compute_tensor(v)
            self._tensors[v] = found
        return found

    def _compute_tensor(self, v: Value) -> Any:
        t = v.type
        if not isinstance(t, TensorType):
            raise LayoutError(f"'{t.text}' is not a tensor")
        if t.is_static:
            return t.layout()
        layout = None
        op = v.defining_op
        try:
            if isinstance(op, MakeTensorOp):
                layout = self.value(op.layout)
            elif isinstance(op, ViewOp):
                args = [self.tensor(op.source), *(self.value(x) for x in op.operands[1:])]
                layout = _memoised(type(op).compute, type(op), op.properties, args)[0]
            elif isinstance(op, MakeIdentityTensorOp):
                layout = make_identity_layout(self.value(op.shape))
            elif isinstance(op, (AllocSmemOp, AllocFragmentOp)):
                layout = t.layout()
        except LayoutError:
            layout = None
        if layout is not None and _fits(layout, t.layout_text):
            return layout
        return t.layout(self._opaque_entries(v, roles_of_text(t.layout_text)))

    def _opaque_entries(self, v: Value, roles: Any) -> list[Any]:
        """One symbol per ``?`` of a value whose producer is not understood (equal to itself
        only)."""
        found = self._opaque.get(v)
        if found is None:
            hint = getattr(v, "name_hint", None) or "t"
            found = [symbol_for(f"{hint}_{i}", role) for i, role in enumerate(roles)]
            self._opaque[v] = found
        return found


# A leaf's symbol per (value, name, facts): every ValueSymbols asking about the same value with
# the same facts gets the same symbol (the front end's check, the op's verifier when it is built
# and the trace's verifier ask about the same chains), so the algebra below is computed once for
# all of them. Sound: a symbol stands for one SSA value under the facts it carries, and two
# values never share one. Weak in the value: the table dies with the IR.
_LEAVES: weakref.WeakKeyDictionary[Value, dict[tuple, Symbol]] = weakref.WeakKeyDictionary()


def _leaf_symbol(v: Value, hint: str, facts: dict[str, int], floor: int) -> Symbol:
    key = (hint, *sorted(facts.items()))
    known = _LEAVES.get(v)
    if known is None:
        known = _LEAVES[v] = {}
    sym = known.get(key)
    if sym is None:
        try:
            sym = Symbol.fresh(hint, positive=False, **facts)
        except LayoutError:  # contradictory facts: unreachable code, any symbol will do
            sym = Symbol.fresh(hint, positive=False, lower=floor)
        known[key] = sym
    return sym


# The algebra of view and layout ops on (op class, properties, operand values): a pure function of
# them (properties are uniqued attributes; layouts, int-tuples and SymInts compare structurally).
_COMPUTED: dict[tuple, Any] = {}
_COMPUTED_LIMIT = 4096


def _memoised(fn: Callable[..., Any], cls: type, props: Any, args: list[Any]) -> Any:
    try:
        key = (cls, tuple(props.items()), tuple(args))
        found = _COMPUTED.get(key)
    except TypeError:  # an unhashable part: no memo
        return fn(props, args)
    if found is None:
        found = tuple(fn(props, args))
        if len(_COMPUTED) >= _COMPUTED_LIMIT:
            _COMPUTED.clear()
        _COMPUTED[key] = found
    return found


# _fits per (layout, type text): a pure function of both (the layout's text is its canonical
# form's); the front end's check and the two verifications ask it of the same chains, and
# formatting a layout is most of what it costs (about a tenth of a GEMM's trace).
_FITS: dict[tuple[Any, str], bool] = {}


def _fits(layout: Any, text: str) -> bool:
    """The evaluated layout is the type's, with values for (some of) its ``?`` entries."""
    key = (layout, text)
    try:
        found = _FITS.get(key)
    except TypeError:  # an unhashable part: no memo
        return _fits_uncached(layout, text)
    if found is None:
        found = _fits_uncached(layout, text)
        if len(_FITS) >= _COMPUTED_LIMIT:
            _FITS.clear()
        _FITS[key] = found
    return found


def _fits_uncached(layout: Any, text: str) -> bool:
    try:
        return is_instance(text_of_layout(layout)[0], text)
    except LayoutError:
        return False
