"""The symbolic integer engine (its public face is `layoutc.ir.algebra.symbolic`).

Modules, in layer order (each imports only modules before it; tests/test_layering.py checks the
import graph is acyclic):

- `cache`: bounded memo tables (`MemoCache`, `clear_caches`) and the prover's cut-off count;
- `hooks`: the table `hooks` of calls that go up this order (see below);
- `expr`: the nodes `SymInt`, `Symbol`, `Op`, `Sum` (hash-consed), their structural divisors,
  the polynomial views and printing;
- `evaluate`: values at ints;
- `bounds`: intervals, and the shift test (a polynomial's sign from its atoms' intervals);
- `expand`: the expanded form (floor basis), the exact decisions on it, `public_bounds` and
  `strong_divisor`;
- `arith`: the simplifier (`add`, `mul`, `floordiv`, `mod`, `ceil_div`, `sym_min`, ...);
- `prove`: sign, order, equality, divisibility;
- `subs`: substitution (a symbolic replacement's assumptions are proven);
- `numtheory`: gcd and lcm;
- `emit`: the tree view, code emission, SymPy;
- `parse`: expressions from text.

Each function lives in the lowest module whose imports it needs. What still goes up the order
(`SymInt`'s methods, and the simplifier's and the expansion's side conditions, which the
prover decides with arithmetic) is called through `hooks`, filled here, once, with the
functions themselves: this is the only place that knows the whole engine.
"""

from __future__ import annotations

from . import arith, emit, evaluate, expand, hooks, numtheory, parse, prove, subs

__all__ = ["arith", "emit", "evaluate", "expand", "numtheory", "parse", "prove", "subs"]

hooks.wire(
    # SymInt's methods
    add=arith.add,
    sub=arith.sub,
    mul=arith.mul,
    floordiv=arith.floordiv,
    mod=arith.mod,
    power=arith.power,
    neg=arith.neg,
    rebuild_op=arith.rebuild_op,
    rebuild_sum=arith.rebuild_sum,
    evaluate=evaluate.evaluate,
    public_bounds=expand.public_bounds,
    strong_divisor=expand.strong_divisor,
    subs=subs.subs,
    to_sympy=emit.to_sympy,
    node=emit.node,
    walk=emit.walk,
    emit=emit.emit,
    # the prover
    sign=prove.sign,
    divides=prove.divides,
    prove_nonneg=prove.prove_nonneg,
    prove_lt=prove.prove_lt,
    prove_le=prove.prove_le,
)
