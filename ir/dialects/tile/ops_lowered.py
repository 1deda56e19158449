"""Lowered forms that lower-algorithms produces and convert-to-llvm consumes: vector loads and
stores, one MMA instruction, one ldmatrix, one cp.async.

Each addresses memory like ``tile.load``: a tensor and a coordinate (the access starts at that
element's address), or a pointer and an element offset. The instruction's definition (PTX
text, register fragments, thread-value layouts) is the atom's, in :mod:`.atoms`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...algebra import size
from ...algebra.errors import LayoutError
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr, StringAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_operand, opt_prop, prop, result, var_operand, var_result
from ...core.operation import Operation
from ...core.traits import NoMemoryEffect
from ...core.types import IndexType, Type, VectorType, i1, i64, index
from ...core.values import Value
from . import coords as C
from .attributes import CopyAtomAttr, MMAAtomAttr
from .base import build_error
from .effects import MemoryEffects
from .inference import diagnostic_message, index_fact, symbol_notes
from .ops_element import element_address
from .spaces import COORD, GMEM, SMEM
from .types import PtrType, TensorType, check_alignment, element_name

__all__ = ["CpAsyncOp", "LdmatrixOp", "LoadVectorOp", "MmaOp", "StoreVectorOp"]

_Index = Constraint(lambda t: isinstance(t, IndexType), "index")
_I1 = Constraint(lambda t: t is i1, "i1")
_Memory = Constraint(
    lambda t: (isinstance(t, TensorType) and t.space != COORD) or isinstance(t, PtrType),
    "a !tile.tensor in memory or a !tile.ptr",
)


def _space(t: Any) -> str:
    return t.space


def _elem_bits(t: Any) -> int:
    return t.element_bits


def _check_address(
    source: Value, coords: Sequence[Value], coord_attr: StringAttr, other_types: Sequence[Type] = ()
) -> None:
    """The coordinate must address one element of ``source`` (raise VerifyError)."""
    try:
        pattern = C.parse_pattern(coord_attr.value)
        n = C.count_dynamic(pattern)
        if n != len(coords):
            raise LayoutError(
                f"the coordinate pattern \"{coord_attr.value}\" has {n} '?' entries but the op "
                f"has {len(coords)} index operands"
            )
        element_address(
            source.type,
            pattern,
            [v.type for v in coords],
            [index_fact(v) for v in coords],
            coord_attr.value,
        )
    except LayoutError as e:
        message = diagnostic_message(e)
        types = [source.type, *(v.type for v in coords)]
        raise VerifyError(
            message, notes=[(n, None) for n in symbol_notes(message, types)]
        ) from None


def _check_alignment_prop(op: Operation) -> int:
    attr = op.properties.get("alignment")
    if attr is None:
        return 1
    try:
        return check_alignment(attr.value)  # type: ignore[attr-defined]
    except ValueError as e:
        raise VerifyError(str(e)) from None


# the coord property of static coordinates (the unrolled vector accesses, ldmatrix and cp.async
# of a GEMM build about 400 per compile, of a few dozen coordinates)
_STATIC_COORDS: dict[Any, StringAttr] = {}


def _coord_builder(
    op_name: str, coord: Any, loc: Location | None
) -> tuple[StringAttr, list[Value]]:
    if C.is_static(coord):
        attr = _STATIC_COORDS.get(coord)
        if attr is None:
            attr = StringAttr(C.format_pattern(coord))
            if len(_STATIC_COORDS) < 4096:
                _STATIC_COORDS[coord] = attr
        return attr, []
    try:
        pattern, dynamic = C.pattern_of_value(coord)
    except LayoutError as e:
        raise build_error(op_name, diagnostic_message(e), loc) from None
    if C.has_wildcard(pattern):
        raise build_error(op_name, "the coordinate must name one element (no '_')", loc)
    return StringAttr(C.format_pattern(pattern)), list(dynamic)


class LoadVectorOp(Operation):
    """``%v = tile.load_vector %t[(%i, 0)] {alignment = 16} : !tile.tensor<...> ->
    vector<4xf32>``: ``width`` consecutive elements in memory from the element's address,
    in one access of ``width * element bits`` (``alignment`` in bytes, as proven)."""

    name = "tile.load_vector"
    traits = (MemoryEffects(reads=("source",)),)
    source = operand(_Memory)
    coords = var_operand(_Index)
    coord = prop(StringAttr)
    width = prop(IntegerAttr)
    alignment = opt_prop(IntegerAttr)
    result = result(VectorType)

    def __init__(
        self,
        source: Value,
        coord: Any,
        width: int,
        alignment: int | None = None,
        loc: Location | None = None,
    ):
        attr, dynamic = _coord_builder(self.name, coord, loc)
        st = source.type
        props: dict[str, Attribute] = {"coord": attr, "width": IntegerAttr(width, i64)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        rt = VectorType([width], st.element)
        super().__init__(operands=[source, dynamic], result_types=[rt], properties=props, loc=loc)

    def verify_(self) -> None:
        _verify_vector_access(self, self.source, self.result.type)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.source)
        C.print_coordinate(p, C.parse_pattern(self.coord.value), self.coords)
        p.print_attr_dict(self, elided=("coord", "width"))
        p.write(f" : {self.source.type.text} -> {self.result.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LoadVectorOp:
        src = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        st = p.parse_colon_type()
        p.expect("->")
        at = p.pos
        rt = p.parse_type()
        if not isinstance(rt, VectorType) or len(rt.shape) != 1:
            raise p.error(f"'tile.load_vector' produces a 1-D vector, got '{rt.text}'", at)
        values = p.resolve_operands([src, *coords], [st] + [index] * len(coords))
        props = {
            "coord": StringAttr(C.format_pattern(pattern)),
            "width": IntegerAttr(rt.shape[0], i64),
        }
        return cls.create(values, [rt], properties=props, attributes=attrs, loc=p.loc)


def _verify_vector_access(op: Operation, source: Value, vt: Any) -> None:
    st = source.type
    coords = op.coords  # type: ignore[attr-defined]
    _check_address(source, coords, op.coord)  # type: ignore[attr-defined]
    width = op.width.value  # type: ignore[attr-defined]
    if not isinstance(vt, VectorType) or vt.shape != (width,) or vt.element_type is not st.element:
        raise VerifyError(
            f"the vector type must be vector<{width}x{st.element.text}> (width {width} of the "
            f"source's elements), got '{vt.text}'"
        )
    if element_name(st.element) == "i1":
        raise VerifyError("i1 elements have no vector access")
    bits = width * _elem_bits(st)
    if width < 2 or bits > 128 or bits & (bits - 1):
        raise VerifyError(
            f"a vector access moves 16, 32, 64 or 128 bits in 2 or more elements, got {width} x "
            f"{_elem_bits(st)} bits"
        )
    _check_alignment_prop(op)


class StoreVectorOp(Operation):
    """``tile.store_vector %v, %t[(%i, 0)] {alignment = 16} : vector<4xf32>, !tile.tensor<...>``."""

    name = "tile.store_vector"
    traits = (MemoryEffects(writes=("dest",)),)
    value = operand(VectorType)
    dest = operand(_Memory)
    coords = var_operand(_Index)
    coord = prop(StringAttr)
    width = prop(IntegerAttr)
    alignment = opt_prop(IntegerAttr)

    def __init__(
        self,
        value: Value,
        dest: Value,
        coord: Any,
        alignment: int | None = None,
        loc: Location | None = None,
    ):
        attr, dynamic = _coord_builder(self.name, coord, loc)
        vt = value.type
        width = vt.shape[0] if isinstance(vt, VectorType) and vt.shape else 0
        props: dict[str, Attribute] = {"coord": attr, "width": IntegerAttr(width, i64)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        super().__init__(operands=[value, dest, dynamic], properties=props, loc=loc)

    def verify_(self) -> None:
        _verify_vector_access(self, self.dest, self.value.type)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.value)
        p.write(", ")
        p.print_operand(self.dest)
        C.print_coordinate(p, C.parse_pattern(self.coord.value), self.coords)
        p.print_attr_dict(self, elided=("coord", "width"))
        p.write(f" : {self.value.type.text}, {self.dest.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> StoreVectorOp:
        val = p.parse_operand()
        p.expect(",")
        dst = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        vt = p.parse_colon_type()
        if not isinstance(vt, VectorType) or len(vt.shape) != 1:
            raise p.error(f"'tile.store_vector' stores a 1-D vector, got '{vt.text}'", at)
        p.expect(",")
        dt = p.parse_type()
        values = p.resolve_operands([val, dst, *coords], [vt, dt] + [index] * len(coords))
        props = {
            "coord": StringAttr(C.format_pattern(pattern)),
            "width": IntegerAttr(vt.shape[0], i64),
        }
        return cls.create(values, properties=props, attributes=attrs, loc=p.loc)


class MmaOp(Operation):
    """``%d:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%a0, %a1, %a2, %a3),
    (%b0, %b1), (%c0, %c1, %c2, %c3) : f32, f32, f32 -> f32``: one MMA instruction; each
    thread passes its values of A, B and C in the atom's value order and gets D (= A*B + C).

    Warp-collective: no memory effects, but it may not be moved into control flow that not
    every thread of the warp takes (not speculatable).
    """

    name = "tile.mma"
    traits = (NoMemoryEffect,)
    a = var_operand()
    b = var_operand()
    c = var_operand()
    atom = prop(MMAAtomAttr)
    d = var_result()

    def __init__(
        self,
        atom: MMAAtomAttr,
        a: Sequence[Value],
        b: Sequence[Value],
        c: Sequence[Value],
        loc: Location | None = None,
    ):
        if not c:
            raise build_error(self.name, "needs the C values", loc)
        super().__init__(
            operands=[list(a), list(b), list(c)],
            result_types=[[v.type for v in c]],
            properties={"atom": atom},
            loc=loc,
        )

    def verify_(self) -> None:
        op = self.atom.op
        groups = (
            ("A", self.a, op.layout_a),
            ("B", self.b, op.layout_b),
            ("C", self.c, op.layout_c),
        )
        for what, values, layout in groups:
            want = size(layout, 1)
            if len(values) != want:
                raise VerifyError(
                    f"atom '{op.name}' takes {want} {what} values per thread, got {len(values)}"
                )
        if len(self.d) != len(self.c):
            raise VerifyError(
                f"expected {len(self.c)} D results (one per C value), got {len(self.d)}"
            )
        names = []
        for what, values, _ in groups:
            types = {v.type for v in values}
            if len(types) != 1:
                raise VerifyError(f"all {what} values must have one type")
            t = next(iter(types))
            n = element_name(t)
            if n is None:
                raise VerifyError(f"{what} values have type '{t.text}', not a tile element type")
            names.append(n)
        why = op.check_types(*names)
        if why is not None:
            raise VerifyError(why)
        ct = self.c[0].type
        for r in self.d:
            if r.type is not ct:
                raise VerifyError(f"D results must have C's type '{ct.text}', got '{r.type.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_attribute(self.atom)
        for i, group in enumerate((self.a, self.b, self.c)):
            p.write(", (" if i else " (")
            p.print_operands(group)
            p.write(")")
        p.print_attr_dict(self, elided=("atom", "operandSegmentSizes", "resultSegmentSizes"))
        p.write(
            f" : {self.a[0].type.text}, {self.b[0].type.text}, {self.c[0].type.text}"
            f" -> {self.c[0].type.text}"
        )

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> MmaOp:
        at = p.pos
        atom = p.parse_attribute()
        if not isinstance(atom, MMAAtomAttr):
            raise p.error("'tile.mma' expects a #tile.mma_atom first", at)
        groups = []
        for i in range(3):
            if i:
                p.expect(",")
            groups.append(p.parse_comma_separated("(", p.parse_operand, "in mma operand group"))
        attrs = p.parse_optional_attr_dict()
        p.expect(":")
        ta = p.parse_type()
        p.expect(",")
        tb = p.parse_type()
        p.expect(",")
        tc = p.parse_type()
        p.expect("->")
        td = p.parse_type()
        a = p.resolve_operands(groups[0], [ta] * len(groups[0]))
        b = p.resolve_operands(groups[1], [tb] * len(groups[1]))
        c = p.resolve_operands(groups[2], [tc] * len(groups[2]))
        op = cls.create(
            [*a, *b, *c],
            [td] * len(c),
            properties={
                "atom": atom,
                "operandSegmentSizes": _segments(len(a), len(b), len(c)),
            },
            attributes=attrs,
            loc=p.loc,
        )
        return op


def _segments(*sizes: int) -> Attribute:
    from ...core.attributes import DenseArrayAttr
    from ...core.types import i32

    return DenseArrayAttr(i32, list(sizes))


class LdmatrixOp(Operation):
    """``%v:8 = tile.ldmatrix %s[(%r, %c)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} :
    !tile.tensor<f16, smem, ...> -> f16``: one ldmatrix; this thread gives the address of one
    16-byte row (the element at the coordinate) and receives its values of the matrices, in
    the atom's destination order. Warp-collective."""

    name = "tile.ldmatrix"
    traits = (MemoryEffects(reads=("source",)),)
    source = operand(_Memory)
    coords = var_operand(_Index)
    coord = prop(StringAttr)
    atom = prop(CopyAtomAttr)
    values = var_result()

    def __init__(self, atom: CopyAtomAttr, source: Value, coord: Any, loc: Location | None = None):
        attr, dynamic = _coord_builder(self.name, coord, loc)
        st = source.type
        n = atom.bits // st.element_bits
        super().__init__(
            operands=[source, dynamic],
            result_types=[[st.element] * n],
            properties={"coord": attr, "atom": atom},
            loc=loc,
        )

    def verify_(self) -> None:
        st = self.source.type
        op = self.atom.op
        if not op.name.startswith("ldmatrix"):
            raise VerifyError(f"'tile.ldmatrix' needs an ldmatrix atom, got '{op.name}'")
        if _space(st) != SMEM:
            raise VerifyError(f"ldmatrix reads shared memory (smem), got '{st.text}'")
        why = op.check_element_bits(_elem_bits(st))
        if why is not None:
            raise VerifyError(why)
        _check_address(self.source, self.coords, self.coord)
        n = op.bits // _elem_bits(st)
        if len(self.values) != n:
            raise VerifyError(
                f"atom '{op.name}' gives each thread {n} {element_name(st.element)} values, got "
                f"{len(self.values)} results"
            )
        for r in self.values:
            if r.type is not st.element:
                raise VerifyError(f"results must have the element type '{st.element.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.source)
        C.print_coordinate(p, C.parse_pattern(self.coord.value), self.coords)
        p.print_attr_dict(self, elided=("coord",))
        p.write(f" : {self.source.type.text} -> {self.source.type.element.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> LdmatrixOp:
        src = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        st = p.parse_colon_type()
        p.expect("->")
        et = p.parse_type()
        atom = attrs.pop("atom", None)
        if not isinstance(atom, CopyAtomAttr):
            raise p.error(
                "'tile.ldmatrix' needs {atom = #tile.copy_atom<\"ldmatrix...\", bits>}", at
            )
        if not isinstance(st, (TensorType, PtrType)) or st.element is None:
            raise p.error(f"'tile.ldmatrix' reads a tensor with elements, got '{st.text}'", at)
        bits = st.element_bits
        values = p.resolve_operands([src, *coords], [st] + [index] * len(coords))
        props = {"coord": StringAttr(C.format_pattern(pattern)), "atom": atom}
        n = max(atom.bits // bits, 1)
        return cls.create(values, [et] * n, properties=props, attributes=attrs, loc=p.loc)


_CP_ASYNC_BYTES = (4, 8, 16)


class StmatrixOp(Operation):
    """``tile.stmatrix %s[(%r, %c)], (%v0, ..., %v7) {atom = #tile.copy_atom<"stmatrix.x4",
    128>} : f16, !tile.tensor<f16, smem, ...>``: one stmatrix; this thread gives the address of
    one 16-byte row (the element at the coordinate) and its values of the matrices, in the
    atom's source order. Warp-collective."""

    name = "tile.stmatrix"
    traits = (MemoryEffects(writes=("dest",)),)
    dest = operand(_Memory)
    coords = var_operand(_Index)
    values = var_operand()
    coord = prop(StringAttr)
    atom = prop(CopyAtomAttr)

    def __init__(
        self,
        atom: CopyAtomAttr,
        dest: Value,
        coord: Any,
        values: Sequence[Value],
        loc: Location | None = None,
    ):
        attr, dynamic = _coord_builder(self.name, coord, loc)
        super().__init__(
            operands=[dest, dynamic, list(values)],
            properties={"coord": attr, "atom": atom},
            loc=loc,
        )

    def verify_(self) -> None:
        st = self.dest.type
        op = self.atom.op
        if not op.name.startswith("stmatrix"):
            raise VerifyError(f"'tile.stmatrix' needs a stmatrix atom, got '{op.name}'")
        if _space(st) != SMEM:
            raise VerifyError(f"stmatrix writes shared memory (smem), got '{st.text}'")
        why = op.check_element_bits(_elem_bits(st))
        if why is not None:
            raise VerifyError(why)
        _check_address(self.dest, self.coords, self.coord)
        n = op.bits // _elem_bits(st)
        if len(self.values) != n:
            raise VerifyError(
                f"atom '{op.name}' takes {n} {element_name(st.element)} values from each "
                f"thread, got {len(self.values)}"
            )
        for v in self.values:
            if v.type is not st.element:
                raise VerifyError(f"values must have the element type '{st.element.text}'")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.dest)
        C.print_coordinate(p, C.parse_pattern(self.coord.value), self.coords)
        p.write(", (")
        p.print_operands(self.values)
        p.write(")")
        p.print_attr_dict(self, elided=("coord",))
        p.write(f" : {self.dest.type.element.text}, {self.dest.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> StmatrixOp:
        dst = p.parse_operand()
        pattern, coords = C.parse_coordinate(p, allow_wildcard=False)
        p.expect(",")
        vals = p.parse_operand_list("(")
        attrs = p.parse_optional_attr_dict()
        et = p.parse_colon_type()
        p.expect(",")
        dt = p.parse_type()
        props = {"coord": StringAttr(C.format_pattern(pattern))}
        if "atom" in attrs:
            props["atom"] = attrs.pop("atom")
        values = [p.resolve_operand(dst, dt)]
        values += p.resolve_operands(coords, [IndexType()] * len(coords))
        values += p.resolve_operands(vals, [et] * len(vals))
        props["operandSegmentSizes"] = _segments(1, len(coords), len(vals))
        return cls.create(values, properties=props, attributes=attrs, loc=p.loc)


class CpAsyncOp(Operation):
    """``tile.cp_async %g[(%i)], %s[(%j)] {bytes = 16} : !tile.tensor<..., gmem, ...>,
    !tile.tensor<..., smem, ...>``: one asynchronous copy of ``bytes`` from global to shared
    memory (``cache = "cg"`` bypasses L1; 16 bytes only). Completes at ``tile.cp_async_wait``.

    With ``if %p`` (an ``i1``, after the coordinates) the copy zero-fills: where ``%p`` is false
    nothing is read (the source address may lie outside the tensor) and the destination bytes
    become zeros (PTX's ``src-size`` of 0; CuTe's ``SM80_CP_ASYNC_CACHE*_ZFILL``)."""

    name = "tile.cp_async"
    traits = (MemoryEffects(reads=("src",), writes=("dst",)),)
    src = operand(_Memory)
    src_coords = var_operand(_Index)
    dst = operand(_Memory)
    dst_coords = var_operand(_Index)
    pred = opt_operand(_I1)
    src_coord = prop(StringAttr)
    dst_coord = prop(StringAttr)
    bytes = prop(IntegerAttr)
    cache = opt_prop(StringAttr)

    def __init__(
        self,
        src: Value,
        src_coord: Any,
        dst: Value,
        dst_coord: Any,
        bytes: int,
        cache: str | None = None,
        loc: Location | None = None,
        pred: Value | None = None,
    ):
        sa, sd = _coord_builder(self.name, src_coord, loc)
        da, dd = _coord_builder(self.name, dst_coord, loc)
        props: dict[str, Attribute] = {
            "src_coord": sa,
            "dst_coord": da,
            "bytes": IntegerAttr(bytes, i64),
        }
        if cache is not None:
            props["cache"] = StringAttr(cache)
        operands = [src, sd, dst, dd, [pred] if pred is not None else []]
        super().__init__(operands=operands, properties=props, loc=loc)

    def verify_(self) -> None:
        st, dt = self.src.type, self.dst.type
        if _space(st) != GMEM or _space(dt) != SMEM:
            raise VerifyError(
                f"cp.async copies global -> shared memory (gmem -> smem), not "
                f"{_space(st)} -> {_space(dt)}"
            )
        if st.element is not dt.element:
            raise VerifyError(
                f"source and destination element types must be equal, got "
                f"{st.element.text} and {dt.element.text}"
            )
        n = self.bytes.value
        if n not in _CP_ASYNC_BYTES:
            raise VerifyError(f"cp.async copies 4, 8 or 16 bytes, got {n}")
        cache = self.cache.value if self.cache is not None else "ca"
        if cache not in ("ca", "cg"):
            raise VerifyError(f'\'cache\' must be "ca" or "cg", got "{cache}"')
        if cache == "cg" and n != 16:
            raise VerifyError(f"cp.async.cg copies 16 bytes only (PTX), got {n}")
        if (8 * n) % _elem_bits(st):
            raise VerifyError(f"{n} bytes is not a whole number of {st.element.text} elements")
        _check_address(self.src, self.src_coords, self.src_coord)
        _check_address(self.dst, self.dst_coords, self.dst_coord)

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.src)
        C.print_coordinate(p, C.parse_pattern(self.src_coord.value), self.src_coords)
        p.write(", ")
        p.print_operand(self.dst)
        C.print_coordinate(p, C.parse_pattern(self.dst_coord.value), self.dst_coords)
        if self.pred is not None:
            p.write(" if ")
            p.print_operand(self.pred)
        p.print_attr_dict(self, elided=("src_coord", "dst_coord", "operandSegmentSizes"))
        p.write(f" : {self.src.type.text}, {self.dst.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> CpAsyncOp:
        src = p.parse_operand()
        sp, sc = C.parse_coordinate(p, allow_wildcard=False)
        p.expect(",")
        dst = p.parse_operand()
        dp, dc = C.parse_coordinate(p, allow_wildcard=False)
        pred = p.parse_operand() if p.parse_optional_keyword("if") else None
        attrs = p.parse_optional_attr_dict()
        st = p.parse_colon_type()
        p.expect(",")
        dt = p.parse_type()
        svals = p.resolve_operands([src, *sc], [st] + [index] * len(sc))
        dvals = p.resolve_operands([dst, *dc], [dt] + [index] * len(dc))
        pvals = [p.resolve_operand(pred, i1)] if pred is not None else []
        props: dict[str, Attribute] = {
            "src_coord": StringAttr(C.format_pattern(sp)),
            "dst_coord": StringAttr(C.format_pattern(dp)),
            "operandSegmentSizes": _segments(1, len(sc), 1, len(dc), len(pvals)),
        }
        for k in ("bytes", "cache"):
            if k in attrs:
                props[k] = attrs.pop(k)
        return cls.create([*svals, *dvals, *pvals], properties=props, attributes=attrs, loc=p.loc)


LOWERED_OPS: tuple[type[Operation], ...] = (
    LoadVectorOp,
    StoreVectorOp,
    MmaOp,
    LdmatrixOp,
    StmatrixOp,
    CpAsyncOp,
)
