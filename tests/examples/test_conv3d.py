"""CUTLASS example 59 (examples/conv3d_fprop.py): the dense and the gather/scatter convolution
from one kernel body, on the CPU runtime against numpy (N = 8, two CTAs; N = 4, one CTA, is
tests/examples/test_examples.py's run of the example's problems, and docs/example59.md's;
TF32-rounded random data, random permutations into pools larger than needed), the scatter
leaving other rows alone, the host function's refusals (before any launch), the traced IR
showing the gather as a layout, and on a GPU (marked) both variants at N = 4320 and 131072
against torch."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from example_files import EXAMPLES_DIR

sys.path.insert(0, str(EXAMPLES_DIR))
import conv3d_fprop as cv

# Many variants of a large whole-pipeline kernel: verified once after the pass pipeline, as
# users' compiles are (tests/conftest.py, verify_at_end; the example's own kernel is verified
# after every pass in tests/examples/test_examples.py).
pytestmark = pytest.mark.verify_at_end

TOL = 1e-4  # of the largest |output|: products are exact (TF32 inputs), sums in f32


def _close(got: np.ndarray, want: np.ndarray) -> None:
    err = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
    assert err <= TOL, f"relative error {err:.3g}"


# N = 8: two CTAs. N = 4 (one CTA) with these kernels is test_examples.py's
# conv3d_fprop-0 and conv3d_fprop-1 (the example's problems, checked against numpy with every
# row of the output pool compared), so it is not run a second time here.
@pytest.mark.parametrize("n", [8])
def test_dense_matches_numpy_on_the_cpu(n):
    p = cv.random_problem(n, np.random.default_rng(n))
    out = np.full((n, 4, 2, 2, 128), np.nan, np.float32)
    assert cv.conv3d_fprop(p["act"], p["flt"], out) is out
    _close(out, cv.reference_conv3d(p["act"], p["flt"]))


@pytest.mark.parametrize("n", [8])
def test_gather_scatter_matches_numpy_and_leaves_other_rows(n):
    rng = np.random.default_rng(100 + n)
    p = cv.random_problem(n, rng, spare=int(rng.integers(1, 50)))
    out_pool = rng.standard_normal((p["out_rows"], 128)).astype(np.float32)
    before = out_pool.copy()
    cv.conv3d_fprop(p["pool"], p["flt"], out_pool, gather=p["gather"], scatter=p["scatter"])
    got = out_pool[p["scatter"]].reshape(n, 4, 2, 2, 128)
    _close(got, cv.reference_conv3d(p["act"], p["flt"]))
    others = np.setdiff1d(np.arange(p["out_rows"]), p["scatter"])
    assert len(others) > 0
    np.testing.assert_array_equal(out_pool[others], before[others])


def _dense(n=4):
    return (
        np.zeros((n, 6, 4, 4, 64), np.float32),
        np.zeros((128, 3, 3, 3, 64), np.float32),
        np.zeros((n, 4, 2, 2, 128), np.float32),
    )


def _gathered(n=4, rows=None):
    rows = rows or n * 96
    return (
        np.zeros((rows, 64), np.float32),
        np.zeros((128, 3, 3, 3, 64), np.float32),
        np.zeros((n * 16, 128), np.float32),
        np.arange(n * 96, dtype=np.int32) % rows,
        np.arange(n * 16, dtype=np.int32),
    )


def _refused(match, *args, **kw):
    with pytest.raises(cv.ConvError, match=match):
        cv.conv3d_fprop(*args, **kw)


class DLPackOnly:
    """An array that only speaks DLPack (no shape, no dtype)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kw):
        return self._array.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_only_arrays_are_checked_and_run():
    p = cv.random_problem(4, np.random.default_rng(7), spare=3)
    out = np.full((p["out_rows"], 128), 7.0, np.float32)
    args = (p["pool"], p["flt"], out, p["gather"], p["scatter"])
    cv.conv3d_fprop(*(DLPackOnly(a) for a in args))
    _close(out[p["scatter"]].reshape(4, 4, 2, 2, 128), cv.reference_conv3d(p["act"], p["flt"]))
    bad = p["gather"].copy()
    bad[5] = 10**6
    _refused("gather holds row 1000000", *(DLPackOnly(a) for a in (*args[:3], bad, args[4])))
    _refused("gather must be int32, got int64",
             *(DLPackOnly(a) for a in (*args[:3], bad.astype(np.int64), args[4])))  # fmt: skip


def test_refuses_wrong_shapes_and_dtypes():
    a, f, o = _dense()
    _refused(r"activation must have shape \(\*, 6, 4, 4, 64\), got \(4, 6, 4, 4, 32\)",
             np.zeros((4, 6, 4, 4, 32), np.float32), f, o)  # fmt: skip
    _refused(
        r"filter must have shape \(128, 3, 3, 3, 64\)",
        a,
        np.zeros((64, 3, 3, 3, 64), np.float32),
        o,
    )
    _refused(
        r"output must have shape \(4, 4, 2, 2, 128\), got \(8, 4, 2, 2, 128\)", a, f, _dense(8)[2]
    )
    _refused(r"activation must be float32, got float64", a.astype(np.float64), f, o)
    _refused(r"filter must be an array", a, [[1.0]], o)
    pool, f, opool, g, s = _gathered()
    _refused(r"gather must be int32, got int64", pool, f, opool, g.astype(np.int64), s)
    _refused(r"activation must have shape \(\*, 64\)", pool[:, :32], f, opool, g, s)
    _refused(r"output must have shape \(\*, 128\)", pool, f, opool[:, :64], g, s)
    _refused(r"scatter must have 64 entries, got 63", pool, f, opool, g, s[:63])
    _refused(r"give both gather and scatter", pool, f, opool, g)


def test_refuses_n_not_a_multiple_of_4():
    _refused(r"N = 6 images; N must be a positive multiple of 4", *_dense(6))
    _refused(r"N = 0 images", *_dense(0))
    pool, f, opool, g, s = _gathered(4)
    _refused(r"N = 2 images", pool, f, opool[:32], g[:192], s[:32])
    _refused(r"gather has 100 entries, not a multiple of 96", pool, f, opool, g[:100], s)


def test_refuses_out_of_range_indices_before_launch():
    pool, f, opool, g, s = _gathered(4)
    bad = g.copy()
    bad[17] = pool.shape[0]
    _refused(
        r"gather holds row 384, outside the 384 rows of the activation pool", pool, f, opool, bad, s
    )
    bad[17] = -1
    _refused(r"gather holds row -1", pool, f, opool, bad, s)
    bad = s.copy()
    bad[3] = 1 << 30
    _refused(
        r"scatter holds row 1073741824, outside the 64 rows of the output pool",
        pool,
        f,
        opool,
        g,
        bad,
    )


def test_another_tiling_checks_n_against_its_images_per_cta():
    pair = cv.make_conv3d(cv.ConvConfig(images=8, warps_m=4, warps_n=2))
    assert pair[0].config == pair[1].config and pair[0].config.threads == 256
    _refused(r"N = 12 images; N must be a positive multiple of 8", *_dense(12), kernels=pair)
    with pytest.raises(ValueError, match="images even"):
        cv.make_conv3d(cv.ConvConfig(images=3))
    with pytest.raises(ValueError, match="copies do not tile"):  # 24 rows per pass, K = 128
        cv.make_conv3d(cv.ConvConfig(images=6, warps_n=3))


def test_a_tiling_of_6_images_orders_positions_images_last_on_the_cpu():
    """6 images per CTA: the output positions are ordered (Z,P,Q,N) (the MMA's 32-row blocks
    would split a first mode of 6); dense against numpy, the first of the 2 CTAs of N = 12
    (the second would double the CPU time; the gather kernel of this tiling and whole grids
    run in the GPU tests: conv3d_fprop's sm80 choice at N = 4320)."""
    cfg = cv.ConvConfig(images=6, warps_n=2)
    assert cfg.images_last and not cv.ConvConfig().images_last
    p = cv.random_problem(12, np.random.default_rng(6))
    out = np.full((12, 4, 2, 2, 128), np.nan, np.float32)
    cv.make_conv3d(cfg)[0](p["act"], p["flt"], out, grid=(1,), block=cfg.threads)
    _close(out[:6], cv.reference_conv3d(p["act"][:6], p["flt"]))
    assert np.isnan(out[6:]).all()  # images 6..11 belong to the second CTA


@pytest.mark.parametrize(
    "cfg, kind, arch",
    [(cv.ConvConfig(), 1, "sm_80"), (cv.ConvConfig(images=6, warps_n=2), 0, "sm_90a")],
    ids=["i16-gather-sm80", "i6-dense-sm90a"],
)
def test_sm80_tilings_assemble_without_local_memory(cfg, kind, arch):
    """The tilings conv3d_fprop picks off Hopper keep their 128 or 96 accumulators per thread
    in registers (64x64 and 64x48 warp tiles): ptxas reports no local memory."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc
    from layoutc.codegen.cubin import ptx_to_cubin

    args = _gathered(48) if kind else _dense(48)
    # PTX only (cubin="never"): assembled below, with ptxas's resource report
    ck = lc.compile(cv.make_conv3d(cfg)[kind], *args, block=cfg.threads, target=arch, cubin="never")
    assert ck.ptx.count("mma.sync.aligned.m16n8k8") >= 64
    log = ptx_to_cubin(ck.ptx, arch, verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log


# -- Hopper (wgmma) on the CPU runtime --------------------------------------------------------------
# The tilings below at N = 4 (one CTA). The module's own Hopper tiling, Sm90Config(images=4), is
# not among them: its pair at N = 4 is test_examples.py's conv3d_fprop-2 and -3, and its dense
# and gather kernels (the smem epilogue) run at N = 8 in
# test_hopper_kernels_take_each_blocks_images_on_the_cpu.
HOPPER_CPU = [
    cv.Sm90Config(images=4, stages=3, warpgroups=1, specialized=True, epilogue="direct"),
    # the dense activation through TMA im2col, the filter through tile TMA (the gather kernel
    # of this configuration keeps its cp.async producers)
    cv.Sm90Config(images=4, stages=3, warpgroups=1, specialized=True, epilogue="direct",
                  loads="tma"),
    # the filter through tile TMA in both kernels, the activation through cp.async
    cv.Sm90Config(images=4, stages=3, warpgroups=1, specialized=True, loads="tma-filter"),
]  # fmt: skip


@pytest.mark.parametrize("cfg", HOPPER_CPU, ids=lambda c: c.name)
def test_hopper_dense_matches_numpy_on_the_cpu(cfg):
    p = cv.random_problem(4, np.random.default_rng(11))
    out = np.full((4, 4, 2, 2, 128), np.nan, np.float32)
    cv.conv3d_fprop(p["act"], p["flt"], out, kernels=cv.make_conv3d_sm90(cfg))
    _close(out, cv.reference_conv3d(p["act"], p["flt"]))


# the gather kernels also with their indices read from global memory (no staging)
# and the plain mainloop copying the last K-tile again after the last (tail="clamp") or
# peeling the last K-tiles into a loop of their own (tail="peel") or with the barrier in
# the branch with the copies (tail="branch")
HOPPER_GATHER_CPU = [
    *HOPPER_CPU,
    cv.Sm90Config(images=4, index_smem=False),
    cv.Sm90Config(images=4, tail="clamp"),
    cv.Sm90Config(images=4, tail="peel"),
    cv.Sm90Config(images=4, tail="branch"),
    # the activation's copies before the wgmmas, the filter's after
    cv.Sm90Config(images=4, split="b"),
]


@pytest.mark.parametrize("cfg", HOPPER_GATHER_CPU, ids=lambda c: c.name)
def test_hopper_gather_scatter_matches_numpy_and_leaves_other_rows(cfg):
    rng = np.random.default_rng(12)
    p = cv.random_problem(4, rng, spare=19)
    out_pool = rng.standard_normal((p["out_rows"], 128)).astype(np.float32)
    before = out_pool.copy()
    pair = cv.make_conv3d_sm90(cfg)
    cv.conv3d_fprop(p["pool"], p["flt"], out_pool, p["gather"], p["scatter"], kernels=pair)
    _close(out_pool[p["scatter"]].reshape(4, 4, 2, 2, 128), cv.reference_conv3d(p["act"], p["flt"]))
    others = np.setdiff1d(np.arange(p["out_rows"]), p["scatter"])
    np.testing.assert_array_equal(out_pool[others], before[others])


@pytest.mark.parametrize(
    "cfg",
    [
        cv.Sm90Config(images=4),
        cv.Sm90Config(images=4, specialized=True, loads="tma"),
        cv.Sm90Config(images=4, order="qpzn"),
        cv.Sm90Config(images=4, order="qpzn", split="a"),
        cv.Sm90Config(images=4, tail="peel", taps=True),
    ],
    ids=lambda c: c.name,
)
def test_hopper_kernels_take_each_blocks_images_on_the_cpu(cfg):
    """Two CTAs (8 images, 4 per CTA): each CTA's tile is the images its block index names
    (the tile coordinate is given per mode of the tile grid, no division; with TMA, the
    im2col load's first pixel is the CTA's first image; with order="qpzn" the plain
    mainloop's tile is ordered (Q,P,Z,N) as the TMA one's, in both kernels; split="a": the
    filter's copies before the wgmmas, the activation's after)."""
    rng = np.random.default_rng(13)
    p = cv.random_problem(8, rng, spare=5)
    pair = cv.make_conv3d_sm90(cfg)
    want = cv.reference_conv3d(p["act"], p["flt"])
    out = np.full((8, 4, 2, 2, 128), np.nan, np.float32)
    cv.conv3d_fprop(p["act"], p["flt"], out, kernels=pair)
    _close(out, want)
    out_pool = np.full((p["out_rows"], 128), np.nan, np.float32)
    cv.conv3d_fprop(p["pool"], p["flt"], out_pool, p["gather"], p["scatter"], kernels=pair)
    _close(out_pool[p["scatter"]].reshape(8, 4, 2, 2, 128), want)


@pytest.mark.parametrize(
    ("specialized", "loads"),
    [(False, "cp.async"), (True, "cp.async"), (True, "tma")],
    ids=["plain", "ws", "ws-tma"],
)
def test_hopper_kernel_assembles_for_sm90a_with_wgmma_and_no_local_memory(specialized, loads):
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc
    from layoutc.codegen.cubin import ptx_to_cubin

    # conv3d_fprop's dense kernel (16 images, direct epilogue: 128 accumulators per thread)
    # and the warp-specialized mainloop
    cfg = cv.Sm90Config(
        specialized=specialized, epilogue="smem" if specialized else "direct", loads=loads
    )
    dense, _ = cv.make_conv3d_sm90(cfg)
    a, f, o = _dense(8)
    # at 64 bits (what N past ~170000 images compiles to), where a division is a call
    # (PTX only, cubin="never": assembled below, with ptxas's resource report)
    ck = lc.compile(
        dense, a, f, o, block=cfg.threads, target="sm_90a", index_bitwidth=64, cubin="never"
    )
    assert "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32" in ck.ptx
    assert ("mbarrier" in ck.ptx) == specialized
    tma = loads == "tma"  # the activation in im2col mode, the filter in tile mode; no cp.async
    assert (".global.im2col.mbarrier::complete_tx::bytes" in ck.ptx) == tma
    assert (".global.tile.mbarrier::complete_tx::bytes" in ck.ptx) == tma
    assert ("cp.async.cg" in ck.ptx) != tma
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log
    # no 64-bit division (a call into ptxas's runtime): it serializes every wgmma (C7509)
    assert "C7509" not in log and "rem.u64" not in ck.ptx, log


def test_tma_loads_need_the_specialized_mainloop_and_leave_the_gather_on_cp_async():

    with pytest.raises(ValueError, match="TMA needs specialized"):
        cv.make_conv3d_sm90(cv.Sm90Config(loads="tma"))
    cfg = cv.Sm90Config(images=4, specialized=True, loads="tma")
    dense, gather = cv.make_conv3d_sm90(cfg)

    def traced(kernel, *args):
        return kernel.trace(kernel.specialize(*args, block=cfg.threads))[0].to_text()

    a = cv._dense_inputs(4, np.random.default_rng(0))
    ir = traced(dense, a["activation"], a["filter"], a["output"])
    assert "tile.tma_im2col_descriptor" in ir and "tma_load_mode<im2col>" in ir
    a = cv._gather_inputs(4, np.random.default_rng(0))
    order = ("activation", "filter", "output", "gather", "scatter")
    ir = traced(gather, *(a[k] for k in order))
    assert "tile.tma_" not in ir and "cp.async.bulk" not in ir and "cp.async" in ir


def test_tma_filter_loads_the_filter_by_tma_in_both_kernels_and_gathers_by_cp_async():
    """loads="tma-filter": the dense and the gather kernel load the filter by tile-mode TMA
    and the activation by cp.async (no im2col load): the pair differs only in layouts."""
    with pytest.raises(ValueError, match="TMA needs specialized"):
        cv.make_conv3d_sm90(cv.Sm90Config(loads="tma-filter"))
    cfg = cv.Sm90Config(images=4, specialized=True, loads="tma-filter")
    assert cfg.name == "sm90-i4-s4-wg2-f1-ws-tmaf"
    dense, gather = cv.make_conv3d_sm90(cfg)
    assert cv.hopper_kernel(cfg, "gather").config.loads == "tma-filter"

    def traced(kernel, *args):
        return kernel.trace(kernel.specialize(*args, block=cfg.threads))[0].to_text()

    a = cv._dense_inputs(4, np.random.default_rng(0))
    dense_ir = traced(dense, a["activation"], a["filter"], a["output"])
    a = cv._gather_inputs(4, np.random.default_rng(0))
    order = ("activation", "filter", "output", "gather", "scatter")
    gather_ir = traced(gather, *(a[k] for k in order))
    for ir in (dense_ir, gather_ir):
        assert "tile.tma_descriptor" in ir and "tma_im2col" not in ir and "cp.async" in ir


def test_hopper_gather_stages_its_indices_in_shared_memory():
    """The Hopper gather kernel copies the CTA's slices of the gather and scatter vectors to
    shared memory (128-bit loads, the only global loads of indices, after the filter's copies
    of the first stages) and its producers and epilogue read the row numbers there; ptxas
    keeps it out of local memory."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc
    from layoutc.codegen.cubin import ptx_to_cubin

    cfg = cv.Sm90Config(images=4)
    _, gathered = cv.make_conv3d_sm90(cfg)
    ck = lc.compile(gathered, *_gathered(8), block=cfg.threads, target="sm_90a", index_bitwidth=64)
    loads = re.findall(r"ld\.global\S*", ck.ptx)
    assert loads and all(".v4." in ld for ld in loads), loads  # the staged slices only
    # the filter's copies of the first stages are issued before the staging's loads
    assert ck.ptx.index("cp.async.cg") < ck.ptx.index("ld.global")
    assert re.search(r"ld\.shared(\.\w+)*\.(u32|b32|s32)\s", ck.ptx)  # row numbers
    _, unstaged = cv.make_conv3d_sm90(cv.replace(cfg, index_smem=False))
    ck2 = lc.compile(unstaged, *_gathered(8), block=cfg.threads, target="sm_90a")
    assert any(".v4." not in ld for ld in re.findall(r"ld\.global\S*", ck2.ptx))
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log
    assert "C7509" not in log, log  # wgmmas not serialized by a call


@pytest.mark.parametrize("index_bits", [32, 64])
def test_hopper_gather_loads_a_k_tiles_rows_first_and_widens_each_once(index_bits):
    """Per K-tile the gather kernel loads its row numbers from shared memory before any of
    its copies after the K-tile's block barrier (lower-layouts prefetches them: an ld.shared
    between cp.async costs sm_90 three dummy loads in the SASS; the first commit group also
    holds the filter's copies issued before the index staging and its barrier), and each
    row number is widened straight into the 64-bit row term (``mul.wide.s32`` of the loaded
    register, added to a base that holds the dense part), at either index width."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc

    cfg = cv.Sm90Config(images=4)
    _, gathered = cv.make_conv3d_sm90(cfg)
    ck = lc.compile(
        gathered, *_gathered(8), block=cfg.threads, target="sm_90a", index_bitwidth=index_bits
    )
    ptx = ck.ptx
    groups = [g for g in ptx.split("cp.async.commit_group") if "cp.async.cg" in g]
    assert len(groups) >= 3  # the prologue's two stages and the main loop's
    for group in groups:
        after = group.rsplit("bar.sync", 1)[-1]  # the copies after the group's last barrier
        lines = [ln for ln in after.splitlines() if "cp.async.cg" in ln or "ld.shared.u32" in ln]
        first_copy = next(i for i, ln in enumerate(lines) if "cp.async.cg" in ln)
        assert not any("ld.shared.u32" in ln for ln in lines[first_copy:]), group
    rows = re.findall(r"ld\.shared\.u32\s+(%r\d+)", ptx)
    assert rows
    for r in rows:  # the row, not a 32-bit sum with the channel, is what gets widened
        assert re.search(rf"mul\.wide\.s32\s+%rd\d+, {re.escape(r)}, ", ptx), r


def test_peeled_hopper_gather_loads_the_next_rows_before_the_block_barrier():
    """With the last K-tiles peeled (tail="peel") the main loop's copies are not under a
    branch, and lower-layouts loads a K-tile's staged row numbers before the loop's block
    barrier and its cp.async wait (the staged slices are written only before the loop: their
    loads cross them);
    with tail="skip" (copies under a branch) they stay after it."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc

    def loop_body(tail):
        cfg = cv.Sm90Config(images=4, tail=tail)
        _, gathered = cv.make_conv3d_sm90(cfg)
        ck = lc.compile(gathered, *_gathered(8), block=cfg.threads, target="sm_90a")
        # the main loop's first K-tile: after the prologue's two commit groups, to its own
        body = ck.ptx.split("cp.async.commit_group", 2)[2]
        return body[: body.index("cp.async.commit_group")]

    peeled = loop_body("peel")
    before, after = peeled.split("bar.sync", 1)
    assert before.index("ld.shared.u32") < before.index("cp.async.wait_group")
    # one row number per gathered copy: 64 rows of B in passes of 32 rows, 2 per thread
    assert len(re.findall(r"ld\.shared\.u32", before)) == 2, peeled
    assert "ld.shared.u32" not in after and "cp.async.cg" in after, peeled
    before, after = loop_body("skip").split("bar.sync", 1)
    assert "ld.shared.u32" not in before and "ld.shared.u32" in after


def test_hopper_gather_loads_each_row_number_once_per_tap():
    """With taps=True (two K-tiles per iteration: the channel halves of one filter tap) the
    main loop loads a tap's staged row numbers once, before the first half's block barrier,
    and the second half's gathered copies reuse them across the second barrier (the entries
    are stable: written only before the loop); without it every K-tile loads them."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    import layoutc as lc

    def loop(taps):
        cfg = cv.Sm90Config(images=4, tail="peel", taps=taps)
        _, gathered = cv.make_conv3d_sm90(cfg)
        ptx = lc.compile(gathered, *_gathered(8), block=cfg.threads, target="sm_90a").ptx
        # the main loop: the first label a later branch jumps back to, with wgmmas inside
        for m in re.finditer(r"^(\$L__BB\d+_\d+):", ptx, re.M):
            back = ptx.find(f"bra \t{m.group(1)};", m.end())
            if back > 0 and "wgmma.mma_async" in ptx[m.end() : back]:
                return ptx[m.end() : back]
        raise AssertionError(ptx)

    with_taps, without = loop(True), loop(False)
    # one row number per gathered copy: 64 rows of B in passes of 32 rows, 2 per thread
    assert with_taps.count("bar.sync") == 2 and without.count("bar.sync") == 1
    assert len(re.findall(r"ld\.shared\.u32", with_taps)) == 2, with_taps
    assert len(re.findall(r"ld\.shared\.u32", without)) == 2, without
    assert with_taps.count("cp.async.cg") == 2 * without.count("cp.async.cg")
    with pytest.raises(ValueError, match="taps needs"):
        cv.make_conv3d_sm90(cv.Sm90Config(images=4, taps=True))


def test_traced_hopper_ir_shows_the_staged_gather_as_a_layout():
    """Staged or not, the gather is a layout: the slices are copied with tile.copy, and the
    same composed layouts as the global kernel's are made over the shared-memory copies (the
    index buffers are make_tensor operands in smem); no index element is read by hand."""
    pytest.importorskip("filecheck")
    sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))
    from frontend_helpers import filecheck

    cfg = cv.Sm90Config(images=4)
    _, kernel = cv.make_conv3d_sm90(cfg)
    a = cv._gather_inputs(4, np.random.default_rng(0))
    order = ("activation", "filter", "output", "gather", "scatter")
    text = kernel.trace(kernel.specialize(*(a[k] for k in order), block=cfg.threads))[0].to_text()
    filecheck(
        text,
        """
CHECK: func.func @conv3d_fprop_gather_sm90_i4_s4_wg2_f1(
CHECK-SAME: %gather: !tile.ptr<i32, gmem, 16>
CHECK-SAME: %scatter: !tile.ptr<i32, gmem, 16>
CHECK-NOT: tile.load
CHECK: tile.copy {{.*}} : !tile.tensor<i32, gmem, {{.*}}>, !tile.tensor<i32, smem,
CHECK-NOT: tile.load
CHECK: tile.copy {{.*}} : !tile.tensor<i32, gmem, {{.*}}>, !tile.tensor<i32, smem,
CHECK: gpu.barrier
CHECK-NOT: tile.load
CHECK: %[[COMP:.+]] = layout.make_composed_layout {{.*}} -> !layout.layout<"(1,1):(Custom{idx0,64},1) o (0,0) o ((?,4,2,2),(64,3,3,3)):((96@0,16@0,4@0,1@0),(1@1,16@0,4@0,1@0))">
CHECK: tile.make_tensor %{{.+}}, %[[COMP]], %{{.+}} : (!tile.ptr<tf32, gmem, 16>, {{.*}}, !tile.ptr<i32, smem, {{[0-9]+}}>) -> !tile.tensor<tf32, gmem,
CHECK-NOT: tile.load
CHECK: %[[OUT:.+]] = layout.make_composed_layout {{.*}} -> !layout.layout<"(1,1):(Custom{idx0,128},1) o (0,0) o (128,(?,4,2,2)):(1@1,(16@0,4@0,2@0,1@0))">
CHECK: tile.make_tensor %{{.+}}, %[[OUT]], %{{.+}} : (!tile.ptr<f32, gmem, 16>, {{.*}}, !tile.ptr<i32, smem, {{[0-9]+}}>)
CHECK: wgmma
""",
    )
    # the only tile.load are of register fragments (the wgmma operand fences), none of indices
    assert not re.search(r"tile\.load .*: !tile\.tensor<i32", text)
    assert all("rmem" in line for line in text.splitlines() if "tile.load" in line)


def test_layoutc_run_runs_the_variants_the_target_picks():
    cpu = cv.examples_for("cpu")  # the sm80 pair and a Hopper pair
    assert [e.kernel for e in cpu[:2]] == [cv.conv3d_fprop_dense, cv.conv3d_fprop_gather]
    assert [type(e.kernel.config) for e in cpu[2:]] == [cv.Sm90Config] * 2
    sm80 = cv.examples_for("sm_80")  # sm80_config's tiling for N = 4320
    assert tuple(e.kernel for e in sm80) == cv.default_kernels(4320, "sm_80")
    hopper = cv.examples_for("sm_90a")
    assert tuple(e.kernel for e in hopper) == cv.default_kernels(4320, "sm_90a")
    for example in cpu + sm80 + hopper:
        cfg = example.kernel.config
        args = example.inputs(4 * cfg.images + 1, np.random.default_rng(1))  # rounded down
        assert example.launch(args) == {"grid": (4,), "block": cfg.threads}
    # the module's list is the default target's (the CPU here: no GPU in CI)
    if cv.default_target() == "cpu":
        assert [e.kernel for e in cv.EXAMPLES] == [e.kernel for e in cpu]


def test_the_target_chooses_the_kernels():
    dense, gathered = cv.default_kernels(8, "sm_90a")
    assert isinstance(dense.config, cv.Sm90Config) and dense.config.epilogue == "direct"
    assert gathered.config == cv.replace(dense.config, epilogue="smem")
    # waves x images x time per image: 16 images at 131072, 12 at 4320 (3 fuller waves),
    # 4 where fewer CTAs than SMs (smaller tiles, more SMs busy) or 8 does not divide N
    assert [cv.hopper_config(n, 132).images for n in (131072, 4320, 16, 4 * 133)] == [16, 12, 4, 4]
    for kind in ("dense", "gather"):
        assert all(n % cv.hopper_config(n, 132, kind).images == 0 for n in range(4, 4000, 4))
    with pytest.raises(ValueError, match="kind must be"):
        cv.hopper_config(8, 132, "gathered")
    assert cv.default_kernels(8, "sm_80")[0] is cv.conv3d_fprop_dense
    assert cv.default_kernels(8, "cpu")[0] is cv.conv3d_fprop_dense
    assert cv.default_kernels(131072, "cpu")[0] is cv.conv3d_fprop_dense  # the CPU: the seed's
    # off Hopper: 16 images at 131072, 6 at 4320 (3 waves of 12 images per SM, not 3 of 16),
    # the seed's 4 where fewer CTAs than SMs or nothing else divides N
    sm80 = [cv.sm80_config(n, 132) for n in (131072, 4320, 16, 4 * 133)]
    i6 = cv.ConvConfig(images=6, warps_n=2)
    assert sm80 == [cv.ConvConfig(), i6, cv.SEED_CONFIG, cv.SEED_CONFIG]
    assert all(n % cv.sm80_config(n, 132).images == 0 for n in range(4, 4000, 4))
    assert cv.default_kernels(4320, "sm_80")[1].config == i6
    # a GPU with 99 KiB of shared memory per CTA (sm_86): 16 images (144 KiB) do not fit
    assert cv.sm80_config(131072, 84, 99 * 1024) == cv.ConvConfig(images=8, warps_n=2)
    for images in (3, 32):
        with pytest.raises(ValueError, match="images must be even"):
            cv.make_conv3d_sm90(cv.Sm90Config(images=images))


def test_the_dense_kernel_on_hopper_chooses_tma_where_it_is_faster():
    """The dense kernel chooses among the TMA tilings too (HOPPER_TMA_CONFIGS, on the cp.async
    tilings' scale) by the same prediction; the gather kernel keeps cp.async (TMA cannot
    gather rows) and the shared-memory epilogue, the dense one the direct epilogue."""

    def predicted(cfg, n, sms, table):
        return -(-(n // cfg.images) // sms) * cfg.images * table[cfg]

    both = {**cv.HOPPER_CONFIGS, **cv.HOPPER_TMA_CONFIGS}
    for n in (131072, 4320, 8, 4 * 133, 1200):
        cfg = cv.hopper_config(n, 132, "dense")
        fits = [c for c in both if n % c.images == 0]
        assert predicted(cfg, n, 132, both) == min(predicted(c, n, 132, both) for c in fits)
        dense, gathered = cv.default_kernels(n, "sm_90a")
        assert dense.config == cv.replace(cfg, epilogue="direct")
        gcfg = cv.hopper_config(n, 132)
        assert gathered.config == cv.replace(gcfg, epilogue="smem")
        assert gathered.config.loads == "cp.async" and gathered.config in {
            cv.replace(c, epilogue="smem") for c in cv.HOPPER_CONFIGS
        }
    # where a TMA tiling is predicted faster, the dense kernel is the TMA one
    tma = [n for n in (131072, 4320) if cv.hopper_config(n, 132, "dense").loads == "tma"]
    for n in tma:
        assert cv.default_kernels(n, "sm_90a")[0].config.loads == "tma"
    # a TMA tiling's gather sibling is a cp.async kernel (cached once per tiling and kind)
    tcfg = next(iter(cv.HOPPER_TMA_CONFIGS))
    assert cv.hopper_kernel(tcfg, "gather").config.loads == "cp.async"
    assert cv.hopper_kernel(tcfg, "dense") is cv.hopper_kernel(tcfg, "dense")
    with pytest.raises(ValueError, match="kind must be"):
        cv.hopper_kernel(tcfg, "both")


def test_conv3d_fprop_runs_the_tma_dense_kernel_it_would_choose_on_the_cpu():
    """The dense TMA kernel as conv3d_fprop builds it (hopper_kernel: direct epilogue) runs on
    the CPU runtime next to its cp.async gather sibling, at 2 CTAs of 4 images."""
    cfg = cv.Sm90Config(images=4, stages=3, specialized=True, loads="tma")
    pair = cv.hopper_pair(cfg)
    assert [k.config.loads for k in pair] == ["tma", "cp.async"]
    rng = np.random.default_rng(14)
    p = cv.random_problem(8, rng, spare=3)
    want = cv.reference_conv3d(p["act"], p["flt"])
    out = np.full((8, 4, 2, 2, 128), np.nan, np.float32)
    cv.conv3d_fprop(p["act"], p["flt"], out, kernels=pair)
    _close(out, want)


def test_traced_ir_shows_the_gather_as_a_layout():
    """The gather and the scatter are layouts of tensors (make_composed_layout of a custom
    stride over basis strides, the index buffers as make_tensor operands): the traced kernel
    has no index arithmetic of its own and reads no index buffer element."""
    pytest.importorskip("filecheck")
    sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))

    pytest.importorskip("filecheck")
    sys.path.insert(0, str(EXAMPLES_DIR.parent / "tests" / "frontend"))
    from frontend_helpers import filecheck

    a = cv._gather_inputs(4, np.random.default_rng(0))
    kernel = cv.conv3d_fprop_gather
    spec = kernel.specialize(*cv.EXAMPLES[1].ordered_arguments(a), block=128)
    text = kernel.trace(spec)[0].to_text()
    filecheck(
        text,
        """
CHECK: func.func @conv3d_fprop_gather(%activation: !tile.ptr<tf32, gmem, 16>
CHECK-SAME: %gather: !tile.ptr<i32, gmem, 16>
CHECK-SAME: %scatter: !tile.ptr<i32, gmem, 16>
CHECK-NOT: tile.load
CHECK: %[[OUTER:.+]] = layout.make_layout {{.*}} : !layout.layout<"(1,1):(Custom{gather,64},1)">
CHECK: %[[COMP:.+]] = layout.make_composed_layout %[[OUTER]], {{.*}} -> !layout.layout<"(1,1):(Custom{gather,64},1) o (0,0) o ((?,4,2,2),(64,3,3,3)):((96@0,16@0,4@0,1@0),(1@1,16@0,4@0,1@0))">
CHECK: tile.make_tensor %{{.+}}, %[[COMP]], %{{.+}} : (!tile.ptr<tf32, gmem, 16>, {{.*}}, !tile.ptr<i32, gmem, 16>) -> !tile.tensor<tf32, gmem, "(1,1):(Custom{gather,64},1) o (0,0) o
CHECK-NOT: tile.load
CHECK: layout.make_composed_layout {{.*}} -> !layout.layout<"(1,1):(Custom{scatter,128},1) o (0,0) o (128,(?,4,2,2)):(1@1,(16@0,4@0,2@0,1@0))">
CHECK: tile.copy
""",
    )
    assert "tile.load" not in text and "arith.muli %gather" not in text


def test_the_dense_and_gather_kernels_share_their_body():
    """One @lc.func body: the two kernels' traced IR differ only before the mainloop."""
    import inspect

    src = inspect.getsource(cv.make_conv3d)
    assert src.count("def conv_mainloop") == 1 and src.count("conv_mainloop(") == 3


# -- GPU --------------------------------------------------------------------------------------------
def _torch_problem(n):
    torch = pytest.importorskip("torch")
    g = torch.Generator(device="cuda")
    g.manual_seed(n)

    def tf32(x):
        bits = x.view(torch.int32).to(torch.int64)
        return ((bits + 0x1000) & 0xFFFFE000).to(torch.int32).view(torch.float32)

    act = tf32(torch.randn((n, 6, 4, 4, 64), device="cuda", generator=g))
    flt = tf32(torch.randn((128, 3, 3, 3, 64), device="cuda", generator=g))
    torch.backends.cudnn.allow_tf32 = False
    ref = torch.nn.functional.conv3d(act.permute(0, 4, 1, 2, 3), flt.permute(0, 4, 1, 2, 3))
    torch.backends.cudnn.allow_tf32 = True
    return torch, act, flt, ref.permute(0, 2, 3, 4, 1).contiguous(), g


def _rel(torch, got, want):
    return float((got - want).abs().max() / want.abs().max())


SEED = "seed"  # the seed's sm80 tiling; conv3d_fprop's sm80 choice for N; the Hopper kernels
HOPPER = ("sm90", "sm90-ws", "sm90-ws-tma", "sm90-taps")
CHOSEN = "chosen"  # what conv3d_fprop runs on this GPU for N (on Hopper: TMA dense kernels)
GPU_KERNELS = [SEED, "sm80", *HOPPER, CHOSEN]


def _kernels(which, n):
    if which == CHOSEN:
        return cv.default_kernels(n)
    if which in HOPPER:
        torch = pytest.importorskip("torch")
        if torch.cuda.get_device_capability() != (9, 0):
            pytest.skip("the wgmma kernels need an sm_90 GPU")
        if which == "sm90-taps":  # peeled, two K-tiles (one tap) per iteration
            return cv.make_conv3d_sm90(cv.Sm90Config(tail="peel", taps=True))
        loads = "tma" if which.endswith("-tma") else "cp.async"
        cfg = cv.Sm90Config(specialized=which != "sm90", loads=loads)  # 16 images
        return cv.make_conv3d_sm90(cfg)
    if which == SEED:
        return cv.conv3d_fprop_dense, cv.conv3d_fprop_gather
    return cv.default_kernels(n, "sm_80")  # 6 images at 4320, 16 at 131072


@pytest.mark.gpu
@pytest.mark.parametrize("which", GPU_KERNELS)
@pytest.mark.parametrize("n", [4320, 131072])
def test_dense_on_the_gpu_matches_torch(n, which):
    torch, act, flt, ref, _ = _torch_problem(n)
    out = torch.full((n, 4, 2, 2, 128), float("nan"), device="cuda")
    cv.conv3d_fprop(act, flt, out, kernels=_kernels(which, n))
    torch.cuda.synchronize()
    assert _rel(torch, out, ref) <= TOL


@pytest.mark.gpu
@pytest.mark.parametrize("which", GPU_KERNELS)
@pytest.mark.parametrize("n", [4320, 131072])
def test_gather_scatter_on_the_gpu_matches_torch(n, which):
    torch, act, flt, ref, g = _torch_problem(n)
    rows, orows = n * 96 + 123, n * 16 + 45
    gather = torch.randperm(rows, device="cuda", generator=g)[: n * 96].to(torch.int32)
    scatter = torch.randperm(orows, device="cuda", generator=g)[: n * 16].to(torch.int32)
    pool = torch.randn((rows, 64), device="cuda", generator=g)
    pool[gather.long()] = act.reshape(-1, 64)
    opool = torch.full((orows, 128), 7.0, device="cuda")
    cv.conv3d_fprop(pool, flt, opool, gather, scatter, kernels=_kernels(which, n))
    torch.cuda.synchronize()
    assert _rel(torch, opool[scatter.long()].view(n, 4, 2, 2, 128), ref) <= TOL
    others = torch.ones(orows, dtype=torch.bool, device="cuda")
    others[scatter.long()] = False
    assert bool((opool[others] == 7.0).all())


@pytest.mark.gpu
def test_numpy_arrays_are_copied_to_the_gpu():
    p = cv.random_problem(8, np.random.default_rng(3), spare=5)
    out_pool = np.full((p["out_rows"], 128), 7.0, np.float32)
    cv.conv3d_fprop(p["pool"], p["flt"], out_pool, gather=p["gather"], scatter=p["scatter"])
    _close(out_pool[p["scatter"]].reshape(8, 4, 2, 2, 128), cv.reference_conv3d(p["act"], p["flt"]))


@pytest.mark.gpu
def test_conv3d_fprop_chooses_the_wgmma_kernels_on_hopper():
    torch = pytest.importorskip("torch")
    hopper = torch.cuda.get_device_capability() == (9, 0)
    assert (cv.default_target() == "sm_90a") == hopper
    assert isinstance(cv.default_kernels(8)[0].config, cv.Sm90Config) == hopper
