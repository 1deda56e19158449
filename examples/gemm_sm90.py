"""A Hopper GEMM on the warpgroup tensor cores: ``wgmma.mma_async`` reading A and B straight
from shared memory, written as CuTe's sm90 GEMMs are.

``C = A @ B.T`` with A (M, K), B (N, K) K-major and C (M, N) row-major f32 (torch:
``torch.mm(a, b.t(), out_dtype=torch.float32)``). M and N must be multiples of the CTA tile,
K of its K-block (no predication yet).

Per CTA tile (128 x 128 by default) the kernel

1. keeps ``STAGES`` K-blocks of A and B in shared memory, filled by ``cp.async`` (128 bits per
   thread and copy) by every thread of the CTA;
2. lays each stage out in CuTe's canonical GMMA layout ``GMMA::Layout_K_SW128_Atom``
   (``lc.gmma_layout_atom("K", "SW128", dtype)`` = ``Sw<3,3,3> o (8,64):(64,1)`` for 16-bit
   types) tiled over the stage with ``lc.tile_to_shape``. The compiler *proves* that each
   64x16 (A) and BNx16 (B) slice the wgmma reads is canonical, and derives its matrix
   descriptor (LBO, SBO, swizzle mode) from the layout: a layout that is not canonical is an
   error at the ``lc.gemm`` line;
3. computes with a *tiled MMA* of ``WARPGROUPS`` warpgroups (128 threads each) of the atom
   ``SM90_64xBNx16_F32{F16F16,BF16BF16}_SS`` (tf32: ``SM90_64xBNx8_F32TF32TF32_SS_TN``, K-major
   only, bk = 32) along M: one ``lc.gemm`` issues, per stage, ``BK/K`` wgmmas per warpgroup (``warpgroup_arrive``, ``gemm``, ``warpgroup_commit_batch``,
   ``warpgroup_wait``), the FP32 accumulators in registers;
4. writes C from the accumulators (CuTe's ``CLayout_64xN``: two consecutive f32 per thread).

This is the first sm90 GEMM: it does not use TMA, mbarriers, warp specialization or
persistence yet (docs/hopper.md says what comes next). The CPU runtime runs it with the
hardware's semantics: the wgmma emulation reads A and B through the descriptors, so a wrong
descriptor or swizzle fails the numpy check below.

Run it:  layoutc run examples/gemm_sm90.py [--size 4096]   (size = M = N = K)
"""

from dataclasses import dataclass
from typing import Any

import layoutc as lc
import numpy as np
from layoutc import _

ELEMENTS = {"f16": lc.f16, "bf16": lc.bf16, "tf32": lc.tf32}
ATOMS = {  # dtype -> (CuTe's wgmma atom with N = {n}, K of one wgmma)
    "f16": ("SM90_64x{n}x16_F32F16F16_SS", 16),
    "bf16": ("SM90_64x{n}x16_F32BF16BF16_SS", 16),
    "tf32": ("SM90_64x{n}x8_F32TF32TF32_SS_TN", 8),
}


@dataclass(frozen=True)
class GemmConfig:
    """One tiling of the sm90 GEMM: element type of A and B (``f16``, ``bf16``; C is f32),
    CTA tile ``bm x bn x bk`` (``bk`` 16-bit elements = one 128-byte swizzled row),
    ``stages`` of the shared-memory pipeline, ``warpgroups`` (consumers along M), and
    ``mma_in_flight``: 0 waits for each K-block's wgmmas before the next; 1 keeps one K-block
    of wgmmas running while the next is issued (CUTLASS's ``K_PIPE_MMAS``), so a stage is
    refilled two K-blocks after it was read."""

    dtype: str = "f16"
    bm: int = 128
    bn: int = 128
    bk: int = 64
    stages: int = 4
    warpgroups: int = 2
    mma_in_flight: int = 1
    loads: str = "cp.async"

    @property
    def threads(self) -> int:
        """Consumers, plus a producer warpgroup when TMA loads the stages."""
        return 128 * (self.warpgroups + (self.loads == "tma"))

    @property
    def name(self) -> str:
        name = f"{self.dtype}-{self.bm}x{self.bn}x{self.bk}-s{self.stages}-wg{self.warpgroups}"
        name += f"-f{self.mma_in_flight}"
        return name + ("-tma" if self.loads == "tma" else "")

    @property
    def element(self) -> Any:
        return ELEMENTS[self.dtype]

    @property
    def atom(self) -> str:
        return ATOMS[self.dtype][0].format(n=self.bn)

    @property
    def vector(self) -> int:
        """Elements in one 128-bit cp.async."""
        return 128 // self.element.bits

    def smem_bytes(self) -> int:
        return self.stages * (self.bm + self.bn) * self.bk * self.element.bits // 8

    def check(self) -> None:
        """Raise ValueError for a tiling the kernel does not handle (with the reason)."""
        if self.dtype not in ELEMENTS:
            raise ValueError(f"dtype must be one of {sorted(ELEMENTS)}, got {self.dtype!r}")
        if self.bk * self.element.bits != 1024:
            raise ValueError(
                f"bk must make 128-byte rows ({1024 // self.element.bits} {self.dtype}), "
                f"got {self.bk}"
            )
        if self.bm % (64 * self.warpgroups):
            raise ValueError(
                f"{self.warpgroups} warpgroups of 64-row wgmmas do not tile bm={self.bm}"
            )
        if self.bn % 8 or not 8 <= self.bn <= 256:
            raise ValueError(f"bn must be a multiple of 8 in [8, 256], got {self.bn}")
        rows = self.threads * self.vector // self.bk
        if self.loads == "cp.async" and (self.bm % rows or self.bn % rows):
            raise ValueError(f"{self.threads} threads do not tile the {self.bm}x{self.bn} blocks")
        if self.loads not in ("cp.async", "tma"):
            raise ValueError(f"loads must be 'cp.async' or 'tma', got {self.loads!r}")
        if self.loads == "tma" and self.mma_in_flight:
            raise ValueError("the TMA mainloop keeps no wgmma in flight yet (mma_in_flight=0)")
        if self.mma_in_flight not in (0, 1):
            raise ValueError(f"mma_in_flight must be 0 or 1, got {self.mma_in_flight}")
        if self.stages < 2 + self.mma_in_flight:
            raise ValueError(
                f"the pipeline needs at least {2 + self.mma_in_flight} stages with "
                f"mma_in_flight={self.mma_in_flight}, got {self.stages}"
            )

    def grid(self, m: int, n: int) -> tuple[int, int]:
        if m % self.bm or n % self.bn:
            raise ValueError(f"{m}x{n} is not a multiple of the {self.bm}x{self.bn} CTA tile")
        return (m // self.bm, n // self.bn)


def make_gemm(cfg: GemmConfig, name: str | None = None) -> Any:
    """The kernel of one configuration (``gemm_sm90_f16_128x128x64_s4_wg2_f1``)."""
    cfg.check()
    if cfg.loads == "tma":
        return make_gemm_tma(cfg, name)
    elem, stages, in_flight = cfg.element, cfg.stages, cfg.mma_in_flight
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    mma = lc.make_tiled_mma(cfg.atom, lc.make_layout((cfg.warpgroups, 1, 1)))
    atom = lc.gmma_layout_atom("K", "SW128", elem)
    s_a = lc.tile_to_shape(atom, (bm, bk, stages))
    s_b = lc.tile_to_shape(atom, (bn, bk, stages))
    per_row = bk // cfg.vector  # threads covering one 128-byte row, 128 bits each
    g2s = lc.make_tiled_copy(
        lc.make_copy_atom("cp.async.cg", elem),
        lc.make_layout((cfg.threads // per_row, per_row), (per_row, 1)),
        lc.make_layout((1, cfg.vector)),
    )
    a_spec = lc.Tensor(elem, "(M,K):(K,1)")
    b_spec = lc.Tensor(elem, "(N,K):(K,1)")
    c_spec = lc.Tensor(lc.f32, "(M,N):(N,1)")

    @lc.kernel(name=name or "gemm_sm90_" + cfg.name.replace("-", "_"))
    def gemm_sm90(a: a_spec, b: b_spec, c: c_spec):
        tid = lc.thread_idx.x
        where = (lc.block_idx.x, lc.block_idx.y, _)
        gA = lc.local_tile(a, (bm, bn, bk), where, proj=(1, None, 1))  # (BM, BK, k)
        gB = lc.local_tile(b, (bm, bn, bk), where, proj=(None, 1, 1))  # (BN, BK, k)
        gC = lc.local_tile(c, (bm, bn, bk), where, proj=(1, 1, None))  # (BM, BN)
        sA = lc.dynamic_smem_tensor(elem, s_a, align=1024)  # (BM, BK, STAGES)
        sB = lc.dynamic_smem_tensor(elem, s_b, align=1024)  # (BN, BK, STAGES)

        g2s_thr = g2s.get_slice(tid)
        tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)
        tBgB, tBsB = g2s_thr.partition_S(gB), g2s_thr.partition_D(sB)
        k_tiles = lc.size(gA, 2)

        # Stage of K-tile t: t % STAGES. With F wgmma K-blocks in flight, iteration k refills
        # the stage read at k - 1 - F (every warpgroup has retired those wgmmas: it waited
        # for all but F groups before the barrier of iteration k) with K-tile k + S - 1 - F.
        ahead = stages - 1 - in_flight  # K-tiles loaded before the loop
        for s in range(ahead):
            kn = lc.min(s, k_tiles - 1)
            lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, s])
            lc.copy(g2s, tBgB[_, _, _, kn], tBsB[_, _, _, s])
            lc.cp_async_commit()

        thr_mma = mma.get_slice(tid)
        tCsA = thr_mma.partition_A(sA)  # (MMA, MMA_M, MMA_K, STAGES): whole 64x16 tiles
        tCsB = thr_mma.partition_B(sB)  # (MMA, MMA_N, MMA_K, STAGES)
        tCrC = thr_mma.partition_fragment_C(gC)  # (MMA, MMA_M, MMA_N)
        lc.clear(tCrC)

        read = 0  # the stage the wgmmas read
        write = ahead  # the stage the next cp.async fills
        for k in lc.range(k_tiles):
            lc.cp_async_wait(ahead - 1)  # stage `read` has landed (this thread's copies)
            lc.fence_proxy_async()  # ... and is visible to the wgmma (async proxy)
            lc.syncthreads()  # everyone's copies; and the wgmmas of stage `write` retired
            kn = lc.min(k + ahead, k_tiles - 1)
            lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, write])
            lc.copy(g2s, tBgB[_, _, _, kn], tBsB[_, _, _, write])
            lc.cp_async_commit()
            lc.warpgroup_fence_operand(tCrC)
            lc.warpgroup_arrive()
            lc.gemm(mma, tCsA[_, _, _, read], tCsB[_, _, _, read], tCrC)
            lc.warpgroup_commit_batch()
            lc.warpgroup_wait(in_flight)
            lc.warpgroup_fence_operand(tCrC)
            read = lc.where(read == stages - 1, 0, read + 1)
            write = lc.where(write == stages - 1, 0, write + 1)

        lc.warpgroup_wait(0)
        lc.warpgroup_fence_operand(tCrC)
        lc.copy(tCrC, thr_mma.partition_C(gC))

    return gemm_sm90


def make_gemm_tma(cfg: GemmConfig, name: str | None = None) -> Any:
    """The TMA mainloop (CPU runtime only for now: TMA descriptors are not yet kernel
    parameters on the GPU): warpgroup 0 is the producer (one elected thread issues a TMA load of
    A and of B per stage, completing on the stage's ``full`` mbarrier of an
    ``lc.PipelineTmaAsync``), warpgroups 1.. consume (wait for ``full``, wgmma, wait for the
    wgmma, release the stage's ``empty`` barrier): CUTLASS's warp-specialized sm90 mainloop
    without register reallocation or persistence."""
    elem, stages = cfg.element, cfg.stages
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    consumers = 128 * cfg.warpgroups
    mma = lc.make_tiled_mma(cfg.atom, lc.make_layout((cfg.warpgroups, 1, 1)))
    atom = lc.gmma_layout_atom("K", "SW128", elem)
    box_a = lc.tile_to_shape(atom, (bm, bk))  # one stage of A: the TMA box, canonical for wgmma
    box_b = lc.tile_to_shape(atom, (bn, bk))
    ring_a = lc.tile_to_shape(atom, (bm, bk, stages))
    ring_b = lc.tile_to_shape(atom, (bn, bk, stages))
    a_spec = lc.Tensor(elem, "(M,K):(K,1)")
    b_spec = lc.Tensor(elem, "(N,K):(K,1)")
    c_spec = lc.Tensor(lc.f32, "(M,N):(N,1)")

    @lc.kernel(name=name or "gemm_sm90_" + cfg.name.replace("-", "_"))
    def gemm_sm90_tma(a: a_spec, b: b_spec, c: c_spec):
        tid = lc.thread_idx.x
        tile_m, tile_n = lc.block_idx.x, lc.block_idx.y
        tma_a = lc.make_tma_copy("SM90_TMA_LOAD", a, box_a, (bm, bk))
        tma_b = lc.make_tma_copy("SM90_TMA_LOAD", b, box_b, (bn, bk))
        sA = lc.dynamic_smem_tensor(elem, ring_a, align=1024)
        sB = lc.dynamic_smem_tensor(elem, ring_b, align=1024)
        pipe = lc.PipelineTmaAsync(stages, tma_a.tx_bytes + tma_b.tx_bytes, consumers)
        k_tiles = lc.size(a, 1) // bk
        if tid < 32:  # the producer warp
            if lc.elect_one_sync():
                mA, mB = tma_a.get_tma_tensor(), tma_b.get_tma_tensor()
                for k in lc.range(k_tiles):
                    pipe.producer_acquire(k)
                    s = k % stages
                    stage_a = lc.make_tensor(
                        sA.iterator + lc.assume(s * (bm * bk), divisible_by=bm * bk), box_a
                    )
                    stage_b = lc.make_tensor(
                        sB.iterator + lc.assume(s * (bn * bk), divisible_by=bn * bk), box_b
                    )
                    bar = pipe.producer_mbar(k)
                    lc.tma_copy(tma_a, lc.local_tile(mA, (bm, bk), (tile_m, k)), stage_a, mbar=bar)
                    lc.tma_copy(tma_b, lc.local_tile(mB, (bn, bk), (tile_n, k)), stage_b, mbar=bar)
        elif tid >= 128:  # the consumer warpgroups
            ct = tid - 128
            gC = lc.local_tile(c, (bm, bn), (tile_m, tile_n))
            thr_mma = mma.get_slice(ct)
            tCrC = thr_mma.partition_fragment_C(gC)
            lc.clear(tCrC)
            for k in lc.range(k_tiles):
                pipe.consumer_wait(k)
                s = k % stages
                stage_a = lc.make_tensor(
                    sA.iterator + lc.assume(s * (bm * bk), divisible_by=bm * bk), box_a
                )
                stage_b = lc.make_tensor(
                    sB.iterator + lc.assume(s * (bn * bk), divisible_by=bn * bk), box_b
                )
                lc.warpgroup_fence_operand(tCrC)
                lc.warpgroup_arrive()
                lc.gemm(mma, thr_mma.partition_A(stage_a), thr_mma.partition_B(stage_b), tCrC)
                lc.warpgroup_commit_batch()
                lc.warpgroup_wait(0)
                lc.warpgroup_fence_operand(tCrC)
                pipe.consumer_release(k)
            lc.copy(tCrC, thr_mma.partition_C(gC))

    return gemm_sm90_tma


CONFIG = GemmConfig()
gemm_sm90 = make_gemm(CONFIG, "gemm_sm90")


def make_example(cfg: GemmConfig, kernel: Any, description: str) -> lc.Example:
    """Square matrices of side ``size`` rounded up to the tile, small integers (exact in f16
    and in the f32 sums). numpy has no bf16: bf16 runs from torch tensors (benchmarks)."""

    def inputs(size: int, rng: np.random.Generator) -> dict:
        m = -(-size // cfg.bm) * cfg.bm
        n = -(-size // cfg.bn) * cfg.bn
        k = -(-size // cfg.bk) * cfg.bk
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (n, k)).astype(np.float16)
        return {"a": a, "b": b, "c": np.full((m, n), np.nan, np.float32)}

    def reference(args: dict) -> dict:
        a, b = args["a"].astype(np.float64), args["b"].astype(np.float64)
        return {"c": (a @ b.T).astype(np.float32)}

    return lc.Example(
        kernel=kernel,
        inputs=inputs,
        launch=lambda args: {
            "grid": cfg.grid(*args["c"].shape),
            "block": cfg.threads,
            "smem": cfg.smem_bytes(),
        },
        reference=reference,
        size=cfg.bm,
        gpu_size=4096,
        description=description,
        flops=lambda args: 2 * args["a"].shape[0] * args["a"].shape[1] * args["c"].shape[1],
    )


EXAMPLE = make_example(
    CONFIG,
    gemm_sm90,
    "C = A @ B.T, f16 wgmma m64n128k16 SS (f32 accumulate), 2 consumer warpgroups, 128x128x64 "
    "CTA tiles, 4-stage cp.async pipeline into 128B-swizzled canonical GMMA layouts",
)
