"""The data structure of symbolic integers: immutable, hash-consed canonical expressions.

Why hash-consing: the layout algebra compares and memoises shape and stride entries constantly.
Every node is interned on its structure, so two equal canonical expressions are the same Python
object: `==` and `hash` are object identity (C speed, O(1)), and every operation can be
memoised on its operands. Pickling and copying re-intern, so identity equality always holds.

A `SymInt` is one of three node classes:

- `Symbol`: a run-time integer with assumptions (divisible_by, lower, upper);
- `Op`: an opaque atom `floordiv(a, b)`, `mod(a, b)`, `ceildiv(a, b)`, `min(...)`, `max(...)`
  with canonical operands, made by `arith` only when the operation cannot be folded;
- `Sum`: a polynomial `const + sum(coeff * monomial)`; a monomial is a tuple of
  `(atom, exponent)` pairs sorted by the atoms' order key, an atom being a `Symbol` or an `Op`.

Constants are never SymInts: every operation that folds to a constant returns a Python int, and
a sum that is a single atom with coefficient 1 is that atom. This module only builds nodes from
parts that are already canonical; the rewriting lives in `arith`. It also keeps each node's
structural divisor (`known_divisor`), which marks exact quotients when a division is interned.

The bottom of the engine: the operators and query methods of `SymInt` reach the modules above
(arith, prove, subs, emit) through the hook table `hooks` (see `hooks`), never by import.
"""

from __future__ import annotations

import itertools
import operator
import re
import weakref
from collections.abc import Iterator, Mapping
from math import gcd
from typing import Any

from ..errors import LayoutError
from . import hooks
from .cache import MemoCache

Mono = tuple  # tuple[tuple[atom, int], ...]
Terms = tuple  # tuple[tuple[Mono, int], ...]

OP_KINDS = ("floordiv", "mod", "ceildiv", "min", "max")
_KIND_RANK = {kind: i for i, kind in enumerate(OP_KINDS)}
RESERVED_NAMES = frozenset({"min", "max", "ceil_div"})
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_SYMBOLS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_OPS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_SUMS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_fresh_uids = itertools.count(1)
# Constructor arguments -> symbol, so that `Symbol("N", divisible_by=4)` in a loop skips validation.
_RAW_SYMBOLS = MemoCache("symbol_args")


def _coerce(other: Any) -> Any:
    """An operand for arithmetic: int, SymInt, an int-like (numpy ints), or NotImplemented."""
    if type(other) is int or isinstance(other, SymInt):
        return other
    if isinstance(other, bool) or not hasattr(type(other), "__index__"):
        return NotImplemented
    return operator.index(other)


class SymInt:
    """A canonical integer expression over symbols (see module docstring and docs/symbolic.md).

    Operators `+ - * // % -x` and `**` (non-negative int exponent) work with ints and SymInts and
    return a plain `int` whenever the result is a constant. `==` is structural equality (identity
    of the interned canonical form); provable equality is `prove_eq`. Ordering operators,
    `bool()`, `int()` and `__index__` raise `TypeError`: a symbolic value has no static truth or
    order, and silently picking one would build wrong layouts.
    """

    __slots__ = ("__weakref__", "_bounds", "_free", "_kd", "_okey", "_text", "_xf")

    # -- arithmetic ------------------------------------------------------------------------------
    def __add__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.add(self, other)

    def __radd__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.add(other, self)

    def __sub__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.sub(self, other)

    def __rsub__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.sub(other, self)

    def __mul__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.mul(self, other)

    def __rmul__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.mul(other, self)

    def __floordiv__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.floordiv(self, other)

    def __rfloordiv__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.floordiv(other, self)

    def __mod__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.mod(self, other)

    def __rmod__(self, other: Any) -> IntLike:
        other = _coerce(other)
        return NotImplemented if other is NotImplemented else hooks.mod(other, self)

    def __divmod__(self, other: Any) -> tuple[IntLike, IntLike]:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return hooks.floordiv(self, other), hooks.mod(self, other)

    def __rdivmod__(self, other: Any) -> tuple[IntLike, IntLike]:
        other = _coerce(other)
        if other is NotImplemented:
            return NotImplemented
        return hooks.floordiv(other, self), hooks.mod(other, self)

    def __pow__(self, exponent: Any) -> IntLike:
        if type(exponent) is not int:
            return NotImplemented
        return hooks.power(self, exponent)

    def __neg__(self) -> IntLike:
        return hooks.neg(self)

    def __pos__(self) -> SymInt:
        return self

    def __abs__(self) -> IntLike:
        if hooks.prove_nonneg(self):
            return self
        if hooks.prove_nonneg(hooks.neg(self)):
            return hooks.neg(self)
        raise LayoutError(
            f"abs({self}): cannot determine the sign of {self} for all values of its symbols"
        )

    def __truediv__(self, other: Any) -> Any:
        raise TypeError(
            f"true division of the symbolic integer {self}; use // (floor division) or ceil_div"
        )

    __rtruediv__ = __truediv__

    # -- things a symbolic value cannot do -----------------------------------------------------------
    def _no_order(self, other: Any, op: str) -> Any:
        raise TypeError(
            f"cannot order the symbolic integer {self} and {other} with '{op}': the result depends "
            "on run-time values; use intops.prove_lt/prove_le (provable order) or intops.compare"
        )

    def __lt__(self, other: Any) -> bool:
        return self._no_order(other, "<")

    def __le__(self, other: Any) -> bool:
        return self._no_order(other, "<=")

    def __gt__(self, other: Any) -> bool:
        return self._no_order(other, ">")

    def __ge__(self, other: Any) -> bool:
        return self._no_order(other, ">=")

    def __bool__(self) -> bool:
        raise TypeError(
            f"the truth value of the symbolic integer {self} is unknown at compile time; "
            "use intops.prove_eq/prove_lt or compare with == for structural equality"
        )

    def __index__(self) -> int:
        raise TypeError(
            f"the symbolic integer {self} has no static value; use static_value() or evaluate()"
        )

    __int__ = __index__

    def __float__(self) -> float:
        raise TypeError(
            f"the symbolic integer {self} has no static value; use static_value() or evaluate()"
        )

    # -- identity: hash-consed, so copies are the object itself ---------------------------------------
    def __copy__(self) -> SymInt:
        return self

    def __deepcopy__(self, memo: dict) -> SymInt:
        return self

    # -- printing -------------------------------------------------------------------------------------
    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = _format(self)
        return text

    def __repr__(self) -> str:
        return f"SymInt({self})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    # -- queries --------------------------------------------------------------------------------------
    @property
    def free_symbols(self) -> tuple[Symbol, ...]:
        """The symbols the expression depends on, in the deterministic canonical order."""
        free = self._free
        if free is None:
            found: dict[Symbol, None] = {}
            _collect_symbols(self, found, set())
            free = self._free = tuple(sorted(found, key=order_key))
        return free

    def constant_value(self) -> int | None:
        """The value if the assumptions pin it (lower == upper bound), else None.

        Operations already return plain ints for constant results, so this is None for every
        SymInt except expressions over symbols whose bounds leave a single value.
        """
        lo, hi = hooks.public_bounds(self)
        return lo if lo == hi and lo is not None else None

    @property
    def bounds(self) -> tuple[int | None, int | None]:
        """A proven interval (lower, upper) for every admissible value; None means unbounded."""
        return hooks.public_bounds(self)

    def known_divisor(self) -> int:
        """The largest integer this expression is provably a multiple of (at least 1)."""
        return hooks.strong_divisor(self)

    def evaluate(self, env: Mapping[Any, int]) -> int:
        """The value for the given symbol values (keys: Symbol or symbol name)."""
        return hooks.evaluate(self, env)

    def subs(self, mapping: Mapping[Any, IntLike]) -> IntLike:
        """Substitute symbols (keys: Symbol or name) by ints or expressions and re-canonicalize."""
        return hooks.subs(self, mapping)

    def to_sympy(self) -> Any:
        """The equivalent SymPy expression (imports SymPy)."""
        return hooks.to_sympy(self)

    def node(self) -> tuple[str, tuple]:
        """The expression-tree view `(kind, operands)`; see `emit.node`."""
        return hooks.node(self)

    def walk(self) -> Iterator[SymInt]:
        """Every distinct sub-expression once, children before parents (for code generation)."""
        return hooks.walk(self)

    def emit(self, emitter: Any, memo: dict | None = None) -> Any:
        """Rebuild the expression with `emitter`'s callbacks, sharing common sub-expressions."""
        return hooks.emit(self, emitter, memo)


IntLike = int | SymInt
"""The value type of a shape or stride entry: a static int or a symbolic expression."""


class Symbol(SymInt):
    """A run-time integer with assumptions: `divisible_by | value`, `lower <= value <= upper`.

    Default: a positive integer (lower bound 1), as CuTe shapes are. `positive=False` allows zero
    and negative values (strides, offsets); then give bounds explicitly or leave them unbounded.
    Bounds are tightened to multiples of `divisible_by`.

    Identity: a symbol is its name, its normalized assumptions and its `uid`. With `uid=None`
    (default) `Symbol("N")` written twice is the same symbol; the IR gives every dynamic SSA value
    its own symbol with `Symbol.fresh(name)` (a process-unique uid), so two run-time values that
    share a name and assumptions stay distinct.
    """

    __slots__ = ("_as_terms", "divisible_by", "lower", "name", "uid", "upper")
    _special = False
    _exact_k = 0

    name: str
    divisible_by: int
    lower: int | None
    upper: int | None
    uid: int | None

    def __new__(
        cls,
        name: str,
        *,
        divisible_by: int = 1,
        lower: int | None = None,
        upper: int | None = None,
        positive: bool = True,
        uid: int | None = None,
    ) -> Symbol:
        raw = (name, divisible_by, lower, upper, positive, uid)
        try:
            sym = _RAW_SYMBOLS.get(raw)
        except TypeError:  # unhashable arguments: let validation report them
            sym = None
        if sym is not None:
            return sym
        key = _normalize_symbol(name, divisible_by, lower, upper, positive, uid)
        sym = _SYMBOLS.get(key)
        if sym is None:
            sym = object.__new__(cls)
            sym.name, sym.divisible_by, sym.lower, sym.upper, sym.uid = key
            sym._init()
            _SYMBOLS[key] = sym
        if type(positive) is bool:  # (True == 1: keep the cache key exact)
            _RAW_SYMBOLS.put(raw, sym)
        return sym

    @classmethod
    def fresh(
        cls,
        name: str,
        *,
        divisible_by: int = 1,
        lower: int | None = None,
        upper: int | None = None,
        positive: bool = True,
    ) -> Symbol:
        """A symbol distinct from every other (a new process-unique uid)."""
        return cls(
            name,
            divisible_by=divisible_by,
            lower=lower,
            upper=upper,
            positive=positive,
            uid=next(_fresh_uids),
        )

    def _init(self) -> None:
        self._bounds = None
        self._free = None
        self._kd = self.divisible_by
        self._text = None
        self._xf = None
        self._as_terms = ((((self, 1),), 1),)
        u = self.uid
        self._okey = (
            1,
            self.name,
            (0,) if u is None else (1, u),
            self.divisible_by,
            (0,) if self.lower is None else (1, self.lower),
            (1,) if self.upper is None else (0, self.upper),
        )

    def __reduce__(self) -> tuple:
        return (_make_symbol, (self.name, self.divisible_by, self.lower, self.upper, self.uid))

    @property
    def positive(self) -> bool:
        return self.lower is not None and self.lower >= 1

    def assumptions(self) -> str:
        """The assumptions in words, for error messages: `divisible_by=4, lower=4`."""
        parts = []
        if self.divisible_by != 1:
            parts.append(f"divisible_by={self.divisible_by}")
        if self.lower is not None:
            parts.append(f"lower={self.lower}")
        if self.upper is not None:
            parts.append(f"upper={self.upper}")
        return ", ".join(parts) if parts else "unbounded"

    def admits(self, value: int) -> bool:
        """True when the int `value` satisfies this symbol's assumptions."""
        if value % self.divisible_by:
            return False
        if self.lower is not None and value < self.lower:
            return False
        return self.upper is None or value <= self.upper

    def __repr__(self) -> str:
        args = [repr(self.name)]
        if self.divisible_by != 1:
            args.append(f"divisible_by={self.divisible_by}")
        if self.lower is None or self.lower < 1:
            args.append("positive=False")
            if self.lower is not None:
                args.append(f"lower={self.lower}")
        elif self.lower != self.divisible_by:
            args.append(f"lower={self.lower}")
        if self.upper is not None:
            args.append(f"upper={self.upper}")
        if self.uid is not None:
            args.append(f"uid={self.uid}")
        return f"Symbol({', '.join(args)})"


def _normalize_symbol(
    name: Any, divisible_by: Any, lower: Any, upper: Any, positive: Any, uid: Any
) -> tuple[str, int, int | None, int | None, int | None]:
    """Validate the assumptions of a symbol and bring them to one canonical key."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise LayoutError(
            f"Symbol: the name must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got {name!r}"
        )
    if name in RESERVED_NAMES:
        raise LayoutError(f"Symbol: {name!r} is reserved for the function of that name")
    for what, value in (
        ("divisible_by", divisible_by),
        ("lower", lower),
        ("upper", upper),
        ("uid", uid),
    ):
        if value is not None and type(value) is not int:
            raise LayoutError(f"Symbol {name}: {what} must be an int, got {value!r}")
    if divisible_by is None or divisible_by < 1:
        raise LayoutError(
            f"Symbol {name}: divisible_by must be a positive int, got {divisible_by!r}"
        )
    if type(positive) is not bool:
        raise LayoutError(f"Symbol {name}: positive must be True or False, got {positive!r}")
    if positive:
        if lower is not None and lower < 1:
            raise LayoutError(
                f"Symbol {name}: a positive symbol cannot have lower bound {lower}; pass positive=False"
            )
        if lower is None:
            lower = 1
    d = divisible_by
    if lower is not None:
        lower = -(-lower // d) * d
    if upper is not None:
        upper = (upper // d) * d
    if lower is not None and upper is not None and lower > upper:
        raise LayoutError(
            f"Symbol {name}: no multiple of {d} lies in [{lower if lower is not None else '-inf'}, {upper}]"
            if d != 1
            else f"Symbol {name}: empty range, lower bound {lower} exceeds upper bound {upper}"
        )
    return (name, d, lower, upper, uid)


def _make_symbol(
    name: str, divisible_by: int, lower: int | None, upper: int | None, uid: int | None
) -> Symbol:
    return Symbol(
        name, divisible_by=divisible_by, lower=lower, upper=upper, positive=False, uid=uid
    )


class Op(SymInt):
    """An opaque atom: floordiv/mod/ceildiv(a, b) or min/max(args...), operands canonical."""

    __slots__ = ("_as_terms", "_exact_k", "_special", "args", "kind")

    kind: str
    args: tuple

    def __reduce__(self) -> tuple:
        return (hooks.rebuild_op, (self.kind, self.args))


class Sum(SymInt):
    """`const + sum(coeff * monomial)`, terms sorted by degree (descending) then atoms.

    `_nf` (set by `arith.build`): the terms are a fixed point of the builder's rewrites, so
    adding a constant only moves `const` (`arith.add`'s fast path)."""

    __slots__ = ("_nf", "const", "terms")

    const: int
    terms: Terms

    def __reduce__(self) -> tuple:
        return (hooks.rebuild_sum, (self.const, self.terms))


# ---------------------------------------------------------------------------------------------------
# Raw constructors (operands already canonical)
# ---------------------------------------------------------------------------------------------------


def make_op(kind: str, args: tuple) -> Op:
    """Intern an opaque atom. `floordiv(m, k)` of a monomial m with k | known_divisor(m) is
    marked exact (`_exact_k = k`): the builder may then cancel it against multiples of k."""
    key = (kind, args)
    op = _OPS.get(key)
    if op is not None:
        return op
    op = object.__new__(Op)
    op.kind = kind
    op.args = args
    op._bounds = None
    op._free = None
    op._kd = 0
    op._text = None
    op._xf = None
    op._as_terms = ((((op, 1),), 1),)
    op._okey = (2, _KIND_RANK[kind], tuple(order_key(a) for a in args))
    exact = 0
    if (
        kind == "floordiv"
        and type(args[1]) is int
        and is_unit_monomial(args[0])
        and known_divisor(args[0]) % args[1] == 0
    ):
        exact = args[1]
    op._exact_k = exact
    op._special = exact != 0 or kind in ("mod", "floordiv")
    _OPS[key] = op
    return op


def known_divisor(x: IntLike) -> int:
    """The largest integer that provably divides x (|x| for ints, so 0 for 0); at least 1."""
    if type(x) is int:
        return -x if x < 0 else x
    kd = x._kd  # type: ignore[attr-defined]
    if kd == 0:
        kd = x._kd = _compute_divisor(x)  # type: ignore[attr-defined]
    return kd


def mono_divisor(mono: Mono) -> int:
    d = 1
    for atom, e in mono:
        d *= known_divisor(atom) ** e
    return d


def _compute_divisor(x: object) -> int:
    if type(x) is Sum:
        g = abs(x.const)
        for mono, coeff in x.terms:
            g = gcd(g, abs(coeff) * mono_divisor(mono))
            if g == 1:
                break
        return g or 1
    assert type(x) is Op
    if x._exact_k:
        return known_divisor(x.args[0]) // x._exact_k
    if x.kind == "mod":
        return gcd(known_divisor(x.args[0]), known_divisor(x.args[1])) or 1
    if x.kind in ("min", "max"):
        g = 0
        for a in x.args:
            g = gcd(g, known_divisor(a))
        return g or 1
    return 1


def make_sum(const: int, terms: Terms) -> IntLike:
    """Intern a canonical sum given sorted, non-zero, normalized terms; collapses trivial cases."""
    if not terms:
        return const
    if const == 0 and len(terms) == 1:
        mono, coeff = terms[0]
        if coeff == 1 and len(mono) == 1 and mono[0][1] == 1:
            return mono[0][0]
    key = (const, terms)
    s = _SUMS.get(key)
    if s is not None:
        return s
    s = object.__new__(Sum)
    s.const = const
    s.terms = terms
    s._bounds = None
    s._free = None
    s._kd = 0
    s._text = None
    s._xf = None
    s._okey = None
    s._nf = False
    _SUMS[key] = s
    return s


def terms_of(x: IntLike) -> tuple[int, Terms]:
    """The polynomial view `(const, terms)` of any value."""
    if type(x) is int:
        return x, ()
    if type(x) is Sum:
        return x.const, x.terms
    return 0, x._as_terms  # type: ignore[attr-defined]


def mono_expr(mono: Mono) -> SymInt:
    """The SymInt of a monomial with coefficient 1 (an atom itself when it has one factor)."""
    if len(mono) == 1 and mono[0][1] == 1:
        return mono[0][0]
    return make_sum(0, ((mono, 1),))  # type: ignore[return-value]


def term_expr(mono: Mono, coeff: int) -> IntLike:
    """The SymInt of one term `coeff * mono`."""
    if not mono:
        return coeff
    if coeff == 1:
        return mono_expr(mono)
    return make_sum(0, ((mono, coeff),))


def is_unit_monomial(x: IntLike) -> bool:
    """True for a product of atoms with coefficient 1 (an atom, or a one-term sum like M*N)."""
    if type(x) is int:
        return False
    if type(x) is Sum:
        return x.const == 0 and len(x.terms) == 1 and x.terms[0][1] == 1
    return True


def single_term(x: IntLike) -> tuple[int, Mono] | None:
    """`(coeff, mono)` when x is one term (an int has the empty monomial), else None."""
    if type(x) is int:
        return x, ()
    if type(x) is Sum:
        if x.const == 0 and len(x.terms) == 1:
            mono, coeff = x.terms[0]
            return coeff, mono
        return None
    return 1, ((x, 1),)


def mono_mul(m1: Mono, m2: Mono) -> Mono:
    """Product of two monomials (exponents add), sorted by the atoms' order key."""
    if not m1:
        return m2
    if not m2:
        return m1
    exps = dict(m1)
    for atom, e in m2:
        exps[atom] = exps.get(atom, 0) + e
    return tuple(sorted(exps.items(), key=_atom_key))


def mono_div(m: Mono, d: Mono) -> Mono | None:
    """m / d when every factor of d divides m (exponent-wise), else None."""
    if not d:
        return m
    exps = dict(m)
    for atom, e in d:
        have = exps.get(atom, 0)
        if have < e:
            return None
        if have == e:
            del exps[atom]
        else:
            exps[atom] = have - e
    return tuple(sorted(exps.items(), key=_atom_key))


def mono_degree(m: Mono) -> int:
    return sum(e for _, e in m)


def _atom_key(item: tuple) -> tuple:
    return item[0]._okey


def mono_key(m: Mono) -> tuple:
    return tuple((atom._okey, e) for atom, e in m)


def term_sort_key(term: tuple) -> tuple:
    """Canonical (and printing) order of terms: higher degree first, then by atoms."""
    mono = term[0]
    return (-mono_degree(mono), mono_key(mono))


def order_key(x: IntLike) -> tuple:
    """A deterministic total order on values: ints < symbols < opaque atoms < sums."""
    if type(x) is int:
        return (0, x)
    key = x._okey
    if key is None:
        key = x._okey = (3, tuple((mono_key(m), c) for m, c in x.terms), x.const)  # type: ignore[attr-defined]
    return key


def atoms_of(x: IntLike) -> tuple:
    """The distinct top-level atoms of x's monomials, in order."""
    _, terms = terms_of(x)
    seen: dict[Any, None] = {}
    for mono, _ in terms:
        for atom, _ in mono:
            seen[atom] = None
    return tuple(sorted(seen, key=order_key))


def _collect_symbols(x: IntLike, found: dict, seen: set) -> None:
    if type(x) is int or x in seen:
        return
    seen.add(x)
    if type(x) is Symbol:
        found[x] = None
    elif type(x) is Op:
        for a in x.args:
            _collect_symbols(a, found, seen)
    else:
        for mono, _ in x.terms:  # type: ignore[attr-defined]
            for atom, _ in mono:
                _collect_symbols(atom, found, seen)


# ---------------------------------------------------------------------------------------------------
# Printing: readable, deterministic, and parseable by `parse` (Python precedence)
# ---------------------------------------------------------------------------------------------------


def _format(x: SymInt) -> str:
    if type(x) is Symbol:
        return x.name
    if type(x) is Op:
        kind, args = x.kind, x.args
        if kind == "floordiv":
            return f"{_lhs(args[0])} // {_rhs(args[1])}"
        if kind == "mod":
            return f"{_lhs(args[0])} % {_rhs(args[1])}"
        name = "ceil_div" if kind == "ceildiv" else kind
        return f"{name}({', '.join(str(a) for a in args)})"
    parts: list[str] = []
    for i, (mono, coeff) in enumerate(x.terms):  # type: ignore[attr-defined]
        mag = -coeff if coeff < 0 else coeff
        body = _mono_str(mono, standalone=mag == 1, leading_minus=i == 0 and coeff < 0)
        if mag != 1:
            body = f"{mag}*{body}"
        if i == 0:
            parts.append(body if coeff > 0 else "-" + body)
        else:
            parts.append((" + " if coeff > 0 else " - ") + body)
    const = x.const  # type: ignore[attr-defined]
    if const:
        parts.append(f" + {const}" if const > 0 else f" - {-const}")
    return "".join(parts)


def _is_binop(atom: Any) -> bool:
    return type(atom) is Op and atom.kind in ("floordiv", "mod")


def _mono_str(mono: Mono, standalone: bool, leading_minus: bool) -> str:
    if standalone and len(mono) == 1 and mono[0][1] == 1:
        atom = mono[0][0]
        # "-(N // 4)" keeps a leading minus outside the division ("-N // 4" is (-N) // 4);
        # after a binary + or - the division binds tighter anyway: "M - N // 4".
        return f"({atom})" if leading_minus and _is_binop(atom) else str(atom)
    out = []
    for atom, e in mono:
        text = f"({atom})" if _is_binop(atom) else str(atom)
        out.extend([text] * e)
    return "*".join(out)


def _lhs(a: IntLike) -> str:
    if type(a) is int or type(a) is Symbol:
        return str(a)
    if type(a) is Op:
        return f"({a})" if _is_binop(a) else str(a)
    if a.const == 0 and len(a.terms) == 1 and not any(_is_binop(f) for f, _ in a.terms[0][0]):  # type: ignore[attr-defined]
        return str(a)
    return f"({a})"


def _rhs(b: IntLike) -> str:
    if (type(b) is int and b >= 0) or type(b) is Symbol or (type(b) is Op and not _is_binop(b)):
        return str(b)
    return f"({b})"
