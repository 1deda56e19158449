"""Base classes of the ``layout`` ops whose results the algebra computes.

A subclass declares its operands (with type constraints), its ``result_specs`` (a layout kind,
``"same"`` as operand #0, ``"index"`` or ``"i1"``) and ``evaluate(props, args)``: the algebra
call from operand values to result values. This base class then provides, for every op:

- the builder ``Op(*operands, loc=..., **props)`` that infers the result types (an algebra
  ``LayoutError`` becomes a ``DiagnosticError`` at ``loc`` naming the condition);
- the verifier (the declared result types must be the inferred ones; algebra errors become
  diagnostics at the op);
- the folder: constant operands (``layout.constant``, ``arith.constant``) are used as static
  values and the other operands as symbols; a result that comes out fully static folds to a
  constant, and a result equal to an operand folds to that operand;
- a custom assembly ``%r = layout.op %a, %b {props} : (Ta, Tb) -> Tr`` (or ``: Ta, Tb`` for
  ops with index/i1 results) next to the generic form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ...algebra.errors import LayoutError
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, DenseArrayAttr, IntegerAttr
from ...core.diagnostics import Diagnostic, DiagnosticError, Severity
from ...core.errors import VerifyError
from ...core.location import Location, UnknownLoc
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import Type, i64, result_list_text
from ...core.values import Value
from .attributes import IntTupleAttr
from .inference import (
    I1,
    INDEX,
    Evaluation,
    ResultSpec,
    constant_argument,
    diagnostic_message,
    evaluate_types,
    slot_value,
    static_result,
    symbol_notes,
)

PropBuilder = Callable[[Any], Attribute]


def i64_attr(value: Any) -> Attribute:
    """A property value from an int (or an IntegerAttr already)."""
    if isinstance(value, Attribute):
        return value
    return IntegerAttr(int(value), i64)


def i64_array(values: Any) -> Attribute:
    """A dense i64 array property from a sequence of ints (or a DenseArrayAttr already)."""
    if isinstance(values, Attribute):
        return values
    return DenseArrayAttr(i64, [int(v) for v in values])


def int_tuple_attr(value: Any) -> Attribute:
    """An int-tuple property from text, a tuple of ints or an IntTupleAttr."""
    if isinstance(value, Attribute):
        return value
    return IntTupleAttr(value)


def error_diagnostic(
    op_name: str, message: str, loc: Location | None, operand_types: Sequence[Type]
) -> Diagnostic:
    diag = Diagnostic(Severity.ERROR, f"'{op_name}' op {message}", loc or UnknownLoc())
    for note in symbol_notes(message, operand_types):
        diag.attach_note(note)
    return diag


class AlgebraOp(Operation):
    """A Pure op whose results are the algebra applied to its operands."""

    traits = (Pure,)
    result_specs: ClassVar[tuple[ResultSpec, ...]] = ()
    prop_builders: ClassVar[dict[str, PropBuilder]] = {}

    # -- what subclasses define -----------------------------------------------------------------
    @classmethod
    def evaluate(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, ...]:
        """The algebra: operand values (None for an absent optional operand) -> result values."""
        raise NotImplementedError

    check: ClassVar[Callable[..., None] | None] = None
    """For ops with only index/i1 results: validate operands without computing the results."""

    # -- inference ------------------------------------------------------------------------------
    @classmethod
    def evaluation(
        cls, operand_types: Sequence[Type], props: Mapping[str, Attribute]
    ) -> Evaluation:
        key = (cls, tuple(operand_types), tuple(sorted(props.items(), key=lambda kv: kv[0])))
        check = cls.check
        return evaluate_types(
            key,
            operand_types,
            props,
            cls.result_specs,
            lambda props, args: cls.evaluate(props, cls._pad_args(args)),
            None if check is None else lambda props, args: check(props, cls._pad_args(args)),
        )

    @classmethod
    def _pad_args(cls, args: Sequence[Any]) -> list[Any]:
        """One argument per declared operand group (None for an absent optional operand)."""
        d = cls._def
        assert d is not None
        n = len(d.operands.names)
        return list(args) + [None] * (n - len(args))

    @classmethod
    def infer_result_types(
        cls, operand_types: Sequence[Type], props: Mapping[str, Attribute]
    ) -> list[Type]:
        """The result types for these operand types (raises LayoutError when inadmissible)."""
        ev = cls.evaluation(operand_types, props)
        if ev.error is not None:
            raise ev.error
        assert ev.types is not None
        return list(ev.types)

    # -- builder --------------------------------------------------------------------------------
    def __init__(self, *operands: Value | None, loc: Location | None = None, **props: Any):
        cls = type(self)
        properties: dict[str, Attribute] = {}
        for name, value in props.items():
            if value is None:
                continue
            build = cls.prop_builders.get(name)
            if build is None:
                raise TypeError(f"{cls.name} has no property '{name}'")
            properties[name] = build(value)
        present = [v for v in operands if v is not None]
        types = [v.type for v in present]
        self._check_operand_kinds(operands, loc)
        try:
            result_types = cls.infer_result_types(types, properties)
        except LayoutError as e:
            raise DiagnosticError(
                [error_diagnostic(cls.name, diagnostic_message(e), loc, types)]
            ) from None
        super().__init__(
            operands=list(operands), result_types=result_types, properties=properties, loc=loc
        )

    @classmethod
    def _check_operand_kinds(cls, operands: Sequence[Value | None], loc: Location | None) -> None:
        d = cls._def
        assert d is not None
        names = d.operands.names
        if len(operands) > len(names):
            message = f"expected at most {len(names)} operands, got {len(operands)}"
            raise DiagnosticError([error_diagnostic(cls.name, message, loc, ())])
        for k, name in enumerate(names):
            v = operands[k] if k < len(operands) else None
            arity = d.operands.arities[k].value
            if v is None:
                if arity == "single":
                    message = f"operand '{name}' is required"
                    raise DiagnosticError([error_diagnostic(cls.name, message, loc, ())])
                continue
            if not isinstance(v, Value):
                raise TypeError(f"{cls.name}: operand '{name}' must be an SSA value, got {v!r}")
            c = d.operands.constraints[k]
            if c is not None and not c(v.type):
                message = f"operand '{name}' must be {c.description}, but got '{v.type.text}'"
                raise DiagnosticError([error_diagnostic(cls.name, message, loc, ())])

    # -- verifier -------------------------------------------------------------------------------
    def verify_(self) -> None:
        types = self.operand_types
        ev = type(self).evaluation(types, self.properties)
        if ev.error is not None:
            message = diagnostic_message(ev.error)
            raise VerifyError(message, notes=[(n, None) for n in symbol_notes(message, types)])
        assert ev.types is not None
        for i, (declared, inferred) in enumerate(zip(self.result_types, ev.types)):
            if declared is not inferred:
                raise VerifyError(
                    f"result #{i} has type '{declared.text}', but the operands give "
                    f"'{inferred.text}'"
                )

    # -- folding --------------------------------------------------------------------------------
    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        cls = type(self)
        types = self.operand_types
        constants = [constant_argument(c, t) for c, t in zip(operands, types)]
        try:
            args: list[Any] = [
                c if c is not None else slot_value(t, k)
                for k, (c, t) in enumerate(zip(constants, types))
            ]
            if all(c is None for c in constants):
                values = cls.evaluation(types, self.properties).values
            else:
                values = cls.evaluate(self.properties, cls._pad_args(args))
        except (LayoutError, TypeError, ValueError, ArithmeticError, AttributeError):
            return None  # the verifier reports invalid ops; folding just does not happen
        if values is None:
            return None
        folded: list[Attribute | Value] = []
        for result, value in zip(self.results, values):
            attr = static_result(value, result.type)
            if attr is not None:
                folded.append(attr)
                continue
            same = self._operand_equal_to(value, result.type, args)
            if same is None:
                return None
            folded.append(same)
        return folded

    def _operand_equal_to(self, value: Any, t: Type, args: Sequence[Any]) -> Value | None:
        """An operand of type ``t`` whose value is ``value`` (the op is an identity on it)."""
        for k, (u, arg) in enumerate(zip(self._operands, args)):
            if u.value.type is t and _same_value(arg, value):
                return self._operands[k].value
        return None

    # -- assembly: %r = layout.op %a, %b {props} : (Ta, Tb) -> Tr ----------------------------
    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operands(self.operands)
        elided = self.print_inline_props(p)
        p.print_attr_dict(self, elided)
        operand_types = ", ".join(t.text for t in self.operand_types)
        if all(s in (INDEX, I1) for s in self.result_specs):
            p.write(f" : {operand_types}")
        else:
            p.write(f" : ({operand_types}) -> {result_list_text(self.result_types)}")

    def print_inline_props(self, p: OpAsmPrinter) -> tuple[str, ...]:
        """Print properties that have a syntax of their own; return their names."""
        return ()

    @classmethod
    def parse_inline_props(cls, p: OpAsmParser) -> dict[str, Attribute]:
        return {}

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        operands = p.parse_operand_list()
        props = cls.parse_inline_props(p)
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        if all(s in (INDEX, I1) for s in cls.result_specs):
            types = p.parse_type_list() if operands else []
            results = cls._fixed_result_types()
        else:
            at = p.pos
            fn = p.parse_function_type()
            types, results = list(fn.inputs), list(fn.results)
            if len(results) != len(cls.result_specs):
                raise p.error(
                    f"'{cls.name}' has {len(cls.result_specs)} results, the type lists "
                    f"{len(results)}",
                    at,
                )
        values = p.resolve_operands(operands, types)
        return cls.create(values, results, properties=props, attributes=attrs)

    @classmethod
    def _fixed_result_types(cls) -> list[Type]:
        from ...core.types import i1, index

        return [index if s == INDEX else i1 for s in cls.result_specs]


def _same_value(a: Any, b: Any) -> bool:
    """Structural equality of algebra values (symbols compare by identity)."""
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except TypeError:
        return False
