"""Launches and environment variables are validated in one place (runtime/launch_config.py)
with messages, for the CPU, GPU and AOT paths alike (issue 14: grids beyond CUDA's limits ran
some blocks or died with SIGFPE, ``smem=-1000`` was accepted, ``smem=10**12``/``1.5``/``'x'``
and bad ``LAYOUTC_CPU_STACK_KB``/``LAYOUTC_CPU_THREADS`` gave raw exceptions or SIGSEGV)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.runtime import launch_config as L
from layoutc.runtime.abi import LaunchBounds
from layoutc.runtime.errors import ArgumentError, SettingError


@lc.kernel
def fill(dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    dst[lc.thread_idx.x] = 1.0


@lc.kernel
def fill_synced(dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.syncthreads()
    dst[lc.thread_idx.x] = 1.0


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        (1 << 31, r"grid\.x = 2147483648 exceeds CUDA's limit of 2147483647"),
        ((1, 65536), r"grid\.y = 65536 exceeds CUDA's limit of 65535"),
        ((1, 1, 70000), r"grid\.z = 70000 exceeds CUDA's limit of 65535"),
        (0, "grid must be 1 to 3 positive ints"),
        ((1, 2, 3, 4), "grid must be 1 to 3 positive ints"),
        (1.5, "grid must be an int or a tuple"),
        (True, "grid must be an int or a tuple"),
    ],
)
def test_grids_beyond_cuda_limits_are_refused(grid, message):
    a = np.zeros(8, np.float32)
    with pytest.raises(ArgumentError, match=message):
        fill(a, grid=grid, block=8)
    assert not a.any()


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ((1, 1, 65), r"block\.z = 65 exceeds CUDA's limit of 64"),
        ((2048,), r"block\.x = 2048 exceeds CUDA's limit of 1024"),
        ((32, 64), "2048 threads per block exceeds 1024"),
    ],
)
def test_blocks_beyond_cuda_limits_are_refused(block, message):
    with pytest.raises(ArgumentError, match=message):
        L.check_block(L.dim3(block, "block", "k"), LaunchBounds(), "k")


@pytest.mark.parametrize(
    ("smem", "message"),
    [
        (-1000, r"smem=-1000 bytes of dynamic shared memory is outside 0\.\.232448"),
        (10**12, r"smem=1000000000000 bytes .* outside 0\.\.232448"),
        (1.5, "smem must be an int number of bytes, got 1.5"),
        ("x", "smem must be an int number of bytes, got 'x'"),
        (True, "smem must be an int number of bytes, got True"),
    ],
)
def test_bad_shared_memory_sizes_are_refused(smem, message):
    with pytest.raises(ArgumentError, match=message):
        fill(np.zeros(8, np.float32), grid=1, block=8, smem=smem)


def test_shared_memory_limit_counts_static_bytes():
    assert L.check_smem(np.int64(100), 1000, "k") == 100
    with pytest.raises(ArgumentError, match=r"outside 0\.\.231448 .* 1000 of them static"):
        L.check_smem(231449, 1000, "k")


@pytest.mark.parametrize("value", ["abc", "0", "-4", "1e3", "99999999"])
def test_bad_cpu_thread_counts_are_named(monkeypatch, value):
    monkeypatch.setenv("LAYOUTC_CPU_THREADS", value)
    with pytest.raises(SettingError, match=rf"LAYOUTC_CPU_THREADS='{value}' is not valid"):
        fill(np.zeros(8, np.float32), grid=2, block=8)


@pytest.mark.parametrize("value", ["x", "-1", "0", "8", str(1 << 30)])
def test_bad_cpu_stack_sizes_are_named(monkeypatch, value):
    monkeypatch.setenv("LAYOUTC_CPU_STACK_KB", value)
    with pytest.raises(SettingError, match=rf"LAYOUTC_CPU_STACK_KB='{value}' is not valid"):
        fill_synced(np.zeros(24, np.float32), grid=1, block=24)  # a block shape of its own


def test_odd_stack_sizes_are_whole_pages(monkeypatch):
    monkeypatch.setenv("LAYOUTC_CPU_STACK_KB", "17")
    a = np.zeros(20, np.float32)
    fill_synced(a, grid=1, block=20)
    assert (a == 1).all()


def test_settings_parse_what_they_document(monkeypatch):
    monkeypatch.setenv("LAYOUTC_CPU_THREADS", " 3 ")
    assert L.cpu_threads() == 3
    monkeypatch.setenv("LAYOUTC_CPU_THREADS", "")
    assert L.cpu_threads() >= 1
    for raw, value in (("1", True), ("on", True), ("off", False), ("", False)):
        monkeypatch.setenv("LAYOUTC_CHECK_BOUNDS", raw)
        assert L.check_bounds_setting() is value
