"""TMA im2col (runtime/tma_im2col.py): the model of one load's box against numpy's windows of
example 59's activation (no padding), of a padded convolution (zeros outside), of a box that
starts mid-image and wraps into the next image, and against the im2col *layout* of
examples/conv3d_fprop.py evaluated by the algebra; the descriptor's rules; on an H100 the
driver encodes the descriptor example 59's dense Hopper kernel would use."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.tma_im2col import Im2colBox, check_im2col_rules, encode_im2col, im2col_load

D, H, W, C = 6, 4, 4, 64
T = R = S = 3
Z, P, Q = D - T + 1, H - R + 1, W - S + 1
# example 59: no padding; the box of top-left pixels is [0, extent - 3] per spatial dimension
CONV = Im2colBox("f32", channels=32, pixels=2 * Z * P * Q, lower=(0, 0, 0), upper=(-2, -2, -2))


def _activation(n, seed):
    return np.random.default_rng(seed).standard_normal((n, D, H, W, C)).astype(np.float32)


@pytest.mark.parametrize(("c0", "t", "r", "s", "n0"), [(0, 0, 0, 0, 0), (32, 2, 1, 0, 2),
                                                       (0, 1, 2, 2, 1)])  # fmt: skip
def test_a_load_is_a_k_block_of_the_im2col_matrix(c0, t, r, s, n0):
    act = _activation(4, 1)
    got = im2col_load(act, CONV, (c0, 0, 0, 0, n0), (s, r, t))
    # rows: output positions (q, p, z, n) with q fastest; columns: 32 channels of tap (t,r,s)
    window = act[n0 : n0 + 2, t : t + Z, r : r + P, s : s + Q, c0 : c0 + 32]
    np.testing.assert_array_equal(got, window.reshape(-1, 32))


def test_padding_reads_zeros_outside_the_tensor():
    act = _activation(2, 2)
    pad = 1  # "same" convolution: output extents = input extents
    box = Im2colBox("f32", channels=16, pixels=D * H * W, lower=(-pad,) * 3, upper=(pad - 2,) * 3)
    padded = np.pad(act, ((0, 0), (pad, pad), (pad, pad), (pad, pad), (0, 0)))
    for t, r, s in [(0, 0, 0), (1, 2, 0), (2, 2, 2)]:
        got = im2col_load(act, box, (8, -pad, -pad, -pad, 1), (s, r, t))
        want = padded[1, t : t + D, r : r + H, s : s + W, 8:24]
        np.testing.assert_array_equal(got, want.reshape(-1, 16))


def test_a_box_starting_mid_image_wraps_into_the_next_image():
    act = _activation(3, 3)
    got = im2col_load(act, CONV, (0, 1, 1, 3, 0), (0, 0, 0))  # pixel (q,p,z) = (1,1,3), n=0
    want = act[:, :Z, :P, :Q, :32].reshape(-1, 32)[15 : 15 + CONV.pixels]
    np.testing.assert_array_equal(got, want)
    past = im2col_load(act, CONV, (48, 0, 0, 0, 2), (0, 0, 0))  # channels 48..79, image 2..3
    np.testing.assert_array_equal(past[:16, :16], act[2, :Z, :P, :Q, 48:].reshape(-1, 16))
    assert not past[:, 16:].any() and not past[16:].any()  # channels >= 64, image 3: zeros


def test_the_load_matches_example_59s_im2col_layout():
    """Element (pixel j, channel c) of the load for K-block (c0, t, r, s) is the activation at
    the im2col layout's offset of ((q,p,z,n), (c0+c, t, r, s)): the layout of
    examples/conv3d_fprop.py (positions ordered (Q,P,Z,N), as TMA walks them)."""
    from layoutc.ir.algebra import make_layout

    n = 2
    act = _activation(n, 4)
    sn, sd, sh, sw = D * H * W * C, H * W * C, W * C, C
    im2col = make_layout(((Q, P, Z, n), (C, T, R, S)), ((sw, sh, sd, sn), (1, sd, sh, sw)))
    flat = act.reshape(-1)
    for c0, t, r, s in [(0, 0, 0, 0), (32, 1, 2, 1)]:
        got = im2col_load(act, CONV, (c0, 0, 0, 0, 0), (s, r, t))
        for j in range(0, CONV.pixels, 5):
            q, p, z, m = j % Q, j // Q % P, j // (Q * P) % Z, j // (Q * P * Z)
            for c in range(0, 32, 7):
                assert got[j, c] == flat[im2col(((q, p, z, m), (c0 + c, t, r, s)))]


def _rules(box, extents=(C, W, H, D, 8), address=256):
    strides = (4, C * 4, W * C * 4, H * W * C * 4, D * H * W * C * 4)
    check_im2col_rules("activation", box, address, extents, strides)


def test_the_descriptor_rules_are_checked_with_the_value():
    _rules(CONV)
    with pytest.raises(ArgumentError, match=r"rank-5 tensor's box corners must be in \[-16, 15\]"):
        _rules(Im2colBox("f32", 32, 32, lower=(-17, 0, 0), upper=(0, 0, 0)))
    with pytest.raises(ArgumentError, match=r"pixels per column in \[1, 1024\]; got 32 and 2048"):
        _rules(Im2colBox("f32", 32, 2048, lower=(0, 0, 0), upper=(0, 0, 0)))
    with pytest.raises(ArgumentError, match="empty bounding box"):
        _rules(Im2colBox("f32", 32, 32, lower=(0, 0, 0), upper=(-4, 0, 0)))
    with pytest.raises(ArgumentError, match="16-byte aligned"):
        _rules(CONV, address=260)
    with pytest.raises(ArgumentError, match="swizzle the box's inner extent must be at most 64"):
        _rules(Im2colBox("f32", 32, 32, lower=(0, 0, 0), upper=(-2, -2, -2), swizzle=64))


@pytest.mark.gpu
def test_the_driver_encodes_example_59s_im2col_descriptor():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("TMA needs an sm_90 GPU")
    act = torch.zeros((8, D, H, W, C), device="cuda")
    extents = (C, W, H, D, 8)
    strides = (4, C * 4, W * C * 4, H * W * C * 4, D * H * W * C * 4)
    box = Im2colBox("tf32", channels=32, pixels=256, lower=(0, 0, 0), upper=(-2, -2, -2),
                    swizzle=128)  # fmt: skip
    check_im2col_rules("activation", box, act.data_ptr(), extents, strides)
    data = encode_im2col(box, act.data_ptr(), extents, strides)
    assert len(data) == 128 and any(data)


# -- strides, dilation and padding: the model against a numpy convolution gather --------------


def conv_corners(filt, pad_lo, pad_hi, dilation):
    """A convolution's bounding box, spatial dimensions innermost first: the output
    positions' top-left pixels, ``[-pad_lo, extent - 1 + pad_hi - (filter - 1) * dilation]``."""
    lower = tuple(-p for p in pad_lo)
    upper = tuple(p - (f - 1) * d for f, p, d in zip(filt, pad_hi, dilation))
    return lower, upper


def numpy_im2col(act, filt, stride, pad_lo, pad_hi, dilation):
    """The im2col matrix of a convolution, written independently of the model: rows are the
    output positions (spatial innermost fastest, then N), columns (tap, channel) with the tap
    innermost-first-fastest; the activation zero padded."""
    spatial = act.ndim - 2
    ext = act.shape[1:-1][::-1]  # innermost first
    outs = [(e + lo + hi - (f - 1) * d - 1) // s + 1
            for e, f, s, lo, hi, d in zip(ext, filt, stride, pad_lo, pad_hi, dilation)]  # fmt: skip
    widths = [(0, 0)] + [(pad_lo[k], max(pad_hi[k], 0) + 8 * stride[k])
                         for k in reversed(range(spatial))] + [(0, 0)]  # fmt: skip
    padded = np.pad(act, [(max(0, a), b) for a, b in widths])
    rows = {}
    for n in range(act.shape[0]):
        for pos in np.ndindex(*outs[::-1]):  # outermost first
            pos = pos[::-1]  # innermost first
            for tap in np.ndindex(*filt[::-1]):
                tap = tap[::-1]
                at = [pos[k] * stride[k] + tap[k] * dilation[k] for k in range(spatial)]
                rows.setdefault((n, pos), {})[tap] = padded[(n, *at[::-1])]
    return outs, rows


@pytest.mark.parametrize("seed", range(3))
def test_strided_dilated_padded_loads_are_the_numpy_im2col_gather(seed):
    """Hypothesis-free sweep over a few fixed seeds (see the property test below for more):
    each load of the whole output for one tap is the numpy gather's column block."""
    _check_random_conv(np.random.default_rng(100 + seed))


def _check_random_conv(rng):
    spatial = int(rng.integers(1, 4))
    n = int(rng.integers(1, 3))
    c = int(rng.choice([4, 8]))
    ext = tuple(int(rng.integers(3, 8)) for _ in range(spatial))  # innermost first
    filt = tuple(int(rng.integers(1, 4)) for _ in range(spatial))
    dilation = tuple(int(rng.integers(1, 3)) for _ in range(spatial))
    stride = tuple(int(rng.integers(1, 4)) for _ in range(spatial))
    pad_lo = tuple(int(rng.integers(0, 3)) for _ in range(spatial))
    pad_hi = tuple(int(rng.integers(0, 3)) for _ in range(spatial))
    # the output must be non-empty: grow the extents that are too small for the filter
    ext = tuple(max(e, (f - 1) * d + 1 - lo - hi)
                for e, f, d, lo, hi in zip(ext, filt, dilation, pad_lo, pad_hi))  # fmt: skip
    act = rng.standard_normal((n, *ext[::-1], c)).astype(np.float32)
    lower, upper = conv_corners(filt, pad_lo, pad_hi, dilation)
    outs, rows = numpy_im2col(act, filt, stride, pad_lo, pad_hi, dilation)
    total = n * int(np.prod(outs))
    box = Im2colBox("f32", c, total + 3, lower, upper, traversal=stride)
    assert box.output_extents((c, *ext, n)) == tuple(outs)
    order = [(m, pos[::-1]) for m in range(n) for pos in np.ndindex(*outs[::-1])]
    for tap in [tuple(int(rng.integers(0, f)) for f in filt) for _ in range(3)]:
        offsets = tuple(t * d for t, d in zip(tap, dilation))
        got = im2col_load(act, box, (0, *lower, 0), offsets)
        want = np.stack([rows[(m, pos)][tap] for m, pos in order])
        np.testing.assert_array_equal(got[:total], want)
        assert not got[total:].any()  # past the last image: zeros
        # a load from any output position walks on from there (wrapping into the next image)
        j = int(rng.integers(0, total))
        m, pos = order[j]
        first = tuple(lo + p * s for lo, p, s in zip(lower, pos, stride))
        got = im2col_load(act, box, (0, *first, m), offsets)
        np.testing.assert_array_equal(got[: total - j], want[j:])


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(st.integers(0, 2**32 - 1))
    def test_property_strided_dilated_padded_loads_match_numpy(seed):
        _check_random_conv(np.random.default_rng(seed))

except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass


def test_a_first_pixel_off_the_traversal_grid_is_refused():
    act = _activation(1, 5)
    box = Im2colBox("f32", 32, 4, (-1, -1, -1), (0, 0, 0), traversal=(2, 1, 1))
    im2col_load(act, box, (0, 1, 0, 0, 0), (0, 0, 0))  # W: -1 + 2
    with pytest.raises(ArgumentError, match=r"off the traversal grid: dimension 1 must be -1 "
                                            r"plus a multiple of its stride 2"):  # fmt: skip
        im2col_load(act, box, (0, 0, 0, 0, 0), (0, 0, 0))


def test_traversal_strides_are_checked_with_the_value():
    _rules(Im2colBox("f32", 32, 32, (0, 0, 0), (-2, -2, -2), traversal=(8, 1, 2)))
    with pytest.raises(ArgumentError, match=r"traversal strides \(elementStrides\) must be in "
                                            r"\[1, 8\], one per spatial dimension \(3\); got "
                                            r"\(9, 1, 1\)"):  # fmt: skip
        _rules(Im2colBox("f32", 32, 32, (0, 0, 0), (-2, -2, -2), traversal=(9, 1, 1)))
    with pytest.raises(ArgumentError, match=r"got \(2, 2\)"):
        _rules(Im2colBox("f32", 32, 32, (0, 0, 0), (-2, -2, -2), traversal=(2, 2)))


@pytest.mark.gpu
def test_the_driver_encodes_a_strided_padded_im2col_descriptor():
    """The driver takes traversal strides (elementStrides 1, 2, 3, 1, 1) with padding corners;
    the encoding differs from the unit-stride one."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("TMA needs an sm_90 GPU")
    act = torch.zeros((8, D, H, W, C), device="cuda")
    extents = (C, W, H, D, 8)
    strides = (4, C * 4, W * C * 4, H * W * C * 4, D * H * W * C * 4)
    plain = Im2colBox("f32", 32, 64, lower=(-1, -1, -1), upper=(-1, -1, -1))
    strided = Im2colBox("f32", 32, 64, (-1, -1, -1), (-1, -1, -1), traversal=(2, 3, 1))
    for box in (plain, strided):
        check_im2col_rules("activation", box, act.data_ptr(), extents, strides)
    a = encode_im2col(plain, act.data_ptr(), extents, strides)
    b = encode_im2col(strided, act.data_ptr(), extents, strides)
    assert len(b) == 128 and a != b
