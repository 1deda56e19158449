"""Lowering of ``tile.gemm`` (C += A * B) in the five mode forms of CuTe's gemm
(cute-docs/04_algorithms.md):

=====================================  ===========================================
``(V) x (V) => (V)``                   ``C(v) += A(v) * B(v)``
``(M) x (N) => (M,N)``                 ``C(m,n) += A(m) * B(n)``
``(M,K) x (N,K) => (M,N)``             ``C(m,n) += A(m,k) * B(n,k)``
``(V,M) x (V,N) => (V,M,N)``           ``C(v,m,n) += A(v,m) * B(v,n)``
``(V,M,K) x (V,N,K) => (V,M,N)``       ``C(v,m,n) += A(v,m,k) * B(v,n,k)``
=====================================  ===========================================

Loops run K outermost, then M, N and V innermost (CuTe's order, which keeps C in registers
across K). With the FMA atom each point is one multiply-add in C's element type (A and B
converted first); with an MMA atom the V mode is the atom's per-thread values and each
(m, n, k) is one ``tile.mma`` on the values of A(:, m, k), B(:, n, k) and C(:, m, n), whose
results are stored back to C. Dimensions that index a register fragment are unrolled.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.layout import rank, size
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import NoMemoryEffect, Terminator
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.tile.types import PtrType, TensorType

from .loops import Dim, LoweringError, choose_unrolling
from .lowering import Lowering
from .scalars import mul_add

__all__ = ["KnownElements", "flush_known", "lower_gemm"]

# ranks of (A, B, C) -> the modes of A, B and C, by letter
_FORMS: dict[tuple[int, int, int], tuple[str, str, str]] = {
    (1, 1, 1): ("V", "V", "V"),
    (1, 1, 2): ("M", "N", "MN"),
    (2, 2, 2): ("MK", "NK", "MN"),
    (2, 2, 3): ("VM", "VN", "VMN"),
    (3, 3, 3): ("VMK", "VNK", "VMN"),
}
_ORDER = "VNMK"  # innermost first


def _extent(letter: str, infos: list[Any], forms: tuple[str, str, str]) -> Any:
    """The extent of a mode letter: a static size among the operands that have it, else C's,
    A's or B's (dynamic extents must agree at run time, as in CuTe)."""
    found = []
    for info, form in zip(infos, forms):
        if letter in form:
            found.append(
                size(info.layout, form.index(letter)) if len(form) > 1 else size(info.layout)
            )
    for x in found:
        if type(x) is int:
            return x
    return found[-1]


class KnownElements:
    """What the unrolled MMA gemms into a register fragment that this pass lowered know of
    its C elements, in ``block`` right after ``after`` (the last op the last of them built):
    each element's value (by element offset), and the stores of C not built yet (``pending``).

    The next gemm into the fragment, further down the same block with nothing between that
    may touch the fragment, takes those values instead of loading them, and its store of an
    element replaces the pending one (an MMA main loop's k-blocks: each gemm reads the C
    values the one before wrote and overwrites them). fragment-scalrep's block-local
    forwarding would replace each of those loads by the same value and erase each of those
    stores (overwritten, unread): they are not built in the first place, and the rest is left
    to it as before. Only under its conditions: the fragment's pointer and tensor flow only
    through pure views to accesses (:func:`_derived`), no op between the two gemms (or in its
    regions) has an operand derived from the fragment, A and B belong to other allocations,
    and every access of C is a static element access. Pending stores are built where they
    would have been (right after their ``tile.mma``, in order) as soon as the values no
    longer hold, and at the end of the pass (:func:`flush_known`)."""

    __slots__ = ("after", "block", "pending", "values")

    def __init__(self, block: Any) -> None:
        self.block: Any = block  # None: forgotten
        self.after: Operation | None = None
        self.values: dict[int, Value] = {}
        # element offset -> (the tile.mma, its result index, the pointer, the location)
        self.pending: dict[int, tuple[Operation, int, Value, Any]] = {}

    def forget(self) -> None:
        """Know nothing from here on (an access of C that is not a static element access)."""
        self.block = None
        self.values.clear()

    def build_pending(self) -> None:
        """Build the stores not built yet, right after their ``tile.mma`` in result order."""
        by_mma: dict[Operation, list[tuple[int, int, Value, Any]]] = {}
        for offset, (mma, index, ptr, loc) in self.pending.items():
            by_mma.setdefault(mma, []).append((index, offset, ptr, loc))
        self.pending = {}
        for mma, stores in by_mma.items():
            stores.sort(key=lambda x: x[0])
            anchor = mma
            for index, offset, ptr, loc in stores:
                store = TD.StoreOp.at_offset(mma.results[index], ptr, offset, loc)
                mma.parent.insert_after(store, anchor)
                anchor = store

    def valid_before(self, op: Operation, derived: set[Value]) -> bool:
        """Whether the values still hold at ``op`` (and pending stores may still go), given
        the values ``derived`` from the fragment."""
        after = self.after
        if after is None or op.parent is not self.block or after.parent is not self.block:
            return False
        cur = after._next
        while cur is not op:
            if cur is None or _touches(cur, derived):
                return False
            cur = cur._next
        return True


def flush_known(known: dict[Operation, KnownElements]) -> None:
    """Build every pending store (the end of the pass, or before a failed lowering's ops go)."""
    for state in known.values():
        state.build_pending()
    known.clear()


def _derived(alloc: Operation) -> set[Value] | None:
    """The fragment's tensor and the pointers and tensors derived from it through ops without
    memory effects; None if one of them escapes (stored, yielded or returned, or an operand of
    an op with regions), as fragment-scalrep's classification decides."""
    base = alloc.results[0]
    derived = {base}
    work = [base]
    while work:
        value = work.pop()
        for use in value.uses:
            user = use.owner
            cls = type(user)
            if cls is TD.LoadOp:
                continue
            if cls is TD.StoreOp:
                if use.index == 0:
                    return None
                continue
            if user.regions or user.has_trait(Terminator):
                return None
            if user.has_trait(NoMemoryEffect):
                for r in user.results:
                    if r not in derived and isinstance(r.type, (PtrType, TensorType)):
                        derived.add(r)
                        work.append(r)
    return derived


def _touches(op: Operation, derived: set[Value]) -> bool:
    """Whether ``op`` or an op in its regions has an operand in ``derived``."""
    for u in op._operands:
        if u.value in derived:
            return True
    if op.regions:
        for nested in op.walk_ops(include_self=False):
            for u in nested._operands:
                if u.value in derived:
                    return True
    return False


def lower_gemm(low: Lowering, op: Any) -> None:
    infos = [low.analysis.tensor_of(v) for v in (op.a, op.b, op.c)]
    ranks = tuple(rank(i.layout) for i in infos)
    forms = _FORMS.get(ranks)  # type: ignore[arg-type]
    if forms is None:
        raise LoweringError(f"operands of ranks {ranks} match no gemm form")
    atom = op.atom.op if op.atom is not None else None
    if atom is not None and atom.is_wgmma:
        from .lower_wgmma import lower_wgmma_gemm

        lower_wgmma_gemm(low, op)
        return
    mma = atom is not None and not atom.is_fma
    letters = [x for x in _ORDER if any(x in f for f in forms) and not (mma and x == "V")]
    dims = []
    for x in letters:
        registers = any(x in f and i.space == "rmem" for i, f in zip(infos, forms))
        dims.append(Dim(_extent(x, infos, forms), must_unroll=registers, name=x))
    tensors = (op.a, op.b, op.c)

    def coord(form: str, point: dict[str, Any]) -> Any:
        c = tuple([point[x] for x in form])
        return low.coordinate(c[0] if len(c) == 1 else c)

    if not mma:

        def fma_body(b: Any, values: list[Any]) -> None:
            point = dict(zip(letters, values))
            a = low.create(TD.LoadOp, tensors[0], coord(forms[0], point)).results[0]
            bb = low.create(TD.LoadOp, tensors[1], coord(forms[1], point)).results[0]
            cc = coord(forms[2], point)
            c = low.create(TD.LoadOp, tensors[2], cc).results[0]
            d = mul_add(low.builder, a, bb, c, low.loc)
            low.create(TD.StoreOp, d, tensors[2], cc)

        low.nest(dims, fma_body)
        return

    counts = (size(atom.layout_a, 1), size(atom.layout_b, 1), size(atom.layout_c, 1))
    if "V" not in forms[0]:
        raise LoweringError(f"MMA atom '{atom.name}' needs operands with a value mode")

    # A and B register fragments are only read here: an element loaded earlier in the same
    # block is that value (as fragment-scalrep forwards it; an unrolled M x N nest reads each
    # A value N times and each B value M times, a third of the GEMM's ops)
    loaded: dict[tuple, Any] = {}
    read_only = [
        i.space == "rmem" and i.base is not None and i.base is not infos[2].base for i in infos[:2]
    ] + [False]

    # C's elements known from the gemm before (KnownElements), when every dimension is unrolled
    # (all accesses in this block) and A and B are other allocations than C; what this gemm
    # learns goes to the pass only once it is built (a failed lowering leaves the state before)
    known = previous = None
    c_alloc = infos[2].base.defining_op if infos[2].base is not None else None
    if (
        low.known_elements is not None
        and isinstance(c_alloc, TD.AllocFragmentOp)
        and infos[2].space == "rmem"
        and all(i.base is not None and i.base is not infos[2].base for i in infos[:2])
    ):
        choose_unrolling(dims, low.unroll_limit)  # as low.nest will
        derived = _derived(c_alloc) if all(d.unroll for d in dims) else None
        if derived is None:  # the gemm before is the last to know
            previous = low.known_elements.pop(c_alloc, None)
            if previous is not None:
                previous.build_pending()
                previous = None
        else:
            known = KnownElements(low.builder.insertion_point.block)
            previous = low.known_elements.get(c_alloc)
            if previous is not None:
                if previous.valid_before(op, derived):
                    known.values = dict(previous.values)
                else:
                    previous.build_pending()
                    del low.known_elements[c_alloc]
                    previous = None

    def operand(k: int, c: Any) -> Any:
        t = tensors[k]
        if k == 2 and known is not None and known.block is not None:
            address = low.fragment_address(t, c)
            if address is not None:
                value = known.values.get(address[1])
                if value is None:
                    value = known.values[address[1]] = low.create(TD.LoadOp, t, c).results[0]
                return value
            known.forget()  # an access fragment-scalrep does not follow
        if not read_only[k]:
            return low.create(TD.LoadOp, t, c).results[0]
        block = low.builder.insertion_point.block
        try:
            found = loaded.get((t, c))
        except TypeError:  # an unhashable coordinate entry
            return low.create(TD.LoadOp, t, c).results[0]
        if found is not None and found.defining_op.parent is block:
            return found
        value = loaded[t, c] = low.create(TD.LoadOp, t, c).results[0]
        return value

    def mma_body(b: Any, values: list[Any]) -> None:
        point = dict(zip(letters, values))
        groups = []
        for k, (form, n) in enumerate(zip(forms, counts)):
            vals = []
            for v in range(n):
                point["V"] = v
                vals.append(operand(k, coord(form, point)))
            groups.append(vals)
        mma = low.create(TD.MmaOp, op.atom, groups[0], groups[1], groups[2])
        d = mma.results
        for v in range(counts[2]):
            point["V"] = v
            cc = coord(forms[2], point)
            if known is not None and known.block is not None:
                address = low.fragment_address(tensors[2], cc)
                if address is not None:
                    ptr, offset = address
                    known.values[offset] = d[v]
                    known.pending[offset] = (mma, v, ptr, low.loc)
                    continue
                known.forget()
            low.create(TD.StoreOp, d[v], tensors[2], cc)

    low.nest(dims, mma_body)
    if known is None:
        return
    if known.block is None:  # forgotten: nothing goes away
        if previous is not None:
            previous.build_pending()
            del low.known_elements[c_alloc]
        known.build_pending()
        return
    if previous is not None:  # its stores this gemm does not overwrite stay pending
        for offset, entry in previous.pending.items():
            known.pending.setdefault(offset, entry)
    known.after = op.prev_op  # the last op built
    low.known_elements[c_alloc] = known
