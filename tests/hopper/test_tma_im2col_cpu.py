"""TMA im2col loads on the CPU runtime against runtime/tma_im2col.py's model (itself tested
against numpy's windows in tests/runtime/test_tma_im2col.py): every case reads the loaded
matrix back through its swizzled layout (the model's box) and raw (the box with the hardware's
swizzle, tests/hopper/test_tma_cpu.py's model), with out-of-bounds zeros (padding, channels
past the tensor, images past N) and boxes that wrap into the next image. A first pixel outside
the bounding box, which an H200 answers with an illegal instruction, is an error on the CPU."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from im2col_kernels import make_im2col_loader
from layoutc.runtime.tma_im2col import Im2colBox, im2col_load
from test_tma_cpu import hardware_swizzle

CASES = [
    # NDHWC f32, example 59's convolution (no padding), 128-byte swizzle, 2 images per load
    ("ndhwc", np.float32, (3, 6, 4, 4, 64), 32, 32, (0, 0, 0), (-2, -2, -2), 3, 2, 128),
    # the same with padding 1 ("same" output): zeros around each image
    ("ndhwc-pad", np.float32, (2, 4, 3, 4, 32), 32, 48, (-1, -1, -1), (-1, -1, -1), 3, 2, 128),
    # NHWC f16, 64-byte swizzle, strided filter-sized corners, channel offset past the tensor
    ("nhwc", np.float16, (3, 5, 6, 48), 32, 24, (0, 0), (-2, -1), 2, 3, 64),
    # NWC f32 without swizzle, negative lower corner
    ("nwc", np.float32, (4, 9, 8), 8, 20, (-2,), (0,), 0, 0, 0),
]


def _rows(shape, spatial, lower, upper, rng, n_blocks):
    """First pixels (tensor mode order) anywhere in the bounding box (the last ones wrap into
    the next image, or past N), channel starts 0, 16 or 16 before the last channel (not a
    multiple of the channels per pixel; past the tensor), and random taps."""
    rows = []
    for b in range(n_blocks):
        n = int(rng.integers(0, shape[0]))
        sp = [int(rng.integers(lower[k], shape[1 + k] + upper[k])) for k in range(spatial)]
        c = int(rng.choice([0, 16, shape[-1] - 16])) if b % 2 else 0
        taps = [int(rng.integers(0, 3)) for _ in range(spatial)]
        rows.append([n, *sp, c, *taps])
    rows[0] = [0, *lower, 0] + [0] * spatial
    rows[1] = [shape[0] - 1, *(shape[1 + k] - 1 + upper[k] for k in range(spatial)), 0]
    rows[1] += [1] * spatial  # the box's last pixel: the rest of the load is past N (zeros)
    return np.array(rows, np.int32)


@pytest.mark.parametrize(
    ("name", "dtype", "shape", "channels", "pixels", "lower", "upper", "bits", "base", "span"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_im2col_loads_match_the_model(
    name, dtype, shape, channels, pixels, lower, upper, bits, base, span
):
    rng = np.random.default_rng(len(name) * 7 + pixels)
    act = rng.standard_normal(shape).astype(dtype)
    spatial = len(shape) - 2
    at = _rows(shape, spatial, lower, upper, rng, 6)
    blocks = len(at)
    n = pixels * channels
    logical = np.full((blocks, n), np.nan, dtype)
    physical = np.full_like(logical, np.nan)
    lc_dtype = lc.f32 if dtype == np.float32 else lc.f16
    k = make_im2col_loader(pixels, channels, lc_dtype, bits, base, lower, upper)
    lc.compile(k, act, at, logical, physical, block=32, target="cpu")(
        act, at, logical, physical, grid=blocks
    )
    # the model's box: corners, coordinates and offsets innermost first
    box = Im2colBox(
        "f32" if dtype == np.float32 else "f16", channels, pixels, lower[::-1], upper[::-1]
    )
    for b, row in enumerate(at):
        first, taps = row[: spatial + 2], row[spatial + 2 :]
        want = im2col_load(act, box, tuple(int(x) for x in first[::-1]),
                           tuple(int(x) for x in taps[::-1])).reshape(-1)  # fmt: skip
        np.testing.assert_array_equal(logical[b], want)
        np.testing.assert_array_equal(physical[b], hardware_swizzle(want, span))


@pytest.mark.parametrize("where", ["below", "above"])
def test_a_first_pixel_outside_the_bounding_box_is_an_error(where):
    from layoutc.runtime.errors import ArgumentError, CpuExecutionError

    shape, lower, upper = (2, 6, 4, 4, 32), (0, 0, 0), (-2, -2, -2)
    act = np.zeros(shape, np.float32)
    h = -1 if where == "below" else shape[2] - 2  # the box's H range is [0, 1]
    at = np.array([[0, 1, h, 0, 0, 0, 0, 0]], np.int32)
    out = np.zeros((1, 32 * 32), np.float32)
    k = make_im2col_loader(32, 32, lc.f32, 3, 2, lower, upper)
    run = lc.compile(k, act, at, out, out, block=32, target="cpu")
    with pytest.raises(CpuExecutionError, match="first pixel lies outside the descriptor's"):
        run(act, at, out, out, grid=1)
    box = Im2colBox("f32", 32, 32, lower, upper)
    with pytest.raises(ArgumentError, match=r"dimension 2 must be in \[0, 1\]"):
        im2col_load(act, box, (0, 0, h, 1, 0), (0, 0, 0))


def test_im2col_multicast_fills_both_blocks_of_the_cluster():
    from im2col_kernels import make_im2col_multicast

    rng = np.random.default_rng(21)
    shape, lower, upper = (4, 6, 4, 4, 64), (0, 0, 0), (-2, -2, -2)
    act = rng.standard_normal(shape).astype(np.float32)
    at = _rows(shape, 3, lower, upper, rng, 4)
    out = np.full((4, 2 * 16 * 32), np.nan, np.float32)
    k = make_im2col_multicast(16, 32, lower, upper)
    lc.compile(k, act, at, out, block=32, target="cpu")(act, at, out, grid=4, cluster=2)
    box = Im2colBox("f32", 32, 16, lower, upper)
    loads = [
        im2col_load(act, box, tuple(int(x) for x in row[:5][::-1]),
                    tuple(int(x) for x in row[5:][::-1])).reshape(-1)
        for row in at
    ]  # fmt: skip
    for b in range(4):  # both blocks of cluster c hold the loads of rows 2c and 2c + 1
        c = b // 2
        np.testing.assert_array_equal(out[b], np.concatenate(loads[2 * c : 2 * c + 2]))


def test_strided_loads_match_the_model_and_a_start_off_the_grid_is_an_error():
    """Traversal strides (W 2, H 3, D 1): loads from output positions' pixels, wrapping into
    the next image, match the model; a first pixel between two positions is refused (the
    hardware's answer to it is not measured)."""
    from layoutc.runtime.errors import CpuExecutionError

    rng = np.random.default_rng(31)
    shape, lower, upper, stride = (2, 4, 7, 9, 32), (0, -1, -1), (-1, -1, -1), (1, 3, 2)
    act = rng.standard_normal(shape).astype(np.float32)
    # first pixels: (n, d, h, w, c) with h = -1 + 3i, w = -1 + 2j, then taps (t, r, s)
    at = np.array([[0, 0, -1, -1, 0, 0, 0, 0], [1, 2, 2, 5, 0, 1, 2, 1],
                   [1, 2, 5, 7, 0, 1, 1, 2]], np.int32)  # fmt: skip
    out = np.full((3, 32 * 32), np.nan, np.float32)
    raw = np.full_like(out, np.nan)
    k = make_im2col_loader(32, 32, lc.f32, 3, 2, lower, upper, traversal_stride=stride)
    run = lc.compile(k, act, at, out, raw, block=32, target="cpu")
    run(act, at, out, raw, grid=3)
    box = Im2colBox("f32", 32, 32, lower[::-1], upper[::-1], 0, stride[::-1])
    for b, row in enumerate(at):
        want = im2col_load(act, box, tuple(int(x) for x in row[:5][::-1]),
                           tuple(int(x) for x in row[5:][::-1])).reshape(-1)  # fmt: skip
        np.testing.assert_array_equal(out[b], want)
        np.testing.assert_array_equal(raw[b], hardware_swizzle(want, 128))
    at[0, 3] = 0  # W = 0 is not -1 plus a multiple of 2
    with pytest.raises(CpuExecutionError, match="off the descriptor's traversal grid"):
        run(act, at, out, raw, grid=1)


@pytest.mark.parametrize("seed", range(3))
def test_random_strided_dilated_loads_on_the_cpu_runtime_match_the_model(seed):
    """Random rank (3 to 5), extents, corners, traversal strides and dilations; loads from
    random output positions with random (dynamic) taps, which the copy scales by the
    dilation: the CPU runtime's box is the model's."""
    rng = np.random.default_rng(200 + seed)
    spatial = 1 + seed % 3
    ext = tuple(int(rng.integers(3, 8)) for _ in range(spatial))  # mode order
    stride = tuple(int(rng.integers(1, 4)) for _ in range(spatial))
    dil = tuple(int(rng.integers(1, 3)) for _ in range(spatial))
    lower = tuple(-int(rng.integers(0, 3)) for _ in range(spatial))
    upper = tuple(int(rng.integers(-2, 2)) for _ in range(spatial))
    shape = (2, *ext, 16)
    act = rng.standard_normal(shape).astype(np.float32)
    rows = []
    for _ in range(4):
        pos = [int(rng.integers(0, (e + u - lo - 1) // s + 1))
               for e, u, lo, s in zip(ext, upper, lower, stride)]  # fmt: skip
        pixel = [lo + p * s for lo, p, s in zip(lower, pos, stride)]
        rows.append([int(rng.integers(0, 2)), *pixel, 0, *(int(rng.integers(0, 3)) for _ in ext)])
    at = np.array(rows, np.int32)
    out = np.full((4, 24 * 16), np.nan, np.float32)
    raw = np.full_like(out, np.nan)
    k = make_im2col_loader(24, 16, lc.f32, 0, 0, lower, upper, traversal_stride=stride,
                           dilation=dil)  # fmt: skip
    lc.compile(k, act, at, out, raw, block=32, target="cpu")(act, at, out, raw, grid=4)
    box = Im2colBox("f32", 16, 24, lower[::-1], upper[::-1], 0, stride[::-1])
    for b, row in enumerate(at):
        taps = [int(t) * d for t, d in zip(row[spatial + 2 :], dil)]
        want = im2col_load(act, box, tuple(int(x) for x in row[: spatial + 2][::-1]),
                           tuple(taps[::-1])).reshape(-1)  # fmt: skip
        np.testing.assert_array_equal(out[b], want)
