"""Mutation fuzzing of the algebra's text input: ``lc.parse_layout``, ``layoutc algebra`` and
``layoutc show`` (docs/reliability.md).

Seeds are the notations the CLI documents (layouts, swizzles, composed layouts, basis strides,
tilers, calls, symbols, arithmetic); mutations swap integers for boundary values, tokens for
nesting and separators, and characters. The oracle: a result or a diagnostic (``LayoutError``,
status 1 or 2), never another exception, an internal error or more than TIME_BOUND_S.
Deterministic; ``LAYOUTC_FUZZ_CASES=N`` runs more.
"""

from __future__ import annotations

import contextlib
import random

import layoutc as lc
from layoutc.cli.main import main
from layoutc.ir.algebra.errors import LayoutError
from mutation import case_range, check_diagnostics, mutate, time_bound

SEEDS = [
    "(4,8):(8,1)",
    "((2,2),3):((24,2),8)",
    "(8,(4,2)):(1,(16,8))",
    "_8:_1",
    "(N,8):(8,1)",
    "(4,8):(1@0,1@1)",
    "Sw<3,4,3> o (8,64):(64,1)",
    "Sw<2,3,3> o 0 o ((8,8),(4,2)):((64,1),(8,512))",
    "complement(4:2, 24)",
    "logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)",
    "zipped_divide((16,32):(32,1), (4,8))",
    "logical_product((2,2):(1,2), (3,4):(1,3))",
    "composition((12,(4,8)):(59,(13,1)), (3,8):(4,1))",
    "coalesce(((2,4),(1,6)):((1,2),(0,8)))",
    "right_inverse((4,8):(8,1))",
    "left_inverse((4,8):(1,4))",
    "crd2idx((1,2), (4,8):(8,1))",
    "idx2crd(13, (4,8))",
    "shape_div((4,8), 2)",
    "size((N,8):(8,1)) // 4 + N % 8",
    "(4,8):(8,1)(3, _)",
    "blocked_product(4:1, (2,2):(1,2))",
    "max_common_vector((4,8):(1,4), (8,4):(4,1))",
    "raked_product((2,2):(2,1), (4,4):(1,4))",
    "tile_to_shape((2,2):(1,2), (8,8))",
]


def run_case(case: int, capsys) -> None:
    rng = random.Random(case)
    text = mutate(rng.choice(SEEDS), rng)
    describe = f"case {case}: {text[:2000]!r}"
    with time_bound(lambda: describe):
        with contextlib.suppress(LayoutError):
            lc.parse_layout(text)
        for argv in (["algebra", "--", text], ["show", "--", text]):
            status = main(argv)
            _, err = capsys.readouterr()
            check_diagnostics(status, err, (0, 1, 2), f"{argv[0]} {describe}")


def test_mutated_algebra_inputs_get_diagnostics(capsys):
    for case in case_range(150):
        run_case(case, capsys)
