"""The state one algorithm lowering works with: the analysis, a builder and an index emitter
positioned at the op, the unrolling budget, and helpers to turn symbolic coordinates into the
operands of ``tile.load``/``tile.store``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.algebra.symbolic import SymInt
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.location import Location
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.tile import coords as C
from layoutc.ir.dialects.tile.types import TensorType

from ..analysis.emitter import IndexEmitter
from ..analysis.symbolic import SymbolicAnalysis
from .loops import DEFAULT_UNROLL_LIMIT, Dim, build_nest, choose_unrolling

__all__ = ["Lowering"]


class Lowering:
    """Builds the replacement of one algorithm op, just before it."""

    def __init__(
        self,
        analysis: SymbolicAnalysis,
        builder: Builder,
        emitter: IndexEmitter,
        op: Operation,
        unroll_limit: int = DEFAULT_UNROLL_LIMIT,
        fragment_addresses: dict[Any, tuple[Value, int] | None] | None = None,
        known_elements: dict[Operation, Any] | None = None,
    ):
        self.analysis = analysis
        self.builder = builder
        self.emitter = emitter
        self.op = op
        self.loc: Location = op.location
        self.unroll_limit = unroll_limit
        # (tensor, coordinate) -> (fragment pointer, element offset), or None: an unrolled gemm
        # addresses each A and B element once per use and each C element twice per k-step, and
        # the gemms of a main loop's k-blocks the same C elements (the pass shares the memo
        # between its lowerings: what it knows of existing values and the pointers made right
        # after the allocations stay true while it runs; it starts a new one when a failed
        # lowering erases what it built)
        self._fragment_addresses: dict[Any, tuple[Value, int] | None] = (
            {} if fragment_addresses is None else fragment_addresses
        )
        # register fragment (its allocation) -> what the gemm lowerings of the pass know of
        # its elements (lower_gemm.py: KnownElements); None: they build every access
        self.known_elements: dict[Operation, Any] | None = known_elements
        builder.insertion_point = InsertionPoint.before_op(op)
        builder.loc = op.location
        emitter.loc = op.location

    def coordinate(self, coord: Any) -> Any:
        """A coordinate with SymInt entries replaced by emitted ``index`` values."""
        if type(coord) is tuple:
            # the unrolled bodies' coordinates: flat tuples of non-negative ints, kept as they are
            for c in coord:
                if type(c) is not int or c < 0:
                    break
            else:
                return coord
            return tuple([self.coordinate(c) for c in coord])
        if isinstance(coord, tuple):
            return tuple([self.coordinate(c) for c in coord])
        if isinstance(coord, SymInt):
            return self.emitter.emit(coord)
        if type(coord) is int:
            if coord < 0:
                raise ValueError(f"negative coordinate {coord}")
            return coord
        if isinstance(coord, Value):
            return coord
        raise TypeError(f"unexpected coordinate entry {coord!r}")

    def nest(self, dims: Sequence[Dim], body: Any) -> None:
        """Choose unrolling and build the loop nest with ``body(builder, point)``."""
        choose_unrolling(dims, self.unroll_limit)
        build_nest(self.analysis, self.builder, self.emitter, dims, body, self.loc)

    def create(self, cls: Any, *args: Any, **kwargs: Any) -> Operation:
        kwargs.setdefault("loc", self.loc)
        if cls is TD.LoadOp or cls is TD.StoreOp:
            direct = self._fragment_access(cls, args, kwargs["loc"])
            if direct is not None:
                return direct
        return self.builder.create(cls, *args, **kwargs)

    def _fragment_access(self, cls: Any, args: tuple, loc: Location) -> Operation | None:
        """``tile.load``/``tile.store`` of a register fragment's element at a static coordinate,
        built as lower-layouts would rewrite it: at the element offset of the fragment's own
        pointer (``tile.get_ptr`` right after its ``tile.alloc_fragment``, which lower-layouts
        keeps as it is). The unrolled gemm and copy bodies are mostly such accesses (2,000 of
        a GEMM's 2,400), and building them once instead of as a coordinate access that
        lower-layouts rebuilds is the same IR for less work. None: not such an access (the
        general op is built, and its errors are reported as before)."""
        tensor, coord = (args[0], args[1]) if cls is TD.LoadOp else (args[1], args[2])
        if len(args) != (2 if cls is TD.LoadOp else 3) or not isinstance(coord, (int, tuple)):
            return None
        address = self.fragment_address(tensor, coord)
        if address is None:
            return None
        ptr, offset = address
        if cls is TD.LoadOp:
            return self.builder.insert(TD.LoadOp.at_offset(ptr, offset, loc))
        return self.builder.insert(TD.StoreOp.at_offset(args[0], ptr, offset, loc))

    def fragment_address(self, tensor: Any, coord: Any) -> tuple[Value, int] | None:
        """The fragment pointer and element offset of a static coordinate of a register
        fragment's tensor (memoised), else None."""
        try:
            return self._fragment_addresses[tensor, coord]
        except KeyError:
            address = self._fragment_addresses[tensor, coord] = self._fragment_address(
                tensor, coord
            )
            return address
        except TypeError:  # an unhashable coordinate entry
            return self._fragment_address(tensor, coord)

    def _fragment_address(self, tensor: Any, coord: Any) -> tuple[Value, int] | None:
        """The fragment pointer and element offset of a static coordinate of a register
        fragment's tensor, else None."""
        t = tensor.type
        if not isinstance(t, TensorType) or t.space != "rmem":
            return None
        info = self.analysis.tensor_of(tensor)
        alloc = info.base.defining_op if info.base is not None else None
        if not isinstance(alloc, TD.AllocFragmentOp) or type(info.offset) is not int:
            return None
        try:
            if not C.is_static(coord):
                pattern, dynamic = C.pattern_of_value(coord)
                if dynamic:
                    return None
                coord = C.substitute(pattern, [])
            offset = info.offset + self.analysis.layout_offset(info.layout, coord)
        except (LayoutError, TypeError, ValueError):
            return None
        if type(offset) is not int or offset < 0:
            return None
        return fragment_pointer(alloc), offset


def fragment_pointer(alloc: Operation) -> Value:
    """The ``tile.get_ptr`` of a fragment, right after its allocation (made once), as
    lower-layouts places the pointer of an allocation."""
    nxt = alloc.next_op
    result = alloc.results[0]
    if isinstance(nxt, TD.GetPtrOp) and nxt.operands[0] is result:
        return nxt.results[0]
    get = TD.GetPtrOp(result, loc=alloc.location)
    alloc.parent.insert_after(get, alloc)
    return get.results[0]
