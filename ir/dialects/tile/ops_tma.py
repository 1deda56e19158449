"""``tile.tma_descriptor``: the TMA descriptor of a kernel-argument tensor.

``%d = tile.tma_descriptor %p, [%m, %k], [%ld, %c1] {box = array<i64: 64, 8>, dims = array<i64:
1, 0>, swizzle = 128 : i64} : !tile.ptr<bf16, gmem, 16> -> !llvm.ptr`` states the tensor map
the hardware's ``cp.async.bulk.tensor`` reads: the tensor's base pointer, its extents and
strides (in elements, tensor mode order), the TMA dimension order (``dims``: tensor modes,
innermost first), the box extents in that order,
and the shared-memory swizzle span in bytes (0, 32, 64, 128). ``lc.make_tma_copy`` derives the
attributes from the layouts (docs/hopper.md). On the CPU it lowers to the runtime's descriptor
struct (passes/conversion/tma_descriptor.py); on the GPU it is the grid-constant parameter the runtime encodes.
"""

from __future__ import annotations

from ...core.attributes import DenseArrayAttr, IntegerAttr
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_prop, prop, result, var_operand
from ...core.operation import Operation
from ...core.traits import AttrSizedOperandSegments, Pure, RequiresTarget
from ...core.types import i64, index
from ...core.values import Value
from ..llvm_types import LLVMPointerType  # not ..llvm: keeps the llvm ops unloaded
from .types import PtrType

SWIZZLE_BYTES = (0, 32, 64, 128)


class _TensorMapOp(Operation):
    """A tensor map (TMA descriptor) of the tensor at ``ptr`` with ``extents`` and ``strides``
    (run-time values): the operands, result and syntax both descriptor ops share."""

    assembly_format = (
        "$ptr `,` `[` $extents `]` `,` `[` $strides `]` attr-dict `:` type($ptr) `->` type($res)"
    )
    traits = (Pure, AttrSizedOperandSegments, RequiresTarget("sm_90", "TMA"))
    ptr = operand(PtrType)
    extents = var_operand(index)
    strides = var_operand(index)
    res = result(LLVMPointerType)


class TmaDescriptorOp(_TensorMapOp):
    """The TMA descriptor of ``tensor`` for boxes of ``box`` elements (see the module)."""

    name = "tile.tma_descriptor"
    box = prop(DenseArrayAttr)
    dims = prop(DenseArrayAttr)
    swizzle = prop(IntegerAttr)

    def __init__(
        self,
        ptr: Value,
        extents: list[Value],
        strides: list[Value],
        box: list[int],
        dims: list[int],
        swizzle: int,
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[ptr, list(extents), list(strides)],
            result_types=[LLVMPointerType(0)],
            properties={
                "box": DenseArrayAttr(i64, list(box)),
                "dims": DenseArrayAttr(i64, list(dims)),
                "swizzle": IntegerAttr(swizzle, i64),
            },
            loc=loc,
        )

    @property
    def box_extents(self) -> list[int]:
        return [int(x) for x in self.box.values]

    @property
    def dim_modes(self) -> list[int]:
        return [int(x) for x in self.dims.values]

    def verify_(self) -> None:
        if self.ptr.type.space != "gmem":
            raise VerifyError("expects a global-memory pointer")
        box, dims = self.box_extents, self.dim_modes
        if len(self.extents) != len(dims) or len(self.strides) != len(dims):
            raise VerifyError("expects one extent and one stride per dimension")
        if not 1 <= len(dims) <= 5 or len(box) != len(dims):
            raise VerifyError(
                f"expects 1 to 5 dimensions with one box extent each, got dims {dims} and box {box}"
            )
        if sorted(dims) != list(range(len(dims))):
            raise VerifyError(f"'dims' must order the tensor's modes 0..{len(dims) - 1}: {dims}")
        if any(not 1 <= b <= 256 for b in box):
            raise VerifyError(f"TMA box extents must be in [1, 256], got {box}")
        if self.swizzle.value not in SWIZZLE_BYTES:
            raise VerifyError(f"swizzle must be 0, 32, 64 or 128 bytes, got {self.swizzle.value}")


#: the box-corner range per tensor rank (bits of the signed field in the descriptor)
CORNER_BITS = {3: 16, 4: 8, 5: 5}


class TmaIm2colDescriptorOp(_TensorMapOp):
    """``%d = tile.tma_im2col_descriptor %p, [%n, %d, %h, %w, %c], [...] {channels = 32,
    pixels = 256, lower = array<i64: 0, 0, 0>, upper = array<i64: -2, -2, -2>, swizzle = 128}``:
    the im2col-mode tensor map (``cuTensorMapEncodeIm2col``) of an N-spatial-C tensor (modes
    outermost first: N, [D, [H,]] W, C; C contiguous; TMA's dimensions are the modes reversed).
    One load brings ``pixels`` pixels of ``channels`` channels walked through the bounding box
    ``[lower, extent - 1 + upper]`` of each spatial dimension (corners innermost first: W, H,
    D); runtime/tma_im2col.py models it. Lowered as ``tile.tma_descriptor``. The optional
    ``traversal = array<i64: sw, sh, sd>`` is the descriptor's traversal strides
    (``elementStrides`` of the spatial dimensions, a convolution's stride; in [1, 8]): the
    pixels advance by it through the box. Absent, all ones."""

    name = "tile.tma_im2col_descriptor"
    channels = prop(IntegerAttr)
    pixels = prop(IntegerAttr)
    lower = prop(DenseArrayAttr)
    upper = prop(DenseArrayAttr)
    swizzle = prop(IntegerAttr)
    traversal = opt_prop(DenseArrayAttr)

    def __init__(
        self,
        ptr: Value,
        extents: list[Value],
        strides: list[Value],
        channels: int,
        pixels: int,
        lower: list[int],
        upper: list[int],
        swizzle: int,
        loc: Location | None = None,
        traversal: list[int] | None = None,
    ):
        properties = {
            "channels": IntegerAttr(channels, i64),
            "pixels": IntegerAttr(pixels, i64),
            "lower": DenseArrayAttr(i64, list(lower)),
            "upper": DenseArrayAttr(i64, list(upper)),
            "swizzle": IntegerAttr(swizzle, i64),
        }
        if traversal is not None and any(s != 1 for s in traversal):
            properties["traversal"] = DenseArrayAttr(i64, list(traversal))
        super().__init__(
            operands=[ptr, list(extents), list(strides)],
            result_types=[LLVMPointerType(0)],
            properties=properties,
            loc=loc,
        )

    @property
    def corners(self) -> tuple[list[int], list[int]]:
        return [int(x) for x in self.lower.values], [int(x) for x in self.upper.values]

    @property
    def traversal_strides(self) -> list[int]:
        """The traversal stride per spatial dimension, innermost first (ones if absent)."""
        if self.traversal is None:
            return [1] * (len(self.extents) - 2)
        return [int(x) for x in self.traversal.values]

    @property
    def dim_modes(self) -> list[int]:
        """The tensor mode of each TMA dimension: the modes reversed (C, W, H, D, N)."""
        return list(reversed(range(len(self.extents))))

    @property
    def box_extents(self) -> list[int]:
        """One pixel's box (what the tensor rules see): ``channels`` then ones."""
        return [self.channels.value] + [1] * (len(self.extents) - 1)

    def verify_(self) -> None:
        if self.ptr.type.space != "gmem":
            raise VerifyError("expects a global-memory pointer")
        rank = len(self.extents)
        if len(self.strides) != rank or rank not in CORNER_BITS:
            raise VerifyError(
                f"expects a tensor of rank 3 to 5 with one extent and stride each, got "
                f"{rank} extents and {len(self.strides)} strides"
            )
        lower, upper = self.corners
        if len(lower) != rank - 2 or len(upper) != rank - 2:
            raise VerifyError(
                f"expects one lower and one upper corner per spatial dimension ({rank - 2}), "
                f"got {lower} and {upper}"
            )
        bits = CORNER_BITS[rank]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if any(not lo <= x <= hi for x in (*lower, *upper)):
            raise VerifyError(
                f"a rank-{rank} tensor's box corners must be in [{lo}, {hi}], got lower {lower}, "
                f"upper {upper}"
            )
        steps = self.traversal_strides
        if len(steps) != rank - 2 or any(not 1 <= s <= 8 for s in steps):
            raise VerifyError(
                f"expects one traversal stride in [1, 8] per spatial dimension ({rank - 2}), "
                f"got {steps}"
            )
        if not 1 <= self.channels.value <= 256 or not 1 <= self.pixels.value <= 1024:
            raise VerifyError(
                f"channels must be in [1, 256] and pixels in [1, 1024], got "
                f"{self.channels.value} and {self.pixels.value}"
            )
        if self.swizzle.value not in SWIZZLE_BYTES:
            raise VerifyError(f"swizzle must be 0, 32, 64 or 128 bytes, got {self.swizzle.value}")


TMA_OPS = (TmaDescriptorOp, TmaIm2colDescriptorOp)
