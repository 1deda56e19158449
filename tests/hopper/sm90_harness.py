"""The sm90 GEMM tests' shared harness (examples/gemm_sm90.py; tests/hopper/test_gemm_sm90_*.py
and tests/examples/test_gemm_sm90*.py): operands with the float64 values the tensor cores read,
C buffers, the CPU runtime's launch and its check against numpy, the sm_90a compile with
ptxas's resource checks, and the GPU's operands and error checks against torch."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.driver.loading import load_source
from narrow_floats import FP8_DLPACK, Bits, bf16, bf16_values, fp8

GEMM = vars(load_source(Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.py"))
Config = GEMM["GemmConfig"]


@functools.cache
def make_gemm(cfg):
    """``cfg``'s kernel, one per configuration in the process: launched or compiled again
    (other sizes, another test) it is not traced again."""
    return GEMM["make_gemm"](cfg)


#: assert_allclose's rtol and atol on the CPU runtime, by C's type (f32 sums, C's rounding)
CPU_TOL = {"f32": 1e-3, "f16": 2e-2, "bf16": 2e-2}
#: the GPU tests' bound on ||C - ref|| / ||ref||, by C's type
GPU_ERR = {"f32": 1e-5, "bf16": 1e-2, "f16": 2e-3}
#: the same for FP8 inputs: Hopper's FP8 wgmma adds its products with fewer than f32's bits
#: (about 14 are reported), so f32 C is held to what that gives, not to f32 sums
FP8_GPU_ERR = {**GPU_ERR, "f32": 1e-3}
#: C in f16 through the TMA epilogue (stmatrix into shared memory, TMA stores out of it)
E16 = dict(c_dtype="f16", epilogue="tma")
#: C in bf16 through the TMA epilogue
EBF16 = dict(c_dtype="bf16", epilogue="tma")


def ws(dtype: str = "f16", **kw):
    """A warp-specialized configuration (TMA loads) of 2 stages unless ``kw`` says otherwise:
    the CPU runtime's small kernels."""
    return Config(dtype, **{"loads": "tma", "stages": 2, **kw})


def tf32(x: np.ndarray) -> np.ndarray:
    """The 19 bits of f32 ``x`` that the tensor cores read (the low 13 mantissa bits cleared)."""
    return (x.view(np.uint32) & 0xFFFFE000).view(np.float32)


def operand(rng: np.random.Generator, shape: tuple[int, int], dtype: str, major: str = "K"):
    """(the kernel's array, the float64 values the tensor cores read): standard normal f16 or
    f32 data (tf32: the kernel gets all 32 bits, the values are the 19 it reads), bf16 bits
    (rounded toward zero), or FP8 bytes; ``major="MN"``: M or N contiguous (column-major)."""
    if dtype in FP8_DLPACK:
        return fp8(rng, shape, dtype)
    x = rng.standard_normal(shape)
    if dtype == "bf16":
        return bf16(x)
    x = x.astype(np.float32 if dtype == "tf32" else np.float16)
    if major == "MN":
        x = np.asfortranarray(x)
    return x, (tf32(x) if dtype == "tf32" else x).astype(np.float64)


def operands(cfg, m: int, n: int, k: int, rng: np.random.Generator):
    """A (m x k) and B (n x k) of ``cfg``'s types and majors, and their float64 values."""
    a, a64 = operand(rng, (m, k), cfg.dtype, cfg.a_major)
    b, b64 = operand(rng, (n, k), cfg.b_type, cfg.b_major)
    return a, b, a64, b64


def c_buffer(m: int, n: int, c_dtype: str):
    """(C full of NaN for the kernel, a function giving its float64 values after the run)."""
    if c_dtype == "bf16":
        bits = np.full((m, n), 0x7FC0, np.uint16)  # NaN
        return Bits(bits, 4), lambda: bf16_values(bits)
    c = np.full((m, n), np.nan, np.float32 if c_dtype == "f32" else np.float16)
    return c, lambda: c.astype(np.float64)


def assert_close(values: np.ndarray, ref: np.ndarray, c_dtype: str) -> None:
    """C's values against the float64 reference, within C's type's CPU_TOL."""
    tol = CPU_TOL[c_dtype]
    np.testing.assert_allclose(values.astype(np.float64), ref, rtol=tol, atol=tol)


def launch(cfg, kernel, m: int, n: int, *args, sms: int = 3) -> None:
    """The warp-specialized kernel on ``sms`` "SMs" (fewer blocks than tiles: the persistent
    loop), with its shared memory."""
    kernel(*args, grid=cfg.grid(m, n, sms=sms), block=cfg.threads, smem=cfg.smem_bytes())


def check_on_the_cpu(cfg, m: int, n: int, k: int, seed: int, sms: int = 3) -> None:
    """``cfg``'s warp-specialized kernel on the CPU runtime against numpy: random A and B of
    its types and majors, C full of NaN, within CPU_TOL of C's type."""
    a, b, a64, b64 = operands(cfg, m, n, k, np.random.default_rng(seed))
    c, values = c_buffer(m, n, cfg.c_dtype)
    launch(cfg, make_gemm(cfg), m, n, a, b, c, sms=sms)
    assert_close(values(), a64 @ b64.T, cfg.c_dtype)


def tile_launcher(cfg, k: int):
    """A function launching ``cfg``'s kernel on random A and B of one tile (``k`` columns) and a
    zero f32 C, with the scale arguments it is given (the launch's spec checks)."""
    a, b, _, _ = operands(cfg, cfg.bm, cfg.bn, k, np.random.default_rng(0))
    c = np.zeros((cfg.bm, cfg.bn), np.float32)
    kernel = make_gemm(cfg)
    return lambda *scales: launch(cfg, kernel, cfg.bm, cfg.bn, a, b, c, *scales)


def zeros(shape: tuple[int, int], dtype: str, major: str = "K"):
    """Zeros of ``dtype`` for a compile (bf16 and FP8 as their bits; MN-major: column-major)."""
    if dtype == "bf16":
        return Bits(np.zeros(shape, np.uint16), 4)
    if dtype in FP8_DLPACK:
        return Bits(np.zeros(shape, np.uint8), FP8_DLPACK[dtype])
    types = {"tf32": np.float32, "f32": np.float32, "f16": np.float16}
    return np.zeros(shape, types[dtype], order="F" if major == "MN" else "C")


def tile_operands(cfg) -> tuple:
    """Zero A, B and C of one tile, for a compile of ``cfg``'s kernel."""
    return (
        zeros((cfg.bm, cfg.bk), cfg.dtype, cfg.a_major),
        zeros((cfg.bn, cfg.bk), cfg.b_type, cfg.b_major),
        zeros((cfg.bm, cfg.bn), cfg.c_dtype),
    )


def compile_sm90a(cfg, *args, cubin: str = "auto", ptx_backend: str = "auto"):
    """``cfg``'s kernel for sm_90a with 32-bit indices. ``cubin="auto"`` (no GPU here: PTX of
    the ISA this machine's ptxas takes, for the ptxas executable); ``"never"``: PTX only, of
    the newest ISA libNVVM writes (for nvJitLink, which takes it: :func:`assemble`).
    ``ptx_backend="llvm"`` for tests of the shape of our lowering: LLVM's NVPTX prints it as
    built on every machine, where libNVVM (when installed) reorganises it."""
    return lc.compile(
        make_gemm(cfg), *args, block=cfg.threads, target="sm_90a", index_bitwidth=32,
        cubin=cubin, ptx_backend=ptx_backend,
    )  # fmt: skip


def assemble(ptx: str, whole_program: bool = True) -> str:
    """ptxas's resource report of ``ptx`` for sm_90a, checked for no local memory and no
    spills. ``whole_program``: the ptxas executable, as the loader assembles (setmaxnreg's
    registers honoured: no C7504); otherwise nvJitLink's relocatable code (__launch_bounds__'s
    registers). Skips the test where that tool is missing."""
    from layoutc.codegen.cubin import find_ptxas, ptx_to_cubin, ptxas_to_cubin

    if whole_program:
        ptxas = find_ptxas()
        if ptxas is None:
            pytest.skip("no ptxas executable on this machine")
        log = ptxas_to_cubin(ptx, "sm_90a", ptxas, verbose=True).log
        assert "C7504" not in log, log  # setmaxnreg honoured
        assert not re.search(r"\b[1-9]\d* bytes lmem", log), log
    else:
        pytest.importorskip("cuda.bindings.nvjitlink")
        log = ptx_to_cubin(ptx, "sm_90a", verbose=True).log
        assert re.search(r"\b0 bytes lmem\b", log), log
    assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", log), log
    return log


def torch_operand(torch, g, shape: tuple[int, int], dtype: str, major: str = "K"):
    """Standard normal data on the GPU in ``dtype`` (tf32: f32 with the 19 bits the tensor
    cores read, so that the reference sees the same inputs); ``major="MN"``: M or N
    contiguous, the transpose of a contiguous tensor."""
    types = {
        "f16": torch.float16,
        "bf16": torch.bfloat16,
        "tf32": torch.float32,
        "f8e4m3": torch.float8_e4m3fn,
        "f8e5m2": torch.float8_e5m2,
    }
    x = torch.randn(shape, generator=g, device="cuda").to(types[dtype])
    if dtype == "tf32":
        x = (x.view(torch.int32) & ~0x1FFF).view(torch.float32)
    if major == "MN":
        x = x.t().contiguous().t()
    return x


def torch_c(torch, m: int, n: int, c_dtype: str):
    """C full of NaN on the GPU in C's type."""
    types = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    return torch.full((m, n), float("nan"), device="cuda", dtype=types[c_dtype])


def rel_err(c, ref) -> float:
    """||C - ref|| / ||ref|| in float64."""
    return ((c.double() - ref).norm() / ref.norm()).item()


def check_ws_on_the_gpu(dtype: str, kw: dict, shape: tuple[int, int, int]) -> None:
    """``GemmConfig(dtype, loads="tma", **kw)`` on half the GPU's SMs against torch's float64
    product (an MN-major operand whose K stride TMA cannot describe: the compile refuses)."""
    torch = pytest.importorskip("torch")
    cfg = Config(dtype, loads="tma", **kw)
    g = torch.Generator(device="cuda").manual_seed(sum(shape))
    m, n, k = shape
    a = torch_operand(torch, g, (m, k), dtype, cfg.a_major)
    b = torch_operand(torch, g, (n, k), dtype, cfg.b_major)
    c = torch_c(torch, m, n, cfg.c_dtype)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if (cfg.a_major == "MN" and m % 8) or (cfg.b_major == "MN" and n % 8):
        # an MN-major operand's K stride (M or N elements) is no multiple of 16 bytes: TMA
        # cannot describe it, and the compiler says so
        with pytest.raises(lc.CompileError, match="byte strides that are multiples of 16"):
            lc.compile(make_gemm(cfg), a, b, c, block=cfg.threads, index_bitwidth=32)
        return
    run = lc.compile(make_gemm(cfg), a, b, c, block=cfg.threads, index_bitwidth=32)
    run(a, b, c, grid=cfg.grid(m, n, sms // 2), block=cfg.threads, smem=cfg.smem_bytes())
    torch.cuda.synchronize()
    ref = a.double() @ b.double().T
    assert not torch.isnan(c).any()
    err = rel_err(c, ref)
    assert err < GPU_ERR[cfg.c_dtype], err
