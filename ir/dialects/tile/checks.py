"""Shape rules of the algorithms (copy, copy_if, gemm, axpby), as CuTe states them.

Sizes and extents must be *provably* equal: static ones compare as ints, dynamic ones as
symbolic expressions (:mod:`.value_layouts` gives the operands' layouts with a symbol per SSA
value, so sizes built from the same values are equal and sizes built from different values are
not provable). A size that might differ at run time is an error, because the lowered loops
trust the sizes: the mismatch would read or write out of bounds.
"""

from __future__ import annotations

from typing import Any

from ...algebra import rank, size
from ...algebra.layout import get
from .atoms import MMAOperation

__all__ = [
    "atom_value_mode_fits",
    "gemm_form",
    "mode_sizes",
    "provably_equal",
    "size_problem",
    "static_int",
]

UNPROVEN_SIZES = "sizes that differ at run time would access memory out of bounds"


def provably_equal(a: Any, b: Any) -> bool:
    """``a == b`` for every value of the symbols (ints compare as ints)."""
    if type(a) is int and type(b) is int:
        return a == b
    from ...algebra.symbolic import sym_prove_eq  # the symbolic engine, only when needed

    return sym_prove_eq(a, b)


def size_problem(what_a: str, na: Any, what_b: str, nb: Any) -> str | None:
    """Why sizes ``na`` (of ``what_a``) and ``nb`` do not agree (None when they provably do)."""
    if provably_equal(na, nb):
        return None
    if type(na) is int and type(nb) is int:
        return f"{what_a} has {na} elements but {what_b} has {nb}"
    return (
        f"cannot prove that the {what_a} size {na} equals the {what_b} size {nb} ({UNPROVEN_SIZES})"
    )


def static_int(x: Any) -> int | None:
    return x if type(x) is int else None


def mode_sizes(layout: Any) -> list[Any]:
    """Size of each top-level mode."""
    return [size(layout, i) for i in range(rank(layout))]


def atom_value_mode_fits(layout: Any, values: int) -> bool:
    """CuTe's Copy_Atom::call dispatch: mode 0 (or, peeling, the first sub-mode of it) must
    hold exactly ``values`` elements per instruction."""
    mode = get(layout, 0) if rank(layout) > 1 else layout
    shape = mode.shape if hasattr(mode, "shape") else mode
    while True:
        n = size(shape)
        if type(n) is int and n == values:
            return True
        if isinstance(shape, tuple) and len(shape) >= 1:
            shape = shape[0]
            continue
        return False


# The five mode forms of cute-docs/04_algorithms.md: ranks of (A, B, C).
GEMM_FORMS: dict[tuple[int, int, int], str] = {
    (1, 1, 1): "(V) x (V) => (V)",
    (1, 1, 2): "(M) x (N) => (M,N)",
    (2, 2, 2): "(M,K) x (N,K) => (M,N)",
    (2, 2, 3): "(V,M) x (V,N) => (V,M,N)",
    (3, 3, 3): "(V,M,K) x (V,N,K) => (V,M,N)",
}


def gemm_form(a: Any, b: Any, c: Any, atom: MMAOperation | None) -> str | None:
    """Why A, B, C do not make a gemm (None when they do): rank form, extents, atom values."""
    ranks = (rank(a), rank(b), rank(c))
    form = GEMM_FORMS.get(ranks)
    if form is None:
        forms = "; ".join(GEMM_FORMS.values())
        return (
            f"operands of ranks A={ranks[0]}, B={ranks[1]}, C={ranks[2]} match none of the gemm "
            f"forms {forms}"
        )
    A, B, Cm = mode_sizes(a), mode_sizes(b), mode_sizes(c)
    # name -> list of (operand, mode index) that must agree
    if ranks == (1, 1, 1):
        checks = {"V": [("A", 0), ("B", 0), ("C", 0)]}
    elif ranks == (1, 1, 2):
        checks = {"M": [("A", 0), ("C", 0)], "N": [("B", 0), ("C", 1)]}
    elif ranks == (2, 2, 2):
        checks = {"M": [("A", 0), ("C", 0)], "N": [("B", 0), ("C", 1)], "K": [("A", 1), ("B", 1)]}
    elif ranks == (2, 2, 3):
        checks = {
            "V": [("A", 0), ("B", 0), ("C", 0)],
            "M": [("A", 1), ("C", 1)],
            "N": [("B", 1), ("C", 2)],
        }
    else:
        checks = {
            "V": [("A", 0), ("B", 0), ("C", 0)],
            "M": [("A", 1), ("C", 1)],
            "N": [("B", 1), ("C", 2)],
            "K": [("A", 2), ("B", 2)],
        }
    sizes = {"A": A, "B": B, "C": Cm}
    mma = atom is not None and not atom.is_fma
    if mma and "V" not in checks:
        return (
            f"MMA atom '{atom.name}' needs operands with a value mode, form (V) x (V) => (V), "
            f"(V,M) x (V,N) => (V,M,N) or (V,M,K) x (V,N,K) => (V,M,N); got {form}"
        )
    for name, places in checks.items():
        if name == "V" and mma:
            assert atom is not None
            want = {
                "A": size(atom.layout_a, 1),
                "B": size(atom.layout_b, 1),
                "C": size(atom.layout_c, 1),
            }
            for op_name, i in places:
                got = static_int(sizes[op_name][i])
                if got is None:
                    return f"{op_name}'s value mode must be static for MMA atom '{atom.name}'"
                if got != want[op_name]:
                    return (
                        f"MMA atom '{atom.name}' gives each thread {want[op_name]} values of "
                        f"{op_name}, but {op_name}'s value mode has {got} (form {form})"
                    )
            continue
        op0, i0 = places[0]
        v0 = sizes[op0][i0]
        for op, i in places[1:]:
            v = sizes[op][i]
            if provably_equal(v, v0):
                continue
            if type(v) is int and type(v0) is int:
                return (
                    f"{name} extents differ: {op0} mode {i0} has {v0} but {op} mode {i} has {v} "
                    f"(form {form})"
                )
            return (
                f"cannot prove that the {name} extents agree: {op0} mode {i0} has {v0} but {op} "
                f"mode {i} has {v} (form {form}; {UNPROVEN_SIZES})"
            )
    return None
