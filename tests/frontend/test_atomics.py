"""CUDA's atomic functions on tensor elements (lc.atomic_add and friends), against numpy: on
global and shared memory, on the CPU runtime (whose threads really race) and the GPU where
there is one; the PTX for sm_80/sm_90 uses atom/red; misuse is a diagnostic at the call."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _run(kernel, *args, grid, block, target="cpu"):
    ck = lc.compile(kernel, *args, target=target, block=block, cache=False)
    ck(*args, grid=grid, block=block)
    return ck


@lc.kernel
def integer_atomics(x: lc.Tensor, out: lc.Tensor, old: lc.Tensor):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    v = x[i]
    lc.atomic_add(out, v % 8, 1)  # a histogram: a data-dependent element
    lc.atomic_max(out, 8, v)
    lc.atomic_min(out, 9, v)
    lc.atomic_sub(out, 10, v)
    lc.atomic_or(out, 11, 1 << (v % 31))
    lc.atomic_and(out, 12, ~(1 << (v % 31)))
    lc.atomic_xor(out, 13, v)
    lc.atomic_exch(out, 14, 7)
    old[i] = lc.atomic_cas(out, 15, 0, i + 1)  # exactly one thread finds 0


@pytest.mark.parametrize("target", TARGETS)
def test_integer_atomics(target):
    x = np.random.default_rng(0).integers(0, 1000, 512).astype(np.int32)
    out = np.zeros(16, np.int32)
    out[9], out[12] = 1 << 30, -1
    old = np.full(512, -1, np.int32)
    _run(integer_atomics, x, out, old, grid=4, block=128, target=target)
    np.testing.assert_array_equal(out[:8], np.bincount(x % 8, minlength=8))
    assert out[8] == x.max() and out[9] == x.min() and out[10] == -x.sum()
    bits = np.bitwise_or.reduce(np.left_shift(1, x % 31))
    assert out[11] == bits and out[12] == ~bits
    assert out[13] == np.bitwise_xor.reduce(x) and out[14] == 7
    winners = np.nonzero(old == 0)[0]
    assert len(winners) == 1 and out[15] == winners[0] + 1
    assert set(old[old != 0]) <= set(range(1, 513))  # the others saw some winner's value


@lc.kernel
def float_and_wide_atomics(x: lc.Tensor, sums: lc.Tensor, wide: lc.Tensor, halves: lc.Tensor):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    lc.atomic_add(sums, 0, x[i])
    lc.atomic_add(halves, i % 2, 0.5)  # CUDA's atomicAdd(__half*, __half) (sm_70+)
    lc.atomic_add(wide, 0, lc.i64(i) * 3_000_000_000)
    lc.atomic_exch(sums, 1, 2.5)


@pytest.mark.parametrize("target", TARGETS)
def test_float_and_i64_atomics(target):
    x = np.arange(256, dtype=np.float32) / 4  # exact in any order of addition
    sums = np.zeros(2, np.float32)
    wide = np.zeros(1, np.int64)
    halves = np.zeros(2, np.float16)
    _run(float_and_wide_atomics, x, sums, wide, halves, grid=2, block=128, target=target)
    assert sums[0] == x.sum() and sums[1] == 2.5
    assert list(halves) == [64.0, 64.0]  # 128 halves of 0.5 each, exact in f16
    assert wide[0] == sum(i * 3_000_000_000 for i in range(256))


@lc.kernel
def block_histogram(x: lc.Tensor, bins: lc.Tensor):
    tid, bid = lc.thread_idx.x, lc.block_idx.x
    s = lc.smem_tensor(lc.i32, lc.make_layout(16))
    if tid < 16:
        s[tid] = 0
    lc.syncthreads()
    lc.atomic_add(s, x[bid * 128 + tid] % 16, 1)
    lc.syncthreads()
    if tid < 16:
        lc.atomic_add(bins, tid, s[tid])


@pytest.mark.parametrize("target", TARGETS)
def test_shared_memory_atomics(target):
    x = np.random.default_rng(1).integers(0, 10_000, 1024).astype(np.int32)
    bins = np.zeros(16, np.int32)
    _run(block_histogram, x, bins, grid=8, block=128, target=target)
    np.testing.assert_array_equal(bins, np.bincount(x % 16, minlength=16))


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx_uses_atom_instructions(arch):
    x = np.zeros(512, np.int32)
    ck = lc.compile(integer_atomics, x, x[:16], x, block=128, target=arch, cache=False)
    found = {line.split()[0] for line in ck.ptx.splitlines() if line.strip().startswith("atom.")}
    for kind in ("add.u32", "max.s32", "min.s32", "or.b32", "and.b32", "xor.b32", "exch.b32"):
        assert f"atom.global.{kind}" in found, (kind, found)  # atomicSub is an add of -v
    assert found & {"atom.global.cas.b32", "atom.relaxed.gpu.global.cas.b32"}, found
    assert ck.cubin
    ck = lc.compile(block_histogram, x, x[:16], block=128, target=arch, cache=False)
    assert "atom.shared.add" in ck.ptx and ck.cubin
    f = np.zeros(256, np.float32)
    ck = lc.compile(
        float_and_wide_atomics,
        f,
        f[:2],
        np.zeros(1, np.int64),
        np.zeros(2, np.float16),
        block=128,
        target=arch,
        cache=False,
    )
    assert "atom.global.add.f32" in ck.ptx and ".u64" in ck.ptx and ck.cubin
    assert "atom.global.add.noftz.f16" in ck.ptx


def _diagnostic(body, *args):
    with pytest.raises(lc.CompileError) as info:
        body.trace(body.specialize(*args, block=32))
    return str(info.value)


def test_atomic_diagnostics():
    @lc.kernel
    def on_registers(t: lc.Tensor):
        f = lc.make_fragment((4,), lc.i32)
        lc.atomic_add(f, 0, 1)

    msg = _diagnostic(on_registers, np.zeros(4, np.int32))
    assert "test_atomics.py" in msg and "a register fragment is private to its thread" in msg

    @lc.kernel
    def on_halves(t: lc.Tensor):
        lc.atomic_add(t, 0, 1.0)

    msg = _diagnostic(on_halves, np.zeros(4, np.int16))
    assert "atomic add supports f16, f32, f64, i32, i64 elements (as CUDA's), not i16" in msg

    @lc.kernel
    def float_max(t: lc.Tensor):
        lc.atomic_max(t, 0, 1.0)

    assert "atomic max supports i32, i64" in _diagnostic(float_max, np.zeros(4, np.float32))

    @lc.kernel
    def on_slice(t: lc.Tensor):
        lc.atomic_add(t, lc._, 1)

    assert "an atomic updates one element" in _diagnostic(on_slice, np.zeros(4, np.int32))

    @lc.kernel
    def on_coords(t: lc.Tensor):
        lc.atomic_add(lc.make_identity_tensor((4,)), 0, 1)

    assert "a coordinate tensor has no memory" in _diagnostic(on_coords, np.zeros(4, np.int32))


@lc.kernel
def scatter(x: lc.Tensor, out: lc.Tensor):
    i = lc.thread_idx.x
    out[x[i] % 8] = i  # a store whose address depends on a loaded value


def test_store_at_a_loaded_index():
    """lower-layouts rewrote the load and then emitted the store's address from the erased
    value (an internal verifier error); the address now follows the rewritten load."""
    x = np.array([3] * 32, np.int32)
    out = np.full(8, -1, np.int32)
    _run(scatter, x, out, grid=1, block=32)
    assert 0 <= out[3] < 32 and (np.delete(out, 3) == -1).all()


def test_threadfence_orders_a_flag_handoff_between_blocks():
    """``lc.threadfence()`` (``__threadfence``) with relaxed exchanges: block ``b`` waits
    for block ``b - 1``'s flag (exchange with 0 rearms it), fences, reads its data; then
    publishes its own (data, block barrier, fence, flag). On the CPU runtime blocks run
    concurrently on worker threads, a block waiting only for a lower one; the PTX fences
    with ``membar.gl``."""

    @lc.kernel
    def handoff(data: lc.Tensor, flags: lc.Tensor, out: lc.Tensor):
        b, t = lc.block_idx.x, lc.thread_idx.x
        if b > 0:
            if t == 0:
                while lc.atomic_exch(flags, b - 1, 0) == 0:
                    pass
                lc.threadfence()
            lc.syncthreads()
            out[b * 32 + t] = data[(b - 1) * 32 + t] + 1.0
        data[b * 32 + t] = 1.0 * (b * 32 + t)
        lc.syncthreads()
        if t == 0:
            lc.threadfence()
            lc.atomic_exch(flags, b, 1)

    grid = 6
    data = np.zeros(grid * 32, np.float32)
    flags = np.zeros(grid, np.int32)
    out = np.zeros(grid * 32, np.float32)
    run = lc.compile(handoff, data, flags, out, block=32, target="cpu")
    for _ in range(2):  # the flags were rearmed: the second launch waits again
        out[:] = 0
        run(data, flags, out, grid=grid, block=32)
        np.testing.assert_array_equal(out[32:], np.arange(grid * 32 - 32) + 1.0)
        assert flags.tolist() == [0] * (grid - 1) + [1]
        flags[:] = 0
    ptx = lc.compile(handoff, data, flags, out, block=32, target="sm_90").ptx
    assert ptx.count("membar.gl;") == 2 and ptx.count("atom.global.exch.b32") == 2
