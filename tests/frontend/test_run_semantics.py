"""What traced kernels compute, run on the CPU backend (and on the GPU where there is one) and
compared with plain Python/numpy:
dynamic control flow (if/elif/else with results, guard return, lc.range with carried values,
while), Python's floor division and modulo on negative values, helpers, views and predicates.
These are end-to-end differential tests of the front end's semantics (the rest of the pipeline
is the oracle's path too, so a mismatch points at the traced program)."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc import _

TARGETS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def run_on(kernel, *args, grid, block, target="cpu"):
    """Compile for ``target`` (no disk cache: each run really compiles) and launch; numpy
    arrays are copied to the GPU and back when the target is a GPU."""
    compiled = lc.compile(kernel, *args, target=target, block=block, cache=False)
    compiled(*args, grid=grid, block=block)


@lc.func
def sign3(q, r):
    if q < 0 and r != 0:
        return -1
    if q == 0:
        return 0
    return 1


@lc.kernel
def control(out: lc.Tensor, n: int, m: int):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i >= n:
        return
    v = i - m  # negative for the first m threads
    q = v // 3
    r = v % 3
    acc = 0
    for k in lc.range(i % 5):
        acc = acc + k * r
    w = 0
    while w * w < i:
        w = w + 1
    if i % 3 == 0:
        c = 10
    elif i % 3 == 1:
        c = 20
    else:
        c = i
    out[i, 0] = q
    out[i, 1] = r
    out[i, 2] = acc
    out[i, 3] = w
    out[i, 4] = sign3(q, r)
    out[i, 5] = min(i, 7) if i % 2 == 0 else max(i, 100)
    out[i, 6] = c
    out[i, 7] = 1 if 3 < i <= 9 and not i == 5 else 0  # noqa: SIM201  (tests `not`)


def python_control(i: int, m: int) -> list[int]:
    v = i - m
    q, r = v // 3, v % 3
    acc = sum(k * r for k in range(i % 5))
    w = 0
    while w * w < i:
        w += 1
    s = -1 if (q < 0 and r != 0) else (0 if q == 0 else 1)
    c = 10 if i % 3 == 0 else (20 if i % 3 == 1 else i)
    return [
        q,
        r,
        acc,
        w,
        s,
        min(i, 7) if i % 2 == 0 else max(i, 100),
        c,
        int(3 < i <= 9 and i != 5),
    ]


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_control_flow_and_floor_semantics_match_python(target):
    n, m = 200, 57
    out = np.full((n + 5, 8), -999, np.int32)
    run_on(control, out, n, m, grid=2, block=128, target=target)
    expected = np.array([python_control(i, m) for i in range(n)], np.int32)
    np.testing.assert_array_equal(out[:n], expected)
    assert (out[n:] == -999).all()  # the guard return kept the other threads out


@lc.kernel
def divmod_kernel(x: lc.Tensor, q: lc.Tensor, r: lc.Tensor, d: int):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i < lc.size(x):
        q[i] = x[i] // d
        r[i] = x[i] % d


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("d", [3, -4, 16, 7])
def test_floor_division_and_modulo_on_arrays(d, target):
    x = np.random.default_rng(d & 0xFF).integers(-1000, 1000, 300).astype(np.int32)
    q, r = np.zeros_like(x), np.zeros_like(x)
    run_on(divmod_kernel, x, q, r, d, grid=3, block=128, target=target)
    np.testing.assert_array_equal(q, np.floor_divide(x, d))
    np.testing.assert_array_equal(r, np.mod(x, d))


@lc.kernel
def tiled_scale(src: lc.Tensor[lc.f32, "(M,N):(N,1)"], dst: lc.Tensor[lc.f32, "(M,N):(N,1)"]):  # noqa: F722
    bx, by, tid = lc.block_idx.x, lc.block_idx.y, lc.thread_idx.x
    gS = lc.local_tile(src, (8, 16), (bx, by))
    gD = lc.local_tile(dst, (8, 16), (bx, by))
    cS = lc.local_tile(lc.make_identity_tensor(src.shape), (8, 16), (bx, by))
    thr = lc.make_layout((8, 4), (4, 1))  # 32 threads, row-major over the 8x16 tile
    tS = lc.local_partition(gS, thr, tid)  # (1,4) per thread
    tD = lc.local_partition(gD, thr, tid)
    tC = lc.local_partition(cS, thr, tid)
    frag = lc.make_fragment_like(tS)
    for i in range(lc.size(frag)):
        if lc.elem_less(tC[i], src.shape):
            frag[i] = tS[i] * 2.0 + lc.f32(tid)
    for i in range(lc.size(frag)):
        if lc.elem_less(tC[i], src.shape):
            tD[i] = frag[i]
    first_row = gD[0, _]
    if tid == 0 and lc.elem_less(cS[0, 0], src.shape):
        first_row[0] = -1.0


@pytest.mark.parametrize("target", TARGETS)
def test_views_identity_tensors_and_predicates_on_a_ragged_matrix(target):
    m, n = 21, 37  # not multiples of the 8x16 tile
    src = np.arange(m * n, dtype=np.float32).reshape(m, n)
    dst = np.zeros_like(src)
    run_on(tiled_scale, src, dst, grid=(3, 3), block=32, target=target)
    # thread t of a tile owns row t // 4 and columns (t % 4) + 4j of that tile
    rows, cols = np.indices((m, n))
    tid = (rows % 8) * 4 + (cols % 16) % 4
    expected = src * 2 + tid
    expected[::8, ::16] = -1.0
    np.testing.assert_array_equal(dst, expected)


@lc.kernel
def sgemm_nt(
    A: lc.Tensor[lc.f32, "(M,K):(K,1)"],  # noqa: F722
    B: lc.Tensor[lc.f32, "(N,K):(K,1)"],  # noqa: F722
    C: lc.Tensor[lc.f32, "(M,N):(N,1)"],  # noqa: F722
):
    bx, by, tid = lc.block_idx.x, lc.block_idx.y, lc.thread_idx.x
    gA = lc.local_tile(A, (32, 8), (bx, _))  # (32,8,k)
    gB = lc.local_tile(B, (32, 8), (by, _))
    gC = lc.local_tile(C, (32, 32), (bx, by))
    sA = lc.smem_tensor(lc.f32, lc.make_layout((32, 8)))
    sB = lc.smem_tensor(lc.f32, lc.make_layout((32, 8)))
    g2s = lc.make_tiled_copy(
        lc.make_copy_atom("universal", lc.f32),
        lc.make_layout((32, 2), (2, 1)),
        lc.make_layout((1, 4)),
    )
    cp = g2s.get_slice(tid)
    tAgA, tAsA = cp.partition_S(gA), cp.partition_D(sA)
    tBgB, tBsB = cp.partition_S(gB), cp.partition_D(sB)
    mma = lc.make_tiled_mma("FMA", lc.make_layout((8, 8, 1)))
    thr = mma.get_slice(tid)
    tCsA, tCsB, tCgC = thr.partition_A(sA), thr.partition_B(sB), thr.partition_C(gC)
    acc = thr.make_fragment_C(tCgC)
    lc.clear(acc)
    for k in lc.range(lc.size(gA, 2)):
        lc.copy(g2s, tAgA[_, _, _, k], tAsA)
        lc.copy(g2s, tBgB[_, _, _, k], tBsB)
        lc.syncthreads()
        lc.gemm(mma, tCsA, tCsB, acc)
        lc.syncthreads()
    lc.axpby(1.0, acc, 0.5, tCgC)


@pytest.mark.parametrize("target", TARGETS)
def test_tiled_copy_and_tiled_mma_partitions_compute_a_gemm(target):
    rng = np.random.default_rng(1)
    m, n, k = 64, 96, 40
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    expected = a @ b.T + 0.5 * c
    run_on(sgemm_nt, a, b, c, grid=(m // 32, n // 32), block=64, target=target)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


@lc.kernel
def tail_copy_with_bounds(src: lc.Tensor(lc.f32, "(N):(1)"), dst: lc.Tensor(lc.f32, "(N):(1)")):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tv = lc.make_layout((32, 4), (4, 1))
    tS = lc.partition_tv(lc.local_tile(src, (128,), (bid,)), tv, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (128,), (bid,)), tv, tid)
    cS = lc.make_identity_tensor(src.shape)
    tC = lc.partition_tv(lc.local_tile(cS, (128,), (bid,)), tv, tid)
    lc.copy_if(tC, tS, tD, bounds=src.shape)


@pytest.mark.parametrize("target", TARGETS)
def test_copy_if_with_a_coordinate_predicate_and_bounds(target):
    n = 300
    src = np.arange(n, dtype=np.float32)
    buf = np.full(n + 16, -1.0, np.float32)
    dst = buf[:n]
    run_on(tail_copy_with_bounds, src, dst, grid=3, block=32, target=target)
    np.testing.assert_array_equal(dst, src)
    assert (buf[n:] == -1.0).all()
