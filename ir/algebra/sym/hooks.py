"""The calls that go up the symbolic engine's layer order: one table, filled once at load.

The package's modules import each other only downward, in this order (tests/test_layering.py
checks that the import graph is acyclic):

    cache < hooks < expr < bounds < expand < arith < prove < subs < numtheory < emit < parse

but the algorithms are mutually recursive: `SymInt.__add__` (expr) runs the simplifier (arith),
the simplifier asks the prover for signs and divisibility (prove), the prover does arithmetic
(arith) on the expanded form (expand), and the expansion asks for signs again. Each call up the
order goes through this module (`hooks.sign(b)`), whose globals `sym/__init__.py` sets to the
functions themselves, once (`wire`). A call costs what a call through an imported module always
did (a module attribute load: a slotted table object, or a module `__getattr__` for a friendlier
error, measured slower on `SymInt + SymInt`), and this file names every upward dependency.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fn = Callable[..., Any]


# arith: SymInt's operators and unpickling (expr), collapsing an expansion (expand)
add: Fn
sub: Fn
mul: Fn
floordiv: Fn
mod: Fn
power: Fn
neg: Fn
from_pairs: Fn
rebuild_op: Fn
rebuild_sum: Fn
# prove: the simplifier's side conditions (arith), divisor signs and shift plans (expand),
# SymInt's abs, bounds and known_divisor (expr)
sign: Fn
divides: Fn
prove_nonneg: Fn
prove_lt: Fn
prove_le: Fn
cutoffs: Fn
shift_plans: Fn
strong_divisor: Fn
public_bounds: Fn
# subs: SymInt.evaluate and .subs (expr), refutation by sampling (prove)
evaluate: Fn
evaluate_unchecked: Fn
subs: Fn
# emit: SymInt.to_sympy, .node, .walk and .emit (expr)
to_sympy: Fn
node: Fn
walk: Fn
emit: Fn

NAMES = tuple(__annotations__)
"""The hook names (every annotated name above)."""


def wire(**functions: Fn) -> None:
    """Fill every hook (exactly the declared ones, each a callable): `sym/__init__.py`, once."""
    missing = set(NAMES) - functions.keys()
    unknown = functions.keys() - set(NAMES)
    if missing or unknown:
        raise RuntimeError(
            f"symbolic engine: hooks missing {sorted(missing)}, unknown {sorted(unknown)}"
        )
    for name, fn in functions.items():
        if not callable(fn):
            raise RuntimeError(f"symbolic engine: hook {name!r} is not callable: {fn!r}")
    globals().update(functions)
