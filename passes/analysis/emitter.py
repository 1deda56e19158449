"""``emit``: rebuild a symbolic integer as ``arith`` ops on ``index`` (the code-generation side of
the symbolic value analysis).

What the emitted code gets, and why:

- **Shared subexpressions.** An :class:`IndexEmitter` remembers the value it built for every
  sub-expression (SymInts are hash-consed, so equal sub-expressions are one object) and reuses
  it wherever that value dominates the insertion point.
- **Loop-invariant code motion.** Each op is placed at the outermost enclosing ``scf.for`` /
  ``scf.while`` level where all its operands are available, so the parts of an index that do
  not depend on a loop variable are computed once, before the loop. Likewise out of a
  predication guard (an ``scf.if`` with no control flow inside, such as each predicated access
  of a residue tile): what sibling guards' indices share (a tile's coordinates) is computed
  once before them, not again under each; an ``if`` around loops (a warp role) keeps its code.
  Divisions by a value not provably non-zero stay where they are (a zero-trip loop or a false
  guard must not execute them).
- **Strength reduction.** Multiplication by ``2^k`` is ``shli``; ``floordiv`` by ``2^k`` is
  ``shrui`` (``shrsi`` when the dividend may be negative: an arithmetic shift is a floor
  division); ``mod 2^k`` is ``andi`` with ``2^k - 1`` (exact for every integer in two's
  complement); ``(x // 2^k) * 2^k`` is ``andi`` with ``-2^k``; other divisions and remainders
  use the unsigned ops when the operands are provably non-negative, else floor semantics
  (``floordivsi``, or ``a - floordiv(a, b) * b`` for the remainder).
- **Swizzles.** An element offset through a swizzled layout at a run-time coordinate
  (:class:`~layoutc.ir.dialects.tile.swizzled.SwizzledOffset`, ``plain + Sw(arg)``: the
  symbolic engine has no XOR) becomes ``andi``, a shift and ``xori`` on the emitted argument.

Symbols are the analysis's (:func:`.symbolic.binding_of` gives their values); integer-typed
values are cast to ``index`` once.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra.sym.expr import term_expr, terms_of
from layoutc.ir.algebra.symbolic import Symbol, SymInt, node
from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.block import Block
from layoutc.ir.core.builder import Builder
from layoutc.ir.core.location import Location, UnknownLoc
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.types import IndexType, i1, index
from layoutc.ir.core.values import BlockArgument, Value
from layoutc.ir.dialects import arith, scf
from layoutc.ir.dialects.tile.swizzled import SwizzledOffset

from .bits import split_swizzle_argument
from .symbolic import AnalysisError, binding_of, unbound_reason

IntLike = int | SymInt

__all__ = ["EmitError", "IndexEmitter", "emit", "emittable_before"]

_LOOPS = (scf.ForOp, scf.WhileOp)


class EmitError(AnalysisError):
    """An expression mentions a symbol that stands for no SSA value."""


Level = tuple[Block, "Operation | None"]
"""Insert before the op (or at the end of the block when None)."""


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _nonneg(x: IntLike) -> bool:
    if type(x) is int:
        return x >= 0
    lo = x.bounds[0]
    return lo is not None and lo >= 0


def _nonzero(x: IntLike) -> bool:
    if type(x) is int:
        return x != 0
    lo, hi = x.bounds
    return (lo is not None and lo > 0) or (hi is not None and hi < 0)


class IndexEmitter:
    """Builds SymInts as ``arith`` ops at a builder's insertion point (see the module
    docstring). Keep one emitter for all the expressions of a rewrite so they share code."""

    def __init__(self, builder: Builder, loc: Location | None = None, *, hoist: bool = True):
        self.builder = builder
        self.loc = loc or builder.loc or UnknownLoc()
        self.hoist = hoist
        self._memo: dict[Any, list[Value]] = {}
        self._guards: dict[Operation, bool] = {}
        self._enclosing_levels: list[Level] | None = None
        self._enclosing: dict[Block, Operation] = {}
        self.num_ops = 0
        """How many ops this emitter created."""

    # -- public -----------------------------------------------------------------------------------
    def emit(self, x: IntLike | SwizzledOffset, loc: Location | None = None) -> Value:
        """An ``index`` value equal to ``x`` at the builder's insertion point (also an element
        offset through a swizzle, :class:`SwizzledOffset`)."""
        if loc is not None:
            saved, self.loc = self.loc, loc
            try:
                return self._emit(x, self._levels())
            finally:
                self.loc = saved
        return self._emit(x, self._levels())

    def less_than(self, a: IntLike, b: IntLike) -> Value:
        """An ``i1`` that is ``a < b`` (a constant when the order is provable)."""
        from layoutc.ir.algebra import intops

        if intops.prove_lt(a, b):
            return self._constant_bool(True)
        if intops.prove_le(b, a):
            return self._constant_bool(False)
        levels = self._levels()
        va, vb = self._emit(a, levels), self._emit(b, levels)
        return self._create(arith.CmpIOp, levels, [va, vb], "slt", va, vb)

    def all_of(self, conditions: list[Value]) -> Value:
        """The ``andi`` of ``i1`` values (true for none)."""
        if not conditions:
            return self._constant_bool(True)
        levels = self._levels()
        acc = conditions[0]
        for c in conditions[1:]:
            acc = self._create(arith.AndIOp, levels, [acc, c], acc, c)
        return acc

    # -- placement --------------------------------------------------------------------------------
    def _levels(self) -> list[Level]:
        ip = self.builder.insertion_point
        if ip is None:
            raise EmitError("emit: the builder has no insertion point")
        levels: list[Level] = [(ip.block, ip.before)]
        if not self.hoist:
            return levels
        block = ip.block
        while True:
            parent = block.parent_op
            if parent is None or parent.parent is None:
                break
            if not isinstance(parent, _LOOPS) and not self._is_guard(parent):
                break
            levels.append((parent.parent, parent))
            block = parent.parent
        return levels

    def _is_guard(self, op: Operation) -> bool:
        """``op`` is a predication guard: an ``scf.if`` with no control flow inside (the
        predicated accesses of a residue tile, ``copy_if``'s). What its accesses' indices
        share is emitted once before the guards, not again inside each (a tile's coordinates
        rebuilt, floor-division fix-ups and all, at every predicated load); an ``if`` around
        loops or other control flow (a warp role, an elected thread) keeps its code inside."""
        if not isinstance(op, scf.IfOp):
            return False
        found = self._guards.get(op)
        if found is None:
            found = self._guards[op] = not any(
                inner.regions for region in op.regions for b in region.blocks for inner in b.ops
            )
        return found

    def _level_for(self, operands: list[Value], levels: list[Level], movable: bool) -> int:
        if not movable:
            return 0
        best = 0
        for k in range(len(levels) - 1, 0, -1):
            if all(_available(v, levels[k]) for v in operands):
                best = k
                break
        return best

    def _create(
        self, cls: Any, levels: list[Level], operands: list[Value], *args: Any, movable: bool = True
    ) -> Value:
        # value numbering: the same op on the same values, where one dominates, is that one
        key = (cls, *args)
        found = self._reuse(key, levels)
        if found is not None:
            return found
        k = self._level_for(operands, levels, movable)
        block, before = levels[k]
        op = cls(*args, loc=self.loc)
        block.insert_before(op, before)
        self.num_ops += 1
        return self._remember(key, op.results[0])

    def _remember(self, key: Any, value: Value) -> Value:
        self._memo.setdefault(key, []).append(value)
        return value

    def _reuse(self, key: Any, levels: list[Level]) -> Value | None:
        """The first remembered value of ``key`` available at the insertion point."""
        found = self._memo.get(key)
        if not found:
            return None
        level = levels[0]
        # The insertion point's ancestors, walked once per emitted expression (``levels`` is
        # one list per emit; ops inserted meanwhile do not change them), not per candidate.
        if self._enclosing_levels is levels:
            enclosing = self._enclosing
        else:
            enclosing = self._enclosing = _enclosing_ops(level[0])
            self._enclosing_levels = levels
        for v in found:
            if _available(v, level, enclosing):
                return v
        return None

    # -- nodes ------------------------------------------------------------------------------------
    def _constant(self, value: int, levels: list[Level]) -> Value:
        key = ("const", value)
        found = self._reuse(key, levels)
        if found is not None:
            return found
        v = self._create(arith.ConstantOp, levels, [], IntegerAttr(value, index))
        return self._remember(key, v)

    def constant_bool(self, value: bool) -> Value:
        """The ``i1`` constant (shared, hoisted)."""
        return self._constant_bool(value)

    def _constant_bool(self, value: bool) -> Value:
        levels = self._levels()
        key = ("bool", value)
        found = self._reuse(key, levels)
        if found is not None:
            return found
        v = self._create(arith.ConstantOp, levels, [], IntegerAttr(int(value), i1))
        return self._remember(key, v)

    def _emit(self, x: IntLike, levels: list[Level]) -> Value:
        if type(x) is int:
            return self._constant(x, levels)
        found = self._reuse(x, levels)
        if found is not None:
            return found
        if isinstance(x, SwizzledOffset):
            return self._remember(x, self._swizzled(x, levels))
        return self._remember(x, self._build(x, levels))

    def _swizzled(self, x: SwizzledOffset, levels: list[Level]) -> Value:
        """``plain + Sw<B,M,S>(arg)`` as ``(Sw(low) ^ Sw(c)) + dynamic + constant``
        (:func:`.bits.split_swizzle_argument`): the swizzle of the thread's part ``low`` is
        shared by every access and hoisted, a k-block's constant costs one ``xori`` and the
        pipeline stage and repetitions are plain additions (the constant last, so that it
        can become the address's immediate). Every partial result is shared."""
        sw = x.swizzle
        split = split_swizzle_argument(sw, x.arg)
        key: tuple = ("swizzle", sw, split.low)
        v = self._swizzle_of(sw, split.low, levels)
        if split.xor_constant:
            key += (("xor", split.xor_constant),)
            c = self._constant(sw(split.xor_constant), levels)
            v = self._shared(key, arith.XOrIOp, levels, v, c)
        const, terms = terms_of(split.high + x.plain)
        by_level: dict[int, IntLike] = {}
        for mono, coeff in terms:
            term = term_expr(mono, coeff)
            k = self._level_of(term, levels)
            by_level[k] = by_level.get(k, 0) + term
        for k in sorted(by_level, reverse=True):  # loop-invariant parts first: they hoist
            key += (("add", by_level[k]),)
            d = self._emit(by_level[k], levels)
            v = self._shared(key, arith.AddIOp, levels, v, d)
        if const:
            key += (("add", const),)
            c = self._constant(abs(const), levels)
            v = self._shared(key, arith.AddIOp if const > 0 else arith.SubIOp, levels, v, c)
        return v

    def _shared(self, key: tuple, cls: Any, levels: list[Level], a: Value, b: Value) -> Value:
        """``cls(a, b)``, reusing the value made for ``key`` where it dominates."""
        found = self._reuse(key, levels)
        if found is not None:
            return found
        return self._remember(key, self._create(cls, levels, [a, b], a, b))

    def _level_of(self, x: SymInt, levels: list[Level]) -> int:
        """The outermost level where every symbol of ``x`` is available (0: here)."""
        values = [binding_of(sym) for sym in x.free_symbols]
        if any(v is None for v in values):
            return 0
        return self._level_for(values, levels, True)  # type: ignore[arg-type]

    def _swizzle_of(self, sw: Any, arg: IntLike, levels: list[Level]) -> Value:
        """``Sw<B,M,S>(arg)`` with CuTe's definition of the swizzle:
        ``arg ^ ((arg & yyy_mask) >> S)`` (a left shift for a negative S); shared like any
        sub-expression. The argument is an offset, non-negative, so the shift is logical."""
        if type(arg) is int:
            return self._constant(sw(arg), levels)
        key = ("swizzle", sw, arg)
        found = self._reuse(key, levels)
        if found is not None:
            return found
        a = self._emit(arg, levels)
        mask = self._constant(sw.yyy_mask, levels)
        bits = self._create(arith.AndIOp, levels, [a, mask], a, mask)
        if sw.shift:
            s = self._constant(abs(sw.shift), levels)
            cls = arith.ShRUIOp if sw.shift > 0 else arith.ShLIOp
            bits = self._create(cls, levels, [bits, s], bits, s)
        return self._remember(key, self._create(arith.XOrIOp, levels, [a, bits], a, bits))

    def _build(self, x: SymInt, levels: list[Level]) -> Value:
        kind, args = node(x)
        if kind == "symbol":
            return self._symbol(x, levels)  # type: ignore[arg-type]
        if kind == "add":
            found = self._remainder_form(x, levels)
            if found is not None:
                return found
            return self._sum(args, levels)
        if kind == "mul":
            return self._product(x, args, levels)
        if kind in ("min", "max"):
            return self._minmax(kind, args, levels)
        a, b = args
        if kind == "floordiv":
            return self._floordiv(a, b, levels)
        if kind == "mod":
            return self._mod(a, b, levels)
        return self._ceildiv(a, b, levels)

    def _symbol(self, sym: Symbol, levels: list[Level]) -> Value:
        v = binding_of(sym)
        if v is None:
            why = unbound_reason(sym)
            raise EmitError(
                f"not supported: the expression needs {why}"
                if why is not None
                else f"not supported: the expression mentions {sym.name}, which stands for no "
                "value of this function"
            )
        if isinstance(v.type, IndexType):
            if not _available(v, levels[0]):
                raise EmitError(f"the value behind {sym.name} does not dominate its use")
            return v
        return self._create(arith.IndexCastOp, levels, [v], v, index)

    def _sum(self, terms: tuple, levels: list[Level]) -> Value:
        positive = [t for t in terms if type(t) is not int and not _negative_term(t)]
        negative = [-t for t in terms if type(t) is not int and _negative_term(t)]
        const = next((t for t in terms if type(t) is int), 0)
        acc: Value | None = None
        for t in positive:
            v = self._emit(t, levels)
            acc = v if acc is None else self._create(arith.AddIOp, levels, [acc, v], acc, v)
        if acc is None and const > 0:
            acc, const = self._constant(const, levels), 0
        for t in negative:
            v = self._emit(t, levels)
            if acc is None:
                acc = self._constant(0, levels)
            acc = self._create(arith.SubIOp, levels, [acc, v], acc, v)
        if acc is None:
            acc, const = self._constant(const, levels), 0
        assert acc is not None
        if const > 0:
            c = self._constant(const, levels)
            acc = self._create(arith.AddIOp, levels, [acc, c], acc, c)
        elif const < 0:
            c = self._constant(-const, levels)
            acc = self._create(arith.SubIOp, levels, [acc, c], acc, c)
        return acc

    def _remainder_form(self, x: SymInt, levels: list[Level]) -> Value | None:
        """Emit ``k1*a + kq*(a // c) + R`` as ``k1*(a % c) + (kq + k1*c)*(a // c) + R``.

        The canonical form writes every remainder ``a % c`` as ``a - c*(a // c)``, so the index
        of a split coordinate, ``16*(i % 8) + i // 8``, arrives as ``16*i - 127*(i // 8)``.
        Emitting the remainder again (a mask for a power of two) trades a multiplication by an
        odd constant for shifts and masks; it is done whenever it makes the quotient's
        coefficient smaller.
        """
        _, terms = terms_of(x)
        coeffs = dict(terms)
        for mono, kq in terms:
            if len(mono) != 1 or mono[0][1] != 1:
                continue
            q = mono[0][0]
            kind, args = node(q)
            if kind != "floordiv" or type(args[1]) is not int or args[1] <= 1:
                continue
            a, c = args
            _, a_terms = terms_of(a)
            if not a_terms:
                continue
            lead, lead_k = a_terms[0]
            s0 = coeffs.get(lead)
            if s0 is None or s0 % lead_k:
                continue
            k1 = s0 // lead_k
            if any(coeffs.get(m) != k1 * k for m, k in a_terms):
                continue
            kq2 = kq + k1 * c
            if abs(kq2) >= abs(kq):
                continue
            rest = x - k1 * a - kq * q
            parts: list[tuple[int, Value]] = []
            if type(rest) is not int or rest != 0:
                parts.append((1, self._emit(rest, levels)))
            parts.append((k1, self._mod(a, c, levels)))
            if kq2:
                parts.append((kq2, self._emit(q, levels)))
            return self._combine(parts, levels)
        return None

    def _combine(self, parts: list[tuple[int, Value]], levels: list[Level]) -> Value:
        """``sum(k * v)``: positive parts added, negative ones subtracted."""
        pos = [(k, v) for k, v in parts if k > 0]
        neg = [(-k, v) for k, v in parts if k < 0]
        acc: Value | None = None
        for k, v in pos:
            t = self._times_constant(v, k, levels)
            acc = t if acc is None else self._create(arith.AddIOp, levels, [acc, t], acc, t)
        if acc is None:
            acc = self._constant(0, levels)
        for k, v in neg:
            t = self._times_constant(v, k, levels)
            acc = self._create(arith.SubIOp, levels, [acc, t], acc, t)
        return acc

    def _product(self, x: SymInt, args: tuple, levels: list[Level]) -> Value:
        if type(args[0]) is int and len(args) == 2 and isinstance(args[1], SymInt):
            k, mono = args
            if k < 0:
                v = self._emit(-x, levels)
                zero = self._constant(0, levels)
                return self._create(arith.SubIOp, levels, [zero, v], zero, v)
            return self._scale(mono, k, levels)
        acc: Value | None = None
        for atom in args:
            v = self._emit(atom, levels)
            acc = v if acc is None else self._create(arith.MulIOp, levels, [acc, v], acc, v)
        assert acc is not None
        return acc

    def _scale(self, mono: SymInt, k: int, levels: list[Level]) -> Value:
        """``mono * k`` for a positive constant k, with the masking and shifting reductions."""
        kind, args = node(mono)
        if kind == "floordiv" and type(args[1]) is int and _is_pow2(args[1]) and k % args[1] == 0:
            c = args[1]
            a = self._emit(args[0], levels)
            mask = self._constant(-c, levels)
            v = self._create(arith.AndIOp, levels, [a, mask], a, mask)
            return self._times_constant(v, k // c, levels)
        return self._times_constant(self._emit(mono, levels), k, levels)

    def _times_constant(self, v: Value, k: int, levels: list[Level]) -> Value:
        if k == 1:
            return v
        if _is_pow2(k):
            s = self._constant(k.bit_length() - 1, levels)
            return self._create(arith.ShLIOp, levels, [v, s], v, s)
        c = self._constant(k, levels)
        return self._create(arith.MulIOp, levels, [v, c], v, c)

    def _floordiv(self, a: IntLike, b: IntLike, levels: list[Level]) -> Value:
        va = self._emit(a, levels)
        if type(b) is int and _is_pow2(b):
            s = self._constant(b.bit_length() - 1, levels)
            cls = arith.ShRUIOp if _nonneg(a) else arith.ShRSIOp
            return self._create(cls, levels, [va, s], va, s)
        vb = self._emit(b, levels)
        movable = _nonzero(b)
        if _nonneg(a) and _nonneg(b):
            return self._create(arith.DivUIOp, levels, [va, vb], va, vb, movable=movable)
        return self._create(arith.FloorDivSIOp, levels, [va, vb], va, vb, movable=movable)

    def _mod(self, a: IntLike, b: IntLike, levels: list[Level]) -> Value:
        va = self._emit(a, levels)
        if type(b) is int and _is_pow2(b):
            m = self._constant(b - 1, levels)
            return self._create(arith.AndIOp, levels, [va, m], va, m)
        vb = self._emit(b, levels)
        movable = _nonzero(b)
        if _nonneg(a) and _nonneg(b):
            return self._create(arith.RemUIOp, levels, [va, vb], va, vb, movable=movable)
        q = self._create(arith.FloorDivSIOp, levels, [va, vb], va, vb, movable=movable)
        p = self._create(arith.MulIOp, levels, [q, vb], q, vb)
        return self._create(arith.SubIOp, levels, [va, p], va, p)

    def _ceildiv(self, a: IntLike, b: IntLike, levels: list[Level]) -> Value:
        va = self._emit(a, levels)
        if type(b) is int and _is_pow2(b) and _nonneg(a):
            bias = self._constant(b - 1, levels)
            t = self._create(arith.AddIOp, levels, [va, bias], va, bias)
            s = self._constant(b.bit_length() - 1, levels)
            return self._create(arith.ShRUIOp, levels, [t, s], t, s)
        vb = self._emit(b, levels)
        movable = _nonzero(b)
        cls = arith.CeilDivUIOp if _nonneg(a) and _nonneg(b) else arith.CeilDivSIOp
        return self._create(cls, levels, [va, vb], va, vb, movable=movable)

    def _minmax(self, kind: str, args: tuple, levels: list[Level]) -> Value:
        unsigned = all(_nonneg(a) for a in args)
        if kind == "min":
            cls = arith.MinUIOp if unsigned else arith.MinSIOp
        else:
            cls = arith.MaxUIOp if unsigned else arith.MaxSIOp
        acc = self._emit(args[0], levels)
        for a in args[1:]:
            v = self._emit(a, levels)
            acc = self._create(cls, levels, [acc, v], acc, v)
        return acc


def _negative_term(t: SymInt) -> bool:
    """A term ``k * monomial`` of a sum with k < 0."""
    kind, args = node(t)
    return kind == "mul" and type(args[0]) is int and args[0] < 0


def _block_within(block: Block, outer: Block) -> bool:
    """``block`` is ``outer`` or nested in an op of ``outer`` (not crossing isolated ops)."""
    b: Block | None = block
    while b is not None:
        if b is outer:
            return True
        op = b.parent_op
        if op is None or op.is_isolated_from_above:
            return False
        b = op.parent
    return False


def _precedes(a: Operation, b: Operation) -> bool:
    """``a`` comes before ``b`` in their block. A short backward walk first: emitted values are
    usually just above their uses, and the block's order index is invalidated by every insertion
    (renumbering a long block per query would make emission quadratic). While the block's
    order index is valid it answers at once."""
    block = b.parent
    if block is not None and block._order_valid and a.parent is block:
        return a._order < b._order
    cur = b.prev_op
    for _ in range(32):
        if cur is None:
            return False
        if cur is a:
            return True
        cur = cur.prev_op
    return a.is_before_in_block(b)


def _enclosing_op(block: Block, home: Block) -> Operation | None:
    """The op of ``home`` that contains ``block`` (not crossing isolated ops), if any."""
    b: Block | None = block
    while b is not None:
        op = b.parent_op
        if op is None or op.is_isolated_from_above:
            return None
        if op.parent is home:
            return op
        b = op.parent
    return None


def _enclosing_ops(block: Block) -> dict[Block, Operation]:
    """Each block enclosing ``block`` (not crossing isolated ops) -> its op that contains
    ``block``: the walks of :func:`_available`, done once for many queries at one level."""
    found: dict[Block, Operation] = {}
    b: Block | None = block
    while b is not None:
        op = b.parent_op
        if op is None or op.is_isolated_from_above:
            break
        b = op.parent
        if b is not None:
            found[b] = op
    return found


def _available(v: Value, level: Level, enclosing: dict[Block, Operation] | None = None) -> bool:
    """``v`` is defined before the insertion point ``level`` (dominates it, structurally).
    ``enclosing`` (:func:`_enclosing_ops` of the level's block) answers the ancestor walk
    at once when many values are asked about one level."""
    block, before = level
    if isinstance(v, BlockArgument):
        if enclosing is None:
            return _block_within(block, v.block)
        return v.block is block or v.block in enclosing
    d = v.defining_op
    assert d is not None
    home = d.parent
    if home is None:
        return False
    if home is block:
        return before is None or (d is not before and _precedes(d, before))
    op = _enclosing_op(block, home) if enclosing is None else enclosing.get(home)
    return op is not None and d is not op and _precedes(d, op)


def emittable_before(x: IntLike, op: Operation) -> bool:
    """Whether ``x`` can be emitted right before ``op``: every symbol of it stands for a value
    defined before ``op`` (so that loads can be issued ahead of the accesses that use them)."""
    if type(x) is int:
        return True
    level: Level = (op.parent, op)  # type: ignore[assignment]
    for sym in x.free_symbols:
        v = binding_of(sym)
        if v is None or not _available(v, level):
            return False
    return True


def emit(x: IntLike, builder: Builder, loc: Location | None = None) -> Value:
    """``x`` as ``arith`` ops at ``builder``'s insertion point (a one-off :class:`IndexEmitter`;
    keep an emitter to share subexpressions between several expressions)."""
    return IndexEmitter(builder, loc).emit(x)
