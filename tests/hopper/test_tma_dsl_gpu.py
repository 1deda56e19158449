"""TMA kernels written in the DSL on the GPU: the descriptor is a grid-constant kernel
parameter (``.param .align 64 .b8 d[128]``, read in place through ``cvta.param``) that the
runtime encodes at launch from the argument tensor and caches (runtime/tma.py).

Without a GPU: the parameter's ABI, PTX and cubin. With one: the same boxes as the CPU runtime
(test_tma_cpu.py's hardware model), and a second launch that does not encode again.
"""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.runtime.abi import TMA, KernelSpec
from layoutc.runtime.packing import ParamBuffer
from test_tma_cpu import CASES, hardware_box, hardware_swizzle
from tma_kernels import make_box_loader, make_box_storer

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")


def _loader_args(dtype=np.float32, bm=8, bk=32):
    a = np.zeros((2 * bm + 3, 2 * bk + 8), dtype)
    out = np.zeros((1, bm * bk), dtype)
    return a, out


@pytest.mark.parametrize("backend", ["llvm", "libnvvm"])
def test_the_descriptor_is_a_grid_constant_parameter(backend):
    if backend == "libnvvm":
        from layoutc.codegen.ptx import libnvvm_available

        if not libnvvm_available():
            pytest.skip("libNVVM not installed")
    a, out = _loader_args()
    k = make_box_loader(8, 32, lc.f32, 3, 2)
    ck = lc.compile(k, a, out, out, block=32, target="sm_90a", ptx_backend=backend, cache=False)
    spec = ck.runtime_spec
    (desc,) = [p for p in spec.params if p.kind == TMA]
    assert desc.tma.source == "A" and desc.tma.box == (32, 8) and desc.tma.swizzle == 128
    assert desc.tma.dims == (1, 0)
    assert desc not in spec.arguments  # the runtime computes it; the caller does not pass it
    assert KernelSpec.from_json(spec.to_json()) == spec
    assert re.search(r"\.param \.align 64 \.b8 \w+\[128\]", ck.ptx), ck.ptx[:2000]
    assert "cvta.param.u64" in ck.ptx  # its generic address, read in place (no local copy)
    if nvjitlink_version() is not None:
        from layoutc.codegen.cubin import ptx_to_cubin

        log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
        assert re.search(r"\b0 bytes lmem\b", log), log


def test_the_parameter_buffer_aligns_descriptors_to_64_bytes():
    a, out = _loader_args()
    ck = lc.compile(make_box_loader(8, 32, lc.f32, 3, 2), a, out, out, block=32, target="sm_90a")
    buf = ParamBuffer(ck.runtime_spec.params)
    i = [p.kind for p in ck.runtime_spec.params].index(TMA)
    assert buf.offsets[i] % 64 == 0 and buf.size >= buf.offsets[i] + 128


def test_a_view_is_refused_on_the_gpu():
    @lc.kernel
    def view_copy(A: lc.Tensor[lc.f32, "(M,72):(72,1)"], out: lc.Tensor):  # noqa: F722
        inner = lc.local_tile(A, (8, 32), (1, 0))
        tma = lc.make_tma_copy("SM90_TMA_LOAD", inner, lc.make_layout((8, 32), (32, 1)))
        lc.prefetch_tma_descriptor(tma)

    a, out = _loader_args()
    with pytest.raises(lc.CompileError, match="kernel-argument tensor"):
        lc.compile(view_copy, a, out, block=32, target="sm_90a", cache=False)


@pytest.mark.gpu
@pytest.mark.parametrize(("dtype", "bm", "bk", "bits", "base", "span"), CASES)
def test_dsl_tma_loads_on_the_gpu_match_the_hardware_model(dtype, bm, bk, bits, base, span):
    import torch
    from layoutc.runtime.tma import DESCRIPTORS

    rng = np.random.default_rng(bm * bk + bits)
    M, K = 2 * bm + 3, 2 * bk + 5
    pitch = -(-K * np.dtype(dtype).itemsize // 16) * 16 // np.dtype(dtype).itemsize
    store = np.zeros((M, pitch), dtype)
    store[:, :K] = rng.standard_normal((M, K)).astype(dtype)
    a_host = store[:, :K]
    a = torch.from_numpy(store).cuda()[:, :K]
    gm, gk = -(-M // bm), -(-K // bk)
    lc_dtype = lc.f32 if dtype == np.float32 else lc.f16
    k = make_box_loader(bm, bk, lc_dtype, bits, base)
    t = torch.float32 if dtype == np.float32 else torch.float16
    logical = torch.full((gm * gk, bm * bk), float("nan"), dtype=t, device="cuda")
    physical = torch.full_like(logical, float("nan"))
    run = lc.compile(k, a, logical, physical, block=32)
    run(a, logical, physical, grid=(gm, gk))
    encodes = DESCRIPTORS.encodes
    run(a, logical, physical, grid=(gm, gk))  # same tensor: the cached descriptor
    torch.cuda.synchronize()
    assert DESCRIPTORS.encodes == encodes
    logical, physical = logical.cpu().numpy(), physical.cpu().numpy()
    for i in range(gm):
        for j in range(gk):
            box = hardware_box(a_host, i * bm, j * bk, bm, bk).reshape(-1)
            blk = i * gk + j
            np.testing.assert_array_equal(logical[blk], box)
            np.testing.assert_array_equal(physical[blk], hardware_swizzle(box, span))


@pytest.mark.gpu
def test_dsl_tma_store_on_the_gpu_clips_at_the_tensor_edge():
    import torch

    bm, bk = 8, 16
    M, K = 13, 20
    gm, gk = -(-M // bm), -(-K // bk)
    src = torch.randn((gm * bm, gk * bk), device="cuda")
    store = torch.full((M, 24), -7.0, device="cuda")
    dst = store[:, :K]
    k = make_box_storer(bm, bk, lc.f32)
    lc.compile(k, src, dst, block=32)(src, dst, grid=(gm, gk))
    torch.cuda.synchronize()
    assert torch.equal(dst, src[:M, :K] + 1)
    assert bool((store[:, K:] == -7.0).all())


@pytest.mark.gpu
def test_repeated_launches_over_many_tensors_read_each_tensors_own_boxes():
    """The binder's descriptor memo (runtime/packing_fast.py) on the hardware: one kernel
    launched over tensors at new addresses (the fast path), with other extents or row pitches
    (the same address too), and again over earlier ones (memo hits); every launch's boxes are
    that tensor's, so no launch read through a stale descriptor."""
    import torch

    dtype, bm, bk, bits, base, span = CASES[0]
    rng = np.random.default_rng(7)
    tensors = []
    for m, k, pitch in [(19, 69, 72), (19, 69, 72), (11, 69, 80), (19, 69, 88), (19, 40, 72)]:
        store = torch.from_numpy(rng.standard_normal((m, pitch)).astype(dtype)).cuda()
        tensors.append(store[:, :k])
    tensors.append(tensors[0][:, :50])  # the first tensor's address, fewer columns
    tensors.append(tensors[0].as_strided((9, 69), (144, 1)))  # its address, twice the pitch
    k = make_box_loader(bm, bk, lc.f32, bits, base)
    out = torch.zeros((1, bm * bk), device="cuda")
    run = lc.compile(k, tensors[0], out, out, block=32)
    for a in tensors + tensors[::-1] + tensors:
        m, kk = a.shape
        gm, gk = -(-m // bm), -(-kk // bk)
        logical = torch.full((gm * gk, bm * bk), float("nan"), device="cuda")
        physical = torch.full_like(logical, float("nan"))
        run(a, logical, physical, grid=(gm, gk))
        a_host = a.cpu().numpy()
        logical, physical = logical.cpu().numpy(), physical.cpu().numpy()
        for i in range(gm):
            for j in range(gk):
                box = hardware_box(a_host, i * bm, j * bk, bm, bk).reshape(-1)
                np.testing.assert_array_equal(logical[i * gk + j], box)
                np.testing.assert_array_equal(physical[i * gk + j], hardware_swizzle(box, span))
