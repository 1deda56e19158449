"""The symbolic integer engine (its public face is `layoutc.ir.algebra.symbolic`).

Modules, in layer order (each imports only modules before it; tests/test_layering.py checks the
import graph is acyclic):

- `cache`: bounded memo tables (`MemoCache`, `clear_caches`);
- `hooks`: the table `hooks` of calls that go up this order (see below);
- `expr`: the nodes `SymInt`, `Symbol`, `Op`, `Sum` (hash-consed), their structural divisors,
  the polynomial views and printing;
- `bounds`: intervals;
- `expand`: the expanded form (floor basis) and the exact decisions on it;
- `arith`: the simplifier (`add`, `mul`, `floordiv`, `mod`, `ceil_div`, `sym_min`, ...);
- `prove`: sign, order, equality, divisibility;
- `subs`: evaluate and substitute;
- `numtheory`: gcd and lcm;
- `emit`: the tree view, code emission, SymPy;
- `parse`: expressions from text.

The algorithms are mutually recursive (operators run the simplifier, which asks the prover,
which does arithmetic), so the few calls that go up the order are made through `hooks`,
filled here, once, with the functions themselves: this is the only place that knows the whole
engine.
"""

from __future__ import annotations

from . import arith, emit, expand, hooks, numtheory, parse, prove, subs

__all__ = ["arith", "emit", "expand", "numtheory", "parse", "prove", "subs"]

hooks.wire(
    add=arith.add,
    sub=arith.sub,
    mul=arith.mul,
    floordiv=arith.floordiv,
    mod=arith.mod,
    power=arith.power,
    neg=arith.neg,
    from_pairs=arith.from_pairs,
    rebuild_op=arith.rebuild_op,
    rebuild_sum=arith.rebuild_sum,
    sign=prove.sign,
    divides=prove.divides,
    prove_nonneg=prove.prove_nonneg,
    prove_lt=prove.prove_lt,
    prove_le=prove.prove_le,
    cutoffs=prove.cutoffs,
    shift_plans=prove.shift_plans,
    strong_divisor=prove.strong_divisor,
    public_bounds=prove.public_bounds,
    evaluate=subs.evaluate,
    evaluate_unchecked=subs.evaluate_unchecked,
    subs=subs.subs,
    to_sympy=emit.to_sympy,
    node=emit.node,
    walk=emit.walk,
    emit=emit.emit,
)
