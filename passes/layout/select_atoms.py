"""``select-atoms``: the default dispatch of copies and gemms to atoms, and the validation of
the atoms users give.

- A copy without an atom gets the universal copy atom of its proven width (the widest access
  :mod:`.vectorize` proves; gmem and smem loads and stores are then vectorized accordingly).
  CuTe's ``copy(atom, src, dst)`` reads mode 0 as the atom's values, so when the copy's mode 0
  does not already hold exactly one access, its tensors are re-tiled first with
  ``tile.composition`` by the proof's tiling ``(lanes, rest)`` (static tilings only; a copy
  whose tiling is symbolic keeps no atom and is vectorized by its ``vector_bits``).
  cp.async is never chosen by default: it changes synchronization, so the user asks for it.
- A copy with an atom is checked against the proof: ``universal`` and ``cp.async`` of N bits
  need N-bit accesses proven for this copy; ``ldmatrix`` needs one 16-byte aligned row per
  thread. The atom's minimum architecture is checked against ``arch`` (``sm_80``...) when
  given; the host target emulates every atom.
- A gemm without an atom gets ``FMA``; the verifier has already matched a given MMA atom
  against the operand types and ranks.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.errors import LayoutError
from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.diagnostics import DiagnosticError
from layoutc.ir.core.errors import VerifyError
from layoutc.ir.dialects import layout as LD
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.layout.symbolic_types import is_static_value, static_attribute

from ..analysis.symbolic import AnalysisError, SymbolicAnalysis
from ..base import Option, Pass, Statistic
from ..registry import register_pass
from .common import COPY_OPS, CopyOperands, copy_word, ops_of_type
from .loops import LoweringError
from .select_checks import check_ldmatrix
from .vectorize import CopyPlan, plan_copy

__all__ = ["SelectAtoms"]


@register_pass
class SelectAtoms(Pass):
    argument = "select-atoms"
    summary = "Choose default copy/MMA atoms and validate the atoms users give"
    description = (
        "Copies get the universal copy atom of their proven width; gemms get FMA unless an "
        "MMA atom is given. User-given atoms are checked against the operands (proven access "
        "width, memory spaces, ldmatrix rows, target architecture)."
    )

    arch = Option(
        str, "", "Target architecture (sm_80, sm_90, or host); empty skips the architecture check"
    )

    num_copy_atoms = Statistic("Copies given the universal atom")
    num_fma = Statistic("Gemms given the FMA atom")
    num_checked = Statistic("User-given atoms checked")

    def run_on_operation(self, op: Any) -> None:
        analysis = self.get_analysis(SymbolicAnalysis)
        for copy in ops_of_type(op, COPY_OPS):
            try:
                self._copy(analysis, copy)
            except AnalysisError as e:
                # An opaque tensor: lower-algorithms reports it; nothing to choose here.
                del e
        for gemm in ops_of_type(op, TD.GemmOp):
            self._gemm(gemm)
        # atoms, widths and new views of copies' operands: no existing value changed meaning
        self.mark_analyses_preserved(SymbolicAnalysis)

    # -- gemm -------------------------------------------------------------------------------------
    def _gemm(self, gemm: Any) -> None:
        if gemm.atom is None:
            gemm.properties["atom"] = TD.MMAAtomAttr("FMA")
            self.num_fma += 1
            return
        self.num_checked += 1
        op = gemm.atom.op
        if op.is_wgmma and self.arch.startswith("sm_") and self.arch != "sm_90a":
            # wgmma is an arch-specific feature: sm_90a exactly (the RequiresTarget of its ops)
            self.emit_error(
                gemm.location,
                f"atom '{op.name}' needs target sm_90a (wgmma is an arch-specific feature), but "
                f"the target is {self.arch}; compile with target='sm_90a'",
            )
            self.signal_failure()
            return
        self._check_sm(gemm, op.name, op.min_sm)

    def _check_sm(self, op: Any, name: str, min_sm: int) -> bool:
        sm = _sm_number(self.arch)
        if sm is not None and min_sm > sm:
            self.emit_error(
                op.location,
                f"atom '{name}' needs sm_{min_sm} or newer, but the target is {self.arch}",
            )
            self.signal_failure()
            return False
        return True

    # -- copies -----------------------------------------------------------------------------------
    def _copy(self, analysis: SymbolicAnalysis, copy: Any) -> None:
        c = CopyOperands(analysis, copy)
        plan = plan_copy(c.src, c.dst, pred=c.pred, bounds=c.bounds)
        atom = copy.atom
        word = copy_word(copy)
        if atom is not None:
            self.num_checked += 1
            if not self._check_sm(copy, atom.atom_name, atom.op.min_sm):
                return
            if atom.atom_name.startswith(("ldmatrix", "stmatrix")):
                try:
                    side = c.src if atom.atom_name.startswith("ldmatrix") else c.dst
                    check_ldmatrix(side, atom)
                except LoweringError as e:
                    self._fail(copy, str(e))
                return
            e = c.src.element_bytes * 8
            if atom.bits > plan.bits and atom.bits > e:
                self._fail(
                    copy,
                    f"atom '{atom.atom_name}' moves {atom.bits} bits per access, but only "
                    f"{plan.bits}-bit accesses are proven for this {word}: {plan.reason}",
                )
            return
        self._default_copy_atom(copy, c, plan)

    def _fail(self, op: Any, message: str) -> None:
        self.emit_error(op.location, message)
        self.signal_failure()

    def _default_copy_atom(self, copy: Any, c: CopyOperands, plan: CopyPlan) -> None:
        if c.src.element is not c.dst.element:
            return  # converting copies move one element at a time, without an atom
        atom = TD.CopyAtomAttr("universal", plan.bits)
        copy.properties["vector_bits"] = _i64(plan.bits)
        if self._try_attach(copy, atom):
            self.num_copy_atoms += 1
            return
        if plan.tiling is None or not is_static_value(plan.tiling):
            return
        if self._retile(copy, atom, plan.tiling):
            self.num_copy_atoms += 1

    def _try_attach(self, copy: Any, atom: Any) -> bool:
        copy.properties["atom"] = atom
        try:
            copy.verify_()
        except (VerifyError, LayoutError):
            del copy.properties["atom"]
            return False
        return True

    def _retile(self, copy: Any, atom: Any, tiling: Any) -> bool:
        """View the copy's tensors through the tiling (lanes in mode 0) and attach the atom."""
        b = Builder(InsertionPoint.before_op(copy), copy.location)
        created = []
        try:
            t = b.create(LD.ConstantOp, static_attribute(tiling))
            created.append(t)
            names = ["src", "dst"] + (["pred"] if isinstance(copy, TD.CopyIfOp) else [])
            views = {}
            for name in names:
                v = b.create(TD.CompositionOp, getattr(copy, name), t.results[0])
                created.append(v)
                views[name] = v.results[0]
        except (DiagnosticError, LayoutError, ValueError):
            for o in reversed(created):
                o.erase(check_uses=False)
            return False
        old = {name: getattr(copy, name) for name in views}
        for name, v in views.items():
            _set_operand(copy, old[name], v)
        if self._try_attach(copy, atom):
            return True
        for name in views:
            _set_operand(copy, views[name], old[name])
        for o in reversed(created):
            o.erase(check_uses=False)
        return False


def _sm_number(arch: str) -> int | None:
    """80 for ``sm_80``/``sm_80a``; None for the host or no architecture (no check)."""
    if not arch.startswith("sm_"):
        return None
    digits = "".join(c for c in arch[3:] if c.isdigit())
    return int(digits) if digits else None


def _set_operand(op: Any, old: Any, new: Any) -> None:
    for i, v in enumerate(op.operands):
        if v is old:
            op.set_operand(i, new)
            return


def _i64(value: int) -> Any:
    from layoutc.ir.core.attributes import IntegerAttr
    from layoutc.ir.core.types import i64

    return IntegerAttr(value, i64)
