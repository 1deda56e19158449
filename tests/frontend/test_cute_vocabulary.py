"""CuTe vocabulary in kernels, run on the CPU backend (and the GPU where there is one) against
numpy: inner/outer_partition, make_tiled_copy_tv with CuTe's atom names, recast of global and
register tensors, transform/for_each, and register fragments indexed at run time (local
memory, with a remark); plus the PTX of the same kernels for sm_80 and sm_90."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _
from layoutc.codegen.cubin import nvjitlink_version

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _run(kernel, *args, grid, block, target="cpu"):
    ck = lc.compile(kernel, *args, target=target, block=block, cache=False)
    ck(*args, grid=grid, block=block)
    return ck


# ---------------------------------------------------------------------------------------------
# inner_partition / outer_partition + transform
# ---------------------------------------------------------------------------------------------


@lc.kernel
def scale_tiles(src: lc.Tensor, dst: lc.Tensor):
    bx, by, tid = lc.block_idx.x, lc.block_idx.y, lc.thread_idx.x
    gS = lc.inner_partition(src, (16, 8), (bx, by))  # the block's (16, 8) tile
    gD = lc.inner_partition(dst, (16, 8), (bx, by))
    thr = (tid % 4, tid // 4)  # a (4, 8) grid of threads, column-major
    tS = lc.outer_partition(gS, (4, 8), thr)  # (4, 1) elements per thread
    tD = lc.outer_partition(gD, (4, 8), thr)
    lc.transform(tS, tD, lambda x: x * 2.0 + 1.0)


@pytest.mark.parametrize("target", TARGETS)
def test_inner_outer_partition_cover_the_matrix(target):
    src = np.random.default_rng(1).standard_normal((64, 32)).astype(np.float32)
    dst = np.zeros_like(src)
    _run(scale_tiles, src, dst, grid=(4, 4), block=32, target=target)
    np.testing.assert_array_equal(dst, src * 2.0 + 1.0)


def test_partitions_are_zipped_divide_and_slice():
    src = np.zeros((64, 32), np.float32)
    module, _name, _abi = scale_tiles.trace(scale_tiles.specialize(src, src, block=32))
    text = module.to_text()
    assert text.count("tile.zipped_divide") == 4 and text.count("tile.slice") == 4
    # the thread's (4, 8) outer partition of a (16, 8) tile of a row-major matrix: 4 elements
    # 4 rows apart (a dynamic stride), one column
    assert 'tile.store %46, %26[3] : !tile.tensor<f32, gmem, "(4,1):(?,0)", 4>' in text


# ---------------------------------------------------------------------------------------------
# make_tiled_copy_tv with CuTe's atom names
# ---------------------------------------------------------------------------------------------

ATOM = lc.make_copy_atom("UniversalCopy<uint128_t>", lc.f32)


@lc.kernel
def tv_copy(src: lc.Tensor(lc.f32, "(M,32):(32,1)"), dst: lc.Tensor(lc.f32, "(M,32):(32,1)")):
    tc = lc.make_tiled_copy_tv(ATOM, lc.make_layout((32, 8), (8, 1)), lc.make_layout((1, 4)))
    thr = tc.get_slice(lc.thread_idx.x)
    gS = lc.local_tile(src, (32, 32), (lc.block_idx.x, 0))
    gD = lc.local_tile(dst, (32, 32), (lc.block_idx.x, 0))
    lc.copy(tc, thr.partition_S(gS), thr.partition_D(gD))


@pytest.mark.parametrize("target", TARGETS)
def test_tiled_copy_tv_with_cute_name(target):
    src = np.random.default_rng(2).standard_normal((128, 32)).astype(np.float32)
    dst = np.zeros_like(src)
    ck = _run(tv_copy, src, dst, grid=4, block=256, target=target)
    np.testing.assert_array_equal(dst, src)
    assert ck.vector_bits == [128]


def test_cute_copy_names_resolve_to_the_registry():
    pairs = {
        "UniversalCopy<uint128_t>": ("universal", 128),
        "UniversalCopy<cute::uint32_t>": ("universal", 32),
        "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>": ("cp.async.cg", 128),
        "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>": ("cp.async.ca", 64),
        "SM75_U32x4_LDSM_N": ("ldmatrix.x4", 128),
        "SM75_U32x1_LDSM_N": ("ldmatrix.x1", 32),
        "SM75_U16x8_LDSM_T": ("ldmatrix.x4.trans", 128),
        "SM75_U16x4_LDSM_T": ("ldmatrix.x2.trans", 64),
    }
    for name, (op, bits) in pairs.items():
        dtype = lc.f16 if "LDSM" in name else lc.f32
        atom = lc.make_copy_atom(name, dtype)
        assert (atom.atom.op.name, atom.atom.op.bits) == (op, bits), name
        assert f'"{op}", {bits}' in atom.attr.text
    # the same atom as today's spelling
    a, b = lc.make_copy_atom("SM75_U32x4_LDSM_N", lc.f16), lc.make_copy_atom("ldmatrix.x4", lc.f16)
    assert a.atom.val_layout_src == b.atom.val_layout_src
    with pytest.raises(lc.CompileError, match="moves 128 bits per thread, not 64"):
        lc.make_copy_atom("UniversalCopy<uint128_t>", lc.f32, bits=64)
    with pytest.raises(lc.CompileError, match=r"or a CuTe name \(UniversalCopy<uint128_t>"):
        lc.make_copy_atom("UniversalCopy<uint256_t>", lc.f32)


# ---------------------------------------------------------------------------------------------
# recast
# ---------------------------------------------------------------------------------------------


@lc.kernel
def recast_rows(src: lc.Tensor(lc.f16, "(M,K):(K,1)"), dst: lc.Tensor(lc.i32, "(M,H):(H,1)")):
    # (M,K) halves seen as (M,K/2) 32-bit words: recast_layout divides the row stride K by 2
    words = lc.recast(src, lc.i32)
    row = lc.block_idx.x
    for j in lc.range(lc.size(words, 1)):
        dst[row, j] = words[row, j]


@pytest.mark.parametrize("target", TARGETS)
def test_recast_global_tensor(target):
    src = np.random.default_rng(3).standard_normal((8, 32)).astype(np.float16)
    dst = np.zeros((8, 16), np.int32)
    _run(recast_rows, src, dst, grid=8, block=1, target=target)
    np.testing.assert_array_equal(dst, src.view(np.int32))


@lc.kernel
def recast_fragment(src: lc.Tensor, dst: lc.Tensor):
    tid = lc.thread_idx.x
    f = lc.make_fragment((4,), lc.f32)
    lc.copy(lc.local_tile(src, (4,), (tid,)), f)
    halves = lc.recast(f, lc.f16)  # (8) halves of the same registers
    assert lc.size(halves) == 8
    words = lc.recast(halves, lc.i32)
    lc.copy(words, lc.local_tile(dst, (4,), (tid,)))


@pytest.mark.parametrize("target", TARGETS)
def test_recast_register_fragment_round_trips_bits(target):
    src = np.random.default_rng(4).standard_normal(128).astype(np.float32)
    dst = np.zeros(128, np.int32)
    _run(recast_fragment, src, dst, grid=1, block=32, target=target)
    np.testing.assert_array_equal(dst, src.view(np.int32))


SW128 = lc.composition(lc.Swizzle(3, 3, 3), lc.make_layout((8, 64), (64, 1)))


@lc.kernel
def recast_swizzled(
    src: lc.Tensor(lc.f16, "(8,64):(64,1)"), dst: lc.Tensor(lc.i32, "(8,32):(32,1)")
):
    tid = lc.thread_idx.x
    s = lc.smem_tensor(lc.f16, SW128)  # CUTLASS's 128-byte swizzled f16 tile
    for j in range(64):
        s[tid, j] = src[tid, j]
    lc.syncthreads()
    words = lc.recast(s, lc.i32)  # Sw<3,2,3> o (8,32):(32,1): the same bytes as 32-bit words
    for j in range(32):
        dst[tid, j] = words[tid, j]


@pytest.mark.parametrize("target", TARGETS)
def test_recast_swizzled_shared_tensor(target):
    src = np.random.default_rng(6).standard_normal((8, 64)).astype(np.float16)
    dst = np.zeros((8, 32), np.int32)
    _run(recast_swizzled, src, dst, grid=1, block=8, target=target)
    np.testing.assert_array_equal(dst, src.view(np.int32))


@lc.kernel
def recast_swizzled_rows(
    src: lc.Tensor(lc.f16, "(8,64):(64,1)"), dst: lc.Tensor(lc.i32, "(8,32):(32,1)")
):
    s = lc.smem_tensor(lc.f16, SW128)
    for j in range(64):
        s[lc.thread_idx.x, j] = src[lc.thread_idx.x, j]
    lc.syncthreads()
    if lc.thread_idx.x == 0:
        for r in range(8):  # a static row of a swizzled tile is a plain (permuted) layout
            words = lc.recast(s[r, _], lc.i32)
            for j in range(32):
                dst[r, j] = words[j]


@pytest.mark.parametrize("target", TARGETS)
def test_recast_rows_of_a_swizzled_tensor(target):
    src = np.random.default_rng(7).standard_normal((8, 64)).astype(np.float16)
    dst = np.zeros((8, 32), np.int32)
    _run(recast_swizzled_rows, src, dst, grid=1, block=8, target=target)
    np.testing.assert_array_equal(dst, src.view(np.int32))


def test_recast_diagnostics():
    @lc.kernel
    def bad(src: lc.Tensor(lc.f16, "(N):(3)"), dst: lc.Tensor):
        lc.recast(src, lc.f32)

    x = np.zeros(96, np.float16)
    with pytest.raises(lc.CompileError, match=r"recast to f32: upcast<2>.*the stride 3 and 2"):
        bad.trace(bad.specialize(x[::3], x, block=1))

    @lc.kernel
    def misaligned(src: lc.Tensor, dst: lc.Tensor):
        lc.recast(src, lc.f64)

    @lc.kernel
    def swizzled_view(src: lc.Tensor, dst: lc.Tensor):
        s = lc.smem_tensor(lc.f16, SW128)
        lc.recast(s[lc.thread_idx.x, _], lc.i32)

    with pytest.raises(lc.CompileError, match="recast of a view of a swizzled tensor"):
        swizzled_view.trace(swizzled_view.specialize(x, x, block=8))

    with pytest.raises(lc.CompileError, match="only 4-byte aligned"):
        y = np.zeros(65, np.float32)[1:]
        misaligned.trace(misaligned.specialize(y, y, block=1))


# ---------------------------------------------------------------------------------------------
# transform (three forms) and for_each
# ---------------------------------------------------------------------------------------------


@lc.kernel
def elementwise(a: lc.Tensor, b: lc.Tensor, out: lc.Tensor, sums: lc.Tensor):
    tid = lc.thread_idx.x
    ra = lc.make_fragment((8,), lc.f32)
    rb = lc.make_fragment((8,), lc.f32)
    lc.copy(lc.local_tile(a, (8,), (tid,)), ra)
    lc.copy(lc.local_tile(b, (8,), (tid,)), rb)
    lc.transform(ra, lambda x: x * x)  # in place
    rc = lc.make_fragment_like(ra)
    lc.transform(ra, rb, rc, lambda x, y: x - y)  # binary
    lc.copy(rc, lc.local_tile(out, (8,), (tid,)))
    total = [lc.f32(0)]
    lc.for_each(rc, lambda x: total.__setitem__(0, total[0] + x))
    sums[tid] = total[0]


@lc.kernel
def dynamic_transform(x: lc.Tensor, y: lc.Tensor):
    lc.transform(x, y, lambda v: v + 3)  # dynamic size: one scf.for


@pytest.mark.parametrize("target", TARGETS)
def test_transform_and_for_each(target):
    rng = np.random.default_rng(5)
    a = rng.integers(-8, 8, 256).astype(np.float32)
    b = rng.integers(-8, 8, 256).astype(np.float32)
    out = np.zeros(256, np.float32)
    sums = np.zeros(32, np.float32)
    _run(elementwise, a, b, out, sums, grid=1, block=32, target=target)
    np.testing.assert_array_equal(out, a * a - b)
    np.testing.assert_array_equal(sums, (a * a - b).reshape(32, 8).sum(axis=1))
    x = np.arange(37, dtype=np.int32)
    y = np.zeros_like(x)
    _run(dynamic_transform, x, y, grid=1, block=1, target=target)
    np.testing.assert_array_equal(y, x + 3)


def test_static_transform_is_unrolled_and_dynamic_is_a_loop():
    a = np.zeros(256, np.float32)
    text = elementwise.trace(elementwise.specialize(a, a, a, a[:32], block=32))[0].to_text()
    assert "scf.for" not in text and text.count("arith.mulf") == 8
    x = np.zeros(37, np.int32)
    text = dynamic_transform.trace(dynamic_transform.specialize(x, x, block=1))[0].to_text()
    assert text.count("scf.for") == 1 and text.count("arith.addi") >= 1


def test_transform_diagnostics():
    @lc.kernel
    def bad(a: lc.Tensor):
        f = lc.make_fragment((8,), lc.f32)
        g = lc.make_fragment((4,), lc.f32)
        lc.transform(f, g, lambda x: x)

    x = np.zeros(8, np.float32)
    with pytest.raises(
        lc.CompileError, match="the source has 8 elements but the destination has 4"
    ):
        bad.trace(bad.specialize(x, block=1))

    @lc.kernel
    def no_fn(a: lc.Tensor):
        lc.transform(a, a)

    with pytest.raises(lc.CompileError, match=r"expects lc.transform\(t, fn\)"):
        no_fn.trace(no_fn.specialize(x, block=1))


# ---------------------------------------------------------------------------------------------
# register fragments indexed at run time
# ---------------------------------------------------------------------------------------------


@lc.kernel
def pick(src: lc.Tensor, dst: lc.Tensor, j: lc.i32):
    tid = lc.thread_idx.x
    f = lc.make_fragment((8,), lc.f32)
    lc.copy(lc.local_tile(src, (8,), (tid,)), f)
    f[(j + 1) % 8] = -1.0
    dst[tid] = f[j] + f[(j + 1) % 8]


@pytest.mark.parametrize("target", TARGETS)
def test_fragment_indexed_at_run_time(target):
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(8, np.float32)
    ck = _run(pick, src, dst, 3, grid=1, block=8, target=target)
    np.testing.assert_array_equal(dst, src.reshape(8, 8)[:, 3] - 1.0)
    notes = [str(r) for r in ck.remarks if "local memory" in r.message]
    assert len(notes) == 1 and "test_cute_vocabulary.py" in notes[0]


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_gpu_modules_assemble(arch):
    src = np.arange(64, dtype=np.float32)
    ck = lc.compile(pick, src, src[:8], 3, block=8, target=arch, cache=False)
    assert ".local" in ck.ptx and ck.cubin
    h = np.zeros((8, 32), np.float16)
    ck = lc.compile(recast_rows, h, np.zeros((8, 16), np.int32), block=1, target=arch, cache=False)
    assert ck.cubin
    f = np.zeros(128, np.float32)
    ck = lc.compile(recast_fragment, f, f.view(np.int32), block=32, target=arch, cache=False)
    assert ck.cubin
    h = np.zeros((8, 64), np.float16)
    w = np.zeros((8, 32), np.int32)
    for kernel in (recast_swizzled, recast_swizzled_rows):
        assert lc.compile(kernel, h, w, block=8, target=arch, cache=False).cubin


def test_recast_of_host_arrays():
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    v = lc.recast(x, lc.i32)
    assert v.dtype == np.int32 and v.shape == (2, 4) and np.shares_memory(v, x)
    assert lc.recast(x, lc.f16).shape == (2, 8)  # the stride-1 mode holds twice the elements
    with pytest.raises(TypeError, match="numpy has no bf16"):
        lc.recast(x, lc.bf16)
