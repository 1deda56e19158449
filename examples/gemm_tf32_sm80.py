"""A fast tensor-core GEMM for Ampere and Hopper's ``mma.sync``, written as CuTe's sm80 GEMMs are
(CUTLASS ``examples/cute/tutorial/sgemm_sm80.cu``, the ``sm80_mma_multistage`` collective and
example 59's TF32 configuration).

``C = A @ B.T`` with A (M, K), B (N, K) and C (M, N) row-major: both operands are *K-major*
("TN"), the layout the tensor cores read without transposing. In torch terms
``c = a @ b.T`` (``torch.matmul(a, b.t())``). M and N must be multiples of the CTA tile, K of its
K-block (no predication: the sizes are what the benchmark uses).

Per CTA tile (128 x 128 by default) the kernel

1. keeps ``STAGES`` K-blocks of A and B in shared memory, filled by ``cp.async`` (128 bits per
   thread and copy, straight from global to shared memory, ``commit``/``wait`` groups): while
   the tensor cores work on one stage, the next ones are in flight;
2. lays each stage out with a *swizzle* (``Sw<B,M,S> o (8,BK):(BK,1)`` tiled over the stage):
   the 16-byte chunks of a row are XOR-ed with the row index, so that neither the cp.async
   writes (a quarter-warp writes whole rows) nor the ``ldmatrix`` reads (eight rows of one
   column chunk) hit a bank twice;
3. moves fragments from shared memory to registers with ``ldmatrix.x4`` (``make_tiled_copy_A/B``
   of the MMA, ``retile_D`` of its register fragments), one K-block ahead of the MMAs that use
   them (register double buffering);
4. computes with a *tiled MMA*: ``WARPS_M x WARPS_N`` warps of the ``m16n8k8`` TF32 atom
   (``m16n8k16`` for f16/bf16, examples/gemm_f16_sm80.py), FP32 accumulators in registers;
5. writes C through shared memory (the pipeline buffers reused, as CUTLASS's ``SharedStorage``
   union): 64-bit stores of the accumulators into a swizzled tile, a barrier, then 128-bit
   coalesced stores to global memory.

The inputs are ``tf32`` tensors: f32 data whose low 13 mantissa bits the tensor cores ignore
(CuTe's ``tfloat32_t``; round the data first for round-to-nearest). The CPU runtime emulates the
same instructions; the check uses small integers, exact in TF32.

Everything about the tile is in :class:`GemmConfig`: ``make_gemm(config)`` builds the kernel
(examples/gemm_f16_sm80.py uses the same builder for f16 and bf16; benchmarks/gemm.py sweeps
tiles, stages and warps with it).

Run it:  layoutc run examples/gemm_tf32_sm80.py [--size 4096]   (size = M = N = K)
"""

from dataclasses import dataclass
from typing import Any

import layoutc as lc
import numpy as np
from layoutc import _

ELEMENTS = {"tf32": lc.tf32, "f16": lc.f16, "bf16": lc.bf16}
MMA_ATOMS = {
    "tf32": ("SM80_16x8x8_F32TF32TF32F32_TN", 8),
    "f16": ("SM80_16x8x16_F32F16F16F32_TN", 16),
    "bf16": ("SM80_16x8x16_F32BF16BF16F32_TN", 16),
}


@dataclass(frozen=True)
class GemmConfig:
    """One tiling of the sm80 GEMM: element type of A and B (``tf32``, ``f16``, ``bf16``; C is
    f32), CTA tile ``bm x bn x bk``, ``stages`` of the shared-memory pipeline, the warp grid
    ``warps_m x warps_n``, the ``epilogue`` (``smem``: through a swizzled shared tile with
    128-bit global stores; ``direct``: the accumulators straight to global memory, 64-bit),
    and the CTA ``raster``: 0 launches one CTA per tile in M-major order; ``r > 0`` groups
    ``2^r`` N-tiles per M-tile (CUTLASS's ``GemmIdentityThreadblockSwizzle<2^r>``), so that the
    CTAs resident together share more of A and B in L2."""

    dtype: str = "tf32"
    bm: int = 128
    bn: int = 128
    bk: int = 32
    stages: int = 3
    warps_m: int = 2
    warps_n: int = 2
    epilogue: str = "smem"
    raster: int = 0

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n

    @property
    def name(self) -> str:
        name = (
            f"{self.dtype}-{self.bm}x{self.bn}x{self.bk}-s{self.stages}"
            f"-w{self.warps_m}x{self.warps_n}-{self.epilogue}"
        )
        return name + (f"-r{self.raster}" if self.raster else "")

    @property
    def element(self) -> Any:
        return ELEMENTS[self.dtype]

    @property
    def vector(self) -> int:
        """Elements in one 128-bit access (cp.async, an ldmatrix row)."""
        return 128 // self.element.bits

    def smem_bytes(self) -> int:
        """Dynamic shared memory: the pipeline, or the epilogue tile if that is larger."""
        pipeline = self.stages * (self.bm + self.bn) * self.bk * self.element.bits // 8
        epilogue = self.bm * self.bn * 4 if self.epilogue == "smem" else 0
        return max(pipeline, epilogue)

    def check(self) -> None:
        """Raise ValueError for a tiling the kernel does not handle (with the reason)."""
        if self.dtype not in ELEMENTS:
            raise ValueError(f"dtype must be one of {sorted(ELEMENTS)}, got {self.dtype!r}")
        if self.epilogue not in ("smem", "direct"):
            raise ValueError(f"epilogue must be 'smem' or 'direct', got {self.epilogue!r}")
        row_bytes = self.bk * self.element.bits // 8
        if row_bytes not in (64, 128):
            raise ValueError(
                f"bk={self.bk} {self.dtype} makes {row_bytes}-byte shared rows; the swizzles "
                "here are for 64- and 128-byte rows"
            )
        if self.bm % (16 * self.warps_m) or self.bn % (16 * self.warps_n):
            raise ValueError(
                f"a {self.warps_m}x{self.warps_n} warp grid tiles {16 * self.warps_m}x"
                f"{16 * self.warps_n} (two m16n8 atoms per warp along N); the CTA tile "
                f"{self.bm}x{self.bn} must be a multiple of it"
            )
        rows = self.threads * self.vector // self.bk  # rows one cp.async sweep covers
        if (
            self.bm % rows
            or self.bn % rows
            or self.bn % 4
            or self.bm * self.bn % (4 * self.threads)
        ):
            raise ValueError(f"{self.threads} threads do not tile the {self.bm}x{self.bn} blocks")
        if self.stages < 2:
            raise ValueError(f"the pipeline needs at least 2 stages, got {self.stages}")
        if self.raster not in range(5):
            raise ValueError(
                f"raster must be 0 to 4 (log2 of N-tiles per group), got {self.raster}"
            )

    def grid(self, m: int, n: int) -> tuple[int, int]:
        """The launch grid for an M x N product (``raster`` folds N-tiles into x)."""
        if m % self.bm or n % self.bn:
            raise ValueError(f"{m}x{n} is not a multiple of the {self.bm}x{self.bn} CTA tile")
        group = 1 << self.raster
        if (n // self.bn) % group:
            raise ValueError(
                f"raster={self.raster} groups {group} N-tiles: {n // self.bn} tiles do not divide"
            )
        return ((m // self.bm) * group, n // self.bn // group)


def smem_swizzle(cfg: GemmConfig) -> Any:
    """The K-major shared-memory atom ``Sw<B,M,3> o (8,BK):(BK,1)``: 16-byte chunks (``2^M``
    elements) of a row XOR-ed with bits of the row index, ``B = 3`` for 128-byte rows (8
    chunks, 8 rows) and ``B = 2`` for 64-byte rows (4 chunks; rows in pairs): a quarter-warp's
    cp.async writes and ldmatrix's eight row reads each cover all 32 banks once."""
    row_bytes = cfg.bk * cfg.element.bits // 8
    chunk_bits = cfg.vector.bit_length() - 1
    b = 3 if row_bytes == 128 else 2
    return lc.composition(lc.Swizzle(b, chunk_bits, 3), lc.make_layout((8, cfg.bk), (cfg.bk, 1)))


def epilogue_swizzle(cfg: GemmConfig) -> Any:
    """The f32 C tile, row-major, 16-byte chunks XOR-ed with the row index mod 8: the MMA's
    64-bit writes (4 rows of 4 threads per half-warp) and the 128-bit row reads are both free
    of bank conflicts."""
    row_bits = cfg.bn.bit_length() - 1
    return lc.composition(
        lc.Swizzle(3, 2, row_bits - 2), lc.make_layout((cfg.bm, cfg.bn), (cfg.bn, 1))
    )


def make_gemm(cfg: GemmConfig, name: str | None = None) -> Any:
    """The kernel of one configuration (every size and layout bound when it is defined),
    named ``name`` or after the configuration (``gemm_tf32_128x128x32_s3_w2x2_smem``), so that
    several configurations can share one AOT artifact."""
    cfg.check()
    elem, stages = cfg.element, cfg.stages
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    atom_name, atom_k = MMA_ATOMS[cfg.dtype]
    wm, wn = cfg.warps_m, cfg.warps_n
    # Two N atoms per warp in each 16*wm x 16*wn tile: a thread's B values for one K-block then
    # fill the four registers of an ldmatrix.x4 (CUTLASS's Tile<32,32,_> for 2x2 warps).
    mma = lc.make_tiled_mma(atom_name, lc.make_layout((wm, wn, 1)), (16 * wm, 16 * wn, atom_k))
    sw = smem_swizzle(cfg)
    s_a = lc.tile_to_shape(sw, (bm, bk, stages))
    s_b = lc.tile_to_shape(sw, (bn, bk, stages))
    per_row = bk // cfg.vector  # threads covering one row of a K-block, 128 bits each
    g2s = lc.make_tiled_copy(
        lc.make_copy_atom("cp.async.cg", elem),
        lc.make_layout((cfg.threads // per_row, per_row), (per_row, 1)),
        lc.make_layout((1, cfg.vector)),
    )
    ldsm = lc.make_copy_atom("ldmatrix.x4", elem)
    s_c = epilogue_swizzle(cfg)
    r2s = lc.make_copy_atom("universal", lc.f32, bits=64)
    per_row_c = bn // 4
    s2g = lc.make_tiled_copy(
        lc.make_copy_atom("universal", lc.f32, bits=128),
        lc.make_layout((cfg.threads // per_row_c, per_row_c), (per_row_c, 1)),
        lc.make_layout((1, 4)),
    )
    smem_epilogue = cfg.epilogue == "smem"
    raster, group_mask = cfg.raster, (1 << cfg.raster) - 1
    # annotations evaluated here (this file has no `from __future__ import annotations`), so
    # they can name the configuration's element type
    a_spec = lc.Tensor(elem, "(M,K):(K,1)")
    b_spec = lc.Tensor(elem, "(N,K):(K,1)")
    c_spec = lc.Tensor(lc.f32, "(M,N):(N,1)")

    @lc.kernel(name=name or "gemm_" + cfg.name.replace("-", "_"))
    def gemm_sm80(a: a_spec, b: b_spec, c: c_spec):
        tid = lc.thread_idx.x
        tile_m, tile_n = lc.block_idx.x, lc.block_idx.y
        if raster:  # static: consecutive CTAs walk 2^raster N-tiles of one M-tile
            tile_m, tile_n = tile_m >> raster, (tile_n << raster) + (tile_m & group_mask)
        where = (tile_m, tile_n, _)
        gA = lc.local_tile(a, (bm, bn, bk), where, proj=(1, None, 1))  # (BM, BK, k)
        gB = lc.local_tile(b, (bm, bn, bk), where, proj=(None, 1, 1))  # (BN, BK, k)
        gC = lc.local_tile(c, (bm, bn, bk), where, proj=(1, 1, None))  # (BM, BN)
        sA = lc.dynamic_smem_tensor(elem, s_a)  # (BM, BK, STAGES)
        sB = lc.dynamic_smem_tensor(elem, s_b)  # (BN, BK, STAGES), after sA

        # global -> shared: cp.async, 128 bits per thread and copy
        g2s_thr = g2s.get_slice(tid)
        tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)  # (CPY, CPY_M, CPY_K, .)
        tBgB, tBsB = g2s_thr.partition_S(gB), g2s_thr.partition_D(sB)
        k_tiles = lc.size(gA, 2)

        # prologue: the first STAGES-1 K-blocks in flight (clamped: K may be a single block)
        for s in range(stages - 1):
            kn = lc.min(s, k_tiles - 1)
            lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, s])
            lc.copy(g2s, tBgB[_, _, _, kn], tBsB[_, _, _, s])
            lc.cp_async_commit()

        # the tiled MMA's register fragments and accumulators
        thr_mma = mma.get_slice(tid)
        tCrA = thr_mma.partition_fragment_A(sA[_, _, 0])  # (MMA, MMA_M, MMA_K)
        tCrB = thr_mma.partition_fragment_B(sB[_, _, 0])  # (MMA, MMA_N, MMA_K)
        tCrC = thr_mma.partition_fragment_C(gC)  # (MMA, MMA_M, MMA_N)
        lc.clear(tCrC)

        # shared -> registers: ldmatrix.x4 into the MMA's fragments
        s2r_a, s2r_b = lc.make_tiled_copy_A(ldsm, mma), lc.make_tiled_copy_B(ldsm, mma)
        s2r_a_thr, s2r_b_thr = s2r_a.get_slice(tid), s2r_b.get_slice(tid)
        tXsA, tXrA = s2r_a_thr.partition_S(sA), s2r_a_thr.retile_D(tCrA)
        tXsB, tXrB = s2r_b_thr.partition_S(sB), s2r_b_thr.retile_D(tCrB)
        k_blocks = lc.size(tCrA, 2)

        lc.cp_async_wait(stages - 2)  # the first K-block has landed
        lc.syncthreads()
        lc.copy(s2r_a, tXsA[_, _, 0, 0], tXrA[_, _, 0])
        lc.copy(s2r_b, tXsB[_, _, 0, 0], tXrB[_, _, 0])

        read = 0  # the stage the MMAs read
        write = stages - 1  # the stage the next cp.async fills
        for k in lc.range(k_tiles):
            for kb in range(k_blocks):  # unrolled: fragments are registers
                if kb == k_blocks - 1:  # the next stage must have landed, for every warp
                    lc.cp_async_wait(stages - 2)
                    lc.syncthreads()
                    read = lc.where(read == stages - 1, 0, read + 1)
                nxt = (kb + 1) % k_blocks  # load one K-block ahead of the MMAs
                lc.copy(s2r_a, tXsA[_, _, nxt, read], tXrA[_, _, nxt])
                lc.copy(s2r_b, tXsB[_, _, nxt, read], tXrB[_, _, nxt])
                if kb == 0:  # refill the stage every warp has finished reading
                    kn = lc.min(k + stages - 1, k_tiles - 1)
                    lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, write])
                    lc.copy(g2s, tBgB[_, _, _, kn], tBsB[_, _, _, write])
                    lc.cp_async_commit()
                    write = lc.where(write == stages - 1, 0, write + 1)
                lc.gemm(mma, tCrA[_, _, kb], tCrB[_, _, kb], tCrC)

        if smem_epilogue:
            lc.cp_async_wait(0)  # no copy may land in the pipeline buffers sC reuses
            lc.syncthreads()
            sC = lc.dynamic_smem_tensor(lc.f32, s_c, offset=0)
            r2s_copy = lc.make_tiled_copy_C(r2s, mma)
            r2s_thr = r2s_copy.get_slice(tid)
            lc.copy(r2s_copy, r2s_thr.retile_S(tCrC), r2s_thr.partition_D(sC))
            lc.syncthreads()
            s2g_thr = s2g.get_slice(tid)
            tDsC = s2g_thr.partition_S(sC)
            tDrC = lc.make_fragment_like(tDsC)
            lc.copy(s2g, tDsC, tDrC)
            lc.copy(s2g, tDrC, s2g_thr.partition_D(gC))
        else:
            lc.copy(tCrC, thr_mma.partition_C(gC))

    return gemm_sm80


CONFIG = GemmConfig()  # example 59's tile: 128x128x32, 3 stages, 2x2 warps, tf32
gemm_tf32_sm80 = make_gemm(CONFIG, "gemm_tf32_sm80")


def make_example(cfg: GemmConfig, kernel: Any, description: str) -> lc.Example:
    """The runnable problem of one configuration: square matrices of side ``size`` rounded up
    to the tile, small integers (exact in tf32 and f16 and in the f32 sums). numpy has no
    bf16, so bf16 runs from torch tensors only (benchmarks/gemm.py)."""
    numpy_type = {"tf32": np.float32, "f16": np.float16}[cfg.dtype]

    def inputs(size: int, rng: np.random.Generator) -> dict:
        m = -(-size // cfg.bm) * cfg.bm
        n = -(-size // cfg.bn) * cfg.bn
        k = -(-size // cfg.bk) * cfg.bk
        a = rng.integers(-4, 5, (m, k)).astype(numpy_type)
        b = rng.integers(-4, 5, (n, k)).astype(numpy_type)
        return {"a": a, "b": b, "c": np.full((m, n), np.nan, np.float32)}

    def reference(args: dict) -> dict:
        a, b = args["a"].astype(np.float64), args["b"].astype(np.float64)
        return {"c": (a @ b.T).astype(np.float32)}

    return lc.Example(
        kernel=kernel,
        inputs=inputs,
        launch=lambda args: {"grid": cfg.grid(*args["c"].shape), "block": cfg.threads},
        reference=reference,
        size=cfg.bm,
        gpu_size=4096,
        description=description,
        flops=lambda args: 2 * args["a"].shape[0] * args["a"].shape[1] * args["c"].shape[1],
    )


EXAMPLE = make_example(
    CONFIG,
    gemm_tf32_sm80,
    "C = A @ B.T, tf32 mma.sync m16n8k8, 128x128x32 CTA tiles, 3-stage cp.async pipeline, "
    "swizzled smem, ldmatrix.x4, smem epilogue",
)
