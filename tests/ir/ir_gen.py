"""Random valid programs built through the Python API (builder + dialect op classes).

Used by property tests: whatever the generator builds must verify, round-trip through both
textual forms, be accepted by xDSL, and keep its meaning under folding.
"""

from __future__ import annotations

import random

from layoutc.ir.core import Builder, FunctionType, InsertionPoint, Value, f32, i1, i32, i64, index
from layoutc.ir.dialects import arith, scf
from layoutc.ir.dialects.builtin import ModuleOp
from layoutc.ir.dialects.func import FuncOp, ReturnOp

INT_BINARY = [
    arith.AddIOp,
    arith.SubIOp,
    arith.MulIOp,
    arith.DivSIOp,
    arith.DivUIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.FloorDivSIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.ShLIOp,
    arith.ShRUIOp,
    arith.ShRSIOp,
]
FLOAT_BINARY = [
    arith.AddFOp,
    arith.SubFOp,
    arith.MulFOp,
    arith.DivFOp,
    arith.RemFOp,
    arith.MaximumFOp,
    arith.MinimumFOp,
    arith.MaxNumFOp,
    arith.MinNumFOp,
]


class _Gen:
    def __init__(self, rng: random.Random, budget: int):
        self.rng = rng
        self.budget = budget

    def pick(self, pool: dict, t) -> Value:
        return self.rng.choice(pool[t])

    def block(self, b: Builder, pool: dict, depth: int) -> None:
        rng = self.rng
        for _ in range(rng.randint(1, 8)):
            if self.budget <= 0:
                return
            self.budget -= 1
            kind = rng.random()
            if kind < 0.15:
                self.constant(b, pool)
            elif kind < 0.45:
                t = rng.choice([i32, index, i64])
                cls = rng.choice(INT_BINARY)
                op = b.create(cls, self.pick(pool, t), self.pick(pool, t))
                pool[t].append(op.results[0])
            elif kind < 0.55:
                cls = rng.choice(FLOAT_BINARY)
                op = b.create(cls, self.pick(pool, f32), self.pick(pool, f32))
                pool[f32].append(op.results[0])
            elif kind < 0.65:
                t = rng.choice([i32, index, f32])
                if t is f32:
                    pred = rng.choice(list(arith.CmpFPredicate))
                    op = b.create(arith.CmpFOp, pred, self.pick(pool, t), self.pick(pool, t))
                else:
                    pred = rng.choice(list(arith.CmpIPredicate))
                    op = b.create(arith.CmpIOp, pred, self.pick(pool, t), self.pick(pool, t))
                pool[i1].append(op.results[0])
            elif kind < 0.72:
                t = rng.choice([i32, index, f32, i1])
                op = b.create(
                    arith.SelectOp, self.pick(pool, i1), self.pick(pool, t), self.pick(pool, t)
                )
                pool[t].append(op.results[0])
            elif kind < 0.82:
                self.cast(b, pool)
            elif depth < 2 and kind < 0.91:
                self.loop(b, pool, depth)
            elif depth < 2:
                self.if_(b, pool, depth)

    def constant(self, b: Builder, pool: dict) -> None:
        rng = self.rng
        t = rng.choice([i32, index, i64, f32, i1])
        if t is f32:
            op = b.create(
                arith.ConstantOp.from_float, rng.choice([0.0, -0.0, 1.0, 2.5, -3.25, 1e-3]), f32
            )
        elif t is i1:
            op = b.create(arith.ConstantOp.from_int, rng.randint(0, 1), i1)
        else:
            op = b.create(arith.ConstantOp.from_int, rng.choice([0, 1, -1, 2, 7, 31, 64, -5]), t)
        pool[t].append(op.results[0])

    def cast(self, b: Builder, pool: dict) -> None:
        choice = self.rng.randint(0, 5)
        if choice == 0:
            op = b.create(arith.IndexCastOp, self.pick(pool, i32), index)
            pool[index].append(op.results[0])
        elif choice == 1:
            op = b.create(arith.IndexCastOp, self.pick(pool, index), i32)
            pool[i32].append(op.results[0])
        elif choice == 2:
            op = b.create(arith.ExtSIOp, self.pick(pool, i32), i64)
            pool[i64].append(op.results[0])
        elif choice == 3:
            op = b.create(arith.TruncIOp, self.pick(pool, i64), i32)
            pool[i32].append(op.results[0])
        elif choice == 4:
            op = b.create(arith.SIToFPOp, self.pick(pool, i32), f32)
            pool[f32].append(op.results[0])
        else:
            op = b.create(arith.ExtUIOp, self.pick(pool, i1), i32)
            pool[i32].append(op.results[0])

    def loop(self, b: Builder, pool: dict, depth: int) -> None:
        lb, ub, step = (b.create(arith.ConstantOp.from_int, v, index).results[0] for v in (0, 4, 1))
        init = self.pick(pool, i32)
        loop = b.create(scf.ForOp, lb, ub, step, [init])
        inner = {t: list(v) for t, v in pool.items()}
        inner[index].append(loop.induction_var)
        inner[i32].append(loop.region_iter_args[0])
        body = Builder(InsertionPoint.at_end(loop.body_block))
        self.block(body, inner, depth + 1)
        body.create(scf.YieldOp, self.pick(inner, i32))
        pool[i32].append(loop.results[0])

    def if_(self, b: Builder, pool: dict, depth: int) -> None:
        op = b.create(scf.IfOp, self.pick(pool, i1), [f32])
        for block in (op.then_block, op.else_block):
            inner = {t: list(v) for t, v in pool.items()}
            body = Builder(InsertionPoint.at_end(block))
            self.block(body, inner, depth + 1)
            body.create(scf.YieldOp, self.pick(inner, f32))
        pool[f32].append(op.results[0])


def random_module(seed: int, budget: int = 40) -> ModuleOp:
    """A verified-valid module of 1-2 functions built from ``seed``."""
    rng = random.Random(seed)
    module = ModuleOp()
    for n in range(rng.randint(1, 2)):
        fn = FuncOp(f"f{n}", FunctionType([i32, index, f32, i1, i64], [i32]))
        module.block.append(fn)
        a = fn.args
        pool = {i32: [a[0]], index: [a[1]], f32: [a[2]], i1: [a[3]], i64: [a[4]]}
        b = Builder(InsertionPoint.at_end(fn.entry_block))
        _Gen(rng, budget).block(b, pool, 0)
        b.create(ReturnOp, rng.choice(pool[i32]))
    return module
