"""The symbolic value analysis: IR values as symbolic integers, layouts and tensors.

Every pass that reasons about layouts asks this analysis (docs/dialects.md, "Symbols and
dynamic values"):

- :meth:`SymbolicAnalysis.sym_of`: an ``index``/integer value as an int or ``SymInt``. Constants
  are ints; ``arith`` ops on known values become expressions (with each op's exact semantics:
  truncating divisions only where the operands' signs make them floor divisions, shifts and
  masks by constants as multiplications, divisions and remainders); anything else (a kernel
  argument, a thread index, a loop variable, a load) becomes a fresh ``Symbol`` bound to the
  value, carrying what :mod:`.facts` knows about it. ``tile.assume`` adds facts.
- :meth:`SymbolicAnalysis.value_of`: a ``!layout.*`` value as an algebra value (layout,
  int-tuple, tile), by running each producer's own algebra (``AlgebraOp.evaluate``) on the
  symbolic operand values; :meth:`layout_of` is the same for layouts.
- :meth:`SymbolicAnalysis.tensor_of`: a ``!tile.tensor`` as :class:`TensorInfo` (the base
  pointer or allocation, the element offset from it, the layout, space, element type and the
  base alignment), through ``tile.make_tensor``, ``tile.ptr_offset``, the view ops'
  ``compute`` and allocations.

Symbols are bound to the values they stand for (:func:`binding_of`), so ``emit`` can rebuild any
expression as ``arith`` ops. Results are memoised per value; a pass that rewrites a value calls
:meth:`SymbolicAnalysis.invalidate` (or uses a fresh analysis).

Dynamic entries obey the dialect's type contract (docs/dialect-layout.md): a shape entry is at
least 1, strides, offsets and coordinates at least 0. Where an operand's own facts do not show
that, the entry becomes an *alias* symbol bound to the same value that carries the contract's
bound as well (and the divisibility and bounds its expression has), so the analysis is never
weaker than type inference.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra import make_identity_layout
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.gather import CustomStride, IndexedGather
from layoutc.ir.algebra.layout import Layout
from layoutc.ir.algebra.sym.cache import PROOF_CUTOFFS
from layoutc.ir.algebra.symbolic import Symbol, SymInt, sym_known_divisor, sym_max, sym_min
from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.dispatch import OpTable
from layoutc.ir.core.location import Location, UnknownLoc
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import IndexType, IntegerType, Type
from layoutc.ir.core.values import BlockArgument, OpResult, Value
from layoutc.ir.dialects import arith as A
from layoutc.ir.dialects import func, gpu, scf
from layoutc.ir.dialects import layout as LD
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.layout.base import AlgebraOp
from layoutc.ir.dialects.layout.symbolic_types import symbol_for
from layoutc.ir.dialects.layout.types import LayoutTextType
from layoutc.ir.dialects.tile import coords as C
from layoutc.ir.dialects.tile.layouts import layout_of_text, origin_roles, roles_of_text
from layoutc.ir.dialects.tile.origins import advance, coprofile, element_at
from layoutc.ir.dialects.tile.spaces import element_bytes
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset, element_offset
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from . import facts as F
from .conform import conform_to_type
from .renaming import generic_key, rename, symbols_within

IntLike = int | SymInt

__all__ = [
    "AnalysisError",
    "SymbolicAnalysis",
    "TensorInfo",
    "binding_of",
    "emit",
    "layout_of",
    "sym_of",
    "tensor_of",
    "value_of",
]


class AnalysisError(Exception):
    """The analysis cannot describe a value (a "not supported" case); ``location`` is where."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.location = location or UnknownLoc()


class TensorInfo(NamedTuple):
    """What a ``!tile.tensor`` value is: ``base`` (a ``!tile.ptr`` value, an allocation op's
    tensor result, or None for a coordinate tensor), ``offset`` (elements from the base; for a
    coordinate tensor its origin, the coordinate of its first element), ``layout`` (the
    algebra layout), ``space``, ``element`` (None for coordinate tensors) and ``alignment``
    (of the base, in bytes)."""

    base: Value | None
    offset: Any
    layout: Any
    space: str
    element: Type | None
    alignment: int

    @property
    def element_bytes(self) -> int:
        if self.element is None:
            raise ValueError("a coordinate tensor has no element width")
        return element_bytes(self.element.text)

    def first_alignment(self) -> int:
        """Proven alignment (bytes) of the tensor's first element: the base alignment, reduced
        by the offset's provable divisibility."""
        return aligned_after(self.alignment, self.element_bytes, self.offset)


class PointerInfo(NamedTuple):
    """A pointer as ``base + offset`` elements, with the base's alignment in bytes."""

    base: Value
    offset: Any
    alignment: int


class GatherPointer:
    """The index buffer of a gather layout, bound to the ``tile.make_tensor`` operand that
    gives it: its name in the layout's text, the operand and where it points."""

    __slots__ = ("info", "name", "value")

    def __init__(self, name: str, value: Value, info: PointerInfo):
        self.name = name
        self.value = value
        self.info = info

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GatherPointer) and self.value is other.value

    def __hash__(self) -> int:
        return hash(("GatherPointer", id(self.value)))

    def __repr__(self) -> str:
        return f"GatherPointer({self.name})"


def gather_pointers(layout: Any) -> dict[str, GatherPointer]:
    """The bound index buffers of a (view of a) gather tensor's layout, by name."""
    found: dict[str, GatherPointer] = {}

    def walk(x: Any) -> None:
        if isinstance(x, ComposedLayout):
            walk(x.outer)
            walk(x.inner)
        elif isinstance(x, Layout):
            for d in it.flatten_to_tuple(x.stride):
                if isinstance(d, CustomStride):
                    handle = getattr(d.func, "indices", None)
                    if isinstance(handle, GatherPointer):
                        found[handle.name] = handle

    walk(layout)
    return found


def known_divisor(x: IntLike) -> int:
    """The largest int provably dividing ``x`` (0 for the int 0: every int divides it)."""
    if type(x) is int:
        return abs(x)
    return sym_known_divisor(x)


def aligned_after(alignment: int, element_bytes: int, offset: IntLike) -> int:
    """Alignment (bytes, a power of two) of ``base + offset`` elements for an aligned base."""
    d = known_divisor(offset) * element_bytes
    if d == 0:
        return alignment
    a = alignment
    while d % a:
        a //= 2
    return a


class _Bindings:
    """Symbol -> the value it stands for, weak on both sides.

    Symbols are weak keys: a binding lives as long as some expression mentions the symbol, so
    `emit` works for any expression the analysis produced. Values are weak too: the symbolic
    engine's memo tables keep symbols alive for thousands of compiles, and a strong value would
    keep its whole module alive with them (every compile leaked its lowered IR). A value is
    alive while its IR is; a symbol whose IR is gone has nothing to emit (``get`` gives None).
    """

    __slots__ = ("_refs",)

    def __init__(self) -> None:
        self._refs: weakref.WeakKeyDictionary[Symbol, weakref.ref[Value]] = (
            weakref.WeakKeyDictionary()
        )

    def __setitem__(self, sym: Symbol, value: Value) -> None:
        self._refs[sym] = weakref.ref(value)

    def get(self, sym: Symbol) -> Value | None:
        ref = self._refs.get(sym)
        return None if ref is None else ref()


_BINDINGS = _Bindings()


# Symbols that stand for something with no SSA value (why, for error messages).
_UNBOUND: weakref.WeakKeyDictionary[Symbol, str] = weakref.WeakKeyDictionary()


def unbound_reason(sym: Symbol) -> str | None:
    """Why a symbol of the analysis has no value to emit (None if unknown)."""
    return _UNBOUND.get(sym)


def binding_of(sym: Symbol) -> Value | None:
    """The SSA value a symbol of the analysis stands for (None for a foreign symbol)."""
    return _BINDINGS.get(sym)


def _is_int_type(t: Type) -> bool:
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.is_signless)


def _sign_ok(x: IntLike, lower: int) -> bool:
    if type(x) is int:
        return x >= lower
    lo = x.bounds[0]
    return lo is not None and lo >= lower


_RESERVED = frozenset({"min", "max", "ceil_div"})


def _name_for(v: Value, default: str) -> str:
    hint = v.name_hint
    if hint:
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        if clean and (clean[0].isalpha() or clean[0] == "_") and clean not in _RESERVED:
            return clean
    return default


class SymbolicAnalysis:
    """Memoised symbolic values of one piece of IR (see the module docstring).

    ``SymbolicAnalysis(op)`` (the pass manager's constructor form) or ``SymbolicAnalysis()``.
    """

    def __init__(self, op: Operation | None = None):
        self.op = op
        self._ints: dict[Value, IntLike] = {}
        self._values: dict[Value, Any] = {}
        self._tensors: dict[Value, TensorInfo] = {}
        self._pointers: dict[Value, PointerInfo] = {}
        self._aliases: dict[Value, list[tuple[int, Symbol, Operation | None]]] = {}
        self._op_results: dict[Operation, tuple[Any, ...]] = {}
        self._element_offsets: dict[tuple[Any, Any], Any] = {}
        self._views: dict[tuple, tuple[Any, Any]] = {}
        """``layout(coord)`` per (layout, coordinate): a pure function of both (layouts and
        SymInts compare structurally), asked again by every unrolled access to a fragment."""

    # -- invalidation ---------------------------------------------------------------------------
    def invalidate(self, value: Value | None = None) -> None:
        """Forget ``value`` (every value when None)."""
        if value is None:
            for cache in (self._ints, self._values, self._tensors, self._pointers):
                cache.clear()
            self._aliases.clear()
            self._op_results.clear()
            return
        if isinstance(value, OpResult):
            self._op_results.pop(value.op, None)
        for cache in (self._ints, self._values, self._tensors, self._pointers):
            cache.pop(value, None)

    def replace_value(self, old: Value, new: Value) -> None:
        """``old`` was replaced by ``new`` (a rewritten load): the symbols standing for ``old``
        stand for ``new`` from now on, so expressions computed before the rewrite (an address
        that depends on a loaded value) still emit valid IR."""
        found = [self._ints.get(old)]
        found += [alias for _lower, alias, _user in self._aliases.get(old, ())]
        for sym in found:
            if isinstance(sym, Symbol) and _BINDINGS.get(sym) is old:
                _BINDINGS[sym] = new
        if old in self._ints:
            self._ints[new] = self._ints.pop(old)
        if old in self._aliases:
            self._aliases[new] = self._aliases.pop(old)

    # -- symbols --------------------------------------------------------------------------------
    def bind(self, value: Value, name: str, fact: F.Facts = F.NO_FACTS) -> Symbol:
        """A fresh symbol for ``value`` with ``fact``'s assumptions (dropping bounds that
        leave no admissible value: such code is unreachable, any fact holds there)."""
        div, lower, upper = fact
        try:
            sym = Symbol.fresh(name, divisible_by=div, lower=lower, upper=upper, positive=False)
        except LayoutError:
            try:
                sym = Symbol.fresh(name, divisible_by=div, lower=lower, positive=False)
            except LayoutError:
                sym = Symbol.fresh(name, positive=False)
        _BINDINGS[sym] = value
        return sym

    def _facts_of_expr(self, x: IntLike) -> F.Facts:
        if type(x) is int:
            return (abs(x) or 1, x, x)
        lo, hi = x.bounds
        return (max(known_divisor(x), 1), lo, hi)

    def entry(self, value: Value, lower: int, user: Operation | None = None) -> IntLike:
        """``sym_of(value)`` as a layout entry of ``user`` that the dialect's contract bounds
        below by ``lower`` (1 for shapes, 0 for strides and coordinates).

        One alias serves every use it dominates whose bound is not stronger: a value that
        became a shape entry (so at least 1) is the same symbol when a later op uses it as a
        stride, which keeps relations such as "the stride equals the extent" visible.
        """
        x = self.sym_of(value)
        if _sign_ok(x, lower):
            return x
        if type(x) is int:
            return x  # a constant that breaks the contract: the verifier's business
        known = self._aliases.setdefault(value, [])
        for bound, alias, anchor in known:
            if bound >= lower and (
                anchor is None or (user is not None and dominates(anchor, user))
            ):
                return alias
        fact = F.combine(self._facts_of_expr(x), (1, lower, None))
        alias = self.bind(value, _name_for(value, "e"), fact)
        known.append((lower, alias, user))
        return alias

    # -- index values ---------------------------------------------------------------------------
    def sym_of(self, value: Value) -> IntLike:
        """The value of an ``index``/integer SSA value as an int or a SymInt."""
        found = self._ints.get(value)
        if found is not None:
            return found
        if not _is_int_type(value.type):
            raise AnalysisError(
                f"expected an index or integer value, got '{value.type.text}'", _loc_of(value)
            )
        x = self._compute_int(value)
        self._ints[value] = x
        return x

    def _compute_int(self, value: Value) -> IntLike:
        if isinstance(value, BlockArgument):
            return self._block_argument(value)
        assert isinstance(value, OpResult)
        op = value.op
        handler = INT_HANDLERS.lookup(op)
        if handler is not None:
            x = handler(self, op, value)
            if x is not None:
                return x
        elif isinstance(op, TD.AssumeOp):
            return self._assume(op, value)
        else:
            fact = F.gpu_facts(op)
            if fact is not None:
                if fact[1] is not None and fact[1] == fact[2]:
                    return fact[1]
                first = _first_same_gpu_id(op)
                if first is not None:
                    return self.sym_of(first.results[0])
                return self.bind(value, _gpu_name(op), fact)
            layout_value = self._layout_op_result(op, value)
            if type(layout_value) is int or isinstance(layout_value, SymInt):
                return layout_value
        return self.bind(value, _name_for(value, "v"))

    def _block_argument(self, arg: BlockArgument) -> IntLike:
        block = arg.block
        op = block.parent_op
        if isinstance(op, func.FuncOp) and block.is_entry:
            fact = F.argument_facts(arg)
            if fact[1] is not None and fact[1] == fact[2]:
                return fact[1]
            name = F.argument_symbol_name(arg) or _name_for(arg, f"arg{arg.index}")
            return self.bind(arg, name, fact)
        if isinstance(op, scf.ForOp) and arg.index == 0:
            lb, ub, step = (self.sym_of(v) for v in op.operands[:3])
            return self.bind(arg, _name_for(arg, "i"), F.loop_facts(lb, ub, step))
        return self.bind(arg, _name_for(arg, "b"))

    def _assume(self, op: Operation, value: Value) -> IntLike:
        inner = self.sym_of(op.operands[0])
        if type(inner) is int:
            return inner
        div, lower, upper = op.facts()  # type: ignore[attr-defined]
        own = self._facts_of_expr(inner)
        fact = F.combine(own, (div or 1, lower, upper))
        if fact[1] is not None and fact[1] == fact[2]:
            return fact[1]  # the facts pin the value
        if fact == own:
            # nothing new (fold-static-strides restating a proven alignment): keep the
            # expression, so that later proofs and remarks still see what it is made of
            return inner
        return self.bind(value, _name_for(value, "a"), fact)

    # -- layout values --------------------------------------------------------------------------
    def value_of(self, value: Value) -> Any:
        """The algebra value of a ``!layout.*`` value (or ``sym_of`` for an integer)."""
        if _is_int_type(value.type):
            return self.sym_of(value)
        found = self._values.get(value)
        if found is not None:
            return found
        if not isinstance(value.type, LayoutTextType):
            raise AnalysisError(
                f"expected a !layout.* value, got '{value.type.text}'", _loc_of(value)
            )
        x = self._compute_layout_value(value)
        self._values[value] = x
        return x

    def layout_of(self, value: Value) -> Any:
        """The algebra layout of a ``!layout.layout`` value."""
        return self.value_of(value)

    def _compute_layout_value(self, value: Value) -> Any:
        op = value.defining_op
        if op is None:
            raise AnalysisError(
                f"not supported: the layout value '{value.type.text}' is a block argument "
                "(layouts may not cross control flow; pass their dynamic entries instead)",
                _loc_of(value),
            )
        if isinstance(op, LD.ConstantOp):
            return op.value.value
        if isinstance(op, LD.MakeIntTupleOp):
            lower = 1 if isinstance(op, LD.MakeShapeOp) else 0
            entries = [self.entry(v, lower, op) for v in op.operands]
            return value.type.parsed.substitute(entries)
        if isinstance(op, TD.GetLayoutOp):
            return self.tensor_of(op.operands[0]).layout
        if isinstance(op, TD.LoadOp):
            return self._coordinate_load(op)
        result = self._layout_op_result(op, value)
        if result is _UNKNOWN:
            raise AnalysisError(
                f"not supported: the layout value '{value.type.text}' produced by '{op.name}'",
                op.location,
            )
        return result

    def _layout_op_result(self, op: Operation, value: Value) -> Any:
        """The algebra value of result ``value`` of a layout-dialect op (``_UNKNOWN`` if not)."""
        if not isinstance(op, AlgebraOp):
            return _UNKNOWN
        results = self._op_results.get(op)
        if results is None:
            args = [self._operand_value(v, op) for v in op.operands]
            try:
                results = tuple(type(op).evaluate(op.properties, type(op)._pad_args(args)))
            except LayoutError as e:
                raise AnalysisError(
                    f"'{op.name}' op: {_first_line(e)} (with what is known about its operands)",
                    op.location,
                ) from None
            self._op_results[op] = results
        assert isinstance(value, OpResult)
        return results[value.index]

    def _operand_value(self, v: Value, user: Operation) -> Any:
        """An operand of a layout or view op: index operands are coordinates (>= 0)."""
        if _is_int_type(v.type):
            return self.entry(v, 0, user)
        return self.value_of(v)

    # -- tensors and pointers -------------------------------------------------------------------
    def tensor_of(self, value: Value) -> TensorInfo:
        """What a ``!tile.tensor`` value is (see :class:`TensorInfo`)."""
        found = self._tensors.get(value)
        if found is not None:
            return found
        t = value.type
        if not isinstance(t, TensorType):
            raise AnalysisError(f"expected a !tile.tensor, got '{t.text}'", _loc_of(value))
        info = self._compute_tensor(value, t)
        self._tensors[value] = info
        return info

    def _compute_tensor(self, value: Value, t: Any) -> TensorInfo:
        op = value.defining_op
        if isinstance(op, TD.MakeTensorOp):
            p = self.pointer_of(op.ptr)
            layout = conform_to_type(self.layout_of(op.layout), t.layout())
            if len(op.gathers):
                layout = self._bind_gathers(op, layout)
            return TensorInfo(p.base, p.offset, layout, t.space, t.element, p.alignment)
        if isinstance(op, TD.ViewOp):
            src = self.tensor_of(op.operands[0])
            args = [src.layout, *(self._operand_value(v, op) for v in op.operands[1:])]
            layout, offset = self._view(op, args, t)
            if src.base is None:  # a coordinate tensor: its origin moves (CuTe's iterator)
                try:
                    origin = advance(src.offset, offset)
                except LayoutError as e:
                    raise AnalysisError(f"'{op.name}' op: {_first_line(e)}", op.location) from None
                return src._replace(layout=layout, offset=origin)
            return src._replace(layout=layout, offset=_add_offsets(src.offset, offset))
        if isinstance(op, TD.MakeIdentityTensorOp):
            layout = make_identity_layout(self.value_of(op.shape))
            return TensorInfo(None, coprofile(layout), layout, t.space, None, 1)
        if isinstance(op, (TD.AllocSmemOp, TD.AllocFragmentOp)):
            return TensorInfo(value, 0, t.layout(), t.space, t.element, t.alignment)
        if isinstance(value, BlockArgument):
            block = value.block
            owner = block.parent_op
            if isinstance(owner, func.FuncOp) and block.is_entry:
                return self._tensor_argument(value, t)
        what = f"'{op.name}'" if op is not None else "a block argument"
        raise AnalysisError(
            f"not supported: the tensor '{t.text}' is {what} (tensors are made by "
            "tile.make_tensor, views and allocations; they may not cross control flow)",
            _loc_of(value),
        )

    def _view(self, op: Any, args: list[Any], t: Any) -> tuple[Any, Any]:
        """(layout in the type's shape, offset) of a view op on algebra values, memoised on
        the op's kind, properties, values and type: a kernel's pipelines (the full, K-peeled
        and residue tiles of a GEMM) partition the same tiles with the same thread index."""
        try:
            key: tuple | None = (
                type(op),
                tuple(op.properties.items()),
                tuple(args),
                t.layout_text,
            )
            found = self._views.get(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable value: no memo
            key, found = None, None
        if found is not None:
            return found
        # the same view of the same values up to the symbols' identities (another pass's or
        # another compile's thread index): the result renamed (renaming.py)
        generic = generic_key(key[2]) if key is not None else None
        if generic is not None:
            named, forward, backward = generic
            gkey = (key[0], key[1], named, key[3])
            stored = _GENERIC_VIEWS.get(gkey)
            if stored is not None:
                found = rename(stored, backward)
                self._views[key] = found  # type: ignore[index]
                return found
        cutoffs = PROOF_CUTOFFS.count
        try:
            layout, offset = type(op).compute(op.properties, args)
        except LayoutError as e:
            raise AnalysisError(
                f"'{op.name}' op: {_first_line(e)} (with what is known about its operands)",
                op.location,
            ) from None
        found = conform_to_type(layout, t.layout()), offset  # coordinates follow the type
        if key is not None:
            self._views[key] = found
        if (
            generic is not None
            and PROOF_CUTOFFS.count == cutoffs  # (a proof cut short may prove more elsewhere)
            and symbols_within(found, forward)
        ):
            if len(_GENERIC_VIEWS) >= GENERIC_VIEWS_LIMIT:
                _GENERIC_VIEWS.clear()
            _GENERIC_VIEWS[gkey] = rename(found, forward)
        return found

    def _bind_gathers(self, op: Any, layout: Any) -> Any:
        """The layout of a ``tile.make_tensor`` with its index buffers, named in the layout's
        text, replaced by the pointers its gather operands give (:class:`GatherPointer`)."""
        bound = {
            name: GatherPointer(name, v, self.pointer_of(v))
            for name, v in zip(op.gather_names(), op.gathers)
        }

        def stride(d: Any) -> Any:
            if isinstance(d, tuple):
                return tuple(stride(e) for e in d)
            if isinstance(d, CustomStride) and isinstance(d.func, IndexedGather):
                ptr = bound.get(d.func.name)
                if ptr is not None:
                    return CustomStride(IndexedGather(ptr, d.func.name), d.stride)
            return d

        def walk(x: Any) -> Any:
            if isinstance(x, ComposedLayout):
                return ComposedLayout(walk(x.outer), x.offset, walk(x.inner))
            if isinstance(x, Layout):
                return Layout._new(x.shape, stride(x.stride))
            return x

        return walk(layout)

    def _tensor_argument(self, arg: BlockArgument, t: Any) -> TensorInfo:
        """A tensor parameter of a function: its own base (convert-to-llvm flattens it into a
        pointer and its dynamic entries). Its ``?`` entries have no SSA value before that, so
        they are symbols that cannot be emitted (a clear error if an expression needs one)."""

        def unbound(i: int, role: Any) -> Any:
            sym = symbol_for(f"{_name_for(arg, 'arg')}_{i}", role)
            _UNBOUND[sym] = (
                f"entry #{i} of the tensor argument '{t.text}' (its dynamic entries become "
                "values only in convert-to-llvm: pass the pointer and the entries instead, or "
                "use a static layout)"
            )
            return sym

        roles = roles_of_text(t.layout_text)
        layout = layout_of_text(t.layout_text, [unbound(i, r) for i, r in enumerate(roles)])[0]
        if t.is_coord:
            extra = origin_roles(t.origin_text) if t.origin_text is not None else ()
            n = len(roles)
            origin = t.origin([unbound(n + i, r) for i, r in enumerate(extra)], layout)
            return TensorInfo(None, origin, layout, t.space, None, 1)
        return TensorInfo(arg, 0, layout, t.space, t.element, t.alignment)

    def pointer_of(self, value: Value) -> PointerInfo:
        """A ``!tile.ptr`` value as its root pointer plus an element offset."""
        found = self._pointers.get(value)
        if found is not None:
            return found

        op = value.defining_op
        if isinstance(op, TD.PtrOffsetOp):
            inner = self.pointer_of(op.ptr)
            info = inner._replace(offset=inner.offset + self.sym_of(op.offset))
        elif isinstance(op, TD.GetPtrOp):
            t = self.tensor_of(op.tensor)
            assert t.base is not None
            info = PointerInfo(t.base, t.offset, t.alignment)
        else:
            align = value.type.alignment  # type: ignore[attr-defined]
            if isinstance(value, BlockArgument):
                declared = F.argument_alignment(value)
                if declared is not None and declared > align and declared & (declared - 1) == 0:
                    align = declared
            info = PointerInfo(value, 0, align)
        self._pointers[value] = info
        return info

    def _coordinate_load(self, op: Operation) -> Any:
        """``tile.load`` from a coordinate tensor: the coordinate there (origin + layout)."""
        t = self.tensor_of(op.operands[0])
        coord = C.substitute(
            C.parse_pattern(op.coord.value), [self.entry(v, 0, op) for v in op.coords]
        )  # type: ignore[attr-defined]
        try:
            return element_at(t.offset, t.layout(coord))
        except LayoutError as e:
            raise AnalysisError(f"'tile.load' op: {_first_line(e)}", op.location) from None

    def element_offset(
        self, op: Operation, tensor: Value, coords: Sequence[Value], pattern: str
    ) -> IntLike:
        """The element offset from ``tensor``'s base addressed by a coordinate pattern (a
        ``SwizzledOffset`` through a swizzled layout whose swizzle sees a run-time value)."""
        coord = C.substitute(C.parse_pattern(pattern), [self.entry(v, 0, op) for v in coords])
        if isinstance(tensor.type, PtrType):
            p = self.pointer_of(tensor)
            return p.offset + coord
        t = self.tensor_of(tensor)
        try:
            found = self.layout_offset(t.layout, coord)
        except LayoutError as e:
            raise AnalysisError(f"'{op.name}' op: {_first_line(e)}", op.location) from None
        return t.offset + found

    def layout_offset(self, layout: Any, coord: Any) -> Any:
        """``layout``'s element offset of ``coord`` (memoised on the pair; raises LayoutError)."""
        key = (layout, coord)
        try:
            found = self._element_offsets.get(key)
        except TypeError:  # an unhashable part: no memo
            key, found = None, None
        if found is None:
            found = element_offset(layout, coord)
            immutable = type(found) is int or isinstance(found, (SymInt, SwizzledOffset))
            if key is not None and immutable:
                self._element_offsets[key] = found
        return found


GENERIC_VIEWS_LIMIT = 4096
_GENERIC_VIEWS: dict[tuple, tuple[Any, Any]] = {}
"""``SymbolicAnalysis._view``'s results on placeholders (renaming.py), across analyses and
compiles: pure functions of the op kind, properties, values and type."""


def dominates(a: Operation, b: Operation) -> bool:
    """``a`` executes before ``b`` whenever ``b`` executes (structured control flow): ``a`` is
    before ``b``'s ancestor in ``a``'s block."""
    home = a.parent
    if home is None or b.parent is None:
        return False
    cur: Operation | None = b
    while cur is not None:
        if cur.parent is home:
            return cur is not a and a.is_before_in_block(cur)
        cur = cur.parent_op
    return False


class _Unknown:
    __slots__ = ()


_UNKNOWN = _Unknown()


def _add_offsets(a: Any, b: Any) -> Any:
    if type(a) is int and a == 0:
        return b
    if type(b) is int and b == 0:
        return a
    return a + b


def _first_line(e: Exception) -> str:
    text = str(e.args[0]) if e.args else str(e)
    return " ".join(text.split("\n")[0].split())


def _loc_of(v: Value) -> Location:
    if isinstance(v, OpResult):
        return v.op.location
    loc = v.loc  # type: ignore[attr-defined]
    if loc is not None:
        return loc
    parent = v.block.parent_op  # type: ignore[attr-defined]
    return parent.location if parent is not None else UnknownLoc()


_GPU_NAMES: dict[type[Operation], str] = {
    gpu.ThreadIdOp: "tid",
    gpu.BlockIdOp: "bid",
    gpu.BlockDimOp: "bdim",
    gpu.GridDimOp: "gdim",
    gpu.LaneIdOp: "lane",
}


def _first_same_gpu_id(op: Operation) -> Operation | None:
    """The first op reading the same id or size as the gpu id/size op ``op`` (same op, same
    dimension) that executes before it whenever it executes (before it in an enclosing block,
    outermost first), or None. Every such read is one value in a thread, so all of them are
    one symbol (the first's, which dominates the others wherever they are used): a block
    index read in two places of a kernel cancels out of an offset instead of leaving
    ``bid_x - bid_x`` with no bounds."""
    key = (type(op), op.properties.get("dimension"))
    chain: list[Operation] = []
    cur: Operation | None = op
    while cur is not None and cur.parent is not None and not cur.is_isolated_from_above:
        chain.append(cur)
        cur = cur.parent_op
    for anchor in reversed(chain):  # outermost block first
        before = anchor.parent.first_op if anchor.parent is not None else None
        while before is not None and before is not anchor:
            if (type(before), before.properties.get("dimension")) == key:
                return before
            before = before.next_op
    return None


def _gpu_name(op: Operation) -> str:
    short = _GPU_NAMES[type(op)]
    dim = op.properties.get("dimension")
    return f"{short}_{dim.value}" if dim is not None else short  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# arith semantics
# ---------------------------------------------------------------------------------------------


def _nonneg(x: IntLike) -> bool:
    return _sign_ok(x, 0)


def _positive(x: IntLike) -> bool:
    return _sign_ok(x, 1)


IntHandler = Callable[["SymbolicAnalysis", Any, Value], "IntLike | None"]
INT_HANDLERS: OpTable[IntHandler] = OpTable("symbolic analysis (integer ops)")
"""How the analysis reads each integer op: the value as an int or SymInt, or None (unknown:
the result becomes a fresh symbol)."""


@INT_HANDLERS.register(A.ConstantOp)
def _constant(a: SymbolicAnalysis, op: A.ConstantOp, v: Value) -> IntLike | None:
    attr = op.properties.get("value")
    if isinstance(attr, IntegerAttr) and _is_int_type(attr.type):
        if isinstance(attr.type, IndexType):
            return attr.value
        return attr.signed_value
    return None


def _operands(a: SymbolicAnalysis, op: Operation) -> tuple[IntLike, IntLike]:
    return a.sym_of(op.operands[0]), a.sym_of(op.operands[1])


def _floor_like(x: IntLike, y: IntLike, kind: str) -> IntLike | None:
    try:
        if kind == "floordiv":
            return x // y
        if kind == "mod":
            return x % y
        from layoutc.ir.algebra.symbolic import ceil_div

        return ceil_div(x, y)
    except (LayoutError, ZeroDivisionError, TypeError):
        return None


@INT_HANDLERS.register(A.AddIOp)
def _addi(a: SymbolicAnalysis, op: A.AddIOp, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    return x + y


@INT_HANDLERS.register(A.SubIOp)
def _subi(a: SymbolicAnalysis, op: A.SubIOp, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    return x - y


@INT_HANDLERS.register(A.MulIOp)
def _muli(a: SymbolicAnalysis, op: A.MulIOp, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    return x * y


@INT_HANDLERS.register(A.DivSIOp, A.DivUIOp)
def _div_nonneg(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    """divsi/divui: floor division when both operands are provably non-negative (divisor > 0)."""
    x, y = _operands(a, op)
    if _nonneg(x) and _positive(y):
        return _floor_like(x, y, "floordiv")
    return None


@INT_HANDLERS.register(A.FloorDivSIOp)
def _floordivsi(a: SymbolicAnalysis, op: A.FloorDivSIOp, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    if _positive(y) or _positive(-y):
        return _floor_like(x, y, "floordiv")
    return None


@INT_HANDLERS.register(A.CeilDivSIOp, A.CeilDivUIOp)
def _ceildiv(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    if _positive(y) and (isinstance(op, A.CeilDivSIOp) or _nonneg(x)):
        return _floor_like(x, y, "ceildiv")
    return None


@INT_HANDLERS.register(A.RemSIOp, A.RemUIOp)
def _rem(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    if _nonneg(x) and _positive(y):
        return _floor_like(x, y, "mod")
    return None


@INT_HANDLERS.register(A.MinSIOp, A.MaxSIOp, A.MinUIOp, A.MaxUIOp)
def _minmax(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    x, y = _operands(a, op)
    unsigned = isinstance(op, (A.MinUIOp, A.MaxUIOp))
    if unsigned and not (_nonneg(x) and _nonneg(y)):
        return None
    try:
        return sym_min(x, y) if isinstance(op, (A.MinSIOp, A.MinUIOp)) else sym_max(x, y)
    except LayoutError:
        return None


@INT_HANDLERS.register(A.IndexCastOp, A.ExtSIOp)
def _same(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    return a.sym_of(op.operands[0])


@INT_HANDLERS.register(A.IndexCastUIOp, A.ExtUIOp)
def _same_if_nonneg(a: SymbolicAnalysis, op: Operation, v: Value) -> IntLike | None:
    x = a.sym_of(op.operands[0])
    return x if _nonneg(x) else None


@INT_HANDLERS.register(A.TruncIOp)
def _trunci(a: SymbolicAnalysis, op: A.TruncIOp, v: Value) -> IntLike | None:
    x = a.sym_of(op.operands[0])
    width = v.type.width  # type: ignore[attr-defined]
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if type(x) is int:
        return x if lo <= x <= hi else None
    blo, bhi = x.bounds
    if blo is not None and bhi is not None and lo <= blo and bhi <= hi:
        return x
    return None


def _shift_amount(a: SymbolicAnalysis, op: Operation) -> int | None:
    k = a.sym_of(op.operands[1])
    if type(k) is int and 0 <= k < 63:
        return k
    return None


@INT_HANDLERS.register(A.ShLIOp)
def _shli(a: SymbolicAnalysis, op: A.ShLIOp, v: Value) -> IntLike | None:
    k = _shift_amount(a, op)
    return None if k is None else a.sym_of(op.operands[0]) * (1 << k)


@INT_HANDLERS.register(A.ShRSIOp)
def _shrsi(a: SymbolicAnalysis, op: A.ShRSIOp, v: Value) -> IntLike | None:
    k = _shift_amount(a, op)
    if k is None:
        return None
    return _floor_like(a.sym_of(op.operands[0]), 1 << k, "floordiv")


@INT_HANDLERS.register(A.ShRUIOp)
def _shrui(a: SymbolicAnalysis, op: A.ShRUIOp, v: Value) -> IntLike | None:
    k = _shift_amount(a, op)
    x = a.sym_of(op.operands[0])
    if k is None or not _nonneg(x):
        return None
    return _floor_like(x, 1 << k, "floordiv")


@INT_HANDLERS.register(A.AndIOp)
def _andi(a: SymbolicAnalysis, op: A.AndIOp, v: Value) -> IntLike | None:
    """``x & (2^k - 1)`` is ``x mod 2^k`` and ``x & -2^k`` is ``x - x mod 2^k`` for every x."""
    x, m = _operands(a, op)
    if type(x) is int and type(m) is not int:
        x, m = m, x
    if type(m) is not int:
        return None
    if m >= 0 and (m + 1) & m == 0:
        return _floor_like(x, m + 1, "mod")
    if m < 0 and (-m) & (-m - 1) == 0:
        r = _floor_like(x, -m, "mod")
        return None if r is None else x - r
    return None


# ---------------------------------------------------------------------------------------------
# module-level conveniences
# ---------------------------------------------------------------------------------------------

_DEFAULTS: dict[int, tuple[Operation, SymbolicAnalysis]] = {}
_MAX_DEFAULTS = 8


def default_analysis(value: Value) -> SymbolicAnalysis:
    """The shared analysis of the IR ``value`` lives in (one per top-level op, a few kept), so
    that separate queries about one module agree on their symbols. Passes that rewrite IR
    should hold their own :class:`SymbolicAnalysis` instead."""
    op = value.defining_op
    if op is None:
        op = value.block.parent_op  # type: ignore[attr-defined]
    root = op
    while root is not None and root.parent_op is not None:
        root = root.parent_op
    key = id(root)
    found = _DEFAULTS.get(key)
    if found is not None and found[0] is root:
        return found[1]
    if len(_DEFAULTS) >= _MAX_DEFAULTS:
        _DEFAULTS.pop(next(iter(_DEFAULTS)))
    analysis = SymbolicAnalysis(root)
    _DEFAULTS[key] = (root, analysis)  # type: ignore[assignment]
    return analysis


def sym_of(value: Value, analysis: SymbolicAnalysis | None = None) -> IntLike:
    """``analysis.sym_of(value)`` (the shared analysis of the value's module by default)."""
    return (analysis or default_analysis(value)).sym_of(value)


def value_of(value: Value, analysis: SymbolicAnalysis | None = None) -> Any:
    return (analysis or default_analysis(value)).value_of(value)


def layout_of(value: Value, analysis: SymbolicAnalysis | None = None) -> Any:
    return (analysis or default_analysis(value)).layout_of(value)


def tensor_of(value: Value, analysis: SymbolicAnalysis | None = None) -> TensorInfo:
    return (analysis or default_analysis(value)).tensor_of(value)


def emit(expr: IntLike, builder: Any, loc: Location | None = None) -> Value:
    """``expr`` as ``arith`` ops on ``index`` at ``builder``'s insertion point (see
    :mod:`.emitter`, which holds the code-generation side of the analysis)."""
    from .emitter import emit as _emit

    return _emit(expr, builder, loc)
