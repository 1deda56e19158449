"""examples/gemm_sm90.py with block-wise FP8 scales (``scales="block"``, DeepSeek-V3's: A per
1 x 128 block, B per 128 x 128 block, applied to each K-block's own f32 accumulator before it
is added to the tile's): on the CPU runtime against a numpy reference of the dequantized
product (residues in M, N and K), the refusals, the sm_90a cubins, and on a GPU against a
torch float reference and torch._scaled_mm's block-wise path where torch has it."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
import sm90_harness as h
from narrow_floats import fp8
from sm90_harness import EBF16, GEMM, Config

pytestmark = pytest.mark.verify_at_end


def block_scales(rng, m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """scale_a (M, KB) M-major and scale_b (NB, KB) row-major: powers of two times small
    odd numbers, negative ones too (exact products), distinct per row, block and K block."""
    kb, nb = -(-k // 128), -(-n // 128)
    sa = (rng.integers(-12, 13, (m, kb)) | 1) / 8
    sb = (rng.integers(1, 16, (nb, kb)) | 1) / 16
    return np.asfortranarray(sa.astype(np.float32)), sb.astype(np.float32)


def reference(a64, b64, sa, sb) -> tuple[np.ndarray, np.ndarray]:
    """sum over K blocks of scale_a[m, kb] * scale_b[n // 128, kb] * (A_kb @ B_kb.T), and
    the same sum of absolute values (the rounding bound's scale)."""
    m, k = a64.shape
    n = b64.shape[0]
    ref, mag = np.zeros((m, n)), np.zeros((m, n))
    cols = np.arange(n) // 128
    for kb in range(-(-k // 128)):
        ks = slice(128 * kb, 128 * (kb + 1))
        f = sa[:, kb, None].astype(np.float64) * sb[cols, kb][None, :].astype(np.float64)
        ref += f * (a64[:, ks] @ b64[:, ks].T)
        mag += np.abs(f) * (np.abs(a64[:, ks]) @ np.abs(b64[:, ks]).T)
    return ref, mag


def block(dtype: str, **kw) -> object:
    """A block-scaled configuration: TMA loads, each K-block's wgmmas waited for."""
    return Config(dtype, loads="tma", mma_in_flight=0, scales="block", **kw)


CPU = [
    block("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1),
    # bn = 256: two column blocks of B's scales per tile; mixed types, the TMA epilogue
    block("f8e4m3", bm=64, bn=256, stages=2, warpgroups=1, b_dtype="f8e5m2", **EBF16),
    # cooperative (two warpgroups along M), ping-pong, the RS mainloop, split-K (the partials
    # are sums of scaled K-blocks), a 2 x 2 cluster
    block("f8e4m3", bm=128, bn=32, stages=3, c_dtype="f16"),
    block("f8e5m2", bm=64, bn=64, stages=2, schedule="pingpong"),
    block("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1, mainloop="rs"),
    block("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, split_k=2),
    block("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, cluster=(2, 2)),
]


def _check_on_the_cpu(cfg, m: int, n: int, k: int, seed: int) -> None:
    """``cfg``'s kernel on the CPU runtime against :func:`reference` (C starts as NaN)."""
    kernel = h.make_gemm(cfg)
    rng = np.random.default_rng(seed)
    a, b, a64, b64 = h.operands(cfg, m, n, k, rng)
    c, values = h.c_buffer(m, n, cfg.c_dtype)
    sa, sb = block_scales(rng, m, n, k)
    ws: dict = {}
    GEMM["gemm"](kernel, cfg, a, b, c, GEMM["scale_args"](cfg, sa, sb), sms=3, workspaces=ws)
    ref, mag = reference(a64, b64, sa, sb)
    # FP8 products are exact in f32; each K block's f32 sum rounds, then its scaled addition,
    # then C's conversion. A missed, doubled or misplaced scale is far outside this.
    rel = {"f32": 2.0**-22, "f16": 2.0**-10, "bf16": 2.0**-7}[cfg.c_dtype]
    bound = 2.0**-20 * mag + rel * np.abs(ref)
    assert (np.abs(values() - ref) <= bound).all(), np.abs(values() - ref).max()


@pytest.mark.parametrize("cfg", CPU, ids=lambda c: c.name)
def test_block_scaled_fp8_gemm_matches_numpy_on_the_cpu(cfg):
    _check_on_the_cpu(cfg, 2 * cfg.bm + 9, 2 * cfg.bn + 8, 3 * cfg.bk + 16, seed=4)


def test_block_scales_name_and_refusals():
    block = dict(loads="tma", mma_in_flight=0, scales="block")
    assert Config("f8e4m3", **block).name.endswith("-scb")
    with pytest.raises(ValueError, match=r"scales='block' takes FP8 A and B .*dtype=bf16"):
        Config("bf16", **block).check()
    with pytest.raises(ValueError, match=r"scales='block' scales K in blocks of 128: bk must"):
        Config("f8e4m3", bk=64, **block).check()
    with pytest.raises(ValueError, match=r"scales='block' takes TMA loads"):
        Config("f8e4m3", mma_in_flight=0, scales="block").check()
    Config("f8e4m3", loads="tma", scales="block").check()  # mma_in_flight=1: pipelined
    wide = Config("f8e4m3", loads="tma", scales="block", block_chunk=4, block_prefetch=True)
    wide.check()
    assert wide.name.endswith("-scb-bc4-bpf")
    # mma_in_flight=0 in straight-line chunks too, each K-block waited for before its promotion
    waited = Config("f8e4m3", block_chunk=4, block_prefetch=True, **block)
    waited.check()
    assert waited.name.endswith("-f0-tma-coop-r8-scb-bc4-bpf")
    with pytest.raises(ValueError, match=r"take scales='block' .*scales=None"):
        Config("f8e4m3", loads="tma", block_prefetch=True).check()
    with pytest.raises(ValueError, match=r"block_chunk must be an even number .*block_chunk=3"):
        Config("f8e4m3", loads="tma", scales="block", block_chunk=3).check()
    with pytest.raises(ValueError, match=r"takes mma_in_flight=0 .*mma_lead=1"):
        Config("f8e4m3", mma_lead=1, **block).check()
    with pytest.raises(ValueError, match=r"whole 128-column scale blocks .*bn=192"):
        Config("f8e4m3", bn=192, **block).check()
    with pytest.raises(ValueError, match=r"whole 128-column scale blocks .*split='N'"):
        Config("f8e4m3", bn=256, split="N", **block).check()
    with pytest.raises(ValueError, match=r"without mma_lead or epi_overlap"):
        Config("f8e4m3", bn=256, epilogue="tma", epi_overlap=1, **block).check()
    cfg = Config("f8e4m3", bm=64, bn=64, warpgroups=1, **block)
    cfg.check()
    with pytest.raises(TypeError, match=r"scale_a: scales='block' takes a 2-d f32 tensor"):
        GEMM["scale_args"](cfg, np.ones(4, np.float32), np.ones((1, 1), np.float32))
    a = np.zeros((100, 300), np.uint8)
    b = np.zeros((200, 300), np.uint8)
    ok = (np.ones((100, 3), np.float32, order="F"), np.ones((2, 3), np.float32))
    GEMM["check_block_scale_shapes"](cfg, a, b, *ok)
    with pytest.raises(ValueError, match=r"scale_a: .* have shape \(100, 3\), got \(100, 2\)"):
        GEMM["check_block_scale_shapes"](cfg, a, b, ok[0][:, :2], ok[1])
    with pytest.raises(ValueError, match=r"scale_b: .* have shape \(2, 3\), got \(1, 3\)"):
        GEMM["check_block_scale_shapes"](cfg, a, b, ok[0], ok[1][:1])


def test_tuned_block_scaled_configuration_is_the_measured_one():
    """tuned() gives block scales the cooperative 128 x 128 tile the benchmark measured, with
    one K-block in flight (the promotion under the next K-block's wgmmas), which check()
    accepts (the default 128 x 256 would not fit the registers): the row scales through
    shared memory where the shape's M is a multiple of 4 (TMA's strides), else the scale
    factors loaded two K-blocks ahead."""
    tile = "f8e4m3-128x128x128-s5-wg2-f1-tma-coop-cbf16-r8-etma-scb"
    for shape in ((8192, 8192), (4096, 4096, 4096), (1024, 1024, 32768), (1000, 520, 272)):
        cfg = GEMM["tuned"]("f8e4m3", shape, scales="block")
        cfg.check()
        assert cfg.name == tile + "-sas"
    for shape in (None, (130, 1000, 128), (4098, 4096)):
        cfg = GEMM["tuned"]("f8e4m3", shape, scales="block")
        cfg.check()
        assert cfg.name == tile + "-bpf"
    cfg = GEMM["tuned"]("f8e4m3", (4096, 4096), scales="block", mma_in_flight=0)
    assert not cfg.scale_smem and cfg.block_prefetch


def test_block_scales_of_the_wrong_layout_are_refused_at_launch():
    """scale_a must be M-major (torch's 1x128 form) and share KB with scale_b."""
    cfg = block("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1)
    run = h.tile_launcher(cfg, k=256)
    sa, sb = np.ones((64, 2), np.float32), np.ones((1, 2), np.float32)
    with pytest.raises(lc.SpecError, match=r"scale_a"):
        run(sa, sb)  # row-major
    with pytest.raises(lc.SpecError, match=r"scale_b"):
        run(np.asfortranarray(sa), np.ones((1, 3), np.float32))


def test_block_scales_of_extent_one_take_any_stride_there():
    """K <= 128 (one K block): a C-order (M, 1) scale_a has stride 1 along its unit mode (as
    torch's ``s.t().contiguous().t()`` leaves it), which scale_args turns into the spec's M (a
    view, no copy); M = 1 and N <= 128 alike. The product is right."""
    cfg = block("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1)
    rng = np.random.default_rng(5)
    for m, n, k in [(70, 40, 112), (1, 40, 256)]:
        a, a64 = fp8(rng, (m, k), cfg.dtype)
        b, b64 = fp8(rng, (n, k), cfg.dtype)
        c = np.full((m, n), np.nan, np.float32)
        sa, sb = block_scales(rng, m, n, k)
        sa = np.ascontiguousarray(sa)  # C order: (M, 1) strides (4, 4); (1, KB) (4 KB, 4)
        args = GEMM["scale_args"](cfg, sa, sb)
        assert args[0].strides == (4, 4 * m) and np.shares_memory(args[0], sa)
        GEMM["gemm"](h.make_gemm(cfg), cfg, a, b, c, args, sms=2)
        ref, mag = reference(a64, b64, sa, sb)
        assert (np.abs(c - ref) <= 2.0**-20 * mag + 2.0**-22 * np.abs(ref)).all()


@pytest.mark.parametrize(
    "cfg",
    [
        block("f8e4m3", bn=128, c_dtype="bf16"),
        # (128 x 256 would hold 256 accumulators a thread, the tile's and a K-block's: too many)
        block("f8e4m3", bn=128, cluster=(2, 2), **EBF16),
        block("f8e4m3", bm=64, bn=128, schedule="pingpong", **EBF16),
    ],
    ids=lambda c: c.name,
)
def test_block_scaled_fp8_gemm_assembles_for_sm90a_without_local_memory(cfg):
    sa = np.ones((cfg.bm, 1), np.float32, order="F")
    sb = np.ones((-(-cfg.bn // 128), 1), np.float32)
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), sa, sb, cubin="never")
    h.assemble(ck.ptx, whole_program=False)
    assert "wgmma.mma_async.sync.aligned.m64n" in ck.ptx


BLOCK_GPU = [
    ("f8e4m3", dict(bn=128, c_dtype="bf16")),
    ("f8e4m3", dict(bn=128, c_dtype="bf16", epilogue="tma", cluster=(2, 2))),
    ("f8e4m3", dict(bm=64, bn=128, schedule="pingpong", c_dtype="bf16", epilogue="tma")),
    ("f8e4m3", dict(bn=128, c_dtype="bf16", epilogue="tma", cluster=(2, 1))),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "kw"), BLOCK_GPU, ids=[f"{d}-{k}" for d, k in BLOCK_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272), (130, 1000, 128)])
def test_block_scaled_fp8_gemm_on_the_gpu_matches_torch(dtype, kw, shape):
    _check_on_the_gpu(block(dtype, **kw), shape, seed=sum(shape))


def _check_on_the_gpu(cfg, shape: tuple[int, int, int], seed: int) -> None:
    """``cfg``'s kernel on the GPU (FP8 e4m3 A and B, random block scales, negative ones
    too) against a torch float64 product of the dequantized inputs."""
    torch = pytest.importorskip("torch")
    g = torch.Generator(device="cuda").manual_seed(seed)
    m, n, k = shape
    kb, nb = -(-k // 128), -(-n // 128)
    a = h.torch_operand(torch, g, (m, k), "f8e4m3")
    b = h.torch_operand(torch, g, (n, k), "f8e4m3")
    sa = (torch.rand((m, kb), generator=g, device="cuda") + 0.25).t().contiguous().t()
    sb = torch.rand((nb, kb), generator=g, device="cuda") * 2 - 0.5
    c = h.torch_c(torch, m, n, cfg.c_dtype)
    args = GEMM["scale_args"](cfg, sa, sb)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = lc.compile(h.make_gemm(cfg), a, b, c, *args, block=cfg.threads, index_bitwidth=32)
    GEMM["gemm"](run, cfg, a, b, c, args, sms=sms)
    torch.cuda.synchronize()
    # the dequantized inputs: A[m, k] * scale_a[m, k // 128], B[n, k] * scale_b[n // 128, k // 128]
    ks = torch.arange(k, device="cuda") // 128
    ad = a.double() * sa.double()[:, ks]
    bd = b.double() * sb.double()[torch.arange(n, device="cuda") // 128][:, ks]
    ref = ad @ bd.T
    assert not torch.isnan(c).any()
    err = h.rel_err(c, ref)
    assert err < h.FP8_GPU_ERR[cfg.c_dtype], err


def pipelined(dtype: str, **kw) -> object:
    """A block-scaled configuration with one K-block of wgmmas in flight (``mma_in_flight=1``:
    two K-block accumulators in turn, each promoted under the next one's wgmmas)."""
    return Config(dtype, loads="tma", mma_in_flight=1, scales="block", **kw)


# K-block counts that end the mainloop's straight-line chunks (``block_chunk`` K-blocks) with
# every remainder: 1 (a lone K-block), 3, 4, 5 (the last partial), split-K 2 of 7 (3 and 4);
# chunks of 4 with the factors loaded two K-blocks ahead: 7 (a chunk and a rest of 3) and 2
PIPELINED_CPU = [
    (pipelined("f8e4m3", bm=64, bn=64, stages=3, warpgroups=1, block_chunk=4), 7 * 128 - 16),
    (
        pipelined(
            "f8e4m3", bm=64, bn=64, stages=3, warpgroups=1, block_chunk=4, block_prefetch=True
        ),
        7 * 128,
    ),
    (pipelined("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1, block_prefetch=True), 2 * 128),
    (pipelined("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1), 128),
    (pipelined("f8e4m3", bm=128, bn=32, stages=3, c_dtype="f16"), 2 * 128 + 16),
    (pipelined("f8e5m2", bm=64, bn=64, stages=2, schedule="pingpong"), 4 * 128),
    (pipelined("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1, mainloop="rs"), 5 * 128 - 16),
    (pipelined("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, split_k=2), 6 * 128 + 16),
    (
        pipelined(
            "f8e4m3", bm=64, bn=256, stages=2, warpgroups=1, b_dtype="f8e5m2", cluster=(2, 1),
            **EBF16,
        ),
        3 * 128,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cfg", "k"), PIPELINED_CPU, ids=[f"{c.name}-k{k}" for c, k in PIPELINED_CPU]
)
def test_pipelined_block_scaled_fp8_gemm_matches_numpy_on_the_cpu(cfg, k):
    """mma_in_flight=1: each K-block's wgmmas into one of two accumulators, issued before the
    previous K-block's wait and promotion; the same sum as the numpy reference."""
    _check_on_the_cpu(cfg, 2 * cfg.bm + 9, 2 * cfg.bn + 8, k, seed=6)


# mma_in_flight=0 in straight-line chunks (block_chunk / block_prefetch given): each K-block
# waited for and promoted before the next is issued, one accumulator for all K-blocks, the
# factors two K-blocks ahead (or right after the issue); every chunk remainder, split-K, ping-pong
WAITED_CPU = [
    (block("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, block_prefetch=True), 5 * 128),
    (
        block("f8e4m3", bm=64, bn=64, stages=3, warpgroups=1, block_chunk=4, block_prefetch=True),
        7 * 128 - 16,
    ),
    (block("f8e4m3", bm=128, bn=32, stages=3, block_chunk=4, c_dtype="f16"), 2 * 128 + 16),
    (block("f8e5m2", bm=64, bn=64, stages=2, schedule="pingpong", block_prefetch=True), 3 * 128),
    (
        block("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, split_k=2, block_chunk=4,
              block_prefetch=True),
        6 * 128 + 16,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("cfg", "k"), WAITED_CPU, ids=[f"{c.name}-k{k}" for c, k in WAITED_CPU])
def test_chunked_waited_block_scaled_fp8_gemm_matches_numpy_on_the_cpu(cfg, k):
    """mma_in_flight=0 with block_chunk / block_prefetch: the chunked mainloop with each
    K-block's wait before its promotion; the same sum as the numpy reference."""
    _check_on_the_cpu(cfg, 2 * cfg.bm + 9, 2 * cfg.bn + 8, k, seed=7)


@pytest.mark.parametrize(
    "cfg",
    [
        pipelined("f8e4m3", bn=128, stages=5, **EBF16),
        pipelined("f8e4m3", bn=128, stages=5, cluster=(2, 1), **EBF16),
        pipelined("f8e4m3", bm=64, bn=128, stages=5, schedule="pingpong", c_dtype="bf16"),
        # chunks of 4 (A's descriptors in uniform registers: without, 12 bytes spilled)
        pipelined("f8e4m3", bn=128, stages=5, block_chunk=4, block_prefetch=True, **EBF16),
        pipelined("f8e4m3", bn=128, stages=5, scale_smem=True, **EBF16),
        pipelined("f8e4m3", bn=128, stages=5, scale_smem=True, block_prefetch=True, **EBF16),
    ],
    ids=lambda c: c.name,
)
def test_pipelined_block_scaled_fp8_gemm_keeps_its_wgmmas_asynchronous(cfg):
    """Assembled as a whole program (setmaxnreg's registers, what the loader builds): ptxas
    neither serializes the wgmmas (C7514/C7515: accumulator registers read or written while
    a wgmma that owns them is in flight) nor injects waits (C7517), and nothing spills: the
    promotions overlap the next K-block's wgmmas as written (the three accumulator
    fragments, 192 registers a thread, fit setmaxnreg's 232)."""
    sa = np.ones((cfg.bm, 1), np.float32, order="F")
    sb = np.ones((-(-cfg.bn // 128), 1), np.float32)
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), sa, sb)
    log = h.assemble(ck.ptx)
    assert not re.search(r"C75\d\d", log), log
    assert ck.ptx.count("wgmma.wait_group.sync.aligned 1;") > 0


# scale_smem: each K-block's scale_a rows through shared memory (a TMA box per stage, on the
# stage's barrier); M a multiple of 4 (TMA's 16-byte strides), residues in M, N and K
SMEM_CPU = [
    (pipelined("f8e4m3", bm=128, bn=32, stages=3, scale_smem=True), 5 * 128 - 16),
    (
        pipelined("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, block_chunk=4,
                  scale_smem=True, **EBF16),
        7 * 128,
    ),
    (pipelined("f8e5m2", bm=64, bn=64, stages=2, schedule="pingpong", scale_smem=True), 3 * 128),
    # scale_b two K-blocks ahead (block_prefetch), scale_a from the stage at each issue
    (pipelined("f8e4m3", bm=128, bn=32, stages=3, scale_smem=True, block_prefetch=True), 5 * 128),
    (
        pipelined("f8e4m3", bm=64, bn=128, stages=4, warpgroups=1, block_chunk=4,
                  scale_smem=True, block_prefetch=True, **EBF16),
        7 * 128 - 16,
    ),
    # A multicast along the cluster's row: each block still loads its own rows' scales
    (
        pipelined("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, cluster=(1, 2),
                  scale_smem=True),
        2 * 128 + 16,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("cfg", "k"), SMEM_CPU, ids=[f"{c.name}-k{k}" for c, k in SMEM_CPU])
def test_block_scales_through_shared_memory_match_numpy_on_the_cpu(cfg, k):
    _check_on_the_cpu(cfg, 2 * cfg.bm + 12, 2 * cfg.bn + 8, k, seed=8)


def test_block_scales_through_shared_memory_refusals():
    """scale_smem reads a K-block's row scales from its stage: one K-block in flight (with
    block_prefetch, scale_b alone two K-blocks ahead); and TMA takes scale_a only where M *
    4 bytes is a multiple of 16 (refused when the kernel is built for such an M)."""
    kw = dict(loads="tma", scales="block", scale_smem=True)
    assert Config("f8e4m3", **kw).name.endswith("-scb-sas")
    assert Config("f8e4m3", block_prefetch=True, **kw).name.endswith("-scb-bpf-sas")
    with pytest.raises(ValueError, match=r"scale_smem reads .*mma_in_flight=0"):
        Config("f8e4m3", mma_in_flight=0, **kw).check()
    cfg = pipelined("f8e4m3", bm=64, bn=64, stages=2, warpgroups=1, scale_smem=True)
    with pytest.raises(lc.CompileError, match=r"TMA needs byte strides that are multiples of 16"):
        _check_on_the_cpu(cfg, 70, 64, 256, seed=9)


@pytest.mark.parametrize("chunk", [2, 4])
def test_pipelined_block_scaled_chunk_loads_no_factors_after_its_last_wait(chunk):
    """With the factors two K-blocks ahead, each chunk's last K-block's next factors are
    loaded before the chunk's last wgmma wait (into a spare fragment): ptxas issues loads as
    early as it can and took a wait that loads followed above the promotion before it, so
    that with chunks of 2 no promotion ran under a wgmma (ptxas 13.0, SASS read). In the PTX
    no global load follows a ``wait_group 0`` before the next stage's wait, wgmma or store.
    Also A's descriptors come from the warpgroup index broadcast from lane 0 (uniform_a)."""
    # (the factors two ahead: tuned() without a shape)
    cfg = GEMM["tuned"]("f8e4m3", None, scales="block", block_chunk=chunk)
    sa = np.ones((cfg.bm, 1), np.float32, order="F")
    sb = np.ones((1, 1), np.float32)
    ptx = h.compile_sm90a(cfg, *h.tile_operands(cfg), sa, sb, cubin="never").ptx
    waits = ptx.split("wgmma.wait_group.sync.aligned 0;")[1:]
    assert len(waits) >= 2  # a whole chunk's and the rest's
    for after in waits:
        ends = [after.find(x) for x in ("mbarrier.try_wait", "cp.async.bulk", "wgmma.fence")]
        assert "ld.global" not in after[: min([e for e in ends if e >= 0] or [len(after)])]
    assert "shfl.sync.idx" in ptx


PIPELINED_GPU = [
    dict(bn=128, stages=5, **EBF16),
    dict(bn=128, stages=5, cluster=(2, 1), **EBF16),
    dict(bm=64, bn=128, schedule="pingpong", **EBF16),
    dict(bn=128, stages=4, c_dtype="f32"),
    dict(bn=128, stages=5, block_chunk=4, block_prefetch=True, **EBF16),
    dict(bn=128, stages=5, block_prefetch=True, **EBF16),  # tuned() without a shape
]


@pytest.mark.gpu
@pytest.mark.parametrize("kw", PIPELINED_GPU, ids=[str(k) for k in PIPELINED_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272), (130, 1000, 128)])
def test_pipelined_block_scaled_fp8_gemm_on_the_gpu_matches_torch(kw, shape):
    """mma_in_flight=1 (K-block counts 4, 3 and 1) against a torch float64 product of the
    dequantized inputs."""
    _check_on_the_gpu(pipelined("f8e4m3", **kw), shape, seed=sum(shape) + 1)


WAITED_GPU = [
    dict(bn=128, stages=5, block_prefetch=True, **EBF16),
    dict(bn=128, stages=5, block_chunk=4, block_prefetch=True, **EBF16),
    dict(bm=64, bn=128, schedule="pingpong", block_prefetch=True, **EBF16),
]


@pytest.mark.gpu
@pytest.mark.parametrize("kw", WAITED_GPU, ids=[str(k) for k in WAITED_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272), (130, 1000, 128)])
def test_chunked_waited_block_scaled_fp8_gemm_on_the_gpu_matches_torch(kw, shape):
    """mma_in_flight=0 in straight-line chunks (K-block counts 4, 3 and 1) against a torch
    float64 product of the dequantized inputs."""
    _check_on_the_gpu(block("f8e4m3", **kw), shape, seed=sum(shape) + 2)


SMEM_GPU = [
    dict(bn=128, stages=5, scale_smem=True, **EBF16),
    dict(bn=128, stages=5, scale_smem=True, block_prefetch=True, **EBF16),
    dict(bn=128, stages=5, scale_smem=True, cluster=(2, 1), **EBF16),
    dict(bm=64, bn=128, schedule="pingpong", scale_smem=True, **EBF16),
]


@pytest.mark.gpu
@pytest.mark.parametrize("kw", SMEM_GPU, ids=[str(k) for k in SMEM_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272), (132, 1000, 128)])
def test_block_scales_through_shared_memory_on_the_gpu_match_torch(kw, shape):
    """scale_smem (M a multiple of 4) against a torch float64 product of the dequantized
    inputs."""
    _check_on_the_gpu(pipelined("f8e4m3", **kw), shape, seed=sum(shape) + 3)
