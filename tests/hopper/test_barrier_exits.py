"""Barriers and exited threads on the CPU runtime, against a model of the PTX ISA's rules:
``barrier.cluster.wait`` waits for "all non-exited threads of the cluster", ``bar.sync`` for the
non-exited threads, and "barriers exclusively waiting on arrivals from exited threads are always
released" (``exit``). So an exited thread counts as arrived, in the phase it left and every
later one, while a live thread that never arrives is still a deadlock."""

from __future__ import annotations

import exit_kernels as ek
import layoutc as lc
import numpy as np
import pytest
from layoutc.runtime.errors import CpuExecutionError

WARP = 32


def _steps(seed: int, threads: int) -> np.ndarray:
    """Barrier counts 0-3, one per warp (the ``.aligned`` barriers need warp-uniform control)."""
    per_warp = np.random.default_rng(seed).integers(0, 4, threads // WARP)
    return np.repeat(per_warp, WARP).astype(np.int32)


def _model(steps: np.ndarray, group: int) -> np.ndarray:
    """``seen[i, g]``: phase i of g's group completes when every thread that has not exited has
    stamped it, so g counts the group's threads with more than i steps; -1 where g ran no
    barrier i."""
    seen = np.full((4, steps.size), -1, np.int32)
    for first in range(0, steps.size, group):
        members = steps[first : first + group]
        for g in range(first, first + group):
            for i in range(steps[g]):
                seen[i, g] = int((members > i).sum())
    return seen


def _run(kernel, steps, grid, block, extra=(), **launch):
    stamps = np.zeros((4, steps.size), np.int32)
    seen = np.full((4, steps.size), -1, np.int32)
    compiled = lc.compile(kernel, steps, stamps, seen, *extra, block=block, target="cpu")
    compiled(steps, stamps, seen, *extra, grid=grid, block=block, **launch)
    return seen


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_cluster_barrier_counts_exited_threads_as_arrived(seed):
    steps = _steps(seed, 4 * 64)  # two clusters of two blocks of 64 threads
    seen = _run(ek.cluster_phases, steps, grid=4, block=64, cluster=2)
    np.testing.assert_array_equal(seen, _model(steps, 128))


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_block_barrier_counts_exited_threads_as_arrived(seed):
    steps = _steps(seed, 2 * 128)
    seen = _run(ek.block_phases, steps, grid=2, block=128)
    np.testing.assert_array_equal(seen, _model(steps, 128))


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_named_barrier_waiting_only_for_exited_threads_is_released(seed):
    steps = _steps(seed, 2 * 128)
    seen = _run(ek.named_phases, steps, grid=2, block=128, extra=(128,))
    np.testing.assert_array_equal(seen, _model(steps, 128))


def test_an_arrival_before_exiting_counts_once_and_the_exit_for_later_phases():
    out = np.zeros(4, np.int32)
    kernel = lc.compile(ek.arrive_then_exit, out, block=64, target="cpu")
    kernel(out, grid=4, block=64, cluster=2)
    np.testing.assert_array_equal(out, [1, 0, 1, 0])


def test_a_pending_arrival_of_a_thread_that_exits_is_not_counted_twice():
    flag = np.zeros(3, np.int32)
    out = np.zeros(3, np.int32)
    kernel = lc.compile(ek.pending_arrival_then_exit, flag, out, block=64, target="cpu")
    kernel(flag, out, grid=6, block=64, cluster=2)
    np.testing.assert_array_equal(out, [5, 6, 7])


def test_a_live_thread_that_never_arrives_is_still_a_deadlock():
    out = np.zeros(4, np.int32)
    kernel = lc.compile(ek.rank_1_stuck, out, block=32, target="cpu")
    with pytest.raises(
        CpuExecutionError, match=r"block \(0, 0, 0\).*\(cluster of \(2, 1, 1\)\): deadlock"
    ):
        kernel(out, grid=4, block=32, cluster=2)


def test_a_named_barrier_missing_a_live_thread_is_still_a_deadlock():
    out = np.zeros(128, np.int32)
    kernel = lc.compile(ek.named_with_live_straggler, out, block=128, target="cpu")
    with pytest.raises(CpuExecutionError, match="deadlock"):
        kernel(out, grid=1, block=128)


def test_a_named_barrier_missing_more_threads_than_exited_is_still_a_deadlock():
    """``bar.sync 1, 256`` in a block of 128: even with every exited thread, 256 never arrive."""
    steps = np.full(128, 1, np.int32)
    with pytest.raises(CpuExecutionError, match="deadlock"):
        _run(ek.named_phases, steps, grid=1, block=128, extra=(256,))
