"""``prove-vectorization``: the widest access of every copy, fill and clear, proven for all
symbol values.

For each ``tile.copy``/``tile.copy_if`` the pass runs the proof of :mod:`.vectorize` on the
tensors the symbolic value analysis describes, records the width as ``vector_bits`` (the element
width when nothing wider is legal; absent when the copy converts element types) and emits a
remark at the copy's location that states the proof or the fact that decided, e.g.
``copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven`` or
``copy uses 64-bit accesses: stride of mode 0 of the source is 2 (affine2 layout: ...)``.
``tile.fill``/``tile.clear`` are copies from a broadcast value: the same proof on the
destination alone (``clear uses 128-bit accesses: ...``).
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.types import i64

from ..analysis.proofs import sympy_calls
from ..analysis.symbolic import AnalysisError, SymbolicAnalysis
from ..base import Option, Pass, Statistic
from ..registry import register_pass
from .common import COPY_OPS, FILL_OPS, CopyOperands, copy_word, ops_of_type
from .vectorize import MAX_VECTOR_BITS, CopyPlan, plan_copy, plan_fill

__all__ = ["ProveVectorization", "prove_copy", "prove_fill"]


def prove_copy(analysis: SymbolicAnalysis, op: Any, max_bits: int = MAX_VECTOR_BITS) -> CopyPlan:
    """The vectorization plan of one copy (raises AnalysisError when a tensor is opaque)."""
    c = CopyOperands(analysis, op)
    return plan_copy(c.src, c.dst, max_bits=max_bits, pred=c.pred, bounds=c.bounds)


def prove_fill(analysis: SymbolicAnalysis, op: Any, max_bits: int = MAX_VECTOR_BITS) -> CopyPlan:
    """The store plan of one fill or clear (raises AnalysisError when the tensor is opaque)."""
    return plan_fill(analysis.tensor_of(op.tensor), max_bits=max_bits)


@register_pass
class ProveVectorization(Pass):
    argument = "prove-vectorization"
    summary = "Prove the widest legal access of every copy, fill and clear as vector_bits"
    description = (
        "For each tile.copy/copy_if: contiguity (max_common_layout of source and destination), "
        "element size, base alignment and offset/stride divisibility, proven for every value "
        "of the symbols; for copy_if a predicate uniform over each vector; for tile.fill/clear "
        "the same proof on the destination alone. Sets vector_bits and emits a remark stating "
        "the proof or the reason."
    )

    max_bits = Option(int, MAX_VECTOR_BITS, "Widest access to consider (bits: 8..128)")
    remarks = Option(bool, True, "Emit a remark per copy")

    num_vectorized = Statistic("Copies, fills and clears with accesses wider than one element")
    num_elementwise = Statistic("Copies, fills and clears with one element per access")
    num_sympy = Statistic("Divisibility proofs that needed SymPy", name="num-sympy-proofs")

    def run_on_operation(self, op: Any) -> None:
        if self.max_bits not in (8, 16, 32, 64, 128):
            self.emit_error(op, f"max-bits must be 8, 16, 32, 64 or 128, got {self.max_bits}")
            self.signal_failure()
            return
        analysis = self.get_analysis(SymbolicAnalysis)
        before = sympy_calls()
        for alg in ops_of_type(op, COPY_OPS + FILL_OPS):
            self._prove(analysis, alg)
        self.num_sympy += sympy_calls() - before
        # only properties of copies changed: every value means what it meant
        self.mark_analyses_preserved(SymbolicAnalysis)

    def _prove(self, analysis: SymbolicAnalysis, copy: Any) -> None:
        word = copy_word(copy)
        fill = isinstance(copy, FILL_OPS)
        try:
            if fill:
                plan = prove_fill(analysis, copy, self.max_bits)
            else:
                plan = prove_copy(analysis, copy, self.max_bits)
        except AnalysisError as e:
            bits = _element_bits(copy)
            if bits is not None:
                copy.properties["vector_bits"] = IntegerAttr(bits, i64)
            self.num_elementwise += 1
            if self.remarks:
                self.emit_remark(copy.location, f"{word} uses element-wise accesses: {e.message}")
            return
        atom_bits = None if fill else _atom_bits(copy)
        note = ""
        if atom_bits is not None and atom_bits < plan.bits:  # the atom's width is what is used
            proven = plan.bits
            plan = prove_copy(analysis, copy, atom_bits)
            note = f" (atom '{copy.atom.atom_name}' of {atom_bits} bits; {proven} proven)"
        if fill or copy.src.type.element is copy.dst.type.element:
            copy.properties["vector_bits"] = IntegerAttr(plan.bits, i64)
            head = f"{word} uses {plan.bits}-bit accesses{note}"
        else:
            copy.properties.pop("vector_bits", None)
            head = f"{word} converts element by element"
        if plan.width > 1:
            self.num_vectorized += 1
        else:
            self.num_elementwise += 1
        if self.remarks:
            self.emit_remark(copy.location, f"{head}: {plan.reason}")


def _atom_bits(copy: Any) -> int | None:
    """The width a copy's ``universal``/``cp.async`` atom moves per access (CuTe copies with
    the atom's width, narrower than the proof allows or not), or None."""
    atom = copy.atom
    if atom is not None and (
        atom.atom_name == "universal" or atom.atom_name.startswith("cp.async")
    ):
        return atom.bits
    return None


def _element_bits(copy: Any) -> int | None:
    if isinstance(copy, FILL_OPS):
        return copy.tensor.type.element_bits
    st, dt = copy.src.type, copy.dst.type
    if st.element is not dt.element:
        return None
    return st.element_bits
