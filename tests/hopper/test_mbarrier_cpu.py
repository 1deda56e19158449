"""mbarriers, named barriers and elect.sync with the hardware's semantics on the CPU runtime,
against numpy; phase bugs show up as errors; the same kernels assemble for sm_90a."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.runtime.errors import CpuExecutionError
from mbarrier_kernels import (
    TILE,
    elect,
    expect_tx_without_transfer,
    make_producer_consumer,
    named_barriers,
    over_arrive,
    phases,
)

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")


@pytest.mark.parametrize(("stages", "iters"), [(1, 3), (2, 8), (3, 7), (4, 4)])
def test_producer_consumer_pipeline_matches_numpy(stages, iters):
    k = make_producer_consumer(stages, iters)
    x = np.random.default_rng(stages).standard_normal(iters * TILE).astype(np.float32)
    y = np.zeros_like(x)
    lc.compile(k, x, y, block=2 * TILE, target="cpu")(x, y, grid=1)
    np.testing.assert_array_equal(y, 2 * x)


def test_a_wrong_parity_is_a_deadlock_not_a_wrong_result():
    k = make_producer_consumer(2, 8, consumer_parity_shift=1)
    x = np.ones(8 * TILE, np.float32)
    y = np.zeros_like(x)
    with pytest.raises(CpuExecutionError, match="deadlock"):
        lc.compile(k, x, y, block=2 * TILE, target="cpu")(x, y, grid=1)


def test_phases_alternate_parity():
    out = np.full(2 * 6, -1, np.int32)
    lc.compile(phases, out, block=2, target="cpu")(out, grid=1)
    k = np.arange(6)
    want = np.stack([k * 10 + 1, k * 10 + 0], axis=1).reshape(-1)
    np.testing.assert_array_equal(out, want)


def test_pending_transaction_bytes_keep_the_phase_open():
    out = np.zeros(32, np.float32)
    with pytest.raises(CpuExecutionError, match="deadlock"):
        lc.compile(expect_tx_without_transfer, out, block=32, target="cpu")(out, grid=1)


def test_arrivals_beyond_the_count_are_reported():
    out = np.zeros(32, np.float32)
    with pytest.raises(CpuExecutionError, match="more arrivals in one phase"):
        lc.compile(over_arrive, out, block=32, target="cpu")(out, grid=1)


def test_named_barriers_synchronise_their_threads_only():
    out = np.zeros(96, np.float32)
    lc.compile(named_barriers, out, block=96, target="cpu")(out, grid=1)
    want = np.concatenate([63 - np.arange(64), 96 + 63 - np.arange(64, 96)]).astype(np.float32)
    np.testing.assert_array_equal(out, want)


def test_elect_one_sync_elects_one_lane_per_warp():
    out = np.full(96, -1, np.float32)
    lc.compile(elect, out, block=96, target="cpu")(out, grid=1)
    assert out.reshape(3, 32).sum(axis=1).tolist() == [1, 1, 1]


def test_mbarrier_operands_are_checked_at_the_users_line():
    @lc.kernel
    def bad(out: lc.Tensor):
        bar = lc.smem_tensor(lc.f32, lc.make_layout(1))
        lc.mbarrier_init(bar, 1)

    with pytest.raises(
        lc.CompileError,
        match=r"test_mbarrier_cpu\.py:\d+:\d+: error: "
        r"lc.mbarrier_init: an mbarrier lives in shared memory as an i64",
    ):
        lc.compile(bad, np.zeros(4, np.float32), block=32, target="cpu")


@needs_nvjitlink
@pytest.mark.parametrize("backend", ["libnvvm", "llvm"])
def test_kernels_assemble_for_sm90a(backend):
    from layoutc.codegen import ptx as ptxmod

    if backend == "libnvvm" and not ptxmod.libnvvm_available():
        pytest.skip("libNVVM not installed")
    x = np.zeros(8 * TILE, np.float32)
    for kernel, args, block in [
        (make_producer_consumer(2, 8), (x, x), 2 * TILE),
        (phases, (np.zeros(8, np.int32),), 2),
        (named_barriers, (np.zeros(96, np.float32),), 96),
        (elect, (np.zeros(96, np.float32),), 96),
    ]:
        ck = lc.compile(
            kernel, *args, block=block, target="sm_90a", ptx_backend=backend, cache=False
        )
        assert ck.products.cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
def test_producer_consumer_on_the_gpu():
    import torch

    k = make_producer_consumer(3, 9)
    x = torch.randn(9 * TILE, device="cuda")
    y = torch.zeros_like(x)
    k(x, y, grid=1, block=2 * TILE)
    torch.cuda.synchronize()
    assert torch.equal(y, 2 * x)
    out = torch.zeros(96, device="cuda")
    named_barriers(out, grid=1, block=96)
    want = torch.cat([63 - torch.arange(64), 96 + 63 - torch.arange(64, 96)]).float().cuda()
    assert torch.equal(out, want)
