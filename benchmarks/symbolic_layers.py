"""Per-call cost of the symbolic engine's entry points, to compare two versions of the engine.

A refactoring of `ir/algebra/sym/` (moving functions between its layers, the hook table of
docs/symbolic.md) must not slow the calls that cross layers. This times, through the public
face `layoutc.ir.algebra.symbolic` only (so any version of the engine runs it):

- warm rows (memoised results: the cost is the dispatch from a `SymInt` operator through the
  layers into the simplifier's memo): `SymInt + SymInt`, `SymInt * int`;
- `subs` (a substitution re-canonicalizes every node) and `evaluate`;
- a proof, warm (memoised) and cold (fresh symbols: the simplifier, the expanded form, the
  prover and the sampling refutation all run);
- a cold mix (fresh symbols: index arithmetic as the tracer builds it);
- a reference in the same process: a Python-level call of a trivial function. Every row is
  also shown as a multiple of it, which divides out how busy a shared machine was.

    python benchmarks/symbolic_layers.py                 # this interpreter's layoutc
    python benchmarks/symbolic_layers.py --trees A B     # alternate child runs, A's layoutc
                                                         # then B's (each directory goes first
                                                         # on PYTHONPATH; '-' for the default)

With --trees, each tree runs --rounds times, alternating; the table shows per row the best
(smallest) time of each tree, B over A, and B over A in units of each tree's best reference.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable

_ids = itertools.count()


def cases() -> dict[str, Callable[[], object]]:
    """Row name -> a call to time."""
    from layoutc.ir.algebra import symbolic as S

    n = S.Symbol("N", divisible_by=4)
    m = S.Symbol("M")
    i = S.Symbol("i", positive=False, lower=0)
    e = (i % m) * 4 + ((i // m) % n) * (4 * m) + 7
    env = {n: 8, m: 5, i: 123}

    def fresh() -> tuple:
        k = next(_ids)
        return (
            S.Symbol(f"N{k}", divisible_by=4),
            S.Symbol(f"M{k}"),
            S.Symbol(f"i{k}", positive=False, lower=0),
        )

    def cold_proof() -> object:
        fn, fm, _ = fresh()
        ok = S.sym_prove_lt(fn, fn * fm + 1) and S.sym_prove_le(fm // 4, fm)
        assert ok
        return ok

    def cold_mix() -> object:
        fn, fm, fi = fresh()
        c0, c1, c2 = fi % fm, (fi // fm) % fn, fi // (fm * fn)
        r = c0 + fm * c1 + fm * fn * c2
        assert r is fi
        return r

    def reference() -> object:
        return _identity(n)

    return {
        "SymInt + SymInt (warm)": lambda: n + m,
        "SymInt * int (warm)": lambda: m * 3,
        "subs (4 symbols' nodes)": lambda: S.subs(e, {m: n + 1}),
        "evaluate": lambda: S.evaluate(e, env),
        "proof (warm)": lambda: S.sym_prove_le(m // 4, m),
        "proof (cold)": cold_proof,
        "index arithmetic (cold)": cold_mix,
        "reference: f(x)": reference,
    }


def _identity(x: object) -> object:
    return x


def measure() -> dict[str, float]:
    # benchmarks/symbolic.py's timer, imported here: it imports the engine, which must be the
    # tree this child process was started on (PYTHONPATH)
    from symbolic import per_call_us

    return {name: per_call_us(fn, 0.1, 1 << 20) for name, fn in cases().items()}


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for j, r in enumerate(rows):
        cells = [r[0].ljust(widths[0])] + [x.rjust(w) for x, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(cells))
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _child(tree: str) -> dict[str, float]:
    env = dict(os.environ)
    if tree != "-":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    out = subprocess.run(
        [sys.executable, __file__, "--json"], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def compare(trees: list[str], rounds: int) -> str:
    best: list[dict[str, float]] = [{} for _ in trees]
    for _ in range(rounds):
        for t, tree in enumerate(trees):
            for name, us in _child(tree).items():
                best[t][name] = min(best[t].get(name, us), us)
    ref = "reference: f(x)"
    head = ("case (best of rounds)", "A us", "B us", "B / A", "B / A (per reference)")
    rows = [head]
    for name in best[0]:
        a, b = best[0][name], best[1][name]
        per_ref = (b / best[1][ref]) / (a / best[0][ref])
        rows.append((name, f"{a:.3f}", f"{b:.3f}", f"{b / a:.3f}", f"{per_ref:.3f}"))
    legend = "\n".join(f"tree {c}: {t}" for c, t in zip("AB", trees))
    return f"{legend}\n{_table(rows)}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trees", nargs=2, metavar=("A", "B"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.json:
        print(json.dumps(measure()))
        return
    if args.trees:
        print(compare(args.trees, args.rounds))
        return
    result = measure()
    ref = result["reference: f(x)"]
    rows = [("case", "us/call", "x reference")]
    rows += [(name, f"{us:.3f}", f"{us / ref:.2f}") for name, us in result.items()]
    print(_table(rows))


if __name__ == "__main__":
    main()
