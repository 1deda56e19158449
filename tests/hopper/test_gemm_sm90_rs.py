"""examples/gemm_sm90.py's RS mainloop (``mainloop="rs"``): each consumer warpgroup loads its
A fragment of a stage with ldmatrix (CuTe's ``make_tiled_copy_A(SM75_U32x4_LDSM_N, mma)``)
and feeds it to the ``_RS`` wgmma atoms, B still through its descriptor. On the CPU runtime
against numpy (f16, bf16, tf32, mixed FP8 with scales; both schedules, ``mma_lead``, the TMA
epilogue, residues in M, N and K), its sm_90a cubin, and on a GPU against torch."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
import sm90_harness as h
from narrow_floats import FP8_DLPACK
from sm90_harness import E16, EBF16, GEMM, Config, ws

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end


CPU = [
    ws("f16", bm=64, bn=32, warpgroups=1, mainloop="rs"),
    ws("bf16", bm=128, bn=64, stages=3, mma_in_flight=0, mainloop="rs"),
    ws("tf32", bm=64, bn=32, warpgroups=1, mainloop="rs"),
    ws("f16", bm=64, bn=64, schedule="pingpong", mainloop="rs", **E16),
    ws("bf16", bm=64, bn=32, stages=3, warpgroups=1, mma_in_flight=0, mma_lead=2, mainloop="rs"),
    ws("f8e4m3", bm=64, bn=32, warpgroups=1, b_dtype="f8e5m2", scales="value", mainloop="rs"),
]


@pytest.mark.parametrize("cfg", CPU, ids=lambda c: c.name)
def test_rs_mainloop_matches_numpy_on_the_cpu(cfg):
    rng = np.random.default_rng(5)
    m, n, k = 2 * cfg.bm + 9, 2 * cfg.bn + 8, 2 * cfg.bk + 16  # residues everywhere
    a, b, a64, b64 = h.operands(cfg, m, n, k, rng)
    c = np.full((m, n), np.nan, np.float32 if cfg.c_dtype == "f32" else np.float16)
    scales = GEMM["scale_args"](cfg, 0.5, -3.0) if cfg.scales else ()
    h.launch(cfg, h.make_gemm(cfg), m, n, a, b, c, *scales)
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
        Config("bf16", bn=256, stages=4, loads="tma", mma_in_flight=0, mainloop="rs", **EBF16),
        Config("f8e4m3", bn=256, stages=4, loads="tma", mma_in_flight=0, mainloop="rs", **EBF16),
    ],
    ids=lambda c: c.name,
)
def test_rs_mainloop_assembles_for_sm90a(cfg):
    """ldmatrix.x4 fills A's registers, the wgmmas take them (``{a0, a1, a2, a3}``); assembled
    as a whole program (setmaxnreg's 232 registers for the consumers, as the loader assembles
    it): no local memory, no spills, and ptxas does not serialize the wgmmas (C7510/C7512: each
    K-block's fragment is written only after the wgmmas reading the last one have retired).
    Under nvJitLink's 168 registers the 128 x 256 tile spills and serializes."""
    kk, ab = (32, "e4m3.e4m3") if cfg.dtype in FP8_DLPACK else (16, "bf16.bf16")
    ck = h.compile_sm90a(cfg, *h.tile_operands(cfg))
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ck.ptx
    instruction = rf"wgmma\.mma_async\.sync\.aligned\.m64n{cfg.bn}k{kk}\.f32\.{ab}"
    with_a_in_registers = rf"{instruction}\s+\{{[^}}]*\}},\s*\{{[^}}]*\}},\s*%rd\d+"
    assert len(re.findall(with_a_in_registers, ck.ptx)) >= cfg.bk // kk, ck.ptx[-3000:]
    log = h.assemble(ck.ptx)
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
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    a = h.torch_operand(torch, g, (m, k), cfg.dtype)
    b = h.torch_operand(torch, g, (n, k), cfg.b_type)
    c = h.torch_c(torch, m, n, cfg.c_dtype)
    scales = ()
    if cfg.scales:
        scales = GEMM["scale_args"](cfg, *(torch.tensor(x, device="cuda") for x in (0.5, 3.0)))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    run = lc.compile(h.make_gemm(cfg), a, b, c, *scales, block=cfg.threads, index_bitwidth=32)
    run(a, b, c, *scales, grid=cfg.grid(m, n, sms), block=cfg.threads, smem=cfg.smem_bytes())
    torch.cuda.synchronize()
    ref = (1.5 if cfg.scales else 1.0) * (a.double() @ b.double().T)
    err = h.rel_err(c, ref)
    limit = h.GPU_ERR[cfg.c_dtype]
    if dtype.startswith("f8"):  # the FP8 tensor cores add with about 14 bits
        limit = max(limit, 1e-3)
    assert err < limit, err
