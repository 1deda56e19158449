"""``fragment-scalrep``: scalar replacement of register-fragment elements (MLIR's
``affine-scalrep`` for ``tile.alloc_fragment``).

lower-algorithms builds every access to a register fragment's element at a static coordinate
as ``tile.load``/``tile.store`` at a static offset of the fragment's pointer (``tile.get_ptr``
of the ``tile.alloc_fragment``). An unrolled MMA body is mostly such accesses: each
``tile.mma`` loads its A, B and C elements and stores its C results, and each ``tile.ldmatrix``
stores what it read, so the sm80 GEMM's main loop holds about 2,000 of them, which every later
pass, the translation, libNVVM (SROA) and the CPU JIT (mem2reg) carry and then remove. This pass
removes most of them where they are made, within each block:

- **Store-to-load forwarding**: a load of an element that the same block stored (or loaded)
  earlier, with no other access to the fragment in between, is replaced by that value.
- **Dead stores**: a store overwritten by a later store of the same block, with no read in
  between, is erased.

It is what mem2reg/SROA do to the same code afterwards; the values that cross a loop
iteration or a region stay in the fragment (each block starts knowing nothing), and so does
every store that is not overwritten in its block, even of an element no load reads any more:
erasing those too (a fragment's elements that only the block reads) changed how libNVVM's SROA
orders the values it promotes, and with it the PTX's register numbering, the SASS schedule and
ptxas's register count (conv3d's gather kernel 160 to 164 registers); without it the PTX of the
GEMMs and convolutions is byte-identical to the PTX made without the pass. Conservative by
construction: a fragment whose pointer or
tensor flows anywhere other than these accesses and pure views (a region op's operand, a
terminator, a stored value) is left alone, any other op that uses it (a vector access, an
``ldmatrix`` into it, a call) counts as reading and writing all of it, and an op with regions
that contains any access to the fragment does so too.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import NoMemoryEffect, Terminator
from layoutc.ir.dialects import tile as T
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from ..analysis.symbolic import SymbolicAnalysis
from ..base import Pass, Statistic
from ..registry import register_pass

__all__ = ["FragmentScalrep", "scalar_replace_fragments"]

_LOAD, _STORE = 0, 1


def _static_offset(op: Any) -> int | None:
    """The element offset of a pointer access without index operands, else None."""
    if len(op._operands) != (1 if type(op) is T.LoadOp else 2):
        return None
    try:
        return int(op.coord.value)
    except ValueError:
        return None


class _Fragment:
    """What one ``tile.alloc_fragment`` is used by."""

    __slots__ = ("clobbers", "escaped", "loads", "offsets", "stores")

    def __init__(self) -> None:
        self.clobbers: list[Operation] = []  # other ops that may read or write it
        self.escaped = False
        self.loads: list[Operation] = []
        self.stores: list[Operation] = []
        self.offsets: dict[Operation, int] = {}  # of each load and store


def _classify(alloc: Operation) -> _Fragment:
    """Follow the fragment's tensor and pointers through pure views to their accesses. Only an
    access through a ``tile.get_ptr`` of the allocation itself is tracked (its offset counts the
    fragment's elements); one through any other view is a clobber."""
    frag = _Fragment()
    base = alloc.results[0]
    work = [base]
    seen = set()
    while work:
        value = work.pop()
        for use in value.uses:
            op = use.owner
            cls = type(op)
            if cls is T.LoadOp or cls is T.StoreOp:
                if cls is T.StoreOp and use.index == 0:  # the pointer itself is stored
                    frag.escaped = True
                    return frag
                direct = value.defining_op
                offset = None
                if type(direct) is T.GetPtrOp and direct.operands[0] is base:
                    offset = _static_offset(op)
                if offset is not None:
                    (frag.loads if cls is T.LoadOp else frag.stores).append(op)
                    frag.offsets[op] = offset
                else:
                    frag.clobbers.append(op)
                continue
            if op.regions or op.has_trait(Terminator):
                frag.escaped = True
                return frag
            if op.has_trait(NoMemoryEffect):
                if op not in seen:
                    seen.add(op)
                    work.extend(r for r in op.results if isinstance(r.type, (PtrType, TensorType)))
                continue
            frag.clobbers.append(op)
    return frag


def scalar_replace_fragments(root: Operation) -> tuple[int, int]:
    """Forward stores to loads and erase dead stores of the register fragments in ``root``;
    return (loads replaced, stores erased)."""
    access: dict[Operation, tuple[int, _Fragment, int]] = {}
    clobber: dict[Operation, list[_Fragment]] = {}
    touches: dict[Operation, set[_Fragment]] = {}  # region ops -> fragments accessed inside
    for alloc in root.walk_ops():
        if type(alloc) is not T.AllocFragmentOp:
            continue
        frag = _classify(alloc)
        if frag.escaped or not (frag.loads or frag.stores):
            continue
        offsets = frag.offsets
        for kind, ops in ((_LOAD, frag.loads), (_STORE, frag.stores)):
            for op in ops:
                access[op] = (kind, frag, offsets[op])
        for op in frag.clobbers:
            clobber.setdefault(op, []).append(frag)
        for op in (*frag.loads, *frag.stores, *frag.clobbers):
            parent = op.parent_op
            while parent is not None and parent is not root:
                inside = touches.setdefault(parent, set())
                if frag in inside:
                    break
                inside.add(frag)
                parent = parent.parent_op
    if not access:
        return 0, 0
    walk = _Forwarding(access, clobber, touches)
    for top in root.regions:
        for block in top.blocks:
            walk.visit(block)
    return walk.replaced, walk.erased


class _Forwarding:
    """The walk of scalar_replace_fragments over blocks (a class, not a self-recursive closure:
    that is a reference cycle holding every access until the cyclic collector runs)."""

    __slots__ = ("access", "clobber", "erased", "replaced", "touches")

    def __init__(
        self,
        access: dict[Operation, tuple[int, _Fragment, int]],
        clobber: dict[Operation, list[_Fragment]],
        touches: dict[Operation, set[_Fragment]],
    ) -> None:
        self.access = access
        self.clobber = clobber
        self.touches = touches
        self.replaced = 0
        self.erased = 0

    def visit(self, block: Any) -> None:
        access, clobber, touches = self.access, self.clobber, self.touches
        # per fragment: element offset -> (its value now, the store that wrote it and that
        # nothing has read since, or None)
        known: dict[_Fragment, dict[int, tuple[Any, Operation | None]]] = {}
        for op in list(block.ops):
            found = access.get(op)
            if found is not None:
                kind, frag, offset = found
                slots = known.get(frag)
                if slots is None:
                    slots = known[frag] = {}
                entry = slots.get(offset)
                if kind == _LOAD:
                    if entry is None:
                        slots[offset] = (op.results[0], None)
                    else:
                        op.results[0].replace_all_uses_with(entry[0])
                        op.erase()
                        self.replaced += 1
                else:
                    if entry is not None and entry[1] is not None:
                        entry[1].erase()
                        self.erased += 1
                    slots[offset] = (op.operands[0], op)
                continue
            if op.regions:
                for region in op.regions:
                    for nested in region.blocks:
                        self.visit(nested)
                for frag in touches.get(op, ()):
                    known.pop(frag, None)
            for frag in clobber.get(op, ()):
                known.pop(frag, None)


@register_pass
class FragmentScalrep(Pass):
    argument = "fragment-scalrep"
    summary = "Forward register-fragment stores to loads and erase dead fragment stores"
    description = (
        "Within each block, a tile.load of a register fragment's element at a static offset "
        "that the block stored or loaded before becomes that value, and a store that a later "
        "store of the block overwrites unread is erased; fragments whose pointer escapes are "
        "left alone (mem2reg before lowering)."
    )

    num_forwarded = Statistic("Fragment loads replaced by the value stored or loaded before")
    num_erased = Statistic("Dead fragment stores erased")

    def run_on_operation(self, op: Any) -> None:
        replaced, erased = scalar_replace_fragments(op)
        self.num_forwarded += replaced
        self.num_erased += erased
        if not (replaced or erased):
            self.mark_all_analyses_preserved()
            return
        # only element loads and stores of fragments went (a load's uses take the element
        # value it would have read): no index value changes, so what the symbolic analysis
        # knows stays true for lower-layouts
        self.mark_analyses_preserved(SymbolicAnalysis)
