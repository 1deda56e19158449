"""canonicalize / cse / dce on a large module: layoutc's pass manager against xDSL's passes.

Builds a generic-form module of functions with foldable constants, identities, duplicated
expressions, dead code and scf.for/scf.if regions (20k+ ops by default), parses it afresh for
every run, and times only the pass pipeline, in this process, for both libraries. Prints a table
with the ratio xdsl/layoutc (above 1 means layoutc is faster) and the op counts after each
pipeline, so that the work done can be compared.

    python benchmarks/passes.py [--functions N] [--repeat R]
"""

from __future__ import annotations

import argparse
import gc
import time

PIPELINES = ["canonicalize", "cse", "dce", "canonicalize,cse"]


def build_module_text(functions: int, blocks: int = 12) -> str:
    """Generic-form text; each function has ``blocks`` loops of foldable and redundant work."""
    out = ['"builtin.module"() ({']
    for f in range(functions):
        out.append(
            f'  "func.func"() <{{function_type = (i32, index) -> i32, sym_name = "f{f}"}}> ({{'
        )
        out.append("  ^bb0(%a: i32, %n: index):")
        out.append('    %c0 = "arith.constant"() <{value = 0 : index}> : () -> index')
        out.append('    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index')
        acc = "%a"
        for j in range(blocks):
            p = f"%b{j}"
            ops = [
                f'{p}k1 = "arith.constant"() <{{value = {j + 1} : i32}}> : () -> i32',
                f'{p}k2 = "arith.constant"() <{{value = {2 * j + 3} : i32}}> : () -> i32',
                f'{p}z = "arith.constant"() <{{value = 0 : i32}}> : () -> i32',
                f'{p}k = "arith.addi"({p}k1, {p}k2) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32',
                f'{p}x = "arith.addi"({acc}, {p}z) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32',
                f'{p}m1 = "arith.muli"({p}x, {p}k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32',
                f'{p}m2 = "arith.muli"({p}x, {p}k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32',
                f'{p}d = "arith.xori"({p}m1, {p}m2) : (i32, i32) -> i32',
                f'{p}s = "arith.addi"({p}m1, {p}m2) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32',
                f'{p}c = "arith.cmpi"({p}s, {p}k) <{{predicate = 2 : i64}}> : (i32, i32) -> i1',
            ]
            out.extend("    " + o for o in ops)
            out.append(f'    {p}r = "scf.for"(%c0, %n, %c1, {p}s) ({{')
            out.append(f"    ^bb0(%i{j}: index, %t{j}: i32):")
            out.append(
                f'      {p}u = "arith.muli"(%t{j}, {p}k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32'
            )
            out.append(
                f'      {p}v = "arith.muli"(%t{j}, {p}k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32'
            )
            out.append(f'      {p}w = "arith.select"({p}c, {p}u, {p}v) : (i1, i32, i32) -> i32')
            out.append(f'      "scf.yield"({p}w) : (i32) -> ()')
            out.append("    }) : (index, index, index, i32) -> i32")
            out.append(f'    {p}i = "scf.if"({p}c) ({{')
            out.append(
                f'      {p}y = "arith.subi"({p}r, {p}z) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32'
            )
            out.append(f'      "scf.yield"({p}y) : (i32) -> ()')
            out.append("    }, {")
            out.append(f'      "scf.yield"({p}r) : (i32) -> ()')
            out.append("    }) : (i1) -> i32")
            acc = f"{p}i"
        out.append(f'    "func.return"({acc}) : (i32) -> ()')
        out.append("  }) : () -> ()")
    out.append("}) : () -> ()")
    return "\n".join(out) + "\n"


def time_layoutc(text: str, pipeline: str) -> tuple[float, int, int]:
    from layoutc.ir.core import Context, parse
    from layoutc.passes import PassManager

    ctx = Context()
    module = parse(text, ctx)
    before = sum(1 for _ in module.walk_ops())
    pm = PassManager.parse(f"builtin.module({pipeline})", ctx, verify=False)
    gc.collect()
    t0 = time.perf_counter()
    ok = pm.run(module)
    dt = time.perf_counter() - t0
    assert ok, f"layoutc pipeline {pipeline} failed"
    return dt, before, sum(1 for _ in module.walk_ops())


def time_xdsl(text: str, pipeline: str) -> tuple[float, int] | None:
    try:
        from xdsl.context import Context
        from xdsl.dialects import get_all_dialects
        from xdsl.parser import Parser
        from xdsl.transforms import get_all_passes
    except ImportError:
        return None
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    passes = get_all_passes()
    module = Parser(ctx, text).parse_module()
    steps = [passes[name]()() for name in pipeline.split(",")]
    gc.collect()
    t0 = time.perf_counter()
    for step in steps:
        step.apply(ctx, module)
    dt = time.perf_counter() - t0
    return dt, sum(1 for _ in module.walk())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=60, help="functions in the module")
    ap.add_argument("--repeat", type=int, default=3, help="runs per library (best is kept)")
    ap.add_argument("--no-xdsl", action="store_true", help="time layoutc only")
    args = ap.parse_args()
    text = build_module_text(args.functions)
    rows = []
    size = 0
    for pipeline in PIPELINES:
        ours = [time_layoutc(text, pipeline) for _ in range(args.repeat)]
        size = ours[0][1]
        theirs = [] if args.no_xdsl else [time_xdsl(text, pipeline) for _ in range(args.repeat)]
        theirs = [t for t in theirs if t is not None]
        rows.append((pipeline, min(o[0] for o in ours), ours[0][2], theirs))
    print(f"module: {size} ops, {len(text) / 1e6:.2f} MB of generic-form text\n")
    header = (
        f"{'pipeline':<18} {'layoutc (s)':>11} {'ops after':>9} {'xdsl (s)':>9} "
        f"{'ops after':>9} {'xdsl/layoutc':>12}"
    )
    print(header)
    print("-" * len(header))
    for pipeline, ours_s, ours_ops, theirs in rows:
        if theirs:
            best = min(t[0] for t in theirs)
            print(
                f"{pipeline:<18} {ours_s:>11.3f} {ours_ops:>9} {best:>9.3f} "
                f"{theirs[0][1]:>9} {best / ours_s:>11.1f}x"
            )
        else:
            print(f"{pipeline:<18} {ours_s:>11.3f} {ours_ops:>9} {'n/a':>9} {'n/a':>9} {'n/a':>12}")


if __name__ == "__main__":
    main()
