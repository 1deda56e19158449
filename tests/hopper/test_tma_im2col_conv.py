"""A strided, dilated, padded convolution through TMA im2col loads (tests/hopper/
im2col_kernels.py's ``make_im2col_conv``): ``lc.make_im2col_tma_copy`` with
``traversal_stride=``, ``dilation=``, ``filter_shape=`` and ``padding=`` derives the corners
and the output shape as CuTe does; on the CPU runtime the result is a numpy convolution's, on a
GPU (marked) ``torch.nn.functional.conv3d``'s / ``conv2d``'s, so the hardware's traversal
strides and zero fill are checked against the CPU model. The kernels assemble for sm_90a."""

import itertools
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from im2col_kernels import make_im2col_conv
from layoutc.codegen.cubin import nvjitlink_version

# (name, activation shape N-spatial-C, K, filter, stride, dilation, padding (lower, upper))
CASES = [
    ("conv3d", (2, 5, 6, 7, 8), 8, (2, 3, 3), (1, 2, 2), (2, 1, 1), ((1, 1, 0), (1, 1, 0))),
    ("conv2d", (3, 7, 9, 4), 4, (3, 3), (2, 3), (1, 2), ((1, 2), (0, 1))),
    ("conv1d", (2, 19, 8), 4, (4,), (3,), (2,), ((3,), (2,))),
]
IDS = [c[0] for c in CASES]


def numpy_conv(act, w, stride, dilation, pad_lo, pad_hi):
    """Channels-last convolution fprop: ``w`` is (K, filter..., C); zero padding."""
    spatial = act.ndim - 2
    filt = w.shape[1:-1]
    padded = np.pad(act, [(0, 0), *zip(pad_lo, pad_hi), (0, 0)])
    outs = [(act.shape[1 + k] + pad_lo[k] + pad_hi[k] - (filt[k] - 1) * dilation[k] - 1)
            // stride[k] + 1 for k in range(spatial)]  # fmt: skip
    out = np.zeros((act.shape[0], *outs, w.shape[0]), np.float64)
    for tap in itertools.product(*(range(f) for f in filt)):
        window = tuple(
            slice(tap[k] * dilation[k], tap[k] * dilation[k] + (outs[k] - 1) * stride[k] + 1,
                  stride[k])
            for k in range(spatial)
        )  # fmt: skip
        out += np.einsum("n...c,kc->n...k", padded[(slice(None), *window)], w[(slice(None), *tap)])
    return out


def _problem(case, seed):
    _, shape, k_out, filt, stride, dilation, (pad_lo, pad_hi) = case
    rng = np.random.default_rng(seed)
    act = rng.integers(-4, 5, shape).astype(np.float32)  # exact in f32 whatever the order
    w = rng.integers(-3, 4, (k_out, *filt, shape[-1])).astype(np.float32)
    want = numpy_conv(act, w, stride, dilation, pad_lo, pad_hi)
    return act, w, want


def _compile(case, act, w, out, target):
    _, shape, k_out, filt, stride, dilation, padding = case
    k = make_im2col_conv(shape, k_out, filt, stride, dilation, padding)
    flt = w.reshape(w.shape[0], -1)
    return k, flt, lc.compile(k, act, flt, out, block=32, target=target, cache=False)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_strided_dilated_padded_convolution_on_the_cpu(case):
    act, w, want = _problem(case, 7)
    out = np.zeros((int(np.prod(want.shape[:-1])), w.shape[0]), np.float32)
    _, flt, run = _compile(case, act, w, out, "cpu")
    run(act, flt, out, grid=-(-out.shape[0] // 32))
    np.testing.assert_array_equal(out, want.reshape(out.shape))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_convolution_kernels_assemble_for_sm_90a(case):
    act, w, want = _problem(case, 7)
    out = np.zeros((int(np.prod(want.shape[:-1])), w.shape[0]), np.float32)
    _, _, ck = _compile(case, act, w, out, "sm_90a")
    assert ".global.im2col.mbarrier::complete_tx::bytes" in ck.ptx
    (desc,) = [p for p in ck.runtime_spec.params if p.kind == "tma"]
    assert desc.tma.traversal == (tuple(case[4][::-1]) if any(s != 1 for s in case[4]) else ())
    if nvjitlink_version() is not None:
        from layoutc.codegen.cubin import ptx_to_cubin

        assert ptx_to_cubin(ck.ptx, "sm_90a").cubin[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_strided_dilated_padded_convolution_on_the_gpu_matches_torch(case):
    """The same kernels on the GPU against torch's convolution (NC... layouts, asymmetric
    padding by padding the input first), and against the CPU runtime's result."""
    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("TMA im2col needs an sm_90 GPU")
    _, shape, k_out, filt, stride, dilation, (pad_lo, pad_hi) = case
    act, w, want = _problem(case, 11)
    m = int(np.prod(want.shape[:-1]))
    dev_act = torch.from_numpy(act).cuda()
    flt = torch.from_numpy(w.reshape(k_out, -1)).cuda()
    out = torch.zeros((m, k_out), device="cuda")
    run = lc.compile(make_im2col_conv(shape, k_out, filt, stride, dilation, (pad_lo, pad_hi)), dev_act, flt,
                     out, block=32)  # fmt: skip
    run(dev_act, flt, out, grid=-(-m // 32))
    torch.cuda.synchronize()
    got = out.cpu().numpy().reshape(want.shape)
    spatial = len(filt)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[spatial]
    x = torch.from_numpy(act).double().movedim(-1, 1)  # N C spatial...
    pads = [p for k in reversed(range(spatial)) for p in (pad_lo[k], pad_hi[k])]
    x = F.pad(x, pads)
    wt = torch.from_numpy(w).double().movedim(-1, 1)  # K C filter...
    ref = conv(x, wt, stride=stride, dilation=dilation).movedim(1, -1).numpy()
    np.testing.assert_array_equal(ref, want)  # the numpy reference is torch's convolution
    np.testing.assert_array_equal(got, want)
    cpu_out = np.zeros((m, k_out), np.float32)
    lc.compile(make_im2col_conv(shape, k_out, filt, stride, dilation, (pad_lo, pad_hi)), act,
               w.reshape(k_out, -1), cpu_out, block=32, target="cpu")(
        act, w.reshape(k_out, -1), cpu_out, grid=-(-m // 32))  # fmt: skip
    np.testing.assert_array_equal(cpu_out.reshape(want.shape), got)


ACT5 = lc.Tensor(lc.f32, "(N,5,6,7,8):(1680,336,56,8,1)")


def _refused(**kwargs):
    sl = lc.make_layout((32, 8), (8, 1))

    @lc.kernel
    def refused(act: ACT5):
        lc.make_im2col_tma_copy("SM90_TMA_LOAD_IM2COL", act, sl, **kwargs)

    return refused


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lower_corner": 0, "upper_corner": -1, "traversal_stride": (1, 9, 1)},
         r"traversal strides \(elementStrides\) must be in \[1, 8\]; got traversal_stride "
         r"\(1, 9, 1\)"),
        ({"lower_corner": 0, "upper_corner": -1, "dilation": 0},
         r"dilation must be at least 1 per dimension, got \(0, 0, 0\)"),
        ({"filter_shape": (3, 3, 3), "padding": 1, "dilation": 2, "lower_corner": -1,
          "upper_corner": -1},
         r"the corners \(-1, -1, -1\), \(-1, -1, -1\) disagree with filter_shape \(3, 3, 3\), "
         r"padding \(1, 1, 1\)/\(1, 1, 1\) and dilation \(2, 2, 2\), which give lower -padding "
         r"= \(-1, -1, -1\) and upper padding - \(filter - 1\) \* dilation = \(-3, -3, -3\)"),
        ({"padding": 1, "lower_corner": 0, "upper_corner": 0},
         r"padding= derives the corners with filter_shape=; pass both"),
        ({}, r"give the bounding box: lower_corner and upper_corner, or filter_shape="),
        ({"filter_shape": (3, 9, 3)},
         r"spatial mode 2 \(extent 6\) has an empty bounding box \[0, -3\]"),
        ({"filter_shape": (2, 2)}, r"filter_shape must give a static int per spatial dimension"),
        ({"filter_shape": 2, "padding": 17}, r"corners must be in \[-16, 15\]"),
    ],
)  # fmt: skip
def test_convolution_parameters_that_break_the_rules_are_refused(kwargs, message):
    act = np.zeros((2, 5, 6, 7, 8), np.float32)
    with pytest.raises(lc.CompileError, match=message):
        lc.compile(_refused(**kwargs), act, target="cpu", cache=False)


def test_output_shape_and_first_pixel_follow_cute():
    """``output_shape`` is CuTe's ``(extent + upper - lower - 1) / stride + 1`` (torch's output
    size), ``first_pixel`` the output position's top-left pixel ``lower + pos * stride``."""
    seen = {}
    sl = lc.make_layout((32, 8), (8, 1))

    @lc.kernel
    def shapes(act: ACT5):
        tma = lc.make_im2col_tma_copy(
            "SM90_TMA_LOAD_IM2COL", act, sl, traversal_stride=(1, 2, 3), dilation=(2, 1, 1),
            filter_shape=(2, 3, 3), padding=((1, 1, 0), (1, 2, 2)),
        )  # fmt: skip
        seen["shape"] = tma.output_shape[1:]
        seen["pixel"] = tma.first_pixel((1, 2, 1, 2), 16)
        seen["copy"] = repr(tma)

    lc.compile(shapes, np.zeros((2, 5, 6, 7, 8), np.float32), target="cpu", cache=False)
    # torch: (extent + pad_lo + pad_hi - dilation * (filter - 1) - 1) // stride + 1
    assert seen["shape"] == ((5 + 2 - 2 - 1) // 1 + 1, (6 + 3 - 2 - 1) // 2 + 1,
                             (7 + 2 - 2 - 1) // 3 + 1)  # fmt: skip
    assert seen["pixel"] == (1, -1 + 2, -1 + 2, 0 + 2 * 3, 16)
    assert "traversal=(1, 2, 3) dilation=(2, 1, 1)" in seen["copy"]


@pytest.mark.gpu
def test_the_convolution_runs_from_an_aot_artifact_on_the_gpu(tmp_path):
    """``layoutc compile`` writes the strided convolution's artifact (its manifest carries the
    im2col descriptor with its traversal strides); ``layoutc.runtime.load`` launches it and
    encodes the descriptor as a JIT launch does."""
    import torch
    from layoutc.cli.main import main
    from layoutc.runtime import load

    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("TMA im2col needs an sm_90 GPU")
    case = CASES[0]
    _, shape, k_out, filt, stride, dilation, padding = case
    src = tmp_path / "convk.py"
    src.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from im2col_kernels import make_im2col_conv\n"
        f"conv = make_im2col_conv({shape!r}, {k_out}, {filt!r}, {stride!r}, {dilation!r}, "
        f"{padding!r})\n"
    )
    assert main(["compile", f"{src}::conv", "--target", "sm_90a", "-o", str(tmp_path / "a")]) == 0
    act, w, want = _problem(case, 13)
    m = int(np.prod(want.shape[:-1]))
    dev_act = torch.from_numpy(act).cuda()
    flt = torch.from_numpy(np.ascontiguousarray(w.reshape(k_out, -1))).cuda()
    out = torch.zeros((m, k_out), device="cuda")
    load(tmp_path / "a").im2col_conv(dev_act, flt, out, grid=-(-m // 32), block=32)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy().reshape(want.shape), want)


def test_the_artifact_abi_check_counts_a_descriptor_as_128_bytes(tmp_path):
    """The loader compares the manifest's parameter sizes with the code's before it touches the
    driver: a TMA descriptor parameter is 128 bytes in the code, and the manifest's rule must say
    so too (it once said the source tensor's element size, so no artifact with a TMA parameter
    loaded on a GPU)."""
    from layoutc.cli.main import main
    from layoutc.runtime.abi import KernelSpec
    from layoutc.runtime.artifact import (
        check_code_abi,
        read_manifest,
        read_variant_file,
    )

    _, shape, k_out, filt, stride, dilation, padding = CASES[0]
    src = tmp_path / "convk.py"
    src.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from im2col_kernels import make_im2col_conv\n"
        f"conv = make_im2col_conv({shape!r}, {k_out}, {filt!r}, {stride!r}, {dilation!r}, "
        f"{padding!r})\n"
    )
    assert main(["compile", f"{src}::conv", "--target", "sm_90a", "-o", str(tmp_path / "a")]) == 0
    root = tmp_path / "a"
    checked = []
    for entry in read_manifest(root)["kernels"]:
        spec = KernelSpec.from_json(entry)
        assert any(p.kind == "tma" for p in spec.params)
        for variant in entry["variants"]:
            for kind, file_entry in variant["files"].items():
                image = read_variant_file(root, spec.name, file_entry)
                check_code_abi(spec, image, kind, f"{spec.name} {kind}")
                checked.append(kind)
    assert sorted(set(checked)) == ["cubin", "ptx"]


OUT5 = lc.Tensor(lc.f32, "(N,5,3,3,4):(180,36,12,4,1)")
OUT5_WRONG = lc.Tensor(lc.f32, "(N,5,3,4,4):(240,48,16,4,1)")
OUT5_M = lc.Tensor(lc.f32, "(M,5,3,3,4):(180,36,12,4,1)")


@pytest.mark.parametrize(
    ("out_spec", "message"),
    [
        (OUT5, None),
        (OUT5_WRONG, r"the output's spatial extents \(5, 3, 4\) are not the convolution's "
                     r"\(5, 3, 3\) \(\(extent \+ upper - lower - 1\) // stride \+ 1 with extents "
                     r"\(5, 6, 7\), corners \(-1, -1, 0\), \(-1, -1, -2\), traversal stride "
                     r"\(1, 2, 2\)\)"),
        (OUT5_M, r"the output's image count M is not the activation's N"),
    ],
    ids=["agrees", "spatial", "images"],
)  # fmt: skip
def test_the_output_tensor_is_checked_against_the_convolution(out_spec, message):
    """``output=``: the output tensor's (N, spatial...) must be the box's positions (CuTe's
    ``gemm_mn``) and the activation's images."""
    sl = lc.make_layout((32, 8), (8, 1))

    @lc.kernel
    def checked(act: ACT5, out: out_spec):
        lc.make_im2col_tma_copy(
            "SM90_TMA_LOAD_IM2COL", act, sl, traversal_stride=(1, 2, 2), dilation=(2, 1, 1),
            filter_shape=(2, 3, 3), padding=((1, 1, 0), (1, 1, 0)), output=out,
        )  # fmt: skip

    act = np.zeros((2, 5, 6, 7, 8), np.float32)
    out = np.zeros((2, 5, 3, 4, 4) if out_spec is OUT5_WRONG else (2, 5, 3, 3, 4), np.float32)
    if message is None:
        assert lc.compile(checked, act, out, target="cpu", cache=False) is not None
    else:
        with pytest.raises(lc.CompileError, match=message):
            lc.compile(checked, act, out, target="cpu", cache=False)
