"""Fuzz layoutc-opt's entry point with mutated inputs taken from the lit suite.

Every input must end in exit status 0 (it parsed, verified and the passes ran) or 1 with a
diagnostic: never a traceback, never an "internal error", never a hang.
"""

from __future__ import annotations

import io
import re
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from layoutc.cli.opt import main, split_chunks
from layoutc.ir.core.lexer import TOKEN_RE
from pass_helpers import examples

LIT = Path(__file__).parent.parent / "lit"
SEED_FILES = sorted((LIT / "dialects").glob("*.mlir")) + sorted((LIT / "transforms").glob("*.mlir"))
_RUN_OR_CHECK = re.compile(r"^\s*//.*$", re.MULTILINE)


def _seeds() -> list[str]:
    seeds = []
    for path in SEED_FILES:
        for chunk, _ in split_chunks(path.read_text()):
            text = _RUN_OR_CHECK.sub("", chunk).strip()
            if text:
                seeds.append(text)
    return seeds


SEEDS = _seeds()
SEED_TOKENS = [[m.group(1) for m in TOKEN_RE.finditer(s) if m.group(1)] for s in SEEDS]
EXTRA_TOKENS = [
    "%0", "%x#1", "^bb9", "@f", "{", "}", "(", ")", "[", "]", "<", ">", ":", ",", "=", "->",
    "i1", "i32", "index", "f32", "vector<4xf32>", "0", "-1", "4294967296", "1.5e300", '"s"',
    "func.func", "arith.addi", "scf.for", "scf.if", "cf.br", "scf.yield", "return", "loc(",
    "#arith.overflow<nsw>", "!llvm.ptr", "dense", "{-#", "#-}", "\x00", "é",
]  # fmt: skip
PIPELINES = ["builtin.module(canonicalize,cse,dce,symbol-dce)", "builtin.module(func.func(cse))"]
TIME_LIMIT_S = 20


@st.composite
def mutated(draw) -> str:
    tokens = list(draw(st.sampled_from(SEED_TOKENS)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert"]))
        i = draw(st.integers(0, len(tokens) - 1))
        j = draw(st.integers(0, len(tokens) - 1))
        if kind == "delete" and len(tokens) > 1:
            del tokens[i]
        elif kind == "duplicate":
            tokens.insert(i, tokens[j])
        elif kind == "swap":
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == "replace":
            tokens[i] = draw(st.sampled_from(EXTRA_TOKENS))
        else:
            tokens.insert(i, draw(st.sampled_from(EXTRA_TOKENS)))
    return " ".join(tokens)


def _check(text: str, args: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise TimeoutError(f"layoutc-opt took longer than {TIME_LIMIT_S}s on {text[:300]!r}")

    if sys.platform != "win32":
        old = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(TIME_LIMIT_S)
    try:
        rc = main(["-", *args], stdin=io.StringIO(text), stdout=out, stderr=err)
    finally:
        if sys.platform != "win32":
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
    errors = err.getvalue()
    assert rc in (0, 1), (rc, errors, text)
    assert "Traceback" not in errors and "internal error" not in errors, (errors, text)
    if rc == 1:
        assert "error:" in errors, text
    elif "--verify-diagnostics" not in args:
        assert out.getvalue(), text


def test_seeds_are_valid():
    assert len(SEEDS) > 40
    for text in SEEDS:
        _check(text, ["--allow-unregistered-dialect"])


@examples(300)
@given(mutated(), st.sampled_from(PIPELINES), st.booleans())
def test_mutated_inputs_get_diagnostics(text: str, pipeline: str, unregistered: bool):
    args = ["-p", pipeline]
    if unregistered:
        args.append("--allow-unregistered-dialect")
    _check(text, args)


@examples(100)
@given(
    st.sampled_from(SEEDS),
    st.integers(0, 10**6),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=3),
)
def test_character_level_mutations(text: str, at: int, insert: str):
    at %= len(text) + 1
    _check(text[:at] + insert + text[at + len(insert) :], ["--canonicalize", "--print-generic"])


@pytest.mark.parametrize("flags", [["--split-input-file"], ["--verify-diagnostics"]])
def test_whole_lit_files(flags):
    """Whole annotated files through the split/verify machinery (status only, no crash)."""
    for path in SEED_FILES:
        _check(path.read_text()[:4000], ["--allow-unregistered-dialect", *flags])
