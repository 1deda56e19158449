"""Layout-algebra speed: layoutc against NVIDIA's pycute (same process), and symbolic operations.

Run: python benchmarks/algebra.py [--quick]

Prints the best time per call (microseconds) of each operation on static layouts with
layoutc and with pycute, and their ratio (pycute / layoutc, so > 1 means layoutc is faster);
then the symbolic operations on small layouts after warm-up (goal: every one under 1 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from collections.abc import Callable


def _time(fn: Callable[[], object], repeat: int, number: int) -> float:
    """Best seconds per call over `repeat` runs of `number` calls, after a warm-up."""
    for _ in range(number):
        fn()
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number


def _time_pair(
    a: Callable[[], object], b: Callable[[], object], repeat: int, number: int
) -> tuple[float, float]:
    """Best time per call of a and of b, measured in alternation so that both see the same load."""
    for _ in range(number):
        a()
        b()
    best_a = best_b = float("inf")
    for _ in range(repeat):
        best_a = min(best_a, timeit.timeit(a, number=number))
        best_b = min(best_b, timeit.timeit(b, number=number))
    return best_a / number, best_b / number


def static_cases() -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    import layoutc.ir.algebra as lc
    import pycute as pc

    def both(shape, stride):
        return lc.Layout(shape, stride), pc.Layout(shape, stride)

    a1, p1 = both((2, (1, 6), (4, 2)), (1, (6, 2), (12, 48)))
    a2, p2 = both((6, 2), (8, 2))
    b2, q2 = both((4, 3), (3, 1))
    a3, p3 = both((12, (4, 8)), (59, (13, 1)))
    b3, q3 = both(((3, 2), (2, 4)), ((1, 3), (6, 12)))
    a4, p4 = both((2, 2), (1, 6))
    a5, p5 = both((9, (4, 8)), (59, (13, 1)))
    t5 = (lc.Layout(3, 3), lc.Layout((2, 4), (1, 8)))
    s5 = (pc.Layout(3, 3), pc.Layout((2, 4), (1, 8)))
    a6, p6 = both((4, 2, 3), (2, 1, 8))
    b6, q6 = both(4, 2)
    a7, p7 = both((2, 2), (4, 1))
    b7, q7 = both((4, 2), (2, 1))
    a8, p8 = both((4, (2, 4)), (2, (1, 8)))
    a9, p9 = both((8, (2, 4)), (8, (1, 64)))
    return [
        ("coalesce ((2,(1,6),(4,2)))", lambda: lc.coalesce(a1), lambda: pc.coalesce(p1)),
        (
            "composition (6,2):(8,2) o (4,3):(3,1)",
            lambda: lc.composition(a2, b2),
            lambda: pc.composition(p2, q2),
        ),
        (
            "composition nested (12,(4,8)) o ((3,2),(2,4))",
            lambda: lc.composition(a3, b3),
            lambda: pc.composition(p3, q3),
        ),
        (
            "complement((2,2):(1,6), 24)",
            lambda: lc.complement(a4, 24),
            lambda: pc.complement(p4, 24),
        ),
        (
            "logical_divide 1-D (4,2,3):(2,1,8) / 4:2",
            lambda: lc.logical_divide(a6, b6),
            lambda: pc.logical_divide(p6, q6),
        ),
        (
            "logical_divide 2-D by <3:3,(2,4):(1,8)>",
            lambda: lc.logical_divide(a5, t5),
            lambda: pc.logical_divide(p5, s5),
        ),
        (
            "zipped_divide 2-D by <3:3,(2,4):(1,8)>",
            lambda: lc.zipped_divide(a5, t5),
            lambda: pc.zipped_divide(p5, s5),
        ),
        (
            "logical_product (2,2):(4,1) x (4,2):(2,1)",
            lambda: lc.logical_product(a7, b7),
            lambda: pc.logical_product(p7, q7),
        ),
        (
            "left_inverse (4,(2,4)):(2,(1,8))",
            lambda: lc.left_inverse(a8),
            lambda: pc.left_inverse(p8),
        ),
        (
            "right_inverse (8,(2,4)):(8,(1,64))",
            lambda: lc.right_inverse(a9),
            lambda: pc.right_inverse(p9),
        ),
        ("crd2idx L(17) on (12,(4,8))", lambda: a3(17), lambda: p3(17)),
    ]


def symbolic_cases() -> list[tuple[str, Callable[[], object]]]:
    import layoutc.ir.algebra as lc
    from layoutc.ir.algebra.symbolic import Symbol

    n = Symbol("N", divisible_by=8)
    m = Symbol("M", divisible_by=4)
    t = Symbol("t", positive=False, lower=0, upper=127)
    a = lc.Layout((n, 8), (1, 2 * n))
    row = lc.Layout((n, m), (m, 1))
    act = lc.Layout(((n, 4, 2, 2), (64, 3, 3, 3)), ((6144, 1024, 256, 64), (1, 1024, 256, 64)))
    return [
        ("coalesce (N,8):(1,N)", lambda: lc.coalesce(lc.Layout((n, 8), (1, n)))),
        (
            "composition (N,8):(1,2N) o (4,2):(2,1)",
            lambda: lc.composition(a, lc.Layout((4, 2), (2, 1))),
        ),
        (
            "composition (N,M):(M,1) o (8,4):(1,N)",
            lambda: lc.composition(row, lc.Layout((8, 4), (1, n))),
        ),
        ("complement(4:1, N)", lambda: lc.complement(lc.Layout(4, 1), n)),
        ("logical_divide (N,8):(1,2N) by (4,2)", lambda: lc.logical_divide(a, (4, 2))),
        (
            "zipped_divide example-59 activation",
            lambda: lc.zipped_divide(act, ((4, 4, 2, 2), (32, 1, 1, 1))),
        ),
        ("logical_product 4:1 x N:1", lambda: lc.logical_product(lc.Layout(4, 1), lc.Layout(n, 1))),
        (
            "blocked_product (2,2) x (M,N)",
            lambda: lc.blocked_product(lc.Layout((2, 2)), lc.Layout((m, n))),
        ),
        ("left_inverse (8,N):(N,1)", lambda: lc.left_inverse(lc.Layout((8, n), (n, 1)))),
        ("right_inverse (N,M):(M,1)", lambda: lc.right_inverse(row)),
        ("max_common_vector (N,8) vs itself", lambda: lc.max_common_vector(a, a)),
        ("crd2idx L(t) on (N,M):(M,1)", lambda: row(t)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    repeat, number = (3, 200) if args.quick else (7, 1000)

    print(
        f"Python {sys.version.split()[0]}; best of {repeat} runs of {number} calls; times in microseconds"
    )
    print()
    header = f"{'static operation':<48} {'layoutc':>9} {'pycute':>9} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    ratios = []
    for name, ours, theirs in static_cases():
        t_ours, t_theirs = (t * 1e6 for t in _time_pair(ours, theirs, repeat, number))
        ratios.append(t_theirs / t_ours)
        print(f"{name:<48} {t_ours:9.2f} {t_theirs:9.2f} {t_theirs / t_ours:6.2f}x")
    print("-" * len(header))
    print(
        f"{'geometric mean of pycute/layoutc':<48} {'':>9} {'':>9} {statistics.geometric_mean(ratios):6.2f}x"
    )
    print()
    header = f"{'symbolic operation (after warm-up)':<48} {'layoutc':>9} {'< 1 ms':>9}"
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name, fn in symbolic_cases():
        t = _time(fn, repeat, max(number // 10, 20)) * 1e6
        worst = max(worst, t)
        print(f"{name:<48} {t:9.2f} {'yes' if t < 1000 else 'NO':>9}")
    print("-" * len(header))
    print(f"{'slowest symbolic operation':<48} {worst:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
