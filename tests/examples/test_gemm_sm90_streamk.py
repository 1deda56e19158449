"""examples/gemm_sm90.py's stream-K and split-K tile scheduler: the work units' laws (every
K-block of every tile once, one final unit per tile adding exactly the tile's partials in K
order, waits only for lower blocks), the kernels on the CPU runtime against numpy (both
epilogues, both schedules, residues, tiles shared by several blocks, repeated launches on one
workspace), the tile-count model behind ``tuned``, and on a GPU against torch."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

import layoutc as lc
import numpy as np
import pytest
import sm90_harness as h
from sm90_harness import E16, GEMM, Config, ws

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end


def all_units(cfg, tiles, kt, blocks):
    """Every block's units, as the kernel walks them (WorkUnits with static values)."""
    out = []
    for bid in range(blocks):
        units = GEMM["WorkUnits"](cfg, tiles, kt, blocks, bid)
        out.append([units.unit(i) for i in range(units.count)])
    return out


@pytest.mark.parametrize(
    ("decomposition", "split_k"),
    [("data_parallel", 1), ("streamk", 1), ("splitk", 2), ("splitk", 3), ("splitk", 5)],
)
def test_work_units_cover_each_tile_once_and_reduce_in_k_order(decomposition, split_k):
    """Over a sweep of tile counts, K-blocks and grids (fewer tiles than blocks, partial and
    full waves, fewer K-blocks than splits or blocks)."""
    cfg = Config(loads="tma", decomposition=decomposition, split_k=split_k)
    for tiles in (1, 2, 3, 5, 8, 13, 21, 40):
        for kt in (1, 2, 3, 7, 16, 33):
            for blocks in (1, 2, 3, 5, 8, 13, 21, 33):
                check_units(cfg, tiles, kt, blocks)


def check_units(cfg, tiles, kt, blocks):
    decomposition, split_k = cfg.decomposition, cfg.split_k
    m, n = tiles * cfg.bm, cfg.bn
    if decomposition == "splitk":  # the host's grid: whole rounds of split_k blocks
        blocks = max(split_k, blocks // split_k * split_k)
    per_block = all_units(cfg, tiles, kt, blocks)
    covered = {t: [] for t in range(tiles)}
    partial_of = {}  # slot -> (block, tile, k_begin)
    finals = {}
    for bid, units in enumerate(per_block):
        used = 0
        for u in units:
            assert 0 <= u.k_begin < u.k_end <= kt and 0 <= u.tile < tiles
            assert u.base == used  # the pipeline's uses before the unit
            used += u.k_end - u.k_begin
            covered[u.tile].append((u.k_begin, u.k_end))
            if decomposition == "data_parallel":
                continue
            if u.final:
                assert u.k_end == kt and u.tile not in finals
                finals[u.tile] = (bid, u)
            else:
                assert u.slot not in partial_of, "a workspace slot written twice"
                assert 0 <= u.slot < cfg.workspace_slots(m, n, blocks)
                partial_of[u.slot] = (bid, u.tile, u.k_begin)
    for t, ranges in covered.items():
        ranges.sort()
        assert ranges[0][0] == 0 and ranges[-1][1] == kt, (t, ranges)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges)), (t, ranges)
    if decomposition == "data_parallel":
        assert all(r == [(0, kt)] for r in covered.values())
        return
    assert set(finals) == set(range(tiles))
    read = set()
    for t, (bid, u) in finals.items():
        slots = list(range(u.first_slot, u.end_slot))
        read.update(slots)
        # exactly this tile's partials, in K order, each from a lower block
        assert sorted(s for s, p in partial_of.items() if p[1] == t) == slots
        assert [partial_of[s][2] for s in slots] == sorted(partial_of[s][2] for s in slots)
        assert all(partial_of[s][0] < bid for s in slots), (t, bid, slots)
    assert read == set(partial_of)  # every partial is read (and its flag rearmed) once


def test_stream_k_spreads_the_last_wave_over_all_blocks():
    cfg = Config(loads="tma", decomposition="streamk")
    # 4096^3 with 128 x 256 tiles on 132 SMs: 512 tiles, 2 data-parallel waves, then 248 tiles
    # of 64 K-blocks over the 132 blocks: 120 or 121 K-blocks each
    per_block = all_units(cfg, 512, 64, 132)
    work = [sum(u.k_end - u.k_begin for u in units) for units in per_block]
    assert min(work) == 2 * 64 + 120 and max(work) == 2 * 64 + 121
    # 32 tiles of 512 K-blocks (1024 x 1024 x 32768): every block takes 124-125 K-blocks, and
    # a tile's last unit adds the partials of the 4 blocks before it
    per_block = all_units(cfg, 32, 512, 132)
    assert {sum(u.k_end - u.k_begin for u in units) for units in per_block} == {124, 125}
    finals = [u for units in per_block for u in units if u.final]
    assert len(finals) == 32 and {u.end_slot - u.first_slot for u in finals} == {4}


def test_stream_k_blocks_take_at_least_min_sk_iters_k_blocks():
    cfg = Config(loads="tma", decomposition="streamk")
    assert GEMM["MIN_SK_ITERS"] == 8
    # 3 tiles of 20 K-blocks on 8 blocks: 60 K-blocks over 7 blocks (8 or 9 each), none left
    # for the eighth; 3 tiles of 5 K-blocks: one block takes all 15
    work = [sum(u.k_end - u.k_begin for u in us) for us in all_units(cfg, 3, 20, 8)]
    assert sorted(work) == [0, 8, 8, 8, 9, 9, 9, 9]
    work = [sum(u.k_end - u.k_begin for u in us) for us in all_units(cfg, 3, 5, 8)]
    assert work == [15, 0, 0, 0, 0, 0, 0, 0]


def test_split_k_units():
    cfg = Config(loads="tma", split_k=3)
    assert cfg.decomposition == "splitk" and cfg.name.endswith("-split3")
    # 10 tiles of 7 K-blocks on 9 blocks: 3 tiles per round, K-blocks [0, 2), [2, 4), [4, 7)
    per_block = all_units(cfg, 10, 7, 9)
    assert [(u.tile, u.k_begin, u.k_end) for u in per_block[4]] == [(1, 2, 4), (4, 2, 4), (7, 2, 4)]
    assert [(u.tile, u.k_begin, u.k_end, u.final) for u in per_block[5]][-1] == (7, 4, 7, True)
    assert cfg.grid(1280, 256, 132) == (60,)  # 20 tiles of 128 x 128, 3 splits: 60 units
    assert cfg.grid(1280 * 8, 256, 100) == (99,)  # whole rounds of 3 blocks
    assert cfg.grid(128, 256, 2) == (3,)  # at least one round
    assert cfg.workspace_slots(1280, 256, 99) == 40  # two partials per tile
    # fewer K-blocks than splits: as many splits as K-blocks
    assert {(u.k_begin, u.k_end) for units in all_units(cfg, 4, 2, 9) for u in units} == {
        (0, 1),
        (1, 2),
    }


def test_decompositions_refuse_what_they_do_not_do():
    with pytest.raises(ValueError, match="decomposition must be 'data_parallel', 'splitk' or"):
        Config(loads="tma", decomposition="stream-k").check()
    with pytest.raises(ValueError, match=r"decomposition='streamk' takes TMA loads and no clu"):
        Config(loads="tma", decomposition="streamk", cluster=2).check()
    with pytest.raises(ValueError, match=r"decomposition='splitk' takes TMA loads"):
        Config(split_k=2).check()  # cp.async
    with pytest.raises(ValueError, match="split_k must be > 1 with decomposition='splitk'"):
        Config(loads="tma", decomposition="splitk").check()
    with pytest.raises(ValueError, match="split_k must be > 1 with decomposition='splitk'"):
        Config(loads="tma", decomposition="streamk", split_k=2).check()


def test_tuned_chooses_a_decomposition_by_the_tile_count_model():
    tuned, model = GEMM["tuned"], GEMM["decomposition_time"]
    # full waves, or a last wave the model gains little on: data-parallel
    for shape in [(4096, 4096, 4096), (4000, 4000, 4000), (8192, 8192, 8192), (2048, 2048, 16384)]:
        for dtype in ("bf16", "tf32"):
            assert tuned(dtype, shape).decomposition == "data_parallel", (dtype, shape)
            assert tuned(dtype, shape) == tuned(dtype, shape[:2])
    # few tiles, deep K: the tiles' K-blocks over all SMs (measured best on an H200: split-K
    # 4 of the cooperative 128 x 256 tile, where ping-pong 128 x 192 fills more SMs unsplit)
    cfg = tuned("bf16", (1024, 1024, 32768))
    assert (cfg.decomposition, cfg.split_k, cfg.bm, cfg.bn) == ("splitk", 4, 128, 256)
    assert tuned("bf16", (1024, 1024)).schedule == "pingpong"
    dp = replace(cfg, decomposition="data_parallel", split_k=1)
    assert model(cfg, 1024, 1024, 32768) < 0.5 * model(dp, 1024, 1024, 32768)
    cfg.check()
    # the model's data-parallel time: rounds of whole tiles plus their epilogues
    base = tuned("bf16")
    e = 128 * 256 * 2 / ((128 + 256) * 64 * 2)
    assert model(base, 4096, 4096, 4096) == 4 * (64 + e)
    # stream-K without a partial wave is data-parallel
    sk = replace(base, decomposition="streamk")
    assert model(sk, 128 * 132, 256, 4096) == model(base, 128 * 132, 256, 4096)
    assert tuned("bf16", (1024, 1024, 32768), cluster=2).decomposition == "data_parallel"


CPU = [
    # (config, (m, n, k), sms): residues in M, N and K; grids that split tiles over blocks
    (ws(bm=64, bn=32, warpgroups=1, decomposition="streamk"), 7),
    (ws(bm=64, bn=32, warpgroups=1, decomposition="streamk"), 16),
    (ws(bm=128, bn=32, mma_in_flight=0, decomposition="streamk", epilogue="tma"), 5),
    (ws(bm=64, bn=32, schedule="pingpong", decomposition="streamk", **E16), 7),
    (ws(bm=64, bn=32, warpgroups=1, split_k=3), 16),
    (ws(bm=64, bn=32, schedule="pingpong", c_dtype="f16", split_k=2), 6),
    (ws("tf32", bm=64, bn=64, warpgroups=1, epilogue="tma", split_k=4), 12),
]


@pytest.mark.parametrize(("cfg", "sms"), CPU, ids=[f"{c.name}-g{s}" for c, s in CPU])
def test_stream_k_and_split_k_match_numpy_on_the_cpu(cfg, sms):
    m, n, k = 2 * cfg.bm + 9, cfg.bn + 8, 9 * cfg.bk + 8
    kernel = h.make_gemm(cfg)
    a, b, a64, b64 = h.operands(cfg, m, n, k, np.random.default_rng(3))
    ref = a64 @ b64.T
    (grid,) = cfg.grid(m, n, sms, k=k)
    tiles = -(-m // cfg.bm) * -(-n // cfg.bn)
    units = all_units(cfg, tiles, -(-k // cfg.bk), grid)
    # the launch does share tiles between blocks: partials go through the workspace
    assert sum(not u.final for us in units for u in us) >= 2
    workspaces = {}
    c_type = {"f32": np.float32, "f16": np.float16}[cfg.c_dtype]
    results = []
    for _ in range(2):  # one workspace, two launches: the flags are rearmed
        c = np.full((m, n), np.nan, c_type)
        GEMM["gemm"](kernel, cfg, a, b, c, sms=sms, workspaces=workspaces)
        h.assert_close(c, ref, cfg.c_dtype)
        flags = workspaces[(m, n, grid, "cpu")][1]
        assert not flags.any()
        results.append(c)
    np.testing.assert_array_equal(results[0], results[1])  # a fixed order of the sums


def test_the_workspace_follows_the_decomposition():
    workspace = GEMM["workspace"]
    assert workspace(Config(loads="tma"), 1000, 1000, 132) == ()
    work, flags = workspace(Config(bm=64, bn=32, loads="tma", split_k=3), 130, 64, 18)
    assert work.shape == (3 * 2 * 2 * 64 * 32,) and flags.shape == (12,) and not flags.any()
    work, flags = workspace(Config(loads="tma", decomposition="streamk"), 4096, 4096, 132)
    assert work.dtype == np.float32 and flags.dtype == np.int32 and flags.shape == (132,)
    args = GEMM["kernel_args"](Config(loads="tma", split_k=2), 1, 2, 3, (), (4, 5))
    assert args == (1, 2, 3, None, None, 4, 5)


@pytest.mark.parametrize(
    "cfg",
    [
        GEMM["tuned"]("f16", decomposition="streamk"),
        GEMM["tuned"]("tf32", split_k=2),
        GEMM["tuned"]("f16", (8192, 8192), decomposition="streamk"),  # ping-pong 128 x 192
    ],
    ids=lambda c: c.name,
)
def test_stream_k_and_split_k_assemble_for_sm90a_without_local_memory(cfg):
    work = GEMM["workspace"](cfg, cfg.bm, cfg.bn, 2)
    # ping-pong's 192 accumulators: setmaxnreg's 232 registers, which only a whole-program
    # cubin honours (the ptxas executable; test_gemm_sm90.py's ping-pong test)
    whole = cfg.schedule == "pingpong"
    args = GEMM["kernel_args"](cfg, *h.tile_operands(cfg), (), work)
    ck = h.compile_sm90a(cfg, *args)
    # the flags: release (fence, then a relaxed exchange) and acquire (exchange, then fence)
    assert "membar.gl" in ck.ptx and "atom.global.exch.b32" in ck.ptx
    # the partials in 16-byte vectors, stored and read (LLVM's PTX: .b32, libNVVM's: .f32)
    assert re.search(r"st\.global\.v4\.[bf]32", ck.ptx)
    assert bool(re.search(r"ld\.global\.v4\.[bf]32", ck.ptx)) == (cfg.schedule != "pingpong")
    h.assemble(ck.ptx, whole_program=whole)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "kw"),
    [
        ("bf16", dict(decomposition="streamk")),
        ("bf16", dict(split_k=3)),
        ("tf32", dict(decomposition="streamk")),
        ("f16", dict(decomposition="streamk", bn=192, schedule="pingpong", mma_in_flight=1)),
        ("bf16", dict(split_k=2, epilogue="store")),
    ],
)
@pytest.mark.parametrize("shape", [(1024, 768, 4096), (1000, 520, 2056), (4096, 1024, 1032)])
def test_stream_k_and_split_k_on_the_gpu_match_torch(dtype, kw, shape):
    torch = pytest.importorskip("torch")
    cfg = GEMM["tuned"](dtype, **kw)
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    # (tf32: the tensor cores read 19 bits, the reference sees the same inputs)
    a = h.torch_operand(torch, g, (m, k), dtype)
    b = h.torch_operand(torch, g, (n, k), dtype)
    c = h.torch_c(torch, m, n, cfg.c_dtype)
    ws = GEMM["workspace"](cfg, m, n, 132, like=c)  # the spec's workspace arguments
    run = lc.compile(
        h.make_gemm(cfg),
        *GEMM["kernel_args"](cfg, a, b, c, (), ws),
        block=cfg.threads,
        index_bitwidth=32,
    )
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    ref = a.double() @ b.double().T
    workspaces = {}
    outs = []
    for _ in range(3):
        c.fill_(float("nan"))
        GEMM["gemm"](run, cfg, a, b, c, sms=sms, workspaces=workspaces)
        torch.cuda.synchronize()
        assert not torch.isnan(c).any()
        err = h.rel_err(c, ref)
        assert err < h.GPU_ERR[cfg.c_dtype], err
        outs.append(c.clone())
    assert all(torch.equal(outs[0], o) for o in outs[1:])  # deterministic
    (_, flags) = next(iter(workspaces.values()))
    assert not flags.any()
