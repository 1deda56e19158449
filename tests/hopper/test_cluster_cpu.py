"""Thread block clusters on the CPU runtime: a cluster's blocks run together, each with its
own shared memory, with the hardware's cluster registers, remote mbarrier arrivals and
cluster barrier (docs/hopper.md, "On the CPU"), checked against numpy models."""

from __future__ import annotations

import cluster_kernels as ck
import layoutc as lc
import numpy as np
import pytest
from layoutc.runtime.errors import CpuExecutionError


def _ranks(grid: tuple[int, int], cluster: tuple[int, int]) -> np.ndarray:
    """The PTX ISA's %cluster_ctarank: x fastest within the cluster."""
    gx, gy = grid
    out = np.zeros((gx * gy, 2), np.int32)
    for by in range(gy):
        for bx in range(gx):
            out[bx + by * gx] = (bx % cluster[0] + (by % cluster[1]) * cluster[0], np.prod(cluster))
    return out


#: (cluster, grid) of 16-block clusters: a non-portable size
NON_PORTABLE = [((16, 1), (16, 2)), ((4, 4), (8, 4)), ((8, 2), (8, 4))]


@pytest.mark.parametrize(
    ("cluster", "grid"),
    [
        *[((1, 1), (4, 2)), ((2, 1), (4, 2)), ((1, 2), (4, 2)), ((2, 2), (4, 2)), ((4, 1), (4, 2))],
        *NON_PORTABLE,
    ],
)
def test_cluster_registers_at_launch(cluster, grid):
    """``cluster=`` at launch for a kernel compiled without a cluster shape."""
    out = np.full((grid[0] * grid[1], 2), -1, np.int32)
    kernel = lc.compile(ck.cluster_ids, out, block=32, target="cpu")
    kernel(out, grid=grid, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, _ranks(grid, cluster))


def _all_to_all(blocks: int, cluster: int) -> np.ndarray:
    """``ck.all_to_all``'s results: each block's successor's value, its rank, the size."""
    out = np.zeros((blocks, 3), np.int32)
    for b in range(blocks):
        first, rank = b - b % cluster, b % cluster
        out[b] = (3 * (first + (rank + 1) % cluster) + 1, rank, cluster)
    return out


@pytest.mark.parametrize("cluster", [2, 9, 16])
def test_remote_arrivals_and_cluster_barriers_of_up_to_16_blocks(cluster):
    vals = np.zeros(2 * cluster, np.int32)
    out = np.full((2 * cluster, 3), -1, np.int32)
    kernel = lc.compile(ck.all_to_all, vals, out, block=32, target="cpu")
    kernel(vals, out, grid=2 * cluster, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, _all_to_all(2 * cluster, cluster))


def multicast_reference(a: np.ndarray, cluster: int) -> np.ndarray:
    """``ck.multicast_slices``'s ``out``: every block of a cluster holds its cluster's tile."""
    blocks = a.shape[0] // 8
    out = np.zeros((blocks, 128 * 32), np.float32)
    for b in range(blocks):
        first = (b // cluster) * cluster * 8
        out[b, : cluster * 256] = a[first : first + cluster * 8].reshape(-1)
    return out


@pytest.mark.parametrize("cluster", [4, 16])
def test_tma_multicast_into_every_block_of_a_16_block_cluster(cluster):
    rng = np.random.default_rng(cluster)
    a = rng.standard_normal((2 * cluster * 8, 32)).astype(np.float32)
    out = np.zeros((2 * cluster, 128 * 32), np.float32)
    kernel = lc.compile(ck.multicast_slices, a, out, block=32, target="cpu")
    kernel(a, out, grid=2 * cluster, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, multicast_reference(a, cluster))


def test_a_fixed_cluster_of_16_blocks_and_the_limit():
    out = np.full(32, -1, np.int32)
    lc.compile(ck.fixed_16, out, block=32, target="cpu")(out, grid=32, block=32)
    np.testing.assert_array_equal(out, [r + 1600 for r in range(16)] * 2)
    kernel = lc.compile(ck.cluster_ids, np.zeros((34, 2), np.int32), block=32, target="cpu")
    with pytest.raises(lc.SpecError, match=r"is 17 blocks, more than the 16 a cluster may have"):
        kernel(np.zeros((34, 2), np.int32), grid=34, block=32, cluster=17)


def test_without_clusters_every_block_is_rank_0_of_1():
    out = np.full((6, 2), -1, np.int32)
    lc.compile(ck.cluster_ids, out, block=32, target="cpu")(out, grid=(3, 2), block=32)
    np.testing.assert_array_equal(out, _ranks((3, 2), (1, 1)))


def test_remote_arrivals_reach_the_peer_block():
    out = np.zeros(4 * 64, np.int32)
    kernel = lc.compile(ck.remote_arrive, out, block=64, target="cpu")
    kernel(out, grid=4, block=64, cluster=2)
    np.testing.assert_array_equal(out.reshape(4, 64), np.repeat([[1], [2], [1], [2]], 64, 1))


def test_a_remote_arrival_outside_the_cluster_is_an_error():
    """Launched without clusters, rank 0's ``cta_id=1`` names no block of its cluster."""
    out = np.zeros(2 * 64, np.int32)
    kernel = lc.compile(ck.remote_arrive, out, block=64, target="cpu")
    with pytest.raises(
        CpuExecutionError, match=r"block \(0, 0, 0\), thread \(0, 0, 0\): a cluster rank"
    ):
        kernel(out, grid=2, block=64)


def test_the_cluster_barrier_waits_for_every_block():
    flag = np.zeros(3, np.int32)
    out = np.zeros(3, np.int32)
    kernel = lc.compile(ck.cluster_barrier_orders, flag, out, block=64, target="cpu")
    kernel(flag, out, grid=6, block=64, cluster=2)
    np.testing.assert_array_equal(out, [7, 8, 9])


def test_a_cluster_barrier_a_block_exits_before_releases_the_others():
    """barrier.cluster.wait waits for the non-exited threads: rank 1 leaves, rank 0 passes
    (tests/hopper/test_barrier_exits.py has the model; a live block that never arrives is a
    deadlock there)."""
    out = np.zeros(4, np.int32)
    kernel = lc.compile(ck.rank_1_leaves, out, block=32, target="cpu")
    kernel(out, grid=4, block=32, cluster=2)
    np.testing.assert_array_equal(out, [1, 1, 1, 1])


def test_grid_must_be_a_multiple_of_the_cluster():
    out = np.zeros((6, 2), np.int32)
    kernel = lc.compile(ck.cluster_ids, out, block=32, target="cpu")
    with pytest.raises(lc.SpecError, match=r"grid \(3, 2, 1\) is not divisible by the cluster"):
        kernel(out, grid=(3, 2), block=32, cluster=2)


def test_tma_multicast_fills_every_block_of_the_mask():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((48, 32)).astype(np.float32)
    out = np.zeros((6, 512), np.float32)
    kernel = lc.compile(ck.multicast_halves, a, out, block=32, target="cpu")
    kernel(a, out, grid=6, block=32, cluster=2)
    want = np.repeat(a.reshape(3, 512), 2, axis=0)  # both blocks of cluster c: tile c
    np.testing.assert_array_equal(out, want)


def test_a_multicast_mask_past_the_cluster_is_an_error():
    a = np.zeros((32, 32), np.float32)
    out = np.zeros((2, 512), np.float32)
    kernel = lc.compile(ck.multicast_halves, a, out, block=32, target="cpu")
    with pytest.raises(CpuExecutionError, match=r"a cluster rank .* names a block outside"):
        kernel(a, out, grid=2, block=32)  # no clusters: mask 0b11 names rank 1 of 1
