"""The gpu dialect: MLIR's thread/block ids and dimensions, lane id, barrier, shuffle and printf,
plus the kernel attributes ``gpu.kernel`` and ``gpu.known_block_size``.

Names, properties and generic forms are MLIR's (``"gpu.thread_id"() <{dimension = #gpu<dim
x>}> : () -> index``), so xDSL and MLIR tools read what we print. Dynamic shared memory is
``tile.dynamic_smem`` (a typed ``!tile.ptr``; upstream's ``gpu.dynamic_shared_memory`` returns a
memref, which layoutc does not have).

Folders: inside a function carrying ``gpu.known_block_size = array<i32: x, y, z>``,
``gpu.block_dim`` folds to the constant extent and ``gpu.thread_id`` of an extent-1 dimension
folds to 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.attributes import (
    Attribute,
    DenseArrayAttr,
    IntegerAttr,
    NamespaceEnumAttr,
    StringAttr,
    UnitAttr,
)
from ..core.builder import Builder
from ..core.constraints import Constraint
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.location import Location
from ..core.opdef import operand, prop, result, var_operand
from ..core.operation import Operation
from ..core.traits import NoMemoryEffect, Pure
from ..core.types import FloatType, IndexType, IntegerType, Type, i1, i32, index
from ..core.values import Value
from .func import FuncOp
from .llvm.control_ops import LLVMFuncOp

__all__ = [
    "DIALECT",
    "KERNEL_ATTR",
    "KNOWN_BLOCK_SIZE_ATTR",
    "KNOWN_GRID_SIZE_ATTR",
    "BarrierOp",
    "BlockDimOp",
    "BlockIdOp",
    "DimensionAttr",
    "GridDimOp",
    "LaneIdOp",
    "PrintfOp",
    "ShuffleModeAttr",
    "ShuffleOp",
    "ThreadIdOp",
    "known_block_size",
    "printf_conversions",
]

KERNEL_ATTR = "gpu.kernel"
KNOWN_BLOCK_SIZE_ATTR = "gpu.known_block_size"
KNOWN_GRID_SIZE_ATTR = "gpu.known_grid_size"


# ---------------------------------------------------------------------------------------------
# attributes
# ---------------------------------------------------------------------------------------------


class DimensionAttr(NamespaceEnumAttr):
    """``#gpu<dim x>``: which of the three dimensions an id or size refers to."""

    __slots__ = ()
    name = "gpu.dim"
    VALUES = ("x", "y", "z")

    @property
    def index(self) -> int:
        return "xyz".index(self.value)


class ShuffleModeAttr(NamespaceEnumAttr):
    """``#gpu<shuffle_mode xor>``: how ``gpu.shuffle`` picks the source lane."""

    __slots__ = ()
    name = "gpu.shuffle_mode"
    VALUES = ("xor", "up", "down", "idx")


# ---------------------------------------------------------------------------------------------
# kernel attributes
# ---------------------------------------------------------------------------------------------


def _size_triple(attr: Attribute) -> tuple[int, int, int] | None:
    if (
        isinstance(attr, DenseArrayAttr)
        and attr.element_type is i32
        and len(attr.values) == 3
        and all(v > 0 for v in attr.values)
    ):
        return tuple(attr.values)  # type: ignore[return-value]
    return None


def known_block_size(op: Operation) -> tuple[int, int, int] | None:
    """The ``gpu.known_block_size`` of the function enclosing ``op`` (or of ``op`` itself)."""
    cur: Operation | None = op
    while cur is not None:
        attr = cur.attributes.get(KNOWN_BLOCK_SIZE_ATTR)
        if attr is not None:
            return _size_triple(attr)
        if isinstance(cur, _FUNCTIONS):
            return None
        cur = cur.parent_op
    return None


#: Function ops the kernel attributes may sit on (``convert-func-to-llvm`` keeps them).
_FUNCTIONS = (FuncOp, LLVMFuncOp)


def _verify_operation_attribute(op: Operation, name: str, attr: Attribute) -> None:
    """Rules for ``gpu.*`` attributes on other dialects' ops (MLIR's verifyOperationAttribute)."""
    if name == KERNEL_ATTR:
        if not isinstance(attr, UnitAttr):
            raise VerifyError(f"'{name}' must be a unit attribute, got {attr.text}")
        if not isinstance(op, _FUNCTIONS):
            raise VerifyError(f"'{name}' is only allowed on 'func.func' or 'llvm.func'")
        return
    if name in (KNOWN_BLOCK_SIZE_ATTR, KNOWN_GRID_SIZE_ATTR):
        if _size_triple(attr) is None:
            raise VerifyError(
                f"'{name}' must be an array of 3 positive i32 values (array<i32: x, y, z>), "
                f"got {attr.text}"
            )
        if not isinstance(op, _FUNCTIONS):
            raise VerifyError(f"'{name}' is only allowed on 'func.func' or 'llvm.func'")
        return
    raise VerifyError(f"unknown gpu attribute '{name}'")


# ---------------------------------------------------------------------------------------------
# ids and dimensions
# ---------------------------------------------------------------------------------------------


class _DimensionOp(Operation):
    """``%r = gpu.<op> x`` -> index."""

    assembly_format = "$dimension attr-dict"

    traits = (Pure,)
    dimension = prop(DimensionAttr)
    result = result(index)

    def __init__(self, dimension: str | DimensionAttr, loc: Location | None = None):
        dim = dimension if isinstance(dimension, DimensionAttr) else DimensionAttr(dimension)
        super().__init__(result_types=[index], properties={"dimension": dim}, loc=loc)

    @property
    def dim_index(self) -> int:
        return self.dimension.index


class ThreadIdOp(_DimensionOp):
    """``gpu.thread_id x``: the thread's index within its block (0 when the known block size
    is 1 in that dimension)."""

    name = "gpu.thread_id"

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        sizes = known_block_size(self)
        if sizes is not None and sizes[self.dim_index] == 1:
            return [IntegerAttr(0, index)]
        return None


class BlockIdOp(_DimensionOp):
    """``gpu.block_id x``: the block's index within the grid."""

    name = "gpu.block_id"


class BlockDimOp(_DimensionOp):
    """``gpu.block_dim x``: threads per block (a constant under ``gpu.known_block_size``)."""

    name = "gpu.block_dim"

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        sizes = known_block_size(self)
        if sizes is not None:
            return [IntegerAttr(sizes[self.dim_index], index)]
        return None


class GridDimOp(_DimensionOp):
    """``gpu.grid_dim x``: blocks per grid."""

    name = "gpu.grid_dim"


class LaneIdOp(Operation):
    """``gpu.lane_id``: the thread's index within its warp (0..31)."""

    name = "gpu.lane_id"
    assembly_format = "attr-dict"
    traits = (Pure,)
    result = result(index)

    def __init__(self, loc: Location | None = None):
        super().__init__(result_types=[index], loc=loc)


# ---------------------------------------------------------------------------------------------
# synchronization and communication
# ---------------------------------------------------------------------------------------------


class BarrierOp(Operation):
    """``gpu.barrier``: wait for every thread of the block; orders their memory accesses.

    It has memory effects (no ``Pure``): it must not move across loads and stores.
    """

    name = "gpu.barrier"
    assembly_format = "attr-dict"

    def __init__(self, loc: Location | None = None):
        super().__init__(loc=loc)


_PrintfArg = Constraint(
    lambda t: isinstance(t, (IntegerType, IndexType, FloatType)), "integer, index or float"
)

# C's printf conversions as CUDA's vprintf reads them: (length modifier, conversion) -> the
# class of argument it consumes after C's default promotions.
_INT_CONVERSIONS = frozenset("diouxXc")
_FLOAT_CONVERSIONS = frozenset("fFeEgGaA")


def printf_conversions(fmt: str) -> list[str]:
    """The arguments ``fmt`` consumes, in order: ``"i32"`` (int conversions without a length
    modifier, or h/hh), ``"i64"`` (l, ll, j, z, t) or ``"f64"`` (floating conversions); raises
    ValueError for what vprintf cannot print from a register value (%s, %p, %n, ``*``)."""
    out: list[str] = []
    i, n = 0, len(fmt)
    while i < n:
        if fmt[i] != "%":
            i += 1
            continue
        i += 1
        if i < n and fmt[i] == "%":
            i += 1
            continue
        while i < n and fmt[i] in "-+ #0":
            i += 1
        while i < n and (fmt[i].isdigit() or fmt[i] == "."):
            i += 1
        if i < n and fmt[i] == "*":
            raise ValueError("a '*' width or precision is not supported: write the number")
        length = ""
        while i < n and fmt[i] in "hljztL":
            length += fmt[i]
            i += 1
        if i >= n:
            raise ValueError("the format ends inside a conversion")
        conv = fmt[i]
        i += 1
        if conv in _INT_CONVERSIONS and length in ("", "h", "hh"):
            out.append("i32")
        elif conv in _INT_CONVERSIONS and length in ("l", "ll", "j", "z", "t"):
            out.append("i64")
        elif conv in _FLOAT_CONVERSIONS and length in ("", "l"):
            out.append("f64")
        else:
            raise ValueError(f"the conversion '%{length}{conv}' is not supported")
    return out


def printf_argument_class(t: Type) -> str:
    """What a value of type ``t`` becomes after C's default promotions (vprintf's buffer)."""
    if isinstance(t, FloatType):
        return "f64"
    if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width > 32):
        return "i64"
    return "i32"


class PrintfOp(Operation):
    """``gpu.printf "%d: %f\\n", %i, %x : i32, f32``: C's printf from every thread that runs it
    (MLIR's op; CUDA's vprintf on the GPU, the C library's printf on the CPU runtime). Integers
    narrower than 32 bits widen to i32 and floats to f64, as C's default promotions; the
    format's conversions must consume exactly the arguments, each of its class."""

    name = "gpu.printf"
    format = prop(StringAttr)
    args = var_operand(_PrintfArg)
    assembly_format = "$format attr-dict (`,` $args^ `:` type($args))?"

    def __init__(self, fmt: str, args: Sequence[Value] = (), loc: Location | None = None):
        super().__init__(operands=[list(args)], properties={"format": StringAttr(fmt)}, loc=loc)

    def verify_(self) -> None:
        try:
            wanted = printf_conversions(self.format.value)
        except ValueError as e:
            raise VerifyError(f"format {self.format.text}: {e}") from None
        if len(wanted) != len(self.args):
            raise VerifyError(
                f"format {self.format.text} has {len(wanted)} conversions but the op has "
                f"{len(self.args)} arguments"
            )
        for k, (want, v) in enumerate(zip(wanted, self.args)):
            have = printf_argument_class(v.type)
            if have != want:
                what = {"i32": "an int conversion", "i64": "a long conversion (%ld, %lld)"}
                raise VerifyError(
                    f"argument #{k} has type '{v.type.text}' but conversion #{k} of the format "
                    f"expects {what.get(want, 'a floating conversion (%f, %e, %g)')}"
                )


_ShuffleValue = Constraint(
    lambda t: (
        t in (IntegerType(32), IntegerType(64))
        or (isinstance(t, FloatType) and t.text in ("f32", "f64"))
    ),
    "i32, i64, f32 or f64",
)


class ShuffleOp(Operation):
    """``%v, %ok = gpu.shuffle xor %x, %offset, %width : f32``: read ``%x`` of another lane
    of the warp (``xor``/``up``/``down`` relative to the lane, ``idx`` absolute) among the
    first ``%width`` lanes; ``%ok`` says whether that lane was in range.

    No memory effects, but not speculatable: every lane of the warp must execute it.
    """

    name = "gpu.shuffle"
    assembly_format = "$mode $value `,` $offset `,` $width attr-dict `:` type($value)"
    traits = (NoMemoryEffect,)
    value = operand(_ShuffleValue)
    offset = operand(i32)
    width = operand(i32)
    mode = prop(ShuffleModeAttr)
    shuffleResult = result(_ShuffleValue)
    valid = result(i1)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Type], props: Any) -> list[Type]:
        """The shuffled value keeps its type; ``valid`` is an ``i1``."""
        return [operand_types[0], i1]

    def __init__(
        self,
        mode: str | ShuffleModeAttr,
        value: Value,
        offset: Value,
        width: Value,
        loc: Location | None = None,
    ):
        m = mode if isinstance(mode, ShuffleModeAttr) else ShuffleModeAttr(mode)
        super().__init__(
            operands=[value, offset, width],
            result_types=[value.type, i1],
            properties={"mode": m},
            loc=loc,
        )

    def verify_(self) -> None:
        if self.shuffleResult.type is not self.value.type:
            raise VerifyError(
                f"result type '{self.shuffleResult.type.text}' must match the shuffled value's "
                f"type '{self.value.type.text}'"
            )


def _materialize_constant(
    builder: Builder, value: Attribute, type: Type, loc: Location
) -> Operation | None:
    """Folded ids and sizes are ``index`` constants: ``arith.constant``."""
    if isinstance(value, IntegerAttr) and value.type is type:
        from .arith import ConstantOp

        return builder.create(ConstantOp, value, loc=loc)
    return None


ALL_OPS: tuple[type[Operation], ...] = (
    ThreadIdOp,
    BlockIdOp,
    BlockDimOp,
    GridDimOp,
    LaneIdOp,
    BarrierOp,
    ShuffleOp,
    PrintfOp,
)

DIALECT = Dialect(
    "gpu",
    ops=ALL_OPS,
    attributes=[DimensionAttr, ShuffleModeAttr],
    materialize_constant=_materialize_constant,
    verify_operation_attribute=_verify_operation_attribute,
)


def dimension_ops() -> dict[str, Any]:
    """Op class per id/size name, for front ends (``{"thread_id": ThreadIdOp, ...}``)."""
    return {
        cls.name.split(".", 1)[1]: cls for cls in (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp)
    }
