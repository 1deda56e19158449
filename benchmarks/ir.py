"""Parse + verify + print of a large generic-form module: layoutc's IR against xDSL.

Builds a module of arith/scf/func ops with nested regions (20k+ ops by default), then times,
in this process, each library parsing it, verifying it and printing it back in the generic
form. Prints a table with the ratio xdsl/layoutc (above 1 means layoutc is faster).

    python benchmarks/ir.py [--functions N] [--repeat R]
"""

from __future__ import annotations

import argparse
import gc
import io
import time


def build_module_text(functions: int, loops: int = 10, body: int = 20) -> str:
    """Generic-form text: functions of scf.for loops whose bodies hold arith and scf.if."""
    lines = ['"builtin.module"() ({']
    for f in range(functions):
        lines.append(
            f'  "func.func"() <{{function_type = (i32, index, f32) -> i32, sym_name = "f{f}"}}> ({{'
        )
        lines.append("  ^bb0(%a: i32, %n: index, %x: f32):")
        lines.append('    %c0 = "arith.constant"() <{value = 0 : index}> : () -> index')
        lines.append('    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index')
        lines.append('    %k = "arith.constant"() <{value = 7 : i32}> : () -> i32')
        acc = "%a"
        for j in range(loops):
            lines.append(f'    %r{j} = "scf.for"(%c0, %n, %c1, {acc}) ({{')
            lines.append(f"    ^bb0(%i{j}: index, %s{j}: i32):")
            prev = f"%s{j}"
            for t in range(body):
                name = f"%v{j}_{t}"
                if t % 5 == 4:
                    lines.append(
                        f'      %c{j}_{t} = "arith.cmpi"({prev}, %k) <{{predicate = 2 : i64}}> : (i32, i32) -> i1'
                    )
                    lines.append(f'      {name} = "scf.if"(%c{j}_{t}) ({{')
                    lines.append(
                        f'        %m{j}_{t} = "arith.muli"({prev}, %k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32'
                    )
                    lines.append(f'        "scf.yield"(%m{j}_{t}) : (i32) -> ()')
                    lines.append("      }, {")
                    lines.append(f'        "scf.yield"({prev}) : (i32) -> ()')
                    lines.append("      }) : (i1) -> i32")
                elif t % 5 == 2:
                    lines.append(
                        f'      %f{j}_{t} = "arith.mulf"(%x, %x) <{{fastmath = #arith.fastmath<none>}}> : (f32, f32) -> f32'
                    )
                    lines.append(
                        f'      {name} = "arith.addi"({prev}, %a) <{{overflowFlags = #arith.overflow<nsw>}}> : (i32, i32) -> i32'
                    )
                else:
                    lines.append(
                        f'      {name} = "arith.addi"({prev}, %k) <{{overflowFlags = #arith.overflow<none>}}> : (i32, i32) -> i32'
                    )
                prev = name
            lines.append(f'      "scf.yield"({prev}) : (i32) -> ()')
            lines.append("    }) : (index, index, index, i32) -> i32")
            acc = f"%r{j}"
        lines.append(f'    "func.return"({acc}) : (i32) -> ()')
        lines.append("  }) : () -> ()")
    lines.append("}) : () -> ()")
    return "\n".join(lines) + "\n"


def time_layoutc(text: str) -> tuple[float, float, float, int, str]:
    from layoutc.ir.core import Context, parse_source, verify_op

    ctx = Context()
    t0 = time.perf_counter()
    module = parse_source(text, ctx)
    t1 = time.perf_counter()
    assert module is not None, "layoutc failed to parse the benchmark module"
    diags = verify_op(module)
    t2 = time.perf_counter()
    assert not diags, diags[0]
    out = module.to_text(generic=True)
    t3 = time.perf_counter()
    count = sum(1 for _ in module.walk_ops())
    return t1 - t0, t2 - t1, t3 - t2, count, out


def time_xdsl(text: str) -> tuple[float, float, float] | None:
    try:
        from xdsl.context import Context
        from xdsl.dialects import get_all_dialects
        from xdsl.parser import Parser
        from xdsl.printer import Printer
    except ImportError:
        return None
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    t0 = time.perf_counter()
    module = Parser(ctx, text).parse_module()
    t1 = time.perf_counter()
    module.verify()
    t2 = time.perf_counter()
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=50, help="functions in the module")
    ap.add_argument("--repeat", type=int, default=3, help="runs per library (best is kept)")
    args = ap.parse_args()
    text = build_module_text(args.functions)

    ours: list[tuple[float, float, float]] = []
    theirs: list[tuple[float, float, float]] = []
    count = 0
    for _ in range(args.repeat):
        gc.collect()
        p, v, w, count, out = time_layoutc(text)
        ours.append((p, v, w))
        gc.collect()
        x = time_xdsl(text)
        if x is not None:
            theirs.append(x)
    # Our generic output re-parses to identical text (the benchmark also checks round-tripping).
    assert time_layoutc(out)[4] == out

    best_ours = min(ours, key=sum)
    print(f"module: {count} ops, {len(text) / 1e6:.2f} MB of generic-form text\n")
    header = f"{'phase':<10} {'layoutc (s)':>12} {'xdsl (s)':>10} {'xdsl/layoutc':>13}"
    print(header)
    print("-" * len(header))
    names = ("parse", "verify", "print")
    best_theirs = min(theirs, key=sum) if theirs else None
    for i, name in enumerate(names):
        if best_theirs is None:
            print(f"{name:<10} {best_ours[i]:>12.3f} {'n/a':>10} {'n/a':>13}")
        else:
            ratio = best_theirs[i] / best_ours[i] if best_ours[i] else float("inf")
            print(f"{name:<10} {best_ours[i]:>12.3f} {best_theirs[i]:>10.3f} {ratio:>12.1f}x")
    total_ours = sum(best_ours)
    if best_theirs is None:
        print(f"{'total':<10} {total_ours:>12.3f} {'n/a':>10} {'n/a':>13}   (xdsl not installed)")
    else:
        total_theirs = sum(best_theirs)
        print(
            f"{'total':<10} {total_ours:>12.3f} {total_theirs:>10.3f} "
            f"{total_theirs / total_ours:>12.1f}x"
        )


if __name__ == "__main__":
    main()
