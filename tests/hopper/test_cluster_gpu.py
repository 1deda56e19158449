"""The cluster kernels of test_cluster_cpu.py on an sm_90 GPU, launched in clusters chosen at
launch (cuLaunchKernelEx with the cluster dimension): the GPU gives the CPU runtime's results."""

from __future__ import annotations

import cluster_kernels as ck
import layoutc as lc
import numpy as np
import pytest
from test_cluster_cpu import _ranks

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2), (2, 2), (4, 1)])
def test_cluster_registers_on_the_gpu(cluster):
    out = np.full((8, 2), -1, np.int32)
    kernel = lc.compile(ck.cluster_ids, out, block=32, target="sm_90a")
    kernel(out, grid=(4, 2), block=32, cluster=cluster)
    np.testing.assert_array_equal(out, _ranks((4, 2), cluster))


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
