"""TMA im2col in the DSL (``lc.make_im2col_tma_copy``, ``lc.tma_copy(..., offsets=)``) for the
GPU: the grid-constant descriptor parameter the runtime encodes with
``cuTensorMapEncodeIm2col`` (mode, pixels, corners in its ABI entry), cached like the tiled
ones; the PTX ``.im2col`` load assembled for sm_90a; the DSL's refusals naming the rule and
the value. With a GPU: the loads of test_tma_im2col_cpu.py against the same model."""

import re
import types

import layoutc as lc
import numpy as np
import pytest
from im2col_kernels import make_im2col_loader
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.runtime import cuda_driver, tma
from layoutc.runtime.abi import TMA, KernelSpec
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.tma_im2col import Im2colBox, im2col_load
from test_tma_cpu import hardware_swizzle
from test_tma_descriptors import FakeTensorMapDriver
from test_tma_im2col_cpu import CASES, _rows


def _example59(backend="llvm"):
    act = np.zeros((4, 6, 4, 4, 64), np.float32)
    at = np.zeros((1, 8), np.int32)
    out = np.zeros((1, 64 * 32), np.float32)
    k = make_im2col_loader(64, 32, lc.f32, 3, 2, (0, 0, 0), (-2, -2, -2))
    return lc.compile(k, act, at, out, out, block=32, target="sm_90a", ptx_backend=backend,
                      cache=False)  # fmt: skip


@pytest.mark.parametrize("backend", ["llvm", "libnvvm"])
def test_the_im2col_descriptor_is_a_grid_constant_parameter(backend):
    if backend == "libnvvm":
        from layoutc.codegen.ptx import libnvvm_available

        if not libnvvm_available():
            pytest.skip("libNVVM not installed")
    ck = _example59(backend)
    spec = ck.runtime_spec
    (desc,) = [p for p in spec.params if p.kind == TMA]
    t = desc.tma
    assert (t.source, t.mode, t.box, t.pixels, t.swizzle) == ("act", "im2col", (32, 1, 1, 1, 1),
                                                              64, 128)  # fmt: skip
    assert t.dims == (4, 3, 2, 1, 0)  # C, W, H, D, N
    assert (t.lower, t.upper) == ((0, 0, 0), (-2, -2, -2))
    assert KernelSpec.from_json(spec.to_json()) == spec
    assert re.search(
        r"cp\.async\.bulk\.tensor\.5d\.shared::cluster\.global\.im2col\.mbarrier::complete_tx"
        r"::bytes \[%rd\d+\], \[%rd\d+, \{(%r\d+, ){4}%r\d+\}\], \[%r\w+\], \{(%rs\d+, ){2}%rs\d+\}",
        ck.ptx,
    ), ck.ptx[:3000]
    if nvjitlink_version() is not None:
        from layoutc.codegen.cubin import ptx_to_cubin

        log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
        assert re.search(r"\b0 bytes lmem\b", log), log


class FakeIm2colDriver(FakeTensorMapDriver):
    """cuTensorMapEncodeIm2col recording its calls."""

    def cuTensorMapEncodeIm2col(self, *args):
        self.calls.append(args)
        return (0, types.SimpleNamespace(opaque=[len(self.calls)] * 16))


def test_launches_encode_the_im2col_descriptor_once_and_refuse_broken_rules():
    from layoutc.runtime.packing import ParamBuffer

    drv = FakeIm2colDriver()
    previous = cuda_driver.use_driver(drv)
    try:
        cache = tma.TmaDescriptorCache()
        box = Im2colBox("f32", 32, 64, (0, 0, 0), (-2, -2, -2), 128)
        ext, st = (64, 4, 4, 6, 4), (4, 256, 1024, 4096, 24576)
        a = cache.get("act", box, 0x10000, ext, st)
        assert cache.get("act", box, 0x10000, ext, st) == a and cache.encodes == 1
        (call,) = drv.calls
        assert call[1:8] == (5, 0x10000, list(ext), list(st[1:]), [0, 0, 0], [-2, -2, -2], 32)
        with pytest.raises(ArgumentError, match=r"16-byte aligned, got 0x10004"):
            cache.get("act", box, 0x10004, ext, st)
        # the runtime's parameter buffer builds the box from the spec's im2col entry
        spec = _example59().runtime_spec
        (i,) = [j for j, p in enumerate(spec.params) if p.kind == TMA]
        buf = ParamBuffer(spec.params)
        assert buf.offsets[i] % 64 == 0
    finally:
        cuda_driver.use_driver(previous)


def _refusal(act_spec, smem, lower=(0, 0, 0), upper=(-2, -2, -2)):
    @lc.kernel
    def refused(act: act_spec):
        lc.make_im2col_tma_copy("SM90_TMA_LOAD_IM2COL", act, smem, lower, upper)

    return refused


NDHWC = lc.Tensor(lc.f32, "(N,6,4,4,64):(6144,1024,256,64,1)")
DENSE = lc.make_layout((64, 32), (32, 1))
SW128 = lc.composition(lc.Swizzle(3, 2, 3), DENSE)


@pytest.mark.parametrize(
    ("act_spec", "smem", "lower", "upper", "message"),
    [
        (lc.Tensor(lc.f32, "(N,6,4,4,64):(6144,1024,256,1,4)"), DENSE, (0, 0, 0), (-2, -2, -2),
         r"the channel mode \(the last\) must be contiguous"),
        (lc.Tensor(lc.f32, "(N,6,4,4,63):(6048,1008,252,63,1)"), DENSE, (0, 0, 0), (-2, -2, -2),
         r"byte strides that are multiples of 16; mode 3 has stride 63 x 4 bytes"),
        (NDHWC, DENSE, (0, 0, 0), (-2, -20, -2), r"corners must be in \[-16, 15\]"),
        (NDHWC, DENSE, (0, 0, 0), (-2, -4, -2), r"spatial mode 2 \(extent 4\) has an empty"),
        (NDHWC, lc.make_layout((64, 32), (1, 64)), (0, 0, 0), (-2, -2, -2),
         r"is not the matrix TMA writes"),
        (NDHWC, lc.composition(lc.Swizzle(2, 2, 3), DENSE), (0, 0, 0), (-2, -2, -2),
         r"with a 64-byte swizzle a pixel's channels must be 64 bytes, got 32 x 4 = 128"),
        (NDHWC, lc.make_layout((2048, 32), (32, 1)), (0, 0, 0), (-2, -2, -2),
         r"pixels per load in \[1, 1024\]; got 32 and 2048"),
    ],
)  # fmt: skip
def test_broken_tma_rules_are_refused_with_the_rule_and_the_value(
    act_spec, smem, lower, upper, message
):
    act = np.zeros((4, 6, 4, 4, 64), np.float32)
    if "(N,6,4,4,64):(6144,1024,256,1,4)" in repr(act_spec):  # W contiguous, not C
        act = np.zeros((4, 6, 4, 64, 4), np.float32).transpose(0, 1, 2, 4, 3)
    elif "63" in repr(act_spec):
        act = np.zeros((4, 6, 4, 4, 63), np.float32)
    with pytest.raises(lc.CompileError, match=message):
        lc.compile(_refusal(act_spec, smem, lower, upper), act, target="cpu", cache=False)


def test_the_channels_must_be_contiguous_in_the_swizzle():
    act = np.zeros((4, 6, 4, 4, 64), np.float32)
    assert lc.compile(_refusal(NDHWC, SW128), act, target="cpu", cache=False) is not None


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("name", "dtype", "shape", "channels", "pixels", "lower", "upper", "bits", "base", "span"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_im2col_loads_on_the_gpu_match_the_model(
    name, dtype, shape, channels, pixels, lower, upper, bits, base, span
):
    import torch
    from layoutc.runtime.tma import DESCRIPTORS

    rng = np.random.default_rng(len(name) * 7 + pixels)
    act_host = rng.standard_normal(shape).astype(dtype)
    spatial = len(shape) - 2
    at_host = _rows(shape, spatial, lower, upper, rng, 6)
    act, at = torch.from_numpy(act_host).cuda(), torch.from_numpy(at_host).cuda()
    blocks, n = len(at_host), pixels * channels
    t = torch.float32 if dtype == np.float32 else torch.float16
    logical = torch.full((blocks, n), float("nan"), dtype=t, device="cuda")
    physical = torch.full_like(logical, float("nan"))
    lc_dtype = lc.f32 if dtype == np.float32 else lc.f16
    k = make_im2col_loader(pixels, channels, lc_dtype, bits, base, lower, upper)
    run = lc.compile(k, act, at, logical, physical, block=32)
    run(act, at, logical, physical, grid=blocks)
    encodes = DESCRIPTORS.encodes
    run(act, at, logical, physical, grid=blocks)
    torch.cuda.synchronize()
    assert DESCRIPTORS.encodes == encodes
    logical, physical = logical.cpu().numpy(), physical.cpu().numpy()
    box = Im2colBox(
        "f32" if dtype == np.float32 else "f16", channels, pixels, lower[::-1], upper[::-1]
    )
    for b, row in enumerate(at_host):
        first, taps = row[: spatial + 2], row[spatial + 2 :]
        want = im2col_load(act_host, box, tuple(int(x) for x in first[::-1]),
                           tuple(int(x) for x in taps[::-1])).reshape(-1)  # fmt: skip
        np.testing.assert_array_equal(logical[b], want)
        np.testing.assert_array_equal(physical[b], hardware_swizzle(want, span))


def test_the_multicast_im2col_load_assembles_and_needs_its_op():
    from im2col_kernels import make_im2col_multicast

    act = np.zeros((4, 6, 4, 4, 64), np.float32)
    at = np.zeros((4, 8), np.int32)
    out = np.zeros((4, 1024), np.float32)
    k = make_im2col_multicast(16, 32, (0, 0, 0), (-2, -2, -2))
    ck = lc.compile(k, act, at, out, block=32, target="sm_90a", cache=False)
    assert ".global.im2col.mbarrier::complete_tx::bytes.multicast::cluster" in ck.ptx
    if nvjitlink_version() is not None:
        from layoutc.codegen.cubin import ptx_to_cubin

        assert ptx_to_cubin(ck.ptx, "sm_90a").cubin[:4] == b"\x7fELF"

    @lc.kernel
    def unicast_with_mask(act: NDHWC, out: lc.Tensor):
        tma = lc.make_im2col_tma_copy("SM90_TMA_LOAD_IM2COL", act, DENSE, (0, 0, 0), (-2,) * 3)
        buf = lc.smem_tensor(lc.f32, DENSE, align=128)
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        lc.tma_copy(tma, (0, 0, 0, 0, 0), buf, mbar=bar, mcast_mask=3, offsets=(0, 0, 0))

    with pytest.raises(lc.CompileError, match="mcast_mask needs an SM90_TMA_LOAD_IM2COL_MULTICAST"):
        lc.compile(unicast_with_mask, act, out, target="cpu", cache=False)


@pytest.mark.gpu
def test_im2col_multicast_on_the_gpu_fills_both_blocks_of_the_cluster():
    """The multicast im2col load of test_tma_im2col_cpu.py on the GPU: each block of a
    cluster of two issues one load into both (``.multicast::cluster``, mask 3) and both hold
    the two loads, as the model says (example 59's box: 16 pixels of 32 channels)."""
    import torch
    from im2col_kernels import make_im2col_multicast

    rng = np.random.default_rng(22)
    shape, lower, upper = (4, 6, 4, 4, 64), (0, 0, 0), (-2, -2, -2)
    act_host = rng.standard_normal(shape).astype(np.float32)
    at_host = _rows(shape, 3, lower, upper, rng, 6)
    act, at = torch.from_numpy(act_host).cuda(), torch.from_numpy(at_host).cuda()
    out = torch.full((6, 2 * 16 * 32), float("nan"), device="cuda")
    k = make_im2col_multicast(16, 32, lower, upper)
    lc.compile(k, act, at, out, block=32)(act, at, out, grid=6, cluster=2)
    torch.cuda.synchronize()
    box = Im2colBox("f32", 32, 16, lower, upper)
    loads = [
        im2col_load(act_host, box, tuple(int(x) for x in row[:5][::-1]),
                    tuple(int(x) for x in row[5:][::-1])).reshape(-1)
        for row in at_host
    ]  # fmt: skip
    got = out.cpu().numpy()
    for b in range(6):  # both blocks of cluster c hold the loads of rows 2c and 2c + 1
        c = b // 2
        np.testing.assert_array_equal(got[b], np.concatenate(loads[2 * c : 2 * c + 2]))


@pytest.mark.gpu
def test_strided_im2col_loads_on_the_gpu_match_the_model():
    """test_tma_im2col_cpu.py's strided loads (traversal strides W 2, H 3: the descriptor's
    elementStrides) on the GPU, against the model: the pixels advance by the strides and wrap
    to the lower corner and into the next image as modelled."""
    import torch

    rng = np.random.default_rng(31)
    shape, lower, upper, stride = (2, 4, 7, 9, 32), (0, -1, -1), (-1, -1, -1), (1, 3, 2)
    act_host = rng.standard_normal(shape).astype(np.float32)
    at_host = np.array([[0, 0, -1, -1, 0, 0, 0, 0], [1, 2, 2, 5, 0, 1, 2, 1],
                        [1, 2, 5, 7, 0, 1, 1, 2]], np.int32)  # fmt: skip
    act, at = torch.from_numpy(act_host).cuda(), torch.from_numpy(at_host).cuda()
    logical = torch.full((3, 32 * 32), float("nan"), device="cuda")
    physical = torch.full_like(logical, float("nan"))
    k = make_im2col_loader(32, 32, lc.f32, 3, 2, lower, upper, traversal_stride=stride)
    lc.compile(k, act, at, logical, physical, block=32)(act, at, logical, physical, grid=3)
    torch.cuda.synchronize()
    box = Im2colBox("f32", 32, 32, lower[::-1], upper[::-1], 0, stride[::-1])
    got = logical.cpu().numpy()
    for b, row in enumerate(at_host):
        want = im2col_load(act_host, box, tuple(int(x) for x in row[:5][::-1]),
                           tuple(int(x) for x in row[5:][::-1])).reshape(-1)  # fmt: skip
        np.testing.assert_array_equal(got[b], want)
