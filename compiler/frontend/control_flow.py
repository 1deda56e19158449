"""The runtime of rewritten kernels: static or dynamic ``if``/``for``/``while``, decided per use.

The rewriter (:mod:`.rewrite`) turns every control-flow statement into a call of this module
(it is bound to ``_lc_rt`` in the rewritten code). A static condition or iterable runs as plain
Python: the taken branch only, loops unrolled. A dynamic condition (a :class:`Scalar`) becomes
``scf.if`` (both branches traced, the live variables they assign yielded), ``lc.range`` becomes
``scf.for`` (live variables assigned in the body carried as iter_args), and a ``while`` whose
condition is dynamic becomes ``scf.while``.

Variables are moved across region boundaries through :class:`.proxy.TraceValue` (scalars,
tensors, ...), Python numbers (materialized as constants when the other side is dynamic), and
tuples/lists of those. Anything else must be the same object on both sides.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from layoutc.ir.dialects import arith, gpu

from ..ir.core.block import Block, Region
from ..ir.core.types import FloatType, IndexType, IntegerType, Type, f32, i1, index
from ..ir.core.values import Value
from ..ir.dialects import scf
from . import scalars, state
from .errors import NotSupportedError
from .proxy import TraceValue
from .scalars import Bool, Int, Scalar


class _Undefined:
    """What a variable holds when it is not bound (Python's "unbound local")."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<undefined>"


UNDEF = _Undefined()


def read(local_map: dict[str, Any], names: Sequence[str]) -> tuple:
    """The current values of ``names`` (UNDEF for unbound ones)."""
    return tuple(local_map.get(n, UNDEF) for n in names)


def is_dynamic(x: Any) -> bool:
    return isinstance(x, Scalar)


# -------------------------------------------------------------------------------------------
# lc.range
# -------------------------------------------------------------------------------------------


class DynamicRange:
    """``lc.range(stop)``, ``lc.range(start, stop[, step])``: a loop that stays a loop (scf.for).

    Bounds and step may be Python ints or dynamic integers, with Python's meaning: a negative
    step counts down (``lc.range(n - 1, -1, -1)``). A static step of 0 is an error, as in
    Python; a dynamic step that is 0 when the kernel runs gives no iterations (never a hang).
    A loop with a positive static step, or a run-time step that cannot be negative (a grid
    size), is an scf.for over the values themselves; any other runs an scf.for over the
    iteration count, ``start + i * step`` being the loop variable.
    """

    __slots__ = ("start", "step", "stop")

    def __init__(self, *args: Any):
        if not 1 <= len(args) <= 3:
            raise state.error(f"lc.range expects 1 to 3 arguments, got {len(args)}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        self.start = scalars.to_index(start, "a loop bound")
        self.stop = scalars.to_index(stop, "a loop bound")
        self.step = scalars.to_index(step, "a loop step")
        if isinstance(self.step, int) and self.step == 0:
            raise state.error("lc.range() arg 3 must not be zero")

    @property
    def counts_upwards(self) -> bool:
        """A static positive step: the loop runs over the values themselves."""
        return isinstance(self.step, int) and self.step > 0

    def trip_count(self) -> Any:
        """How many iterations, Python's way (``len(range(start, stop, step))``), for any
        step sign; 0 for a run-time step of 0."""
        start, stop, step = self.start, self.stop, self.step
        if isinstance(step, int):
            if step > 0:
                return scalars.maximum((stop - start + step - 1) // step, 0)
            return scalars.maximum((start - stop - step - 1) // -step, 0)
        up = scalars.maximum((stop - start + step - 1) // step, 0)
        down = scalars.maximum((start - stop - step - 1) // -step, 0)
        return scalars.select(step > 0, up, scalars.select(step < 0, down, 0))

    def __iter__(self) -> Iterator[Any]:
        raise state.error(
            "lc.range can only be iterated by a `for` statement of the kernel (it becomes an "
            "scf.for); use Python's range to unroll a static loop"
        )

    def __repr__(self) -> str:
        return f"lc.range({self.start!r}, {self.stop!r}, {self.step!r})"


# -------------------------------------------------------------------------------------------
# the Python forms (bodies with return/break/continue)
# -------------------------------------------------------------------------------------------


def static_cond(value: Any, construct: str) -> bool:
    if is_dynamic(value):
        raise NotSupportedError(
            f"not supported: {construct} with a dynamic condition (an scf region cannot "
            "return or jump out); restructure it, e.g. guard the rest of the body with the "
            "negated condition",
            state.location(),
        )
    return bool(value)


def static_iter(iterable: Any, construct: str) -> Any:
    if isinstance(iterable, DynamicRange):
        raise NotSupportedError(
            f"not supported: {construct} over lc.range (an scf.for cannot exit early); use a "
            "static Python range, or a dynamic `if` that skips the rest of the body",
            state.location(),
        )
    return iterable


# -------------------------------------------------------------------------------------------
# merging values across regions
# -------------------------------------------------------------------------------------------


class _Leaf:
    """How one variable (or one element of a tuple) crosses a region boundary."""

    def types(self) -> list[Type]:
        return []

    def values(self, x: Any, name: str, where: str) -> list[Value]:
        return []

    def rebuild(self, it: Iterator[Value]) -> Any:
        raise NotImplementedError


class _Static(_Leaf):
    def __init__(self, value: Any):
        self.value = value

    def values(self, x: Any, name: str, where: str) -> list[Value]:
        if not _same_static(x, self.value):
            raise state.error(
                f"variable '{name}' holds {_describe(self.value)} before {where} but "
                f"{_describe(x)} after it; only numbers and dynamic values can change in dynamic "
                "control flow"
            )
        return []

    def rebuild(self, it: Iterator[Value]) -> Any:
        return self.value


class _ScalarLeaf(_Leaf):
    def __init__(self, t: Type, nonneg: bool):
        self.t = t
        self.nonneg = nonneg

    def types(self) -> list[Type]:
        return [self.t]

    def values(self, x: Any, name: str, where: str) -> list[Value]:
        if isinstance(x, Scalar):
            if _category(x.type) != _category(self.t):
                raise state.error(
                    f"variable '{name}' changes type in {where}: {self.t.text} vs {x.type.text}"
                )
            return [scalars.cast_value(x.value, self.t)]
        if isinstance(x, (int, float)):
            if isinstance(x, float) and not isinstance(self.t, FloatType):
                raise state.error(
                    f"variable '{name}' changes type in {where}: {self.t.text} vs float"
                )
            return [scalars.as_value(x, self.t)]
        raise state.error(f"variable '{name}' changes from a number to {_describe(x)} in {where}")

    def rebuild(self, it: Iterator[Value]) -> Any:
        return scalars.wrap(next(it), self.nonneg)


class _ObjectLeaf(_Leaf):
    def __init__(self, proto: TraceValue):
        self.proto = proto
        self.signature = proto._lc_signature()
        self._types = [v.type for v in proto._lc_values()]

    def types(self) -> list[Type]:
        return list(self._types)

    def values(self, x: Any, name: str, where: str) -> list[Value]:
        if not isinstance(x, TraceValue) or x._lc_signature() != self.signature:
            raise state.error(
                f"variable '{name}' changes from {self.proto._lc_describe()} to {_describe(x)} "
                f"in {where}; a variable keeps its type in dynamic control flow"
            )
        return x._lc_values()

    def rebuild(self, it: Iterator[Value]) -> Any:
        return self.proto._lc_rebuild([next(it) for _ in self._types])


class _Seq(_Leaf):
    def __init__(self, kind: type, items: list[_Leaf]):
        self.kind = kind
        self.items = items

    def types(self) -> list[Type]:
        return [t for item in self.items for t in item.types()]

    def values(self, x: Any, name: str, where: str) -> list[Value]:
        if type(x) is not self.kind or len(x) != len(self.items):
            raise state.error(
                f"variable '{name}' changes structure in {where}: a {self.kind.__name__} of "
                f"{len(self.items)} items vs {_describe(x)}"
            )
        return [v for item, e in zip(self.items, x) for v in item.values(e, name, where)]

    def rebuild(self, it: Iterator[Value]) -> Any:
        return self.kind(item.rebuild(it) for item in self.items)


def _category(t: Type) -> str:
    if isinstance(t, FloatType):
        return "float"
    if t is i1:
        return "bool"
    return "int"


def _describe(x: Any) -> str:
    if x is UNDEF:
        return "nothing (it is not defined)"
    if isinstance(x, TraceValue):
        return x._lc_describe()
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of {len(x)} items"
    text = repr(x)
    return f"{type(x).__name__} {text if len(text) < 60 else text[:57] + '...'}"


def _same_static(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, TraceValue) or isinstance(b, TraceValue) or type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _number_type(x: Any) -> Type:
    if isinstance(x, bool):
        return i1
    return f32 if isinstance(x, float) else index


def _merge_types(a: Type, b: Type) -> Type:
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        if {ca, cb} == {"bool", "int"}:
            return a if ca == "int" else b
        raise TypeError
    if isinstance(a, FloatType):
        return a if a.width >= b.width else b  # type: ignore[attr-defined]
    if isinstance(a, IndexType) or isinstance(b, IndexType):
        return index
    assert isinstance(a, IntegerType) and isinstance(b, IntegerType)
    return a if a.width >= b.width else b


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, TraceValue)


def _branch_plan(name: str, a: Any, b: Any) -> _Leaf:
    """How variable ``name`` (``a`` after the then-branch, ``b`` after the else-branch) merges."""
    if a is UNDEF or b is UNDEF:
        if a is b:
            return _Static(UNDEF)
        only = "then" if b is UNDEF else "else"
        raise state.error(
            f"variable '{name}' is assigned only in the {only}-branch of a dynamic `if` and used "
            "after it; assign it in both branches or before the `if`"
        )
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        return _Seq(type(a), [_branch_plan(name, x, y) for x, y in zip(a, b)])
    scalar_like = (Scalar, int, float)
    if isinstance(a, scalar_like) and isinstance(b, scalar_like):
        if _is_number(a) and _is_number(b) and type(a) is type(b) and a == b:
            return _Static(a)
        ta = a.type if isinstance(a, Scalar) else _number_type(a)
        tb = b.type if isinstance(b, Scalar) else _number_type(b)
        if isinstance(a, Scalar) and not isinstance(b, Scalar):
            tb = ta if _category(ta) == _category(tb) or _is_int_number(b) else tb
        if isinstance(b, Scalar) and not isinstance(a, Scalar):
            ta = tb if _category(ta) == _category(tb) or _is_int_number(a) else ta
        try:
            t = _merge_types(ta, tb)
        except TypeError:
            raise state.error(
                f"variable '{name}' has different types in the branches of a dynamic `if`: "
                f"{_describe(a)} and {_describe(b)}"
            ) from None
        nonneg = scalars._nonneg(a) and scalars._nonneg(b)
        return _ScalarLeaf(t, nonneg)
    if isinstance(a, TraceValue) and isinstance(b, TraceValue):
        if a._lc_signature() != b._lc_signature():
            raise state.error(
                f"variable '{name}' has different types in the branches of a dynamic `if`: "
                f"{a._lc_describe()} and {b._lc_describe()}"
            )
        return _ObjectLeaf(a)
    if _same_static(a, b):
        return _Static(a)
    raise state.error(
        f"variable '{name}' holds {_describe(a)} in the then-branch and {_describe(b)} in the "
        "else-branch of a dynamic `if`; only numbers and dynamic values can differ"
    )


def _is_int_number(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, (bool, TraceValue))


def _loop_plan(name: str, init: Any) -> _Leaf:
    """How loop-carried variable ``name`` with value ``init`` before the loop is carried."""
    if init is UNDEF:
        raise state.error(
            f"variable '{name}' is assigned in the body of a dynamic loop and read after it or "
            "in a later iteration, but it is not defined before the loop; give it a value "
            "before the loop"
        )
    if isinstance(init, (tuple, list)):
        return _Seq(type(init), [_loop_plan(name, x) for x in init])
    if isinstance(init, Scalar):
        return _ScalarLeaf(init.type, False)
    if _is_number(init):
        return _ScalarLeaf(_number_type(init), False)
    if isinstance(init, TraceValue):
        return _ObjectLeaf(init)
    return _Static(init)


def _rebuild_all(plans: list[_Leaf], values: Sequence[Value]) -> list[Any]:
    it = iter(values)
    return [p.rebuild(it) for p in plans]


# -------------------------------------------------------------------------------------------
# if
# -------------------------------------------------------------------------------------------


def if_(
    cond: Any,
    then_fn: Callable[..., tuple],
    else_fn: Callable[..., tuple],
    names: tuple[str, ...],
    values: tuple,
    live: tuple[str, ...],
) -> tuple:
    if not is_dynamic(cond):
        return (then_fn if cond else else_fn)(*values)
    c = scalars.to_bool(cond)
    loc = state.location()
    then_block, else_block = Block(), Block()
    with state.inserting_at_end(then_block):
        then_vals = then_fn(*values)
    with state.inserting_at_end(else_block):
        else_vals = else_fn(*values)
    pos = {n: i for i, n in enumerate(names)}
    plans = [_branch_plan(n, then_vals[pos[n]], else_vals[pos[n]]) for n in live]
    yields = []
    for block, vals, which in ((then_block, then_vals, "then"), (else_block, else_vals, "else")):
        with state.inserting_at_end(block):
            out = [
                v
                for n, p in zip(live, plans)
                for v in p.values(vals[pos[n]], n, f"the {which}-branch of a dynamic `if`")
            ]
            state.emit(scf.YieldOp(*out), loc)
        yields.append(out)
    types = [v.type for v in yields[0]]
    if not types and _only_yield(then_block) and not _only_yield(else_block):
        # `if c: return` guards: branch on the negated condition instead of an empty then
        c = scalars.invert(c)
        then_block, else_block = else_block, then_block
    regions = [Region([then_block])]
    regions.append(Region() if not types and _only_yield(else_block) else Region([else_block]))
    op = scf.IfOp.create([c.value], types, regions=regions)
    state.emit(op, loc)
    state.verify_local(op)
    merged = _rebuild_all(plans, op.results)
    result = [UNDEF] * len(names)
    for n, v in zip(live, merged):
        result[pos[n]] = v
    return tuple(result)


def _only_yield(block: Block) -> bool:
    return block.first_op is block.last_op


# -------------------------------------------------------------------------------------------
# for
# -------------------------------------------------------------------------------------------


def _launch_size(x: Any) -> bool:
    """``x`` is a grid or block size (``lc.grid_dim.x``...), which no launch makes 0."""
    op = x.value.defining_op if isinstance(x, scalars.Int) else None
    if isinstance(op, arith.IndexCastOp):
        op = op.operands[0].defining_op
    return isinstance(op, (gpu.GridDimOp, gpu.BlockDimOp))


def for_(
    iterable: Any,
    body_fn: Callable[..., tuple],
    names: tuple[str, ...],
    values: tuple,
    carried: tuple[str, ...],
    target_live: tuple[str, ...],
) -> tuple:
    if not isinstance(iterable, DynamicRange):
        vals = values
        for item in iterable:
            vals = body_fn(item, *vals)
        return vals
    if target_live:
        raise state.error(
            f"the loop variable '{target_live[0]}' of a dynamic loop (lc.range) is used after "
            "the loop; its value there is not defined, keep what you need in another variable"
        )
    step_ = iterable.step
    if _launch_size(step_):
        pass  # gridDim/blockDim: at least 1 on every launch, scf.for as written
    elif isinstance(step_, scalars.Int) and step_.nonneg:
        # A run-time step that cannot be negative (a grid size): scf.for itself, with an empty
        # range for a step of 0 (scf.for's step must be positive).
        stop_ = scalars.select(step_ == 0, iterable.start, iterable.stop)
        iterable = DynamicRange(iterable.start, stop_, scalars.maximum(step_, 1))
    elif not iterable.counts_upwards:  # over the iteration count: any step sign, 0 included
        first, stride, inner = iterable.start, iterable.step, body_fn
        iterable = DynamicRange(iterable.trip_count())

        def body_fn(i: Any, *vals: Any) -> tuple:
            return inner(first + i * stride, *vals)

    loc = state.location()
    lb = scalars.index_value(iterable.start)
    ub = scalars.index_value(iterable.stop)
    step = scalars.index_value(iterable.step)
    pos = {n: i for i, n in enumerate(names)}
    plans = [_loop_plan(n, values[pos[n]]) for n in carried]
    inits = [
        v for n, p in zip(carried, plans) for v in p.values(values[pos[n]], n, "a dynamic loop")
    ]
    op = state.emit(scf.ForOp(lb, ub, step, inits), loc)
    block = op.body_block
    for a in block.args:
        a.loc = loc
    iv_nonneg = scalars._nonneg(iterable.start) and (
        isinstance(iterable.step, int) or iterable.step.nonneg
    )
    iv = Int(block.args[0], iv_nonneg)
    call_vals = list(values)
    for n, v in zip(carried, _rebuild_all(plans, block.args[1:])):
        call_vals[pos[n]] = v
    terminator = block.last_op
    ctx = state.inserting_before(terminator) if terminator is not None else None
    with ctx if ctx is not None else state.inserting_at_end(block):
        new_vals = body_fn(iv, *call_vals)
        out = [
            v
            for n, p in zip(carried, plans)
            for v in p.values(new_vals[pos[n]], n, "the body of a dynamic loop")
        ]
        if terminator is None:
            state.emit(scf.YieldOp(*out), loc)
    state.verify_local(op)
    result = [UNDEF] * len(names)
    for n, v in zip(carried, _rebuild_all(plans, op.results)):
        result[pos[n]] = v
    return tuple(result)


# -------------------------------------------------------------------------------------------
# while
# -------------------------------------------------------------------------------------------


def while_(
    cond_fn: Callable[..., Any],
    body_fn: Callable[..., tuple],
    names: tuple[str, ...],
    values: tuple,
    carried: tuple[str, ...],
) -> tuple:
    first = _probe(cond_fn, values)
    if not is_dynamic(first):
        vals, c, iterations = values, first, 0
        while c:
            vals = body_fn(*vals)
            iterations += 1
            c = cond_fn(*vals)
            if is_dynamic(c):
                raise state.error(
                    f"the condition of this `while` was static for {iterations} iteration(s) and "
                    "then became dynamic; make it dynamic from the start (e.g. start from a "
                    "dynamic value) or keep it static"
                )
        return vals
    loc = state.location()
    pos = {n: i for i, n in enumerate(names)}
    plans = [_loop_plan(n, values[pos[n]]) for n in carried]
    inits = [
        v for n, p in zip(carried, plans) for v in p.values(values[pos[n]], n, "a dynamic loop")
    ]
    types = [v.type for v in inits]
    op = state.emit(scf.WhileOp(inits, types), loc)
    for a in (*op.before_block.args, *op.after_block.args):
        a.loc = loc
    before_vals = list(values)
    for n, v in zip(carried, _rebuild_all(plans, op.before_block.args)):
        before_vals[pos[n]] = v
    with state.inserting_at_end(op.before_block):
        c = cond_fn(*before_vals)
        cv = scalars.to_bool(c).value if is_dynamic(c) else scalars.constant(bool(c), i1)
        state.emit(scf.ConditionOp(cv, *op.before_block.args), loc)
    after_vals = list(values)
    for n, v in zip(carried, _rebuild_all(plans, op.after_block.args)):
        after_vals[pos[n]] = v
    with state.inserting_at_end(op.after_block):
        new_vals = body_fn(*after_vals)
        out = [
            v
            for n, p in zip(carried, plans)
            for v in p.values(new_vals[pos[n]], n, "the body of a dynamic loop")
        ]
        state.emit(scf.YieldOp(*out), loc)
    state.verify_local(op)
    result = [UNDEF] * len(names)
    for n, v in zip(carried, _rebuild_all(plans, op.results)):
        result[pos[n]] = v
    return tuple(result)


def _probe(cond_fn: Callable[..., Any], values: tuple) -> Any:
    """Evaluate a while condition in a scratch block: is it static, and if so, its value."""
    scratch = Block()
    try:
        with state.inserting_at_end(scratch):
            return cond_fn(*values)
    finally:
        scalars.forget_block_constants(scratch)
        for op in reversed(list(scratch.ops)):
            op.drop_all_references()
        for op in reversed(list(scratch.ops)):
            op.erase(check_uses=False)


# -------------------------------------------------------------------------------------------
# expressions
# -------------------------------------------------------------------------------------------


def and_(first: Any, *thunks: Callable[[], Any]) -> Any:
    """``a and b and ...``: Python's for static operands; an i1 conjunction otherwise."""
    return _bool_chain(first, thunks, is_and=True)


def or_(first: Any, *thunks: Callable[[], Any]) -> Any:
    return _bool_chain(first, thunks, is_and=False)


def _bool_chain(first: Any, thunks: Sequence[Callable[[], Any]], is_and: bool) -> Any:
    acc: Bool | None = None
    cur = first
    i = 0
    while True:
        if is_dynamic(cur):
            b = scalars.to_bool(cur)
            acc = b if acc is None else (acc & b if is_and else acc | b)
        elif bool(cur) is not is_and:  # static value that decides the result
            return cur if acc is None else (not is_and)
        elif i == len(thunks):
            return cur if acc is None else acc
        if i == len(thunks):
            return acc
        cur = thunks[i]()
        i += 1


def not_(x: Any) -> Any:
    return scalars.logical_not(x)


_COMPARE = {
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "In": lambda a, b: a in b,
    "NotIn": lambda a, b: a not in b,
    "Is": operator.is_,
    "IsNot": operator.is_not,
}


def compare_chain(left: Any, *pairs: tuple[str, Callable[[], Any]]) -> Any:
    """``a < b <= c``: each operand evaluated once; dynamic results are combined with ``and``."""
    acc: Bool | None = None
    result: Any = True
    for opname, thunk in pairs:
        right = thunk()
        result = _COMPARE[opname](left, right)
        if is_dynamic(result):
            acc = result if acc is None else acc & result
        elif not result:
            return result if acc is None else False
        left = right
    return result if acc is None else acc


def if_exp(test: Any, a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """``x if c else y``; with a dynamic ``c`` both sides are evaluated and selected."""
    if not is_dynamic(test):
        return a() if test else b()
    x, y = a(), b()
    if isinstance(x, (Scalar, int, float)) and isinstance(y, (Scalar, int, float)):
        return scalars.select(test, x, y)
    if _same_static(x, y):
        return x
    raise NotSupportedError(
        "not supported: a conditional expression with a dynamic condition must give numbers "
        f"(it becomes arith.select), got {_describe(x)} and {_describe(y)}",
        state.location(),
    )


def minmax(fn: Callable[..., Any], *args: Any) -> Any:
    """``min``/``max`` of dynamic values (the builtins otherwise, or a user's own function)."""
    if fn not in (builtins.min, builtins.max) or not any(is_dynamic(a) for a in args):
        return fn(*args)
    pick = scalars.minimum if fn is builtins.min else scalars.maximum
    acc = args[0]
    for a in args[1:]:
        acc = pick(acc, a)
    return acc
