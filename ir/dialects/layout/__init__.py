"""The ``layout`` dialect: int-tuples, layouts and tiles as IR values, and CuTe's algebra on them.

Types carry layout text with ``?`` for each dynamic entry (``!layout.layout<"(4,?):(1,?)">``);
every op computes its result type with the algebra from its operand types, verifies it, and
folds when the result is static. :mod:`.symbolic_types` is the public bridge between types and
symbolic algebra values, used by the tile dialect, the passes and the front end.
See docs/dialect-layout.md.
"""

from __future__ import annotations

from ...core.attributes import Attribute, IntegerAttr
from ...core.builder import Builder
from ...core.context import Dialect
from ...core.location import Location
from ...core.operation import Operation
from ...core.types import IndexType, Type, i1
from .attributes import IntTupleAttr, LayoutAttr, LayoutTextAttr, TileAttr
from .base import AlgebraOp
from .ops_access import (
    ACCESS_OPS,
    CosizeOp,
    Crd2IdxOp,
    DepthOp,
    ElemLessOp,
    GetOp,
    Idx2CrdOp,
    MaxCommonVectorOp,
    RankOp,
    ShapeOp,
    SizeOp,
    SliceOp,
    StrideOp,
)
from .ops_algebra import (
    ALGEBRA_OPS,
    AppendOp,
    BlockedProductOp,
    CoalesceOp,
    ComplementOp,
    CompositionOp,
    FilterOp,
    FlatDivideOp,
    FlatProductOp,
    FlattenOp,
    GroupOp,
    LeftInverseOp,
    LogicalDivideOp,
    LogicalProductOp,
    PrependOp,
    RakedProductOp,
    RightInverseOp,
    SelectOp,
    SwizzleOp,
    TiledDivideOp,
    TiledProductOp,
    TileToShapeOp,
    ZippedDivideOp,
    ZippedProductOp,
)
from .ops_values import (
    VALUE_OPS,
    ConstantOp,
    MakeComposedLayoutOp,
    MakeCoordOp,
    MakeIdentityOp,
    MakeIntTupleOp,
    MakeLayoutOp,
    MakeShapeOp,
    MakeStrideOp,
)
from .symbolic_types import from_symbolic, static_attribute, to_symbolic
from .text import Kind, LayoutTextError, Role
from .types import IntTupleType, LayoutTextType, LayoutType, TileType

ALL_OPS: tuple[type[Operation], ...] = (*VALUE_OPS, *ACCESS_OPS, *ALGEBRA_OPS)


def materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """``layout.constant`` for layout attributes that fit ``type``; ``arith.constant`` for the
    index and i1 results of layout ops (sizes, offsets, predicates)."""
    if isinstance(value, LayoutTextAttr) and isinstance(type, LayoutTextType):
        from .text import is_instance

        if value.kind is type.kind and is_instance(value.layout_text, type.layout_text):
            return builder.create(ConstantOp, value, type, loc=loc)
        return None
    if (
        isinstance(value, IntegerAttr)
        and value.type is type
        and (isinstance(type, IndexType) or type is i1)
    ):
        from ..arith import ConstantOp as ArithConstantOp

        return builder.create(ArithConstantOp, value, loc=loc)
    return None


DIALECT = Dialect(
    "layout",
    ops=ALL_OPS,
    types=[IntTupleType, LayoutType, TileType],
    attributes=[IntTupleAttr, LayoutAttr, TileAttr],
    materialize_constant=materialize_constant,
)

__all__ = [
    "ALL_OPS",
    "DIALECT",
    "AlgebraOp",
    "AppendOp",
    "BlockedProductOp",
    "CoalesceOp",
    "ComplementOp",
    "CompositionOp",
    "ConstantOp",
    "CosizeOp",
    "Crd2IdxOp",
    "DepthOp",
    "ElemLessOp",
    "FilterOp",
    "FlatDivideOp",
    "FlatProductOp",
    "FlattenOp",
    "GetOp",
    "GroupOp",
    "Idx2CrdOp",
    "IntTupleAttr",
    "IntTupleType",
    "Kind",
    "LayoutAttr",
    "LayoutTextAttr",
    "LayoutTextError",
    "LayoutTextType",
    "LayoutType",
    "LeftInverseOp",
    "LogicalDivideOp",
    "LogicalProductOp",
    "MakeComposedLayoutOp",
    "MakeCoordOp",
    "MakeIdentityOp",
    "MakeIntTupleOp",
    "MakeLayoutOp",
    "MakeShapeOp",
    "MakeStrideOp",
    "MaxCommonVectorOp",
    "PrependOp",
    "RakedProductOp",
    "RankOp",
    "RightInverseOp",
    "Role",
    "SelectOp",
    "ShapeOp",
    "SizeOp",
    "SliceOp",
    "StrideOp",
    "SwizzleOp",
    "TileAttr",
    "TileToShapeOp",
    "TileType",
    "TiledDivideOp",
    "TiledProductOp",
    "ZippedDivideOp",
    "ZippedProductOp",
    "from_symbolic",
    "materialize_constant",
    "static_attribute",
    "to_symbolic",
]
