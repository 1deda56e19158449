"""Mutated inputs never crash the parser or verifier: they parse and verify, or diagnose."""

from __future__ import annotations

import signal
import time

from hypothesis import given
from hypothesis import strategies as st
from ir_corpus import ALL, MLIR_ONLY
from ir_helpers import examples
from layoutc.ir.core import Context, parse_source, verify_op
from layoutc.ir.core.lexer import TOKEN_RE

SEEDS = [*ALL.values(), MLIR_ONLY]
SEED_TOKENS = [[m.group(1) for m in TOKEN_RE.finditer(s)] for s in SEEDS]
TIME_LIMIT_S = 2.0


def _check(text: str) -> None:
    c = Context(allow_unregistered=True)
    start = time.perf_counter()
    with c.diagnostics.collect() as found:
        module = parse_source(text, c, buffer_name="fuzz.mlir")
    if module is None:
        assert found, "a failed parse must explain itself"
        assert all(d.location.file_line_col() is not None for d in found)
    else:
        verify_op(module)  # must return diagnostics, never raise
        module.to_text()
        module.to_text(generic=True)
    assert time.perf_counter() - start < TIME_LIMIT_S


class _Timeout(Exception):
    pass


def _bounded(text: str) -> None:
    def alarm(signum, frame):
        raise _Timeout(f"input took longer than {TIME_LIMIT_S}s: {text[:200]!r}")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S * 2)
    try:
        _check(text)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@st.composite
def mutated(draw) -> str:
    tokens = list(draw(st.sampled_from(SEED_TOKENS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert"]))
        i = draw(st.integers(0, len(tokens) - 1))
        if kind == "delete":
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == "replace":
            tokens[i] = draw(st.sampled_from(tokens))
        else:
            tokens.insert(
                i,
                draw(
                    st.sampled_from(
                        [
                            "(",
                            ")",
                            "{",
                            "}",
                            "<",
                            ">",
                            ",",
                            ":",
                            "%0",
                            "^bb1",
                            "-",
                            "0x",
                            '"',
                            "#",
                            "!",
                        ]
                    )
                ),
            )
    return " ".join(tokens)


@examples(300)
@given(text=mutated())
def test_token_mutations_never_crash(text: str) -> None:
    _bounded(text)


@examples(150)
@given(seed=st.sampled_from(SEEDS), data=st.data())
def test_byte_mutations_never_crash(seed: str, data) -> None:
    chars = list(seed)
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(chars) - 1))
        action = data.draw(st.integers(0, 2))
        if action == 0:
            del chars[i]
        elif action == 1:
            chars.insert(i, data.draw(st.characters()))
        else:
            chars[i] = data.draw(st.characters(max_codepoint=0x7F))
    _bounded("".join(chars))


@examples(100)
@given(text=st.text(max_size=200))
def test_random_text_never_crashes(text: str) -> None:
    _bounded(text)


def test_pathological_nesting_is_diagnosed() -> None:
    _bounded('"test.op"() : () -> ' + "(" * 5000)
    _bounded('"test.op"() {a = ' + "[" * 5000 + "]" * 5000 + "} : () -> ()")
    _bounded("module {" * 2000)
