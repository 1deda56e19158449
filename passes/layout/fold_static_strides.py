"""``fold-static-strides``: what the symbols let us know, folded into the IR.

For every layout value and tensor made by a chain of layout and view ops, the symbolic value
analysis computes the value with everything known substituted (constants into dynamic entries,
kernel-argument facts, ``tile.assume``, loop bounds). The pass then replaces the chain by one
constructor whose type carries every entry that is now static:

- a layout or int-tuple: ``layout.constant``, or ``layout.make_layout`` of ``make_shape`` /
  ``make_stride`` whose remaining ``?`` operands are the entries' expressions, emitted as
  ``arith`` (:mod:`..analysis.emit`);
- a tensor: ``tile.make_tensor`` of its root pointer moved by its offset (``tile.ptr_offset``,
  with the offset's proven divisibility stated by ``tile.assume`` so the pointer type keeps the
  alignment) and of its layout.

Uses are redirected only where a more static type is accepted (algorithms, element accesses and
the layout ops that compute indices or predicates) and only when the new layout text has the old
one's structure; other uses (``scf.yield``, calls) keep the old value. ``index`` values that turn
out constant become ``arith.constant``; a chain of ``arith`` index ops whose canonical form is
cheaper is re-emitted in that form. Divisibility facts the canonical form cannot see (``i - i %
4``) go to SymPy when they decide an alignment; the pass counts those calls
(``num-sympy-proofs``).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.diagnostics import DiagnosticError
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import would_be_trivially_dead
from layoutc.ir.core.types import IndexType, IntegerType
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import layout as LD
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.layout.text import Kind
from layoutc.ir.dialects.layout.types import LayoutTextType
from layoutc.ir.dialects.tile.ops_tensor import gather_names
from layoutc.ir.dialects.tile.types import TensorType

from ..analysis.emitter import IndexEmitter
from ..analysis.proofs import sympy_calls
from ..analysis.symbolic import AnalysisError, SymbolicAnalysis, gather_pointers
from ..base import Pass, Statistic
from ..registry import register_pass
from .common import ALGORITHM_OPS
from .materialize import NotMaterializable, layout_value, pointer_at, refines

__all__ = ["FoldStaticStrides"]

_FOLDED_DIALECTS = (LD.DIALECT, TD.DIALECT, arith.DIALECT)

_TENSOR_CONSUMERS = (
    *ALGORITHM_OPS,
    TD.LoadOp,
    TD.StoreOp,
    TD.LoadVectorOp,
    TD.StoreVectorOp,
    TD.LdmatrixOp,
    TD.StmatrixOp,
    TD.CpAsyncOp,
    TD.WgmmaDescOp,
)


def _is_layout_producer(op: Operation) -> bool:
    return op.dialect is LD.DIALECT or isinstance(op, TD.GetLayoutOp)


def _is_tensor_producer(op: Operation) -> bool:
    return isinstance(op, (TD.MakeTensorOp, TD.ViewOp))


def _accepts_layout(user: Operation) -> bool:
    """Users that accept a more static layout operand: index/i1 layout ops and copy_if."""
    if isinstance(user, TD.CopyIfOp):
        return True
    if user.dialect is not LD.DIALECT:
        return False
    return all(not isinstance(r.type, LayoutTextType) for r in user.results)


def _accepts_tensor(user: Operation, value: Value) -> bool:
    if not isinstance(user, _TENSOR_CONSUMERS):
        return False
    return not (isinstance(user, TD.LoadOp) and value.type.space == "coord")  # type: ignore[attr-defined]


def _is_int(v: Value) -> bool:
    t = v.type
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width > 1)


@register_pass
class FoldStaticStrides(Pass):
    argument = "fold-static-strides"
    summary = "Fold known values into layouts and tensors; one constructor per value"
    description = (
        "Substitutes constants and facts into dynamic layout entries, folds chains of layout "
        "and tensor view ops into a single layout.make_layout / tile.make_tensor whose type "
        "carries every statically known entry (the rest emitted as arith), and simplifies "
        "index expressions."
    )

    num_layouts = Statistic("Layout values folded into one constructor", name="num-layouts-folded")
    num_tensors = Statistic("Tensors folded into one tile.make_tensor", name="num-tensors-folded")
    num_static = Statistic("Dynamic entries that became static", name="num-static-entries")
    num_constants = Statistic("Index values folded to constants", name="num-index-constants")
    num_simplified = Statistic(
        "Index expressions re-emitted in a cheaper canonical form", name="num-index-simplified"
    )
    num_sympy = Statistic("Divisibility proofs that needed SymPy", name="num-sympy-proofs")

    def run_on_operation(self, op: Any) -> None:
        before = sympy_calls()
        analysis = SymbolicAnalysis(op)
        builder = Builder()
        emitter = IndexEmitter(builder)
        ops = list(op.walk_ops(include_self=False))
        for o in ops:
            if o.parent is None:
                continue
            try:
                if _is_tensor_producer(o):
                    self._tensor(analysis, builder, emitter, o)
                elif _is_layout_producer(o):
                    self._layouts(analysis, builder, emitter, o)
                if any(_is_int(r) for r in o.results):
                    self._indices(analysis, builder, emitter, o)
            except (AnalysisError, NotMaterializable, LayoutError, DiagnosticError):
                continue
        _erase_dead(op)
        self.num_sympy += sympy_calls() - before

    def _at(self, builder: Builder, emitter: IndexEmitter, op: Operation) -> None:
        builder.insertion_point = InsertionPoint.before_op(op)
        builder.loc = op.location
        emitter.loc = op.location

    # -- layouts ----------------------------------------------------------------------------------
    def _layouts(
        self, analysis: SymbolicAnalysis, builder: Builder, emitter: IndexEmitter, op: Operation
    ) -> None:
        for r in op.results:
            t = r.type
            if not isinstance(t, LayoutTextType):
                continue
            users = [u for u in r.uses if _accepts_layout(u.owner)]
            if not users or isinstance(op, LD.ConstantOp):
                continue
            value = analysis.value_of(r)
            self._at(builder, emitter, op)
            shape = isinstance(op, LD.MakeShapeOp)
            from layoutc.ir.dialects.layout.symbolic_types import from_symbolic

            new_type, _ = from_symbolic(value, t.kind)
            if not refines(new_type.text, t.text):
                continue
            if new_type is t and isinstance(op, (LD.MakeIntTupleOp, LD.MakeLayoutOp)):
                continue
            new = layout_value(value, t.kind, builder, emitter, op.location, shape=shape)
            for u in users:
                u.set(new)
            self.num_layouts += 1
            self.num_static += t.num_dynamic - new.type.num_dynamic  # type: ignore[attr-defined]

    # -- tensors ----------------------------------------------------------------------------------
    def _tensor(
        self, analysis: SymbolicAnalysis, builder: Builder, emitter: IndexEmitter, op: Operation
    ) -> None:
        r = op.results[0]
        t = r.type
        if not isinstance(t, TensorType) or t.space == "coord":
            return
        users = [u for u in r.uses if _accepts_tensor(u.owner, r)]
        if not users:
            return
        info = analysis.tensor_of(r)
        if info.base is None:
            return
        from layoutc.ir.dialects.tile.layouts import text_of_layout

        text, _ = text_of_layout(info.layout)
        if not refines(text, t.layout_text):
            return
        if (
            isinstance(op, TD.MakeTensorOp)
            and text == t.layout_text
            and type(info.offset) is int
            and info.offset == 0
            and op.operands[0] is info.base
        ):
            return
        self._at(builder, emitter, op)
        base = info.base
        if not isinstance(base.type, TD.PtrType):
            base = builder.create(TD.GetPtrOp, base, loc=op.location).results[0]
        ptr = pointer_at(info, base, builder, emitter, op.location)
        names = gather_names(text)
        buffers = gather_pointers(info.layout)
        if any(name not in buffers for name in names):
            return  # a gather whose index buffers are not known here: keep the view
        layout = layout_value(info.layout, Kind.LAYOUT, builder, emitter, op.location)
        gathers = [buffers[name].value for name in names]
        new = builder.create(TD.MakeTensorOp, ptr, layout, gathers, loc=op.location).results[0]
        nt = new.type
        if nt.element is not t.element or nt.space != t.space or nt.alignment < t.alignment:
            return
        for u in users:
            u.set(new)
        self.num_tensors += 1
        self.num_static += t.num_dynamic - nt.num_dynamic

    # -- index values ------------------------------------------------------------------------------
    def _indices(
        self, analysis: SymbolicAnalysis, builder: Builder, emitter: IndexEmitter, op: Operation
    ) -> None:
        if isinstance(op, arith.ConstantOp):
            return
        for r in op.results:
            if not _is_int(r) or r.use_empty:
                continue
            x = analysis.sym_of(r)
            if type(x) is int:
                self._at(builder, emitter, op)
                c = _constant(builder, x, r, op)
                if c is not None:
                    r.replace_all_uses_with(c)
                    self.num_constants += 1
                continue
            if op.dialect is arith.DIALECT and isinstance(r.type, IndexType) and _is_root(r):
                self._simplify(builder, op, r, x)

    def _simplify(self, builder: Builder, op: Operation, r: Value, x: Any) -> None:
        """Re-emit an index expression when its canonical form needs fewer ops."""
        existing = _slice_cost(r)
        if existing < 2:
            return
        scratch = IndexEmitter(builder, op.location, hoist=False)
        builder.insertion_point = InsertionPoint.after_op(op)
        start = op.next_op
        try:
            value = scratch.emit(x)
        except AnalysisError:
            return
        if scratch.num_ops < existing:
            r.replace_all_uses_with(value)
            self.num_simplified += 1
            return
        cur = op.next_op
        created = []
        while cur is not None and cur is not start:
            created.append(cur)
            cur = cur.next_op
        for o in reversed(created):
            if all(res.use_empty for res in o.results):
                o.erase()


def _constant(builder: Builder, x: int, r: Value, op: Operation) -> Value | None:
    from layoutc.ir.core.attributes import IntegerAttr

    try:
        attr = IntegerAttr(x, r.type)
    except ValueError:
        return None
    return builder.create(arith.ConstantOp, attr, loc=op.location).results[0]


def _is_root(v: Value) -> bool:
    """Used by something other than an integer arith op."""
    return any(
        not (u.owner.dialect is arith.DIALECT and any(_is_int(x) for x in u.owner.results))
        for u in v.uses
    )


def _slice_cost(root: Value) -> int:
    """arith ops computing ``root`` that nothing else uses (they die if ``root`` is replaced)."""
    inside: set[Operation] = set()
    stack = [root]
    while stack:
        v = stack.pop()
        d = v.defining_op
        if (
            d is None
            or d in inside
            or d.dialect is not arith.DIALECT
            or isinstance(d, arith.ConstantOp)
        ):
            continue
        if v is not root and any(u.owner not in inside for u in v.uses):
            continue
        inside.add(d)
        stack.extend(d.operands)
    return len(inside)


def _erase_dead(root: Operation) -> None:
    """Erase the ops of the folded dialects that are trivially dead, chains included: one
    worklist, users before the values they use (the walk's last op first), and the producers
    of an erased op's operands looked at again, instead of walks repeated until none erases."""
    worklist = list(root.walk_ops(include_self=False))
    while worklist:
        o = worklist.pop()
        if o.parent is None or o.dialect not in _FOLDED_DIALECTS:
            continue
        if not would_be_trivially_dead(o):
            continue
        producers = [u.value.defining_op for n in o.walk_ops() for u in n.operand_uses]
        o.erase()
        worklist.extend(d for d in producers if d is not None and d.parent is not None)
