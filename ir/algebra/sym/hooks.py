"""The calls that go up the symbolic engine's layer order: one table, filled once at load.

The package's modules import each other only downward, in this order (tests/test_layering.py
checks that the import graph is acyclic):

    cache < hooks < expr < evaluate < bounds < expand < arith < prove < subs < numtheory
          < emit < parse

Every function lives in the lowest module whose imports it needs, so only two kinds of call
still go up the order, and each goes through this module (`hooks.sign(b)`):

- `SymInt`'s methods (expr): the operators run the simplifier (arith), `.evaluate` and `.subs`,
  `.bounds` and `.known_divisor` (the expanded form), `abs` (a proof), the tree view and
  emission, and unpickling;
- the side conditions of a rewrite (arith) or of an expansion (expand): the prover's sign,
  order and divisibility, which itself does arithmetic on the expanded form.

`sym/__init__.py` sets these globals to the functions themselves, once (`wire`). A call costs
what a call through an imported module always did (a module attribute load: a slotted table
object, or a module `__getattr__` for a friendlier error, measured slower on
`SymInt + SymInt`), and this file names every upward dependency. tests/test_layering.py
checks that each hook is used, and used only where a direct import would close a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fn = Callable[..., Any]


# SymInt's methods (expr): arith
add: Fn
sub: Fn
mul: Fn
floordiv: Fn
mod: Fn
power: Fn
neg: Fn
rebuild_op: Fn
rebuild_sum: Fn
# SymInt's methods (expr): evaluate, expand, subs, emit
evaluate: Fn
public_bounds: Fn
strong_divisor: Fn
subs: Fn
to_sympy: Fn
node: Fn
walk: Fn
emit: Fn
# the prover: side conditions of the simplifier (arith) and the expansion (expand); SymInt's abs
sign: Fn
divides: Fn
prove_nonneg: Fn
prove_lt: Fn
prove_le: Fn

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
