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
from layoutc.ir.dialects import tile as TD

from .loops import Dim, LoweringError
from .lowering import Lowering
from .scalars import mul_add

__all__ = ["lower_gemm"]

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

    def operand(k: int, c: Any) -> Any:
        t = tensors[k]
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
        d = low.create(TD.MmaOp, op.atom, groups[0], groups[1], groups[2]).results
        for v in range(counts[2]):
            point["V"] = v
            low.create(TD.StoreOp, d[v], tensors[2], coord(forms[2], point))

    low.nest(dims, mma_body)
