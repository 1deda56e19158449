"""Element access: tile.load, tile.store, and tile.assume (facts about index values).

``tile.load %t[(%i, 2)]`` reads the element at a coordinate of a tensor (for a coordinate
tensor: its origin plus the layout's value there, a coordinate); ``tile.load %p[%off]`` reads ``%off`` elements past a pointer. The
coordinate must fit the tensor's shape (profile, and range for static entries): a mismatch is
a diagnostic naming the coordinate and the shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...algebra.errors import LayoutError
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr, StringAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import IndexType, IntegerType, Type, i64, index
from ...core.values import Value
from ..layout.text import Kind, format_value, is_instance
from ..layout.types import IntTupleType
from . import coords as C
from .base import build_error
from .effects import MemoryEffects
from .inference import (
    cached,
    diagnostic_message,
    index_fact,
    operand_arg,
    operand_origin,
    symbol_notes,
)
from .origins import element_at
from .spaces import COORD
from .swizzled import element_offset as swizzled_offset
from .types import PtrType, TensorType

__all__ = ["AssumeOp", "LoadOp", "StoreOp", "element_address"]

_Index = Constraint(lambda t: isinstance(t, IndexType), "index")
_Source = Constraint(lambda t: isinstance(t, (TensorType, PtrType)), "!tile.tensor or !tile.ptr")


def element_address(
    source: Type,
    pattern: Any,
    coord_types: Sequence[Type],
    facts: Sequence[Any],
    text: str | None = None,
) -> Any:
    """The layout's value at the coordinate (an element offset; ``plain + Sw(arg)`` for a
    swizzled layout at a run-time coordinate, :mod:`.swizzled`), or for a coordinate tensor the
    coordinate there (its origin plus the layout's value, CuTe's ``*(iter + layout(c))``);
    LayoutError when the coordinate does not fit. Memoised on types and facts, and on the
    pattern's ``text`` when the caller has it (the op's ``coord`` property: saves formatting
    it again on every verification)."""
    if text is None:
        text = C.format_pattern(pattern)
    key = ("element", source, text, tuple(coord_types), tuple(facts))

    def go() -> Any:
        if C.has_wildcard(pattern):
            raise LayoutError(
                f"the coordinate \"{C.format_pattern(pattern)}\" has '_': it names several "
                "elements (use tile.slice for a sub-tensor)"
            )
        args = [operand_arg(t, k + 1, f) for k, (t, f) in enumerate(zip(coord_types, facts))]
        coord = C.substitute(pattern, args)
        if isinstance(source, PtrType):
            if isinstance(coord, tuple):
                raise LayoutError(
                    f"a pointer is indexed by one element offset, got the coordinate "
                    f'"{C.format_pattern(pattern)}"'
                )
            return coord
        layout = operand_arg(source, 0)
        if isinstance(source, TensorType) and source.space == COORD:
            return element_at(operand_origin(source, 0, layout), layout(coord))
        return swizzled_offset(layout, coord)

    return cached(key, go)


def element_result_type(source: Type, value: Any) -> Type:
    """What a load from ``source`` produces: the element type, or the coordinate's type
    (``origin + layout(coord)``: static only where both are)."""
    if isinstance(source, TensorType) and source.space == COORD:
        _, text, _dyn = format_value(value, Kind.INT_TUPLE)
        return IntTupleType(text)
    return source.element  # type: ignore[union-attr]


def _less_static(declared: Type, inferred: Type) -> bool:
    """A coordinate load's declared type may leave entries ``?`` that are static now (a fold
    made its coordinate or its source's origin constant after it was built)."""
    return (
        isinstance(declared, IntTupleType)
        and isinstance(inferred, IntTupleType)
        and is_instance(inferred.parsed.text, declared.parsed.text)
    )


class _AccessOp(Operation):
    """An op addressing one element of ``source`` by a coordinate pattern."""

    coord = prop(StringAttr)

    source: Any
    coords: Any

    @property
    def pattern(self) -> Any:
        return C.parse_pattern(self.coord.value)

    def _address(self) -> Any:
        text = self.coord.value
        pattern = C.parse_pattern(text)
        n = C.count_dynamic(pattern)
        coords = self.coords
        if n != len(coords):
            raise LayoutError(
                f"the coordinate pattern \"{self.coord.value}\" has {n} '?' entries but the op "
                f"has {len(coords)} index operands"
            )
        return element_address(
            self.source.type,
            pattern,
            [v.type for v in coords],
            [index_fact(v) for v in coords],
            text,
        )

    def _verify_address(self) -> Any:
        try:
            return self._address()
        except LayoutError as e:
            message = diagnostic_message(e)
            types = [self.source.type, *(v.type for v in self.coords)]
            raise VerifyError(
                message, notes=[(n, None) for n in symbol_notes(message, types)]
            ) from None


def _coordinate_operands(
    op_name: str, source: Value, coord: Any, loc: Location | None
) -> tuple[StringAttr, list[Value], Any]:
    try:
        pattern, dynamic = C.pattern_of_value(coord)
    except LayoutError as e:
        raise build_error(op_name, diagnostic_message(e), loc) from None
    for v in dynamic:
        if not isinstance(v, Value) or not isinstance(v.type, IndexType):
            raise build_error(
                op_name, f"coordinate entries must be ints or index values, got {v!r}", loc
            )
    text = C.format_pattern(pattern)  # once: the property, and the address memo's key
    try:
        value = element_address(
            source.type,
            pattern,
            [v.type for v in dynamic],
            [index_fact(v) for v in dynamic],
            text,
        )
    except LayoutError as e:
        raise build_error(op_name, diagnostic_message(e), loc, [source.type]) from None
    return StringAttr(text), list(dynamic), value


_OFFSET_ATTRS: dict[int, StringAttr] = {}


def _pointer_offset(source: Value, coord: Any) -> StringAttr | None:
    """The ``coord`` property of a non-negative static element offset into a pointer, which
    is what :func:`_coordinate_operands` makes of it, without parsing, formatting and
    addressing a pattern (the unrolled MMA bodies make about 1,700 such accesses of register
    fragments per GEMM compile); None for any other coordinate."""
    if type(coord) is not int or coord < 0 or type(source.type) is not PtrType:
        return None
    attr = _OFFSET_ATTRS.get(coord)
    if attr is None:
        attr = StringAttr(str(coord))
        if coord < 4096:
            _OFFSET_ATTRS[coord] = attr
    return attr


class LoadOp(_AccessOp):
    """``%x = tile.load %t[(%i, 2)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> f32``."""

    @classmethod
    def at_offset(cls, ptr: Value, offset: int, loc: Location | None = None) -> LoadOp:
        """``LoadOp(ptr, offset, loc=loc)``: the same op, built without the generic
        constructor's sorting of its arguments when ``offset`` is a static element offset into
        a pointer (the lowerings make about 1,500 such register-fragment accesses per GEMM
        compile, fragment-scalrep a few hundred more)."""
        attr = _pointer_offset(ptr, offset)
        if attr is None:
            return cls(ptr, offset, loc=loc)
        op = object.__new__(cls)
        op._init_fields([ptr], [ptr.type.element], {"coord": attr}, {}, [], (), loc)
        return op

    name = "tile.load"
    traits = (MemoryEffects(reads=("source",)),)
    source = operand(_Source)
    coords = var_operand(_Index)
    result = result()

    def __init__(self, source: Value, coord: Any, loc: Location | None = None):
        attr = _pointer_offset(source, coord)
        if attr is not None:
            super().__init__(
                operands=[source],
                result_types=[source.type.element],
                properties={"coord": attr},
                loc=loc,
            )
            return
        attr, dynamic, value = _coordinate_operands(self.name, source, coord, loc)
        rt = element_result_type(source.type, value)
        super().__init__(
            operands=[source, dynamic], result_types=[rt], properties={"coord": attr}, loc=loc
        )

    def verify_(self) -> None:
        value = self._verify_address()
        expected = element_result_type(self.source.type, value)
        if self.result.type is not expected and not _less_static(self.result.type, expected):
            what = (
                "the coordinate there: the source's origin plus its layout's value"
                if isinstance(self.source.type, TensorType) and self.source.type.space == COORD
                else "the element type of the source"
            )
            raise VerifyError(
                f"result type '{self.result.type.text}' should be '{expected.text}' ({what})"
            )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.source)
        C.print_coordinate(p, self.pattern, self.coords)
        p.print_attr_dict(self, elided=("coord",))
        p.write(f" : {self.source.type.text} -> {self.result.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LoadOp:
        src = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        st = p.parse_colon_type()
        p.expect("->")
        rt = p.parse_type()
        values = p.resolve_operands([src, *coords], [st] + [index] * len(coords))
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, [rt], properties=props, attributes=attrs, loc=p.loc)


class StoreOp(_AccessOp):
    """``tile.store %x, %t[(%i, 2)] : !tile.tensor<f32, smem, "(4,8):(1,4)", 16>``."""

    name = "tile.store"
    traits = (MemoryEffects(writes=("dest",)),)
    value = operand()
    dest = operand(_Source)
    coords = var_operand(_Index)

    @property
    def source(self) -> Value:
        return self.dest

    @classmethod
    def at_offset(
        cls, value: Value, ptr: Value, offset: int, loc: Location | None = None
    ) -> StoreOp:
        """``StoreOp(value, ptr, offset, loc=loc)``, built directly for a static element offset
        into a pointer (as :meth:`LoadOp.at_offset`)."""
        attr = _pointer_offset(ptr, offset)
        if attr is None:
            return cls(value, ptr, offset, loc=loc)
        op = object.__new__(cls)
        op._init_fields([value, ptr], (), {"coord": attr}, {}, [], (), loc)
        return op

    def __init__(self, value: Value, dest: Value, coord: Any, loc: Location | None = None):
        attr = _pointer_offset(dest, coord)
        if attr is not None:
            super().__init__(operands=[value, dest], properties={"coord": attr}, loc=loc)
            return
        attr, dynamic, _addr = _coordinate_operands(self.name, dest, coord, loc)
        super().__init__(operands=[value, dest, dynamic], properties={"coord": attr}, loc=loc)

    def verify_(self) -> None:
        dt = self.dest.type
        if isinstance(dt, TensorType) and dt.space == COORD:
            raise VerifyError("cannot store into a coordinate tensor (it has no memory)")
        self._verify_address()
        if self.value.type is not dt.element:
            raise VerifyError(
                f"stored value has type '{self.value.type.text}', but the destination holds "
                f"'{dt.element.text}'"
            )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.dest)
        C.print_coordinate(p, self.pattern, self.coords)
        p.print_attr_dict(self, elided=("coord",))
        p.write(f" : {self.dest.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> StoreOp:
        val = p.parse_operand()
        p.expect(",")
        dst = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        dt = p.parse_colon_type()
        if not isinstance(dt, (TensorType, PtrType)) or dt.element is None:
            raise p.error(
                f"'tile.store' needs a !tile.tensor or !tile.ptr with elements, got '{dt.text}'", at
            )
        values = p.resolve_operands([val, dst, *coords], [dt.element, dt] + [index] * len(coords))
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, properties=props, attributes=attrs, loc=p.loc)


_IntLike = Constraint(
    lambda t: isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.is_signless),
    "index or signless integer",
)


class AssumeOp(Operation):
    """``%n4 = tile.assume %n {divisible_by = 4, lower = 1} : index``: the same value, with
    facts the compiler may rely on (the front end's compile spec states them; passes prove
    vectorization and alignment from them). A false assumption is undefined behaviour."""

    name = "tile.assume"
    assembly_format = "$input attr-dict `:` type($input)"
    traits = (Pure,)
    input = operand(_IntLike)
    result = result(_IntLike)
    divisible_by = opt_prop(IntegerAttr)
    lower = opt_prop(IntegerAttr)
    upper = opt_prop(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Type], props: Any) -> list[Type]:
        """The assumption keeps the value's type."""
        return [operand_types[0]]

    def __init__(
        self,
        value: Value,
        divisible_by: int | None = None,
        lower: int | None = None,
        upper: int | None = None,
        loc: Location | None = None,
    ):
        props: dict[str, Attribute] = {}
        for name, v in (("divisible_by", divisible_by), ("lower", lower), ("upper", upper)):
            if v is not None:
                props[name] = IntegerAttr(v, i64)
        super().__init__(operands=[value], result_types=[value.type], properties=props, loc=loc)

    def facts(self) -> tuple[int | None, int | None, int | None]:
        def get(a: Attribute | None) -> int | None:
            return a.value if isinstance(a, IntegerAttr) else None

        return get(self.divisible_by), get(self.lower), get(self.upper)

    def verify_(self) -> None:
        if self.result.type is not self.input.type:
            raise VerifyError("result type must be the operand's type")
        div, lower, upper = self.facts()
        if div is not None and div <= 0:
            raise VerifyError(f"'divisible_by' must be positive, got {div}")
        if lower is not None and upper is not None and lower > upper:
            raise VerifyError(f"'lower' ({lower}) is larger than 'upper' ({upper})")
        fact = index_fact(self.input)
        if fact is not None and fact[0] == "const":
            c = fact[1]
            if div is not None and c % div:
                raise VerifyError(f"the constant {c} is not divisible by {div}")
            if lower is not None and c < lower:
                raise VerifyError(f"the constant {c} is less than 'lower' ({lower})")
            if upper is not None and c > upper:
                raise VerifyError(f"the constant {c} is larger than 'upper' ({upper})")

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        if isinstance(operands[0], IntegerAttr):
            return [operands[0]]
        return None


ELEMENT_OPS: tuple[type[Operation], ...] = (LoadOp, StoreOp, AssumeOp)
