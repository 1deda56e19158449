"""16-bit register pairs kept whole in register fragments.

ldmatrix and the f16/bf16 MMAs move 16-bit values two per 32-bit register, but after
lower-algorithms each value goes to and comes from a register fragment on its own
(``tile.store`` of every ldmatrix result, ``tile.load`` of every MMA operand). The fragment
becomes an ``alloca`` that LLVM's SROA splits by access size: into halves. Where a fragment
lives across a loop (register double buffering in a pipelined GEMM) the loop then carries
halves, and ptxas repacks them into registers every iteration (a ``PRMT`` per register, 44
per 128 MMAs in the f16 GEMM).

This rewrite, run by convert-to-llvm before the tile ops are lowered, moves each register's
pair as one ``vector<2 x f16|bf16>``: the two stores of an ldmatrix register's halves into
adjacent, pair-aligned fragment elements become one ``tile.store_vector``, and the two loads
of an MMA register's halves from such elements one ``tile.load_vector``. Every access of a
pair's bytes is then 32 bits wide, so SROA keeps the pair as one value (and LLVM folds the
pack/unpack around it). The values and their order are unchanged; anything that does not
match the pattern exactly is left alone.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.core.builder import Builder, InsertionPoint
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import Pure
from layoutc.ir.core.types import VectorType, bf16, f16, i32
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.llvm import ExtractElementOp, InsertElementOp, UndefOp
from layoutc.ir.dialects.tile.types import PtrType

__all__ = ["pair_register_halves"]

_NEIGHBOURHOOD = 64
"""How far apart (in ops, all pure) the two accesses of a pair may be."""


def pair_register_halves(func: Operation) -> None:
    """Rewrite the pair accesses of every ldmatrix and MMA of ``func`` (module docstring)."""
    for op in list(func.walk_ops(include_self=False)):
        if isinstance(op, TD.LdmatrixOp) and _bits(op.results[0].type) == 16:
            _pair_stores(list(op.results))
        elif isinstance(op, TD.MmaOp) and _sixteen_bit_operands(op):
            _pair_loads(list(op.a))
            _pair_loads(list(op.b))


def _bits(t: Any) -> int:
    return 16 if t is f16 or t is bf16 else 0


def _sixteen_bit_operands(op: Any) -> bool:
    sizes = op.properties.get("operandSegmentSizes")
    if sizes is None:
        return all(_bits(v.type) == 16 for v in (*op.a, *op.b))
    na, nb = sizes.values[:2]  # (A and B are the first operands: no accessor tuples per MMA)
    return all(_bits(u.value.type) == 16 for u in op._operands[: na + nb])


def _pair_stores(values: list[Value]) -> None:
    for k in range(0, len(values) - 1, 2):
        first, second = _only_store(values[k]), _only_store(values[k + 1])
        if first is None or second is None:
            continue
        offset = _pair_offset(first, second, first.dest, second.dest)
        if offset is None or not _pure_between(first, second):
            continue
        b = Builder(InsertionPoint.before_op(first), first.location)
        vector = _vector(b, values[k], values[k + 1])
        b.create(TD.StoreVectorOp, vector, first.dest, offset, 4)
        second.erase()
        first.erase()


def _pair_loads(values: list[Value]) -> None:
    for k in range(0, len(values) - 1, 2):
        first, second = values[k].defining_op, values[k + 1].defining_op
        if not isinstance(first, TD.LoadOp) or not isinstance(second, TD.LoadOp):
            continue
        if first is second:
            continue
        offset = _pair_offset(first, second, first.source, second.source)
        if offset is None:
            continue
        if _pure_between(first, second):
            earlier = first
        elif _pure_between(second, first):
            earlier = second
        else:
            continue
        # no store can come between them, so both halves may be read where the earlier was
        b = Builder(InsertionPoint.before_op(earlier), earlier.location)
        vector = b.create(TD.LoadVectorOp, first.source, offset, 2, 4).results[0]
        for lane, old in enumerate((first, second)):
            value = b.create(ExtractElementOp, vector, _i32(b, lane)).results[0]
            old.results[0].replace_all_uses_with(value)
        second.erase()
        first.erase()


def _only_store(v: Value) -> Any:
    """The one ``tile.store`` that stores ``v``, or None (none, or several)."""
    stores = [u.owner for u in v.uses if isinstance(u.owner, TD.StoreOp) and u.owner.value is v]
    return stores[0] if len(stores) == 1 else None


def _pair_offset(first: Any, second: Any, a: Value, b: Value) -> int | None:
    """The even element offset ``o`` when ``first`` and ``second`` access elements ``o`` and
    ``o + 1`` of one register fragment pointer, else None."""
    if a is not b or not isinstance(a.type, PtrType) or a.type.space != "rmem":
        return None
    o, o2 = first.pattern, second.pattern
    if not (type(o) is int and type(o2) is int and o2 == o + 1 and o % 2 == 0):
        return None
    return o


def _pure_between(first: Operation, second: Operation) -> bool:
    """``second`` follows ``first`` in their block with only pure, non-tile ops between."""
    cur = first.next_op
    for _ in range(_NEIGHBOURHOOD):
        if cur is None:
            return False
        if cur is second:
            return True
        if cur.dialect is TD.DIALECT or not cur.has_trait(Pure):
            return False
        cur = cur.next_op
    return False


def _vector(b: Builder, lo: Value, hi: Value) -> Value:
    vec = b.create(UndefOp, VectorType([2], lo.type)).results[0]
    for lane, v in enumerate((lo, hi)):
        vec = b.create(InsertElementOp, vec, v, _i32(b, lane)).results[0]
    return vec


def _i32(b: Builder, v: int) -> Value:
    return b.insert(arith.ConstantOp.from_int(v, i32)).results[0]
