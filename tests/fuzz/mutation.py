"""A deterministic mutation fuzzer's parts (docs/reliability.md, "Keep it that way"): seeds,
mutations and the oracle shared by the layoutc-opt and algebra-parser fuzz tests.

Each case is a seed text and a ``random.Random(case)`` that picks its mutations, so case N is the
same input on every machine: a failure names its case number and the input, and
``LAYOUTC_FUZZ_CASES=N`` / ``LAYOUTC_FUZZ_FIRST=K`` run more cases, or other ones, on request.
The oracle: a diagnostic or success, never an internal error or a traceback, never past a time
bound (the bound is generous: it catches hangs and work that grows with a value, not slowness).
"""

from __future__ import annotations

import os
import random
import re
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Per-input bound on the work (seconds): far above any honest input, far below a hang.
TIME_BOUND_S = float(os.environ.get("LAYOUTC_FUZZ_TIME_BOUND", "30"))

#: Replacement tokens: boundary integers, nesting, separators and names that parsers, verifiers
#: and lowerings have mishandled (docs/reliability.md lists the classes).
HOSTILE_TOKENS = [
    "0", "-1", "1", "2", "3", "7", "64", "255", "256", "65536", "2147483647", "2147483648",
    "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551616", "99999999999999999999999", "1e400", "-0.0", "nan", "0x7fffffff",
    "(", ")", "((", "))", "[", "]", "{", "}", "<", ">", ",", ":", "=", "->", "@", "?", "_",
    "%0", "%x", "^bb1", "@f", "index", "i1", "i64", "i0", "f16", "!tile.ptr<f32, gmem, 16>",
    '"(?,8):(8,1)"', '"(2147483647,2147483647):(2147483647,1)"', '"(1024,1024):(1,1024)"',
    "rmem", "smem", "gmem", "loc(", "{-#", "#-}", "\x00", "\u00e9", '"', "//", "\n",
]  # fmt: skip

_INT = re.compile(r"(?<![\w%^@#.])\d+(?![\w.])")
_BOUNDARY_INTS = [
    0,
    1,
    2,
    3,
    5,
    255,
    1 << 16,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    (1 << 63) - 1,
    1 << 64,
]


def case_range(default_cases: int) -> range:
    """Case numbers this run tries: ``default_cases`` (the CI budget) unless overridden."""
    first = int(os.environ.get("LAYOUTC_FUZZ_FIRST", "0"))
    return range(first, first + int(os.environ.get("LAYOUTC_FUZZ_CASES", default_cases)))


def tokenize(text: str) -> list[str]:
    """Words, numbers, quoted strings and single punctuation, with the whitespace kept."""
    return re.findall(r'"[^"\n]*"|[%^@#!]?[\w.$-]+|\s+|.', text)


def mutate(text: str, rng: random.Random, tokens: list[str] | None = None) -> str:
    """``text`` after one to three integer, token or character mutations. Half of them swap an
    integer for a boundary value: the input still parses and reaches the verifiers and passes
    with hostile values, where most token and character mutations stop at the parser."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.choice(
            ["int"] * 6 + ["delete", "duplicate", "swap", "replace", "insert", "char"]
        )
        if kind == "int":
            ints = list(_INT.finditer(text))
            if ints:
                m = rng.choice(ints)
                text = text[: m.start()] + str(rng.choice(_BOUNDARY_INTS)) + text[m.end() :]
            continue
        if kind == "char":
            at = rng.randrange(len(text) + 1)
            text = (
                text[:at]
                + chr(rng.choice([0, 10, 34, 40, 41, 44, 58, 60, 62, 123, 125, 233]))
                + text[at + 1 :]
            )
            continue
        toks = tokenize(text)
        if not toks:
            return rng.choice(HOSTILE_TOKENS)
        i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
        if kind == "delete" and len(toks) > 1:
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[j])
        elif kind == "swap":
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "replace":
            toks[i] = rng.choice(tokens or HOSTILE_TOKENS)
        else:
            toks.insert(i, rng.choice(HOSTILE_TOKENS))
        text = "".join(toks)
    return text


class BoundExceeded(Exception):
    """An input took longer than TIME_BOUND_S."""


@contextmanager
def time_bound(what: Callable[[], str]) -> Iterator[None]:
    """Raise BoundExceeded (naming ``what()``) if the body runs past TIME_BOUND_S."""
    if sys.platform == "win32":
        yield
        return

    def alarm(signum: int, frame: object) -> None:
        raise BoundExceeded(f"took longer than {TIME_BOUND_S:g} s on {what()}")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_BOUND_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check_diagnostics(rc: int, errors: str, ok: tuple[int, ...], describe: str) -> None:
    """The oracle on a tool's status and stderr."""
    assert rc in ok, f"status {rc} on {describe}:\n{errors[-2000:]}"
    assert "Traceback" not in errors and "internal error" not in errors, (
        f"internal error on {describe}:\n{errors[-2000:]}"
    )
    if rc != 0:
        assert "error" in errors, f"status {rc} without a diagnostic on {describe}"
