"""Kernels for the autotuner's tests: a 1-D copy with compile-time knobs (tile, repeats, a
deliberately wrong variant, a variant that does not compile), and a builder of it."""

from __future__ import annotations

from dataclasses import dataclass

import layoutc as lc

THREADS = 32


@lc.kernel
def knob_copy(
    src: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    tile: lc.Constexpr,
    reps: lc.Constexpr = 1,
    wrong: lc.Constexpr = False,
    broken: lc.Constexpr = False,
):
    """Copies ``src`` to ``dst`` ``reps`` times (a run-time loop: ``reps`` scales the work);
    ``wrong`` writes zeros instead; ``broken`` does not compile."""
    if broken:
        lc.no_such_function()
    tv = lc.make_layout((THREADS, tile // THREADS), (1, THREADS))
    gS = lc.local_tile(src, (tile,), (lc.block_idx.x,))
    gD = lc.local_tile(dst, (tile,), (lc.block_idx.x,))
    tS = lc.partition_tv(gS, tv, lc.thread_idx.x)
    tD = lc.partition_tv(gD, tv, lc.thread_idx.x)
    if wrong:
        lc.fill(tD, 0.0)
    else:
        for _ in lc.range(reps):
            lc.copy(tS, tD)


@dataclass(frozen=True)
class CopyConfig:
    tile: int = 256
    reps: int = 1
    broken: bool = False


def make_copy(cfg: CopyConfig):
    """A kernel builder: the configuration is bound when the kernel is defined."""
    tile, reps, broken = cfg.tile, cfg.reps, cfg.broken

    @lc.kernel(name=f"copy_t{tile}_r{reps}")
    def copy(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
        if broken:
            lc.no_such_function()
        tv = lc.make_layout((THREADS, tile // THREADS), (1, THREADS))
        gS = lc.local_tile(src, (tile,), (lc.block_idx.x,))
        gD = lc.local_tile(dst, (tile,), (lc.block_idx.x,))
        tS = lc.partition_tv(gS, tv, lc.thread_idx.x)
        tD = lc.partition_tv(gD, tv, lc.thread_idx.x)
        for _ in lc.range(reps):
            lc.copy(tS, tD)

    return copy
