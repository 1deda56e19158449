"""The ``tile`` dialect: pointers with a memory space, tensors (pointer + layout), views,
element access, CuTe's algorithms with their atoms, and the lowered instruction forms.

See docs/dialect-tile.md. Module map: :mod:`.types` (``!tile.ptr``, ``!tile.tensor``),
:mod:`.atoms` (the copy/MMA atom registry), :mod:`.tiled` (``make_tiled_copy``,
``make_tiled_mma``: pure algebra), :mod:`.attributes` (``#tile.copy_atom``, ``#tile.mma_atom``),
:mod:`.ops_tensor`, :mod:`.ops_view`, :mod:`.ops_element`, :mod:`.ops_algorithm`,
:mod:`.ops_lowered` (the ops), :mod:`.inference` (type-level algebra), :mod:`.coords`
(coordinate patterns), :mod:`.effects` (the MemoryEffects trait).
"""

from __future__ import annotations

from ...core.attributes import Attribute, IntegerAttr
from ...core.builder import Builder
from ...core.context import Dialect
from ...core.location import Location
from ...core.operation import Operation
from ...core.types import Type
from .atoms import (
    COPY_OPERATIONS,
    MMA_OPERATIONS,
    AtomError,
    CopyOperation,
    Fragment,
    MMAOperation,
    copy_operation,
    mma_operation,
)
from .attributes import CopyAtomAttr, MMAAtomAttr
from .effects import MemoryEffects
from .ops_algorithm import (
    ALGORITHM_OPS,
    ASYNC_GROUP_OPS,
    COPY_OPS,
    FILL_OPS,
    AxpbyOp,
    ClearOp,
    CopyIfOp,
    CopyOp,
    CpAsyncCommitOp,
    CpAsyncWaitOp,
    FillOp,
    GemmOp,
)
from .ops_atomic import ATOMIC_OPS, AtomicCASOp, AtomicRMWOp
from .ops_element import ELEMENT_OPS, AssumeOp, LoadOp, StoreOp
from .ops_lowered import (
    LOWERED_OPS,
    CpAsyncOp,
    LdmatrixOp,
    LoadVectorOp,
    MmaOp,
    StmatrixOp,
    StoreVectorOp,
)
from .ops_tensor import (
    DYNAMIC_SMEM_BASE_ALIGN,
    TENSOR_OPS,
    AllocFragmentOp,
    AllocSmemOp,
    DynamicSmemOp,
    GetLayoutOp,
    GetPtrOp,
    MakeIdentityTensorOp,
    MakeTensorOp,
    PtrOffsetOp,
    RecastPtrOp,
    dynamic_smem_padding,
)
from .ops_tma import TMA_OPS, TmaDescriptorOp, TmaIm2colDescriptorOp
from .ops_view import (
    VIEW_OPS,
    CoalesceOp,
    CompositionOp,
    FlatDivideOp,
    FlattenOp,
    GroupModesOp,
    LocalPartitionOp,
    LocalTileOp,
    LogicalDivideOp,
    PartitionTVOp,
    SliceOp,
    TiledDivideOp,
    ViewOp,
    ZippedDivideOp,
)
from .ops_wgmma import WGMMA_OPS, FenceOperandOp, WgmmaDescOp, WgmmaOp, WgmmaRSOp
from .tiled import (
    CopyAtom,
    TiledCopy,
    TiledMMA,
    make_copy_atom,
    make_tiled_copy,
    make_tiled_copy_A,
    make_tiled_copy_B,
    make_tiled_copy_C,
    make_tiled_mma,
)
from .types import PtrType, TensorType

ALL_OPS: tuple[type[Operation], ...] = (
    *TENSOR_OPS,
    *VIEW_OPS,
    *ELEMENT_OPS,
    *ATOMIC_OPS,
    *ALGORITHM_OPS,
    *ASYNC_GROUP_OPS,
    *LOWERED_OPS,
    *TMA_OPS,
    *WGMMA_OPS,
)


def materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """Folded layouts become ``layout.constant``; folded index values ``arith.constant``."""
    from ..layout import materialize_constant as layout_materialize

    op = layout_materialize(builder, value, type, loc)
    if op is not None:
        return op
    if isinstance(value, IntegerAttr) and value.type is type:
        from ..arith import ConstantOp

        return builder.create(ConstantOp, value, loc=loc)
    return None


DIALECT = Dialect(
    "tile",
    ops=ALL_OPS,
    types=[PtrType, TensorType],
    attributes=[CopyAtomAttr, MMAAtomAttr],
    materialize_constant=materialize_constant,
)

__all__ = [
    "TmaDescriptorOp",
    "TmaIm2colDescriptorOp",
    "ALL_OPS",
    "FenceOperandOp",
    "WgmmaDescOp",
    "WgmmaOp",
    "WgmmaRSOp",
    "ATOMIC_OPS",
    "ALGORITHM_OPS",
    "ASYNC_GROUP_OPS",
    "COPY_OPS",
    "FILL_OPS",
    "AllocFragmentOp",
    "AllocSmemOp",
    "AssumeOp",
    "DynamicSmemOp",
    "DYNAMIC_SMEM_BASE_ALIGN",
    "dynamic_smem_padding",
    "AtomError",
    "AtomicCASOp",
    "AtomicRMWOp",
    "AxpbyOp",
    "COPY_OPERATIONS",
    "ClearOp",
    "CoalesceOp",
    "CompositionOp",
    "CopyAtom",
    "CopyAtomAttr",
    "CopyIfOp",
    "CopyOp",
    "CopyOperation",
    "CpAsyncCommitOp",
    "CpAsyncOp",
    "CpAsyncWaitOp",
    "DIALECT",
    "FillOp",
    "FlatDivideOp",
    "FlattenOp",
    "Fragment",
    "GemmOp",
    "GetLayoutOp",
    "GetPtrOp",
    "GroupModesOp",
    "LdmatrixOp",
    "StmatrixOp",
    "LoadOp",
    "LoadVectorOp",
    "LocalPartitionOp",
    "LocalTileOp",
    "LogicalDivideOp",
    "MMAAtomAttr",
    "MMAOperation",
    "MMA_OPERATIONS",
    "MakeIdentityTensorOp",
    "MakeTensorOp",
    "MemoryEffects",
    "MmaOp",
    "PartitionTVOp",
    "PtrOffsetOp",
    "PtrType",
    "RecastPtrOp",
    "SliceOp",
    "StoreOp",
    "StoreVectorOp",
    "TensorType",
    "TiledCopy",
    "TiledDivideOp",
    "TiledMMA",
    "ViewOp",
    "ZippedDivideOp",
    "copy_operation",
    "make_copy_atom",
    "make_tiled_copy",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_copy_C",
    "make_tiled_mma",
    "materialize_constant",
    "mma_operation",
]
