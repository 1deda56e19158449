"""examples/gemm_sm90.py's RS mainloop (``mainloop="rs"``): each consumer warpgroup loads its
A fragment of a stage with ldmatrix (CuTe's ``make_tiled_copy_A(SM75_U32x4_LDSM_N, mma)``)
and feeds it to the ``_RS`` wgmma atoms, B still through its descriptor. On the CPU runtime
against numpy (f16, bf16, tf32, mixed FP8 with scales; both schedules, ``mma_lead``, the TMA
epilogue, residues in M, N and K), its sm_90a cubin, and on a GPU against torch."""

from __future__ import annotations

import re
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.driver.loading import load_source
from narrow_floats import FP8_DLPACK, Bits, bf16, fp8

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

GEMM = vars(load_source(Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.py"))
Config = GEMM["GemmConfig"]


def _operand(rng: np.random.Generator, shape: tuple[int, int], dtype: str):
    """(the kernel's array, its exact float64 values)."""
    if dtype in FP8_DLPACK:
        return fp8(rng, shape, dtype)
    x = rng.standard_normal(shape)
    if dtype == "bf16":
        return bf16(x)
    if dtype == "tf32":  # the 19 bits the tensor cores read: exact
        x = (x.astype(np.float32).view(np.uint32) & 0xFFFFE000).view(np.float32)
        return x, x.astype(np.float64)
    x = x.astype(np.float16)
    return x, x.astype(np.float64)


CPU = [
    Config("f16", bm=64, bn=32, stages=2, warpgroups=1, loads="tma", mainloop="rs"),
    Config("bf16", bm=128, bn=64, stages=3, loads="tma", mma_in_flight=0, mainloop="rs"),
    Config("tf32", bm=64, bn=32, stages=2, warpgroups=1, loads="tma", mainloop="rs"),
    Config(
        "f16",
        bm=64,
        bn=64,
        stages=2,
        loads="tma",
        schedule="pingpong",
        c_dtype="f16",
        epilogue="tma",
        mainloop="rs",
    ),
    Config(
        "bf16",
        bm=64,
        bn=32,
        stages=3,
        warpgroups=1,
        loads="tma",
        mma_in_flight=0,
        mma_lead=2,
        mainloop="rs",
    ),
    Config(
        "f8e4m3",
        bm=64,
        bn=32,
        stages=2,
        warpgroups=1,
        loads="tma",
        b_dtype="f8e5m2",
        scales="value",
        mainloop="rs",
    ),
]


@pytest.mark.parametrize("cfg", CPU, ids=lambda c: c.name)
def test_rs_mainloop_matches_numpy_on_the_cpu(cfg):
    rng = np.random.default_rng(5)
    m, n, k = 2 * cfg.bm + 9, 2 * cfg.bn + 8, 2 * cfg.bk + 16  # residues everywhere
    a, a64 = _operand(rng, (m, k), cfg.dtype)
    b, b64 = _operand(rng, (n, k), cfg.b_type)
    c = np.full((m, n), np.nan, np.float32 if cfg.c_dtype == "f32" else np.float16)
    scales = GEMM["scale_args"](cfg, 0.5, -3.0) if cfg.scales else ()
    kernel = GEMM["make_gemm"](cfg)
    launch = dict(grid=cfg.grid(m, n, sms=3), block=cfg.threads, smem=cfg.smem_bytes())
    kernel(a, b, c, *scales, **launch)
    ref = (-1.5 if cfg.scales else 1.0) * (a64 @ b64.T)
    rel = 2.0**-10 if cfg.c_dtype == "f16" else 2.0**-21
    bound = 2.0**-21 * np.abs(a64) @ np.abs(b64).T * (1.5 if cfg.scales else 1.0)
    err = np.abs(c.astype(np.float64) - ref)
    assert (err <= bound + rel * np.abs(ref)).all(), err.max()


def test_rs_mainloop_is_refused_where_it_does_not_apply():
    with pytest.raises(ValueError, match=r"mainloop must be 'ss' or 'rs' \(TMA loads, A K-major"):
        Config("f16", mainloop="rs").check()  # cp.async loads
    with pytest.raises(ValueError, match=r"mainloop must be 'ss' or 'rs' .*a_major='MN'"):
        Config("f16", loads="tma", a_major="MN", mainloop="rs").check()
    with pytest.raises(ValueError, match=r"mainloop must be 'ss' or 'rs'"):
        Config("f16", loads="tma", mainloop="sr").check()
    cfg = Config("bf16", loads="tma", mainloop="rs")
    assert cfg.name.endswith("-rs") and Config("bf16", loads="tma").name + "-rs" == cfg.name
    assert cfg.atom == "SM90_64x128x16_F32BF16BF16_RS"


@pytest.mark.parametrize(
    "cfg",
    [
        Config(
            "bf16",
            bn=256,
            stages=4,
            loads="tma",
            mma_in_flight=0,
            epilogue="tma",
            c_dtype="bf16",
            mainloop="rs",
        ),
        Config(
            "f8e4m3",
            bn=256,
            stages=4,
            loads="tma",
            mma_in_flight=0,
            epilogue="tma",
            c_dtype="bf16",
            mainloop="rs",
        ),
    ],
    ids=lambda c: c.name,
)
def test_rs_mainloop_assembles_for_sm90a(cfg):
    """ldmatrix.x4 fills A's registers, the wgmmas take them (``{a0, a1, a2, a3}``); assembled
    as a whole program (setmaxnreg's 232 registers for the consumers, as the loader assembles
    it): no local memory, no spills, and ptxas does not serialize the wgmmas (C7510/C7512: each
    K-block's fragment is written only after the wgmmas reading the last one have retired).
    Under nvJitLink's 168 registers the 128 x 256 tile spills and serializes."""
    from layoutc.codegen.cubin import find_ptxas, ptxas_to_cubin

    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("no ptxas executable on this machine")
    if cfg.dtype in FP8_DLPACK:
        a = Bits(np.zeros((cfg.bm, cfg.bk), np.uint8), FP8_DLPACK[cfg.dtype])
        b = Bits(np.zeros((cfg.bn, cfg.bk), np.uint8), FP8_DLPACK[cfg.b_type])
        kk, ab = 32, "e4m3.e4m3"
    else:
        a, _ = bf16(np.zeros((cfg.bm, cfg.bk)))
        b, _ = bf16(np.zeros((cfg.bn, cfg.bk)))
        kk, ab = 16, "bf16.bf16"
    c, _ = bf16(np.zeros((cfg.bm, cfg.bn)))
    ck = lc.compile(
        GEMM["make_gemm"](cfg), a, b, c, block=cfg.threads, target="sm_90a", index_bitwidth=32
    )
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ck.ptx
    instruction = rf"wgmma\.mma_async\.sync\.aligned\.m64n{cfg.bn}k{kk}\.f32\.{ab}"
    with_a_in_registers = rf"{instruction}\s+\{{[^}}]*\}},\s*\{{[^}}]*\}},\s*%rd\d+"
    assert len(re.findall(with_a_in_registers, ck.ptx)) >= cfg.bk // kk, ck.ptx[-3000:]
    log = ptxas_to_cubin(ck.ptx, "sm_90a", ptxas, verbose=True).log
    assert "C7504" not in log, log  # setmaxnreg honoured
    assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", log), log
    assert not re.search(r"\b[1-9]\d* bytes lmem", log), log
    assert "serialized" not in log, log


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "kw"),
    [
        ("bf16", dict(bn=256, mma_in_flight=0, epilogue="tma", c_dtype="bf16")),
        ("f16", dict(bn=192, schedule="pingpong", epilogue="tma", c_dtype="f16")),
        ("tf32", dict(bn=128, mma_in_flight=0)),
        (
            "f8e4m3",
            dict(
                bn=256,
                mma_in_flight=0,
                epilogue="tma",
                c_dtype="bf16",
                b_dtype="f8e5m2",
                scales="tensor",
            ),
        ),
    ],
)
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272)])
def test_rs_mainloop_on_the_gpu_matches_torch(dtype, kw, shape):
    torch = pytest.importorskip("torch")
    cfg = Config(dtype, loads="tma", stages=4, mainloop="rs", **kw)
    types = {
        "bf16": torch.bfloat16,
        "f16": torch.float16,
        "tf32": torch.float32,
        "f8e4m3": torch.float8_e4m3fn,
        "f8e5m2": torch.float8_e5m2,
    }
    ct = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[cfg.c_dtype]
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    a = torch.randn((m, k), generator=g, device="cuda").to(types[cfg.dtype])
    b = torch.randn((n, k), generator=g, device="cuda").to(types[cfg.b_type])
    if dtype == "tf32":
        a = (a.view(torch.int32) & ~0x1FFF).view(torch.float32)
        b = (b.view(torch.int32) & ~0x1FFF).view(torch.float32)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=ct)
    scales = ()
    if cfg.scales:
        scales = GEMM["scale_args"](cfg, *(torch.tensor(x, device="cuda") for x in (0.5, 3.0)))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = lc.compile(GEMM["make_gemm"](cfg), a, b, c, *scales, block=cfg.threads, index_bitwidth=32)
    run(a, b, c, *scales, grid=cfg.grid(m, n, sms), block=cfg.threads, smem=cfg.smem_bytes())
    torch.cuda.synchronize()
    ref = (1.5 if cfg.scales else 1.0) * (a.double() @ b.double().T)
    err = ((c.double() - ref).norm() / ref.norm()).item()
    limit = {"f32": 1e-5, "bf16": 1e-2, "f16": 2e-3}[cfg.c_dtype]
    if dtype.startswith("f8"):  # the FP8 tensor cores add with about 14 bits
        limit = max(limit, 1e-3)
    assert err < limit, err
