"""examples/gemm_sm90.py with clusters of more than two blocks (2 x 2, 4 x 1, 1 x 4): A
multicast across a cluster's N, B across its M, every stage released in the blocks that
wrote it; on the CPU runtime against numpy (ragged sizes: clusters with tiles past C), the
peers' bookkeeping against a brute-force model, the refusals, and the sm_90a cubins."""

from __future__ import annotations

import itertools

import pytest
import sm90_harness as h
from sm90_harness import E16, GEMM, Config, ws

pytestmark = pytest.mark.verify_at_end

SHAPES = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 4), (4, 1), (2, 4), (4, 2), (1, 8), (8, 1), (3, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_each_block_releases_a_stage_in_exactly_the_blocks_that_wrote_it(shape):
    """Block (rm, rn)'s stage gets A from its row's blocks (the multicast mask ``mask_a << rm``)
    and B from its column's (``mask_b << cm * rn``): the blocks ``cluster_peer`` names for
    lanes ``0 .. cm + cn - 2`` are those, each once."""
    cm, cn = shape
    mask_a = sum(1 << (cm * j) for j in range(cn))
    mask_b = (1 << cm) - 1
    for rm, rn in itertools.product(range(cm), range(cn)):
        rank = rm + cm * rn
        # block r multicasts its part of A into mask_a << rm(r), of B into mask_b << cm * rn(r)
        writers = {
            r
            for r in range(cm * cn)
            if ((mask_a << (r % cm)) | (mask_b << (cm * (r // cm)))) >> rank & 1
        }
        peers = [GEMM["cluster_peer"](cm, cn, rm, rn, lane) for lane in range(cm + cn - 1)]
        assert sorted(peers) == sorted(writers), (rm, rn, peers, writers)
        assert len(set(peers)) == len(peers)


CPU = [
    ws(bm=64, bn=32, warpgroups=1, cluster=(2, 2)),
    ws(bm=64, bn=32, warpgroups=1, cluster=(4, 1)),
    # cooperative, one arrival per consumer warpgroup, the TMA epilogue, 16-bit C
    ws(bm=128, bn=32, cluster=(1, 4), release="warpgroup", **E16),
    ws(bm=64, bn=64, stages=3, schedule="pingpong", cluster=(2, 2)),
]


@pytest.mark.parametrize("cfg", CPU, ids=lambda c: c.name)
def test_larger_clusters_match_numpy_on_the_cpu(cfg):
    """M = 3 bm + 9, N = 3 bn + 8: the last cluster's row or column of tiles is past C (its
    blocks still load and multicast their parts, zero-filled); one cluster on 3 "SMs" walks
    every tile group (the persistent loop)."""
    m, n, k = 3 * cfg.bm + 9, 3 * cfg.bn + 8, 2 * cfg.bk + 8
    (grid,) = cfg.grid(m, n, sms=2 * cfg.cluster_blocks)
    assert grid == 2 * cfg.cluster_blocks  # two clusters, each several tile groups
    h.check_on_the_cpu(cfg, m, n, k, seed=3, sms=2 * cfg.cluster_blocks)


def test_cluster_refusals_name_the_field():
    with pytest.raises(ValueError, match=r"cluster=\(4, 4\) has 16 blocks, more than the 8"):
        Config(loads="tma", cluster=(4, 4)).check()
    with pytest.raises(ValueError, match=r"cluster=\(1, 16\) has 16 blocks"):
        Config(loads="tma", cluster=16).check()
    with pytest.raises(ValueError, match=r"cluster=\(2, 2\) .* takes TMA loads"):
        Config(cluster=(2, 2)).check()
    # A's 64 rows in 8 parts of 8 fit a 1 x 8 cluster; 16 parts would not be whole atoms
    Config(bm=64, bn=64, warpgroups=1, loads="tma", cluster=(1, 8)).check()
    with pytest.raises(ValueError, match=r"bm=64 does not split into 3 parts .* along N"):
        Config(bm=64, warpgroups=1, loads="tma", cluster=(1, 3)).check()
    with pytest.raises(ValueError, match=r"bn=32 does not split into 8 parts .* along M"):
        Config(bm=64, bn=32, warpgroups=1, loads="tma", cluster=(8, 1)).check()
    # MN-major operands: 64-element boxes, a multiple of 64 per block
    with pytest.raises(ValueError, match=r"a_major='MN' .* got tma, f16, 32"):
        Config(bm=128, loads="tma", a_major="MN", cluster=(1, 4)).check()
    with pytest.raises(ValueError, match=r"decomposition='streamk' takes TMA loads and no"):
        Config(loads="tma", decomposition="streamk", cluster=(2, 2)).check()
    assert Config(loads="tma", cluster=(2, 2)).name.endswith("-r8-x2x2")
    assert Config(loads="tma", cluster=(4, 1)).grid(1000, 1000) == (4 * 2 * 8,)


@pytest.mark.parametrize(
    "cfg",
    [
        Config(bm=128, bn=256, loads="tma", mma_in_flight=0, cluster=(2, 2)),
        Config(bm=128, bn=256, loads="tma", mma_in_flight=0, cluster=(4, 1), **E16),
        Config(bm=128, bn=128, loads="tma", schedule="pingpong", cluster=(1, 4)),
    ],
    ids=lambda c: c.name,
)
def test_larger_clusters_assemble_for_sm90a_without_local_memory(cfg):
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), cubin="never")
    h.assemble(ck.ptx, whole_program=False)
    assert f".reqnctapercluster {cfg.cluster_blocks}, 1, 1" in ck.ptx
    assert ".multicast::cluster" in ck.ptx
    assert "mbarrier.arrive.shared::cluster.b64" in ck.ptx


CLUSTER_GPU = [
    ("bf16", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16", cluster=(2, 2))),
    ("bf16", dict(bm=256, bn=128, stages=4, c_dtype="bf16", cluster=(4, 1))),
    ("f16", dict(bn=128, stages=5, schedule="pingpong", epilogue="tma", cluster=(1, 4))),
    ("bf16", dict(bn=256, mma_in_flight=0, cluster=(2, 2), a_major="MN", b_major="MN")),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "kw"), CLUSTER_GPU, ids=[f"{d}-{k}" for d, k in CLUSTER_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 264), (130, 1000, 72)])
def test_larger_clusters_on_the_gpu_match_torch(dtype, kw, shape):
    """Ragged shapes: clusters whose tiles run past C along M, N or both."""
    h.check_ws_on_the_gpu(dtype, kw, shape)
