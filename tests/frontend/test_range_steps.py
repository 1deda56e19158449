"""``lc.range`` has Python's meaning for every step (issue 14: a run-time step of 0 hung, and a
negative one likewise): negative steps count down, a run-time step of 0 gives no iterations,
a static step of 0 is an error as in Python."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest


@lc.kernel
def visit(out: lc.Tensor[lc.i32, "(32):(1)"], start: lc.i32, stop: lc.i32, step: lc.i32):  # noqa: F722
    n = 0
    for i in lc.range(start, stop, step):
        out[n] = i
        n = n + 1
    out[31] = n


@lc.kernel
def count_down(out: lc.Tensor[lc.i32, "(32):(1)"], start: lc.i32):  # noqa: F722
    n = 0
    for i in lc.range(start, -1, -3):
        out[n] = i
        n = n + 1
    out[31] = n


@pytest.mark.parametrize(
    "args",
    [(0, 10, 3), (10, 0, -3), (5, 5, 1), (3, 10, -1), (-2, 5, 2), (7, -7, -2), (0, 30, 1)],
)
def test_dynamic_steps_mean_what_python_means(args):
    out = np.full(32, -99, np.int32)
    visit(out, *args, grid=1, block=1)
    want = list(range(*args))
    assert list(out[: len(want)]) == want and out[31] == len(want)


def test_a_dynamic_step_of_zero_runs_no_iteration():
    out = np.full(32, -99, np.int32)
    visit(out, 0, 10, 0, grid=1, block=1)  # Python raises ValueError; a kernel cannot hang
    assert out[31] == 0 and (out[:31] == -99).all()


@pytest.mark.parametrize("start", [14, 0, -1])
def test_a_static_negative_step_counts_down(start):
    out = np.full(32, -99, np.int32)
    count_down(out, start, grid=1, block=1)
    want = list(range(start, -1, -3))
    assert list(out[: len(want)]) == want and out[31] == len(want)


@lc.kernel
def by_thread(out: lc.Tensor[lc.i32, "(4):(1)"]):  # noqa: F722
    tid = lc.thread_idx.x
    n = 0
    for _ in lc.range(0, 10, tid):  # a non-negative run-time step, 0 for thread 0
        n = n + 1
    out[tid] = n


def test_a_non_negative_run_time_step_of_zero_runs_no_iteration():
    out = np.full(4, -1, np.int32)
    by_thread(out, grid=1, block=4)
    assert list(out) == [0, len(range(0, 10, 1)), len(range(0, 10, 2)), len(range(0, 10, 3))]
