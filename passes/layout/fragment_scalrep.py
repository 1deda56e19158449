"""``fragment-scalrep``: scalar replacement of register-fragment elements (MLIR's
``affine-scalrep`` for ``tile.alloc_fragment``).

lower-algorithms builds every access to a register fragment's element at a static coordinate
as ``tile.load``/``tile.store`` at a static offset of the fragment's pointer (``tile.get_ptr``
of the ``tile.alloc_fragment``). An unrolled MMA body is mostly such accesses: each
``tile.mma`` loads its A, B and C elements and stores its C results, and each ``tile.ldmatrix``
stores what it read, so the sm80 GEMM's main loop holds about 2,000 of them, which every later
pass, the translation, libNVVM (SROA) and the CPU JIT (mem2reg) carry and then remove. This pass
removes them where they are made:

- **Loop promotion** (:func:`promote_loop_carried`): the elements of a fragment that a loop
  only accesses by such loads and stores directly in its body are carried through the
  ``scf.for`` as iteration arguments (MLIR's affine-scalrep with LICM's scalar promotion), and
  stored back after it only where something may read the fragment later.
- **Store-to-load forwarding**: a load of an element that the same block stored (or loaded)
  earlier, with no other access to the fragment in between, is replaced by that value.
- **Dead stores**: a store overwritten by a later store of the same block, with no read in
  between, is erased, and after promotion so are the stores of a fragment nothing reads.

It is what mem2reg/SROA do to the same code afterwards (docs/layout-passes.md has the rules
and what it changes in the PTX). Fragments of 16-bit elements are not promoted: their pairs
stay packed through memory (passes/conversion/fragment_pairs.py). Conservative by
construction: a fragment whose pointer or tensor flows anywhere other than these accesses and
pure views (a region op's operand, a terminator, a stored value) is left alone, any other op
that uses it (a vector access, an ``ldmatrix`` into it, a call) counts as reading and writing
all of it, and an op with regions that contains any access to the fragment does so too.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.block import Region
from layoutc.ir.core.function_like import FunctionLike
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import NoMemoryEffect, Terminator
from layoutc.ir.dialects import scf
from layoutc.ir.dialects import tile as T
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from ..analysis.symbolic import SymbolicAnalysis
from ..base import Pass, Statistic
from ..registry import register_pass
from .lowering import fragment_pointer

__all__ = [
    "FragmentScalrep",
    "erase_write_only_stores",
    "promote_loop_carried",
    "scalar_replace_fragments",
]

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
        # ordered sets (promotion adds and removes accesses)
        self.loads: dict[Operation, None] = {}
        self.stores: dict[Operation, None] = {}
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
                    (frag.loads if cls is T.LoadOp else frag.stores)[op] = None
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


def scalar_replace_fragments(
    root: Operation, fragments: list[tuple[Operation, _Fragment]] | None = None
) -> tuple[int, int]:
    """Forward stores to loads and erase dead stores of the register fragments in ``root``
    (``fragments``: those of ``_fragments(root)``, kept up to date); return (loads replaced,
    stores erased)."""
    access: dict[Operation, tuple[int, _Fragment, int]] = {}
    clobber: dict[Operation, list[_Fragment]] = {}
    touches: dict[Operation, set[_Fragment]] = {}  # region ops -> fragments accessed inside
    for _alloc, frag in _fragments(root) if fragments is None else fragments:
        if not (frag.loads or frag.stores):
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


def _fragments(root: Operation) -> list[tuple[Operation, _Fragment]]:
    """Every register fragment in ``root`` whose pointer does not escape, with its uses."""
    found = []
    for alloc in root.walk_ops():
        if type(alloc) is T.AllocFragmentOp:
            frag = _classify(alloc)
            if not frag.escaped:
                found.append((alloc, frag))
    return found


def _within(op: Operation, loop: Operation) -> bool:
    parent = op.parent_op
    while parent is not None:
        if parent is loop:
            return True
        parent = parent.parent_op
    return False


def promote_loop_carried(
    root: Operation, fragments: list[tuple[Operation, _Fragment]] | None = None
) -> int:
    """Carry fragment elements through ``scf.for`` loops as iteration arguments (MLIR's
    affine-scalrep with LICM's scalar promotion); return how many elements were promoted.

    A fragment qualifies for a loop when every access to it inside the loop is a static-offset
    load or store directly in the loop's body (loops nested inside were promoted first, which
    leaves their accesses there) and the allocation is outside the loop. An element the body
    reads before it stores it is an iteration argument whose value before the loop is loaded
    right before the loop; an element the body only reads is loaded once before the loop; the
    body's loads read the current value. The memory holds the same values after the loop as
    it did (the loop's results are stored back right after it), unless nothing can read the
    fragment after the loop (the loop is at the top of a function and every other read of the
    fragment comes before it): then nothing is stored back, and an element the body writes
    before it reads it is not carried at all. The block-local forwarding that follows removes
    the loads and stores this leaves around the loop.
    """
    if fragments is None:
        fragments = _fragments(root)
    if not fragments:
        return 0
    loops = [op for op in root.walk_ops() if type(op) is scf.ForOp]
    promoted = 0
    # 16-bit elements stay in memory: convert-to-llvm moves an MMA register's two halves as
    # one 32-bit access (fragment_pairs.py), which keeps the pair packed through the loop;
    # carried one by one, the halves are repacked every iteration
    fragments = [(a, f) for a, f in fragments if a.results[0].type.element_bits >= 32]
    for loop in reversed(loops):  # nested loops before the loops around them
        for alloc, frag in fragments:
            if _within(alloc, loop) or any(_within(c, loop) for c in frag.clobbers):
                continue
            by_parent: dict[Any, list[Operation]] = {}
            for access in (*frag.loads, *frag.stores):
                by_parent.setdefault(access.parent_op, []).append(access)
            if any(p is not loop and p is not None and _within(p, loop) for p in by_parent):
                continue  # an access in an scf.if or a loop that was not promoted
            inside = by_parent.get(loop)
            if not inside:
                continue
            loop, count = _promote(loop, alloc, frag, set(inside), _read_after(loop, frag))
            promoted += count
    return promoted


def _read_after(loop: Operation, frag: _Fragment) -> bool:
    """Whether a load or anything else that may read ``frag`` can run after ``loop``: true
    unless the loop is at the top of a function's body and every such op outside the loop
    comes before it there."""
    block = loop.parent
    if not isinstance(loop.parent_op, FunctionLike):
        return True
    for op in (*frag.loads, *frag.clobbers):
        while op is not None and op.parent is not block:
            op = op.parent_op
        if op is loop:
            continue  # the loop's own accesses
        if op is None or loop.is_before_in_block(op):
            return True
    return False


def _promote(
    loop: Any, alloc: Operation, frag: _Fragment, inside: set[Operation], read_after: bool
) -> tuple[Any, int]:
    """Promote ``frag``'s accesses ``inside`` (all directly in ``loop``'s body); return the
    loop that replaces ``loop`` and how many elements it carries for ``frag``."""
    offsets = frag.offsets
    first: dict[int, type] = {}  # element -> the kind of the body's first access to it
    for op in loop.body_block.ops:
        if op in inside:
            first.setdefault(offsets[op], type(op))
    stored = {offsets[a] for a in inside if type(a) is T.StoreOp}
    carried = sorted(o for o in stored if read_after or first[o] is T.LoadOp)
    loaded = [o for o in sorted(first) if o in carried or o not in stored]
    ptr = fragment_pointer(alloc)
    block = loop.parent
    loc = loop.location
    current: dict[int, Any] = {}
    for offset in loaded:
        load = T.LoadOp.at_offset(ptr, offset, loc)
        block.insert_before(load, loop)
        frag.loads[load] = None
        offsets[load] = offset
        current[offset] = load.results[0]
    n = len(loop.results)
    extra = [current[o] for o in carried]
    new = scf.ForOp.create(
        operands=[*loop.operands, *extra],
        result_types=[*(r.type for r in loop.results), *(v.type for v in extra)],
        properties=loop.properties,
        attributes=loop.attributes,
        regions=[Region()],
        loc=loc,
    )
    new.body.take_body(loop.body)
    body = new.body_block
    for offset in carried:
        current[offset] = body.add_argument(current[offset].type, loc)
    for op in list(body.ops):
        if op not in inside:
            continue
        offset = offsets.pop(op)
        if type(op) is T.LoadOp:
            op.results[0].replace_all_uses_with(current[offset])
            del frag.loads[op]
        else:
            current[offset] = op.operands[0]
            del frag.stores[op]
        op.erase()
    terminator = body.last_op
    terminator.set_operands([*terminator.operands, *(current[o] for o in carried)])
    block.insert_before(new, loop)
    for old, value in zip(loop.results, new.results[:n]):
        old.replace_all_uses_with(value)
    loop.erase()
    if read_after:
        anchor = new
        for offset, result in zip(carried, new.results[n:]):
            store = T.StoreOp.at_offset(result, ptr, offset, loc)
            block.insert_after(store, anchor)
            anchor = store
            frag.stores[store] = None
            offsets[store] = offset
    return new, len(carried)


def erase_write_only_stores(fragments: list[tuple[Operation, _Fragment]]) -> int:
    """Erase the stores of fragments that nothing reads (no load and nothing else that may
    read them); return how many. Promotion and forwarding leave an MMA's A and B fragments
    so: their values before the main loop are forwarded into it, and nothing reads them
    after it."""
    erased = 0
    for _alloc, frag in fragments:
        if frag.loads or frag.clobbers:
            continue
        for store in frag.stores:
            store.erase()
            erased += 1
        frag.stores.clear()
    return erased


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
                        del frag.loads[op]
                        self.replaced += 1
                else:
                    if entry is not None and entry[1] is not None:
                        entry[1].erase()
                        del frag.stores[entry[1]]
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
    summary = (
        "Carry register-fragment elements through loops, forward stores to loads, erase dead stores"
    )
    description = (
        "Register-fragment elements that a loop accesses only by static loads and stores in "
        "its body are carried through the scf.for as iteration arguments; within each block, "
        "a tile.load of an element that the block stored or loaded before becomes that value, "
        "and a store that a later store of the block overwrites unread is erased; fragments "
        "whose pointer escapes are left alone (mem2reg before lowering)."
    )

    num_promoted = Statistic("Fragment elements carried through loops as iteration arguments")
    num_forwarded = Statistic("Fragment loads replaced by the value stored or loaded before")
    num_erased = Statistic("Dead fragment stores erased")

    def run_on_operation(self, op: Any) -> None:
        fragments = _fragments(op)
        promoted = promote_loop_carried(op, fragments)
        replaced, erased = scalar_replace_fragments(op, fragments)
        unread = erase_write_only_stores(fragments) if promoted else 0
        self.num_promoted += promoted
        self.num_forwarded += replaced
        self.num_erased += erased + unread
        if not (promoted or replaced or erased):
            self.mark_all_analyses_preserved()
            return
        # only element loads and stores of fragments went (a load's uses take the element
        # value it would have read): no index value changes, so what the symbolic analysis
        # knows stays true for lower-layouts
        self.mark_analyses_preserved(SymbolicAnalysis)
