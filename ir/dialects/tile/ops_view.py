"""Tensor views: slice, composition, the four divides, local_tile, local_partition,
partition_tv, group_modes, flatten, coalesce.

A view is the same memory seen through another layout, starting ``offset`` elements further
(CuTe: ``make_tensor(t.data() + offset, layout)``); a view of a coordinate tensor moves its
origin by the offset (a coordinate) in the same way. Every view op computes its result type with
the algebra on the operand types (:mod:`.inference`): the layout text (dynamic coordinates give
dynamic offsets, never dynamic layouts when the source layout is static) and the alignment the
offset preserves. Views are Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...algebra import (
    Layout,
    coalesce,
    composition,
    dice,
    flat_divide,
    flatten,
    group,
    logical_divide,
    product_each,
    rank,
    slice_and_offset,
    tiled_divide,
    zipped_divide,
)
from ...algebra.errors import LayoutError
from ...algebra.inttuple import _, crd2crd, dice_tuple, idx2crd, repeat
from ...algebra.inttuple import append as tuple_append
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, DenseArrayAttr, IntegerAttr, StringAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import IndexType, Type, i1, i64, index
from ...core.values import Value
from ..layout.attributes import IntTupleAttr, LayoutAttr, LayoutTextAttr, TileAttr
from ..layout.text import is_instance
from ..layout.types import IntTupleType, LayoutType, TileType
from . import coords as C
from .base import build_error, parse_signature, print_signature
from .inference import (
    alignment_after_offset,
    cached,
    diagnostic_message,
    index_fact,
    operand_arg,
    operand_origin,
    symbol_notes,
)
from .layouts import text_of_layout, text_of_origin
from .origins import advance
from .types import TensorType

__all__ = [
    "CoalesceOp",
    "CompositionOp",
    "FlatDivideOp",
    "FlattenOp",
    "GroupModesOp",
    "LocalPartitionOp",
    "LocalTileOp",
    "LogicalDivideOp",
    "PartitionTVOp",
    "SliceOp",
    "TiledDivideOp",
    "ViewOp",
    "ZippedDivideOp",
]

_Index = Constraint(lambda t: isinstance(t, IndexType), "index", exact=IndexType())
_Tiler = Constraint(
    lambda t: isinstance(t, (LayoutType, TileType, IntTupleType)),
    "!layout.layout, !layout.tile or !layout.int_tuple",
)
_Proj = Constraint(
    lambda a: isinstance(a, DenseArrayAttr) and a.element_type is i1,
    "array<i1: ...> (true keeps a mode)",
)


class ViewOp(Operation):
    """Base of the view ops: ``compute`` maps (properties, operand values) to (layout, offset)
    and this class turns it into type inference, builder, verifier and fold."""

    traits = (Pure,)
    source = operand(TensorType)
    result = result(TensorType)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        raise NotImplementedError

    @classmethod
    def check_props(cls, props: Mapping[str, Attribute], num_operands: int) -> None:
        """Property checks that need no algebra (raise LayoutError)."""

    # -- inference ------------------------------------------------------------------------------
    @classmethod
    def infer(
        cls,
        operand_types: Sequence[Type],
        props: Mapping[str, Attribute],
        facts: Sequence[Any],
    ) -> TensorType:
        """The result type (raises LayoutError when the view is inadmissible)."""
        src = operand_types[0]
        if not isinstance(src, TensorType):
            raise LayoutError(f"the source must be a !tile.tensor, got '{src.text}'")
        key = (cls, tuple(operand_types), tuple(sorted(props.items())), tuple(facts))

        def go() -> TensorType:
            cls.check_props(props, len(operand_types))
            args = [operand_arg(t, k, f) for k, (t, f) in enumerate(zip(operand_types, facts))]
            layout, offset = cls.compute(props, args)
            text, _dyn = text_of_layout(layout)
            if src.is_coord:
                # the view's origin moves as a pointer would (CuTe: iterator + offset)
                origin = advance(operand_origin(src, 0, args[0]), offset)
                return TensorType(None, src.space, text, origin=text_of_origin(origin))
            align = alignment_after_offset(src.alignment, src.element_bits // 8, offset)
            return TensorType(src.element, src.space, text, align)

        return cached(key, go)

    @staticmethod
    def facts_of(operands: Sequence[Value]) -> list[Any]:
        return [index_fact(v) if isinstance(v.type, IndexType) else None for v in operands]

    def inferred_type(self) -> TensorType:
        return type(self).infer(self.operand_types, self.properties, self.facts_of(self.operands))

    # -- builder --------------------------------------------------------------------------------
    def _build(
        self, operands: Sequence[Value], props: dict[str, Attribute], loc: Location | None
    ) -> None:
        types = [v.type for v in operands]
        try:
            t = type(self).infer(types, props, self.facts_of(operands))
        except LayoutError as e:
            raise build_error(self.name, diagnostic_message(e), loc, types) from None
        Operation.__init__(
            self, operands=self._groups(operands), result_types=[t], properties=props, loc=loc
        )

    def _groups(self, operands: Sequence[Value]) -> list[Any]:
        return list(operands)

    # -- verifier -------------------------------------------------------------------------------
    def verify_(self) -> None:
        """The declared type must be the one inferred from what is known about the operands, or
        say less: an origin entry may stay ``?`` where it is static, the alignment may be weaker,
        and an operand that a fold made constant may be treated as unknown (the type was built
        before; the swizzled slice it describes may since have become decayable)."""
        types = self.operand_types
        facts = self.facts_of(self.operands)
        try:
            expected = type(self).infer(types, self.properties, facts)
        except LayoutError as e:
            message = diagnostic_message(e)
            raise VerifyError(
                message, notes=[(n, None) for n in symbol_notes(message, types)]
            ) from None
        declared = self.result.type
        matched = expected if _describes(declared, expected) else None
        if matched is None and any(f is not None and f[0] == "const" for f in facts):
            try:
                loose = type(self).infer(types, self.properties, _forget_constants(facts))
            except LayoutError:
                loose = None
            if loose is not None and _describes(declared, loose):
                matched = loose
        if matched is None:
            raise VerifyError(
                f"result type '{declared.text}' should be '{expected.text}' (the algebra on the "
                "operand types)"
            )
        if matched.alignment % declared.alignment:
            raise VerifyError(
                f"result alignment {declared.alignment} is not proven: the view's offset keeps "
                f"{matched.alignment}-byte alignment"
            )


def _full_origin_text(t: TensorType) -> str | None:
    if not t.is_coord:
        return None
    return t.origin_text if t.origin_text is not None else text_of_origin(t.origin())


def _describes(declared: Type, inferred: TensorType) -> bool:
    """``declared`` is ``inferred`` up to alignment, with possibly fewer static origin entries."""
    if not isinstance(declared, TensorType):
        return False
    if (
        declared.element is not inferred.element
        or declared.space != inferred.space
        or declared.layout_text != inferred.layout_text
    ):
        return False
    if not inferred.is_coord:
        return True
    return is_instance(_full_origin_text(inferred), _full_origin_text(declared))


_ZERO_DIVISOR = 1 << 30  # 0 is a multiple of every alignment


def _forget_constants(facts: Sequence[Any]) -> list[Any]:
    """The facts with each constant reduced to its power-of-two divisibility: what a view built
    before a fold made that operand constant may have known about it (alignment included)."""
    out: list[Any] = []
    for f in facts:
        if f is not None and f[0] == "const":
            c = abs(f[1])
            out.append(("assume", (c & -c) if c else _ZERO_DIVISOR, None, None))
        else:
            out.append(f)
    return out


def _pattern_prop(props: Mapping[str, Attribute], name: str = "coord") -> Any:
    attr = props.get(name)
    if not isinstance(attr, StringAttr):
        raise LayoutError(f"'{name}' must be a coordinate pattern string")
    return C.parse_pattern(attr.value)


def _check_pattern(props: Mapping[str, Attribute], num_dynamic: int, name: str = "coord") -> Any:
    pattern = _pattern_prop(props, name)
    n = C.count_dynamic(pattern)
    if n != num_dynamic:
        raise LayoutError(
            f"the coordinate pattern \"{C.format_pattern(pattern)}\" has {n} '?' entries but the "
            f"op has {num_dynamic} index operands"
        )
    return pattern


def _coordinate_props(coord: Any) -> tuple[dict[str, Attribute], list[Value]]:
    """Pattern property and operands of a Python coordinate (ints, ``_``, Values)."""
    pattern, dynamic = C.pattern_of_value(coord)
    for v in dynamic:
        if not isinstance(v, Value) or not isinstance(v.type, IndexType):
            raise LayoutError(f"coordinate entries must be ints, _ or index values, got {v!r}")
    return {"coord": StringAttr(C.format_pattern(pattern))}, list(dynamic)


def _print_coordinate_view(
    op: ViewOp, p: OpAsmPrinter, pattern: Any, elided: tuple[str, ...]
) -> None:
    p.write(" ")
    p.print_operand(op.source)
    C.print_coordinate(p, pattern, op.operands[1:])
    p.print_attr_dict(op, elided)
    print_signature(p, [op.source.type], op.result_types)


def _parse_coordinate_view(
    cls: type[ViewOp], p: OpAsmParser, allow_wildcard: bool = True
) -> tuple[Any, list[Any], dict[str, Attribute], Type, list[Type], Any]:
    src = p.parse_operand()
    pattern, coords = C.parse_coordinate(p, allow_wildcard)
    attrs = p.parse_optional_attr_dict()
    types, results = parse_signature(p, 1, True)
    values = p.resolve_operands([src, *coords], [types[0]] + [index] * len(coords))
    return pattern, values, attrs, types[0], results, coords


# ---------------------------------------------------------------------------------------------
# tile.slice
# ---------------------------------------------------------------------------------------------


class SliceOp(ViewOp):
    """``%v = tile.slice %t[(_, %i)] : T -> R``: the sub-tensor of the ``_`` modes (CuTe's
    ``t(_, i)``); the coordinate's other entries move the start."""

    name = "tile.slice"
    coords = var_operand(_Index)
    coord = prop(StringAttr)

    def __init__(self, source: Value, coord: Any, loc: Location | None = None):
        try:
            props, dynamic = _coordinate_props(coord)
        except LayoutError as e:
            raise build_error(self.name, diagnostic_message(e), loc) from None
        self._build([source, *dynamic], props, loc)

    @property
    def pattern(self) -> Any:
        return C.parse_pattern(self.coord.value)

    @classmethod
    def check_props(cls, props: Mapping[str, Attribute], num_operands: int) -> None:
        pattern = _check_pattern(props, num_operands - 1)
        if not C.has_wildcard(pattern):
            raise LayoutError(
                f"the coordinate \"{C.format_pattern(pattern)}\" has no '_': it names one "
                "element (use tile.load to read it)"
            )

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        coord = C.substitute(_pattern_prop(props), args[1:])
        return slice_and_offset(coord, args[0])

    def print_custom(self, p: OpAsmPrinter) -> None:
        _print_coordinate_view(self, p, self.pattern, ("coord",))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> SliceOp:
        pattern, values, attrs, _src, results, _ = _parse_coordinate_view(cls, p)
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, results, properties=props, attributes=attrs, loc=p.loc)


# ---------------------------------------------------------------------------------------------
# composition and divides: tensor + tiler operand
# ---------------------------------------------------------------------------------------------


class _TilerViewOp(ViewOp):
    """``%v = tile.<op> %t, %tiler : (T, L) -> R``."""

    assembly_format = (
        "$source `,` $tiler attr-dict `:` `(` type($source) `,` type($tiler) `)` `->` type($result)"
    )

    tiler = operand(_Tiler)
    algebra: ClassVar[Any] = None

    def __init__(self, source: Value, tiler: Value, loc: Location | None = None):
        self._build([source, tiler], {}, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        return cls.algebra(args[0], args[1]), 0


class CompositionOp(_TilerViewOp):
    """``tile.composition %t, %l``: the tensor seen through ``layout(t) o l`` (CuTe)."""

    name = "tile.composition"
    algebra = staticmethod(composition)


class LogicalDivideOp(_TilerViewOp):
    """``tile.logical_divide %t, %tiler``: ((TileM,RestM), (TileN,RestN), ...)."""

    name = "tile.logical_divide"
    algebra = staticmethod(logical_divide)


class ZippedDivideOp(_TilerViewOp):
    """``tile.zipped_divide %t, %tiler``: ((TileM,TileN,...), (RestM,RestN,...))."""

    name = "tile.zipped_divide"
    algebra = staticmethod(zipped_divide)


class TiledDivideOp(_TilerViewOp):
    """``tile.tiled_divide %t, %tiler``: ((TileM,TileN,...), RestM, RestN, ...)."""

    name = "tile.tiled_divide"
    algebra = staticmethod(tiled_divide)


class FlatDivideOp(_TilerViewOp):
    """``tile.flat_divide %t, %tiler``: (TileM, TileN, ..., RestM, RestN, ...)."""

    name = "tile.flat_divide"
    algebra = staticmethod(flat_divide)


# ---------------------------------------------------------------------------------------------
# partitions
# ---------------------------------------------------------------------------------------------


def _proj_tuple(props: Mapping[str, Attribute]) -> Any:
    """CuTe's projection ``Step<_1, X, _1>`` from ``proj = array<i1: true, false, true>``."""
    attr = props.get("proj")
    if attr is None:
        return None
    if not _Proj(attr):
        raise LayoutError("'proj' must be array<i1: ...> (true keeps a mode)")
    return tuple(1 if keep else _ for keep in attr.values)


def _apply_proj(proj: Any, x: Any, what: str) -> Any:
    if proj is None:
        return x
    if isinstance(x, Layout):
        if rank(x) != len(proj):
            raise LayoutError(
                f"'proj' has {len(proj)} entries but the {what} {x} has rank {rank(x)}"
            )
        return dice(proj, x)
    if not isinstance(x, tuple) or len(x) != len(proj):
        raise LayoutError(
            f"'proj' has {len(proj)} entries but the {what} has "
            f"{len(x) if isinstance(x, tuple) else 1}"
        )
    kept = dice_tuple(proj, x)
    return kept[0] if len(kept) == 1 else kept


def _tiler_value(props: Mapping[str, Attribute], name: str) -> Any:
    attr = props.get(name)
    if not isinstance(attr, LayoutTextAttr):
        raise LayoutError(f"'{name}' must be a #layout.tile, #layout.layout or #layout.int_tuple")
    return attr.value


def inner_partition(layout: Any, tiler: Any, coord: Any) -> tuple[Any, Any]:
    """CuTe's inner_partition (``local_tile``): keep the tile, index the rest mode."""
    tiled = zipped_divide(layout, tiler)
    keep = repeat(rank(tiled, 0), _)
    if isinstance(coord, tuple):
        coord = tuple_append(coord, _, rank(tiled, 1))
    return slice_and_offset((keep, coord), tiled)


def outer_partition(layout: Any, tiler: Any, coord: Any) -> tuple[Any, Any]:
    """CuTe's outer_partition: index the tile mode, keep the rest."""
    tiled = zipped_divide(layout, tiler)
    keep = repeat(rank(tiled, 1), _)
    if isinstance(coord, tuple):
        coord = tuple_append(coord, _, rank(tiled, 0))
    return slice_and_offset((coord, keep), tiled)


class LocalTileOp(ViewOp):
    """``%v = tile.local_tile %t[(%bx, %by)] {tiler = #layout.int_tuple<"(128,64)">} : T -> R``:
    this block's tile (CuTe's ``local_tile``/inner partition); ``proj = array<i1: ...>`` drops
    the tiler's and coordinate's modes marked false (CuTe's ``Step<_1,X,_1>``)."""

    name = "tile.local_tile"
    coords = var_operand(_Index)
    tiler = prop(LayoutTextAttr)
    coord = prop(StringAttr)
    proj = opt_prop(_Proj)

    def __init__(
        self,
        source: Value,
        tiler: Any,
        coord: Any,
        proj: Sequence[bool] | None = None,
        loc: Location | None = None,
    ):
        try:
            props, dynamic = _coordinate_props(coord)
            props["tiler"] = _tiler_attr(tiler)
            if proj is not None:
                props["proj"] = DenseArrayAttr(i1, [1 if k else 0 for k in proj])
        except (LayoutError, ValueError) as e:
            raise build_error(self.name, diagnostic_message(e), loc) from None
        self._build([source, *dynamic], props, loc)

    @classmethod
    def check_props(cls, props: Mapping[str, Attribute], num_operands: int) -> None:
        _check_pattern(props, num_operands - 1)
        _tiler_value(props, "tiler")

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        proj = _proj_tuple(props)
        tiler = _apply_proj(proj, _tiler_value(props, "tiler"), "tiler")
        coord = _apply_proj(proj, C.substitute(_pattern_prop(props), args[1:]), "coordinate")
        return inner_partition(args[0], tiler, coord)

    def print_custom(self, p: OpAsmPrinter) -> None:
        _print_coordinate_view(self, p, C.parse_pattern(self.coord.value), ("coord",))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LocalTileOp:
        pattern, values, attrs, _src, results, _ = _parse_coordinate_view(cls, p)
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        return cls.create(values, results, properties=props, attributes=attrs, loc=p.loc)


def _tiler_attr(tiler: Any) -> LayoutTextAttr:
    if isinstance(tiler, LayoutTextAttr):
        return tiler
    if isinstance(tiler, str):
        text = tiler.strip()
        if text.startswith("<"):
            return TileAttr(text)
        if ":" in text:
            return LayoutAttr(text)
        return IntTupleAttr(text)
    if isinstance(tiler, Layout) or hasattr(tiler, "inner"):
        return LayoutAttr(tiler)
    if isinstance(tiler, tuple) and any(isinstance(e, Layout) or e is _ for e in tiler):
        return TileAttr(tiler)
    return IntTupleAttr(tiler)


def _layout_attr(layout: Any) -> LayoutAttr:
    if isinstance(layout, LayoutAttr):
        return layout
    return LayoutAttr(layout)


class _IndexedViewOp(ViewOp):
    """A view indexed by one thread index: ``%v = tile.<op> %t[%tid] {...} : T -> R``."""

    assembly_format = "$source `[` $idx `]` attr-dict `:` type($source) `->` type($result)"

    idx = operand(_Index)


class LocalPartitionOp(_IndexedViewOp):
    """``%v = tile.local_partition %t[%tid] {thr_layout = #layout.layout<"(32,8):(8,1)">}``:
    this thread's elements when the threads of ``thr_layout`` tile the tensor (CuTe's
    ``local_partition``/outer partition); ``proj`` as for ``tile.local_tile``."""

    name = "tile.local_partition"
    thr_layout = prop(LayoutAttr)
    proj = opt_prop(_Proj)

    def __init__(
        self,
        source: Value,
        thr_layout: Any,
        idx: Value,
        proj: Sequence[bool] | None = None,
        loc: Location | None = None,
    ):
        try:
            props: dict[str, Attribute] = {"thr_layout": _layout_attr(thr_layout)}
            if proj is not None:
                props["proj"] = DenseArrayAttr(i1, [1 if k else 0 for k in proj])
        except (LayoutError, ValueError) as e:
            raise build_error(self.name, diagnostic_message(e), loc) from None
        self._build([source, idx], props, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        thr = props["thr_layout"].value  # type: ignore[attr-defined]
        if not isinstance(thr, Layout):
            raise LayoutError(f"'thr_layout' must be a plain layout, got {thr}")
        thr = _apply_proj(_proj_tuple(props), thr, "thread layout")
        idx = args[1]
        hier = idx2crd(idx, thr.shape, thr.stride)
        coord = crd2crd(hier, thr.shape, repeat(rank(thr), 1))
        return outer_partition(args[0], product_each(thr.shape), coord)


class PartitionTVOp(_IndexedViewOp):
    """``%v = tile.partition_tv %t[%tid] {tv_layout = #layout.layout<"(256,(4,4)):(4,(1,1024))">}``:
    thread ``%tid``'s values under a (thread, value) -> element layout, i.e.
    ``composition(t, tv_layout)(tid, _)``."""

    name = "tile.partition_tv"
    tv_layout = prop(LayoutAttr)

    def __init__(self, source: Value, tv_layout: Any, idx: Value, loc: Location | None = None):
        try:
            props: dict[str, Attribute] = {"tv_layout": _layout_attr(tv_layout)}
        except (LayoutError, ValueError) as e:
            raise build_error(self.name, diagnostic_message(e), loc) from None
        self._build([source, idx], props, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        tv = props["tv_layout"].value  # type: ignore[attr-defined]
        if rank(tv) != 2:
            raise LayoutError(f"the TV layout {tv} must have rank 2: (thread, value)")
        composed = composition(args[0], tv)
        return slice_and_offset((args[1], _), composed)


# ---------------------------------------------------------------------------------------------
# mode restructuring
# ---------------------------------------------------------------------------------------------


class _UnaryViewOp(ViewOp):
    """``%v = tile.<op> %t {props} : T -> R``."""

    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"


class GroupModesOp(_UnaryViewOp):
    """``tile.group_modes %t {begin = 1, end = 3}``: modes [begin, end) become one mode."""

    name = "tile.group_modes"
    begin = prop(IntegerAttr)
    end = prop(IntegerAttr)

    def __init__(self, source: Value, begin: int, end: int, loc: Location | None = None):
        props = {"begin": IntegerAttr(begin, i64), "end": IntegerAttr(end, i64)}
        self._build([source], props, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        b = props["begin"].value  # type: ignore[attr-defined]
        e = props["end"].value  # type: ignore[attr-defined]
        r = rank(args[0])
        if not 0 <= b <= e <= r:
            raise LayoutError(
                f"group_modes: [{b}, {e}) is not a range of modes of a rank-{r} tensor"
            )
        return group(args[0], b, e), 0


class FlattenOp(_UnaryViewOp):
    """``tile.flatten %t``: the tensor with a flat (depth-1) layout."""

    name = "tile.flatten"

    def __init__(self, source: Value, loc: Location | None = None):
        self._build([source], {}, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        return flatten(args[0]), 0


class CoalesceOp(_UnaryViewOp):
    """``tile.coalesce %t {profile = #layout.int_tuple<"(1,1)">}``: the same function with
    the fewest modes (per mode of ``profile`` when given)."""

    name = "tile.coalesce"
    profile = opt_prop(IntTupleAttr)

    def __init__(self, source: Value, profile: Any = None, loc: Location | None = None):
        props: dict[str, Attribute] = {}
        if profile is not None:
            try:
                props["profile"] = (
                    profile if isinstance(profile, IntTupleAttr) else IntTupleAttr(profile)
                )
            except (LayoutError, ValueError) as e:
                raise build_error(self.name, diagnostic_message(e), loc) from None
        self._build([source], props, loc)

    @classmethod
    def compute(cls, props: Mapping[str, Attribute], args: Sequence[Any]) -> tuple[Any, Any]:
        profile = props.get("profile")
        return coalesce(args[0], profile.value if profile is not None else None), 0  # type: ignore[attr-defined]


VIEW_OPS: tuple[type[Operation], ...] = (
    SliceOp,
    CompositionOp,
    LogicalDivideOp,
    ZippedDivideOp,
    TiledDivideOp,
    FlatDivideOp,
    LocalTileOp,
    LocalPartitionOp,
    PartitionTVOp,
    GroupModesOp,
    FlattenOp,
    CoalesceOp,
)

__all__ += ["VIEW_OPS", "inner_partition", "outer_partition"]
