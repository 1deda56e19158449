"""Views of a symbolic integer as an expression tree, for code generation and for SymPy.

`node(x)` returns `(kind, operands)`:

| kind       | operands                                                                 |
|------------|--------------------------------------------------------------------------|
| "const"    | `(value,)` (only for a plain int)                                        |
| "symbol"   | `()` (the node is the `Symbol`; read `.name`, `.divisible_by`, ...)      |
| "add"      | the terms, each an int-free SymInt, then the nonzero constant if any     |
| "mul"      | `(coeff, monomial)` when coeff != 1, else the atoms (repeated per power) |
| "floordiv" | `(a, b)`, Python floor division                                          |
| "mod"      | `(a, b)`, Python modulo (sign of b)                                      |
| "ceildiv"  | `(a, b)`, ceil(a / b)                                                    |
| "min"/"max"| the arguments (two or more)                                              |

Operands are ints or SymInts; SymInts are interned, so a pass can memoise on them: the monomial
`M*N` inside `4*M*N` and `2*M*N` is the same object. `emit` does exactly that with a set of
callbacks (one per arithmetic op), which is how lower-layouts rebuilds an index as `arith` ops
with common sub-expressions shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .expr import Op, Sum, Symbol, SymInt, mono_expr, term_expr

if TYPE_CHECKING:
    from .expr import IntLike

V = TypeVar("V")


class Emitter(Protocol[V]):
    """Callbacks that build one value per node (e.g. MLIR `arith` ops).

    `floordiv`/`mod` have Python semantics (floor, sign of the divisor); lowering may use the
    unsigned or truncating instructions where operands are provably non-negative (see
    `SymInt.bounds`).
    """

    def const(self, value: int) -> V: ...
    def symbol(self, sym: Symbol) -> V: ...
    def add(self, a: V, b: V) -> V: ...
    def sub(self, a: V, b: V) -> V: ...
    def mul(self, a: V, b: V) -> V: ...
    def floordiv(self, a: V, b: V) -> V: ...
    def mod(self, a: V, b: V) -> V: ...
    def ceildiv(self, a: V, b: V) -> V: ...
    def min(self, a: V, b: V) -> V: ...
    def max(self, a: V, b: V) -> V: ...


def node(x: IntLike) -> tuple[str, tuple]:
    """The expression-tree view `(kind, operands)` (see the module docstring)."""
    if type(x) is int:
        return ("const", (x,))
    if type(x) is Symbol:
        return ("symbol", ())
    if type(x) is Op:
        return (x.kind, x.args)
    if type(x) is not Sum:
        raise TypeError(f"node: expected an int or SymInt, got {x!r}")
    if x.const == 0 and len(x.terms) == 1:
        m, k = x.terms[0]
        if k != 1:
            return ("mul", (k, mono_expr(m)))
        return ("mul", tuple(atom for atom, e in m for _ in range(e)))
    ops: tuple = tuple(term_expr(m, k) for m, k in x.terms)
    if x.const:
        ops += (x.const,)
    return ("add", ops)


def walk(x: IntLike) -> Iterator[SymInt]:
    """Every distinct SymInt sub-expression of x once, operands before their users."""
    out: list[SymInt] = []
    seen: set = set()

    def visit(y: IntLike) -> None:
        if type(y) is int or y in seen:
            return
        seen.add(y)
        for operand in node(y)[1]:
            visit(operand)
        out.append(y)  # type: ignore[arg-type]

    visit(x)
    return iter(out)


def emit(x: IntLike, emitter: Any, memo: dict | None = None) -> Any:
    """Build x with `emitter`'s callbacks; `memo` (SymInt or int -> value) shares results
    between calls, so pass the same dict for all the expressions of one block."""
    if memo is None:
        memo = {}
    return _emit(x, emitter, memo)


def _emit(x: IntLike, em: Any, memo: dict) -> Any:
    v = memo.get(x)
    if v is not None:
        return v
    if type(x) is int:
        v = em.const(x)
    elif type(x) is Symbol:
        v = em.symbol(x)
    elif type(x) is Op:
        args = [_emit(a, em, memo) for a in x.args]
        fn = getattr(em, x.kind)
        v = args[0]
        for a in args[1:]:
            v = fn(v, a)
    else:
        v = _emit_sum(x, em, memo)  # type: ignore[arg-type]
    memo[x] = v
    return v


def _emit_sum(x: Sum, em: Any, memo: dict) -> Any:
    if x.const == 0 and len(x.terms) == 1:
        m, k = x.terms[0]
        if k != 1:
            factor = _emit(mono_expr(m), em, memo)
            return em.mul(factor, _emit(k, em, memo))
        acc = None
        for atom, e in m:
            value = _emit(atom, em, memo)
            for _ in range(e):
                acc = value if acc is None else em.mul(acc, value)
        return acc
    positive: list = [term_expr(m, k) for m, k in x.terms if k > 0]
    negative: list = [term_expr(m, -k) for m, k in x.terms if k < 0]
    if x.const > 0:
        positive.append(x.const)
    elif x.const < 0:
        negative.append(-x.const)
    acc = None
    for t in positive:
        value = _emit(t, em, memo)
        acc = value if acc is None else em.add(acc, value)
    if acc is None:
        acc = _emit(0, em, memo)
    for t in negative:
        acc = em.sub(acc, _emit(t, em, memo))
    return acc


def to_sympy(x: IntLike, *, divisibility: bool = False) -> Any:
    """The SymPy expression of x (symbols are integer SymPy symbols with matching signs).

    With ``divisibility``, a symbol with ``divisible_by = k`` is written ``k * s`` so that SymPy
    sees the fact (the divisibility proofs ask SymPy whether ``x mod d`` is 0).
    """
    import sympy

    memo: dict = {}

    def conv(y: IntLike) -> Any:
        if type(y) is int:
            return sympy.Integer(y)
        r = memo.get(y)
        if r is not None:
            return r
        if type(y) is Symbol:
            name = y.name if y.uid is None else f"{y.name}_{y.uid}"
            if y.lower is not None and y.lower >= 1:
                r = sympy.Symbol(name, integer=True, positive=True)
            elif y.lower is not None and y.lower >= 0:
                r = sympy.Symbol(name, integer=True, nonnegative=True)
            else:
                r = sympy.Symbol(name, integer=True)
            if divisibility and y.divisible_by != 1:
                r = r * y.divisible_by
        elif type(y) is Sum:
            parts = [sympy.Integer(y.const)]
            for m, k in y.terms:
                p = sympy.Integer(k)
                for atom, e in m:
                    p = p * conv(atom) ** e
                parts.append(p)
            r = sympy.Add(*parts)
        else:
            args = [conv(a) for a in y.args]  # type: ignore[attr-defined]
            kind = y.kind  # type: ignore[attr-defined]
            if kind == "floordiv":
                r = sympy.floor(args[0] / args[1])
            elif kind == "mod":
                r = sympy.Mod(args[0], args[1])
            elif kind == "ceildiv":
                r = sympy.ceiling(args[0] / args[1])
            elif kind == "min":
                r = sympy.Min(*args)
            else:
                r = sympy.Max(*args)
        memo[y] = r
        return r

    if not isinstance(x, (int, SymInt)) or isinstance(x, bool):
        raise TypeError(f"to_sympy: expected an int or SymInt, got {x!r}")
    return conv(x)
