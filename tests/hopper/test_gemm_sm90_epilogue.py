"""examples/gemm_sm90.py's fused epilogue, ``D = act(alpha * (A @ B) + beta * C + bias)``
(``GemmConfig(epilogue_op=Epilogue(...))``): on the CPU runtime against numpy (every
activation, bias along M and along N, in f32 and in D's type, beta != 0 with residue tiles,
beta == 0 with a C full of NaN, each schedule and decomposition, FP8 with scale factors),
its refusals, its sm_90a cubins without local memory, and on a GPU against torch."""

from __future__ import annotations

import re
from dataclasses import replace

import layoutc as lc
import numpy as np
import pytest
import sm90_harness as h
from narrow_floats import fp8
from sm90_harness import E16, GEMM, Config, ws

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

Epilogue = GEMM["Epilogue"]


def act_reference(act: str, x: np.ndarray) -> np.ndarray:
    """The activations in float64, as torch defines them (gelu: the tanh approximation)."""
    if act == "relu":
        return np.maximum(x, 0.0)
    if act == "gelu":
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))
    if act == "silu":
        return x * 0.5 * (1.0 + np.tanh(0.5 * x))  # x sigmoid(x), without overflow
    return x


TMA = dict(stages=2, loads="tma")
CPU = [
    # (configuration, alpha, beta, bias values per rows/columns, launch SMs)
    (
        Config(bm=64, bn=32, warpgroups=1, **TMA),
        dict(alpha=True, source=True, bias="n", act="gelu"),
        0.5,
        2.0,
        3,
    ),
    (  # the store epilogue in f16, bias per row in D's type
        Config(bm=64, bn=32, warpgroups=1, c_dtype="f16", **TMA),
        dict(bias="m", bias_dtype="out", act="relu"),
        1.0,
        0.0,
        3,
    ),
    (  # ping-pong, C with beta = -1
        Config(bm=64, bn=32, schedule="pingpong", **TMA),
        dict(source=True, bias="n", act="silu"),
        1.0,
        -1.0,
        2,
    ),
    (  # the TMA epilogue (f16 through stmatrix), two warpgroups along M
        Config(bm=128, bn=64, c_dtype="f16", epilogue="tma", **TMA),
        dict(source=True, bias="n", bias_dtype="out", act="gelu"),
        1.0,
        1.0,
        3,
    ),
    (  # the warpgroups side by side along N (split="N"), f32 TMA epilogue, two boxes each
        Config(bm=64, bn=128, split="N", epilogue="tma", **TMA),
        dict(alpha=True, bias="m", act="silu"),
        -1.5,
        0.0,
        3,
    ),
    (  # ping-pong with the TMA epilogue, activation only
        Config(bm=64, bn=64, schedule="pingpong", c_dtype="f16", epilogue="tma", **TMA),
        dict(act="gelu"),
        1.0,
        0.0,
        2,
    ),
    (  # stream-K: the epilogue once, after the partials are added
        Config(bm=64, bn=32, warpgroups=1, decomposition="streamk", **TMA),
        dict(alpha=True, source=True, bias="n", act="gelu"),
        0.25,
        3.0,
        5,
    ),
    (  # the bias staged two values a thread (192 columns, one warpgroup), f16 TMA epilogue
        Config(bm=64, bn=192, warpgroups=1, c_dtype="f16", epilogue="tma", **TMA),
        dict(bias="n", act="relu"),
        1.0,
        0.0,
        2,
    ),
    (  # split-K, ping-pong, f16
        Config(bm=64, bn=32, schedule="pingpong", c_dtype="f16", split_k=2, **TMA),
        dict(source=True, bias="m", act="relu"),
        1.0,
        0.5,
        6,
    ),
]


def _operands(rng, m, n, k, dtype, c_dtype, op, beta, nan_source=False):
    np_type = {"f32": np.float32, "f16": np.float16}[c_dtype]
    a = rng.standard_normal((m, k)).astype(np.float32 if dtype == "tf32" else np.float16)
    b = rng.standard_normal((n, k)).astype(a.dtype)
    d = np.full((m, n), np.nan, np_type)
    source = None
    if op.source:
        source = np.full((m, n), np.nan, np_type)
        if not nan_source:
            source = rng.standard_normal((m, n)).astype(np_type)
    bias = None
    if op.bias is not None:
        bias_type = np.float32 if op.bias_dtype == "f32" else np_type
        bias = rng.standard_normal(m if op.bias == "m" else n).astype(bias_type)
    return a, b, d, source, bias


def _reference(acc, op, alpha, beta, source, bias):
    x = alpha * acc
    if source is not None and beta != 0:
        x = x + beta * source.astype(np.float64)
    if bias is not None:
        bias = bias.astype(np.float64)
        x = x + (bias[:, None] if op.bias == "m" else bias[None, :])
    return act_reference(op.act, x)


@pytest.mark.parametrize(
    ("cfg", "fields", "alpha", "beta", "sms"),
    CPU,
    ids=[f"{c.name}{Epilogue(**f).name}" for c, f, *_ in CPU],
)
def test_fused_epilogue_matches_numpy_on_the_cpu(cfg, fields, alpha, beta, sms):
    """Residues in M, N and K; fewer blocks than tiles (the persistent loop) or, with
    stream-K / split-K, tiles shared between blocks."""
    cfg = replace(cfg, epilogue_op=Epilogue(**fields))
    op = cfg.epilogue_op
    assert op.name in cfg.name
    rng = np.random.default_rng(4)
    m, n, k = 2 * cfg.bm + 9, 2 * cfg.bn + 8, 3 * cfg.bk + 8
    a, b, d, source, bias = _operands(rng, m, n, k, cfg.dtype, cfg.c_dtype, op, beta)
    epi = GEMM["epilogue_args"](cfg, alpha, beta, source, bias)
    GEMM["gemm"](h.make_gemm(cfg), cfg, a, b, d, sms=sms, epi=epi)
    acc = a.astype(np.float64) @ b.astype(np.float64).T
    ref = _reference(acc, op, alpha, beta, source, bias)
    h.assert_close(d, ref, cfg.c_dtype)


@pytest.mark.parametrize("epilogue", ["store", "tma"])
def test_beta_zero_never_reads_c(epilogue):
    """beta == 0 at run time: C (all NaN) is not read, D has no NaN; the same kernel with
    beta != 0 does read it (NaN everywhere)."""
    cfg = Config(
        bm=64,
        bn=64,
        warpgroups=1,
        c_dtype="f16",
        epilogue=epilogue,
        epilogue_op=Epilogue(source=True, bias="n", act="relu"),
        **TMA,
    )
    rng = np.random.default_rng(5)
    m, n, k = 64 + 9, 64 + 8, 72
    a, b, d, source, bias = _operands(rng, m, n, k, "f16", "f16", cfg.epilogue_op, 0.0, True)
    kernel = h.make_gemm(cfg)
    GEMM["gemm"](
        kernel, cfg, a, b, d, sms=2, epi=GEMM["epilogue_args"](cfg, 1.0, 0.0, source, bias)
    )
    assert not np.isnan(d).any()
    ref = _reference(
        a.astype(np.float64) @ b.astype(np.float64).T, cfg.epilogue_op, 1, 0, None, bias
    )
    np.testing.assert_allclose(d.astype(np.float64), ref, rtol=2e-2, atol=2e-2)
    GEMM["gemm"](
        kernel, cfg, a, b, d, sms=2, epi=GEMM["epilogue_args"](cfg, 1.0, 1.0, source, bias)
    )
    assert np.isnan(d).all()


#: FP8 with scales and a fused epilogue (TMA loads, 2 stages)
FP8_CPU = [
    (
        ws("f8e4m3", bm=64, bn=64, warpgroups=1, scales="tensor", **E16),
        dict(alpha=True, bias="n", act="gelu"),
    ),
    (
        ws("f8e4m3", bm=64, bn=32, schedule="pingpong", scales="row"),
        dict(source=True, bias="m", act="silu"),
    ),
    # the row scales each box's, next to it
    (
        ws("f8e5m2", bm=64, bn=64, warpgroups=1, scales="row", scale_loads="box", epilogue="tma"),
        dict(bias="n"),
    ),
]


@pytest.mark.parametrize(
    "cfg",
    [replace(cfg, epilogue_op=Epilogue(**fields)) for cfg, fields in FP8_CPU],
    ids=lambda c: c.name,
)
def test_fp8_with_scales_and_bias_matches_numpy_on_the_cpu(cfg):
    """D = act(alpha * scale_a * scale_b * (A @ B) + beta * C + bias): the scales first."""
    rng = np.random.default_rng(6)
    m, n, k = 2 * cfg.bm + 9, 2 * cfg.bn + 8, 2 * cfg.bk + 16
    a, a64 = fp8(rng, (m, k), cfg.dtype)
    b, b64 = fp8(rng, (n, k), cfg.b_type)
    op = cfg.epilogue_op
    _, _, d, source, bias = _operands(rng, 8, 8, 8, "f16", cfg.c_dtype, op, 1.0)
    d = np.full((m, n), np.nan, d.dtype)
    source = rng.standard_normal((m, n)).astype(d.dtype) if op.source else None
    if op.bias is not None:
        bias = rng.standard_normal(m if op.bias == "m" else n).astype(np.float32)
    if cfg.scales == "row":
        sa = (rng.integers(-16, 17, (m, 1)) / 8).astype(np.float32)
        sb = (rng.integers(1, 33, (1, n)) / 16).astype(np.float32)
        factor = sa.astype(np.float64) * sb.astype(np.float64)
    else:
        sa, sb = np.array(0.75, np.float32), np.array([-2.5], np.float32)
        factor = 0.75 * -2.5
    alpha, beta = (0.5 if op.alpha else 1.0), (-1.0 if op.source else 0.0)
    epi = GEMM["epilogue_args"](cfg, alpha, beta, source, bias)
    scales = GEMM["scale_args"](cfg, sa, sb)
    GEMM["gemm"](h.make_gemm(cfg), cfg, a, b, d, scales, sms=3, epi=epi)
    ref = _reference(factor * (a64 @ b64.T), op, alpha, beta, source, bias)
    h.assert_close(d, ref, cfg.c_dtype)


@pytest.mark.parametrize(
    "kw",
    [
        dict(warpgroups=1),
        dict(warpgroups=1, epilogue="tma", c_dtype="f16"),
        dict(schedule="pingpong"),
        dict(warpgroups=1, split_k=2),
    ],
    ids=["store", "tma-f16", "pingpong", "splitk"],
)
def test_amax_is_the_max_abs_of_d_only(kw):
    """amax[0] = max(amax[0], max |D|) over D's elements only: the last column's C cancels
    its bias (|D| small there), so the residue columns past N, whose clamped bias index reads
    that same large bias and no C, would raise amax if counted."""
    op = Epilogue(source=True, bias="n", act="gelu", amax=True)
    cfg = Config("f16", bm=64, bn=64, stages=2, loads="tma", epilogue_op=op, **kw)
    assert cfg.name.endswith("-gelu-amax")
    m, n, k = 137, 72, 136
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    np_type = np.float16 if cfg.c_dtype == "f16" else np.float32
    bias = rng.standard_normal(n).astype(np.float32)
    bias[-1] = 1000.0
    c = rng.standard_normal((m, n)).astype(np_type)
    c[:, -1] = -500.0  # beta = 2: C cancels the last column's bias
    d = np.full((m, n), np.nan, np_type)
    amax = np.array([0.5], np.float32)  # max(amax, |D|): accumulated into
    epi = GEMM["epilogue_args"](cfg, 1.0, 2.0, c, bias, amax)
    GEMM["gemm"](h.make_gemm(cfg), cfg, a, b, d, sms=4, epi=epi)
    acc = a.astype(np.float64) @ b.astype(np.float64).T
    ref = _reference(acc, op, 1.0, 2.0, c, bias)
    h.assert_close(d, ref, cfg.c_dtype)
    assert np.abs(ref).max() < 100
    np.testing.assert_allclose(amax[0], np.abs(ref).max(), rtol=1e-5)


def test_bad_epilogues_are_refused_naming_the_field():
    def bad(match, **kw):
        base = dict(loads="tma")
        with pytest.raises(ValueError, match=match):
            Config(**{**base, **kw}).check()

    bad(r"epilogue_op.act must be one of .* got 'tanh'", epilogue_op=Epilogue(act="tanh"))
    bad(r"epilogue_op.bias must be None, 'm' .* got 'k'", epilogue_op=Epilogue(bias="k"))
    bad(
        r"epilogue_op.bias_dtype must be 'f32' or 'out'",
        epilogue_op=Epilogue(bias="n", bias_dtype="f16"),
    )
    bad(r"epilogue_op.source must be True or False, got 1.0", epilogue_op=Epilogue(source=1.0))
    bad(r"epilogue_op must be an Epilogue record, got str", epilogue_op="gelu")
    bad(r"epilogue_op.amax must be True or False, got 'yes'", epilogue_op=Epilogue(amax="yes"))
    bad(
        r"epilogue_op.fast_tanh must be True or False, got 1",
        epilogue_op=Epilogue(act="gelu", fast_tanh=1),
    )
    bad(r"epi_prefetch must be True or False, got 'no'", epi_prefetch="no")
    # the epilogue's second half under the next tile's mainloop (epi_overlap) is not fused:
    # tuned() drops it for a fused epilogue_op, and an explicit one is refused
    assert GEMM["tuned"]("bf16").epi_overlap > 0
    assert GEMM["tuned"]("bf16", epilogue_op=Epilogue(act="gelu")).epi_overlap == 0
    with pytest.raises(ValueError, match=r"epi_overlap takes .* no fused epilogue_op; got"):
        replace(GEMM["tuned"]("bf16"), epilogue_op=Epilogue(act="gelu")).check()
    with pytest.raises(ValueError, match=r"epilogue_op .* takes the warp-specialized kernel"):
        Config(epilogue_op=Epilogue(act="relu")).check()  # cp.async
    cfg = Config(epilogue_op=Epilogue(bias="n"), **TMA)
    with pytest.raises(TypeError, match=r"beta: the configuration's epilogue_op has no source"):
        GEMM["epilogue_args"](cfg, beta=1.0, bias=np.zeros(8, np.float32))
    with pytest.raises(TypeError, match=r"alpha: .* has no alpha"):
        GEMM["epilogue_args"](cfg, alpha=2.0, bias=np.zeros(8, np.float32))
    with pytest.raises(TypeError, match=r"bias: epilogue_op.bias='n' takes a bias vector"):
        GEMM["epilogue_args"](cfg)
    with pytest.raises(TypeError, match=r"amax: the configuration's epilogue_op has no amax"):
        GEMM["epilogue_args"](cfg, bias=np.zeros(8, np.float32), amax=np.zeros(1, np.float32))
    with pytest.raises(TypeError, match=r"amax: epilogue_op.amax=True takes a one-element"):
        GEMM["epilogue_args"](Config(epilogue_op=Epilogue(amax=True), **TMA))
    with pytest.raises(TypeError, match=r"source: epilogue_op.source=True takes a source"):
        GEMM["epilogue_args"](Config(epilogue_op=Epilogue(source=True), **TMA), beta=1.0)


def test_bias_and_c_of_the_wrong_extent_are_refused_at_launch():
    cfg = Config(bm=64, bn=32, warpgroups=1, epilogue_op=Epilogue(source=True, bias="n"), **TMA)
    kernel = h.make_gemm(cfg)
    a, b = np.zeros((64, 64), np.float16), np.zeros((32, 64), np.float16)
    d = np.zeros((64, 32), np.float32)
    launch = dict(grid=cfg.grid(64, 32), block=cfg.threads, smem=cfg.smem_bytes())
    args = GEMM["kernel_args"]
    with pytest.raises(lc.SpecError, match=r"'bias' \(extent of mode 0\) gives N = 40"):
        epi = GEMM["epilogue_args"](cfg, 1.0, 1.0, d, np.zeros(40, np.float32))
        kernel(*args(cfg, a, b, d, (), (), epi), **launch)
    with pytest.raises(lc.SpecError, match=r"'source' .* gives M = 63"):
        epi = GEMM["epilogue_args"](cfg, 1.0, 1.0, d[:63], np.zeros(32, np.float32))
        kernel(*args(cfg, a, b, d, (), (), epi), **launch)


def _compile(cfg, ptx_backend: str = "auto"):
    a = h.zeros((cfg.bm, cfg.bk), cfg.dtype)
    b = h.zeros((cfg.bn, cfg.bk), cfg.b_type)
    d = h.zeros((cfg.bm, cfg.bn), cfg.c_dtype)
    op = cfg.epilogue_op
    bias = np.zeros(cfg.bm if op.bias == "m" else cfg.bn, np.float32) if op.bias else None
    amax = np.zeros(1, np.float32) if op.amax else None
    source = d if op.source else None
    epi = GEMM["epilogue_args"](cfg, 1.0, 1.0 if op.source else 0.0, source, bias, amax)
    one = np.ones(1, np.float32)
    scales = GEMM["scale_args"](cfg, one, one) if cfg.scales == "tensor" else ()
    ws = GEMM["workspace"](cfg, cfg.bm, cfg.bn, 2)  # stream-K / split-K: f32 partials
    args = GEMM["kernel_args"](cfg, a, b, d, scales, ws, epi)
    return h.compile_sm90a(cfg, *args, ptx_backend=ptx_backend)


GELU = Epilogue(source=True, bias="n", act="gelu")


@pytest.mark.parametrize(
    "cfg",
    [
        GEMM["tuned"]("f16", epilogue_op=GELU),  # 128 x 256 cooperative, TMA epilogue
        GEMM["tuned"]("bf16", (8192, 8192), epilogue_op=GELU),  # cooperative 128 x 256
        GEMM["tuned"](  # (C, bias and GELU together spill 56 bytes in ping-pong: docs)
            "bf16", bn=128, schedule="pingpong", epilogue_op=Epilogue(source=True, act="gelu")
        ),
        GEMM["tuned"](
            "bf16", epilogue="store", epilogue_op=Epilogue(alpha=True, bias="m", act="silu")
        ),
        GEMM["tuned"]("f16", (4000, 4000), epilogue_op=Epilogue(bias="n", act="relu")),  # split N
        GEMM["tuned"]("f16", (1024, 1024, 32768), epilogue_op=GELU),  # split-K
        GEMM["tuned"]("f16", (4096, 4096, 4096), decomposition="streamk", epilogue_op=GELU),
        GEMM["tuned"](
            "f8e4m3",
            scales="tensor",
            epilogue_op=Epilogue(alpha=True, bias="n", act="gelu", amax=True),
        ),
    ],
    ids=lambda c: c.name,
)
def test_fused_epilogues_assemble_for_sm90a_without_local_memory(cfg):
    """The measured-best tiles with a fused epilogue: the consumers' 128-192 accumulators a
    thread plus a box's C, bias and activation fit the 232 registers setmaxnreg gives, which
    only a whole-program cubin honours (the loader's ptxas, or the driver's JIT; nvJitLink's
    relocatable code keeps __launch_bounds__'s 168): no local memory, no spills."""
    ck = _compile(cfg)
    h.assemble(ck.ptx)
    if cfg.epilogue_op.source and cfg.c_dtype != "f32":  # C's pairs: 32-bit loads
        assert re.search(r"ld\.global\.(b32|v2\.[bu]16)", ck.ptx)  # (LLVM's, libNVVM's)
    if cfg.epilogue_op.amax:  # a warp's max |D|: shuffles, then one integer atomic max
        assert "shfl.sync.bfly.b32" in ck.ptx
        assert re.search(r"atom\.global(\.\w+)*\.max\.s32", ck.ptx)


def test_the_fast_tanh_and_the_prefetch_are_selectable_and_named():
    """GELU and SiLU take the GPU's tanh.approx.f32 unless ``fast_tanh=False`` (``-gelux``);
    the cooperative fused epilogue issues its first box's loads before the mainloop unless
    ``epi_prefetch=False`` (``-npf``): in the PTX, bias loads before the first wgmma."""
    cfg = GEMM["tuned"]("bf16", epilogue_op=Epilogue(bias="n", act="gelu"))
    assert cfg.name.endswith("-bn-gelu") and cfg.epi_prefetch
    old = replace(cfg, epi_prefetch=False, epilogue_op=replace(cfg.epilogue_op, fast_tanh=False))
    assert old.name.endswith("-bn-gelux-npf")
    assert Epilogue(act="relu", fast_tanh=False).name == "-relu"  # no tanh: same kernel
    assert GEMM["tuned"]("bf16").name == replace(GEMM["tuned"]("bf16"), epi_prefetch=False).name
    new_ptx, old_ptx = _compile(cfg).ptx, _compile(old).ptx
    assert new_ptx.count("tanh.approx.f32") == 128 and "tanh.approx" not in old_ptx
    assert "div.rn.f32" not in new_ptx and "div.rn.f32" in old_ptx

    def loads_before_first_wgmma(ptx):
        return ptx[: ptx.index("wgmma.mma_async")].count("ld.global")

    # the tile's bias staged in shared memory: one value a consumer thread (bn / 256), loaded
    # before the mainloop, each box's values read from shared memory
    assert loads_before_first_wgmma(new_ptx) == 1 and new_ptx.count("ld.global") == 1
    assert re.search(r"ld\.shared(\.v2)?\.[bf]32", new_ptx)
    assert loads_before_first_wgmma(old_ptx) == 1
    # without the staging (-nbs): box 0's bias ahead of the mainloop, ec / 4 values, and the
    # other boxes' one box ahead (64 a tile); without the prefetch too, none ahead
    per_box = replace(cfg, bias_smem=False)
    assert per_box.name.endswith("-bn-gelu-nbs")
    per_box_ptx = _compile(per_box).ptx
    assert loads_before_first_wgmma(per_box_ptx) == 16 and per_box_ptx.count("ld.global") == 64
    assert loads_before_first_wgmma(_compile(replace(old, bias_smem=False)).ptx) == 0


def _guarded_accesses(ptx: str) -> list[tuple[str, list[str]]]:
    """Each branch-guarded block of the PTX that holds one global load or store (``@%p bra
    $L; ...; $L:``, a predicated access of a residue tile): the access's instruction, and the
    block's other instructions."""
    found = []
    lines = [line.strip() for line in ptx.splitlines()]
    for i, line in enumerate(lines):
        m = re.fullmatch(r"@%p\d+ bra\s+(\$\w+);", line)
        if m is None:
            continue
        body = []
        for inner in lines[i + 1 :]:
            if inner.startswith("$") or inner == f"bra.uni \t{m.group(1)};":
                break
            if inner and not inner.startswith("//"):
                body.append(inner)
        else:
            continue
        access = [b for b in body if b.startswith(("ld.global", "st.global"))]
        if m.group(1) in inner and len(access) == 1:
            found.append((access[0].split()[0], [b for b in body if b not in access]))
    return found


@pytest.mark.parametrize(
    "cfg",
    [
        Config("bf16", bm=128, bn=64, c_dtype="bf16", epilogue_op=GELU, **TMA),
        Config("bf16", bm=64, bn=64, c_dtype="bf16", schedule="pingpong", **TMA),
        Config("bf16", bm=128, bn=64, c_dtype="bf16", cluster=(2, 1), **TMA),
    ],
    ids=["coop-bias-gelu", "pingpong", "coop-cluster2x1"],
)
def test_predicated_c_loads_share_the_tiles_coordinates(cfg):
    """Each predicated load of C (and store of D) is the access alone: its address is the
    tile's, computed once per tile before the guards, plus a constant. lower-layouts once
    rebuilt each access's full index inside its guard, the tile scheduler's floor divisions
    and their fix-ups included (ping-pong 128 x 128: 150 selp against 23, 21 instructions a
    load; beta=1 with C at 0.78-0.84x of cuBLASLt against 0.95-1.0x on an H100)."""
    if not cfg.epilogue_op.fused:
        cfg = replace(cfg, epilogue_op=Epilogue(source=True))
    ptx = _compile(cfg, ptx_backend="llvm").ptx  # (libNVVM sinks the offsets into the guards)
    guarded = _guarded_accesses(ptx)
    # a tile's boxes of C, ec / 2 values a thread each: bf16 pairs, one 32-bit load a pair
    per_tile = cfg.epilogue_boxes * cfg.epilogue_box[1] // 4
    loads = [others for kind, others in guarded if kind.startswith("ld.global")]
    stores = [others for kind, others in guarded if kind.startswith("st.global")]
    assert (len(loads), len(stores)) == (per_tile, per_tile)
    assert all(others == [] for others in loads), [o for o in loads if o][:2]
    # (a store's block packs its two bf16 values: one mov)
    assert all(len(o) == 1 and o[0].startswith("mov.b32") for o in stores), stores[:2]
    assert ptx.count("selp") <= 32, ptx.count("selp")


def test_tuned_fused_epilogues_keep_to_tiles_whose_registers_fit():
    """At 8192^2 tuned() takes ping-pong 128 x 192 for bf16, but not with a fused epilogue
    (192 accumulators a thread plus a box's C, bias and GELU spill past setmaxnreg's 232):
    the cooperative 128 x 256 (128 a thread)."""
    plain = GEMM["tuned"]("bf16", (8192, 8192))
    assert (plain.schedule, plain.bn) == ("pingpong", 192)
    for op in (GELU, Epilogue(act="relu"), Epilogue(alpha=True)):
        cfg = GEMM["tuned"]("bf16", (8192, 8192), epilogue_op=op)
        assert (cfg.schedule, cfg.bm, cfg.bn) == ("cooperative", 128, 256)
    assert GEMM["tuned"]("bf16", (8192, 8192), epilogue_op=Epilogue()) == plain


GPU = [
    ("bf16", dict(), dict(bias="n", act="gelu")),
    ("bf16", dict(), dict(source=True, bias="n", act="gelu", amax=True)),
    ("bf16", dict(), dict(source=True, alpha=True, bias="n", act="silu")),
    ("f16", dict(epilogue="store"), dict(source=True, bias="m", bias_dtype="out", act="relu")),
    ("bf16", dict(schedule="pingpong", bn=128), dict(source=True, act="gelu")),
    ("bf16", dict(split_k=3), dict(source=True, bias="n", act="gelu")),
]


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("dtype", "kw", "fields"), GPU, ids=[f"{d}{Epilogue(**f).name}" for d, _, f in GPU]
)
@pytest.mark.parametrize("shape", [(1024, 768, 512), (1000, 520, 272)])
def test_fused_epilogue_on_the_gpu_matches_torch(dtype, kw, fields, shape):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    F = torch.nn.functional
    acts = {
        "none": lambda x: x,
        "relu": F.relu,
        "gelu": lambda x: F.gelu(x, approximate="tanh"),
        "silu": F.silu,
    }
    cfg = GEMM["tuned"](dtype, epilogue_op=Epilogue(**fields), **kw)
    op = cfg.epilogue_op
    t = {"f16": torch.float16, "bf16": torch.bfloat16}[dtype]
    m, n, k = shape
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=t, generator=g)
    b = torch.randn(n, k, device="cuda", dtype=t, generator=g)
    source = torch.randn(m, n, device="cuda", dtype=t, generator=g) if op.source else None
    bias = None
    if op.bias is not None:
        bias = torch.randn(m if op.bias == "m" else n, device="cuda", generator=g)
        bias = bias.to(t) if op.bias_dtype == "out" else bias
    alpha, beta = (0.5 if op.alpha else 1.0), (1.5 if op.source else 0.0)
    d = torch.full((m, n), float("nan"), device="cuda", dtype=t)
    amax = torch.zeros(1, device="cuda") if op.amax else None
    epi = GEMM["epilogue_args"](cfg, alpha, beta, source, bias, amax)
    GEMM["gemm"](h.make_gemm(cfg), cfg, a, b, d, sms=132, epi=epi)
    x = alpha * (a.float() @ b.float().T)
    if op.source:
        x = x + beta * source.float()
    if bias is not None:
        x = x + (bias.float()[:, None] if op.bias == "m" else bias.float()[None, :])
    ref = acts[op.act](x)
    torch.testing.assert_close(d.float(), ref, rtol=2e-2, atol=3e-2)
    if op.amax:  # of D's f32 values before the conversion to bf16
        torch.testing.assert_close(amax[0], ref.abs().max(), rtol=1e-3, atol=0)
