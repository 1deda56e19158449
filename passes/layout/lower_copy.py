"""Lowering of ``tile.copy`` and ``tile.copy_if``.

The width comes from the copy's atom (``universal``/``cp.async`` of N bits) or its
``vector_bits``; either is re-proven here (:func:`.vectorize.plan_copy`), so hand-written IR
that claims more than is legal gets a diagnostic instead of a wrong program. The walk
(:mod:`.traversal`) visits lane 0 of every access:

- ``w > 1``: ``tile.load_vector``/``tile.store_vector`` of ``w`` elements with the proven
  alignment of each side, or one ``tile.cp_async`` of ``w * bits / 8`` bytes;
- ``w = 1``: ``tile.load``, a conversion when the element types differ, ``tile.store``;
- ``ldmatrix`` atoms: one ``tile.ldmatrix`` per repetition (modes 1.. of the source) at the
  first element of this thread's row, its values stored to the destination's value mode;
- ``copy_if``: the accesses of each vector sit in ``scf.if`` on the predicate (an ``i1`` tensor
  element, or CuTe's ``elem_less`` of the coordinate and the bounds, computed from the analysis
  as ``arith.cmpi``/``andi``); with a ``cp.async.*.zfill`` atom there is no branch: the
  predicate becomes the ``tile.cp_async``'s zero-fill operand (CuTe's ``_ZFILL`` atoms: a
  predicated-off copy writes zeros, which a GEMM's residue tiles need).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import intops
from layoutc.ir.algebra.inttuple import idx2crd
from layoutc.ir.algebra.layout import size
from layoutc.ir.core.builder import InsertionPoint
from layoutc.ir.dialects import scf
from layoutc.ir.dialects import tile as TD

from ..analysis.symbolic import TensorInfo
from .common import CopyOperands
from .loops import Dim, LoweringError
from .lowering import Lowering
from .predicates import elem_less
from .scalars import convert
from .select_checks import LDMATRIX_ROW_BYTES, check_ldmatrix, instruction_leaves
from .traversal import plan_walk
from .vectorize import CopyPlan, plan_copy

__all__ = ["lower_copy"]


def _requested_bits(op: Any, src: TensorInfo) -> tuple[int | None, str]:
    """The width the op asks for and who asks (atom or vector_bits)."""
    atom = op.atom
    if atom is not None and (
        atom.atom_name == "universal" or atom.atom_name.startswith("cp.async")
    ):
        return atom.bits, f"atom '{atom.atom_name}' ({atom.bits} bits)"
    vb = op.properties.get("vector_bits")
    if vb is not None:
        return vb.value, f"vector_bits = {vb.value}"
    return None, ""


def _plan(low: Lowering, op: Any, c: CopyOperands) -> CopyPlan:
    best = plan_copy(c.src, c.dst, pred=c.pred, bounds=c.bounds)
    bits, who = _requested_bits(op, c.src)
    if bits is None:
        return best
    if bits > best.bits:
        raise LoweringError(
            f"{who} is not proven for this copy: only {best.bits}-bit accesses are legal "
            f"({best.reason})"
        )
    plan = plan_copy(c.src, c.dst, pred=c.pred, bounds=c.bounds, max_bits=bits)
    if plan.bits != bits and bits > c.src.element_bytes * 8:
        raise LoweringError(f"{who} is not legal for this copy: {plan.reason}")
    return plan


def lower_copy(low: Lowering, op: Any) -> None:
    c = CopyOperands(low.analysis, op)
    atom = op.atom
    if atom is not None and atom.atom_name.startswith("ldmatrix"):
        _lower_ldmatrix(low, op, c)
        return
    if atom is not None and atom.atom_name.startswith("stmatrix"):
        _lower_stmatrix(low, op, c)
        return
    if c.pred is not None and not intops.prove_eq(size(c.pred.layout), size(c.src.layout)):
        raise LoweringError(
            "not supported: a copy_if predicate that is not shaped like the source (one "
            "predicate per atom value group)"
        )
    plan = _plan(low, op, c)
    asynchronous = atom is not None and atom.atom_name.startswith("cp.async")
    if asynchronous and plan.width * c.src.element_bytes * 8 != atom.bits:
        raise LoweringError(
            f"atom '{atom.atom_name}' copies {atom.bits} bits per access, but only "
            f"{plan.bits}-bit accesses are proven ({plan.reason})"
        )
    tensors = [c.src, c.dst] + ([c.pred] if c.pred is not None else [])
    src, dst = op.src, op.dst
    pred = op.pred if isinstance(op, TD.CopyIfOp) else None
    operands = [src, dst] + ([pred] if pred is not None else [])
    walk = plan_walk([t.layout for t in tensors], plan.tiling, [v.type.layout() for v in operands])
    dims = _dims(walk, tensors)
    bounds = c.bounds

    zfill = asynchronous and atom.atom_name.endswith(".zfill")

    def body(b: Any, point: list[Any]) -> None:
        sc = low.coordinate(walk.coordinate(0, point))
        dc = low.coordinate(walk.coordinate(1, point))
        if pred is not None and zfill:  # no branch: a predicated-off copy writes zeros
            cond = _predicate(low, pred, c.pred, walk.coordinate(2, point), bounds)
            _move(low, op, plan, src, sc, dst, dc, asynchronous, cond)
        elif pred is not None:
            cond = _predicate(low, pred, c.pred, walk.coordinate(2, point), bounds)
            guard = low.create(scf.IfOp, cond, with_else=False)
            saved = b.insertion_point
            b.insertion_point = InsertionPoint.before_op(guard.then_block.last_op)
            try:
                _move(low, op, plan, src, sc, dst, dc, asynchronous)
            finally:
                b.insertion_point = saved
        else:
            _move(low, op, plan, src, sc, dst, dc, asynchronous)

    low.nest(dims, body)


def _dims(walk: Any, tensors: list[TensorInfo]) -> list[Dim]:
    dims = []
    for k, e in enumerate(walk.extents):
        registers = False
        for t, info in enumerate(tensors):
            if info.space != "rmem":
                continue
            m = walk.maps[t]
            if m is None or any(k == j for pairs in m for j, _ in pairs):
                registers = True
        dims.append(Dim(e, must_unroll=registers and not (type(e) is int and e == 1)))
    return dims


def _predicate(low: Lowering, pred: Any, info: TensorInfo, coord: Any, bounds: Any) -> Any:
    """The predicate at a coordinate: an i1 element, or ``elem_less(coordinate, bounds)`` for a
    coordinate tensor, computed from the analysis (no coordinate values reach the IR)."""
    if pred.type.space != "coord":
        return low.create(TD.LoadOp, pred, low.coordinate(coord)).results[0]
    at = _add(info.offset, info.layout(coord))
    return elem_less(at, bounds, low.emitter)


def _add(a: Any, b: Any) -> Any:
    if type(a) is int and a == 0:
        return b
    return a + b


def _move(
    low: Lowering,
    op: Any,
    plan: CopyPlan,
    src: Any,
    sc: Any,
    dst: Any,
    dc: Any,
    asynchronous: bool,
    zfill_pred: Any = None,
) -> None:
    if asynchronous:
        nbytes = plan.bits // 8
        cache = "cg" if op.atom.atom_name.startswith("cp.async.cg") else None
        low.create(TD.CpAsyncOp, src, sc, dst, dc, nbytes, cache, pred=zfill_pred)
        return
    if plan.width > 1:
        v = low.create(TD.LoadVectorOp, src, sc, plan.width, plan.alignments[0]).results[0]
        low.create(TD.StoreVectorOp, v, dst, dc, plan.alignments[1])
        return
    x = low.create(TD.LoadOp, src, sc).results[0]
    x = convert(low.builder, x, dst.type.element, low.loc)
    low.create(TD.StoreOp, x, dst, dc)


def _matrix_repetitions(
    op: Any, c: CopyOperands, smem: TensorInfo, regs: TensorInfo, name: str
) -> tuple[Any, int, list[Dim]]:
    """What ldmatrix and stmatrix share: CuTe's ``Copy_Atom::call`` on the two partitions
    (:func:`.select_checks.instruction_leaves`: the natural nested partitions of ``partition_S/D`` and
    ``retile_S/D``, as well as flattened ones), the checks on the shared-memory side ``smem``
    (each instruction's values one 16-byte row, the atom's alignment), the values per thread
    and instruction on the register side ``regs``, and one unrolled loop over the
    instructions. (With ``x1``/``x2`` the shared-memory side names a whole row per
    instruction, 8 b16, while the registers hold 2 or 4 of them: the lanes past 8 * count name
    the rows of the lower lanes again, as CuTe's layouts say.)"""
    if not isinstance(op, TD.CopyOp):
        raise LoweringError(f"not supported: copy_if with the {name} atom")
    atom = op.atom
    row = LDMATRIX_ROW_BYTES // smem.element_bytes
    values = atom.bits // (regs.element_bytes * 8)
    instruction_leaves(regs.layout, values, "register", atom.atom_name)
    check_ldmatrix(smem, atom)
    n_smem, n_regs = size(smem.layout), size(regs.layout)
    if type(n_smem) is not int or type(n_regs) is not int:
        raise LoweringError(f"not supported: {name} over a dynamic number of repetitions")
    if n_smem // row != n_regs // values:
        raise LoweringError(
            f"atom '{atom.atom_name}': the shared-memory side makes {n_smem // row} "
            f"instructions ({row} values each) but the registers {n_regs // values} "
            f"({values} values each)"
        )
    return atom, values, [Dim(n_regs // values, must_unroll=True, name="repetition")]


def _lower_ldmatrix(low: Lowering, op: Any, c: CopyOperands) -> None:
    """One ``tile.ldmatrix`` per instruction: this thread's row address is the first element
    of the instruction's values in the source; its values go to the destination in order."""
    atom, values, dims = _matrix_repetitions(op, c, c.src, c.dst, "ldmatrix")
    row = LDMATRIX_ROW_BYTES // c.src.element_bytes
    s, d = c.src.layout, c.dst.layout
    src, dst = op.src, op.dst

    def body(b: Any, point: list[Any]) -> None:
        r = point[0]
        sc = low.coordinate(_at(s, 0, r, row))
        results = low.create(TD.LdmatrixOp, atom, src, sc).results
        for v in range(values):
            low.create(TD.StoreOp, results[v], dst, low.coordinate(_at(d, v, r, values)))

    low.nest(dims, body)


def _lower_stmatrix(low: Lowering, op: Any, c: CopyOperands) -> None:
    """One ``tile.stmatrix`` per instruction: this thread's row address is the first element
    of the instruction's values in the destination; its values come from the source in
    order."""
    atom, values, dims = _matrix_repetitions(op, c, c.dst, c.src, "stmatrix")
    row = LDMATRIX_ROW_BYTES // c.dst.element_bytes
    s, d = c.src.layout, c.dst.layout
    src, dst = op.src, op.dst

    def body(b: Any, point: list[Any]) -> None:
        r = point[0]
        vals = [
            low.create(TD.LoadOp, src, low.coordinate(_at(s, v, r, values))).results[0]
            for v in range(values)
        ]
        low.create(TD.StmatrixOp, atom, dst, low.coordinate(_at(d, 0, r, row)), vals)

    low.nest(dims, body)


def _at(layout: Any, v: int, r: int, values: int) -> Any:
    """The coordinate of value ``v`` of instruction ``r``: 1-D index ``v + values * r``
    (colexicographic, as CuTe's peeling of mode 0 and the modes after it iterate)."""
    return idx2crd(v + values * r, layout.shape)
