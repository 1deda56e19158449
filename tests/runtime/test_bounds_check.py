"""The bounds check (docs/runtime.md, "The bounds check"): on the CPU every access of a kernel is
checked against the argument it belongs to, and the first bad one is an ``OutOfBoundsError``
naming the kernel, thread, block, tensor, coordinate and offset, instead of corrupting the heap
(issue 14: ``free(): invalid pointer``, heap corruption, SIGSEGV, double free)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.passes.conversion import bounds_checks as pass_side
from layoutc.runtime import bounds as runtime_side
from layoutc.runtime.errors import OutOfBoundsError

TILE, THREADS = 1024, 128
TV = lc.make_layout((THREADS, (4, 2)), (4, (1, 512)))


@lc.kernel
def copy_1d(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    gS = lc.local_tile(src, (TILE,), (bid,))
    gD = lc.local_tile(dst, (TILE,), (bid,))
    lc.copy(lc.partition_tv(gS, TV, tid), lc.partition_tv(gD, TV, tid))


@lc.kernel
def tile_of_64(A: lc.Tensor[lc.f32, "(64):(1)"]):  # noqa: F722
    t = lc.local_tile(A, (128,), (0,))  # @static-tile
    t[lc.thread_idx.x] = 1.0


@lc.kernel
def tile_of_n(A: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    t = lc.local_tile(A, (128,), (0,))
    t[lc.thread_idx.x] = 1.0


@lc.kernel
def store_2d(A: lc.Tensor[lc.f32, "(M,N):(N,1)"], row: lc.i32):  # noqa: F722
    A[row, lc.thread_idx.x] = 2.0


def test_the_record_layout_is_the_same_on_both_sides():
    names = ("COUNT", "SITE", "PARAM", "ADDRESS", "BYTES", "TID", "CTAID", "SCRATCH", "SPANS")
    for name in (*names, "SCRATCH_BYTES", "SHARED", "SEVERAL", "LOCAL", "DYNAMIC_SMEM"):
        assert getattr(pass_side, name) == getattr(runtime_side, name), name


def test_a_grid_past_the_array_is_reported_not_a_crash():
    x = np.arange(4 * TILE, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.raises(OutOfBoundsError) as info:
        copy_1d(x, y, grid=1000, block=THREADS)
    m = str(info.value)
    assert m.startswith("kernel 'copy_1d': out-of-bounds access by thread (")
    assert "load of 16 bytes" in m and __file__ in m
    assert "tensor 'src' (argument 0, layout (4096,):(1,)) has elements at offsets 0..4095" in m
    assert np.array_equal(x, y)  # the in-bounds blocks ran, nothing else was touched


def test_a_partial_last_tile_is_reported():
    x = np.arange(TILE + 64, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.raises(OutOfBoundsError, match=r"tensor 'src' .* offsets 0\.\.1087; the access"):
        copy_1d(x, y, grid=2, block=THREADS)
    assert np.array_equal(x[:TILE], y[:TILE])


def test_a_block_larger_than_the_tv_layout_is_a_compile_error():
    """With a static block the front end proves it (thread_bounds.py) before any code runs."""
    x = np.arange(TILE, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.raises(lc.CompileError, match=r"partitions among 128 threads, but its thread"):
        copy_1d(x, y, grid=1, block=2 * THREADS)
    assert not y.any()


def test_a_tile_larger_than_a_static_tensor_is_a_compile_error():
    a = np.zeros(64, np.float32)
    with pytest.raises(lc.CompileError, match=r"lc.local_tile: the tiler \(128,\) does not divide"):
        tile_of_64(a, grid=1, block=128)
    assert not a.any()


def test_a_tile_larger_than_a_dynamic_tensor_is_reported():
    a = np.zeros(64, np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        tile_of_n(a, grid=1, block=128)
    m = str(info.value)
    assert "store of 4 bytes" in m and "tensor 'A' (argument 0, layout (64,):(1,))" in m
    assert "(63 more bad accesses in this launch)" in m
    assert (a == 1).all()


def test_a_coordinate_names_the_row_and_column():
    a = np.zeros((3, 8), np.float32)
    store_2d(a, 1, grid=1, block=8)
    assert (a[1] == 2).all()
    with pytest.raises(OutOfBoundsError) as info:
        store_2d(a, 3, grid=1, block=8)
    m = str(info.value)
    assert "layout (3,8):(8,1)) has elements at offsets 0..23" in m
    assert "by thread (0, 0, 0) of block (0, 0, 0)" in m  # one block: threads run in order
    assert "the access is at element offset 24 (coordinate (3,0))" in m


def test_unchecked_cpu_code_is_available_on_request():
    x = np.arange(TILE, dtype=np.float32)
    y = np.zeros_like(x)
    ck = lc.compile(copy_1d, x, y, block=THREADS, target="cpu", check_bounds=False)
    assert ck.runtime_spec.bounds_sites is None
    ck(x, y, grid=1)
    assert np.array_equal(x, y)


@pytest.mark.parametrize(
    ("offset", "shape", "strides", "expected"),
    [
        (24, (3, 8), (8, 1), (3, 0)),
        (13, (3, 8), (8, 1), (1, 5)),
        (13, (8, 3), (1, 8), (5, 1)),
        (1030, (1024,), (1,), (1030,)),
        (7, (4,), (2,), None),  # odd: no coordinate reaches it
    ],
)
def test_coordinates_of_offsets(offset, shape, strides, expected):
    assert runtime_side.coordinate(offset, shape, strides) == expected


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_checked_gpu_code_assembles(arch):
    ck = lc.compile(
        copy_1d,
        lc.spec("f32[(N):(1)],align=16"),
        lc.spec("f32[(N):(1)],align=16"),
        target=arch,
        block=THREADS,
        check_bounds=True,
    )
    assert ck.cubin[:4] == b"\x7fELF"
    assert "atom.global.add.u64" in ck.ptx or "atom.add.u64" in ck.ptx
    assert ck.runtime_spec.params[-1].name == "__layoutc_bounds"
    unchecked = lc.compile(
        copy_1d,
        lc.spec("f32[(N):(1)],align=16"),
        lc.spec("f32[(N):(1)],align=16"),
        target=arch,
        block=THREADS,
    )
    assert "atom" not in unchecked.ptx and unchecked.runtime_spec.bounds_sites is None


@lc.kernel
def smem_overrun(out: lc.Tensor[lc.f32, "(64):(1)"]):  # noqa: F722
    s = lc.smem_tensor(lc.f32, lc.make_layout(32))
    tid = lc.thread_idx.x
    s[tid] = 1.0  # threads 32..63 write past the 32 floats
    lc.syncthreads()
    out[tid] = s[tid % 32]


def test_a_shared_memory_overrun_is_reported():
    out = np.zeros(64, np.float32)
    with pytest.raises(OutOfBoundsError) as info:
        smem_overrun(out, grid=1, block=64)
    m = str(info.value)
    assert "store of 4 bytes in shared memory" in m and "outside its shared-memory object" in m
    tid = int(m.split("by thread (")[1].split(",")[0])
    assert 32 <= tid < 64


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("example", ["gemm_fma", "transpose_smem"])
def test_checked_shared_memory_code_assembles(example):
    from pathlib import Path

    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    path = Path(__file__).resolve().parents[2] / "examples" / f"{example}.py"
    ex = find_examples(vars(load_source(path)), str(path))[0]
    args = ex.inputs(ex.size, np.random.default_rng(0))
    block = dict(ex.launch(args)).get("block")
    for arch in ("sm_80", "sm_90"):
        ck = lc.compile(
            ex.kernel, *ex.ordered_arguments(args), target=arch, block=block, check_bounds=True
        )
        assert ck.cubin[:4] == b"\x7fELF"
        assert any("in shared memory" in s for s in ck.runtime_spec.bounds_sites)


@lc.kernel
def dynamic_smem_overrun(out: lc.Tensor[lc.f32, "(64):(1)"]):  # noqa: F722
    s = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(64))
    tid = lc.thread_idx.x
    s[tid] = 1.0  # the launch gives 32 floats: threads 32..63 write past them
    lc.syncthreads()
    out[tid] = s[tid % 32]


def test_a_dynamic_shared_memory_overrun_is_checked_against_the_launch_bytes():
    out = np.zeros(64, np.float32)
    dynamic_smem_overrun(out, grid=1, block=64, smem=64 * 4)  # enough: no report
    np.testing.assert_array_equal(out, 1.0)
    with pytest.raises(OutOfBoundsError) as info:
        dynamic_smem_overrun(out, grid=1, block=64, smem=32 * 4)
    m = str(info.value)
    assert "store of 4 bytes in shared memory" in m and "outside its shared-memory object" in m
    tid = int(m.split("by thread (")[1].split(",")[0])
    assert 32 <= tid < 64


@lc.kernel
def fragment_index(out: lc.Tensor[lc.f32, "(8):(1)"], j: lc.i32):  # noqa: F722
    f = lc.make_fragment((8,), lc.f32)
    lc.fill(f, 2.0)
    out[lc.thread_idx.x] = f[j]  # j is not checked by anything but the bounds check


def test_a_fragment_indexed_out_of_range_at_run_time_is_reported():
    out = np.zeros(8, np.float32)
    fragment_index(out, 7, grid=1, block=8)
    np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(OutOfBoundsError) as info:
        fragment_index(out, 8, grid=1, block=8)
    m = str(info.value)
    assert "load of 4 bytes in a thread's array" in m and "outside the thread's own array" in m


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
def test_checked_dynamic_smem_and_fragment_code_assembles():
    out = np.zeros(64, np.float32)
    for kernel, args in ((dynamic_smem_overrun, (out,)), (fragment_index, (out[:8], 3))):
        for arch in ("sm_80", "sm_90"):
            ck = lc.compile(kernel, *args, target=arch, block=64, check_bounds=True, cache=False)
            assert ck.cubin[:4] == b"\x7fELF"
            assert any(
                "in shared memory" in s or "thread's array" in s
                for s in ck.runtime_spec.bounds_sites
            )


@lc.kernel
def two_stores(
    A: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    B: lc.Tensor[lc.f32, "(M):(1)"],  # noqa: F722
    i: lc.i32,
    j: lc.i32,
):
    A[i] = 1.0
    B[j] = 2.0


@pytest.mark.parametrize("i", [-3, -1, 0, 4, 5, 9])
@pytest.mark.parametrize("j", [-1, 0, 2, 3])
def test_each_access_is_in_bounds_exactly_when_its_element_exists(i, j):
    """Below the span (the address wraps when the span's start is subtracted), inside it, at its
    last element and one past it, for two accesses of one block: the first bad one is named and
    the others are counted."""
    a, b = np.zeros(5, np.float32), np.zeros(3, np.float32)
    bad = [name for name, k, n in (("A", i, 5), ("B", j, 3)) if not 0 <= k < n]
    if not bad:
        two_stores(a, b, i, j, grid=1, block=1)
        assert a[i] == 1 and b[j] == 2
        return
    with pytest.raises(OutOfBoundsError) as info:
        two_stores(a, b, i, j, grid=1, block=1)
    m = str(info.value)
    assert f"tensor '{bad[0]}'" in m
    assert ("(1 more bad accesses in this launch)" in m) == (len(bad) == 2)
    assert (a != 0).sum() == (0 if "A" in bad else 1)  # a bad store writes nothing
    assert (b != 0).sum() == (0 if "B" in bad else 1)


def test_an_array_smaller_than_one_access_has_no_place_for_it():
    """copy_1d moves 16 bytes per access: an array of 2 floats (8 bytes) holds none of them."""
    x = np.arange(2, dtype=np.float32)
    y = np.zeros_like(x)
    with pytest.raises(OutOfBoundsError, match=r"load of 16 bytes: tensor 'src'"):
        copy_1d(x, y, grid=1, block=THREADS)
    assert not y.any()


@pytest.mark.parametrize("site", [0, 1, 1000, (1 << 31) - 1])
@pytest.mark.parametrize("param", [pass_side.SHARED, pass_side.SEVERAL, pass_side.LOCAL, 0, 7, 300])
@pytest.mark.parametrize("nbytes", [1, 4, 16, 256])
def test_a_checks_site_parameter_and_bytes_travel_in_one_word(site, param, nbytes):
    packed = pass_side._pack(site, param, nbytes)
    assert 0 <= packed < 1 << 63
    assert pass_side._unpack(packed) == (site, param, nbytes)


def test_what_does_not_fit_the_word_is_refused():
    with pytest.raises(ValueError, match="do not pack"):
        pass_side._pack(1 << 31, 0, 4)
    with pytest.raises(ValueError, match="do not pack"):
        pass_side._pack(0, 0, 1 << 16)


@lc.kernel
def four_stores(
    A: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    B: lc.Tensor[lc.f32, "(M):(1)"],  # noqa: F722
    i: lc.i32,
    j: lc.i32,
    k: lc.i32,
    m: lc.i32,
):
    A[i] = 1.0
    B[j] = 2.0
    A[k] = 3.0
    B[m] = 4.0


@pytest.mark.parametrize(
    "i, j, k, m",
    [
        (0, 1, 7, 9),  # the last two are bad: the third is named
        (0, 9, 8, 1),  # the second and third: the second
        (6, 1, 7, 8),  # first, third and fourth: the first
        (1, 2, 3, 5),  # only the last
        (9, 7, 8, 6),  # all four
    ],
)
def test_the_first_bad_access_of_a_block_in_program_order_is_reported(i, j, k, m):
    """Several bad accesses in one block (no branch between them): the record names the first
    in program order (its site, tensor and offset), counts the others and performs none."""
    a, b = np.zeros(5, np.float32), np.zeros(3, np.float32)
    stores = [("A", i, 5, 1.0), ("B", j, 3, 2.0), ("A", k, 5, 3.0), ("B", m, 3, 4.0)]
    bad = [n for n, (_, x, size, _) in enumerate(stores) if not 0 <= x < size]
    with pytest.raises(OutOfBoundsError) as info:
        four_stores(a, b, i, j, k, m, grid=1, block=1)
    msg = str(info.value)
    name, x, _, _ = stores[bad[0]]
    ck = lc.compile(four_stores, a, b, i, j, k, m, target="cpu", block=1)
    sites = ck.runtime_spec.bounds_sites
    assert sites is not None and len(sites) == 4
    assert f": {sites[bad[0]]}: tensor '{name}'" in msg
    assert f"the access is at element offset {x} " in msg
    more = len(bad) - 1
    assert (f"({more} more bad accesses in this launch)" in msg) == (more > 0)
    for n, (name, x, _, value) in enumerate(stores):
        if n not in bad:
            assert (a if name == "A" else b)[x] == value
    good = {v for n, (*_, v) in enumerate(stores) if n not in bad}
    assert set(a[a != 0]) | set(b[b != 0]) == good  # no bad store wrote anything
