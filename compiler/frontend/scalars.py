"""Dynamic scalars: proxies over SSA values that record arithmetic as ``arith`` ops.

Kernel arguments, thread and block indices, loop variables and loaded elements are dynamic; Python
ints and floats stay static and mix freely with them (``tid * 4 + 1``). Integer proxies keep their
IR type (``index``, ``i32``, ``i64``); mixing ``index`` with a fixed-width integer gives ``index``,
two widths give the wider one, an integer with a float gives the float. ``//`` and ``%`` have
Python's floor semantics; when both operands are known to be non-negative (thread indices,
extents, constants, loop variables over non-negative ranges) the cheaper truncating ops are exact
and used instead.

A proxy cannot become a Python ``bool``/``int``/``float``: the value only exists when the kernel
runs. Such a use is a :class:`CompileError` at the user's line that says what to do instead.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from ..ir.core.attributes import FloatAttr, IntegerAttr
from ..ir.core.types import FloatType, IndexType, IntegerType, Type, f32, i1, i64, index
from ..ir.core.values import Value
from ..ir.dialects import arith
from . import state
from .dtypes import ElementType, from_ir
from .proxy import TraceValue

_CMPI = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
_CMPF = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
_SYMBOL = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "truediv": "/",
    "floordiv": "//",
    "mod": "%",
    "and": "&",
    "or": "|",
    "xor": "^",
    "lshift": "<<",
    "rshift": ">>",
}


class Scalar(TraceValue):
    """Base of dynamic scalars: an SSA value of a scalar type."""

    __slots__ = ("nonneg", "value")

    def __init__(self, value: Value, nonneg: bool = False):
        self.value = value
        self.nonneg = nonneg

    def _lc_values(self) -> list[Value]:
        return [self.value]

    def _lc_signature(self) -> Any:
        return (Scalar, self.value.type)

    def _lc_rebuild(self, values: Any) -> Scalar:
        return wrap(values[0], self.nonneg)

    def _lc_describe(self) -> str:
        return f"a dynamic {self.value.type.text}"

    @property
    def type(self) -> Type:
        return self.value.type

    @property
    def dtype(self) -> ElementType | None:
        """The element type (None for ``index``)."""
        return from_ir(self.value.type)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.value.type.text} (dynamic)>"

    __hash__ = object.__hash__

    # -- what Python cannot do with a run-time value -----------------------------------------
    def __bool__(self) -> bool:
        raise state.error(
            "a dynamic value cannot be used as a Python bool here; dynamic conditions work in "
            "the kernel's own `if`/`while` statements (they become scf.if/scf.while), or select "
            "with lc.where(cond, a, b)"
        )

    def __index__(self) -> int:
        raise state.error(
            "a dynamic value is used where a static Python int is needed (a Python range, a "
            "static layout, an index into a Python sequence); use lc.range for loops with "
            "dynamic bounds, lc.crd2idx(coord, layout) to evaluate a layout at a dynamic "
            "coordinate, or make the value static (lc.Constexpr)"
        )

    def __int__(self) -> int:
        raise state.error(
            "int() of a dynamic value: the value is only known when the kernel runs; "
            "convert with lc.i32(x) / lc.i64(x) instead"
        )

    def __float__(self) -> float:
        raise state.error(
            "float() of a dynamic value: the value is only known when the kernel runs; "
            "convert with lc.f32(x) instead"
        )

    def __iter__(self):
        raise state.error("a dynamic scalar is not iterable")

    # -- arithmetic ---------------------------------------------------------------------------
    def __add__(self, o: Any) -> Any:
        return binary("add", self, o)

    def __radd__(self, o: Any) -> Any:
        return binary("add", o, self)

    def __sub__(self, o: Any) -> Any:
        return binary("sub", self, o)

    def __rsub__(self, o: Any) -> Any:
        return binary("sub", o, self)

    def __mul__(self, o: Any) -> Any:
        return binary("mul", self, o)

    def __rmul__(self, o: Any) -> Any:
        return binary("mul", o, self)

    def __truediv__(self, o: Any) -> Any:
        return binary("truediv", self, o)

    def __rtruediv__(self, o: Any) -> Any:
        return binary("truediv", o, self)

    def __floordiv__(self, o: Any) -> Any:
        return binary("floordiv", self, o)

    def __rfloordiv__(self, o: Any) -> Any:
        return binary("floordiv", o, self)

    def __mod__(self, o: Any) -> Any:
        return binary("mod", self, o)

    def __rmod__(self, o: Any) -> Any:
        return binary("mod", o, self)

    def __and__(self, o: Any) -> Any:
        return binary("and", self, o)

    def __rand__(self, o: Any) -> Any:
        return binary("and", o, self)

    def __or__(self, o: Any) -> Any:
        return binary("or", self, o)

    def __ror__(self, o: Any) -> Any:
        return binary("or", o, self)

    def __xor__(self, o: Any) -> Any:
        return binary("xor", self, o)

    def __rxor__(self, o: Any) -> Any:
        return binary("xor", o, self)

    def __lshift__(self, o: Any) -> Any:
        return binary("lshift", self, o)

    def __rlshift__(self, o: Any) -> Any:
        return binary("lshift", o, self)

    def __rshift__(self, o: Any) -> Any:
        return binary("rshift", self, o)

    def __rrshift__(self, o: Any) -> Any:
        return binary("rshift", o, self)

    def __neg__(self) -> Any:
        return negate(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return absolute(self)

    def __invert__(self) -> Any:
        return invert(self)

    def __lt__(self, o: Any) -> Any:
        return compare("lt", self, o)

    def __le__(self, o: Any) -> Any:
        return compare("le", self, o)

    def __gt__(self, o: Any) -> Any:
        return compare("gt", self, o)

    def __ge__(self, o: Any) -> Any:
        return compare("ge", self, o)

    def __eq__(self, o: Any) -> Any:  # type: ignore[override]
        return compare("eq", self, o)

    def __ne__(self, o: Any) -> Any:  # type: ignore[override]
        return compare("ne", self, o)

    def to(self, dtype: ElementType) -> Scalar:
        """This value converted to ``dtype`` (``x.to(lc.f32)``)."""
        return convert(self, dtype)


class Int(Scalar):
    """A dynamic integer (``index``, ``i8`` ... ``i64``)."""

    __slots__ = ()


class Float(Scalar):
    """A dynamic floating-point value (``f16``, ``bf16``, ``tf32``, ``f32``, ``f64``)."""

    __slots__ = ()


class Bool(Scalar):
    """A dynamic ``i1`` (comparisons, predicates)."""

    __slots__ = ()


def wrap(value: Value, nonneg: bool = False) -> Scalar:
    """The proxy class matching ``value``'s type."""
    t = value.type
    if t is i1:
        return Bool(value)
    if isinstance(t, (IndexType, IntegerType)):
        return Int(value, nonneg)
    if isinstance(t, FloatType):
        return Float(value)
    raise TypeError(f"no scalar proxy for values of type {t.text}")


def is_dynamic(x: Any) -> bool:
    return isinstance(x, Scalar)


# -------------------------------------------------------------------------------------------
# constants
# -------------------------------------------------------------------------------------------


def constant(value: int | float | bool, t: Type) -> Value:
    """An ``arith.constant`` of ``t`` (shared within the current block)."""
    st = state.current()
    ip = st.builder.insertion_point
    assert ip is not None
    key = (ip.block, t, value.hex() if isinstance(value, float) else value, type(value))
    cache = st.constants
    found = cache.get(key) if ip.before is None else None
    if found is not None:
        return found
    if isinstance(t, FloatType):
        attr = FloatAttr(float(value), t)
    else:
        v = int(value)
        if isinstance(t, IntegerType) and t.width > 1 and not t.min_value() <= v <= t.max_value():
            raise state.error(f"the constant {v} does not fit in {t.text}")
        if t is i1:
            v = -1 if v else 0
        attr = IntegerAttr(v, t)
    op = state.emit(arith.ConstantOp(attr))
    if ip.before is None:
        cache[key] = op.results[0]
    return op.results[0]


def forget_block_constants(block: Any) -> None:
    """Forget cached constants of ``block`` (its ops are about to be erased)."""
    cache = state.current().constants
    for key in [k for k in cache if k[0] is block]:
        del cache[key]


# -------------------------------------------------------------------------------------------
# operands and promotion
# -------------------------------------------------------------------------------------------


def _is_py_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, Scalar)


def _describe(x: Any) -> str:
    if isinstance(x, Scalar):
        return f"a dynamic {x.type.text}"
    return f"{type(x).__name__} {x!r}" if _is_py_number(x) else type(x).__name__


def _int_rank(t: Type) -> int:
    return 1 << 30 if isinstance(t, IndexType) else t.width  # type: ignore[attr-defined]


def _common_type(a: Any, b: Any, what: str) -> Type:
    """The type both operands are converted to."""
    ta = a.type if isinstance(a, Scalar) else None
    tb = b.type if isinstance(b, Scalar) else None
    floats = [t for t in (ta, tb) if isinstance(t, FloatType)]
    if floats:
        if len(floats) == 2 and floats[0] is not floats[1]:
            return floats[0] if floats[0].width >= floats[1].width else floats[1]
        return floats[0]
    if isinstance(a, float) or isinstance(b, float):
        return f32
    ints = [t for t in (ta, tb) if t is not None and t is not i1]
    if not ints:
        if ta is i1 or tb is i1:
            return i1 if all(isinstance(x, (Bool, bool)) for x in (a, b)) else index
        return index
    if len(ints) == 2 and ints[0] is not ints[1]:
        return ints[0] if _int_rank(ints[0]) >= _int_rank(ints[1]) else ints[1]
    return ints[0]


def as_value(x: Any, t: Type) -> Value:
    """``x`` (a Python number or a proxy) as an SSA value of type ``t``."""
    if isinstance(x, Scalar):
        return cast_value(x.value, t)
    if isinstance(x, bool):
        return constant(int(x), t) if not isinstance(t, FloatType) else constant(float(x), t)
    if isinstance(x, int):
        return constant(x if not isinstance(t, FloatType) else float(x), t)
    if isinstance(x, float):
        if not isinstance(t, FloatType):
            raise state.error(f"cannot use the float {x!r} as an integer ({t.text})")
        return constant(x, t)
    raise state.error(f"expected a number or a dynamic scalar, got {_describe(x)}")


def cast_value(v: Value, t: Type) -> Value:
    """Convert an SSA value to type ``t`` with the arith cast that C would use."""
    s = v.type
    if s is t:
        return v
    if isinstance(s, IndexType):
        if isinstance(t, IntegerType):
            return _emit(arith.IndexCastOp(v, t))
        if isinstance(t, FloatType):
            return _emit(arith.SIToFPOp(_emit(arith.IndexCastOp(v, i64)), t))
    if isinstance(s, IntegerType):
        if isinstance(t, IndexType):
            op = arith.IndexCastUIOp if s is i1 else arith.IndexCastOp
            return _emit(op(v, t))
        if isinstance(t, IntegerType):
            if t.width > s.width:
                return _emit((arith.ExtUIOp if s is i1 else arith.ExtSIOp)(v, t))
            if t is i1:
                return _emit(arith.CmpIOp("ne", v, constant(0, s)))
            return _emit(arith.TruncIOp(v, t))
        if isinstance(t, FloatType):
            return _emit((arith.UIToFPOp if s is i1 else arith.SIToFPOp)(v, t))
    if isinstance(s, FloatType):
        if isinstance(t, FloatType):
            return _emit((arith.ExtFOp if t.width > s.width else arith.TruncFOp)(v, t))
        if isinstance(t, IntegerType) and t is not i1:
            return _emit(arith.FPToSIOp(v, t))
        if isinstance(t, IndexType):
            return _emit(arith.IndexCastOp(_emit(arith.FPToSIOp(v, i64)), index))
        if t is i1:
            return _emit(arith.CmpFOp("une", v, constant(0.0, s)))
    raise state.error(f"cannot convert a value of type {s.text} to {t.text}")


def _emit(op: Any) -> Value:
    return state.emit(op).results[0]


def _nonneg(x: Any) -> bool:
    if isinstance(x, Scalar):
        return x.nonneg
    return _is_py_number(x) and x >= 0


def _positive_const(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


# -------------------------------------------------------------------------------------------
# operations
# -------------------------------------------------------------------------------------------


_FP8 = frozenset({"f8E4M3FN", "f8E5M2"})


def refuse_fp8(what: str, *xs: Any) -> None:
    """FP8 values are storage only (copies, TMA and the warpgroup MMAs read them): LLVM has no
    8-bit float arithmetic, so computing on one is a diagnostic, never wrong code."""
    for x in xs:
        if isinstance(x, Scalar) and x.value.type.text in _FP8:
            raise state.error(
                f"not supported: {what} on an FP8 value ({x.value.type.text}): FP8 data is "
                "copied and read by warpgroup MMAs only"
            )


def binary(kind: str, a: Any, b: Any) -> Any:
    """``a <kind> b`` where at least one operand is a proxy."""
    for x in (a, b):
        if not isinstance(x, (Scalar, int, float)):
            return NotImplemented
    refuse_fp8(f"'{_SYMBOL[kind]}'", a, b)
    t = _common_type(a, b, kind)
    if kind == "truediv" and not isinstance(t, FloatType):
        t = f32
    if isinstance(t, FloatType):
        if kind in ("floordiv", "mod", "and", "or", "xor", "lshift", "rshift"):
            raise state.error(
                f"not supported: '{_SYMBOL[kind]}' on floating-point values "
                f"({_describe(a)} and {_describe(b)})"
            )
        op = {
            "add": arith.AddFOp,
            "sub": arith.SubFOp,
            "mul": arith.MulFOp,
            "truediv": arith.DivFOp,
        }[kind]
        return Float(_emit(op(as_value(a, t), as_value(b, t))))
    if t is i1:
        if kind not in ("and", "or", "xor"):
            t = index
        else:
            op = {"and": arith.AndIOp, "or": arith.OrIOp, "xor": arith.XOrIOp}[kind]
            return Bool(_emit(op(as_value(a, t), as_value(b, t))))
    simple = _identity(kind, a, b, t)
    if simple is not None:
        return simple
    nonneg = _nonneg(a) and _nonneg(b)
    if kind in ("floordiv", "mod") and isinstance(b, int) and b == 0:
        raise state.error(f"integer {'division' if kind == 'floordiv' else 'modulo'} by zero")
    va, vb = as_value(a, t), as_value(b, t)
    if kind == "floordiv":
        exact = nonneg and (_positive_const(b) or isinstance(b, Scalar))
        op = arith.DivSIOp if exact else arith.FloorDivSIOp
        return Int(_emit(op(va, vb)), nonneg)
    if kind == "mod":
        if nonneg:
            return Int(_emit(arith.RemSIOp(va, vb)), True)
        # Python's modulo: a - floor(a / b) * b (the sign follows b).
        q = _emit(arith.FloorDivSIOp(va, vb))
        return Int(_emit(arith.SubIOp(va, _emit(arith.MulIOp(q, vb)))), _positive_const(b))
    op = {
        "add": arith.AddIOp,
        "sub": arith.SubIOp,
        "mul": arith.MulIOp,
        "and": arith.AndIOp,
        "or": arith.OrIOp,
        "xor": arith.XOrIOp,
        "lshift": arith.ShLIOp,
        "rshift": arith.ShRSIOp,
    }[kind]
    keeps_sign = kind in ("add", "mul", "and", "or", "rshift")
    return Int(_emit(op(va, vb)), nonneg and keeps_sign)


def _is_int(x: Any, v: int) -> bool:
    return type(x) is int and x == v


def _identity(kind: str, a: Any, b: Any, t: Type) -> Any:
    """``x + 0``, ``x * 1``, ``x // 1``, ``x * 0`` ... on integers: no op to emit."""
    if kind in ("add", "sub", "or", "xor", "lshift", "rshift") and _is_int(b, 0):
        keep = a
    elif kind in ("add", "or", "xor") and _is_int(a, 0):
        keep = b
    elif kind in ("mul", "floordiv") and _is_int(b, 1):
        keep = a
    elif kind == "mul" and _is_int(a, 1):
        keep = b
    elif (kind == "mod" and _is_int(b, 1)) or (
        kind in ("mul", "and") and (_is_int(a, 0) or _is_int(b, 0))
    ):
        return 0
    else:
        return None
    if not isinstance(keep, Int) or keep.type is not t:
        return None
    return keep


def compare(kind: str, a: Any, b: Any) -> Any:
    for x in (a, b):
        if not isinstance(x, (Scalar, int, float)):
            return NotImplemented
    refuse_fp8("a comparison", a, b)
    t = _common_type(a, b, kind)
    if t is i1:
        t = index if kind not in ("eq", "ne") else i1
    va, vb = as_value(a, t), as_value(b, t)
    if isinstance(t, FloatType):
        return Bool(_emit(arith.CmpFOp(_CMPF[kind], va, vb)))
    return Bool(_emit(arith.CmpIOp(_CMPI[kind], va, vb)))


def negate(a: Scalar) -> Scalar:
    if isinstance(a, Float):
        return Float(_emit(arith.NegFOp(a.value)))
    if isinstance(a, Bool):
        a = Int(cast_value(a.value, index), True)
    return Int(_emit(arith.SubIOp(constant(0, a.type), a.value)))


def absolute(a: Scalar) -> Scalar:
    if isinstance(a, Bool):
        return a
    if a.nonneg:
        return a
    neg = negate(a)
    is_neg = compare("lt", a, 0)
    r = _emit(arith.SelectOp(is_neg.value, neg.value, a.value))
    return Float(r) if isinstance(a, Float) else Int(r, True)


def invert(a: Scalar) -> Scalar:
    """``~b`` is logical not for booleans and bitwise not for integers (as in numpy)."""
    if isinstance(a, Float):
        raise state.error("not supported: '~' on a floating-point value")
    ones = constant(True if a.type is i1 else -1, a.type)
    r = _emit(arith.XOrIOp(a.value, ones))
    return Bool(r) if isinstance(a, Bool) else Int(r)


def logical_not(a: Any) -> Any:
    """``not a``: Python's for static values, ``a == 0`` (an i1) for dynamic ones."""
    if not isinstance(a, Scalar):
        return not a
    return invert(to_bool(a))


def to_bool(a: Scalar) -> Bool:
    """Python truthiness of a dynamic scalar as an i1 (``x != 0``)."""
    if isinstance(a, Bool):
        return a
    return Bool(cast_value(a.value, i1))


def minimum(a: Any, b: Any) -> Any:
    return _minmax(a, b, True)


def maximum(a: Any, b: Any) -> Any:
    return _minmax(a, b, False)


def _minmax(a: Any, b: Any, is_min: bool) -> Any:
    if not isinstance(a, Scalar) and not isinstance(b, Scalar):
        return builtins.min(a, b) if is_min else builtins.max(a, b)
    t = _common_type(a, b, "min")
    va, vb = as_value(a, t), as_value(b, t)
    if isinstance(t, FloatType):
        op = arith.MinimumFOp if is_min else arith.MaximumFOp
        return Float(_emit(op(va, vb)))
    if t is i1:
        t = index
        va, vb = as_value(a, t), as_value(b, t)
    op = arith.MinSIOp if is_min else arith.MaxSIOp
    nonneg = (_nonneg(a) and _nonneg(b)) if is_min else (_nonneg(a) or _nonneg(b))
    return Int(_emit(op(va, vb)), nonneg)


def select(cond: Any, a: Any, b: Any) -> Any:
    """``a if cond else b`` without branching (``arith.select``); static conditions pick."""
    if not isinstance(cond, Scalar):
        return a if cond else b
    c = to_bool(cond)
    statics = not isinstance(a, Scalar) and not isinstance(b, Scalar)
    if statics and not (_is_py_number(a) and _is_py_number(b)):
        raise state.error(
            f"lc.where needs two numbers or dynamic scalars, got {_describe(a)} and {_describe(b)}"
        )
    t = _common_type(a, b, "select")
    r = _emit(arith.SelectOp(c.value, as_value(a, t), as_value(b, t)))
    return wrap(r, _nonneg(a) and _nonneg(b))


def convert(x: Any, dtype: ElementType) -> Any:
    """``x`` converted to ``dtype`` (a constant for Python numbers)."""
    t = dtype.ir_type
    if t.text in _FP8:
        raise state.error(f"not supported: converting to {dtype.name} (FP8 data is storage only)")
    refuse_fp8("a conversion", x)
    if isinstance(x, Scalar):
        return wrap(cast_value(x.value, t), x.nonneg and not isinstance(t, FloatType))
    if isinstance(x, (bool, int, float)):
        if not isinstance(t, FloatType) and isinstance(x, float):
            if not math.isfinite(x):
                raise state.error(f"cannot convert {x!r} to {dtype.name}")
            x = int(x)
        v = as_value(x, t)
        return wrap(v, not isinstance(t, FloatType) and x >= 0)
    raise state.error(f"cannot convert {_describe(x)} to {dtype.name}")


def to_index(x: Any, what: str = "an index") -> Any:
    """A Python int stays static; a dynamic integer becomes an ``index`` proxy."""
    if isinstance(x, bool):
        raise state.error(f"expected {what}, got the bool {x!r}")
    if isinstance(x, int):
        return x
    if isinstance(x, Int):
        if isinstance(x.type, IndexType):
            return x
        return Int(cast_value(x.value, index), x.nonneg)
    if isinstance(x, Bool):
        return Int(cast_value(x.value, index), True)
    raise state.error(f"expected {what} (an integer), got {_describe(x)}")


def index_value(x: Any) -> Value:
    """An ``index`` SSA value for a Python int or an integer proxy."""
    y = to_index(x)
    return y.value if isinstance(y, Int) else constant(y, index)
