"""CUTLASS example 59 in layoutc: a 3-D convolution (forward propagation) as an implicit GEMM,
dense and gather/scatter, computed by ONE kernel body written against layouts.

The problem (static except the number of images ``N``, a multiple of 4): activation NDHWC
``(N,6,4,4,64)``, filter KTRSC ``(128,3,3,3,64)``, output NZPQK ``(N,4,2,2,128)``; stride 1,
no padding, TF32 inputs, FP32 accumulation and output; ``7,077,888 * N`` FLOP.

As in the seed, the filter is the GEMM's A (``K x (C,T,R,S)``), the *im2col* view of the
activation is B and the output is C:

    A  (K,(C,T,R,S))          : (TRSC,(1,RSC,SC,C))              filter
    B  ((N,Z,P,Q),(C,T,R,S))  : ((DHWC,HWC,WC,C),(1,HWC,WC,C))    activation, im2col view
    C  (K,(N,Z,P,Q))          : (1,(ZPQK,PQK,QK,K))               output

Nothing is copied to build the im2col matrix: B is a layout over the activation's memory
(its T,R,S strides are the D,H,W strides, because output position z reads input z+t).

The gather/scatter problem keeps the activation as a *pool* of 64-channel rows and an index
vector naming the row of every input position (n,d,h,w); the output is a pool of 128-channel
rows named by a scatter vector over (n,z,p,q). Only B and C change, into CuTe gather layouts
(CUTLASS ``gather_tensor.hpp``): an inner layout with *basis strides* maps a coordinate to an
arithmetic tuple (index-buffer position ``E<0>``, dense offset ``E<1>``), and the outer layout
``(1,1):(Custom{idx,64},1)`` turns it into ``idx[position]*64 + offset``. The kernel body,
:func:`conv_mainloop`, is the same function for both: it only tiles and partitions tensors.

Per CTA (128 threads, 2x2 warps): all 128 output channels x 4 images' 16 output positions; the
K loop walks 54 blocks of 32 channels of one filter tap through a 3-stage ``cp.async``
pipeline (128-bit copies, proven by prove-vectorization also through the gather), swizzled
shared memory ``Sw<3,2,3> o (8,32):(32,1)``, ``ldmatrix.x4``, ``mma.sync.m16n8k8`` TF32; the
epilogue goes through a swizzled shared tile and leaves with 128-bit stores (scattered rows
for the gather variant). That is the seed's tiling (:data:`SEED_CONFIG`, the module's kernels);
:class:`ConvConfig` builds others (:func:`make_conv3d`), and on a GPU without wgmma
``conv3d_fprop`` runs the one :func:`sm80_config` picks for N: 16 images on 2x4 warps (the
default, a 128x256 tile) or 6 images on 2x2 warps where that fills the waves better.

Call it:  ``conv3d_fprop(activation, filter, output)`` (dense) or
``conv3d_fprop(pool, filter, out_pool, gather=g, scatter=s)``; numpy arrays run on the CPU
runtime (copied to the GPU when there is one), torch/CuPy/DLPack arrays where they live.

Run it:  layoutc run examples/conv3d_fprop.py [--size N]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import layoutc as lc
import numpy as np
from layoutc import _

# -- the problem (FACTS.md, "Example 59, exact configuration") ------------------------------------
D, H, W = 6, 4, 4  # activation spatial extents
T, R, S = 3, 3, 3  # filter taps
Z, P, Q = 4, 2, 2  # output spatial extents (stride 1, no padding)
C, K = 64, 128  # input and output channels
IMAGES_PER_CTA = 4
FLOPS_PER_IMAGE = 2 * Z * P * Q * K * C * T * R * S  # 7,077,888


@dataclass(frozen=True)
class ConvConfig:
    """A tiling of example 59: CTA tile ``K x (images,Z,P,Q) x (bk,1,1,1)`` (bk channels of one
    filter tap per K-block), ``stages`` of the cp.async pipeline, ``warps_m x warps_n`` warps
    of m16n8k8 TF32, and ``min_blocks`` CTAs per SM promised to ptxas (``nvvm.minctasm``: it
    caps the registers so that they fit). The default is the fastest measured on an H100 at
    large N: 16 images (a 128x256 tile), 32 channels, 3 stages, 2x4 warps of 64x64 each; the
    seed's tiling (4 images on 2x2 warps of 64x32) is :data:`SEED_CONFIG`."""

    stages: int = 3
    bk: int = 32
    images: int = 16
    warps_m: int = 2
    warps_n: int = 4
    min_blocks: int | None = None
    epilogue: str = "smem"
    l1: str = ""  # the operands ("a", "b", "ab") copied with cp.async.ca (kept in L1), not .cg

    @property
    def name(self) -> str:
        name = f"s{self.stages}-k{self.bk}-i{self.images}-w{self.warps_m}x{self.warps_n}"
        name += f"-m{self.min_blocks}" if self.min_blocks else ""
        name += f"-ca{self.l1}" if self.l1 else ""
        return name + ("-direct" if self.epilogue == "direct" else "")

    @property
    def threads(self) -> int:
        return 32 * self.warps_m * self.warps_n

    @property
    def tile_n(self) -> int:
        """Output positions per CTA: ``images`` x Z*P*Q."""
        return self.images * Z * P * Q

    @property
    def images_last(self) -> bool:
        """Order the output positions (Z,P,Q,N) when ``images`` is not a power of 2 (the
        MMA's 32-row blocks of a ``(6,4,2,2)`` tile would split its first mode)."""
        return bool(self.images & (self.images - 1))

    def smem_bytes(self) -> int:
        """Dynamic shared memory: the pipeline, or the epilogue tile if larger."""
        pipeline = self.stages * (K + self.tile_n) * self.bk * 4
        return max(pipeline, K * self.tile_n * 4)

    def check(self) -> None:
        """Raise ValueError for a tiling the kernel does not handle."""
        if self.epilogue not in ("smem", "direct") or self.l1 not in ("", "a", "b", "ab"):
            raise ValueError(f"epilogue must be 'smem' or 'direct', l1 '', a, b or ab: {self}")
        if self.bk not in (16, 32) or self.stages < 2 or self.images not in range(2, 17, 2):
            raise ValueError(f"bk must be 16 or 32, stages >= 2, images even, 2 to 16: {self}")
        if K % (32 * self.warps_m) or self.tile_n % (16 * self.warps_n):
            raise ValueError(f"{self.warps_m}x{self.warps_n} warps do not tile {K}x{self.tile_n}")
        rows = self.threads * 4 // self.bk  # rows per pass of the 128-bit copies
        if K % rows or self.tile_n % rows:
            raise ValueError(f"{self.threads} threads' copies do not tile {K}x{self.tile_n}")
        if (K * self.tile_n) % (4 * self.threads) or self.threads % (K // 4):
            raise ValueError(f"{self.threads} threads do not tile the epilogue")
        if self.smem_bytes() > 227 * 1024:
            raise ValueError(f"{self.smem_bytes()} bytes of shared memory: {self}")


# -- the operands: the layouts of example 59 over the kernel arguments ------------------------------
def filter_tensor(flt: Any) -> Any:
    """A: (K,(C,T,R,S)) over the KTRSC filter."""
    sk, st, sr, ss, sc = flt.stride
    return lc.make_tensor(flt.iterator, lc.make_layout((K, (C, T, R, S)), (sk, (sc, st, sr, ss))))


def positions(
    shape: tuple, stride: tuple, images_last: bool, walk: bool = False
) -> tuple[tuple, tuple]:
    """The output-position mode ``(N,Z,P,Q)``, or ``(Z,P,Q,N)`` with ``images_last`` (a CTA
    tile of 12 images is then ``(4,2,2,12)``, which the 32-row copies divide; ``(12,4,2,2)``
    they do not: 12 and 32 divide neither way), or ``(Q,P,Z,N)`` with ``walk``: the order in
    which a TMA im2col load walks the output positions (W fastest, then H, D and the image)."""
    if walk:
        return shape[::-1], stride[::-1]
    if images_last:
        return shape[1:] + shape[:1], stride[1:] + stride[:1]
    return shape, stride


def dense_operands(
    activation: Any, filter: Any, output: Any, images_last: bool = False, walk: bool = False
) -> tuple[Any, Any, Any]:
    """A, B and C of the dense problem: the filter, the im2col view of the activation, the
    output as (K,(N,Z,P,Q)); traced inside a kernel (N is the activation's run-time extent).
    ``walk``: positions ordered (Q,P,Z,N) as a TMA im2col load brings them."""
    n = activation.shape[0]
    sn, sd, sh, sw, sc = activation.stride
    # im2col: output position (z,p,q) and tap (t,r,s) read input (z+t, p+r, q+s)
    pos = positions((n, Z, P, Q), (sn, sd, sh, sw), images_last, walk)
    im2col = lc.make_layout((pos[0], (C, T, R, S)), (pos[1], (sc, sd, sh, sw)))
    on, oz, op, oq, ok = output.stride
    pos = positions((n, Z, P, Q), (on, oz, op, oq), images_last, walk)
    out = lc.make_layout((K, pos[0]), (ok, pos[1]))
    return (
        filter_tensor(filter),
        lc.make_tensor(activation.iterator, im2col),
        lc.make_tensor(output.iterator, out),
    )


def gather_operands(
    activation: Any,
    filter: Any,
    output: Any,
    gather: Any,
    scatter: Any,
    images_last: bool = False,
    walk: bool = False,
) -> tuple[Any, Any, Any]:
    """A, B and C of the gather/scatter problem: B and C are gather layouts (an IndexedGather
    outer layout over basis strides) over the pools; traced inside a kernel. ``walk``:
    positions ordered (Q,P,Z,N), as :func:`dense_operands`'s."""
    n = lc.size(scatter) // (Z * P * Q)
    EG, EC = lc.E(0), lc.E(1)  # index-buffer position, dense offset
    # ((n,z,p,q),(c,t,r,s)) -> (position of input (n,z+t,p+r,q+s) in `gather`, channel c)
    pos = positions((n, Z, P, Q), (D * H * W * EG, H * W * EG, W * EG, EG), images_last, walk)
    act_inner = lc.make_layout((pos[0], (C, T, R, S)), (pos[1], (EC, H * W * EG, W * EG, EG)))
    # (position, offset) -> gather[position] * C + offset
    act_outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(gather), C), 1))
    act = lc.composition(act_outer, lc.make_arithmetic_tuple(0, 0), act_inner)
    pos = positions((n, Z, P, Q), (Z * P * Q * EG, P * Q * EG, Q * EG, EG), images_last, walk)
    out_inner = lc.make_layout((K, pos[0]), (EC, pos[1]))
    out_outer = lc.make_layout((1, 1), (lc.CustomStride(lc.IndexedGather(scatter), K), 1))
    out = lc.composition(out_outer, lc.make_arithmetic_tuple(0, 0), out_inner)
    return (
        filter_tensor(filter),
        lc.make_tensor(activation.iterator, act),
        lc.make_tensor(output.iterator, out),
    )


# The kernels' index width: 32 bits where the arrays' spec proves every offset fits (N up to
# about 170000 images), else 64 (docs/gemm.md). At N = 4320 on an H100 the 64-bit dense Hopper
# kernel took 12% longer (0.130 against 0.116 ms); benchmarks/conv.py compiles at 32.
INDEX = "auto"

# The kernels' parameters, one declaration for the sm80 and the Hopper kernels. Dense: NDHWC
# activation, KTRSC filter, NZPQK output (only N is a run-time extent). Gather/scatter: pools of
# channel vectors (rows of 64 and 128) and the int32 row numbers that pick them.
ACTIVATION = lc.Tensor(lc.tf32, "(N,6,4,4,64):(6144,1024,256,64,1)")
FILTER = lc.Tensor(lc.tf32, "(128,3,3,3,64):(1728,576,192,64,1)")
OUTPUT = lc.Tensor(lc.f32, "(N,4,2,2,128):(2048,512,256,128,1)")
ACTIVATION_POOL = lc.Tensor(lc.tf32, "(A,64):(64,1)")
OUTPUT_POOL = lc.Tensor(lc.f32, "(B,128):(128,1)")
GATHER_ROWS = lc.Tensor(lc.i32, "(G):(1)")
SCATTER_ROWS = lc.Tensor(lc.i32, "(O):(1)")


def make_conv3d(cfg: ConvConfig = ConvConfig()) -> tuple[Any, Any]:
    """The dense and the gather/scatter kernel of one configuration: two entry points that
    build their tensors' layouts, one body (:func:`conv_mainloop`)."""
    cfg.check()
    bm, bk, stages = K, (cfg.bk, 1, 1, 1), cfg.stages
    last = cfg.images_last
    bn = (Z, P, Q, cfg.images) if last else (cfg.images, Z, P, Q)
    tile_n, threads = cfg.tile_n, cfg.threads
    wm, wn = cfg.warps_m, cfg.warps_n
    mma = lc.make_tiled_mma(
        "SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((wm, wn, 1)), (16 * wm, 16 * wn, 8)
    )
    # Sw<B,2,3> o (8,bk):(bk,1): 16-byte chunks of a row XOR-ed with the row index
    swizzle = lc.Swizzle(3 if cfg.bk == 32 else 2, 2, 3)
    atom = lc.composition(swizzle, lc.make_layout((8, cfg.bk), (cfg.bk, 1)))
    s_a = lc.tile_to_shape(atom, (bm, cfg.bk, stages))
    s_b = lc.tile_to_shape(atom, (tile_n, cfg.bk, stages))
    per_row = cfg.bk // 4

    def g2s_copy(operand: str) -> Any:  # 128-bit copies, 8 threads per 32-channel row
        return lc.make_tiled_copy(
            lc.make_copy_atom("cp.async.ca" if operand in cfg.l1 else "cp.async.cg", lc.tf32, 128),
            lc.make_layout((threads // per_row, per_row), (per_row, 1)),
            lc.make_layout((1, 4)),
        )

    g2s, g2s_b = g2s_copy("a"), g2s_copy("b")  # the same partitions, maybe other caching
    ldsm = lc.make_copy_atom("ldmatrix.x4", lc.tf32)
    # The C tile is channel-major (K contiguous, like the output): 16-byte chunks of a column
    # XOR-ed with bits 1-3 of the column, so that the accumulators' 32-bit writes (8 rows x 4
    # columns per warp) and the 128-bit column reads are free of bank conflicts.
    s_c = lc.composition(lc.Swizzle(3, 2, 5), lc.make_layout((bm, tile_n), (1, bm)))
    r2s = lc.make_copy_atom("universal", lc.f32, bits=32)
    s2g = lc.make_tiled_copy(
        lc.make_copy_atom("universal", lc.f32, bits=128),
        lc.make_layout((bm // 4, threads // (bm // 4)), (1, bm // 4)),
        lc.make_layout((4, 1)),
    )

    @lc.func
    def conv_mainloop(mA: Any, mB: Any, mC: Any) -> None:
        """C = A B^T for one CTA tile, whatever the layouts of A, B and C: CuTe's sm80
        multistage mainloop (CUTLASS's ``CollectiveMma<MainloopSm80CpAsync...>``)."""
        tid = lc.thread_idx.x
        where = (0, lc.block_idx.x, _)
        gA = lc.local_tile(mA, (bm, bn, bk), where, proj=(1, None, 1))  # (BM,BK,k)
        gB = lc.local_tile(mB, (bm, bn, bk), where, proj=(None, 1, 1))  # (BN,BK,k)
        gC = lc.local_tile(mC, (bm, bn, bk), where, proj=(1, 1, None))  # (BM,BN)
        sA = lc.dynamic_smem_tensor(lc.tf32, s_a)  # (BM,BK,STAGES)
        sB = lc.dynamic_smem_tensor(lc.tf32, s_b)  # (BN,BK,STAGES)

        g2s_thr = g2s.get_slice(tid)
        tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)
        tBgB, tBsB = g2s_thr.partition_S(gB), g2s_thr.partition_D(sB)
        k_tiles = lc.size(gA, 2)  # 54 with bk=32: 2 channel blocks x 27 taps
        for s in range(stages - 1):  # prologue
            lc.copy(g2s, tAgA[_, _, _, s], tAsA[_, _, _, s])
            lc.copy(g2s_b, tBgB[_, _, _, s], tBsB[_, _, _, s])
            lc.cp_async_commit()

        thr_mma = mma.get_slice(tid)
        tCrA = thr_mma.partition_fragment_A(sA[_, _, 0])
        tCrB = thr_mma.partition_fragment_B(sB[_, _, 0])
        tCrC = thr_mma.partition_fragment_C(gC)
        lc.clear(tCrC)
        s2r_a, s2r_b = lc.make_tiled_copy_A(ldsm, mma), lc.make_tiled_copy_B(ldsm, mma)
        s2r_a_thr, s2r_b_thr = s2r_a.get_slice(tid), s2r_b.get_slice(tid)
        tXsA, tXrA = s2r_a_thr.partition_S(sA), s2r_a_thr.retile_D(tCrA)
        tXsB, tXrB = s2r_b_thr.partition_S(sB), s2r_b_thr.retile_D(tCrB)
        k_blocks = lc.size(tCrA, 2)

        lc.cp_async_wait(stages - 2)
        lc.syncthreads()
        lc.copy(s2r_a, tXsA[_, _, 0, 0], tXrA[_, _, 0])
        lc.copy(s2r_b, tXsB[_, _, 0, 0], tXrB[_, _, 0])
        read = 0
        write = stages - 1
        for k in lc.range(k_tiles):
            for kb in range(k_blocks):  # unrolled: fragments are registers
                if kb == k_blocks - 1:
                    lc.cp_async_wait(stages - 2)
                    lc.syncthreads()
                    read = lc.where(read == stages - 1, 0, read + 1)
                nxt = (kb + 1) % k_blocks
                lc.copy(s2r_a, tXsA[_, _, nxt, read], tXrA[_, _, nxt])
                lc.copy(s2r_b, tXsB[_, _, nxt, read], tXrB[_, _, nxt])
                if kb == 0:
                    kn = lc.min(k + stages - 1, k_tiles - 1)
                    lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, write])
                    lc.copy(g2s_b, tBgB[_, _, _, kn], tBsB[_, _, _, write])
                    lc.cp_async_commit()
                    write = lc.where(write == stages - 1, 0, write + 1)
                lc.gemm(mma, tCrA[_, _, kb], tCrB[_, _, kb], tCrC)

        lc.cp_async_wait(0)
        if cfg.epilogue == "direct":  # 32-bit stores straight from the accumulators
            lc.copy(tCrC, thr_mma.partition_C(gC))
        else:
            # registers -> swizzled shared tile (over the pipeline) -> 128-bit stores
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

    suffix = "" if cfg == SEED_CONFIG else "_" + cfg.name.replace("-", "_")

    @lc.kernel(
        name="conv3d_fprop_dense" + suffix,
        block=threads,
        min_blocks_per_sm=cfg.min_blocks,
        index_bitwidth=INDEX,
    )
    def conv3d_fprop_dense(
        activation: ACTIVATION,
        filter: FILTER,
        output: OUTPUT,
    ):
        conv_mainloop(*dense_operands(activation, filter, output, last))

    @lc.kernel(
        name="conv3d_fprop_gather" + suffix,
        block=threads,
        min_blocks_per_sm=cfg.min_blocks,
        index_bitwidth=INDEX,
    )
    def conv3d_fprop_gather(
        activation: ACTIVATION_POOL,
        filter: FILTER,
        output: OUTPUT_POOL,
        gather: GATHER_ROWS,
        scatter: SCATTER_ROWS,
    ):
        conv_mainloop(*gather_operands(activation, filter, output, gather, scatter, last))

    conv3d_fprop_dense.config = conv3d_fprop_gather.config = cfg
    return conv3d_fprop_dense, conv3d_fprop_gather


SEED_CONFIG = ConvConfig(images=IMAGES_PER_CTA, warps_n=2)  # the seed's tiling
CONFIG = SEED_CONFIG  # the module's kernels (EXAMPLES, `layoutc run`): the seed's
conv3d_fprop_dense, conv3d_fprop_gather = make_conv3d(CONFIG)


# -- Hopper: wgmma ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sm90Config:
    """A Hopper tiling: CTA tile ``K x (images,Z,P,Q) x (32,1,1,1)`` (one wgmma
    ``SM90_64x(16*images)x8_F32TF32TF32F32_SS_TN`` per warpgroup and 8 channels, each
    warpgroup 64 of the 128 output channels), ``stages`` of 128B-swizzled canonical GMMA
    layouts filled by 128-bit ``cp.async``, ``mma_in_flight`` K-blocks of wgmmas kept running.

    ``specialized=False``: every thread copies and computes (the sm80 mainloop with wgmma; a
    block barrier per K-block). ``specialized=True``: CUTLASS's warp-specialized cp.async
    mainloop (``MainloopSm90CpAsyncGmmaWarpSpecialized``): warpgroup 0 produces (cp.async, then
    once its copies of a stage landed, ``fence.proxy.async`` and an arrival on the stage's
    ``full`` mbarrier), the consumer warpgroups wait on ``full``, run the wgmmas and arrive on
    ``empty`` (``reg_alloc``: ``setmaxnreg`` moves registers from the producer to the
    consumers). ``mma_first`` (not specialized): issue a K-block's wgmmas before the copies
    of a later one, so that the copies' address math and gather-index loads run while the
    tensor cores work; measured slower on an H100 (dense 0.90x, gather 0.99x), so off. ``epilogue``: ``smem`` stages C through a swizzled shared tile and leaves with
    128-bit stores (as the sm80 kernel); ``direct`` stores the accumulators from registers
    (32-bit stores: the output is channel-contiguous, an accumulator pair is not).

    ``loads="tma"`` (with ``specialized``): the dense kernel's producer is one elected thread
    issuing TMA loads (CUTLASS's ``MainloopSm90TmaGmmaWarpSpecializedImplicitGemm``): the
    activation's K-block in im2col mode (``lc.make_im2col_tma_copy``: the CTA's
    ``16 * images`` output positions, walked (Q,P,Z,N), of 32 channels at one filter tap), the
    filter's in tile mode, both completing the stage's ``full`` mbarrier's transaction bytes.
    The gather kernel keeps its cp.async producers (TMA cannot gather rows; CUTLASS neither).
    ``loads="tma-filter"``: both kernels load the filter's K-block by TMA (one producer thread,
    its arrival with the bytes on the ``full`` barrier) and the activation by cp.async: a
    dense/gather pair that differs only in the activation's and output's layouts.

    ``tail`` (plain mainloop): ``"skip"`` issues no copies past the last K-tile (an empty
    commit group keeps the count), ``"clamp"`` copies the last K-tile again, as before, which
    the epilogue then has to wait for, ``"peel"`` runs the K-tiles with copies in one loop and
    the last ``stages - 1 - mma_in_flight`` in another: the main loop has no branch, and
    lower-layouts loads a K-tile's gathered row numbers before its block barrier (they are
    staged before the loop and never written in it: docs/layout-passes.md); ``"branch"`` keeps
    one loop but moves the block barrier into the branch with the copies (same effect on the
    row loads). Both measured slower than ``"skip"`` (docs/example59.md section 7).

    ``order``: how the CTA tile's output positions are ordered (the rows of B and the columns
    of C; the same layouts with their modes permuted). ``"nzpq"``: images first, or ``(Z,P,Q,N)``
    when ``images`` is not a power of 2 (:attr:`images_last`); ``"qpzn"``: ``(Q,P,Z,N)``, W
    fastest, the order a TMA im2col load walks them (``loads="tma"`` implies it). In the gather
    kernel the 4 rows a warp's copies cover are then 4 neighbouring positions of one image,
    whose staged row numbers lie in 4 different shared-memory banks; images first they are 4
    images, 96 words apart: one bank, a 4-way conflict on every row-number load.

    ``split`` (plain mainloop, ``tail="skip"``): ``"a"`` issues a K-tile's filter copies before
    the wgmmas and its activation copies after them (their row-number loads and address math
    then overlap the wgmmas, and fewer copies stand between the barrier and the wgmmas'
    issue); ``"b"`` the other way round; ``""`` all copies before (``mma_first``: all after).

    ``taps`` (with ``tail="peel"``): the main loop runs two K-tiles per iteration, the two
    channel halves of one filter tap, whose gathered rows are the same: lower-layouts loads
    each row number once per tap and the second half's copies reuse the first half's row
    addresses (the staged entries stay valid across the barrier between them)."""

    images: int = 16
    stages: int = 4
    warpgroups: int = 2
    mma_in_flight: int = 1
    specialized: bool = False
    epilogue: str = "smem"
    reg_alloc: bool = False
    mma_first: bool = False
    index_smem: bool = True
    loads: str = "cp.async"
    tail: str = "skip"
    order: str = "nzpq"
    split: str = ""
    taps: bool = False

    @property
    def name(self) -> str:
        name = f"sm90-i{self.images}-s{self.stages}-wg{self.warpgroups}-f{self.mma_in_flight}"
        name += "" if self.order == "nzpq" else f"-{self.order}"
        name += "-ws" if self.specialized else ""
        name += {"tma": "-tma", "tma-filter": "-tmaf"}.get(self.loads, "")
        name += "-ra" if self.reg_alloc else ""
        name += "-mf" if self.mma_first else ""
        name += f"-s{self.split}" if self.split else ""
        name += "-taps" if self.taps else ""
        name += "" if self.index_smem else "-gidx"
        name += "" if self.tail == "skip" else f"-{self.tail}"
        return name + ("-direct" if self.epilogue == "direct" else "")

    @property
    def walk(self) -> bool:
        """Positions ordered ``(Q,P,Z,N)``: :attr:`order` ``"qpzn"`` or TMA im2col loads."""
        return self.order == "qpzn" or self.loads == "tma"

    @property
    def consumers(self) -> int:
        return 128 * self.warpgroups

    @property
    def images_last(self) -> bool:
        """Order the output positions (Z,P,Q,N) when ``images`` is not a power of 2."""
        return bool(self.images & (self.images - 1))

    @property
    def threads(self) -> int:
        return self.consumers + (128 if self.specialized else 0)

    @property
    def tile_n(self) -> int:
        return self.images * Z * P * Q

    @property
    def barrier_offset(self) -> int:
        """Where the specialized kernel's mbarriers start: past the stages and the C tile."""
        return max(self.stages * (K + self.tile_n) * 32 * 4, K * self.tile_n * 4)

    @property
    def index_offset(self) -> int:
        """Where the gather kernel's staged index slices start: past the mbarriers."""
        return self.barrier_offset + (16 * self.stages if self.specialized else 0)

    def smem_bytes(self) -> int:
        """The dense kernel's; the gather kernel's with ``index_smem`` is
        :meth:`gather_smem_bytes`."""
        return self.index_offset

    def gather_smem_bytes(self) -> int:
        """The gather kernel's: plus the CTA's gather and scatter index slices."""
        staged = self.images * (D * H * W + Z * P * Q) * 4 if self.index_smem else 0
        return self.index_offset + staged

    def check(self) -> None:
        """Raise ValueError for a tiling the kernel does not handle."""
        if self.images not in range(2, 17, 2):  # 16 * images rows in 32-row copy passes
            raise ValueError(f"images must be even, 2 to 16 (wgmma N = 16 * images): {self}")
        if self.epilogue not in ("smem", "direct") or (self.reg_alloc and not self.specialized):
            raise ValueError(f"epilogue must be 'smem' or 'direct', reg_alloc needs ws: {self}")
        if self.split not in ("", "a", "b") or (
            self.split and (self.specialized or self.mma_first or self.tail != "skip")
        ):
            raise ValueError(f"split must be '', 'a' or 'b' (plain mainloop, tail skip): {self}")
        if self.taps and (
            self.specialized or self.tail != "peel" or (self.stages - 1 - self.mma_in_flight) % 2
        ):
            raise ValueError(f"taps needs the plain mainloop, tail 'peel', an even lead: {self}")
        if self.order not in ("nzpq", "qpzn"):
            raise ValueError(f"order must be 'nzpq' or 'qpzn': {self}")
        if self.tail not in ("skip", "clamp", "peel", "branch"):
            raise ValueError(f"tail must be 'skip', 'clamp', 'peel' or 'branch': {self}")
        if self.loads not in ("cp.async", "tma", "tma-filter") or (
            self.loads != "cp.async" and not self.specialized
        ):
            raise ValueError(
                f"loads must be 'cp.async', 'tma' or 'tma-filter' (TMA needs specialized): {self}"
            )
        if self.warpgroups not in (1, 2) or self.mma_in_flight not in (0, 1):
            raise ValueError(f"warpgroups must be 1 or 2, mma_in_flight 0 or 1: {self}")
        # the specialized producer announces a stage `stages - 2` K-tiles after issuing it
        if self.stages < (3 if self.specialized else 2 + self.mma_in_flight):
            raise ValueError(f"too few stages for the pipeline: {self}")
        if self.gather_smem_bytes() > 227 * 1024:
            raise ValueError(f"{self.gather_smem_bytes()} bytes of shared memory: {self}")


def make_conv3d_sm90(cfg: Sm90Config = Sm90Config()) -> tuple[Any, Any]:
    """The Hopper dense and gather/scatter kernels of one tiling: two entry points building
    the same layouts as :func:`make_conv3d`'s, one body (``conv_mainloop_sm90``)."""
    cfg.check()
    last = cfg.images_last
    bn = (Z, P, Q, cfg.images) if last else (cfg.images, Z, P, Q)
    bm, bk, stages = K, (32, 1, 1, 1), cfg.stages
    tile_n, consumers, in_flight = cfg.tile_n, cfg.consumers, cfg.mma_in_flight
    producers = 128 if cfg.specialized else consumers  # threads issuing the cp.async
    mma = lc.make_tiled_mma(
        f"SM90_64x{tile_n}x8_F32TF32TF32F32_SS_TN", lc.make_layout((cfg.warpgroups, 1, 1))
    )
    atom = lc.gmma_layout_atom("K", "SW128", lc.tf32)  # Sw<3,2,3> o (8,32):(32,1)
    s_a = lc.tile_to_shape(atom, (bm, 32, stages))
    s_b = lc.tile_to_shape(atom, (tile_n, 32, stages))
    # one stage of each: the boxes of the TMA loads (loads="tma")
    stage_a, stage_b = lc.tile_to_shape(atom, (bm, 32)), lc.tile_to_shape(atom, (tile_n, 32))
    # 8 threads per 32-channel row, 16 bytes each (4 threads with two chunks each, which
    # loads a gathered row's number once for both, measured 1.6x slower on an H100)
    g2s = lc.make_tiled_copy(
        lc.make_copy_atom("cp.async.cg", lc.tf32),
        lc.make_layout((producers // 8, 8), (8, 1)),
        lc.make_layout((1, 4)),
    )
    # the epilogue as in the sm80 kernel: a channel-major swizzled tile over the pipeline
    s_c = lc.composition(lc.Swizzle(3, 2, 5), lc.make_layout((bm, tile_n), (1, bm)))
    r2s = lc.make_copy_atom("universal", lc.f32, bits=32)
    s2g = lc.make_tiled_copy(
        lc.make_copy_atom("universal", lc.f32, bits=128),
        lc.make_layout((bm // 4, consumers // (bm // 4)), (1, bm // 4)),
        lc.make_layout((4, 1)),
    )
    # the producer keeps `lag` stages of cp.async in flight before it announces one
    lag = stages - 2
    b_offset = stages * bm * 32 * 4  # sB right after sA (a multiple of 1024 bytes)

    def epilogue(tCrC: Any, gC: Any, ct: Any, sync: Any) -> None:
        if cfg.epilogue == "direct":
            lc.copy(tCrC, mma.get_slice(ct).partition_C(gC))
            return
        sC = lc.dynamic_smem_tensor(lc.f32, s_c, offset=0)
        r2s_copy = lc.make_tiled_copy_C(r2s, mma)
        r2s_thr = r2s_copy.get_slice(ct)
        lc.copy(r2s_copy, r2s_thr.retile_S(tCrC), r2s_thr.partition_D(sC))
        sync()
        s2g_thr = s2g.get_slice(ct)
        tDsC = s2g_thr.partition_S(sC)
        tDrC = lc.make_fragment_like(tDsC)
        lc.copy(s2g, tDsC, tDrC)
        lc.copy(s2g, tDrC, s2g_thr.partition_D(gC))

    def consumer_sync() -> None:
        lc.named_barrier_sync(1, consumers)

    # The gather kernel's index slices in shared memory: the CTA's images' entries of the
    # gather vector (images x D*H*W) and of the scatter vector (images x Z*P*Q), copied once
    # with 128-bit loads by as many threads as divide them.
    staged = {
        name: (per_image * cfg.images, offset)
        for name, per_image, offset in (
            ("gather", D * H * W, cfg.index_offset),
            ("scatter", Z * P * Q, cfg.index_offset + cfg.images * D * H * W * 4),
        )
    }

    def index_copy(count: int) -> Any:
        chunks = count // 4
        copiers = max(t for t in range(1, min(chunks, cfg.threads) + 1) if chunks % t == 0)
        atom = lc.make_copy_atom("universal", lc.i32, bits=128)
        return lc.make_tiled_copy(atom, lc.make_layout(copiers), lc.make_layout(4)), copiers

    copies = {name: index_copy(count) for name, (count, _) in staged.items()}

    @lc.func
    def copy_indices(src: Any, dst: Any, name: str) -> None:
        tiled, copiers = copies[name]
        tid = lc.thread_idx.x
        if tid < copiers:
            thr = tiled.get_slice(tid)
            lc.copy(tiled, thr.partition_S(src), thr.partition_D(dst))

    def stage_indices(index: Any, name: str) -> Any:
        """The CTA's slice of ``index`` in shared memory, seen as the whole vector: a tensor
        of ``index``'s extent whose pointer is the slice's minus its first position, so that
        the gather layout over it is the global one (positions outside the CTA's images are
        never formed: the CTA reads only its own images' entries)."""
        count, offset = staged[name]
        s_index = lc.dynamic_smem_tensor(lc.i32, lc.make_layout(count), offset=offset)
        first = lc.block_idx.x * count
        copy_indices(lc.local_tile(index, (count,), (lc.block_idx.x,)), s_index, name)
        return lc.make_tensor(s_index.iterator + (0 - first), lc.make_layout(lc.size(index)))

    def dense_tmas(activation: Any, filter: Any) -> Any:
        """loads="tma": the filter's tile-mode copy (a box of all K output channels x 32
        channels of one tap) and the activation's im2col copy (the CTA's 16 * images output
        positions x 32 channels; no padding: the box of top-left pixels is
        [0, extent - 1 - (filter - 1)] per spatial dimension, so lower 0, upper 1 - filter).
        loads="tma-filter": the filter's copy only (the activation stays on cp.async)."""
        if cfg.loads == "cp.async":
            return None
        if cfg.loads == "tma-filter":
            return filter_tma(filter), None
        return (
            filter_tma(filter),
            lc.make_im2col_tma_copy(
                "SM90_TMA_LOAD_IM2COL", activation, stage_b, (0, 0, 0), (1 - T, 1 - R, 1 - S)
            ),
        )

    def filter_tma(filter: Any) -> Any:
        return lc.make_tma_copy("SM90_TMA_LOAD", filter, stage_a, (K, 1, 1, 1, 32))

    @lc.func
    def load_filter(tma_a: Any, sA: Any, s: Any, k: Any, bar: Any) -> None:
        """The TMA load of the filter's K-block ``k`` into stage ``s`` (channel half ``k % 2``
        of tap ``k // 2``, taps in the (T,R,S) order of the filter's modes: the order of the
        im2col layout's K-blocks, (C,T,R,S) tiled by (32,1,1,1), so A and B agree)."""
        mF = tma_a.get_tma_tensor()  # (K,T,R,S,C) coordinates
        half, tap = k % 2, k // 2
        t, r, u = tap % T, (tap // T) % R, tap // (T * R)
        part_a = lc.make_tensor(
            sA.iterator + lc.assume(s * (bm * 32), divisible_by=bm * 32), stage_a
        )
        gF = lc.local_tile(mF, (K, 1, 1, 1, 32), (0, t, r, u, half))
        lc.tma_copy(tma_a, gF, part_a, mbar=bar)

    @lc.func
    def tma_producer(tmas: Any, sA: Any, sB: Any, full: Any, empty: Any, k_tiles: Any) -> None:
        """One elected thread: per K-block, wait for the stage to be empty, expect both boxes'
        bytes on its full barrier and issue the two TMA loads (:func:`load_filter`'s K-block
        order)."""
        tma_a, tma_b = tmas
        first = lc.block_idx.x * cfg.images  # the CTA's first image
        for k in lc.range(k_tiles):
            s = k % stages
            lc.mbarrier_wait(empty + s, 1 - (k // stages) % 2)
            lc.mbarrier_arrive_and_expect_tx(full + s, tma_a.tx_bytes + tma_b.tx_bytes)
            half, tap = k % 2, k // 2
            t, r, u = tap % T, (tap // T) % R, tap // (T * R)
            load_filter(tma_a, sA, s, k, full + s)
            part_b = lc.make_tensor(
                sB.iterator + lc.assume(s * (tile_n * 32), divisible_by=tile_n * 32), stage_b
            )
            # from pixel (first, 0, 0, 0), channels half * 32.., at filter tap (t, r, u)
            pixel = (first, 0, 0, 0, half * 32)
            lc.tma_copy(tma_b, pixel, part_b, mbar=full + s, offsets=(t, r, u))

    @lc.func
    def conv_mainloop_sm90(
        mA: Any, mB: Any, mC: Any, tmas: Any = None, operands_bc: Any = None
    ) -> None:
        """C = A B^T for one CTA tile, whatever the layouts of A, B and C, on wgmma (with
        ``tmas``, :func:`dense_tmas`'s copies, the producer loads through TMA; the
        positions are in TMA's walk order, (Q,P,Z,N), with ``cfg.walk``). ``operands_bc``
        (instead of ``mB`` and ``mC``): a function building them, called once the filter's
        first copies are issued (the gather kernel stages its index slices there, so that
        the staging's round trip overlaps those copies)."""
        tid = lc.thread_idx.x
        # the CTA's tile of positions by a coordinate of each mode of the tile grid: a scalar
        # is split over the grid's modes by a 64-bit division, and ptxas serializes every
        # wgmma of a function that calls one (C7509)
        bid = lc.block_idx.x
        walk = tmas is not None and tmas[1] is not None  # the activation through TMA
        tma_a = tmas[0] if tmas is not None and not walk else None  # the filter only
        tile = (Q, P, Z, cfg.images) if cfg.walk else bn
        where = (0, (0, 0, 0, bid) if last or cfg.walk else (bid, 0, 0, 0), _)
        gA = lc.local_tile(mA, (bm, tile, bk), where, proj=(1, None, 1))  # (BM,BK,k)
        # at fixed offsets: the gather kernel's index slices are placed past them
        sA = lc.dynamic_smem_tensor(lc.tf32, s_a, align=1024, offset=0)  # (BM,BK,STAGES)
        sB = lc.dynamic_smem_tensor(lc.tf32, s_b, align=1024, offset=b_offset)  # (BN,BK,STAGES)
        k_tiles = lc.size(gA, 2)  # 54: 2 channel halves x 27 taps

        def tiles_bc() -> tuple[Any, Any]:
            b, c = operands_bc() if operands_bc is not None else (mB, mC)
            gB = lc.local_tile(b, (bm, tile, bk), where, proj=(None, 1, 1))  # (BN,BK,k)
            gC = lc.local_tile(c, (bm, tile, bk), where, proj=(1, 1, None))  # (BM,BN)
            return gB, gC

        if not cfg.specialized:
            g2s_thr = g2s.get_slice(tid)
            tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)
            ahead = stages - 1 - in_flight
            # the filter's copies of the first stages, then B and C (the gather kernel stages
            # its indices here), then B's copies: stage s is in commit group s as before
            for s in range(ahead):
                lc.copy(g2s, tAgA[_, _, _, s], tAsA[_, _, _, s])
            gB, gC = tiles_bc()
            tBgB, tBsB = g2s_thr.partition_S(gB), g2s_thr.partition_D(sB)

            def load_k_tile(k: Any, write: Any) -> None:
                """The copies of K-tile ``k + ahead`` into stage ``write``, one commit group.
                ``tail="skip"``: past the last K-tile nothing is copied (an empty group keeps
                the count); ``"clamp"``: the last K-tile is copied again (the old way: the
                epilogue then waits for copies nobody reads)."""
                if cfg.tail == "clamp":
                    kn = lc.min(k + ahead, k_tiles - 1)
                    lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, write])
                    lc.copy(g2s, tBgB[_, _, _, kn], tBsB[_, _, _, write])
                elif k < k_tiles - ahead:
                    lc.copy(g2s, tAgA[_, _, _, k + ahead], tAsA[_, _, _, write])
                    lc.copy(g2s, tBgB[_, _, _, k + ahead], tBsB[_, _, _, write])
                lc.cp_async_commit()

            for s in range(ahead):
                lc.copy(g2s, tBgB[_, _, _, s], tBsB[_, _, _, s])
                lc.cp_async_commit()
            thr_mma = mma.get_slice(tid)
            tCsA, tCsB = thr_mma.partition_A(sA), thr_mma.partition_B(sB)
            tCrC = thr_mma.partition_fragment_C(gC)
            lc.clear(tCrC)
            read = 0
            write = ahead

            def k_step(k: Any, read: Any, write: Any, copies: str) -> tuple[Any, Any]:
                """One K-tile: wait for stage ``read``, issue the copies (``copies``:
                ``"tail"``, :func:`load_k_tile`'s choice; ``"all"``, K-tile ``k + ahead``
                unconditionally; ``"none"``, an empty group), run its wgmmas."""
                lc.cp_async_wait(ahead - 1)  # stage `read` landed (this thread's copies)
                lc.fence_proxy_async()  # ... and is visible to the wgmma
                # a stage, so the copies into it provably leave the staged indices alone
                # (lower-layouts then loads a K-tile's row numbers ahead of its copies)
                write = lc.assume(write, lower=0, upper=stages - 1)
                if copies == "branch":  # the barrier in the branch with the copies
                    if k < k_tiles - ahead:
                        lc.syncthreads()
                        lc.copy(g2s, tAgA[_, _, _, k + ahead], tAsA[_, _, _, write])
                        lc.copy(g2s, tBgB[_, _, _, k + ahead], tBsB[_, _, _, write])
                    else:
                        lc.syncthreads()
                    lc.cp_async_commit()
                else:
                    lc.syncthreads()  # everyone's; the wgmmas reading stage `write` retired

                def issue() -> None:
                    if copies == "branch":
                        pass
                    elif cfg.split:  # one operand's copies now, the other's after the wgmmas
                        if k < k_tiles - ahead:
                            if cfg.split == "a":
                                lc.copy(g2s, tAgA[_, _, _, k + ahead], tAsA[_, _, _, write])
                            else:
                                lc.copy(g2s, tBgB[_, _, _, k + ahead], tBsB[_, _, _, write])
                    elif copies == "tail":
                        load_k_tile(k, write)
                    elif copies == "all":
                        lc.copy(g2s, tAgA[_, _, _, k + ahead], tAsA[_, _, _, write])
                        lc.copy(g2s, tBgB[_, _, _, k + ahead], tBsB[_, _, _, write])
                        lc.cp_async_commit()
                    else:
                        lc.cp_async_commit()

                if not cfg.mma_first:
                    issue()
                lc.warpgroup_fence_operand(tCrC)
                lc.warpgroup_arrive()
                lc.gemm(mma, tCsA[_, _, _, read], tCsB[_, _, _, read], tCrC)
                lc.warpgroup_commit_batch()
                if cfg.mma_first:  # the copies' address math and index loads overlap the wgmma
                    issue()
                elif cfg.split:  # the other operand's copies, then the K-tile's commit group
                    if k < k_tiles - ahead:
                        if cfg.split == "a":
                            lc.copy(g2s, tBgB[_, _, _, k + ahead], tBsB[_, _, _, write])
                        else:
                            lc.copy(g2s, tAgA[_, _, _, k + ahead], tAsA[_, _, _, write])
                    lc.cp_async_commit()
                lc.warpgroup_wait(in_flight)
                lc.warpgroup_fence_operand(tCrC)
                read = lc.where(read == stages - 1, 0, read + 1)
                write = lc.where(write == stages - 1, 0, write + 1)
                return read, write

            if cfg.tail == "peel":
                # the K-tiles with copies, then the last `ahead` without: no branch in the
                # main loop, so lower-layouts can load the next row numbers before its barrier
                if cfg.taps:  # two K-tiles per iteration: the two channel halves of a tap
                    for j in lc.range((k_tiles - ahead) // 2):
                        read, write = k_step(2 * j, read, write, "all")
                        read, write = k_step(2 * j + 1, read, write, "all")
                else:
                    for k in lc.range(k_tiles - ahead):
                        read, write = k_step(k, read, write, "all")
                for k in lc.range(k_tiles - ahead, k_tiles):
                    read, write = k_step(k, read, write, "none")
            else:
                mode = "branch" if cfg.tail == "branch" and not cfg.mma_first else "tail"
                for k in lc.range(k_tiles):
                    read, write = k_step(k, read, write, mode)
            lc.warpgroup_wait(0)
            lc.warpgroup_fence_operand(tCrC)
            lc.cp_async_wait(0)  # the last copies (with tail="clamp": copies of the last K-tile)
            if cfg.epilogue == "smem":  # C goes over the stages
                lc.syncthreads()
            epilogue(tCrC, gC, tid, lc.syncthreads)
        else:
            # The mbarriers live in dynamic shared memory past the stages and the C tile: a
            # static shared array would come first in the block's window and move the dynamic
            # base off the 1024-byte alignment the 128B swizzle needs (the GPU aligns the
            # dynamic base only to 16 bytes; CUTLASS keeps everything in one SharedStorage).
            gB, gC = tiles_bc()
            bars = lc.dynamic_smem_tensor(
                lc.i64, lc.make_layout(2 * stages), align=8, offset=cfg.barrier_offset
            )
            full, empty = bars.iterator, bars.iterator + stages
            if tid == 0:
                for s in range(stages):
                    # TMA: one arrival with the bytes; cp.async: every producer, plus the
                    # filter's TMA load's arrival with its bytes (loads="tma-filter")
                    lc.mbarrier_init(full + s, 1 if walk else producers + (tma_a is not None))
                    lc.mbarrier_init(empty + s, consumers)
                lc.mbarrier_init_fence()
            lc.syncthreads()
            if tid < 128:  # the producer warpgroup
                if cfg.reg_alloc:
                    lc.warpgroup_reg_dealloc(40)
                if walk:
                    if tid < 32:  # noqa: SIM102 (elect.sync in the converged warp 0 only)
                        if lc.elect_one_sync():
                            tma_producer(tmas, sA, sB, full, empty, k_tiles)
                else:
                    g2s_thr = g2s.get_slice(tid)
                    tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)
                    tBgB, tBsB = g2s_thr.partition_S(gB), g2s_thr.partition_D(sB)
                    for k in lc.range(k_tiles):
                        s = k % stages
                        lc.mbarrier_wait(empty + s, 1 - (k // stages) % 2)
                        if tma_a is None:
                            lc.copy(g2s, tAgA[_, _, _, k], tAsA[_, _, _, s])
                        elif tid == 0:  # the filter's K-block by TMA, its bytes expected
                            lc.mbarrier_arrive_and_expect_tx(full + s, tma_a.tx_bytes)
                            load_filter(tma_a, sA, s, k, full + s)
                        lc.copy(g2s, tBgB[_, _, _, k], tBsB[_, _, _, s])
                        lc.cp_async_commit()
                        if k >= lag:  # K-tile k - lag has landed: announce it
                            lc.cp_async_wait(lag)
                            lc.fence_proxy_async()
                            lc.mbarrier_arrive(full + (k - lag) % stages)
                    for j in range(lag):  # the last `lag` K-tiles
                        lc.cp_async_wait(lag - 1 - j)
                        lc.fence_proxy_async()
                        lc.mbarrier_arrive(full + (k_tiles - lag + j) % stages)
            else:  # the consumer warpgroups
                if cfg.reg_alloc:
                    lc.warpgroup_reg_alloc(232)
                ct = tid - 128
                thr_mma = mma.get_slice(ct)
                tCsA, tCsB = thr_mma.partition_A(sA), thr_mma.partition_B(sB)
                tCrC = thr_mma.partition_fragment_C(gC)
                lc.clear(tCrC)
                for k in lc.range(k_tiles):
                    s = k % stages
                    lc.mbarrier_wait(full + s, (k // stages) % 2)
                    lc.warpgroup_fence_operand(tCrC)
                    lc.warpgroup_arrive()
                    lc.gemm(mma, tCsA[_, _, _, s], tCsB[_, _, _, s], tCrC)
                    lc.warpgroup_commit_batch()
                    lc.warpgroup_wait(in_flight)
                    lc.warpgroup_fence_operand(tCrC)
                    if in_flight:
                        if k > 0:  # the wgmmas of K-tile k - 1 retired
                            lc.mbarrier_arrive(empty + (k + stages - 1) % stages)
                    else:
                        lc.mbarrier_arrive(empty + s)
                lc.warpgroup_wait(0)
                lc.warpgroup_fence_operand(tCrC)
                if cfg.epilogue == "smem":  # every consumer's wgmmas retired: reuse the stages
                    consumer_sync()
                epilogue(tCrC, gC, ct, consumer_sync)

    suffix = "_" + cfg.name.replace("-", "_")
    bounds = 1 if cfg.reg_alloc else None  # setmaxnreg needs a register cap at entry

    @lc.kernel(
        name="conv3d_fprop_dense" + suffix,
        block=cfg.threads,
        min_blocks_per_sm=bounds,
        index_bitwidth=INDEX,
    )
    def conv3d_fprop_dense_sm90(
        activation: ACTIVATION,
        filter: FILTER,
        output: OUTPUT,
    ):
        tmas = dense_tmas(activation, filter)
        # positions (Q,P,Z,N) with cfg.walk: the order the im2col load walks them
        conv_mainloop_sm90(*dense_operands(activation, filter, output, last, cfg.walk), tmas)

    @lc.kernel(
        name="conv3d_fprop_gather" + suffix,
        block=cfg.threads,
        min_blocks_per_sm=bounds,
        index_bitwidth=INDEX,
    )
    def conv3d_fprop_gather_sm90(
        activation: ACTIVATION_POOL,
        filter: FILTER,
        output: OUTPUT_POOL,
        gather: GATHER_ROWS,
        scatter: SCATTER_ROWS,
    ):
        # loads="tma-filter": the filter through TMA (the activation cannot: rows are gathered)
        tmas = (filter_tma(filter), None) if cfg.loads == "tma-filter" else None

        def operands_bc() -> tuple[Any, Any]:
            """B and C over the staged index slices (the producers and the epilogue read the
            row numbers from shared memory), built after the filter's first copies."""
            rows, out_rows = gather, scatter
            if cfg.index_smem:
                rows, out_rows = stage_indices(gather, "gather"), stage_indices(scatter, "scatter")
                lc.syncthreads()
            _, b, c = gather_operands(activation, filter, output, rows, out_rows, last, cfg.walk)
            return b, c

        conv_mainloop_sm90(filter_tensor(filter), None, None, tmas, operands_bc)

    conv3d_fprop_dense_sm90.config = conv3d_fprop_gather_sm90.config = cfg
    return conv3d_fprop_dense_sm90, conv3d_fprop_gather_sm90


# -- the host function ----------------------------------------------------------------------------
class ConvError(ValueError):
    """Arguments conv3d_fprop refuses (before anything is launched)."""


def _view(x: Any) -> Any:
    """Something with ``shape``, ``dtype`` and min/max for ``x``: itself, or for an object that
    only speaks DLPack a numpy view (host memory) or a torch view (device memory). Nothing is
    copied."""
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return x
    if not hasattr(x, "__dlpack__"):
        return None
    try:
        device_type = x.__dlpack_device__()[0]
        if device_type in (1, 3):  # kDLCPU, kDLCUDAHost
            return np.from_dlpack(x)
        import torch

        return torch.from_dlpack(x)
    except Exception:
        return None


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(int(e) for e in _view(x).shape)


def _dtype_name(x: Any) -> str:
    return str(_view(x).dtype).replace("torch.", "")


def _check_array(name: str, x: Any, shape: tuple, dtype: str) -> None:
    if _view(x) is None:
        raise ConvError(
            f"conv3d_fprop: {name} must be an array (numpy, torch, CuPy, DLPack), "
            f"got {type(x).__name__}"
        )
    got = _shape(x)
    if len(got) != len(shape) or any(s is not None and g != s for g, s in zip(got, shape)):
        want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
        raise ConvError(f"conv3d_fprop: {name} must have shape {want}, got {got}")
    if _dtype_name(x) != dtype:
        raise ConvError(f"conv3d_fprop: {name} must be {dtype}, got {_dtype_name(x)}")


def _index_range(x: Any) -> tuple[int, int]:
    """(min, max) of an index vector wherever it lives (read before any launch)."""
    x = _view(x)
    if isinstance(x, np.ndarray):
        return int(x.min()), int(x.max())
    if hasattr(x, "aminmax"):  # torch
        lo, hi = x.aminmax()
        return int(lo.item()), int(hi.item())
    lo, hi = x.min(), x.max()  # CuPy and friends
    return int(lo), int(hi)


def _check_indices(name: str, x: Any, rows: int, pool: str) -> None:
    lo, hi = _index_range(x)
    if lo < 0 or hi >= rows:
        bad = lo if lo < 0 else hi
        raise ConvError(
            f"conv3d_fprop: {name} holds row {bad}, outside the {rows} rows of {pool} "
            f"(valid rows 0..{rows - 1})"
        )


def _images(count: int, per_image: int, what: str, images: int = IMAGES_PER_CTA) -> int:
    if count % per_image:
        raise ConvError(f"conv3d_fprop: {what} has {count} entries, not a multiple of {per_image}")
    n = count // per_image
    if n == 0 or n % images:
        raise ConvError(
            f"conv3d_fprop: N = {n} images; N must be a positive multiple of {images} "
            f"(each CTA computes {images} images)"
        )
    return n


# Hopper tilings conv3d_fprop chooses from on an sm_90 GPU, with their measured time per image
# relative to the best (benchmarks/conv.py on an H100); 4 images take any N. The dense kernel
# stores C straight from the accumulators, the gather kernel through shared memory (its direct
# scattered stores cost one index load per accumulator pair: 0.97x of its smem epilogue). The
# 16-image tiling peels its last K-tiles (tail="peel": the row numbers load before the block
# barrier) and runs a tap's two K-tiles per iteration (taps: each row number loads once per
# tap): at N = 131072 with the SM clock locked (Nsight Compute, H200) its gather kernel took
# 3.78 ms against 3.98 (peel alone) and 4.10-4.14 (neither), its dense kernel 3.49-3.51 ms in
# all three; the 12-image gather kernel lost 12% with tail="peel" at N = 4320 (157 against
# 140 us) and cannot take taps (its lead of 3 K-tiles is odd), so it keeps tail="skip"
# (docs/example59.md section 7).
HOPPER_CONFIGS = {
    Sm90Config(images=16, tail="peel", taps=True): 1.0,
    Sm90Config(images=12, stages=5): 1.04,
    Sm90Config(images=8): 1.16,
    Sm90Config(images=4): 1.45,
}
# The dense kernel also has the TMA tilings (the activation in im2col mode, the filter in tile
# mode, warp-specialized; direct epilogue), on the same scale: time per image relative to the
# cp.async 16-image kernel above, measured side by side with it (benchmarks/conv.py on an H200:
# 16 images 2.573 against 2.758 ms at N = 131072; 12 images 0.106 against the cp.async 12-image
# kernel's 0.107 ms at N = 4320; 8 images 3.270 ms at 131072; on H100s both kinds took the
# same time within 2%, docs/example59.md). The gather kernel has no TMA tiling (TMA cannot
# gather rows).
HOPPER_TMA_CONFIGS = {
    Sm90Config(images=16, specialized=True, loads="tma"): 0.93,
    Sm90Config(images=12, stages=5, specialized=True, loads="tma"): 1.03,
    Sm90Config(images=8, specialized=True, loads="tma"): 1.19,
}
_hopper_kernels: dict = {}

# sm80 tilings conv3d_fprop chooses from off Hopper: (time per image relative to the best, CTAs
# per SM), measured with benchmarks/conv.py on an H100 (registers and shared memory decide the
# CTAs: 242 registers and 144 KiB for 16 images, 200 and 84 KiB for 6, 236 and 96 KiB for 8,
# 158 and 72 KiB for the seed's 4). The 64x64 warp tiles of 16, 8 and 6 images read shared
# memory a third less per FLOP than the seed's 64x32; 4 images take any N.
SM80_CONFIGS = {
    ConvConfig(): (1.0, 1),
    ConvConfig(images=8, warps_n=2): (1.04, 2),
    ConvConfig(images=6, warps_n=2): (1.06, 2),
    SEED_CONFIG: (1.22, 3),
}
_sm80_pairs: dict = {SEED_CONFIG: (conv3d_fprop_dense, conv3d_fprop_gather)}


def default_target() -> str:
    """Where a launch goes by default: ``sm_90a`` on an H100/H200, ``sm_80``... on other GPUs,
    ``cpu`` without one (or as ``LAYOUTC_TARGET`` says)."""
    from layoutc.driver.targets import resolve_target

    return resolve_target(None).name


def _sm_count() -> int:
    try:
        from layoutc.runtime import cuda_driver

        return cuda_driver.get_device(None).attribute("MULTIPROCESSOR_COUNT")
    except Exception:
        return 132  # an H100 SXM


def _smem_per_block() -> int:
    """The most shared memory a CTA may ask for on the current GPU (99 KiB on sm_86/sm_89)."""
    try:
        from layoutc.runtime import cuda_driver

        device = cuda_driver.get_device(None)
        return device.attribute("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
    except Exception:
        return 227 * 1024  # an H100


def hopper_config(n: int, sms: int, kind: str = "gather") -> Sm90Config:
    """The tiling of least predicted time for ``n`` images on ``sms`` SMs (one CTA per SM):
    waves (the last one counts whole) x images per CTA x relative time per image. At N = 4320
    on 132 SMs, 12 images make 360 CTAs in 3 waves where 16 make 270 in 3 (the last 6% full).
    ``kind="dense"`` chooses among the TMA tilings too (:data:`HOPPER_TMA_CONFIGS`), the
    gather kernel among the cp.async ones only."""
    table = dict(HOPPER_CONFIGS)
    if kind == "dense":
        table.update(HOPPER_TMA_CONFIGS)
    elif kind != "gather":
        raise ValueError(f"kind must be 'dense' or 'gather', got {kind!r}")

    def predicted(cfg: Sm90Config) -> float:
        waves = -(-(n // cfg.images) // sms)
        return waves * cfg.images * table[cfg]

    return min((c for c in table if n % c.images == 0), key=predicted)


def sm80_config(n: int, sms: int, smem: int = 227 * 1024) -> ConvConfig:
    """The sm80 tiling of least predicted time for ``n`` images on ``sms`` SMs whose CTAs may
    have ``smem`` bytes of shared memory: waves of ``ctas`` CTAs per SM (the last one counts
    whole) x images per SM in a wave x relative time per image. At N = 4320 on 132 SMs,
    6 images make 720 CTAs in 3 waves of 12 images per SM (the last 73% full) where 16 make
    270 CTAs in 3 waves of 16 (the last 5% full); at N = 131072 16 images fill 63 waves."""

    def predicted(cfg: ConvConfig) -> float:
        time, ctas = SM80_CONFIGS[cfg]
        waves = -(-(n // cfg.images) // (sms * ctas))
        return waves * ctas * cfg.images * time

    # 1 KiB more: the realignment of the dynamic shared memory base (docs/codegen.md)
    fits = [c for c in SM80_CONFIGS if n % c.images == 0 and c.smem_bytes() + 1024 <= smem]
    return min(fits, key=predicted)  # the seed's 72 KiB fit every GPU with cp.async


def default_kernels(n: int, target: str | None = None) -> tuple[Any, Any]:
    """The kernel pair (dense, gather/scatter) for ``n`` images on ``target`` (the default
    target): on sm_90a the wgmma kernels of :func:`hopper_config`'s tilings, each kind its own
    (the dense one may load through TMA, the gather one loads through cp.async), on other GPUs
    the sm80 kernels of :func:`sm80_config`'s, on the CPU runtime the module's kernels (the
    seed's tiling)."""
    target = target or default_target()
    if target == "sm_90a":
        sms = _sm_count()
        return hopper_kernel(hopper_config(n, sms, "dense"), "dense"), hopper_kernel(
            hopper_config(n, sms, "gather"), "gather"
        )
    if target == "cpu":
        return conv3d_fprop_dense, conv3d_fprop_gather
    cfg = sm80_config(n, _sm_count(), _smem_per_block())
    if cfg not in _sm80_pairs:
        _sm80_pairs[cfg] = make_conv3d(cfg)
    return _sm80_pairs[cfg]


def hopper_kernel(cfg: Sm90Config, kind: str) -> Any:
    """The Hopper kernel conv3d_fprop runs for a tiling: the dense kernel with the direct
    epilogue (its TMA loads if the tiling says so), the gather kernel through shared memory
    with the activation on cp.async (cached: built once per tiling and kind)."""
    if kind == "dense":
        cfg = replace(cfg, epilogue="direct")
    elif kind == "gather":
        loads = "cp.async" if cfg.loads == "tma" else cfg.loads  # the filter's TMA stays
        cfg = replace(cfg, epilogue="smem", loads=loads)
    else:
        raise ValueError(f"kind must be 'dense' or 'gather', got {kind!r}")
    if (cfg, kind) not in _hopper_kernels:
        _hopper_kernels[cfg, kind] = make_conv3d_sm90(cfg)[kind == "gather"]
    return _hopper_kernels[cfg, kind]


def hopper_pair(cfg: Sm90Config) -> tuple[Any, Any]:
    """The Hopper pair conv3d_fprop runs for one tiling (:func:`hopper_kernel` of each kind)."""
    return hopper_kernel(cfg, "dense"), hopper_kernel(cfg, "gather")


def conv3d_fprop(
    activation: Any,
    filter: Any,
    output: Any,
    gather: Any = None,
    scatter: Any = None,
    *,
    kernels: tuple[Any, Any] | None = None,
    **launch: Any,
) -> Any:
    """Example 59's convolution, ``output = conv3d(activation, filter)``, in place.

    Dense: ``activation`` (N,6,4,4,64), ``filter`` (128,3,3,3,64), ``output`` (N,4,2,2,128),
    all float32 (TF32 is used for the products: round the inputs for round-to-nearest).
    Gather/scatter: ``activation`` is a pool (rows, 64) and ``gather`` int32 (N*96,) names the
    row of every input position (n,d,h,w); ``output`` is a pool (rows, 128) and ``scatter``
    int32 (N*16,) names the row of every output position (n,z,p,q); other rows of ``output``
    are left as they are. N must be a multiple of 4. Every check runs before the launch.
    The kernels are chosen by target (:func:`default_kernels`: the wgmma kernels of
    :func:`make_conv3d_sm90` on an H100/H200, the seed's sm80 tiling elsewhere), or
    ``kernels``: the pair :func:`make_conv3d` or :func:`make_conv3d_sm90` builds for another
    configuration (benchmarks/conv.py compares them). ``launch`` goes to the kernel call (``stream=`` ...). Returns ``output``."""
    if (gather is None) != (scatter is None):
        raise ConvError("conv3d_fprop: give both gather and scatter, or neither")
    _check_array("filter", filter, (K, T, R, S, C), "float32")
    if gather is None:
        _check_array("activation", activation, (None, D, H, W, C), "float32")
        n = _images(_shape(activation)[0], 1, "activation")
        dense, _gathered = kernels or default_kernels(n)
        cfg = dense.config
        n = _images(n, 1, "activation", cfg.images)
        _check_array("output", output, (n, Z, P, Q, K), "float32")
        dense(activation, filter, output, grid=(n // cfg.images,), block=cfg.threads, **launch)
        return output
    _check_array("activation", activation, (None, C), "float32")
    _check_array("output", output, (None, K), "float32")
    _check_array("gather", gather, (None,), "int32")
    _check_array("scatter", scatter, (None,), "int32")
    n = _images(_shape(gather)[0], D * H * W, "gather")
    _dense, gathered = kernels or default_kernels(n)
    cfg = gathered.config
    n = _images(n, 1, "gather", cfg.images)
    if _shape(scatter)[0] != n * Z * P * Q:
        raise ConvError(
            f"conv3d_fprop: gather names {n} images ({n * D * H * W} input positions), so "
            f"scatter must have {n * Z * P * Q} entries, got {_shape(scatter)[0]}"
        )
    _check_indices("gather", gather, _shape(activation)[0], "the activation pool")
    _check_indices("scatter", scatter, _shape(output)[0], "the output pool")
    gathered(
        activation,
        filter,
        output,
        gather,
        scatter,
        grid=(n // cfg.images,),
        block=cfg.threads,
        **launch,
    )
    return output


# -- reference and examples -----------------------------------------------------------------------
def tf32_round(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to TF32 (10 mantissa bits, nearest, ties away from zero)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def reference_conv3d(activation: np.ndarray, filter: np.ndarray) -> np.ndarray:
    """The convolution in float64 with numpy: (N,6,4,4,64) x (128,3,3,3,64) -> (N,4,2,2,128)."""
    a, f = activation.astype(np.float64), filter.astype(np.float64)
    out = np.zeros((a.shape[0], Z, P, Q, K))
    for t in range(T):
        for r in range(R):
            for s in range(S):
                window = a[:, t : t + Z, r : r + P, s : s + Q, :]
                out += (window.reshape(-1, C) @ f[:, t, r, s, :].T).reshape(out.shape)
    return out


def random_problem(n: int, rng: np.random.Generator, spare: int = 0) -> dict:
    """Dense operands rounded to TF32, and pools ``spare`` rows larger than needed with random
    permutations as the gather and scatter vectors."""
    act = tf32_round(rng.standard_normal((n, D, H, W, C)))
    flt = tf32_round(rng.standard_normal((K, T, R, S, C)))
    g_rows, o_rows = n * D * H * W + spare, n * Z * P * Q + spare
    gather = rng.permutation(g_rows)[: n * D * H * W].astype(np.int32)
    scatter = rng.permutation(o_rows)[: n * Z * P * Q].astype(np.int32)
    pool = tf32_round(rng.standard_normal((g_rows, C)))
    pool[gather] = act.reshape(-1, C)
    return {"act": act, "flt": flt, "pool": pool, "gather": gather, "scatter": scatter,
            "out_rows": o_rows}  # fmt: skip


def _images_of(n: int, images: int) -> int:
    """``n`` rounded down to a positive multiple of ``images`` (the kernel's images per CTA)."""
    return max(images, n // images * images)


def _dense_inputs(n: int, rng: np.random.Generator, images: int = IMAGES_PER_CTA) -> dict:
    n = _images_of(n, images)
    p = random_problem(n, rng)
    out = np.full((n, Z, P, Q, K), np.nan, np.float32)
    return {"activation": p["act"], "filter": p["flt"], "output": out}


def _gather_inputs(n: int, rng: np.random.Generator, images: int = IMAGES_PER_CTA) -> dict:
    n = _images_of(n, images)
    p = random_problem(n, rng, spare=37)
    out = np.full((p["out_rows"], K), 7.0, np.float32)  # rows not scattered to stay 7
    return {"activation": p["pool"], "filter": p["flt"], "output": out,
            "gather": p["gather"], "scatter": p["scatter"]}  # fmt: skip


def _gather_reference(args: dict) -> dict:
    n = args["gather"].shape[0] // (D * H * W)
    act = args["activation"][args["gather"]].reshape(n, D, H, W, C)
    out = args["output"].copy()
    out[args["scatter"]] = reference_conv3d(act, args["filter"]).reshape(-1, K)
    return {"output": out}


def _images_in(args: dict) -> int:
    return args["gather"].shape[0] // (D * H * W) if "gather" in args else len(args["activation"])


def examples_of(pair: tuple[Any, Any], gpu_size: int | None = 4320) -> list:
    """``layoutc run``'s problems for a kernel pair (dense, gather/scatter): N = 4 on the CPU
    (rounded to the kernels' images per CTA), ``gpu_size`` on a GPU (the numpy reference in
    float64 is the slow part); grid and block from the kernels' configuration."""
    dense, gathered = pair

    def common(kernel: Any) -> dict:  # each kernel its own tiling (the Hopper pair's may differ)
        cfg = kernel.config

        def launch(args: dict) -> dict:
            return {"grid": (_images_in(args) // cfg.images,), "block": cfg.threads}

        return {"launch": launch, "size": cfg.images, "gpu_size": gpu_size, "rtol": 1e-4,
                "atol": 1e-3}  # fmt: skip

    arch = "Hopper wgmma" if isinstance(dense.config, Sm90Config) else "sm80 mma.sync"
    dense_images, gather_images = dense.config.images, gathered.config.images
    return [
        lc.Example(
            kernel=dense,
            inputs=lambda n, rng: _dense_inputs(n, rng, dense_images),
            reference=lambda a: {"output": reference_conv3d(a["activation"], a["filter"])},
            description=f"example 59, dense ({arch}): conv3d fprop as an implicit GEMM over "
            "the im2col layout",
            flops=lambda a: FLOPS_PER_IMAGE * _images_in(a),
            **common(dense),
        ),
        lc.Example(
            kernel=gathered,
            inputs=lambda n, rng: _gather_inputs(n, rng, gather_images),
            reference=_gather_reference,
            description=f"example 59, gather/scatter ({arch}): the same kernel body over "
            "gather layouts",
            flops=lambda a: FLOPS_PER_IMAGE * _images_in(a),
            **common(gathered),
        ),
    ]


def examples_for(target: str) -> list:
    """The problems ``layoutc run`` runs on ``target``: on a GPU the pair the target picks
    (:func:`default_kernels` at N = 4320: the wgmma kernels on an H100/H200); on the CPU both
    the sm80 pair and a Hopper pair (the CPU runtime runs wgmma kernels too) at small N."""
    if target != "cpu":
        return examples_of(default_kernels(4320, target))
    return examples_of((conv3d_fprop_dense, conv3d_fprop_gather)) + examples_of(
        hopper_pair(Sm90Config(images=4))
    )


EXAMPLES = examples_for(default_target())
