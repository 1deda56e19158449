"""Gather tensors in kernels (CUTLASS gather_tensor.hpp): a composed layout whose outer custom
stride reads an index-buffer argument. Copies through them gather and scatter rows on the CPU
runtime exactly as numpy indexing does (vectorized along the rows, element by element across
them), and a handle that is not a kernel buffer is a diagnostic at the user's line."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest

ROWS, COLS = 8, 16


@lc.kernel(block=32)
def gather_rows(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"), idx: lc.Tensor(lc.i32, "(8):(1)"),
                out: lc.Tensor(lc.f32, "(8,16):(16,1)")):  # fmt: skip
    # (row, col) -> (position row in idx, offset col in the row)
    inner = lc.make_layout((ROWS, COLS), (lc.E(0), lc.E(1)))
    outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(idx), COLS), 1))
    src = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    # thread t: row t % 8, 4 contiguous columns from 4 * (t // 8) (indices are colexicographic)
    tv = lc.make_layout(((8, 4), 4), ((1, 32), 8))
    tid = lc.thread_idx.x
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(out, tv, tid))


@lc.kernel(block=32)
def scatter_cols(dense: lc.Tensor(lc.f32, "(8,16):(16,1)"), idx: lc.Tensor(lc.i32, "(8):(1)"),
                 pool: lc.Tensor(lc.f32, "(P,16):(16,1)")):  # fmt: skip
    # each thread's values walk the gathered rows, so every element is its own access
    inner = lc.make_layout((COLS, ROWS), (lc.E(1), lc.E(0)))
    outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(idx.iterator), COLS), 1))
    dst = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    src = lc.make_tensor(dense.iterator, lc.make_layout((COLS, ROWS), (1, COLS)))
    tid = lc.thread_idx.x
    # thread t: column t % 16, 4 gathered rows from 4 * (t // 16)
    tv = lc.make_layout(((16, 2), 4), ((1, 64), 16))
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(dst, tv, tid))


def _problem(seed):
    rng = np.random.default_rng(seed)
    pool = rng.standard_normal((3 * ROWS, COLS)).astype(np.float32)
    idx = rng.permutation(3 * ROWS)[:ROWS].astype(np.int32)
    return pool, idx


def test_gathered_rows_match_numpy_with_128_bit_loads():
    pool, idx = _problem(0)
    out = np.full((ROWS, COLS), np.nan, np.float32)
    ck = lc.compile(gather_rows, pool, idx, out, target="cpu")
    ck(pool, idx, out, grid=1, block=32)
    np.testing.assert_array_equal(out, pool[idx])
    remarks = [str(r) for r in ck.remarks]
    assert any("128-bit" in r and "the source gathers rows of 16 f32" in r for r in remarks), (
        remarks
    )


def test_scatter_across_rows_is_element_by_element_and_leaves_other_rows():
    pool, idx = _problem(1)
    dense = np.random.default_rng(2).standard_normal((ROWS, COLS)).astype(np.float32)
    before = pool.copy()
    ck = lc.compile(scatter_cols, dense, idx, pool, target="cpu")
    ck(dense, idx, pool, grid=1, block=32)
    want = before.copy()
    want[idx] = dense
    np.testing.assert_array_equal(pool, want)
    remarks = [str(r) for r in ck.remarks]
    assert any(
        "32-bit accesses: the destination gathers rows of 16 f32, so only a row's elements are "
        "contiguous" in r
        for r in remarks
    ), remarks


def test_a_host_list_is_not_a_kernel_index_buffer():
    @lc.kernel(block=32)
    def bad(pool: lc.Tensor(lc.f32, "(P,16):(16,1)")):
        inner = lc.make_layout((ROWS, COLS), (lc.E(0), lc.E(1)))
        outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather([1, 2]), COLS), 1))
        lay = lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
        t = lc.make_tensor(pool.iterator, lay)  # the error
        t[0, 0] = 1.0

    pool, _idx = _problem(3)
    with pytest.raises(lc.CompileError, match="the index buffer of a gather layout must be a "
                       "tensor or a pointer") as info:  # fmt: skip
        lc.compile(bad, pool, target="cpu")
    assert "test_gather_tensors.py" in str(info.value) and "t = lc.make_tensor" in str(info.value)


@lc.kernel(block=32)
def gather_rows_smem_indices(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"),
                             idx: lc.Tensor(lc.i32, "(16):(1)"),
                             out: lc.Tensor(lc.f32, "(16,16):(16,1)")):  # fmt: skip
    # block b gathers rows idx[8b .. 8b+7]: its slice of idx is staged in shared memory, and the
    # gather layout (over the whole of idx's positions) reads the smem copy: its pointer is the
    # slice's minus the slice's first position (CuTe: the outer layout's buffer lives in smem)
    tid = lc.thread_idx.x
    s_idx = lc.smem_tensor(lc.i32, lc.make_layout(ROWS))
    if tid < ROWS:
        s_idx[tid] = idx[lc.block_idx.x * ROWS + tid]
    lc.syncthreads()
    staged = lc.make_tensor(s_idx.iterator + (0 - lc.block_idx.x * ROWS), lc.make_layout(16))
    inner = lc.make_layout((16, COLS), (lc.E(0), lc.E(1)))
    outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(staged), COLS), 1))
    src = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    tile = lc.local_tile(src, (ROWS, COLS), (lc.block_idx.x, 0))
    dst = lc.local_tile(out, (ROWS, COLS), (lc.block_idx.x, 0))
    tv = lc.make_layout(((8, 4), 4), ((1, 32), 8))
    lc.copy(lc.partition_tv(tile, tv, tid), lc.partition_tv(dst, tv, tid))


def test_an_index_buffer_in_shared_memory_gathers_like_numpy():
    rng = np.random.default_rng(5)
    pool = rng.standard_normal((3 * ROWS, COLS)).astype(np.float32)
    idx = rng.permutation(3 * ROWS)[: 2 * ROWS].astype(np.int32)
    out = np.full((2 * ROWS, COLS), np.nan, np.float32)
    ck = lc.compile(gather_rows_smem_indices, pool, idx, out, target="cpu")
    ck(pool, idx, out, grid=2, block=32)
    np.testing.assert_array_equal(out, pool[idx])
    # the traced kernel: the gather's buffer operand is the shared-memory copy
    spec = gather_rows_smem_indices.specialize(pool, idx, out, block=32)
    text = gather_rows_smem_indices.trace(spec)[0].to_text()
    made = [line for line in text.splitlines() if "tile.make_tensor" in line and "Custom{" in line]
    assert len(made) == 1 and "!tile.ptr<i32, smem, 4>) -> !tile.tensor<f32, gmem," in made[0]


@lc.kernel(block=16)
def gather_two_chunks_per_row(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"),
                              idx: lc.Tensor(lc.i32, "(8):(1)"),
                              out: lc.Tensor(lc.f32, "(8,16):(16,1)")):  # fmt: skip
    inner = lc.make_layout((ROWS, COLS), (lc.E(0), lc.E(1)))
    outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(idx), COLS), 1))
    src = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    # thread (i, j): row i, columns 4j..4j+3 and 8+4j..8+4j+3: two accesses of one row,
    # into shared memory (a write to another space than idx's leaves its entries alone)
    tv = lc.make_layout(((8, 2), (4, 2)), ((1, 32), (8, 64)))
    tid = lc.thread_idx.x
    staged = lc.smem_tensor(lc.f32, lc.make_layout((ROWS, COLS), (COLS, 1)))
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(staged, tv, tid))
    lc.syncthreads()
    lc.copy(lc.partition_tv(staged, tv, tid), lc.partition_tv(out, tv, tid))


@lc.kernel(block=8)
def gather_around_an_index_store(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"),
                                 idx: lc.Tensor(lc.i32, "(8):(1)"),
                                 new: lc.Tensor(lc.i32, "(8):(1)"),
                                 out: lc.Tensor(lc.f32, "(8,16):(16,1)")):  # fmt: skip
    inner = lc.make_layout((ROWS, COLS), (lc.E(0), lc.E(1)))
    outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(idx), COLS), 1))
    src = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    tid = lc.thread_idx.x
    tv = lc.make_layout((8, 8), (1, 8))  # thread t: row t, one half of its columns
    lc.copy(lc.partition_tv(src, tv, tid), lc.partition_tv(out, tv, tid))
    idx[tid] = new[tid]  # the row number changes between the two halves
    src2 = lc.make_tensor(
        pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
    )
    tail = lc.local_tile(src2, (ROWS, 8), (0, 1))
    out2 = lc.local_tile(out, (ROWS, 8), (0, 1))
    lc.copy(lc.partition_tv(tail, tv, tid), lc.partition_tv(out2, tv, tid))


def _index_loads(ck):
    """i32 loads through a pointer (the thread and block ids are loads of named slots)."""
    return len(re.findall(r'load i32, i32\* %"\.\d+"', ck.llvm_ir))


def test_a_gathered_row_number_is_loaded_once_for_two_accesses_of_the_row():
    pool, idx = _problem(6)
    out = np.full((ROWS, COLS), np.nan, np.float32)
    ck = lc.compile(gather_two_chunks_per_row, pool, idx, out, target="cpu")
    ck(pool, idx, out, grid=1, block=16)
    np.testing.assert_array_equal(out, pool[idx])
    assert _index_loads(ck) == 1  # both 128-bit loads of a row use one entry of idx
    # (a write to global memory in between may change idx: tests below)


def test_a_row_number_is_loaded_again_after_a_store_that_may_change_it():
    pool, idx = _problem(7)
    before = idx.copy()
    new = np.random.default_rng(8).permutation(3 * ROWS)[:ROWS].astype(np.int32)
    assert (new != before).any()
    out = np.full((ROWS, COLS), np.nan, np.float32)
    ck = lc.compile(gather_around_an_index_store, pool, idx, new, out, target="cpu")
    ck(pool, idx, new, out, grid=1, block=8)
    np.testing.assert_array_equal(out[:, :8], pool[before][:, :8])
    np.testing.assert_array_equal(out[:, 8:], pool[new][:, 8:])  # the stored row numbers
    np.testing.assert_array_equal(idx, new)
    # every 128-bit access loads its row number again: the stores to `out` between them may
    # change idx (two kernel arguments may overlap), and so does the store to idx; plus new
    assert _index_loads(ck) == 5


def test_the_bounds_check_follows_a_gathered_row_to_its_pool_on_the_gpu():
    """On the GPU a gathered access adds its 64-bit row term to an opaque copy of the base (an
    empty inline asm, so that LLVM keeps one wide multiply-add per row, docs/codegen.md); the
    bounds check looks through it, so the GPU code checks the gathered loads against the pool
    as the CPU code does."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    pool, idx = _problem(9)
    out = np.full((ROWS, COLS), np.nan, np.float32)
    sites = {}
    for target in ("cpu", "sm_90a"):
        ck = lc.compile(gather_rows, pool, idx, out, target=target, check_bounds=True, cache=False)
        sites[target] = ck.runtime_spec.bounds_sites
        if target != "cpu":
            assert re.search(r'asm\s+"", "=l,0"', ck.llvm_ir)  # the opaque base is there
    assert sites["sm_90a"] == sites["cpu"]  # the gathered 128-bit loads included
    assert any("load of 16 bytes" in site for site in sites["sm_90a"]), sites["sm_90a"]


def _staged_rows_loop(rewrite: bool):
    """Block b stages its 8 row numbers in shared memory, then twice: a block barrier and a
    copy of its 8 gathered rows into ``out`` (the second pass into the second half of the
    columns); with ``rewrite`` each pass then writes the staged entries (reversed)."""

    @lc.kernel(block=8)
    def staged_rows_loop(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"),
                         idx: lc.Tensor(lc.i32, "(16):(1)"),
                         out: lc.Tensor(lc.f32, "(16,16):(16,1)")):  # fmt: skip
        tid = lc.thread_idx.x
        s_idx = lc.smem_tensor(lc.i32, lc.make_layout(ROWS))
        s_idx[tid] = idx[lc.block_idx.x * ROWS + tid]
        lc.syncthreads()
        staged = lc.make_tensor(s_idx.iterator + (0 - lc.block_idx.x * ROWS), lc.make_layout(16))
        inner = lc.make_layout((16, COLS), (lc.E(0), lc.E(1)))
        outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(staged), COLS), 1))
        src = lc.make_tensor(
            pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
        )
        tv = lc.make_layout((8, 8), (1, 8))  # thread t: row t, 8 columns
        for k in lc.range(2):
            lc.syncthreads()
            tile = lc.local_tile(src, (ROWS, 8), (lc.block_idx.x, k))
            dst = lc.local_tile(out, (ROWS, 8), (lc.block_idx.x, k))
            lc.copy(lc.partition_tv(tile, tv, tid), lc.partition_tv(dst, tv, tid))
            if rewrite:
                lc.syncthreads()
                s_idx[tid] = idx[lc.block_idx.x * ROWS + ROWS - 1 - tid]

    return staged_rows_loop


@pytest.mark.parametrize("rewrite", [False, True])
def test_a_staged_row_number_loads_before_the_loops_barrier_only_if_never_rewritten(rewrite):
    """lower-layouts loads a staged (shared-memory) row number before the loop's block barrier
    when no op after the barrier before the loop writes the staged slice; a loop that rewrites
    it keeps the load after the barrier, and both compute what the program says."""
    rng = np.random.default_rng(9)
    pool = rng.standard_normal((3 * ROWS, COLS)).astype(np.float32)
    idx = rng.permutation(3 * ROWS)[: 2 * ROWS].astype(np.int32)
    out = np.full((2 * ROWS, COLS), np.nan, np.float32)
    kernel = _staged_rows_loop(rewrite)
    ck = lc.compile(kernel, pool, idx, out, target="cpu")
    ck(pool, idx, out, grid=2, block=8)
    want = pool[idx].copy()
    if rewrite:  # the second pass reads each block's slice reversed
        second = idx.reshape(2, ROWS)[:, ::-1].reshape(-1)
        want[:, 8:] = pool[second][:, 8:]
    np.testing.assert_array_equal(out, want)
    # the loop body's first lines: the row-number load, then the barrier, or the other way
    body = [
        line
        for line in ck.llvm_ir.split("bb6:")[1].splitlines()
        if "__layoutc_barrier" in line or re.search(r'load i32, i32\* %"\.\d+"', line)
    ]
    assert len(body) >= 2
    first, second = ("barrier", "load") if rewrite else ("load", "barrier")
    assert (first == "barrier") == ("__layoutc_barrier" in body[0]), body
    assert (second == "barrier") == ("__layoutc_barrier" in body[1]), body


def _staged_rows_twice(by_cp_async: bool):
    """The block stages its 8 row numbers in shared memory (a store, or a cp.async and its
    wait), then copies its 8 gathered rows into ``out`` in two halves with a proxy fence, a
    cp.async commit and a cp.async wait between them (no barrier: no other thread's write
    becomes visible)."""

    @lc.kernel(block=8)
    def staged_rows_twice(pool: lc.Tensor(lc.f32, "(P,16):(16,1)"),
                          idx: lc.Tensor(lc.i32, "(8):(1)"),
                          out: lc.Tensor(lc.f32, "(8,16):(16,1)")):  # fmt: skip
        tid = lc.thread_idx.x
        s_idx = lc.smem_tensor(lc.i32, lc.make_layout(ROWS))
        if by_cp_async:
            one = lc.make_tiled_copy(
                lc.make_copy_atom("cp.async.ca", lc.i32, 32), lc.make_layout(ROWS),
                lc.make_layout(1),
            )  # fmt: skip
            thr = one.get_slice(tid)
            lc.copy(one, thr.partition_S(idx), thr.partition_D(s_idx))
            lc.cp_async_commit()
            lc.cp_async_wait(0)
        else:
            s_idx[tid] = idx[tid]
        lc.syncthreads()
        inner = lc.make_layout((ROWS, COLS), (lc.E(0), lc.E(1)))
        outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(s_idx), COLS), 1))
        src = lc.make_tensor(
            pool.iterator, lc.composition(outer, lc.make_arithmetic_tuple(0, 0), inner)
        )
        tv = lc.make_layout((8, 8), (1, 8))  # thread t: row t, 8 columns
        for half in range(2):
            tile = lc.local_tile(src, (ROWS, 8), (0, half))
            dst = lc.local_tile(out, (ROWS, 8), (0, half))
            lc.copy(lc.partition_tv(tile, tv, tid), lc.partition_tv(dst, tv, tid))
            lc.fence_proxy_async()
            lc.cp_async_commit()
            lc.cp_async_wait(0)

    return staged_rows_twice


@pytest.mark.parametrize("by_cp_async", [False, True])
def test_a_staged_row_number_survives_fences_and_waits_no_copy_of_it_may_land_in(by_cp_async):
    """A loaded row number stays valid across a proxy fence and a cp.async commit (they write
    no memory) and across a cp.async wait when no asynchronous copy of the function may write
    it; when one may (the index slice was staged by cp.async), the wait loads it again. Both
    compute what the program says."""
    pool, idx = _problem(10)
    out = np.full((ROWS, COLS), np.nan, np.float32)
    kernel = _staged_rows_twice(by_cp_async)
    ck = lc.compile(kernel, pool, idx, out, target="cpu")
    ck(pool, idx, out, grid=1, block=8)
    np.testing.assert_array_equal(out, pool[idx])
    # the row-number loads (i32 through a pointer; the ids are loads of named slots), by
    # pointer: each thread's one entry is loaded once, or again after the wait
    pointers = [
        _checked_pointer(ck.llvm_ir, p)
        for p in re.findall(r'load i32, i32\* (%"\.\d+")', ck.llvm_ir)
    ]
    assert len(pointers) == 2, pointers  # the staging store's source and the entry, or the
    assert (len(set(pointers)) == 1) == by_cp_async, pointers  # entry twice (cp.async)


def _checked_pointer(llvm_ir: str, name: str) -> str:
    """The pointer a CPU load reads through its bounds check: back through the casts to
    ``i32*`` and the check's ``select`` of the pointer or its stand-in (each check has its own
    select, so two loads of one address read different values of the same pointer)."""
    while True:
        cast = re.search(re.escape(name) + r' = bitcast i8\* (%"[^"]+") to i32\*', llvm_ir)
        if cast:
            name = cast.group(1)
            continue
        pick = re.search(re.escape(name) + r' = select\s+i1 %"[^"]+", i8\* (%"[^"]+"),', llvm_ir)
        if pick:
            return pick.group(1)
        return name
