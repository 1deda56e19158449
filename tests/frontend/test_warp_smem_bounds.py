"""Warp shuffles (``lc.shuffle_xor/down/up/idx`` over ``gpu.shuffle``), dynamic shared memory
(``lc.dynamic_smem_tensor``, sized at launch with ``smem=``) and launch bounds
(``@lc.kernel(min_blocks_per_sm=...)``): run on the CPU path against numpy models (and on the
GPU where there is one), and found in the PTX."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text

HERE = __file__
TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def build(kernel, *args, block, target="cpu"):
    return lc.compile(kernel, *args, block=block, target=target, cache=False)


# -- shuffles -------------------------------------------------------------------------------------


@lc.kernel(min_blocks_per_sm=2)
def warp_sums(x: lc.Tensor[lc.f32, "(N):(1)"], out: lc.Tensor[lc.f32, "(W):(1)"]):  # noqa: F722
    g = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    v = x[g]
    for mask in (16, 8, 4, 2, 1):  # butterfly: every lane ends with the warp's sum
        v = v + lc.shuffle_xor(v, mask)
    if lc.lane_idx() == 0:
        out[g // 32] = v


@pytest.mark.parametrize("target", TARGETS)
def test_a_warp_reduction_matches_numpy(target):
    x = np.random.default_rng(1).integers(-50, 50, 256).astype(np.float32)
    out = np.full(8, np.nan, np.float32)
    build(warp_sums, x, out, block=128, target=target)(x, out, grid=2, block=128)
    np.testing.assert_array_equal(out, x.reshape(8, 32).sum(1))


@lc.kernel
def shuffles(
    x: lc.Tensor[lc.i32, "(N):(1)"],  # noqa: F722
    f: lc.Tensor[lc.f64, "(N):(1)"],  # noqa: F722
    out: lc.Tensor[lc.i32, "(N,5):(5,1)"],  # noqa: F722
    fout: lc.Tensor[lc.f64, "(N):(1)"],  # noqa: F722
    delta: int,
):
    t = lc.thread_idx.x
    v = x[t]
    out[t, 0] = lc.shuffle_down(v, delta)
    out[t, 1] = lc.shuffle_up(v, 3, width=8)
    out[t, 2] = lc.shuffle_idx(v, 5)
    out[t, 3] = lc.shuffle_xor(v, 1, width=4)
    out[t, 4] = lc.shuffle_down(lc.thread_idx.x, 2)  # an index value travels as i64
    fout[t] = lc.shuffle_down(f[t], 1)  # 64-bit floats


def _model(values: np.ndarray, source, width: int) -> np.ndarray:
    """CUDA's __shfl_*_sync: lane l reads lane source(l) of its ``width``-lane segment, or
    keeps its own value when that lane is outside the segment."""
    out = values.copy()
    for lane in range(32):
        base = lane - lane % width
        src = source(lane % width)
        if 0 <= src < width:
            out[lane] = values[base + src]
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_shuffle_modes_match_cudas_semantics(target):
    x = (np.arange(32, dtype=np.int32) * 7 + 3) % 101
    f = np.linspace(-1, 1, 32)
    out = np.zeros((32, 5), np.int32)
    fout = np.zeros(32)
    build(shuffles, x, f, out, fout, 4, block=32, target=target)(x, f, out, fout, 4, grid=1)
    np.testing.assert_array_equal(out[:, 0], _model(x, lambda i: i + 4, 32))
    np.testing.assert_array_equal(out[:, 1], _model(x, lambda i: i - 3, 8))
    np.testing.assert_array_equal(out[:, 2], _model(x, lambda i: 5, 32))
    np.testing.assert_array_equal(out[:, 3], _model(x, lambda i: i ^ 1, 4))
    np.testing.assert_array_equal(out[:, 4], _model(np.arange(32), lambda i: i + 2, 32))
    np.testing.assert_array_equal(fout, _model(f, lambda i: i + 1, 32))


def test_shuffles_and_launch_bounds_in_the_ptx():
    x = np.zeros(32, np.int32)
    ptx = build(shuffles, x, np.zeros(32), np.zeros((32, 5), np.int32), np.zeros(32), 1,
                block=32, target="sm_80").ptx  # fmt: skip
    for mode in ("down", "up", "idx", "bfly"):
        assert f"shfl.sync.{mode}.b32" in ptx, mode
    ck = build(warp_sums, np.zeros(64, np.float32), np.zeros(2, np.float32), block=64,
               target="sm_80")  # fmt: skip
    assert ".minnctapersm 2" in ck.ptx
    assert ck.runtime_spec.launch_bounds.min_blocks == 2


@lc.kernel
def shuffle_a_tensor(x: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.shuffle_xor(x, 1)  # @shuffle-tensor


def test_shuffling_a_tensor_is_an_error():
    with pytest.raises(lc.CompileError) as info:
        shuffle_a_tensor.trace(shuffle_a_tensor.specialize(np.zeros(4, np.float32), block=32))
    assert str(info.value).startswith(
        f"{loc_text(HERE, '@shuffle-tensor', 'lc.shuffle_xor')}: error: lc.shuffle_xor shuffles "
        "a number"
    )


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_min_blocks_per_sm_must_be_a_positive_int(bad):
    with pytest.raises(TypeError, match="min_blocks_per_sm"):
        lc.kernel(min_blocks_per_sm=bad)(lambda: None)


# -- dynamic shared memory ------------------------------------------------------------------------


@lc.kernel
def reverse_blocks(x: lc.Tensor[lc.f32, "(N):(1)"], y: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    t, n = lc.thread_idx.x, lc.block_dim.x
    base = lc.block_idx.x * n
    s = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(n))  # static: block_dim is in the spec
    s[t] = x[base + t]
    lc.syncthreads()
    y[base + t] = s[n - 1 - t]


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_smem_of_static_size_is_the_launch_default(target):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    ck = build(reverse_blocks, x, y, block=64, target=target)
    assert ck.runtime_spec.dynamic_smem == 64 * 4 and ck.runtime_spec.static_smem == 0
    ck(x, y, grid=4, block=64)
    np.testing.assert_array_equal(y, x.reshape(4, 64)[:, ::-1].ravel())


@lc.kernel
def scaled_sum(x: lc.Tensor[lc.f64, "(N):(1)"], out: lc.Tensor[lc.f64, "(N):(1)"], m: int):  # noqa: F722
    t = lc.thread_idx.x
    flags = lc.dynamic_smem_tensor(lc.i32, lc.make_layout(4))  # 16 bytes, first
    stage = lc.dynamic_smem_tensor(lc.f64, lc.make_layout(m))  # m values, sized at launch
    if t < 4:
        flags[t] = t + 1
    for i in lc.range(t, m, lc.block_dim.x):
        stage[i] = x[i]
    lc.syncthreads()
    acc = lc.f64(0)
    for i in lc.range(m):
        acc = acc + stage[i]
    out[t] = acc * flags[t % 4]


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_smem_sized_at_launch(target):
    m = 40
    x = np.arange(m, dtype=np.float64)
    out = np.zeros(m)
    ck = build(scaled_sum, x, out, m, block=32, target=target)
    assert ck.runtime_spec.dynamic_smem == 16  # what the static part needs
    ck(x, out, m, grid=1, block=32, smem=16 + 8 * m)
    expected = x.sum() * (np.arange(32) % 4 + 1)
    np.testing.assert_array_equal(out[:32], expected)


def test_dynamic_smem_in_the_ptx():
    x = np.arange(64, dtype=np.float32)
    ptx = build(reverse_blocks, x, x.copy(), block=64, target="sm_80").ptx
    assert ".extern .shared .align 16 .b8 __dynamic_shmem__[]" in ptx


@lc.kernel
def after_dynamic(n: int):
    lc.dynamic_smem_tensor(lc.f32, lc.make_layout(n))
    lc.dynamic_smem_tensor(lc.f32, lc.make_layout(4))  # @after-dynamic


def test_a_tensor_after_one_of_dynamic_size_is_not_supported():
    with pytest.raises(lc.CompileError) as info:
        after_dynamic.trace(after_dynamic.specialize(8, block=32))
    assert str(info.value).startswith(
        f"{loc_text(HERE, '@after-dynamic', 'lc.dynamic_smem_tensor')}: error: not supported: "
        "a dynamic shared-memory tensor after one of dynamic size"
    )
