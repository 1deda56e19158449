"""A fast tensor-core GEMM for Ampere and Hopper's ``mma.sync``, written as CuTe's sm80 GEMMs are
(CUTLASS ``examples/cute/tutorial/sgemm_sm80.cu``, the ``sm80_mma_multistage`` collective and
example 59's TF32 configuration), for any M, N, K and any operand majors.

``C = A @ B.T`` with A (M, K), B (N, K) and C (M, N), f32 C; in torch terms ``c = a @ b.T``.
Batched: A (L, M, K), B (L, N, K), C (L, M, N), one batch per ``block_idx.z``. The kernel is
traced once per spec, and the trace reads the spec:

- *majors*: an operand whose K stride is the static 1 is K-major (the tensor cores' own "TN"
  layout: swizzled K-major stages, ``ldmatrix.x4``); one whose M (N) stride is 1 is M- (N-)
  major (M-major stages ``Sw o (W,8):(1,W)``, cp.async along M, ``ldmatrix.x4.trans`` into
  the fragments for 16-bit types, 32-bit shared loads for tf32); any other strides work too,
  element by element. A column-major C is computed
  as ``C^T = B A^T`` (the operands swap roles), so the epilogue always writes rows.
- *alignment*: 128-bit cp.async where the spec proves every row of the operand 16-byte aligned
  (its divisibility facts), 64/32-bit cp.async or plain 16-bit copies otherwise.
- *residue*: a CTA whose tile lies inside C and whose K is a multiple of BK runs the pipeline
  below unpredicated. One inside C with a ragged K (longer than BK) peels the K residue as
  CUTLASS's ``sm80_mma_multistage`` does: its partial K-block is loaded first, guarded by its
  coordinates, and every following K-block is full and unpredicated. The others (the ragged
  M/N edges, or a K of one ragged K-block) run a copy of the pipeline in which every global
  access is guarded by its coordinate, CuTe's way: identity tensors tiled and partitioned
  exactly like the data, ``copy_if(..., bounds=shape)``, with zero-filling cp.async
  (``cp.async.cg.zfill``: a predicated-off element reads nothing and lands as 0, so it adds
  nothing to the sums) and predicated epilogue stores.

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
tiles, stages and warps with it); ``config.grid(m, n, batch)`` is its launch grid.

Run it:  layoutc run examples/gemm_tf32_sm80.py [--size 4096]   (size = M = N = K)
"""

from dataclasses import dataclass
from typing import Any

import layoutc as lc
import numpy as np
from layoutc import _
from layoutc.ir.algebra.intops import divides

FULL, PEELED, RESIDUE = "full", "peeled", "residue"  # the mainloop's kinds of tile
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

    def grid(self, m: int, n: int, batch: int = 1) -> tuple[int, int, int]:
        """The launch grid for an M x N product (``batch`` of them): one CTA per tile, the
        ragged last ones included (``raster`` folds N-tiles into x; CTAs past the last N-tile
        of a group find nothing to do)."""
        group = 1 << self.raster
        tiles_m, tiles_n = -(-m // self.bm), -(-n // self.bn)
        return (tiles_m * group, -(-tiles_n // group), batch)


def smem_swizzle(cfg: GemmConfig) -> Any:
    """The K-major shared-memory atom ``Sw<B,M,3> o (8,BK):(BK,1)``: 16-byte chunks (``2^M``
    elements) of a row XOR-ed with bits of the row index, ``B = 3`` for 128-byte rows (8
    chunks, 8 rows) and ``B = 2`` for 64-byte rows (4 chunks; rows in pairs): a quarter-warp's
    cp.async writes and ldmatrix's eight row reads each cover all 32 banks once."""
    row_bytes = cfg.bk * cfg.element.bits // 8
    chunk_bits = cfg.vector.bit_length() - 1
    b = 3 if row_bytes == 128 else 2
    return lc.composition(lc.Swizzle(b, chunk_bits, 3), lc.make_layout((8, cfg.bk), (cfg.bk, 1)))


def smem_swizzle_mn(cfg: GemmConfig, extent: int) -> Any:
    """The M- (or N-) major shared-memory atom for an operand whose global memory is contiguous
    along M (N): ``Sw<3,M,3> o (W,8):(1,W)`` with ``W`` elements = 128 bytes of a column (CUTLASS's
    ``Swizzle<3,2,3> o (32,8):(1,32)`` for tf32, ``Swizzle<3,3,3> o (64,8):(1,64)`` for 16-bit),
    narrowed to the tile's extent."""
    chunk_bits = cfg.vector.bit_length() - 1
    width = min(1024 // cfg.element.bits, extent)
    b = min(3, (width // cfg.vector).bit_length() - 1)
    return lc.composition(lc.Swizzle(b, chunk_bits, 3), lc.make_layout((width, 8), (1, width)))


def epilogue_swizzle(cfg: GemmConfig) -> Any:
    """The f32 C tile, row-major, 16-byte chunks XOR-ed with the row index mod 8: the MMA's
    64-bit writes (4 rows of 4 threads per half-warp) and the 128-bit row reads are both free
    of bank conflicts."""
    row_bits = cfg.bn.bit_length() - 1
    return lc.composition(
        lc.Swizzle(3, 2, row_bits - 2), lc.make_layout((cfg.bm, cfg.bn), (cfg.bn, 1))
    )


def unit_mode(t: Any) -> int | None:
    """The mode of a rank-2 tensor whose stride is the static 1 (1 preferred: K-major for A
    and B, row-major for C), or None when neither is."""
    for mode in (1, 0):
        d = t.stride[mode]
        if isinstance(d, int) and d == 1:
            return mode
    return None


def vector_width(t: Any, mode: int | None, limit: int) -> int:
    """Elements per access along ``mode`` (a power of two up to ``limit``) that the spec's facts
    allow everywhere: the base aligned to the access, the other mode's stride and the extent
    along ``mode`` multiples of it (so one residue predicate covers a whole vector)."""
    if mode is None:
        return 1
    lay = t.layout
    extent, other = lay.shape[mode], lay.stride[1 - mode]
    bits = t.element_type.bits
    v = limit
    while v > 1:
        if (t.alignment * 8) % (v * bits) == 0 and divides(v, extent) and divides(v, other):
            return v
        v //= 2
    return 1


def transposed(t: Any) -> Any:
    """The rank-2 tensor ``t`` with its modes swapped (CuTe's ``select<1,0>``)."""
    shape, stride = t.shape, t.stride
    return lc.make_tensor(t.iterator, lc.make_layout((shape[1], shape[0]), (stride[1], stride[0])))


class _Operand:
    """How one of A (M,K) and B (N,K) travels from global to shared memory and on into the
    MMA's registers, decided per spec: K-major (``Sw o (8,BK):(BK,1)`` stages, cp.async along K,
    ldmatrix.x4) or M/N-major (``Sw o (W,8):(1,W)`` stages, cp.async along M/N, ldmatrix.x4.trans
    for 16-bit types, 32-bit shared loads for tf32); ``vector`` elements per global access
    (the full 128 bits when the spec proves every row aligned, fewer otherwise)."""

    def __init__(self, cfg: GemmConfig, t: Any, extent: int):
        elem, threads = cfg.element, cfg.threads
        self.major = unit_mode(t)
        self.k_major = self.major != 0
        self.vector = vector_width(t, self.major, cfg.vector)
        if self.k_major:
            atom = smem_swizzle(cfg)
            per_row = cfg.bk // cfg.vector  # threads along K, a full vector each
            thr = lc.make_layout((threads // per_row, per_row), (per_row, 1))
            val = lc.make_layout((1, cfg.vector))
        else:
            atom = smem_swizzle_mn(cfg, extent)
            per_col = min(extent // cfg.vector, threads)  # threads along M/N
            thr = lc.make_layout((per_col, threads // per_col), (1, per_col))
            val = lc.make_layout((cfg.vector, 1))
        self.smem = lc.tile_to_shape(atom, (extent, cfg.bk, cfg.stages))
        bits = self.vector * elem.bits
        self.asynchronous = bits >= 32  # cp.async moves 4, 8 or 16 bytes
        if self.asynchronous:
            cache = "cg" if bits == 128 else "ca"
            full = lc.make_copy_atom(f"cp.async.{cache}", elem, bits=bits)
            zfill = lc.make_copy_atom(f"cp.async.{cache}.zfill", elem, bits=bits)
        else:  # 16-bit elements on 2-byte aligned rows: plain loads and stores
            full = zfill = lc.make_copy_atom("universal", elem, bits=bits)
        self.g2s = lc.make_tiled_copy(full, thr, val)
        self.g2s_pred = lc.make_tiled_copy(zfill, thr, val)
        if self.k_major:
            self.s2r = lc.make_copy_atom("ldmatrix.x4", elem)
        elif elem.bits == 16:  # CuTe's SM75_U16x8_LDSM_T: 8 M (N) values a row, transposed
            self.s2r = lc.make_copy_atom("ldmatrix.x4.trans", elem)
        else:  # no transposing ldmatrix for 32-bit values: one shared load each
            self.s2r = lc.make_copy_atom("universal", elem, bits=elem.bits)


def make_gemm(cfg: GemmConfig, name: str | None = None) -> Any:
    """The kernel of one configuration, named ``name`` or after the configuration
    (``gemm_tf32_128x128x32_s3_w2x2_smem``), so that several configurations can share one AOT
    artifact.

    ``C = A @ B.T`` for any M, N, K: A (M, K), B (N, K), C (M, N) of any strides, or batched:
    A (L, M, K), B (L, N, K), C (L, M, N), batch ``block_idx.z``. Each spec is traced on its
    own, and the trace reads the spec: which mode of each operand is contiguous (K-major or
    M/N-major operands, row- or column-major C: a column-major C is computed as C^T = B A^T), how
    wide its rows are provably aligned (128-bit accesses when they are). CTAs whose tile lies
    inside C and whose K is a multiple of BK run the unpredicated pipeline; those inside C with
    a ragged K peel it (the partial K-block first, predicated; the rest unpredicated); the
    others (the residue) predicate every global access on identity-tensor coordinates
    (zero-filling cp.async, predicated epilogue stores)."""
    cfg.check()
    elem, stages = cfg.element, cfg.stages
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    atom_name, atom_k = MMA_ATOMS[cfg.dtype]
    wm, wn = cfg.warps_m, cfg.warps_n
    # Two N atoms per warp in each 16*wm x 16*wn tile: a thread's B values for one K-block then
    # fill the four registers of an ldmatrix.x4 (CUTLASS's Tile<32,32,_> for 2x2 warps).
    mma = lc.make_tiled_mma(atom_name, lc.make_layout((wm, wn, 1)), (16 * wm, 16 * wn, atom_k))
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

    @lc.kernel(name=name or "gemm_" + cfg.name.replace("-", "_"), index_bitwidth="auto")
    def gemm_sm80(a: lc.Tensor[elem], b: lc.Tensor[elem], c: lc.Tensor[lc.f32]):
        tid = lc.thread_idx.x
        tile_m, tile_n = lc.block_idx.x, lc.block_idx.y
        if raster:  # static: consecutive CTAs walk 2^raster N-tiles of one M-tile
            tile_m, tile_n = tile_m >> raster, (tile_n << raster) + (tile_m & group_mask)
        if lc.rank(c) == 3:  # batched: (L, M, K) x (L, N, K) -> (L, M, N), batch block_idx.z
            batch = lc.block_idx.z
            a, b, c = a[batch, _, _], b[batch, _, _], c[batch, _, _]
        if unit_mode(c) == 0:  # column-major C: compute C^T = B A^T, row-major
            a, b, c = b, a, transposed(c)
            tile_m, tile_n = tile_n, tile_m
        op_a, op_b = _Operand(cfg, a, bm), _Operand(cfg, b, bn)
        where = (tile_m, tile_n, _)
        gA = lc.local_tile(a, (bm, bn, bk), where, proj=(1, None, 1))  # (BM, BK, k)
        gB = lc.local_tile(b, (bm, bn, bk), where, proj=(None, 1, 1))  # (BN, BK, k)
        gC = lc.local_tile(c, (bm, bn, bk), where, proj=(1, 1, None))  # (BM, BN)
        # the coordinates of every element (CuTe's identity tensors), tiled the same way
        cA = lc.local_tile(lc.make_identity_tensor(a.shape), (bm, bn, bk), where, (1, None, 1))
        cB = lc.local_tile(lc.make_identity_tensor(b.shape), (bm, bn, bk), where, (None, 1, 1))
        cC = lc.local_tile(lc.make_identity_tensor(c.shape), (bm, bn, bk), where, (1, 1, None))
        sA = lc.dynamic_smem_tensor(elem, op_a.smem)  # (BM, BK, STAGES)
        sB = lc.dynamic_smem_tensor(elem, op_b.smem)  # (BN, BK, STAGES), after sA
        k_tiles = lc.size(gA, 2)

        # the tiled MMA's register fragments and accumulators
        thr_mma = mma.get_slice(tid)
        tCrA = thr_mma.partition_fragment_A(sA[_, _, 0])  # (MMA, MMA_M, MMA_K)
        tCrB = thr_mma.partition_fragment_B(sB[_, _, 0])  # (MMA, MMA_N, MMA_K)
        tCrC = thr_mma.partition_fragment_C(gC)  # (MMA, MMA_M, MMA_N)
        lc.clear(tCrC)

        # shared -> registers: ldmatrix.x4 (K-major) into the MMA's fragments
        s2r_a, s2r_b = lc.make_tiled_copy_A(op_a.s2r, mma), lc.make_tiled_copy_B(op_b.s2r, mma)
        s2r_a_thr, s2r_b_thr = s2r_a.get_slice(tid), s2r_b.get_slice(tid)
        tXsA, tXrA = s2r_a_thr.partition_S(sA), s2r_a_thr.retile_D(tCrA)
        tXsB, tXrB = s2r_b_thr.partition_S(sB), s2r_b_thr.retile_D(tCrB)
        k_blocks = lc.size(tCrA, 2)

        def mainloop(mode):
            """The cp.async pipeline over the K-blocks. ``mode`` (static) is ``FULL``: no
            predicate anywhere; ``PEELED``: K is ragged, but the tile lies inside C and K spans
            more than one K-block: the partial K-block (the last) is loaded first, guarded by
            its coordinates, and every following load is a full K-block, unpredicated (CuTe's
            K-residue peeling); ``RESIDUE``: every global load is guarded by its coordinate
            (zero-filled outside A and B)."""
            predicated = mode == RESIDUE
            g2s_a = op_a.g2s_pred if predicated else op_a.g2s
            g2s_b = op_b.g2s_pred if predicated else op_b.g2s
            g2s_a_thr, g2s_b_thr = g2s_a.get_slice(tid), g2s_b.get_slice(tid)
            tAgA, tAsA = g2s_a_thr.partition_S(gA), g2s_a_thr.partition_D(sA)
            tBgB, tBsB = g2s_b_thr.partition_S(gB), g2s_b_thr.partition_D(sB)
            tAcA, tBcB = g2s_a_thr.partition_S(cA), g2s_b_thr.partition_S(cB)

            def load(kn, stage, guarded=predicated):
                if not guarded:
                    lc.copy(g2s_a, tAgA[_, _, _, kn], tAsA[_, _, _, stage])
                    lc.copy(g2s_b, tBgB[_, _, _, kn], tBsB[_, _, _, stage])
                    return
                # plain (2-byte) copies leave predicated-off elements alone: clear them first
                if not op_a.asynchronous:
                    lc.clear(tAsA[_, _, _, stage])
                if not op_b.asynchronous:
                    lc.clear(tBsB[_, _, _, stage])
                # (the zero-filling atoms move what the plain ones do: same partitions)
                lc.copy_if(op_a.g2s_pred, tAcA[_, _, _, kn], tAgA[_, _, _, kn],
                           tAsA[_, _, _, stage], bounds=a.shape)  # fmt: skip
                lc.copy_if(op_b.g2s_pred, tBcB[_, _, _, kn], tBgB[_, _, _, kn],
                           tBsB[_, _, _, stage], bounds=b.shape)  # fmt: skip

            def tile_of(k, ahead):
                """The K-block that the load ``ahead`` of iteration ``k`` fetches, clamped to
                the last one (the loads past the end fetch it again, unused). Peeled: the
                partial last K-block first, then 0, 1, ..., k_tiles - 2 (two or more)."""
                if mode != PEELED:
                    return lc.min(k + ahead, k_tiles - 1)
                if isinstance(k, int) and k + ahead == 0:
                    return k_tiles - 1
                return lc.min(k + (ahead - 1), k_tiles - 2)

            # prologue: the first STAGES-1 K-blocks in flight
            for s in range(stages - 1):
                load(tile_of(0, s), s, predicated or (mode == PEELED and s == 0))
                lc.cp_async_commit()

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
                        load(tile_of(k, stages - 1), write)
                        lc.cp_async_commit()
                        write = lc.where(write == stages - 1, 0, write + 1)
                    lc.gemm(mma, tCrA[_, _, kb], tCrB[_, _, kb], tCrC)

        def epilogue(predicated):
            """C from the accumulators; ``predicated``: only the elements inside C."""
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
                if predicated:
                    tDcC = s2g_thr.partition_D(cC)
                    lc.copy_if(tDcC, tDrC, s2g_thr.partition_D(gC), bounds=c.shape)
                else:  # 128-bit stores where C's rows are aligned (the spec says)
                    lc.copy(tDrC, s2g_thr.partition_D(gC))
            elif predicated:
                tCcC = thr_mma.partition_C(cC)
                lc.copy_if(tCcC, tCrC, thr_mma.partition_C(gC), bounds=c.shape)
            else:
                lc.copy(tCrC, thr_mma.partition_C(gC))

        m_size, n_size, k_size = a.shape[0], b.shape[0], a.shape[1]
        sizes = (a.layout.shape[0], b.layout.shape[0], a.layout.shape[1])
        peel = not divides(bk, sizes[2])  # K may be ragged: a peeled pipeline too
        if all(divides(t, x) for t, x in zip((bm, bn, bk), sizes)):
            # the spec proves every tile full (lc.compile(..., assume=["M%128==0", ...])):
            # no peeled or residue pipeline at all, a third of the code
            mainloop(FULL)
            epilogue(False)
        elif (tile_m + 1) * bm <= m_size and (tile_n + 1) * bn <= n_size and k_size % bk == 0:
            mainloop(FULL)  # a full tile: no predicates anywhere
            epilogue(False)
        elif peel and (tile_m + 1) * bm <= m_size and (tile_n + 1) * bn <= n_size and k_size > bk:
            mainloop(PEELED)  # inside C, K ragged: only the first load is predicated
            epilogue(False)
        else:  # the residue: M or N ragged (or K within one ragged K-block)
            mainloop(RESIDUE)
            epilogue(True)

    return gemm_sm80


CONFIG = GemmConfig()  # example 59's tile: 128x128x32, 3 stages, 2x2 warps, tf32
gemm_tf32_sm80 = make_gemm(CONFIG, "gemm_tf32_sm80")


def make_example(cfg: GemmConfig, kernel: Any, description: str) -> lc.Example:
    """The runnable problem of one configuration: square matrices of side ``size`` (any size:
    ragged tiles are predicated), small integers (exact in tf32 and f16 and in the f32 sums).
    numpy has no bf16, so bf16 runs from torch tensors only (benchmarks/gemm.py)."""
    numpy_type = {"tf32": np.float32, "f16": np.float16}[cfg.dtype]

    def inputs(size: int, rng: np.random.Generator) -> dict:
        m = n = k = size
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
