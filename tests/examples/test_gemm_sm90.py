"""examples/gemm_sm90.py: the wgmma GEMM on the CPU runtime against numpy (random normal f16
inputs, several configurations), and its sm_90a cubin (accumulators in registers)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sm90_harness as h
from sm90_harness import E16, GEMM, Config, ws

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end


@pytest.mark.parametrize(
    "cfg",
    [
        Config(bm=64, bn=64, stages=2, warpgroups=1, mma_in_flight=0),
        Config(bm=128, bn=64, stages=3, warpgroups=2),
        Config(bm=128, bn=192, stages=4, warpgroups=1),
        Config("tf32", bm=64, bn=128, bk=32, stages=3, warpgroups=1),
    ],
    ids=lambda c: c.name,
)
def test_gemm_sm90_matches_numpy_on_the_cpu(cfg):
    m, n, k = 2 * cfg.bm, cfg.bn, 5 * cfg.bk
    a, b, a64, b64 = h.operands(cfg, m, n, k, np.random.default_rng(1))
    c = np.full((m, n), np.nan, np.float32)
    h.make_gemm(cfg)(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)  # smem: default
    np.testing.assert_allclose(c, a64 @ b64.T, rtol=1e-4, atol=1e-3)


WS_CPU = [
    # the warp-specialized persistent TMA kernel: small tiles keep the CPU runtime quick
    ws(bm=64, bn=32, warpgroups=1),
    ws(bm=64, bn=32, stages=3, warpgroups=1, mma_in_flight=0, c_dtype="f16"),
    ws(bm=64, bn=32, schedule="pingpong"),
    ws("tf32", bm=64, bn=32, bk=32, warpgroups=1),
    # a cluster of 2, run as a pair of blocks on the CPU too: each loads half of A and
    # multicasts it into both, and releases its stages in both (remote mbarrier arrivals)
    ws(bm=64, bn=32, warpgroups=1, cluster=2),
    # the TMA-store epilogue (smem staging, column boxes clipped at C's edges)
    ws(bm=64, bn=64, warpgroups=1, **E16),
    ws(bm=256, bn=64, epilogue="tma"),
    ws(bm=64, bn=64, schedule="pingpong", **E16),
    # MN-major A and B (wgmma's transpose bits; 64-element TMA boxes along M and N)
    ws(bm=64, bn=64, warpgroups=1, a_major="MN"),
    ws(bm=128, bn=128, a_major="MN", b_major="MN"),
    ws(bm=128, bn=64, b_major="MN", cluster=2),
    # one arrival per consumer warpgroup releases a stage (CUTLASS's PipelineTmaAsync)
    ws(bm=128, bn=32, release="warpgroup"),
    ws(bm=128, bn=32, stages=3, release="warpgroup", cluster=2),
    # mma_lead: each K-block's first K-step, the wait for the previous one, then the rest
    ws(bm=128, bn=32, mma_in_flight=0, mma_lead=1),
    GEMM["replace"](
        ws(bm=64, bn=64, schedule="pingpong", mma_in_flight=0, mma_lead=3, **E16),
        release="warpgroup",
        cluster=2,
    ),
    ws("tf32", bm=128, bn=32, bk=32, stages=3, mma_in_flight=0, mma_lead=2),
    # ping-pong with three TMA-epilogue boxes along N (tuned()'s 128 x 192 at 8192^2, smaller)
    ws(bm=64, bn=192, schedule="pingpong", **E16),
    # the consumer warpgroups side by side along N (split="N"; tuned()'s 192 x 160 at 4000^3,
    # smaller): 3 wgmma slices each, an unswizzled TMA-epilogue box of a warpgroup's 24
    # columns, an odd number of boxes per tile (the two buffers alternate across tiles)
    ws(bm=192, bn=48, split="N", **E16),
    ws(bm=64, bn=32, split="N"),
    ws("tf32", bm=64, bn=16, bk=32, split="N", epilogue="tma"),
    ws(bm=128, bn=32, split="N", cluster=2, **E16),
    # A's 320-row stage as two TMA boxes of 160 (a box has at most 256 rows)
    ws(bm=320, bn=16, mma_in_flight=0, split="N", **E16),
    # a buffer per epilogue box (epi_buffers): all of a tile's boxes written, then all stored
    ws(bm=192, bn=48, split="N", epi_buffers=3, **E16),
    ws(bm=256, bn=64, epilogue="tma", epi_buffers=4),
    # three buffers for four boxes a tile (one warpgroup): they rotate across tiles
    ws(bm=128, bn=128, warpgroups=1, epi_buffers=3, split="N", **E16),
    # an unswizzled 64 x 32 box of 16-bit C with the M split (bn=32: half a 128-byte row)
    ws(bm=64, bn=32, schedule="pingpong", **E16),
    # clusters along M (2 x 1: the two tiles share B's N block, each block loads half of B and
    # multicasts it); M = 2 bm + 9 is 3 tiles, so the last cluster's second tile is past C
    ws(bm=64, bn=32, warpgroups=1, cluster=(2, 1)),
    ws(bm=64, bn=64, schedule="pingpong", cluster=(2, 1), **E16),
    ws(bm=128, bn=32, mma_in_flight=0, mma_lead=1, cluster=(2, 1), release="warpgroup"),
    # B MN-major: 64-column boxes, one per block of the pair (bn / 2 = 64)
    ws(bm=64, bn=128, warpgroups=1, b_major="MN", cluster=(2, 1)),
    ws("tf32", bm=128, bn=32, bk=32, epilogue="tma", cluster=(2, 1)),
]


@pytest.mark.parametrize("cfg", WS_CPU, ids=lambda c: c.name)
def test_warp_specialized_gemm_matches_numpy_on_the_cpu(cfg):
    """Residues in M, N and K (TMA's zero fill, predicated stores) and fewer blocks than tiles
    (the persistent loop; ping-pong: both consumer warpgroups take tiles)."""
    # (an MN-major operand's K stride is M or N elements: a multiple of 16 bytes)
    m, n, k = 2 * cfg.bm + (9 if cfg.a_major == "K" else 8), 2 * cfg.bn + 8, 2 * cfg.bk + 8
    h.check_on_the_cpu(cfg, m, n, k, seed=2)


#: epi_overlap's kernels: TMA loads and epilogue, each K-block's wgmmas waited for
EO = dict(loads="tma", epilogue="tma", mma_in_flight=0)

EPI_OVERLAP_CPU = [
    # tf32, f32 C: 2 boxes of 64 x 32 per warpgroup and tile, one stored under the next tile
    Config("tf32", bm=64, bn=64, stages=2, warpgroups=1, epi_overlap=1, **EO),
    # two warpgroups, 16-bit C (stmatrix), two of the next tile's K-blocks in two halves
    Config(bm=128, bn=128, stages=3, c_dtype="f16", epi_overlap=2, **EO),
    # one buffer for two boxes, scales applied to both halves first
    Config(
        bm=128, bn=128, stages=3, c_dtype="f16", epi_overlap=2, epi_buffers=1, scales="value", **EO
    ),
    # a 2 x 1 cluster (B multicast): the head's stages released in both blocks
    Config(bm=128, bn=64, stages=2, cluster=(2, 1), epi_overlap=1, **EO),
    # overlap_n="full": the plain tile's N = bn wgmmas in the head and the mainloop
    Config("tf32", bm=64, bn=64, stages=2, warpgroups=1, epi_overlap=1, overlap_n="full", **EO),
    Config(bm=128, bn=128, stages=3, c_dtype="f16", epi_overlap=2, overlap_n="full", **EO),
    Config(bm=128, bn=64, stages=2, cluster=(2, 1), epi_overlap=2, overlap_n="full", **EO),
]


@pytest.mark.parametrize("cfg", EPI_OVERLAP_CPU, ids=lambda c: c.name)
@pytest.mark.parametrize("k", [40, 200])  # fewer K-blocks than epi_overlap (bf16/f16), more
def test_epilogue_under_the_next_tiles_wgmmas_matches_numpy_on_the_cpu(cfg, k):
    """``epi_overlap``: each block takes 6-7 tiles (3 blocks), so a tile's second half of C is
    stored under the next tile's first K-blocks, the last tile's after the loop; with K of
    fewer K-blocks than that, the stores come first. The result is the plain kernel's, bit
    for bit (the same sums in the same order)."""
    m, n = 4 * cfg.bm + 9, 4 * cfg.bn + 8
    a, b, a64, b64 = h.operands(cfg, m, n, k, np.random.default_rng(3))
    c_type = {"f32": np.float32, "f16": np.float16}[cfg.c_dtype]
    scales = (0.5, 1.5) if cfg.scales else ()
    outs = []
    for c_cfg in (cfg, GEMM["replace"](cfg, epi_overlap=0)):
        c = np.full((m, n), np.nan, c_type)
        h.launch(c_cfg, h.make_gemm(c_cfg), m, n, a, b, c, *scales)
        outs.append(c)
    ref = (0.75 if scales else 1.0) * (a64 @ b64.T)
    h.assert_close(outs[0], ref, cfg.c_dtype)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_tuned_configurations_are_the_documented_ones():
    tuned = GEMM["tuned"]
    eff = GEMM["tile_efficiency"]
    # the cooperative 128 x 256 tile stores half of C under the next tile's first K-blocks,
    # with the plain tile's N = bn wgmmas
    assert tuned("bf16").name == "bf16-128x256x64-s4-wg2-f0-tma-coop-cbf16-r8-etma-eo2f"
    assert tuned("tf32").name == "tf32-128x256x32-s4-wg2-f0-tma-coop-r8-etma-eo2f"
    assert (tuned("f16").epi_overlap, tuned("f16").overlap_n) == (2, "full")
    # ... where it can: not with mma_lead, split-K / stream-K or per-box scale loads
    assert tuned("f16", mma_lead=1).epi_overlap == 0
    assert tuned("bf16", (1024, 1024, 32768)).decomposition == "splitk"
    assert tuned("bf16", (1024, 1024, 32768)).epi_overlap == 0
    assert tuned("bf16", decomposition="streamk").epi_overlap == 0
    assert tuned("f16", scales="row", scale_loads="box").epi_overlap == 0
    with pytest.raises(ValueError, match="epi_overlap takes"):
        tuned("f16", mma_lead=1, epi_overlap=2).check()
    assert tuned("f8e4m3").name == "f8e4m3-128x256x128-s4-wg2-f0-tma-coop-cbf16-r8-etma"
    assert tuned("f16", c_dtype="f32").c_dtype == "f32"
    # with a shape: ping-pong 128 x 192 where its tiles fill the SMs' rounds better
    pingpong = "bf16-128x192x64-s4-wg2-f1-tma-pp-cbf16-r8-etma"
    assert tuned("bf16", (8192, 8192, 8192)).name == pingpong
    assert tuned("tf32", (8192, 8192)).name == "tf32-128x192x32-s4-wg2-f1-tma-pp-r8-etma"
    for shape in [(4096, 4096), (8192, 4096), (6144, 6144)]:
        assert tuned("bf16", shape) == tuned("bf16"), shape
    # cuBLAS's 192 x 160 at 4000^2 (the warpgroups side by side along N): 525 tiles in 4 rounds
    split = "bf16-192x160x64-s4-wg2n-f0-tma-coop-cbf16-r8-etma"
    assert tuned("bf16", (4000, 4000, 4000)).name == split
    assert tuned("tf32", (4000, 4000)).name == "tf32-192x160x32-s4-wg2n-f0-tma-coop-r8-etma"
    assert eff(tuned("bf16", (4000, 4000)), 4000, 4000) == 4000**2 / (4 * 132 * 192 * 160)
    assert eff(tuned("bf16"), 4000, 4000) == 4000**2 / (4 * 132 * 128 * 256)
    # FP8 e4m3: ping-pong 128 x 192 at 8192^2 (measured), never the 192 x 160 (not measured)
    fp8_pingpong = "f8e4m3-128x192x128-s4-wg2-f1-tma-pp-cbf16-r8-etma"
    assert tuned("f8e4m3", (8192, 8192)).name == fp8_pingpong
    assert tuned("f8e4m3", (8192, 8192), scales="row").name == fp8_pingpong + "-scr"
    assert tuned("f8e4m3", (4000, 4000)) == tuned("f8e4m3")
    assert tuned("f8e5m2", (8192, 8192)) == tuned("f8e5m2")  # e5m2: not measured
    assert eff(tuned("bf16"), 8192, 8192) == 8192**2 / (16 * 132 * 128 * 256)
    assert eff(tuned("bf16", (8192, 8192)), 8192, 8192) == 8192**2 / (21 * 132 * 128 * 192)
    assert eff(tuned("bf16"), 8192, 8192, sms=128) == 1.0
    assert tuned("bf16", (8192, 8192), sms=128) == tuned("bf16")
    for dtype in ("bf16", "f16", "tf32"):
        for shape in [(8192, 8192), (4000, 4000)]:
            tuned(dtype, shape).check()
            assert tuned(dtype, shape).smem_bytes() <= 227 * 1024
    for dtype in ("bf16", "f16", "tf32", "f8e4m3", "f8e5m2"):
        tuned(dtype).check()
        assert tuned(dtype).smem_bytes() <= 227 * 1024
    with pytest.raises(ValueError, match="dtype must be one of"):
        tuned("f64")


def test_tma_boxes_of_a_stage_have_at_most_256_whole_swizzle_atoms_of_rows():
    box_rows = GEMM["box_rows"]
    assert (box_rows(256), box_rows(320), box_rows(384), box_rows(512)) == (256, 160, 192, 256)
    for rows in range(8, 1025, 8):
        got = box_rows(rows)
        assert got <= 256 and rows % got == 0 and got % 8 == 0, rows
        # the largest such part: fewer parts would break a rule
        assert all(rows // p > 256 or rows % p or (rows // p) % 8 for p in range(1, rows // got)), (
            rows
        )


def test_warp_specialized_gemm_refuses_what_it_does_not_do():
    with pytest.raises(ValueError, match="mma_lead takes TMA loads, mma_in_flight=0"):
        Config(loads="tma", mma_lead=1).check()  # mma_in_flight=1
    with pytest.raises(ValueError, match=r"0 < mma_lead < 4 \(the K-steps"):
        Config(loads="tma", mma_in_flight=0, mma_lead=4).check()
    with pytest.raises(ValueError, match="release must be 'warp' or 'warpgroup'"):
        Config(loads="tma", release="thread").check()
    with pytest.raises(ValueError, match="schedule"):
        Config(loads="tma", schedule="zigzag").check()
    with pytest.raises(ValueError, match=r"split must be 'M' or 'N' \(N: TMA loads, cooper"):
        Config(loads="tma", schedule="pingpong", split="N").check()
    with pytest.raises(ValueError, match="split must be"):
        Config(split="N").check()  # cp.async
    with pytest.raises(ValueError, match="the SS mainloop"):
        Config(loads="tma", split="N", mainloop="rs").check()
    with pytest.raises(ValueError, match=r"bn per warpgroup must be a multiple of 8 .* got 4"):
        Config(bn=8, loads="tma", split="N").check()
    with pytest.raises(ValueError, match="epi_buffers takes the TMA epilogue"):
        Config(loads="tma", epi_buffers=2).check()
    coop = dict(bn=256, loads="tma", mma_in_flight=0, epilogue="tma")
    Config(**coop, epi_overlap=2).check()
    for bad in (
        dict(epilogue="store"),
        dict(bm=256),  # two 64-row slices per warpgroup
        dict(split="N"),
        dict(mma_in_flight=1),
        dict(mma_lead=1),
        dict(decomposition="streamk"),
        dict(bn=64, c_dtype="f16"),  # one 64 x 64 box per warpgroup: no halves
    ):
        cfg = Config(**{**coop, **bad}, epi_overlap=1)
        with pytest.raises(ValueError, match="epi_overlap takes a count >= 0 and"):
            cfg.check()
    with pytest.raises(ValueError, match=r"8 epilogue buffers and 4 stages need \d+ bytes"):
        Config(bn=256, loads="tma", c_dtype="f16", epilogue="tma", epi_buffers=8).check()
    with pytest.raises(ValueError, match=r"unswizzled boxes of a warpgroup's 4 columns"):
        Config(bn=8, loads="tma", c_dtype="f16", epilogue="tma", warpgroups=2, split="N").check()
    with pytest.raises(ValueError, match="two consumer warpgroups"):
        Config(bm=64, loads="tma", schedule="pingpong", warpgroups=1).check()
    with pytest.raises(ValueError, match="c_dtype"):
        Config(c_dtype="f16").check()
    with pytest.raises(ValueError, match="a_major='MN' takes TMA loads, f16/bf16"):
        Config("tf32", bk=32, loads="tma", a_major="MN").check()
    with pytest.raises(ValueError, match=r"b_major='MN' .* got tma, f16, 32"):
        Config(bn=32, loads="tma", b_major="MN").check()


@pytest.mark.parametrize(
    "cfg",
    [
        GEMM["CONFIG"],
        Config("tf32", bn=256, bk=32, stages=4),
        Config(bn=128, stages=5, loads="tma", schedule="pingpong", c_dtype="f16"),
        Config(bm=256, bn=128, stages=4, loads="tma", cluster=2),
        GEMM["tuned"]("f16", cluster=(2, 1)),  # cuBLAS's f16 4096^3 cluster: B multicast
        Config(bm=256, bn=128, stages=4, loads="tma", c_dtype="f16", epilogue="tma"),
        Config(bn=256, stages=4, loads="tma", a_major="MN", b_major="MN"),
        GEMM["tuned"]("f16"),  # the measured-best configurations users get
        GEMM["tuned"]("tf32"),
        GEMM["tuned"]("f16", mma_lead=1),
        GEMM["tuned"]("f16", (4000, 4000)),  # 192 x 160, the warpgroups along N
        GEMM["tuned"]("tf32", (4000, 4000)),
    ],
    ids=lambda c: c.name,
)
def test_gemm_sm90_assembles_for_sm90a_without_local_memory(cfg):
    # epi_overlap: the tile's second half of C held in a copy under the next tile's wgmmas,
    # more than nvJitLink's 168 registers, within setmaxnreg's 232: a whole-program cubin
    # (the ptxas executable); the others through nvJitLink
    whole = bool(cfg.epi_overlap)
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), cubin="auto" if whole else "never")
    k = 8 if cfg.dtype == "tf32" else 16
    ab = "tf32.tf32" if cfg.dtype == "tf32" else "f16.f16"
    # (epi_overlap with overlap_n="half": N/2 halves)
    n = cfg.bn // cfg.split_n // (2 if cfg.epi_overlap and cfg.overlap_n == "half" else 1)
    instruction = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ab}"
    assert ck.ptx.count(instruction) >= cfg.bk // k
    # PTX's imm-trans-a/b: 1 for an MN-major (transposed) operand
    trans = f"p, 1, 1, {int(cfg.a_major == 'MN')}, {int(cfg.b_major == 'MN')};"
    if cfg.dtype != "tf32":
        assert trans in ck.ptx
    log = h.assemble(ck.ptx, whole_program=whole)
    if whole:  # and ptxas keeps the wgmmas asynchronous (no C7510-C7515 serialization)
        assert not re.search(r"C751[0-5]", log), log
    if cfg.cluster_blocks > 1:  # consumers release the stage of every block of the cluster
        assert "mbarrier.arrive.shared::cluster.b64 _," in ck.ptx
    if cfg.loads == "tma":  # the producer gives registers to the consumers
        assert "setmaxnreg.dec.sync.aligned.u32 40" in ck.ptx
        assert "setmaxnreg.inc.sync.aligned.u32 232" in ck.ptx
    if cfg.epilogue == "tma":  # stmatrix (16-bit C) into shared memory, TMA stores out of it
        assert ("stmatrix.sync.aligned.x4.m8n8.shared.b16" in ck.ptx) == (cfg.c_dtype != "f32")
        assert "cp.async.bulk.tensor.2d.global.shared::cta" in ck.ptx
        assert f"cp.async.bulk.wait_group.read {cfg.epilogue_buffers - 1}" in ck.ptx
    if cfg.cluster_blocks > 1:  # launched in clusters; A or B multicast; stages released in all
        assert f".reqnctapercluster {cfg.cluster_blocks}, 1, 1" in ck.ptx
        assert ".multicast::cluster" in ck.ptx
        assert "mbarrier.arrive.shared::cluster.b64" in ck.ptx


@pytest.mark.parametrize("dtype", ["f16", "tf32"])
def test_pingpong_128x192_fits_the_registers_setmaxnreg_gives(dtype):
    """tuned()'s ping-pong 128 x 192 keeps 192 accumulators per consumer thread: more than the
    168 registers of __launch_bounds__(384, 1), so it needs setmaxnreg's 232, which only a
    whole-program cubin honours (the loader's ptxas or the driver's JIT, never nvJitLink's
    relocatable code). Assembled that way: no local memory, no spills."""
    cfg = GEMM["tuned"](dtype, (8192, 8192), c_dtype="f32" if dtype == "tf32" else "f16")
    assert (cfg.schedule, cfg.bm, cfg.bn) == ("pingpong", 128, 192)
    h.assemble(h.compile_sm90a(cfg, *h.tile_operands(cfg)).ptx)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "loads"), [("f16", "cp.async"), ("bf16", "cp.async"), ("bf16", "tma")]
)
def test_gemm_sm90_on_the_gpu_matches_torch(dtype, loads):
    torch = pytest.importorskip("torch")
    cfg = Config(dtype, loads=loads, mma_in_flight=int(loads == "cp.async"))
    kernel = h.make_gemm(cfg)
    g = torch.Generator(device="cuda").manual_seed(0)
    m, n, k = 1024, 512, 768
    a = h.torch_operand(torch, g, (m, k), dtype)
    b = h.torch_operand(torch, g, (n, k), dtype)
    c = h.torch_c(torch, m, n, "f32")
    kernel(a, b, c, grid=cfg.grid(m, n), block=cfg.threads)
    torch.cuda.synchronize()
    err = h.rel_err(c, a.double() @ b.double().T)
    assert err < 1e-5, err


WS_GPU = [
    ("bf16", dict(bn=256, stages=4)),
    ("bf16", dict(bn=256, stages=4, c_dtype="bf16")),
    ("f16", dict(bn=128, stages=5, schedule="pingpong", c_dtype="f16")),
    ("bf16", dict(bm=256, bn=128, stages=4, mma_in_flight=0)),
    ("tf32", dict(bn=256, bk=32, stages=4)),
    ("bf16", dict(bm=256, bn=128, stages=4, cluster=2, c_dtype="bf16")),
    ("f16", dict(bm=64, bn=256, stages=5, schedule="pingpong", cluster=2)),
    ("bf16", dict(bm=256, bn=128, stages=4, mma_in_flight=0, epilogue="tma", c_dtype="bf16")),
    ("tf32", dict(bn=256, bk=32, stages=4, mma_in_flight=0, epilogue="tma")),
    ("f16", dict(bm=128, bn=128, stages=5, schedule="pingpong", epilogue="tma", cluster=2)),
    ("bf16", dict(bn=256, stages=4, a_major="MN", b_major="MN")),
    ("f16", dict(bm=256, bn=128, stages=4, cluster=2, a_major="MN")),
    # mma_lead (the previous K-block's wait between a K-block's first K-step and the rest)
    ("bf16", dict(bn=256, mma_in_flight=0, mma_lead=1, epilogue="tma", c_dtype="bf16")),
    ("bf16", dict(bm=256, bn=128, mma_in_flight=0, mma_lead=1, cluster=2, release="warpgroup")),
    ("tf32", dict(bn=256, bk=32, mma_in_flight=0, mma_lead=1, epilogue="tma")),
    # tuned()'s ping-pong 128 x 192 (8192^2)
    ("bf16", dict(bn=192, stages=4, schedule="pingpong", epilogue="tma", c_dtype="bf16")),
    ("tf32", dict(bn=192, bk=32, stages=4, schedule="pingpong", epilogue="tma")),
    # tuned()'s 192 x 160 with the warpgroups along N (4000^2); 320 x 128 (two A boxes)
    ("bf16", dict(bm=192, bn=160, mma_in_flight=0, split="N", epilogue="tma", c_dtype="bf16")),
    ("tf32", dict(bm=192, bn=160, bk=32, mma_in_flight=0, split="N", epilogue="tma")),
    (
        "f16",
        dict(bm=320, bn=128, stages=3, mma_in_flight=0, split="N", epilogue="tma", c_dtype="f16"),
    ),
]


CLUSTER_M_GPU = [
    # 2 x 1 clusters (B multicast), cuBLAS's f16 cluster at 4096^3
    ("f16", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="f16", cluster=(2, 1))),
    ("bf16", dict(bm=256, bn=128, stages=4, c_dtype="bf16", cluster=(2, 1))),
    ("f16", dict(bn=128, stages=5, schedule="pingpong", epilogue="tma", cluster=(2, 1))),
    ("bf16", dict(bn=256, mma_in_flight=0, cluster=(2, 1), b_major="MN", a_major="MN")),
    ("tf32", dict(bn=256, bk=32, mma_in_flight=0, mma_lead=1, epilogue="tma", cluster=(2, 1))),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "kw"), CLUSTER_M_GPU, ids=[f"{d}-{k}" for d, k in CLUSTER_M_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (300, 520, 264), (130, 1000, 72)])
def test_clusters_along_m_on_the_gpu_match_torch(dtype, kw, shape):
    """300 rows are 3 tiles of 128 (2 of 256): the last cluster's second tile is past C."""
    h.check_ws_on_the_gpu(dtype, kw, shape)


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "kw"), WS_GPU, ids=[f"{d}-{k}" for d, k in WS_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 264), (130, 1000, 72)])
def test_warp_specialized_gemm_on_the_gpu_matches_torch(dtype, kw, shape):
    h.check_ws_on_the_gpu(dtype, kw, shape)


EPI_OVERLAP_GPU = [
    ("tf32", dict(bn=256, bk=32, stages=4, mma_in_flight=0, epilogue="tma", epi_overlap=2)),
    ("bf16", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16", epi_overlap=2)),
    ("f16", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="f16", epi_overlap=1)),
    # overlap_n="full": N = bn wgmmas in the head and the mainloop (tuned()'s)
    ("tf32", dict(bn=256, bk=32, mma_in_flight=0, epilogue="tma", epi_overlap=2, overlap_n="full")),
    (
        "bf16",
        dict(
            bn=256, mma_in_flight=0, c_dtype="bf16", epilogue="tma", epi_overlap=2, overlap_n="full"
        ),
    ),
]


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "kw"),
    EPI_OVERLAP_GPU,
    ids=[d + "-" + k.get("overlap_n", "half") for d, k in EPI_OVERLAP_GPU],
)
@pytest.mark.parametrize("shape", [(2048, 2048, 264), (2000, 2056, 40), (1000, 520, 264)])
def test_epilogue_under_the_next_tiles_wgmmas_on_the_gpu_matches_torch(dtype, kw, shape):
    """``epi_overlap``: 128 (144) tiles on half the SMs, two or three per block, a tile's
    second half stored under the next tile's first K-blocks; K = 40 is fewer K-blocks than
    two for bf16 (the stores first)."""
    h.check_ws_on_the_gpu(dtype, kw, shape)


@pytest.mark.parametrize("cluster", [1, 2, (1, 2), (2, 1)])
def test_balanced_persistent_grid_keeps_the_rounds_with_fewer_blocks(cluster):
    cfg = Config(bm=128, bn=64, loads="tma", cluster=cluster)
    cm, cn = (1, cluster) if isinstance(cluster, int) else cluster
    blocks = cm * cn
    for m in range(1, 2000, 97):
        for n in range(1, 3000, 131):
            for sms in (2, 66, 132):
                groups = -(-m // (cfg.bm * cm)) * -(-n // (cfg.bn * cn))
                assert cfg.grid(m, n) == (blocks * groups,)  # every tile group its cluster
                (plain,) = cfg.grid(m, n, sms)
                (balanced,) = cfg.grid(m, n, sms, balanced=True)
                rounds = -(-groups // (plain // blocks))
                assert balanced <= plain and balanced % blocks == 0
                assert -(-groups // (balanced // blocks)) == rounds, (m, n, sms)


def test_cluster_shapes_name_and_refuse():
    config = Config
    assert config(loads="tma", cluster=2) == config(loads="tma", cluster=(1, 2))
    assert config(loads="tma", cluster=2).cluster == (1, 2)
    assert config(loads="tma").cluster == (1, 1)
    assert config(loads="tma", cluster=2).name.endswith("-r8-x2")  # the name it always had
    assert config(loads="tma", cluster=(2, 1)).name.endswith("-r8-x2x1")
    assert config(loads="tma", cluster=[2, 1]).cluster_blocks == 2
    for bad in [(0, 2), (1, 2, 1), True, "2x2", (2.0, 1)]:
        with pytest.raises(ValueError, match=r"cluster must be an int n \(1 x n\) or a pair"):
            config(loads="tma", cluster=bad).check()
    with pytest.raises(ValueError, match=r"cluster=\(2, 1\) .* takes TMA loads"):
        config(cluster=(2, 1)).check()
    # an MN-major B is loaded in 64-column boxes: each block of a 2 x 1 cluster takes bn / 2
    with pytest.raises(ValueError, match=r"b_major='MN' .* got tma, f16, 32"):
        config(bn=64, loads="tma", b_major="MN", cluster=(2, 1)).check()
    config(bn=128, loads="tma", b_major="MN", cluster=(2, 1)).check()
    config(bm=64, loads="tma", warpgroups=1, a_major="MN", cluster=(2, 1)).check()
