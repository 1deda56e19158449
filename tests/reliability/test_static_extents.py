"""Compile time that does not grow with the static values in a program (docs/reliability.md,
"Bounded work"): the symbolic engine looked for divisors of a constant ``c`` by trying every
integer below it (76 s for ``crd2idx`` into ``(2^31-1, 2^31-1)``, 34.5 s for a one-line DSL
store into ``(2^30,4)``); it now factorises ``c`` (ir/algebra/divisors.py). The bound below is
a hang guard, far above the ~1 s these take, not a timing."""

from __future__ import annotations

import io
import random
import signal
from contextlib import contextmanager

import layoutc as lc
import pytest
from layoutc.cli.main import main
from layoutc.cli.opt import main as opt_main
from layoutc.ir.algebra.divisors import divisors_desc, factorize

BOUND_S = 60
P31 = (1 << 31) - 1  # prime
P61 = (1 << 61) - 1  # prime


@contextmanager
def hang_guard():
    def alarm(signum, frame):
        raise TimeoutError(f"took longer than {BOUND_S} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(BOUND_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_divisors_are_the_divisors():
    for n in [*range(1, 400), 720720, 2**20, 3**12 * 5]:
        assert divisors_desc(n) == tuple(d for d in range(n, 0, -1) if n % d == 0), n
    rng = random.Random(0)
    for n in [
        P31,
        P61,
        P31 * P61,
        (1 << 62) - 57,
        2**31 * 3**5,
        *(rng.getrandbits(63) | 1 for _ in range(20)),
    ]:
        divs = divisors_desc(n)
        assert divs[0] == n and divs[-1] == 1 and all(n % d == 0 for d in divs)
        product = 1
        for p, e in factorize(n).items():
            product *= p**e
        assert product == n


@pytest.mark.parametrize(
    "layout, sample",
    [
        (f"({P31},{P31}):({P31},1)", [0, 1, P31 - 1, P31, P31 + 5, P31 * P31 - 1]),
        (f"({P61},4):(4,1)", [0, 3, P61 - 1, P61, 3 * P61 + 7]),
        ("(1073741824,4):(4,1)", [0, 1, 1073741823, 1073741824, 4 * 1073741824 - 1]),
    ],
)
def test_crd2idx_into_huge_static_extents(capsys, layout, sample):
    """The 1-D coordinate splits by the extents (division by a huge constant): the symbolic
    result is computed quickly and evaluates to CuTe's crd2idx at every sample."""
    with hang_guard():
        status = main(["algebra", f"crd2idx(i, {layout})"])
    out, err = capsys.readouterr()
    assert status == 0, err
    expr = out.splitlines()[0]
    reference = lc.parse_layout(layout)
    for i in sample:
        assert eval(expr, {"i": i}) == reference(i), (expr, i)


def test_lowering_crd2idx_into_huge_extents():
    text = f"""
func.func @f(%i: index) -> index {{
  %l = layout.constant #layout.layout<"({P31},{P31}):({P31},1)">
  %c = layout.make_coord %i : !layout.int_tuple<"?">
  %x = layout.crd2idx %c, %l : !layout.int_tuple<"?">, !layout.layout<"({P31},{P31}):({P31},1)">
  return %x : index
}}"""
    out, err = io.StringIO(), io.StringIO()
    with hang_guard():
        rc = opt_main(
            ["-", "-p", "builtin.module(lower-layouts,canonicalize,convert-to-llvm)"],
            stdin=io.StringIO(text),
            stdout=out,
            stderr=err,
        )
    assert rc == 0, err.getvalue()
    assert f"arith.divui %i, %c{P31}_i64" in out.getvalue()


def test_one_line_store_into_a_huge_static_tensor():
    @lc.kernel
    def store(A: lc.Tensor[lc.f32, "(1073741824,4):(4,1)"]):  # noqa: F722
        A[lc.thread_idx.x + lc.block_idx.x * 128] = 1.0

    with hang_guard():
        ck = lc.compile(
            store, lc.spec("f32[(1073741824,4):(4,1)]"), target="sm_90", block=128, cache=False
        )
    assert ".entry store" in ck.ptx
