"""Shared strategies and helpers for the layout-algebra tests (not a test module).

Layouts are compared as functions: the list of values at every 1-D index (`values`), which is
how CuTe's own unit tests state their post-conditions. `eval_raw` evaluates without range
checks, with CuTe's extrapolation past the end of the last mode.
"""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout, size
from layoutc.ir.algebra import inttuple as it

CI = os.environ.get("CI") == "true"

# Per-test settings (a global profile would change other suites): fewer examples on CI.
laws = settings(
    max_examples=60 if CI else 150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# How many random layouts the differential tests draw (thousands, as the task asks).
DIFF_TRIALS = int(os.environ.get("LAYOUTC_ALGEBRA_TRIALS", "1500" if CI else "3000"))

SIZES = (1, 2, 3, 4, 6, 8)
SMALL = (1, 2, 3, 4)  # for products, whose size is the product of two layouts' sizes


def eval_raw(layout: Layout, i: int) -> object:
    return it.crd2idx(i, layout.shape, layout.stride)


def values(layout: object) -> list:
    """The layout as a function: its value at every 1-D index of its domain (colexicographic)."""
    if isinstance(layout, Layout):
        shape = it.flatten_to_tuple(layout.shape)
        stride = it.flatten_to_tuple(layout.stride)
        if all(type(x) is int for x in shape + stride):
            vals = [0]
            for s, d in zip(shape, stride):
                vals = [v + k * d for k in range(s) for v in vals]
            return vals
        return [eval_raw(layout, i) for i in range(size(layout))]
    return [layout(i) for i in range(size(layout))]


def same_function(a: Layout, b: Layout) -> bool:
    return size(a) == size(b) and values(a) == values(b)


def nest(shape: tuple, stride: tuple, rng: random.Random) -> tuple[object, object]:
    """Randomly group consecutive flat modes into sub-tuples (the function is unchanged)."""
    if len(shape) <= 1 or rng.random() < 0.5:
        return shape, stride
    cut = rng.randint(1, len(shape) - 1)
    if rng.random() < 0.5:
        return (shape[:cut], *shape[cut:]), (stride[:cut], *stride[cut:])
    return (*shape[:cut], shape[cut:]), (*stride[:cut], stride[cut:])


def random_layout(
    rng: random.Random,
    max_modes: int = 3,
    zero_stride: float = 0.15,
    gaps: tuple[int, ...] = (1, 1, 2, 3),
    nested: bool = True,
    sizes: tuple[int, ...] = SIZES,
) -> Layout:
    """A random layout whose modes are a permutation with gaps (and some stride-0 modes)."""
    n = rng.randint(1, max_modes)
    shp = [rng.choice(sizes) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    strides = [0] * n
    cur = 1
    for p in order:
        if rng.random() < zero_stride:
            continue
        cur *= rng.choice(gaps)
        strides[p] = cur
        cur *= shp[p]
    if n == 1 and rng.random() < 0.5:
        return Layout(shp[0], strides[0])
    s, d = tuple(shp), tuple(strides)
    if nested:
        s, d = nest(s, d, rng)
    return Layout(s, d)


@st.composite
def layouts(
    draw: st.DrawFn, max_modes: int = 3, zero_stride: float = 0.15, injective: bool = False
) -> Layout:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    return random_layout(rng, max_modes=max_modes, zero_stride=0.0 if injective else zero_stride)


def to_pycute(layout: Layout):
    import pycute

    return pycute.Layout(layout.shape, layout.stride)


def pycute_values(layout) -> list:
    """Values of a pycute layout (its shape:stride read as ours, evaluated the same way)."""
    return values(Layout(layout.shape, layout.stride))
