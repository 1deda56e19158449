"""examples/gemm_sm90.py in FP8 (e4m3/e5m2 in, also mixed, f32 accumulate, C in f32, f16 or
bf16, per-tensor and row-wise scale factors as ``torch._scaled_mm`` takes them): the cp.async
and the warp-specialized TMA kernels on the CPU runtime against numpy (exact FP8 inputs,
residues in M, N and K), their sm_90a cubins without local memory, and on a GPU against
torch."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
import sm90_harness as h
from sm90_harness import E16, EBF16, GEMM, Config, ws

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end


CPU = [
    Config("f8e4m3", bm=64, bn=64, bk=128, stages=3, warpgroups=1),
    # mixed types and per-tensor scales (tensors or values), bk derived (128 for FP8)
    Config("f8e4m3", bm=64, bn=64, stages=3, warpgroups=1, b_dtype="f8e5m2", scales="value"),
    ws("f8e5m2", bm=64, bn=64, warpgroups=1, b_dtype="f8e4m3", scales="tensor", **EBF16),
    ws(
        "f8e4m3",
        bm=64,
        bn=32,
        schedule="pingpong",
        b_dtype="f8e5m2",
        scales="tensor",
        c_dtype="f16",
    ),
    ws("f8e5m2", bm=64, bn=32, bk=128, warpgroups=1),
    ws("f8e4m3", bm=64, bn=32, bk=128, schedule="pingpong", c_dtype="f16"),
    ws("f8e4m3", bm=64, bn=64, bk=128, warpgroups=1, **EBF16),
]


# Row-wise scales (torch._scaled_mm's scale_a (M, 1), scale_b (1, N)): both FP8 types, C in
# f32/f16/bf16, the cp.async kernel, cooperative (split along M and along N) and ping-pong,
# both epilogues, a cluster; the TMA kernels with residues in M and N
ROW = [
    Config("f8e4m3", bm=64, bn=64, stages=3, warpgroups=1, scales="row"),
    ws("f8e4m3", bm=128, bn=32, scales="row", c_dtype="bf16"),
    ws("f8e5m2", bm=128, bn=64, scales="row", **EBF16),
    ws("f8e4m3", bm=64, bn=32, schedule="pingpong", scales="row"),
    ws("f8e5m2", bm=64, bn=64, schedule="pingpong", scales="row", **E16),
    ws("f8e4m3", bm=64, bn=32, split="N", b_dtype="f8e5m2", scales="row", cluster=(2, 1), **E16),
    # the scales loaded before the mainloop (scale_loads="before"), both schedules, and box by
    # box in the TMA epilogue (two 64-row slices per warpgroup share the column scales; bn=96:
    # an unswizzled box of 48 columns per warpgroup along N)
    ws("f8e4m3", bm=128, bn=32, scales="row", scale_loads="before", **EBF16),
    ws("f8e5m2", bm=64, bn=32, schedule="pingpong", scales="row", scale_loads="before"),
    ws("f8e4m3", bm=256, bn=128, scales="row", scale_loads="box", **EBF16),
    ws("f8e4m3", bm=64, bn=96, split="N", scales="row", scale_loads="box", **E16),
    ws(
        "f8e5m2", bm=64, bn=64, schedule="pingpong", scales="row", scale_loads="box", epilogue="tma"
    ),
    # A from registers (the RS mainloop): the same accumulator fragment
    ws("f8e4m3", bm=64, bn=32, warpgroups=1, mainloop="rs", scales="row"),
]


def _scales(cfg, rng, m: int, n: int) -> tuple[tuple, object]:
    """The kernel's scale arguments as the caller has them, and the factor of each element of
    C (a scalar, or scale_a (M, 1) * scale_b (1, N))."""
    sa, sb = 0.75, -2.5  # exact in f32, as is their product
    if cfg.scales == "row":  # distinct per row and column, negative ones too; exact products
        rows = (rng.integers(-16, 17, (m, 1)) / 8).astype(np.float32)
        cols = (rng.integers(1, 33, (1, n)) / 16).astype(np.float32)
        return (rows, cols), rows.astype(np.float64) * cols.astype(np.float64)
    scales = {
        None: (),
        "value": (sa, sb),
        "tensor": (np.array(sa, np.float32), np.array([sb], np.float32)),  # 0-d and (1,)
    }[cfg.scales]
    return scales, sa * sb if cfg.scales else 1.0


@pytest.mark.parametrize("cfg", CPU + ROW, ids=lambda c: c.name)
def test_fp8_gemm_matches_numpy_on_the_cpu(cfg):
    kernel = h.make_gemm(cfg)
    rng = np.random.default_rng(3)
    if cfg.loads == "tma":  # residues: TMA's zero fill, predicated or clipped stores
        m, n, k = 2 * cfg.bm + 9, 2 * cfg.bn + 8, 2 * cfg.bk + 16
        launch = dict(grid=cfg.grid(m, n, sms=3), smem=cfg.smem_bytes())
    else:
        m, n, k = 2 * cfg.bm, cfg.bn, 3 * cfg.bk
        launch = dict(grid=cfg.grid(m, n))
    a, b, a64, b64 = h.operands(cfg, m, n, k, rng)
    c, values = h.c_buffer(m, n, cfg.c_dtype)
    scales, factor = _scales(cfg, rng, m, n)
    kernel(a, b, c, *GEMM["scale_args"](cfg, *scales), block=cfg.threads, **launch)
    ref = factor * (a64 @ b64.T)
    # FP8 products are exact in f32; the f32 sums round, then the scale, then C's conversion
    rel = {"f32": 2.0**-22, "f16": 2.0**-10, "bf16": 2.0**-7}[cfg.c_dtype]
    bound = 2.0**-21 * abs(factor) * (np.abs(a64) @ np.abs(b64).T) + rel * np.abs(ref)
    assert (np.abs(values() - ref) <= bound).all(), np.abs(values() - ref).max()


def test_fp8_gemm_refuses_mn_major_and_wrong_bk():
    with pytest.raises(ValueError, match="a_major='MN' takes TMA loads, f16/bf16"):
        Config("f8e4m3", bk=128, loads="tma", a_major="MN").check()
    with pytest.raises(ValueError, match=r"bk must make 128-byte rows \(128 f8e4m3\)"):
        Config("f8e4m3", bk=64).check()


def test_bk_is_one_128_byte_row_by_default():
    assert [Config(t).bk for t in ("f16", "bf16", "tf32", "f8e4m3", "f8e5m2")] == [
        64,
        64,
        32,
        128,
        128,
    ]
    assert Config("f8e4m3", bk=128) == Config("f8e4m3")
    Config("tf32", loads="tma").check()  # no bk needed


def test_mixed_types_and_scales_name_their_atoms_and_rows():
    cfg = Config("f8e4m3", b_dtype="f8e5m2", scales="tensor", loads="tma")
    assert cfg.atom == "SM90_64x128x32_F32E4M3E5M2_SS_TN"
    assert cfg.wgmma_atom(64, "RS") == "SM90_64x64x32_F32E4M3E5M2_RS_TN"
    assert cfg.name.endswith("-bf8e5m2-sc")
    assert Config("f8e5m2", b_dtype="f8e5m2").atom == "SM90_64x128x32_F32E5M2E5M2_SS_TN"
    assert Config("f8e5m2", b_dtype="f8e5m2").name == Config("f8e5m2").name


def test_mixed_types_and_scales_are_refused_where_they_do_not_apply():
    with pytest.raises(ValueError, match="differ in type only as FP8"):
        Config("f16", b_dtype="bf16").check()
    with pytest.raises(ValueError, match="differ in type only as FP8"):
        Config("f8e4m3", b_dtype="f16").check()
    with pytest.raises(
        ValueError, match="scales must be None, 'tensor', 'value', 'row' or 'block'"
    ):
        Config("f8e4m3", scales="column").check()
    with pytest.raises(ValueError, match="scale_loads must be 'after', or 'before' / 'box'"):
        Config("f8e4m3", scales="tensor", loads="tma", scale_loads="before").check()
    with pytest.raises(ValueError, match=r"got 'before' \(scales='row', cp.async"):
        Config("f8e4m3", scales="row", scale_loads="before").check()
    with pytest.raises(ValueError, match=r"got 'box' \(scales='row', tma, epilogue='store'\)"):
        Config("f8e4m3", scales="row", loads="tma", scale_loads="box").check()
    with pytest.raises(ValueError, match="scale_loads must be"):
        Config("f8e4m3", scales="row", loads="tma", scale_loads="never").check()
    scale_args = GEMM["scale_args"]
    with pytest.raises(TypeError, match="scales='tensor' takes a 0-d or one-element"):
        scale_args(Config("f8e4m3", scales="tensor"), np.ones(2, np.float32), 1.0)
    with pytest.raises(TypeError, match="scale_b: scales='value' takes a Python float"):
        scale_args(Config("f8e4m3", scales="value"), 1.0, np.ones(1, np.float32))
    assert scale_args(Config("f8e4m3"), None, None) == ()
    assert scale_args(Config("f8e4m3", scales="value"), np.float32(0.5), 2) == (0.5, 2.0)
    row = Config("f8e4m3", scales="row")
    with pytest.raises(TypeError, match=r"scale_a: scales='row' takes .* \(M, 1\) or a vector"):
        scale_args(row, np.ones((1, 4), np.float32), np.ones((1, 4), np.float32))
    with pytest.raises(TypeError, match=r"scale_b: scales='row' takes .* \(1, N\) or a vector"):
        scale_args(row, np.ones((4, 1), np.float32), np.ones((4, 1), np.float32))
    with pytest.raises(TypeError, match=r"scale_a: scales='row' takes .* shape \(\)"):
        scale_args(row, 1.0, np.ones(4, np.float32))
    sa, sb = scale_args(row, np.ones((3, 1), np.float32), np.ones((1, 5), np.float32))
    assert (sa.shape, sb.shape) == ((3,), (5,))
    assert [x.shape for x in scale_args(row, np.ones(3), np.ones(5))] == [(3,), (5,)]


def test_row_scales_of_the_wrong_length_are_refused_at_launch():
    """scale_a and scale_b share A's M and B's N in the kernel's spec: vectors of other
    lengths are refused by the launch, never read past their end."""
    cfg = Config("f8e4m3", bm=64, bn=32, stages=2, warpgroups=1, loads="tma", scales="row")
    run = h.tile_launcher(cfg, k=128)
    ones = np.ones(64, np.float32)
    with pytest.raises(lc.SpecError, match=r"'scale_a' \(extent of mode 0\) gives M = 63"):
        run(ones[:63], ones[:32])
    with pytest.raises(lc.SpecError, match=r"'scale_b' \(extent of mode 0\) gives N = 40"):
        run(ones, ones[:40])


@pytest.mark.parametrize(
    "cfg",
    [
        Config("f8e4m3", bk=128, stages=4),
        Config(
            "f8e4m3",
            bn=256,
            bk=128,
            stages=4,
            loads="tma",
            mma_in_flight=0,
            epilogue="tma",
            c_dtype="bf16",
        ),
        Config("f8e5m2", bm=256, bn=128, bk=128, stages=4, loads="tma", c_dtype="f16"),
        Config(
            "f8e4m3",
            bn=256,
            stages=4,
            loads="tma",
            mma_in_flight=0,
            epilogue="tma",
            c_dtype="bf16",
            b_dtype="f8e5m2",
            scales="tensor",
        ),
    ],
    ids=lambda c: c.name,
)
def test_fp8_gemm_assembles_for_sm90a_without_local_memory(cfg):
    one = np.ones(1, np.float32)
    scales = GEMM["scale_args"](cfg, one, one) if cfg.scales else ()
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), *scales, cubin="never")
    ta, tb = cfg.dtype[2:], cfg.b_type[2:]
    instruction = f"wgmma.mma_async.sync.aligned.m64n{cfg.bn}k32.f32.{ta}.{tb}"
    wgmma = rf"{re.escape(instruction)}\s+\{{[^}}]*\}}, %rd\d+, %rd\d+, p, 1, 1;"
    assert len(re.findall(wgmma, ck.ptx)) >= cfg.bk // 32
    h.assemble(ck.ptx, whole_program=False)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "kw"),
    [
        ("f8e4m3", dict(bn=256, stages=4, c_dtype="bf16")),
        ("f8e5m2", dict(bm=256, bn=128, stages=4, mma_in_flight=0, epilogue="tma", c_dtype="f16")),
        ("f8e4m3", dict(bn=128, stages=5, schedule="pingpong")),
        (
            "f8e4m3",
            dict(bn=256, stages=4, mma_in_flight=0, b_dtype="f8e5m2", scales="tensor", **EBF16),
        ),
        ("f8e5m2", dict(bn=128, stages=5, schedule="pingpong", b_dtype="f8e4m3", scales="value")),
    ],
)
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272)])
def test_fp8_gemm_on_the_gpu_matches_torch(dtype, kw, shape):
    torch = pytest.importorskip("torch")
    cfg = Config(dtype, loads="tma", **kw)  # bk derived: 128
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    a = h.torch_operand(torch, g, (m, k), cfg.dtype)
    b = h.torch_operand(torch, g, (n, k), cfg.b_type)
    c = h.torch_c(torch, m, n, cfg.c_dtype)
    ct = c.dtype
    sa, sb = 0.375, 1.25
    scales = ()
    if cfg.scales == "tensor":  # as torch._scaled_mm takes them: 0-d f32 device tensors
        scales = tuple(torch.tensor(x, device="cuda") for x in (sa, sb))
    elif cfg.scales == "value":
        scales = (sa, sb)
    args = GEMM["scale_args"](cfg, *scales)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = lc.compile(h.make_gemm(cfg), a, b, c, *args, block=cfg.threads, index_bitwidth=32)
    run(a, b, c, *args, grid=cfg.grid(m, n, sms), block=cfg.threads, smem=cfg.smem_bytes())
    torch.cuda.synchronize()
    ref = (sa * sb if cfg.scales else 1.0) * (a.double() @ b.double().T)
    err = h.rel_err(c, ref)
    assert err < h.FP8_GPU_ERR[cfg.c_dtype], err  # (FP8 wgmma's sums: sm90_harness.py)
    scaled_mm = getattr(torch, "_scaled_mm", None)
    # cuBLAS's FP8 GEMM with the same scales (torch._scaled_mm takes K and N multiples of 16)
    if cfg.scales == "tensor" and scaled_mm is not None and k % 16 == 0 and n % 16 == 0:
        theirs = scaled_mm(a, b.t(), scale_a=scales[0], scale_b=scales[1], out_dtype=ct)
        diff = ((c.double() - theirs.double()).norm() / ref.norm()).item()
        assert diff < h.FP8_GPU_ERR[cfg.c_dtype], diff


@pytest.mark.parametrize(
    ("epilogue", "loads", "shape"),
    [
        ("tma", "after", {}),
        ("store", "after", {}),
        ("tma", "before", {}),
        ("tma", "box", {}),
        ("tma", "box", dict(bm=256, bn=128)),  # two 64-row slices per warpgroup
    ],
)
def test_row_scaled_fp8_gemm_fits_the_registers_setmaxnreg_gives(epilogue, loads, shape):
    """tuned("f8e4m3", scales="row"): per tile each consumer thread loads its 2 row scales
    and 64 column scales next to its 128 accumulators (after the mainloop, before it and held
    across it, or box by box in the TMA epilogue). Under nvJitLink's 168 registers ptxas
    spills (it hoists the loads); as a whole program (setmaxnreg's 232, what the loader
    builds) no local memory and no spills. (Ping-pong 128 x 192, 192 accumulators, spills
    even there: 284 bytes with the loads after the mainloop, 96 box by box.)"""
    cfg = GEMM["tuned"]("f8e4m3", scales="row", epilogue=epilogue, scale_loads=loads, **shape)
    scales = GEMM["scale_args"](
        cfg, np.ones((cfg.bm, 1), np.float32), np.ones((1, cfg.bn), np.float32)
    )
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg), *scales)
    # one load per row and column scale of the fragment, not per element: two rows per 64-row
    # slice of a warpgroup, a quarter of its columns (128 x 256 cooperative: 2 + 64)
    rows, cols = 2 * (cfg.bm // (64 * cfg.split_m)), cfg.bn // cfg.split_n // 4
    assert len(re.findall(r"\bld\.global\.", ck.ptx)) == rows + cols
    h.assemble(ck.ptx)


ROW_GPU = [
    ("f8e4m3", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16")),
    ("f8e4m3", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16", scale_loads="box")),
    (
        "f8e4m3",
        dict(bn=192, schedule="pingpong", epilogue="tma", c_dtype="bf16", scale_loads="box"),
    ),
    ("f8e4m3", dict(bm=256, bn=128, mma_in_flight=0, epilogue="tma", scale_loads="before")),
    ("f8e4m3", dict(bm=256, bn=128, stages=4, c_dtype="bf16")),
    ("f8e4m3", dict(bn=128, stages=5, schedule="pingpong", epilogue="tma", c_dtype="f16")),
    ("f8e4m3", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="f32", cluster=(2, 1))),
    ("f8e5m2", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16", b_dtype="f8e4m3")),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "kw"), ROW_GPU, ids=[f"{d}-{k}" for d, k in ROW_GPU])
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272), (130, 1000, 128)])
def test_row_scaled_fp8_gemm_on_the_gpu_matches_scaled_mm(dtype, kw, shape):
    """Row-wise scales (scale_a (M, 1), scale_b (1, N) f32) against a float64 reference and
    against torch._scaled_mm with the same scales (e4m3 x e4m3 with bf16 out: what its
    row-wise path takes)."""
    torch = pytest.importorskip("torch")
    cfg = Config(dtype, loads="tma", scales="row", **kw)
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    a = h.torch_operand(torch, g, (m, k), cfg.dtype)
    b = h.torch_operand(torch, g, (n, k), cfg.b_type)
    sa = torch.rand((m, 1), generator=g, device="cuda") + 0.25
    sb = torch.rand((1, n), generator=g, device="cuda") * 2 - 0.5
    c = h.torch_c(torch, m, n, cfg.c_dtype)
    args = GEMM["scale_args"](cfg, sa, sb)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = lc.compile(h.make_gemm(cfg), a, b, c, *args, block=cfg.threads, index_bitwidth=32)
    run(a, b, c, *args, grid=cfg.grid(m, n, sms), block=cfg.threads, smem=cfg.smem_bytes())
    torch.cuda.synchronize()
    ref = sa.double() * sb.double() * (a.double() @ b.double().T)
    assert not torch.isnan(c).any()
    err = h.rel_err(c, ref)
    assert err < h.FP8_GPU_ERR[cfg.c_dtype], err
    scaled_mm = getattr(torch, "_scaled_mm", None)
    if scaled_mm is None or cfg.b_type != "f8e4m3" or cfg.dtype != "f8e4m3" or n % 16:
        return
    try:
        theirs = scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    except RuntimeError as e:  # a torch without row-wise scaling
        pytest.skip(f"torch._scaled_mm refuses row-wise scales: {e}")
    diff = ((c.double() - theirs.double()).norm() / ref.norm()).item()
    assert diff < 1e-2, diff
