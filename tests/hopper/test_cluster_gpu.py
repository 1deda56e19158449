"""The cluster kernels of test_cluster_cpu.py on an sm_90 GPU, launched in clusters chosen at
launch (cuLaunchKernelEx with the cluster dimension): the GPU gives the CPU runtime's results."""

from __future__ import annotations

import cluster_kernels as ck
import layoutc as lc
import numpy as np
import pytest
from test_cluster_cpu import _all_to_all, _ranks, multicast_reference

pytestmark = pytest.mark.gpu


#: (cluster, grid) of 16-block clusters: a non-portable size
NON_PORTABLE = [((16, 1), (16, 2)), ((4, 4), (8, 4)), ((8, 2), (8, 4))]


@pytest.mark.parametrize(
    ("cluster", "grid"),
    [((2, 1), (4, 2)), ((1, 2), (4, 2)), ((2, 2), (4, 2)), ((4, 1), (4, 2)), *NON_PORTABLE],
)
def test_cluster_registers_on_the_gpu(cluster, grid):
    out = np.full((grid[0] * grid[1], 2), -1, np.int32)
    kernel = lc.compile(ck.cluster_ids, out, block=32, target="sm_90a")
    kernel(out, grid=grid, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, _ranks(grid, cluster))


@pytest.mark.parametrize("cluster", [2, 9, 16])
def test_remote_arrivals_and_cluster_barriers_of_up_to_16_blocks_on_the_gpu(cluster):
    """Clusters of more than 8 blocks: the launcher opts the kernel into non-portable sizes
    (the driver refuses the launch otherwise); the results are the CPU runtime's."""
    vals = np.zeros(4 * cluster, np.int32)
    out = np.full((4 * cluster, 3), -1, np.int32)
    kernel = lc.compile(ck.all_to_all, vals, out, block=32, target="sm_90a")
    kernel(vals, out, grid=4 * cluster, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, _all_to_all(4 * cluster, cluster))


def test_a_fixed_cluster_of_16_blocks_on_the_gpu():
    out = np.full(64, -1, np.int32)
    lc.compile(ck.fixed_16, out, block=32, target="sm_90a")(out, grid=64, block=32)
    np.testing.assert_array_equal(out, [r + 1600 for r in range(16)] * 4)


def test_remote_arrivals_and_the_cluster_barrier_on_the_gpu():
    out = np.zeros(4 * 64, np.int32)
    lc.compile(ck.remote_arrive, out, block=64, target="sm_90a")(out, grid=4, block=64, cluster=2)
    np.testing.assert_array_equal(out.reshape(4, 64), np.repeat([[1], [2], [1], [2]], 64, 1))
    flag = np.zeros(3, np.int32)
    res = np.zeros(3, np.int32)
    kernel = lc.compile(ck.cluster_barrier_orders, flag, res, block=64, target="sm_90a")
    kernel(flag, res, grid=6, block=64, cluster=2)
    np.testing.assert_array_equal(res, [7, 8, 9])


def test_tma_multicast_on_the_gpu():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((48, 32)).astype(np.float32)
    out = np.zeros((6, 512), np.float32)
    kernel = lc.compile(ck.multicast_halves, a, out, block=32, target="sm_90a")
    kernel(a, out, grid=6, block=32, cluster=2)
    np.testing.assert_array_equal(out, np.repeat(a.reshape(3, 512), 2, axis=0))


@pytest.mark.parametrize("cluster", [4, 16])
def test_tma_multicast_into_every_block_of_a_16_block_cluster_on_the_gpu(cluster):
    rng = np.random.default_rng(cluster)
    a = rng.standard_normal((4 * cluster * 8, 32)).astype(np.float32)
    out = np.zeros((4 * cluster, 128 * 32), np.float32)
    kernel = lc.compile(ck.multicast_slices, a, out, block=32, target="sm_90a")
    kernel(a, out, grid=4 * cluster, block=32, cluster=cluster)
    np.testing.assert_array_equal(out, multicast_reference(a, cluster))
