"""A dynamic shared-memory tensor aligned to more than 16 bytes next to static shared memory.

On the GPU the dynamic bytes start right after the static ones (an mbarrier of
``lc.smem_tensor``, an ``lc.PipelineTmaAsync``), 16-byte aligned only: ptxas does not pad the
static region to the ``.align 1024`` the extern array declares. A 128B-swizzled tile there
(``align=1024``) was silently garbage on an H100. convert-to-llvm now realigns the base at run
time, and the launch gets ``align - 16`` more bytes for it (``tile.dynamic_smem_padding``, the
one decision both read). The CPU runtime's base is aligned, so its offset is 0: these tests
check the realignment is in the code, the launch's bytes hold it, the kernels still compute
the right thing, and (on a GPU) that the hardware's swizzle lands where the layout says.
"""

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.frontend.spec import SpecError
from layoutc.ir.dialects.tile import dynamic_smem_padding
from test_tma_cpu import hardware_box, hardware_swizzle
from tma_kernels import make_box_loader
from wgmma_kernels import make_tile_gemm

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")

N = 256  # floats of the dynamic tile: (8, 32), one 128B-swizzled 1 KiB atom
TILE = lc.composition(lc.Swizzle(3, 2, 3), lc.make_layout((8, 32), (32, 1)))


def make_staged_copy(static: bool, align: int):
    """``dst = src`` through a swizzled dynamic tile of ``align`` bytes, and ``flags[t] = t``
    through a static array (when ``static``): both kinds of shared memory in one block."""

    @lc.kernel
    def staged_copy(src: lc.Tensor, dst: lc.Tensor, flags: lc.Tensor):
        tid = lc.thread_idx.x
        if static:
            marks = lc.smem_tensor(lc.i32, lc.make_layout(5))  # 20 bytes: misaligns the rest
            if tid < 5:
                marks[tid] = tid * 3
        s = lc.dynamic_smem_tensor(lc.f32, TILE, align=align)
        for i in range(N // 32):
            e = i * 32 + tid
            s[e // 32, e % 32] = src[e]
        lc.syncthreads()
        for i in range(N // 32):
            e = i * 32 + tid
            dst[e] = s[e // 32, e % 32]
        if static and tid < 5:
            flags[tid] = marks[tid]

    return staged_copy


def _args():
    src = np.random.default_rng(7).standard_normal(N).astype(np.float32)
    return src, np.full(N, np.nan, np.float32), np.full(5, -1, np.int32)


def test_the_padding_is_one_rule():
    assert [dynamic_smem_padding(a) for a in (4, 8, 16, 32, 128, 1024)] == [0, 0, 0, 16, 112, 1008]


@pytest.mark.parametrize("static", [True, False])
def test_mixed_static_and_1024_aligned_dynamic_smem_runs_on_the_cpu(static):
    src, dst, flags = _args()
    ck = lc.compile(make_staged_copy(static, 1024), src, dst, flags, block=32, target="cpu")
    # the launch default holds the tile and the realignment's padding, and says so
    assert ck.runtime_spec.dynamic_smem == 4 * N + 1008
    assert ck.runtime_spec.dynamic_smem_formula == 4 * N + 1008
    assert ck.runtime_spec.static_smem == (20 if static else 0)
    ck(src, dst, flags, grid=1)
    np.testing.assert_array_equal(dst, src)
    np.testing.assert_array_equal(flags, np.arange(5) * 3 if static else -1)
    # a given smem= must hold the padding too: the tile's bytes alone are refused
    with pytest.raises(SpecError, match=r"smem=1024 bytes is too little: .* need 2032 bytes"):
        ck(src, dst, flags, grid=1, smem=4 * N)
    ck(src, dst.copy(), flags, grid=1, smem=4096)  # more is fine


def test_16_byte_alignment_needs_no_padding():
    src, dst, flags = _args()
    ck = lc.compile(make_staged_copy(True, 16), src, dst, flags, block=32, target="cpu")
    assert ck.runtime_spec.dynamic_smem == 4 * N
    assert ck.runtime_spec.dynamic_smem_formula is None
    ck(src, dst, flags, grid=1)
    np.testing.assert_array_equal(dst, src)


@lc.kernel
def sized_at_launch(src: lc.Tensor, dst: lc.Tensor, n: int):
    s = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(n), align=128)
    tid = lc.thread_idx.x
    if tid < n:
        s[tid] = src[tid]
        dst[tid] = s[tid]


def test_the_need_formula_includes_the_padding():
    x = np.arange(32, dtype=np.float32)
    y = np.zeros_like(x)
    ck = lc.compile(sized_at_launch, x, y, 32, block=32, target="cpu")
    assert ck.runtime_spec.dynamic_smem == 112
    assert ck.runtime_spec.dynamic_smem_formula == ("add", ("mul", "n", 4), 112)
    ck(x, y, 32, grid=1)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(SpecError, match=r"need 240 bytes"):
        ck(x, y, 32, grid=1, smem=128)


@lc.kernel
def too_big(out: lc.Tensor):
    bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
    s = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(58112 - 2), align=1024)  # @too-big
    out[0] = s[0] + lc.f32(bar[0])


def test_the_227_kib_limit_counts_the_padding():
    # 232448 - 8 bytes would fit without the padding; with it, a clear error at the user's line
    with pytest.raises(lc.CompileError) as info:
        lc.compile(too_big, np.zeros(1, np.float32), target="cpu", block=32)
    msg = str(info.value)
    with open(__file__) as f:
        line = next(i for i, t in enumerate(f, 1) if "# @too-big" in t)
    assert f"test_dynamic_smem_align.py:{line}:" in msg
    assert "233456 bytes (8 static, 233448 dynamic, 1008 of them padding" in msg
    assert "more than a block has (232448 bytes)" in msg


def _dynamic_base_code(llvm_ir: str) -> list[str]:
    return re.findall(r"ptrtoint .*@\"?__dynamic_shmem__.* to i32", llvm_ir)


@needs_nvjitlink
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("align", [16, 1024])
def test_the_realignment_is_in_the_gpu_code_and_assembles(target, align):
    src, dst, flags = _args()
    ck = lc.compile(make_staged_copy(True, align), src, dst, flags, block=32, target=target)
    assert ".extern .shared .align 16 .b8 __dynamic_shmem__[]" in ck.ptx
    assert len(_dynamic_base_code(ck.llvm_ir)) == (1 if align > 16 else 0)
    if align > 16:  # (-base) & 1023 survives to the PTX: LLVM cannot assume the base aligned
        assert re.search(r"and\.b32\s+%r\d+, %r\d+, 1023;", ck.ptx), ck.ptx
    assert ck.cubin[:4] == b"\x7fELF"


BOXES = [(np.float32, 8, 32, 3, 2, 128), (np.float16, 8, 64, 3, 3, 128)]


def _box_case(dtype, bm, bk):
    rng = np.random.default_rng(bm * bk)
    M, K = 2 * bm + 3, 2 * bk + 5
    pitch = -(-K * np.dtype(dtype).itemsize // 16) * 16 // np.dtype(dtype).itemsize
    store = np.zeros((M, pitch), dtype)
    store[:, :K] = rng.standard_normal((M, K)).astype(dtype)
    return store, store[:, :K], -(-M // bm), -(-K // bk)


def _check_boxes(a, logical, physical, bm, bk, gm, gk, span):
    for i in range(gm):
        for j in range(gk):
            box = hardware_box(a, i * bm, j * bk, bm, bk).reshape(-1)
            np.testing.assert_array_equal(logical[i * gk + j], box)
            np.testing.assert_array_equal(physical[i * gk + j], hardware_swizzle(box, span))


@pytest.mark.parametrize(("dtype", "bm", "bk", "bits", "base", "span"), BOXES)
def test_a_swizzled_tma_box_in_dynamic_smem_after_an_mbarrier_on_the_cpu(
    dtype, bm, bk, bits, base, span
):
    _, a, gm, gk = _box_case(dtype, bm, bk)
    k = make_box_loader(bm, bk, lc.f32 if dtype == np.float32 else lc.f16, bits, base, dynamic=True)
    logical = np.full((gm * gk, bm * bk), np.nan, dtype)
    physical = np.full_like(logical, np.nan)
    ck = lc.compile(k, a, logical, physical, block=32, target="cpu")
    assert ck.runtime_spec.static_smem == 8
    ck(a, logical, physical, grid=(gm, gk))
    _check_boxes(a, logical, physical, bm, bk, gm, gk, span)


def make_dynamic_tile_gemm(n: int):
    """tests/hopper/wgmma_kernels.py's wgmma tile (C(64,N) = A(64,BK) @ B(N,BK).T, f16, SW128
    GMMA atoms) with A and B in *dynamic* shared memory, ``align=1024``, after a static
    array: the layout the bug hit (as with TMA, the wgmma descriptors' 128-byte swizzle
    follows address bits just the same)."""
    return make_tile_gemm(n, dynamic=True)[0]


def _gemm_args(n: int):
    rng = np.random.default_rng(n)
    a = rng.integers(-4, 5, (64, 64)).astype(np.float16)
    b = rng.integers(-4, 5, (n, 64)).astype(np.float16)
    return a, b, np.full((64, n), np.nan, np.float32), np.full(5, -1, np.int32)


def test_a_wgmma_tile_in_dynamic_smem_after_a_static_array_on_the_cpu():
    a, b, c, flags = _gemm_args(64)
    ck = lc.compile(make_dynamic_tile_gemm(64), a, b, c, flags, block=128, target="cpu")
    assert ck.runtime_spec.static_smem == 20
    assert ck.runtime_spec.dynamic_smem == 2 * 64 * 64 * 2 + 1008
    ck(a, b, c, flags, grid=1)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32).T)
    np.testing.assert_array_equal(flags, np.arange(5) * 3)


@needs_nvjitlink
def test_the_wgmma_tile_kernel_realigns_and_assembles_for_sm_90a():
    a, b, c, flags = _gemm_args(64)
    ck = lc.compile(make_dynamic_tile_gemm(64), a, b, c, flags, block=128, target="sm_90a")
    assert len(_dynamic_base_code(ck.llvm_ir)) == 1
    assert ck.cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("n", [64, 128])
def test_the_hardware_swizzle_agrees_with_the_layout_on_the_gpu(n):
    """The bug: a 128B-swizzled tile whose base is not 1024-byte aligned is read by the
    tensor cores with another swizzle phase than the threads wrote it in: garbage C."""
    torch = pytest.importorskip("torch")
    a, b, c, flags = (torch.from_numpy(x).cuda() for x in _gemm_args(n))
    make_dynamic_tile_gemm(n)(a, b, c, flags, grid=1, block=128)
    torch.cuda.synchronize()
    ref = a.double() @ b.double().T
    assert torch.equal(c.double(), ref), (c.double() - ref).abs().max()
    assert flags.cpu().tolist() == [0, 3, 6, 9, 12]


@pytest.mark.gpu
@pytest.mark.parametrize("align", [128, 1024])
def test_mixed_shared_memory_on_the_gpu(align):
    torch = pytest.importorskip("torch")
    src, dst, flags = (torch.from_numpy(x).cuda() for x in _args())
    make_staged_copy(True, align)(src, dst, flags, grid=1, block=32)
    torch.cuda.synchronize()
    assert torch.equal(dst, src)
    assert flags.cpu().tolist() == [0, 3, 6, 9, 12]
