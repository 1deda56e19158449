"""Tensor construction and access ops: make_tensor, make_identity_tensor, alloc_smem,
dynamic_smem, alloc_fragment, ptr_offset, get_layout, get_ptr."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import Attribute, IntegerAttr, TypeAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import Pure
from ...core.types import IndexType, IntegerType, Type, i64, index
from ...core.values import Value
from ..layout.attributes import LayoutAttr
from ..layout.types import IntTupleType, LayoutType
from .base import build_error
from .effects import MemoryEffects
from .inference import alignment_after_offset, index_fact
from .spaces import COORD, RMEM, SMEM
from .types import PtrType, TensorType, is_element_type, natural_alignment

__all__ = [
    "DYNAMIC_SMEM_BASE_ALIGN",
    "AllocFragmentOp",
    "AllocSmemOp",
    "DynamicSmemOp",
    "dynamic_smem_padding",
    "GetLayoutOp",
    "GetPtrOp",
    "MakeIdentityTensorOp",
    "MakeTensorOp",
    "PtrOffsetOp",
    "RecastPtrOp",
]

_Index = Constraint(lambda t: isinstance(t, IndexType), "index", exact=IndexType())
_Offset = Constraint(
    lambda t: (
        isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width == 64 and t.is_signless)
    ),
    "index or i64",
)


class MakeTensorOp(Operation):
    """``%t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,?)">)
    -> !tile.tensor<f32, gmem, "(4,?):(1,?)", 16>``: a pointer viewed through a layout.

    A gather layout names its index buffers (``(1,1):(Custom{idx0,64},1) o (0,0) o ...``,
    CUTLASS's ``IndexedGather``); each buffer is one more operand, a pointer to integers in
    global or shared memory (a CTA's slice of the indices staged once per tile), in the order
    the names first appear in the layout's text:
    ``tile.make_tensor %p, %l, %idx0 : (ptr, layout, !tile.ptr<i32, gmem, 4>) -> tensor``."""

    name = "tile.make_tensor"
    assembly_format = "$ptr `,` $layout (`,` $gathers^)? attr-dict `:` `(` type($ptr) `,` type($layout) (`,` type($gathers)^)? `)` `->` type($result)"
    traits = (Pure,)
    ptr = operand(PtrType)
    layout = operand(LayoutType)
    gathers = var_operand(PtrType)
    result = result(TensorType)

    def __init__(
        self,
        ptr: Value,
        layout: Value,
        gathers: Sequence[Value] = (),
        loc: Location | None = None,
    ):
        pt, lt = ptr.type, layout.type
        if not isinstance(pt, PtrType) or not isinstance(lt, LayoutType):
            raise build_error(
                self.name,
                f"expects a !tile.ptr and a !layout.layout, got '{pt.text}' and '{lt.text}'",
                loc,
            )
        t = TensorType(pt.element, pt.space, lt.layout_text, pt.alignment)
        super().__init__(operands=[ptr, layout, list(gathers)], result_types=[t], loc=loc)

    def gather_names(self) -> list[str]:
        """The index-buffer names of the layout, one per ``gathers`` operand."""
        return gather_names(self.layout.type.layout_text)

    def verify_(self) -> None:
        pt, lt, t = self.ptr.type, self.layout.type, self.result.type
        expected = TensorType(pt.element, pt.space, lt.layout_text, pt.alignment)
        if t is not expected:
            raise VerifyError(f"result type '{t.text}' should be '{expected.text}'")
        names = self.gather_names()
        if len(names) != len(self.gathers):
            raise VerifyError(
                f"the layout names {len(names)} index buffer(s) {names} but "
                f"{len(self.gathers)} gather operand(s) are given (one pointer per name, in "
                "order of first appearance)"
            )
        for name, g in zip(names, self.gathers):
            el = g.type.element  # type: ignore[attr-defined]
            if el.text not in ("i32", "i64") or g.type.space not in ("gmem", "smem"):  # type: ignore[attr-defined]
                raise VerifyError(
                    f"the index buffer '{name}' must be a pointer to i32 or i64 in gmem or smem, got "
                    f"'{g.type.text}'"
                )


def gather_names(layout_text: str) -> list[str]:
    """The index-buffer names of a layout text (``Custom{name,stride}``), in order of first
    appearance."""
    names: list[str] = []
    for name in _CUSTOM_RE.findall(layout_text):
        if name not in names:
            names.append(name)
    return names


_CUSTOM_RE = re.compile(r"Custom\{([A-Za-z_][A-Za-z_0-9]*),")


class MakeIdentityTensorOp(Operation):
    """``%c = tile.make_identity_tensor %s : !layout.int_tuple<"(128,?)"> -> !tile.tensor<coord,
    "(128,?):(1@0,1@1)">``: the tensor whose element at each coordinate is that coordinate."""

    name = "tile.make_identity_tensor"
    assembly_format = "$shape attr-dict `:` type($shape) `->` type($result)"
    traits = (Pure,)
    shape = operand(IntTupleType)
    result = result(TensorType)

    @staticmethod
    def infer(shape_type: IntTupleType) -> TensorType:
        from ...algebra import make_identity_layout
        from .layouts import text_of_layout

        value = shape_type.parsed.template
        text, _ = text_of_layout(make_identity_layout(value))
        return TensorType(None, COORD, text)

    def __init__(self, shape: Value, loc: Location | None = None):
        st = shape.type
        if not isinstance(st, IntTupleType):
            raise build_error(self.name, f"expects a !layout.int_tuple shape, got '{st.text}'", loc)
        try:
            t = self.infer(st)
        except ValueError as e:
            raise build_error(self.name, str(e), loc) from None
        super().__init__(operands=[shape], result_types=[t], loc=loc)

    def verify_(self) -> None:
        try:
            expected = self.infer(self.shape.type)
        except ValueError as e:
            raise VerifyError(str(e)) from None
        if self.result.type is not expected:
            raise VerifyError(f"result type '{self.result.type.text}' should be '{expected.text}'")


def _static_layout_attr(layout: Any) -> LayoutAttr:
    return layout if isinstance(layout, LayoutAttr) else LayoutAttr(layout)


class _AllocOp(Operation):
    """Common part of alloc_smem / alloc_fragment: a static layout, an element type and an
    alignment as properties, mirrored by the result type (printed alone in custom form)."""

    space: str = ""
    layout = prop(LayoutAttr)
    elem = prop(TypeAttr)
    result = result(TensorType)

    def __init__(
        self,
        layout: Any,
        elem: Type,
        align: int | None = None,
        loc: Location | None = None,
    ):
        try:
            attr = _static_layout_attr(layout)
            t = TensorType(elem, self.space, attr.layout_text, align)
        except ValueError as e:
            raise build_error(self.name, str(e), loc) from None
        super().__init__(result_types=[t], properties=self._props_of(t), loc=loc)

    @classmethod
    def _props_of(cls, t: TensorType) -> dict[str, Attribute]:
        return {
            "layout": LayoutAttr(t.layout_text),
            "elem": TypeAttr(t.element),  # type: ignore[arg-type]
            "align": IntegerAttr(t.alignment, i64),
        }

    def verify_(self) -> None:
        t = self.result.type
        elem = self.elem.type
        if not is_element_type(elem):
            raise VerifyError(f"'elem' must be a tile element type, got '{elem.text}'")
        align_attr = self.properties.get("align")
        align = align_attr.value if isinstance(align_attr, IntegerAttr) else None
        try:
            expected = TensorType(elem, self.space, self.layout.layout_text, align)
        except ValueError as e:
            raise VerifyError(str(e)) from None
        if t is not expected:
            raise VerifyError(
                f"result type '{t.text}' does not match the properties (expected '{expected.text}')"
            )

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.print_attr_dict(self, elided=("layout", "elem", "align"))
        p.write(f" : {self.result.type.text}")

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        attrs = p.parse_optional_attr_dict()
        at = p.pos
        t = p.parse_colon_type()
        if not isinstance(t, TensorType) or t.space != cls.space:
            raise p.error(f"'{cls.name}' makes a !tile.tensor in {cls.space}, got '{t.text}'", at)
        return cls.create(
            result_types=[t], properties=cls._props_of(t), attributes=attrs, loc=p.loc
        )


class AllocSmemOp(_AllocOp):
    """``%s = tile.alloc_smem : !tile.tensor<f32, smem, "(8,32):(32,1)", 16>``: shared memory
    for a static layout (``storage_cosize`` elements: every offset, swizzled ones included),
    lowered to a shared-memory global."""

    name = "tile.alloc_smem"
    traits = (MemoryEffects(allocates=True),)
    space = SMEM
    align = prop(IntegerAttr)


DYNAMIC_SMEM_BASE_ALIGN = 16
"""Bytes the dynamic shared-memory base is aligned to on every target. On the GPU it starts
right after the static shared memory (``tile.alloc_smem``: mbarriers, pipelines), and ptxas
does not pad that to the ``.align`` the extern array declares: a 1024-byte alignment is not
guaranteed, only 16."""


def dynamic_smem_padding(align: int) -> int:
    """Bytes a launch adds to the dynamic shared memory of a kernel whose widest
    ``tile.dynamic_smem`` alignment is ``align``: convert-to-llvm realigns the base at run time
    exactly when this is positive, and the front end adds it to the launch's bytes. The one
    decision both read, so that they cannot disagree."""
    return max(align - DYNAMIC_SMEM_BASE_ALIGN, 0)


class DynamicSmemOp(Operation):
    """``%p = tile.dynamic_smem : !tile.ptr<f32, smem, 16>``: the base of the block's
    dynamically sized shared memory (its size is a launch parameter).

    Upstream's ``gpu.dynamic_shared_memory`` returns a ``memref<?xi8, #gpu.address_space<
    workgroup>>``; layoutc has no memref type, so the typed pointer is this tile op's."""

    name = "tile.dynamic_smem"
    traits = (Pure,)
    assembly_format = "attr-dict `:` type($result)"
    result = result(PtrType)

    def __init__(self, ptr_type: PtrType, loc: Location | None = None):
        super().__init__(result_types=[ptr_type], loc=loc)

    def verify_(self) -> None:
        t = self.result.type
        if t.space != SMEM:
            raise VerifyError(f"result must point to shared memory (smem), got '{t.text}'")


class AllocFragmentOp(_AllocOp):
    """``%r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,4):(1,4)", 4>``: a thread's
    register array for a static layout."""

    name = "tile.alloc_fragment"
    traits = (MemoryEffects(allocates=True),)
    space = RMEM
    align = opt_prop(IntegerAttr)

    @classmethod
    def _props_of(cls, t: TensorType) -> dict[str, Attribute]:
        props = super()._props_of(t)
        if t.alignment == natural_alignment(t.element):  # type: ignore[arg-type]
            del props["align"]
        return props


class PtrOffsetOp(Operation):
    """``%q = tile.ptr_offset %p, %i : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem,
    4>``: the pointer ``%i`` elements further (alignment what the offset preserves). The
    offset is an ``index``, or an ``i64`` computed in 64 bits whatever the index width
    (lower-layouts' row term of a gathered access, ``entry * row stride``)."""

    name = "tile.ptr_offset"
    assembly_format = (
        "$ptr `,` $offset attr-dict `:` `(` type($ptr) `,` type($offset) `)` `->` type($result)"
    )
    traits = (Pure,)
    ptr = operand(PtrType)
    offset = operand(_Offset)
    result = result(PtrType)

    @staticmethod
    def infer(pt: PtrType, offset: Value) -> PtrType:
        fact = index_fact(offset)
        value: Any = fact[1] if fact is not None and fact[0] == "const" else None
        if value is None:
            from .inference import operand_arg

            value = operand_arg(index, 1, fact)
        return pt.with_alignment(alignment_after_offset(pt.alignment, pt.element_bits // 8, value))

    def __init__(self, ptr: Value, offset: Value, loc: Location | None = None):
        if not isinstance(ptr.type, PtrType):
            raise build_error(self.name, f"expects a !tile.ptr, got '{ptr.type.text}'", loc)
        super().__init__(
            operands=[ptr, offset], result_types=[self.infer(ptr.type, offset)], loc=loc
        )

    def verify_(self) -> None:
        pt, rt = self.ptr.type, self.result.type
        if rt.element is not pt.element or rt.space != pt.space:
            raise VerifyError(
                f"result '{rt.text}' must point to the same element type and memory space as "
                f"'{pt.text}'"
            )
        inferred = self.infer(pt, self.offset)
        if inferred.alignment % rt.alignment:
            raise VerifyError(
                f"result alignment {rt.alignment} is not proven: the offset keeps "
                f"{inferred.alignment}-byte alignment"
            )


class RecastPtrOp(Operation):
    """``%q = tile.recast_ptr %p : !tile.ptr<f32, gmem, 16> -> !tile.ptr<f16, gmem, 16>``: the
    same address seen as another element type (CuTe's ``recast_ptr<NewType>``); the alignment
    is the address's, so it carries over (capped by nothing: it is a fact about bytes)."""

    name = "tile.recast_ptr"
    traits = (Pure,)
    ptr = operand(PtrType)
    result = result(PtrType)
    assembly_format = "$ptr attr-dict `:` type($ptr) `->` type($result)"

    def __init__(self, ptr: Value, element: Type, loc: Location | None = None):
        pt = ptr.type
        if not isinstance(pt, PtrType):
            raise build_error(self.name, f"expects a !tile.ptr, got '{pt.text}'", loc)
        if not is_element_type(element):
            raise build_error(self.name, f"'{element.text}' is not an element type", loc)
        rt = PtrType(element, pt.space, pt.alignment)
        super().__init__(operands=[ptr], result_types=[rt], loc=loc)

    def verify_(self) -> None:
        pt, rt = self.ptr.type, self.result.type
        if rt.space != pt.space:
            raise VerifyError(
                f"result '{rt.text}' must be in the memory space of '{pt.text}' ({pt.space})"
            )
        if pt.alignment % rt.alignment:
            raise VerifyError(
                f"result alignment {rt.alignment} is not proven: '{pt.text}' is "
                f"{pt.alignment}-byte aligned"
            )
        if rt.alignment < natural_alignment(rt.element):
            raise VerifyError(
                f"result '{rt.text}' is less aligned than its element type: the address is only "
                f"{rt.alignment}-byte aligned"
            )

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        if self.ptr.type is self.result.type:
            return [self.ptr]
        return None


class _TensorAccessorOp(Operation):
    """``%r = tile.get_x %t : T -> R``."""

    assembly_format = "$tensor attr-dict `:` type($tensor) `->` type($result)"

    traits = (Pure,)
    tensor = operand(TensorType)

    @staticmethod
    def infer(t: TensorType) -> Type:
        raise NotImplementedError

    def __init__(self, tensor: Value, loc: Location | None = None):
        t = tensor.type
        if not isinstance(t, TensorType):
            raise build_error(self.name, f"expects a !tile.tensor, got '{t.text}'", loc)
        try:
            rt = self.infer(t)
        except ValueError as e:
            raise build_error(self.name, str(e), loc) from None
        super().__init__(operands=[tensor], result_types=[rt], loc=loc)

    def verify_(self) -> None:
        try:
            expected = self.infer(self.tensor.type)
        except ValueError as e:
            raise VerifyError(str(e)) from None
        if self.results[0].type is not expected:
            raise VerifyError(
                f"result type '{self.results[0].type.text}' should be '{expected.text}'"
            )

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        return None


class GetLayoutOp(_TensorAccessorOp):
    """``%l = tile.get_layout %t : !tile.tensor<...> -> !layout.layout<"...">``."""

    name = "tile.get_layout"
    result = result(LayoutType)

    @staticmethod
    def infer(t: TensorType) -> Type:
        return LayoutType(t.layout_text)

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        t = self.tensor.type
        if t.is_static:
            return [LayoutAttr(t.layout_text)]
        defining = self.tensor.defining_op
        if isinstance(defining, MakeTensorOp):
            return [defining.layout]
        return None


class GetPtrOp(_TensorAccessorOp):
    """``%p = tile.get_ptr %t : !tile.tensor<...> -> !tile.ptr<...>``: the pointer to the
    tensor's first element (coordinate tensors have none)."""

    name = "tile.get_ptr"
    result = result(PtrType)

    @staticmethod
    def infer(t: TensorType) -> Type:
        if t.space == COORD:
            raise ValueError(f"a coordinate tensor has no pointer: '{t.text}'")
        return t.ptr_type()

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        defining = self.tensor.defining_op
        if isinstance(defining, MakeTensorOp) and defining.ptr.type is self.result.type:
            return [defining.ptr]
        return None


TENSOR_OPS: tuple[type[Operation], ...] = (
    MakeTensorOp,
    MakeIdentityTensorOp,
    AllocSmemOp,
    DynamicSmemOp,
    AllocFragmentOp,
    PtrOffsetOp,
    RecastPtrOp,
    GetLayoutOp,
    GetPtrOp,
)
