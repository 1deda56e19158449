"""``convert-arith-to-llvm``: arith ops to llvm dialect ops, with upstream MLIR's op mapping
(``arith.addi`` -> ``llvm.add`` with its overflow flags, ``arith.cmpf`` -> ``llvm.fcmp`` with the
same predicate, ``arith.minsi`` -> ``llvm.intr.smin``, ``arith.maximumf`` ->
``llvm.intr.maximum``, ``arith.negf`` -> ``llvm.fneg``, casts to the LLVM cast of the same
meaning; ``index`` becomes ``i<index-bitwidth>``). bf16 and f16 stay as they are, as upstream
leaves them (``llvm.fadd ... : bf16``); code generation computes bf16 in f32, rounded once.

Where LLVM leaves a case undefined that layoutc defines (compiler/codegen/ptx_semantics.py,
PTX's rules, the same on the GPU and the CPU), the conversion spells the definition out in llvm
ops, so any LLVM back end (upstream's ``translate_module_to_llvmir`` included) computes the
same thing:

- ``divsi``/``divui``/``remsi``/``remui``: a divisor of 0 (or ``INT_MIN / -1``) divides by 1
  instead and the result is selected (``x / 0`` is all ones, ``x % 0`` is ``x``);
  ``ceildivsi``/``ceildivui``/``floordivsi`` are that division plus a remainder correction
  (MLIR's arith-expand);
- shifts by the width or more give 0 (``ashr``: the sign);
- ``fptosi``/``fptoui`` saturate and map NaN to 0: ``llvm.fpto[su]i.sat`` through
  ``llvm.call_intrinsic``;
- ``remf`` is C ``fmod`` exactly: a call of an internal helper function (fmod.py), not
  ``llvm.frem``, which LLVM's NVPTX back end lowers inexactly.

A divisor or shift amount that is a constant in range compiles to the plain instruction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.dense import DenseElementsAttr
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import ConstantLike
from layoutc.ir.core.types import (
    IndexType,
    IntegerType,
    Type,
    VectorType,
    bf16,
    f32,
)
from layoutc.ir.core.values import BlockArgument, Value
from layoutc.ir.dialects import arith, func, llvm
from layoutc.ir.dialects.llvm import arith_ops as L

from ..base import Option, Pass, Statistic
from ..registry import register_pass
from .fmod import compute_type, ensure_fmod_function

Rule = Callable[["_Converter", Any], None]
_RULES: dict[type[Operation], Rule] = {}


def _rule(*classes: type[Operation]) -> Callable[[Rule], Rule]:
    """Register a conversion for op classes (class-keyed, as codegen's HandlerTable)."""

    def wrap(fn: Rule) -> Rule:
        for cls in classes:
            if cls in _RULES:
                raise ValueError(f"two conversions for '{cls.name}'")
            _RULES[cls] = fn
        return fn

    return wrap


def _scalar(t: Type) -> Type:
    return t.element_type if isinstance(t, VectorType) else t


def _width(t: Type) -> int:
    return _scalar(t).width


class _Converter:
    """One run over a module or function."""

    def __init__(self, index_bitwidth: int):
        self.index_type = IntegerType(index_bitwidth)
        self._types: dict[Type, Type] = {}
        self._b = Builder(None)
        self._at: Operation | None = None  # the op the builder goes before, once asked for
        self.unsupported: list[Operation] = []
        self._consts: dict[tuple[Any, Type, int], Value] = {}
        self.block: Any = None

    @property
    def b(self) -> Builder:
        """The builder, before the op being converted with its location (positioned when a
        rule first asks: the one-to-one rules insert without it)."""
        at = self._at
        if at is not None:
            self._at = None
            b = self._b
            b.loc = at.location
            b.insertion_point = InsertionPoint.before_op(at)
        return self._b

    # -- types --------------------------------------------------------------------------------
    def conv(self, t: Type) -> Type:
        got = self._types.get(t)
        if got is None:
            got = t
            if isinstance(t, IndexType):
                got = self.index_type
            elif isinstance(t, VectorType) and isinstance(t.element_type, IndexType):
                got = VectorType(t.shape, self.index_type, t.scalable)
            self._types[t] = got
        return got

    def value(self, v: Value) -> Value:
        """``v`` with an LLVM type: index-typed block arguments are retyped in place (and the
        signature of a function whose entry block they belong to)."""
        t = v.type
        if isinstance(v, BlockArgument) and self.conv(t) is not t:
            retype_block_args(v.owner, self.conv)
        return v

    # -- building -----------------------------------------------------------------------------
    def emit(self, cls: type[Operation], *args: Any, **kwargs: Any) -> Value:
        return self.b.insert(cls(*args, **kwargs)).results[0]

    def const(self, t: Type, value: int) -> Value:
        """An integer constant, made once per block (ops are converted in program order, so
        the first one made in a block dominates the later uses there)."""
        key = (self.block, t, value)
        got = self._consts.get(key)
        if got is None:
            if isinstance(t, VectorType):
                attr: Any = DenseElementsAttr(t, [value] * t.num_elements)
            else:
                attr = IntegerAttr(value, t)
            got = self._consts[key] = self.emit(llvm.ConstantOp, attr)
        return got

    def replace(self, op: Operation, value: Value) -> None:
        op.results[0].replace_all_uses_with(value)
        op.erase()

    def run(self, root: Operation) -> int:
        todo = []
        for op in root.walk_ops():
            if type(op) in _RULES:
                todo.append(op)
            elif op.dialect is arith.DIALECT:
                self.unsupported.append(op)
        for op in todo:
            self.block = op.parent
            self._at = op
            for u in op._operands:
                self.value(u.value)
            _RULES[type(op)](self, op)
        self._at = None
        return len(todo)


def retype_block_args(block: Any, conv: Callable[[Type], Type]) -> None:
    """Give ``block``'s arguments LLVM-level types (and its function's signature, if entry)."""
    from layoutc.ir.core.attributes import TypeAttr
    from layoutc.ir.core.types import FunctionType

    for a in block.args:
        a.type = conv(a.type)
    region = block.parent
    owner = region.parent if region is not None else None
    if isinstance(owner, func.FuncOp) and block is region.blocks[0]:
        ft = owner.type
        owner.function_type = TypeAttr(
            FunctionType([conv(t) for t in ft.inputs], [conv(t) for t in ft.results])
        )


def constant_ints(v: Value) -> list[int] | None:
    """The signed values of a constant integer (or splat/vector of them), else None."""
    op = v.defining_op
    if op is None or not op.has_trait(ConstantLike):
        return None
    attr = op.properties.get("value")
    width = _width(v.type) if isinstance(_scalar(v.type), IntegerType) else None
    if width is None:
        return None
    if isinstance(attr, IntegerAttr):
        raw = [attr.value]
    elif isinstance(attr, DenseElementsAttr):
        raw = [e.value for e in attr.elements]
    else:
        return None
    mask = (1 << width) - 1
    return [((x & mask) ^ (1 << (width - 1))) - (1 << (width - 1)) for x in raw]


# -- simple one-to-one ops --------------------------------------------------------------------
_OVERFLOW_BITS = {"nsw": L.NSW, "nuw": L.NUW}


def _overflow(op: Any) -> IntegerAttr:
    flags = op.properties.get("overflowFlags")
    bits = 0 if flags is None else sum(_OVERFLOW_BITS[f] for f in flags.flags)
    return L.overflow_attr(bits)


def _fastmath(op: Any) -> Any:
    flags = op.properties.get("fastmath")
    return llvm.LLVMFastmathFlagsAttr(flags.flags if flags is not None else ())


_WITH_OVERFLOW = {arith.AddIOp: L.AddOp, arith.SubIOp: L.SubOp, arith.MulIOp: L.MulOp}
_PLAIN_INT = {
    arith.AndIOp: L.AndOp,
    arith.OrIOp: L.OrOp,
    arith.XOrIOp: L.XOrOp,
    arith.MinSIOp: L.SMinOp,
    arith.MaxSIOp: L.SMaxOp,
    arith.MinUIOp: L.UMinOp,
    arith.MaxUIOp: L.UMaxOp,
}
_FLOAT = {
    arith.AddFOp: L.FAddOp,
    arith.SubFOp: L.FSubOp,
    arith.MulFOp: L.FMulOp,
    arith.DivFOp: L.FDivOp,
    arith.MaximumFOp: L.MaximumOp,
    arith.MinimumFOp: L.MinimumOp,
    arith.MaxNumFOp: L.MaxNumOp,
    arith.MinNumFOp: L.MinNumOp,
}
_CASTS = {
    arith.ExtSIOp: L.SExtOp,
    arith.ExtUIOp: L.ZExtOp,
    arith.TruncIOp: L.TruncOp,
    arith.SIToFPOp: L.SIToFPOp,
    arith.UIToFPOp: L.UIToFPOp,
    arith.ExtFOp: L.FPExtOp,
    arith.TruncFOp: L.FPTruncOp,
}


def _result_type(c: _Converter, op: Operation) -> Type:
    return c.conv(op.results[0].type)


def _make(c: _Converter, op: Operation, cls: type[Operation], props: dict | None = None) -> None:
    """``op`` as one op of ``cls`` (same operands, LLVM result type, ``props``), inserted
    before it at its location as ``c.b`` would."""
    new = cls.create(
        [u.value for u in op._operands],
        [_result_type(c, op)],
        properties=props or None,
        loc=op.location,
    )
    op.parent.insert_before(new, op)
    c.replace(op, new.results[0])


@_rule(*_WITH_OVERFLOW)
def _with_overflow(c: _Converter, op: Any) -> None:
    _make(c, op, _WITH_OVERFLOW[type(op)], {"overflowFlags": _overflow(op)})


@_rule(*_PLAIN_INT)
def _plain_int(c: _Converter, op: Any) -> None:
    _make(c, op, _PLAIN_INT[type(op)])


@_rule(*_FLOAT)
def _float(c: _Converter, op: Any) -> None:
    _make(c, op, _FLOAT[type(op)], {"fastmathFlags": _fastmath(op)})


@_rule(arith.RemFOp)
def _remf(c: _Converter, op: Any) -> None:
    """C ``fmod`` through a helper function (fmod.py: NVPTX's ``frem`` is not exact)."""
    x, y = op.operands
    t = _result_type(c, op)
    scalar = _scalar(t)
    wide = compute_type(scalar)
    callee = ensure_fmod_function(op, wide)

    def one(a: Value, b: Value) -> Value:
        if scalar is not wide:
            a, b = c.emit(L.FPExtOp, a, wide), c.emit(L.FPExtOp, b, wide)
        r = c.emit(llvm.LLVMCallOp, callee, [a, b], wide)
        return r if scalar is wide else c.emit(L.FPTruncOp, r, scalar)

    if not isinstance(t, VectorType):
        c.replace(op, one(x, y))
        return
    out = c.emit(llvm.UndefOp, t)
    for k in range(t.num_elements):
        i = c.const(IntegerType(32), k)
        e = one(c.emit(llvm.ExtractElementOp, x, i), c.emit(llvm.ExtractElementOp, y, i))
        out = c.emit(llvm.InsertElementOp, out, e, i)
    c.replace(op, out)


@_rule(arith.NegFOp)
def _negf(c: _Converter, op: Any) -> None:
    _make(c, op, L.FNegOp, {"fastmathFlags": _fastmath(op)})


@_rule(*_CASTS)
def _cast(c: _Converter, op: Any) -> None:
    _make(c, op, _CASTS[type(op)])


@_rule(arith.CmpIOp)
def _cmpi(c: _Converter, op: Any) -> None:
    _make(c, op, L.ICmpOp, {"predicate": IntegerAttr(op.predicate.value, IntegerType(64))})


@_rule(arith.CmpFOp)
def _cmpf(c: _Converter, op: Any) -> None:
    props = {
        "predicate": IntegerAttr(op.predicate.value, IntegerType(64)),
        "fastmathFlags": _fastmath(op),
    }
    _make(c, op, L.FCmpOp, props)


@_rule(arith.SelectOp)
def _select(c: _Converter, op: Any) -> None:
    _make(c, op, L.SelectOp)


@_rule(arith.ConstantOp)
def _constant(c: _Converter, op: Any) -> None:
    t = _result_type(c, op)
    value = op.value
    if value.type is not t:  # index constants
        if isinstance(value, DenseElementsAttr):
            value = DenseElementsAttr(t, [e.value for e in value.elements])
        else:
            value = IntegerAttr(value.value, t)
    c.replace(op, c.emit(llvm.ConstantOp, value))


@_rule(arith.BitcastOp)
def _bitcast(c: _Converter, op: Any) -> None:
    if op.operands[0].type is _result_type(c, op):
        c.replace(op, op.operands[0])
    else:
        _make(c, op, llvm.BitcastOp)


@_rule(arith.IndexCastOp, arith.IndexCastUIOp)
def _index_cast(c: _Converter, op: Any) -> None:
    x = op.operands[0]
    t = _result_type(c, op)
    ws, wd = _width(c.conv(x.type)), _width(t)
    if ws == wd:
        c.replace(op, x)
    elif wd < ws:
        c.replace(op, c.emit(L.TruncOp, x, t))
    elif isinstance(op, arith.IndexCastOp):
        c.replace(op, c.emit(L.SExtOp, x, t))
    else:
        c.replace(op, c.emit(L.ZExtOp, x, t))


# -- defined edge cases -----------------------------------------------------------------------
def _division(c: _Converter, kind: type[Operation], x: Value, y: Value) -> Value:
    """``x kind y`` defined for every operand (module docstring)."""
    t = x.type
    signed = kind in (L.SDivOp, L.SRemOp)
    known = constant_ints(y)
    if known is not None and all(v != 0 and not (signed and v == -1) for v in known):
        return c.emit(kind, x, y)
    eq = CMP_EQ
    by_zero = c.emit(L.ICmpOp, eq, y, c.const(t, 0))
    special = by_zero
    if signed:
        width = _width(t)
        overflow = c.emit(
            L.AndOp,
            c.emit(L.ICmpOp, eq, x, c.const(t, -(1 << (width - 1)))),
            c.emit(L.ICmpOp, eq, y, c.const(t, -1)),
        )
        special = c.emit(L.OrOp, by_zero, overflow)
    safe = c.emit(L.SelectOp, special, c.const(t, 1), y)
    result = c.emit(kind, x, safe)
    if kind in (L.UDivOp, L.SDivOp):
        return c.emit(L.SelectOp, by_zero, c.const(t, -1), result)
    return c.emit(L.SelectOp, by_zero, x, result)


CMP_EQ = arith.CmpIPredicate.eq
_DIVISIONS = {
    arith.DivSIOp: L.SDivOp,
    arith.DivUIOp: L.UDivOp,
    arith.RemSIOp: L.SRemOp,
    arith.RemUIOp: L.URemOp,
}


@_rule(*_DIVISIONS)
def _divide(c: _Converter, op: Any) -> None:
    x, y = op.operands
    c.replace(op, _division(c, _DIVISIONS[type(op)], x, y))


def _by_zero_all_ones(c: _Converter, y: Value, result: Value) -> Value:
    known = constant_ints(y)
    if known is not None and 0 not in known:
        return result
    t = y.type
    by_zero = c.emit(L.ICmpOp, CMP_EQ, y, c.const(t, 0))
    return c.emit(L.SelectOp, by_zero, c.const(t, -1), result)


@_rule(arith.CeilDivUIOp)
def _ceildivui(c: _Converter, op: Any) -> None:
    x, y = op.operands
    t = x.type
    q = _division(c, L.UDivOp, x, y)
    r = _division(c, L.URemOp, x, y)
    bump = _zext(c, c.emit(L.ICmpOp, arith.CmpIPredicate.ne, r, c.const(t, 0)), t)
    c.replace(op, _by_zero_all_ones(c, y, c.emit(L.AddOp, q, bump)))


@_rule(arith.CeilDivSIOp, arith.FloorDivSIOp)
def _rounded_sdiv(c: _Converter, op: Any) -> None:
    """q = x sdiv y, r = x srem y; ceil adds 1 when r != 0 and r, y share a sign, floor
    subtracts 1 when r != 0 and their signs differ."""
    x, y = op.operands
    t = x.type
    zero = c.const(t, 0)
    q = _division(c, L.SDivOp, x, y)
    r = _division(c, L.SRemOp, x, y)
    nonzero = c.emit(L.ICmpOp, arith.CmpIPredicate.ne, r, zero)
    differ = c.emit(L.ICmpOp, arith.CmpIPredicate.slt, c.emit(L.XOrOp, r, y), zero)
    bool_t = nonzero.type
    if isinstance(op, arith.CeilDivSIOp):
        same = c.emit(L.XOrOp, differ, c.const(bool_t, -1))
        adjust = c.emit(L.AndOp, nonzero, same)
        result = c.emit(L.AddOp, q, _zext(c, adjust, t))
    else:
        adjust = c.emit(L.AndOp, nonzero, differ)
        result = c.emit(L.SubOp, q, _zext(c, adjust, t))
    c.replace(op, _by_zero_all_ones(c, y, result))


def _zext(c: _Converter, b: Value, t: Type) -> Value:
    return b if _width(t) == 1 else c.emit(L.ZExtOp, b, t)


_SHIFTS = {arith.ShLIOp: L.ShlOp, arith.ShRUIOp: L.LShrOp, arith.ShRSIOp: L.AShrOp}


@_rule(*_SHIFTS)
def _shift(c: _Converter, op: Any) -> None:
    kind = _SHIFTS[type(op)]
    x, n = op.operands
    t = x.type
    width = _width(t)
    props = {"overflowFlags": _overflow(op)} if kind is L.ShlOp else {}

    def shift(amount: Value) -> Value:
        return c.b.insert(kind.create([x, amount], [t], properties=props or None)).results[0]

    known = constant_ints(n)
    if known is not None and all(0 <= v < width for v in known):
        c.replace(op, shift(n))
        return
    big = c.emit(L.ICmpOp, arith.CmpIPredicate.uge, n, c.const(t, width))
    if kind is L.AShrOp:  # shifting by N - 1 leaves only the sign
        c.replace(op, shift(c.emit(L.SelectOp, big, c.const(t, width - 1), n)))
        return
    shifted = shift(c.emit(L.SelectOp, big, c.const(t, 0), n))
    c.replace(op, c.emit(L.SelectOp, big, c.const(t, 0), shifted))


def _suffix(t: Type) -> str:
    if isinstance(t, VectorType):
        return f"v{t.num_elements}{_suffix(t.element_type)}"
    return f"i{t.width}" if isinstance(t, IntegerType) else t.text


@_rule(arith.FPToSIOp, arith.FPToUIOp)
def _float_to_int(c: _Converter, op: Any) -> None:
    x = op.operands[0]
    t = _result_type(c, op)
    if _scalar(x.type) is bf16:  # exact, and the intrinsic needs no bfloat support
        wide: Type = VectorType(x.type.shape, f32) if isinstance(x.type, VectorType) else f32
        x = c.emit(L.FPExtOp, x, wide)
    letter = "s" if isinstance(op, arith.FPToSIOp) else "u"
    name = f"llvm.fpto{letter}i.sat.{_suffix(t)}.{_suffix(x.type)}"
    c.replace(op, c.emit(llvm.CallIntrinsicOp, name, [x], t))


class ArithToLLVMError(Exception):
    """An arith op without a conversion."""

    def __init__(self, op: Operation):
        super().__init__(f"not supported: no llvm conversion for '{op.name}'")
        self.op = op
        self.message = str(self)


def convert_arith_to_llvm(root: Operation, index_bitwidth: int = 64) -> int:
    """Convert every arith op nested in ``root``; return how many (raises ArithToLLVMError
    at the first arith op without a conversion)."""
    c = _Converter(index_bitwidth)
    n = c.run(root)
    if c.unsupported:
        raise ArithToLLVMError(c.unsupported[0])
    return n


@register_pass
class ConvertArithToLLVM(Pass):
    """arith ops to llvm dialect ops (upstream's mapping; layoutc's defined edge cases)."""

    argument = "convert-arith-to-llvm"
    display_name = "ArithToLLVMConversionPass"
    summary = "Convert arith ops to llvm dialect ops"

    index_bitwidth = Option(
        int, 64, "bit width of index values", name="index-bitwidth", choices=(32, 64)
    )
    converted = Statistic("Number of arith ops converted")

    def run_on_operation(self, op: Operation) -> None:
        try:
            self.converted += convert_arith_to_llvm(op, self.index_bitwidth)
        except ArithToLLVMError as e:
            self.emit_error(e.op, e.message)
            self.signal_failure()


__all__ = ["ConvertArithToLLVM", "constant_ints", "convert_arith_to_llvm", "retype_block_args"]
