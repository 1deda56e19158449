"""Mutation fuzzing of ``layoutc-opt`` over the whole lit corpus (docs/reliability.md).

Every ``// -----`` chunk of every tests/lit file is a seed, run through a pipeline of its own
file's RUN lines (so mutated inputs reach every pass the corpus tests, not only the parser),
after integer, token and character mutations (tests/fuzz/mutation.py). The oracle: status 0,
or 1 with a diagnostic; never an internal error, a traceback or more than TIME_BOUND_S.
Deterministic: case N is the same input everywhere. CI runs a few seconds' worth;
``LAYOUTC_FUZZ_CASES=20000 pytest tests/fuzz/test_fuzz_opt_mutations.py`` runs a long campaign.
"""

from __future__ import annotations

import io
import random
import re
from functools import cache
from pathlib import Path

from layoutc.cli.opt import main, split_chunks
from mutation import case_range, check_diagnostics, mutate, time_bound

LIT = Path(__file__).parent.parent / "lit"
_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)
_PIPELINE = re.compile(r"""(?:-p|--pass-pipeline)[= ]+'([^']+)'""")
DEFAULT_PIPELINE = "builtin.module(canonicalize,cse)"
#: The JIT's pipeline (compiler/driver/build.py) up to the LLVM level: every seed also goes
#: through all of it, so hostile values reach the lowerings whatever file they come from.
FULL_PIPELINE = (
    "builtin.module(canonicalize,fold-static-strides,prove-vectorization,"
    "select-atoms{arch=sm_90},lower-algorithms,lower-layouts,canonicalize,cse,convert-to-llvm)"
)


@cache
def corpus() -> list[tuple[str, list[str]]]:
    """(seed text, layoutc-opt flags) for every chunk of every lit file and pipeline."""
    seeds = []
    for path in sorted(LIT.rglob("*.mlir")):
        if "Inputs" in path.parts:
            continue
        text = path.read_text()
        runs = [line for line in text.splitlines() if "RUN:" in line and "layoutc-opt" in line]
        pipelines = [m.group(1) for line in runs for m in _PIPELINE.finditer(line)]
        flags = ["--allow-unregistered-dialect"] if "allow-unregistered" in text else []
        for chunk, _ in split_chunks(text):
            seed = _COMMENT.sub("", chunk).strip()
            if seed:
                for pipeline in [*(pipelines or [DEFAULT_PIPELINE]), FULL_PIPELINE]:
                    seeds.append((seed, ["-p", pipeline, *flags]))
    return seeds


def run_case(case: int) -> None:
    rng = random.Random(case)
    seed, flags = rng.choice(corpus())
    text = mutate(seed, rng)
    out, err = io.StringIO(), io.StringIO()
    describe = f"case {case}: layoutc-opt {' '.join(flags)} <<<\n{text[:3000]}"
    with time_bound(lambda: describe):
        rc = main(["-", *flags], stdin=io.StringIO(text), stdout=out, stderr=err)
    check_diagnostics(rc, err.getvalue(), (0, 1), describe)


def test_corpus_reaches_every_lit_folder():
    folders = {p.parent for p in LIT.rglob("*.mlir") if "Inputs" not in p.parts}
    assert len(corpus()) > 300 and len(folders) > 8


def test_mutated_lit_inputs_get_diagnostics():
    for case in case_range(150):
        run_case(case)
