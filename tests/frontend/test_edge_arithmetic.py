"""The DSL's integer division and float-to-int conversion on run-time edge values give PTX's
results on the CPU (issue 14: division by a run-time zero raised SIGFPE and killed the process;
[3e9, -3e9, nan, inf] converted to INT_MIN four times where the H100 gives [2147483647,
-2147483648, 0, 2147483647]). The rules, with the PTX ISA's wording, are in
compiler/codegen/ptx_semantics.py and tests/codegen/test_ptx_edge_semantics.py."""

from __future__ import annotations

import layoutc as lc
import numpy as np

VEC = lc.Tensor[lc.i32, "(N):(1)"]


@lc.kernel
def divide(a: VEC, b: VEC, q: VEC):
    i = lc.thread_idx.x
    q[i] = a[i] // b[i]


@lc.kernel
def to_int(x: lc.Tensor[lc.f32, "(N):(1)"], y: lc.Tensor[lc.i32, "(N):(1)"]):  # noqa: F722
    i = lc.thread_idx.x
    y[i] = lc.i32(x[i])


def test_division_by_a_run_time_zero_is_a_value_not_a_signal():
    a = np.array([7, -7, 0, -(2**31), 9], np.int32)
    b = np.array([0, 0, 0, -1, 2], np.int32)
    q = np.zeros_like(a)
    divide(a, b, q, grid=1, block=a.size)
    # x // 0 is all ones (-1: ptx_semantics.py's convention for a division by zero, floor
    # division included); INT_MIN // -1 wraps to INT_MIN as div.s32 does.
    assert list(q) == [-1, -1, -1, -(2**31), 4]


def test_float_to_int_saturates_like_the_gpu():
    x = np.array([3e9, -3e9, np.nan, np.inf], np.float32)
    y = np.zeros(4, np.int32)
    to_int(x, y, grid=1, block=4)
    assert list(y) == [2147483647, -2147483648, 0, 2147483647]
