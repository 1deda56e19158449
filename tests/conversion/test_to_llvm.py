"""convert-to-llvm end to end: tile-level kernels lowered for each target, translated, run on
the CPU runtime against numpy (fragments from the PTX ISA tables, written out here) and
compiled to PTX/cubin for sm_80 and sm_90."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
from layoutc.codegen.translate import translate_host, translate_nvvm
from layoutc.ir.core import parse
from layoutc.passes.conversion.tile_to_llvm import ConversionError
from layoutc.passes.conversion.to_llvm import convert_to_llvm
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.cpu_kernel import CpuKernel

ARCHS = ("sm_80", "sm_90")
needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")


def lowered(text: str, target: str):
    m = parse(text)
    m.verify()
    convert_to_llvm(m, target)
    m.verify()
    return m


def cpu(text: str, name: str, params: tuple[Param, ...]) -> CpuKernel:
    tr = translate_host(lowered(text, "host"))
    info = tr.kernels[name]
    spec = KernelSpec(name, params, launch_bounds=info.launch_bounds, static_smem=info.static_smem)
    return CpuKernel(tr.module, spec)


def gpu(text: str, name: str, params: tuple[Param, ...]):
    """The same kernel lowered for the NVVM target and loaded on this machine's GPU."""
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.cuda_kernel import load_kernel

    target = Target.from_device()
    tr = translate_nvvm(lowered(text, "nvvm"), target)
    info = tr.kernels[name]
    spec = KernelSpec(name, params, launch_bounds=info.launch_bounds, static_smem=info.static_smem)
    opts = ToolchainOptions(driver_version=cuda_driver.driver_version())
    kind, image = compile_gpu(tr.module, target, opts).image
    return load_kernel(image, kind, spec)


RUNNERS = [pytest.param(cpu, id="cpu"), pytest.param(gpu, id="gpu", marks=pytest.mark.gpu)]


@pytest.fixture(params=RUNNERS)
def make(request):
    """Lowers, translates and loads a tile-level kernel for the CPU, or the GPU when present."""
    return request.param


def ptx(text: str, arch: str) -> str:
    target = Target.parse(arch)
    binary = compile_gpu(
        translate_nvvm(lowered(text, "nvvm"), target).module,
        target,
        ToolchainOptions(cubin="always"),
    )
    assert binary.cubin
    return binary.ptx


# -- tensors with dynamic layouts, register fragments, loops ------------------------------------

SCALE = """
func.func @scale(%x: !tile.tensor<f32, gmem, "(?):(1)", 16>, %y: !tile.tensor<f32, gmem, "(?,4):(4,1)", 16>, %alpha: f32)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %b = gpu.block_id x
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  %base = arith.muli %b, %c64 : index
  %i = arith.addi %base, %t : index
  %e = arith.muli %i, %c4 : index
  %v = tile.load_vector %x[(%e)] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> vector<4xf32>
  %s = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  tile.store_vector %v, %s[(0)] : vector<4xf32>, !tile.tensor<f32, rmem, "(4):(1)", 4>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %w = tile.load %s[(%k)] : !tile.tensor<f32, rmem, "(4):(1)", 4> -> f32
    %m = arith.mulf %w, %alpha : f32
    tile.store %m, %y[(%i, %k)] : !tile.tensor<f32, gmem, "(?,4):(4,1)", 16>
  }
  return
}
"""

SCALE_PARAMS = (
    Param("x", "pointer", "f32", layout="(?):(1)", dynamic=("x_n",)),
    Param("x_n", "scalar", "i64"),
    Param("y", "pointer", "f32", layout="(?,4):(4,1)", dynamic=("y_m",)),
    Param("y_m", "scalar", "i64"),
    Param("alpha", "scalar", "f32"),
)


def test_kernel_abi_flattens_tensors():
    m = lowered(SCALE, "host")
    f = next(op for op in m.walk_ops() if op.name == "func.func")
    assert [t.text for t in f.type.inputs] == [
        "!llvm.ptr<1>",
        "i64",
        "!llvm.ptr<1>",
        "i64",
        "f32",
        "!llvm.ptr",
    ]
    assert "layoutc.thread_context" in f.arg_attrs[5]
    m32 = parse(SCALE)
    convert_to_llvm(m32, "nvvm", index_bitwidth=32)
    f32 = next(op for op in m32.walk_ops() if op.name == "func.func")
    assert [t.text for t in f32.type.inputs] == [
        "!llvm.ptr<1>",
        "i32",
        "!llvm.ptr<1>",
        "i32",
        "f32",
    ]


def test_tensor_kernel(make):
    k = make(SCALE, "scale", SCALE_PARAMS)
    x = np.random.default_rng(0).standard_normal(512).astype(np.float32)
    y = np.zeros((128, 4), np.float32)
    k(x, y, 2.5, grid=2, block=64)
    np.testing.assert_allclose(y.reshape(-1), 2.5 * x, rtol=1e-6)


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_tensor_kernel_ptx(arch):
    text = ptx(SCALE, arch)
    assert "ld.global.v4" in text
    assert ".local" not in text, "the register fragment was not promoted to registers"


# -- tile.mma ----------------------------------------------------------------------------------


def tile_mma_kernel(atom: str, ab: str, c: str, counts: tuple[int, int, int]) -> str:
    lines = [
        f"func.func @mma(%a: !tile.ptr<{ab}, gmem, 4>, %b: !tile.ptr<{ab}, gmem, 4>, "
        f"%c: !tile.ptr<{c}, gmem, 4>, %d: !tile.ptr<{c}, gmem, 4>) "
        "attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {",
        "  %lane = gpu.lane_id",
    ]

    def load(p: str, n: int, t: str) -> list[str]:
        lines.append(f"  %{p}n = arith.constant {n} : index")
        lines.append(f"  %{p}base = arith.muli %lane, %{p}n : index")
        for r in range(n):
            lines.append(f"  %{p}c{r} = arith.constant {r} : index")
            lines.append(f"  %{p}i{r} = arith.addi %{p}base, %{p}c{r} : index")
            lines.append(f"  %{p}{r} = tile.load %{p}[%{p}i{r}] : !tile.ptr<{t}, gmem, 4> -> {t}")
        return [f"%{p}{r}" for r in range(n)]

    na, nb, nc = counts
    a, b, cc = load("a", na, ab), load("b", nb, ab), load("c", nc, c)
    lines.append(
        f'  %D:{nc} = tile.mma #tile.mma_atom<"{atom}"> ({", ".join(a)}), ({", ".join(b)}), '
        f"({', '.join(cc)}) : {ab}, {ab}, {c} -> {c}"
    )
    lines.append(f"  %dn = arith.constant {nc} : index")
    lines.append("  %dbase = arith.muli %lane, %dn : index")
    for r in range(nc):
        lines.append(f"  %dc{r} = arith.constant {r} : index")
        lines.append(f"  %di{r} = arith.addi %dbase, %dc{r} : index")
        lines.append(f"  tile.store %D#{r}, %d[%di{r}] : !tile.ptr<{c}, gmem, 4>")
    lines += ["  return", "}"]
    return "\n".join(lines)


# PTX ISA fragment tables (groupID g = lane / 4, threadID_in_group t = lane % 4).
def _c(lane):
    g, t = divmod(lane, 4)
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]


def _a_k8(lane):
    g, t = divmod(lane, 4)
    return [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]


def _b_k8(lane):  # (k, n)
    g, t = divmod(lane, 4)
    return [(t, g), (t + 4, g)]


def _a_k16(lane):
    g, t = divmod(lane, 4)
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1),
            (g, 2 * t + 8), (g, 2 * t + 9), (g + 8, 2 * t + 8), (g + 8, 2 * t + 9)]  # fmt: skip


def _b_k16(lane):
    g, t = divmod(lane, 4)
    return [(2 * t, g), (2 * t + 1, g), (2 * t + 8, g), (2 * t + 9, g)]


def _frag(m, entries):
    return np.ascontiguousarray(
        np.array([[m[i, j] for i, j in entries(lane)] for lane in range(32)])
    )


def _gather(d):
    out = np.zeros((16, 8))
    for lane in range(32):
        for (i, j), v in zip(_c(lane), d[lane]):
            out[i, j] = v
    return out


def _tf32_rna(x: np.ndarray) -> np.ndarray:
    """cvt.rna.tf32.f32: round to nearest, ties away from zero, to 10 mantissa bits."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return (((bits + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32)


TF32 = tile_mma_kernel("SM80_16x8x8_F32TF32TF32F32_TN", "f32", "f32", (4, 2, 4))
F16 = tile_mma_kernel("SM80_16x8x16_F32F16F16F32_TN", "f16", "f32", (8, 4, 4))
BF16 = tile_mma_kernel("SM80_16x8x16_F32BF16BF16F32_TN", "bf16", "f32", (8, 4, 4))


def _params(ab: str, c: str) -> tuple[Param, ...]:
    return (
        Param("a", "pointer", ab),
        Param("b", "pointer", ab),
        Param("c", "pointer", c),
        Param("d", "pointer", c),
    )


def test_mma_m16n8k8_tf32(make):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = np.zeros((32, 4), np.float32)
    make(TF32, "mma", _params("f32", "f32"))(
        _frag(a, _a_k8), _frag(b, _b_k8), _frag(c, _c), d, grid=1, block=32
    )
    expected = _tf32_rna(a).astype(np.float64) @ _tf32_rna(b).astype(np.float64) + c
    np.testing.assert_allclose(_gather(d), expected, rtol=1e-5, atol=1e-5)


def _bf16_bits(x):
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_mma_m16n8k16(make, kind):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((16, 16)), rng.standard_normal((16, 8))
    c = rng.standard_normal((16, 8)).astype(np.float32)
    if kind == "f16":
        a16, b16 = a.astype(np.float16), b.astype(np.float16)
        av, bv = a16.astype(np.float64), b16.astype(np.float64)
        text, dtype = F16, "f16"
    else:
        a16, b16 = _bf16_bits(a), _bf16_bits(b)
        av = (a16.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        bv = (b16.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        text, dtype = BF16, "u16"
    d = np.zeros((32, 4), np.float32)
    params = _params(dtype, "f32") if kind == "f16" else _params("u16", "f32")
    make(text, "mma", params)(
        _frag(a16, _a_k16), _frag(b16, _b_k16), _frag(c, _c), d, grid=1, block=32
    )
    np.testing.assert_allclose(_gather(d), av @ bv + c, rtol=1e-5, atol=1e-5)


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_mma_ptx(arch):
    text = ptx(TF32, arch)
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in text
    assert "cvt.rna.tf32.f32" in text
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx(F16, arch)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx(BF16, arch)


# -- shared memory, cp.async, ldmatrix ------------------------------------------------------------

STAGE_LDMATRIX = """
func.func @stage(%src: !tile.ptr<f16, gmem, 16>, %out: !tile.ptr<f16, gmem, 4>)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {
  %lane = gpu.lane_id
  %s = tile.alloc_smem : !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  %c8 = arith.constant 8 : index
  %e = arith.muli %lane, %c8 : index
  tile.cp_async %src[%e], %s[(%lane, 0)] {bytes = 16 : i64, cache = "cg"} : !tile.ptr<f16, gmem, 16>, !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  tile.cp_async_commit
  tile.cp_async_wait {pending = 0 : i64}
  gpu.barrier
  %v:8 = tile.ldmatrix %s[(%lane, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(32,8):(8,1)", 16> -> f16
  %ob = arith.muli %lane, %c8 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %o0 = arith.addi %ob, %c0 : index
  %o1 = arith.addi %ob, %c1 : index
  %o2 = arith.addi %ob, %c2 : index
  %o3 = arith.addi %ob, %c3 : index
  %o4 = arith.addi %ob, %c4 : index
  %o5 = arith.addi %ob, %c5 : index
  %o6 = arith.addi %ob, %c6 : index
  %o7 = arith.addi %ob, %c7 : index
  tile.store %v#0, %out[%o0] : !tile.ptr<f16, gmem, 4>
  tile.store %v#1, %out[%o1] : !tile.ptr<f16, gmem, 4>
  tile.store %v#2, %out[%o2] : !tile.ptr<f16, gmem, 4>
  tile.store %v#3, %out[%o3] : !tile.ptr<f16, gmem, 4>
  tile.store %v#4, %out[%o4] : !tile.ptr<f16, gmem, 4>
  tile.store %v#5, %out[%o5] : !tile.ptr<f16, gmem, 4>
  tile.store %v#6, %out[%o6] : !tile.ptr<f16, gmem, 4>
  tile.store %v#7, %out[%o7] : !tile.ptr<f16, gmem, 4>
  return
}
"""


def test_cp_async_and_ldmatrix(make):
    k = make(
        STAGE_LDMATRIX, "stage", (Param("src", "pointer", "u16"), Param("out", "pointer", "u16"))
    )
    assert k.spec.static_smem == 512
    rows = np.random.default_rng(3).integers(0, 1 << 16, (32, 8)).astype(np.uint16)
    out = np.zeros((32, 8), np.uint16)
    k(rows.reshape(-1), out.reshape(-1), grid=1, block=32)
    mats = rows.reshape(4, 8, 8)  # lane 8*i + r gave row r of matrix i
    for t in range(32):
        expected = []
        for i in range(4):  # PTX ISA: register i holds row t/4, columns 2*(t%4), +1 of matrix i
            expected += [mats[i, t // 4, 2 * (t % 4)], mats[i, t // 4, 2 * (t % 4) + 1]]
        assert list(out[t]) == expected, t


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_cp_async_and_ldmatrix_ptx(arch):
    text = ptx(STAGE_LDMATRIX, arch)
    assert "cp.async.cg.shared.global [" in text
    assert "cp.async.commit_group;" in text and "cp.async.wait_group 0;" in text
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in text
    assert ".shared .align 16 .b8 __layoutc_smem[512]" in text


# -- what convert-to-llvm refuses ------------------------------------------------------------------


def _error(text: str) -> str:
    m = parse(text, buffer_name="k.mlir")
    with pytest.raises(ConversionError) as info:
        convert_to_llvm(m, "nvvm")
    e = info.value
    return f"{e.op.diagnostic(e.message).format()}"


def test_algorithms_must_be_lowered_first():
    text = """
func.func @f(%a: !tile.tensor<f32, gmem, "(8):(1)", 16>, %b: !tile.tensor<f32, gmem, "(8):(1)", 16>) {
  tile.copy %a, %b : !tile.tensor<f32, gmem, "(8):(1)", 16>, !tile.tensor<f32, gmem, "(8):(1)", 16>
  return
}
"""
    msg = _error(text)
    assert msg.startswith("k.mlir:3:3: error: 'tile.copy' op cannot be converted")
    assert "run lower-algorithms first" in msg


def test_swizzled_tensors_are_lower_layouts_job():
    text = """
func.func @f(%i: index) -> f32 {
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)", 16>
  %x = tile.load %s[(1, 0)] : !tile.tensor<f32, smem, "Sw<3,4,3> o 0 o (8,64):(64,1)", 16> -> f32
  return %x : f32
}
"""
    msg = _error(text)
    assert "k.mlir:4:3" in msg and "only plain shape:stride layouts" in msg
