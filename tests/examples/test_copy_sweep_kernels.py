"""The kernels of benchmarks/copy_sweep.py (run by the lead on a GPU) copy exactly on the CPU
runtime, persistent grids smaller than the tile count included, and prove 128-bit accesses."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def sweep():
    name = "layoutc_benchmarks_copy_sweep"
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "copy_sweep.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_sweep_covers_the_knobs(sweep):
    configs = sweep.configurations()
    assert len({c.name for c in configs}) == len(configs)
    assert {c.threads for c in configs} == {128, 256, 512}
    assert {c.vectors for c in configs} == {2, 4, 8}
    assert {c.shape for c in configs} == {"interleaved", "blocked"}
    assert {c.waves for c in configs} >= {0, 1, 2, 4}
    assert sweep.COPY_1D in configs


@pytest.mark.parametrize(
    ("threads", "vectors", "shape", "waves", "staged"),
    [
        (128, 2, "interleaved", 0, True),
        (256, 4, "blocked", 0, True),
        (256, 4, "interleaved", 0, False),
        (128, 4, "interleaved", 2, True),
    ],
)
def test_sweep_kernels_copy_exactly(sweep, threads, vectors, shape, waves, staged):
    cfg = sweep.Config(threads, vectors, shape, waves, staged)
    tiles = 5
    src = np.random.default_rng(0).standard_normal(tiles * cfg.tile, dtype=np.float32)
    dst = np.full_like(src, np.nan)
    kernel = sweep.make_kernel(cfg)
    ck = lc.compile(kernel, src, dst, target="cpu", block=threads)
    grid = waves if waves else tiles  # a persistent grid strides over more tiles than blocks
    ck(src, dst, grid=grid, block=threads)
    np.testing.assert_array_equal(dst, src)
    assert ck.vector_bits == ([128, 128] if staged else [128])
    gpu = lc.compile(kernel, src, dst, target="sm_90", block=threads)
    assert len(re.findall(r"st\.global\.v4\.f32", gpu.ptx)) == vectors
