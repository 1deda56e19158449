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
   only, bk = 32; FP8: ``SM90_64xBNx32_F32{E4M3,E5M2}{E4M3,E5M2}_SS_TN``, K-major only,
   bk = 128; bk defaults to one 128-byte row)
   along M: one ``lc.gemm`` issues, per stage, ``BK/K`` wgmmas per warpgroup (``warpgroup_arrive``, ``gemm``, ``warpgroup_commit_batch``,
   ``warpgroup_wait``), the FP32 accumulators in registers;
4. writes C from the accumulators (CuTe's ``CLayout_64xN``: two consecutive f32 per thread).

This is the first sm90 GEMM: it does not use TMA, mbarriers, warp specialization or
persistence yet (docs/hopper.md says what comes next). The CPU runtime runs it with the
hardware's semantics: the wgmma emulation reads A and B through the descriptors, so a wrong
descriptor or swizzle fails the numpy check below.

Run it:  layoutc run examples/gemm_sm90.py [--size 4096]   (size = M = N = K)
"""

import numbers
from dataclasses import dataclass, replace
from typing import Any

import layoutc as lc
import numpy as np
from layoutc import _

ELEMENTS = {
    "f16": lc.f16,
    "bf16": lc.bf16,
    "tf32": lc.tf32,
    "f8e4m3": lc.f8e4m3,
    "f8e5m2": lc.f8e5m2,
}
C_ELEMENTS = {"f32": lc.f32, "f16": lc.f16, "bf16": lc.bf16}
ATOMS = {  # dtype -> (CuTe's wgmma atom with N = {n}, K of one wgmma)
    "f16": ("SM90_64x{n}x16_F32F16F16_SS", 16),
    "bf16": ("SM90_64x{n}x16_F32BF16BF16_SS", 16),
    "tf32": ("SM90_64x{n}x8_F32TF32TF32_SS_TN", 8),
    "f8e4m3": ("SM90_64x{n}x32_F32E4M3E4M3_SS_TN", 32),
    "f8e5m2": ("SM90_64x{n}x32_F32E5M2E5M2_SS_TN", 32),
}
FP8_NAMES = {"f8e4m3": "E4M3", "f8e5m2": "E5M2"}  # as CuTe's atoms spell them


#: The fused epilogue's activations (CUTLASS's ``epilogue::thread`` functors; cuBLASLt's
#: ``CUBLASLT_EPILOGUE_{RELU,GELU}``): ``gelu`` is the tanh approximation, as cuBLASLt's and
#: ``torch.nn.functional.gelu(x, approximate="tanh")``.
ACTIVATIONS = ("none", "relu", "gelu", "silu")


@dataclass(frozen=True)
class Epilogue:
    """What the epilogue computes from the f32 accumulators (CUTLASS 3's epilogue fusion
    operations, ``LinCombPerRowBiasEltAct`` and friends; cuBLASLt's epilogues)::

        D = act(alpha * (A @ B) + beta * C + bias)

    applied to each thread's accumulator fragment where it is converted to D's type, after the
    scale factors (FP8) and, with stream-K / split-K, once after the partials are added.

    - ``alpha``: an f32 kernel argument ``alpha`` (else 1);
    - ``source``: a source matrix ``C`` (argument ``source``: D's shape, D's element type
      ``c_dtype``, row-major like D) and an f32 argument ``beta``; a launch with ``beta == 0``
      never reads C (the loads are predicated off: C may hold NaN, or be any tensor of the
      right shape);
    - ``bias``: ``"n"``, one value per column of D (N values: cuBLASLt's
      ``CUBLASLT_EPILOGUE_BIAS``, whose bias is per row of its column-major output, i.e. per
      column of this row-major D, as ``torch.addmm(bias, a, b)`` broadcasts a vector of N);
      ``"m"``, one value per row of D (M values); ``bias_dtype`` ``"f32"`` or ``"out"`` (D's
      type);
    - ``act``: ``"relu"``, ``"gelu"`` (tanh approximation) or ``"silu"`` (``x *
      sigmoid(x)``); their tanh is ``lc.tanh(x, fastmath=fast_tanh)``: by default the GPU's
      ``tanh.approx.f32`` (one MUFU instruction, relative error at most 2^-11, as
      cuBLASLt's GELU), with ``fast_tanh=False`` a rational approximation within 4e-7 (11
      FMAs and a division);
    - ``amax``: also ``amax[0] = max(amax[0], max |D|)`` over D's elements (the f32 values
      before D's conversion; argument ``amax``, a one-element f32 tensor the caller zeroes:
      FP8 pipelines' scale of the next GEMM), with one integer atomic max per warp and tile
      (non-negative f32 values order as their bits do).

    The kernel's extra arguments follow ``flags``: ``alpha, beta, source, bias, amax``, each a
    compile-time None where the record does not use it (:func:`epilogue_annotation`,
    :func:`epilogue_args`)."""

    alpha: bool = False
    source: bool = False
    bias: str | None = None
    bias_dtype: str = "f32"
    act: str = "none"
    amax: bool = False
    fast_tanh: bool = True

    @property
    def fused(self) -> bool:
        """Whether there is anything to compute beyond D = A @ B (scaled)."""
        return self.alpha or self.source or self.bias is not None or self.act != "none" or self.amax

    @property
    def name(self) -> str:
        """The kernel name's part: ``-ea`` alpha, ``-ec`` a source C, ``-bn``/``-bm`` bias
        (``-bno``: in D's type), ``-relu``/``-gelu``/``-silu`` (``-gelux``/``-silux``: with
        ``fast_tanh=False``), ``-amax``."""
        name = ("-ea" if self.alpha else "") + ("-ec" if self.source else "")
        if self.bias is not None:
            name += f"-b{self.bias}" + ("o" if self.bias_dtype == "out" else "")
        if self.act != "none":
            exact = self.act in ("gelu", "silu") and not self.fast_tanh
            name += f"-{self.act}" + ("x" if exact else "")
        return name + ("-amax" if self.amax else "")

    def check(self, cfg: "GemmConfig") -> None:
        """Raise ValueError naming the field of a combination the kernel does not handle."""
        if self.act not in ACTIVATIONS:
            raise ValueError(f"epilogue_op.act must be one of {ACTIVATIONS}, got {self.act!r}")
        if self.bias not in (None, "m", "n"):
            raise ValueError(
                f"epilogue_op.bias must be None, 'm' (per row of D) or 'n' (per column), got "
                f"{self.bias!r}"
            )
        if self.bias_dtype not in ("f32", "out"):
            raise ValueError(
                f"epilogue_op.bias_dtype must be 'f32' or 'out' (D's type), got {self.bias_dtype!r}"
            )
        for what in ("alpha", "source", "amax", "fast_tanh"):
            if not isinstance(getattr(self, what), bool):
                raise ValueError(
                    f"epilogue_op.{what} must be True or False, got {getattr(self, what)!r}"
                )
        if self.fused and cfg.loads != "tma":
            raise ValueError(
                f"epilogue_op (a fused epilogue) takes the warp-specialized kernel "
                f"(loads='tma'), got loads={cfg.loads!r}"
            )


@dataclass(frozen=True)
class GemmConfig:
    """One tiling of the sm90 GEMM: element type of A and B (``f16``, ``bf16``, ``tf32`` or
    FP8 ``f8e4m3``/``f8e5m2``; f32 accumulators, C in ``c_dtype``), CTA tile
    ``bm x bn x bk`` (``bk`` elements = one 128-byte swizzled row: 64 16-bit, 32 tf32, 128 FP8),
    ``stages`` of the shared-memory pipeline, ``warpgroups`` (consumers along M), and
    ``mma_in_flight``: 0 waits for each K-block's wgmmas before the next; 1 keeps one K-block
    of wgmmas running while the next is issued (CUTLASS's ``K_PIPE_MMAS``), so a stage is
    refilled two K-blocks after it was read. ``mma_lead`` (TMA loads, ``mma_in_flight=0``):
    each K-block's wgmmas go out as two commit groups, its first ``mma_lead`` K-steps, then
    the rest; the wait for the previous K-block sits between them (``warpgroup_wait(1)``), so
    the tensor cores always have queued work while the stage is still released as soon as
    its wgmmas are done (what cuBLAS's sm90 kernels do). ``b_dtype`` mixes FP8 types (e4m3 x
    e5m2); ``scales`` adds ``torch._scaled_mm``'s per-tensor scale factors (``"tensor"``:
    one-element f32 tensors, ``"value"``: f32 arguments) or its row-wise ones (``"row"``:
    ``scale_a`` of M and ``scale_b`` of N f32 values, ``D[m, n] = scale_a[m] * scale_b[n] *
    (A @ B)[m, n]``; :func:`scale_args`); ``mainloop="rs"`` feeds A to the ``_RS`` atoms from
    registers (ldmatrix from the stage). ``cluster`` (TMA loads) is the cluster's shape in
    tiles, ``(along M, along N)``: ``(1, 2)`` (or ``2``) pairs tiles along N that share A (A
    multicast), ``(2, 1)`` pairs tiles along M that share B (B multicast), and up to 8 blocks
    in all, e.g. ``(2, 2)``, ``(4, 1)``, ``(1, 4)``: A multicast across each row of the
    cluster, B across each column (:meth:`check_cluster`). ``scales="block"``: block-wise FP8
    scales (:meth:`check_block_scales`)."""

    dtype: str = "f16"
    bm: int = 128
    bn: int = 128
    bk: int | None = None  # None: one 128-byte row of A's type
    stages: int = 4
    warpgroups: int = 2
    mma_in_flight: int = 1
    mma_lead: int = 0
    loads: str = "cp.async"
    schedule: str = "cooperative"
    c_dtype: str = "f32"
    raster: int = 8
    registers: tuple[int, int] = (40, 232)
    full_tiles: bool = False
    cluster: int | tuple[int, int] = 1  # (tiles along M, along N); an int n is (1, n)
    epilogue: str = "store"
    release: str = "warp"  # TMA: one arrival per consumer "warp" or per "warpgroup" (CUTLASS)
    a_major: str = "K"  # "MN": A stored (K, M) M-contiguous (f16/bf16, TMA loads)
    b_major: str = "K"  # "MN": B stored (K, N) N-contiguous
    b_dtype: str | None = None  # B's type when it differs from A's (FP8: e4m3 x e5m2)
    # "tensor" | "value": D = scale_a * scale_b * (A @ B); "row": D[m, n] = scale_a[m] *
    # scale_b[n] * (A @ B)[m, n] (torch._scaled_mm's row-wise scales); "block": DeepSeek-V3's
    # block-wise scales, D[m, n] = sum over K blocks kb of 128 of scale_a[m, kb] *
    # scale_b[n // 128, kb] * (A[m, kb] @ B[n, kb]) (:meth:`check_block_scales`)
    scales: str | None = None
    mainloop: str = "ss"  # "rs": A from registers (ldmatrix, the _RS atoms; TMA loads)
    # scales="row", TMA loads: where a tile's row and column scales are loaded: "after" its
    # mainloop (all, then applied), "before" it (held in registers across it), or "box" (the
    # TMA epilogue: each box's columns right before it is staged)
    scale_loads: str = "after"
    # cooperative: the consumer warpgroups split each tile along "M" (64-row slices each, as
    # CUTLASS does) or "N" (each all bm rows of bn / warpgroups columns: tiles whose bm is not
    # a multiple of 128, e.g. cuBLAS's 192 x 160 at 4000^3)
    split: str = "M"
    # TMA epilogue: C boxes each consumer warpgroup stages in shared memory (0: two where they
    # fit next to the stages, else one). As many as a tile has: all written, then all stored,
    # with one barrier pair per tile and no wait for a store in between.
    epi_buffers: int = 0
    # TMA epilogue, cooperative 128-row tiles (one 64-row slice per warpgroup): the epilogue
    # in two halves of C's columns. After a tile's mainloop its first half is stored; its
    # second half stays in the accumulators' registers while the next tile's first
    # ``epi_overlap`` K-blocks run their wgmmas on columns [0, bn/2) (N = bn/2 atoms, into
    # the registers just stored), so the tensor cores work under the second half's stores;
    # then the same K-blocks' columns [bn/2, bn), and the mainloop goes on as before.
    epi_overlap: int = 0
    # ... and the wgmmas of those K-blocks and of the rest of the mainloop: "half" (N = bn/2
    # atoms throughout, first the K-blocks' columns [0, bn/2), then the stores, then
    # [bn/2, bn): ptxas serializes every wgmma where an N = bn atom shares registers with an
    # N = bn/2 one, C7511, so A is read from shared memory twice per K-step) or "full" (the
    # plain tile's N = bn atoms everywhere: the head's K-blocks issued whole, the stores under
    # them reading the copy of the second half; name ``-eo<n>f``)
    overlap_n: str = "half"
    # The tile scheduler's work decomposition (CUTLASS's sm90 ``DecompositionMode``, TMA
    # loads, no cluster): "data_parallel" (one work unit per output tile, all of K),
    # "splitk" (each tile's K in ``split_k`` units) or "streamk" (data-parallel waves, the
    # last partial wave plus one spread over all blocks by K-blocks). Units that end before a
    # tile's last K-block leave an f32 partial tile in a global workspace and raise its flag;
    # the tile's last unit adds the partials in a fixed order and stores C (docs/hopper.md,
    # "Stream-K and split-K"). ``split_k=S > 1`` alone means ``decomposition="splitk"``.
    decomposition: str = "data_parallel"
    split_k: int = 1
    # What the epilogue computes: D = act(alpha * (A @ B) + beta * C + bias) (:class:`Epilogue`;
    # the default: D = A @ B)
    epilogue_op: Epilogue = Epilogue()
    # A fused epilogue in the cooperative schedule: the tile's first box's C and bias loads
    # are issued before its mainloop (in flight under it, their registers held across it),
    # not after it, where the first box waited for them with the tensor cores idle. False:
    # the old order (name ``-npf``), for A/B measurements.
    epi_prefetch: bool = True
    # A fused per-column bias (``Epilogue(bias="n")``) in the cooperative schedule (TMA
    # loads): the tile's bn values are staged in shared memory once per tile (each consumer
    # thread loads ``bn / (128 * warpgroups)`` of them, coalesced, before the mainloop and
    # stores them after it; two barriers of the consumers), and each box reads its values
    # there, not from global memory one box ahead. False: the per-box loads (name ``-nbs``),
    # for A/B measurements.
    bias_smem: bool = True
    # Block-wise scales with ``mma_in_flight=1``: K-blocks per straight-line chunk of the
    # mainloop (each chunk's last promotion waits for its last wgmmas; an even number, so
    # K-block k is always in accumulator k % 2; name ``-bc<n>`` when not 2). At 128 x 128, 2
    # and 4 assemble without spills from both PTX back ends (4 spilled 12 bytes from LLVM's
    # before ``uniform_a``), 6 and 8 spill from LLVM's. With ``mma_in_flight=0`` (when this or
    # ``block_prefetch`` is given) the same chunks wait for each K-block before its promotion
    # (DeepGEMM's and CUTLASS's order; measured slower, docs/hopper.md).
    block_chunk: int = 2
    # ... and each K-block's scale factors loaded two K-blocks ahead (when the K-block before
    # it of the same accumulator is promoted), not right after its own wgmmas are issued
    # (name ``-bpf``).
    block_prefetch: bool = False
    # Block-wise scales: A's shared-memory descriptors from the warpgroup index broadcast
    # from lane 0 (warp-uniform, so ptxas keeps them in uniform registers, as B's); False:
    # from the thread index, in vector registers moved to uniform ones per wgmma (name
    # ``-nua``; 3-4% slower on an H100, docs/hopper.md)
    uniform_a: bool = True
    # Block-wise scales: each K-block's scale_a rows of the tile loaded by the producer with
    # TMA into shared memory on the stage's full barrier (DeepGEMM's and CUTLASS's way) and
    # read there by the consumers after the stage's wait, instead of from global memory with
    # clamped indices (name ``-sas``; TMA's 16-byte strides: M a multiple of 4). With
    # ``block_prefetch``, ``scale_b`` alone is loaded two K-blocks ahead. tuned()'s where the
    # shape's M allows (measured faster than the factors two ahead: docs/hopper.md)
    scale_smem: bool = False

    def __post_init__(self) -> None:
        if self.split_k > 1 and self.decomposition == "data_parallel":
            object.__setattr__(self, "decomposition", "splitk")
        # bk defaults to one 128-byte swizzled row of A's type (64 16-bit, 32 tf32, 128 FP8)
        if self.bk is None and self.dtype in ELEMENTS:
            object.__setattr__(self, "bk", 1024 // ELEMENTS[self.dtype].bits)
        # the cluster's shape in tiles, (M, N): an int n is (1, n), tiles along N sharing A
        if isinstance(self.cluster, int) and not isinstance(self.cluster, bool):
            object.__setattr__(self, "cluster", (1, self.cluster))
        elif isinstance(self.cluster, list):
            object.__setattr__(self, "cluster", tuple(self.cluster))

    @property
    def cluster_m(self) -> int:
        """Tiles along M of one cluster (blocks sharing B's tile: B multicast)."""
        return self.cluster[0]

    @property
    def cluster_n(self) -> int:
        """Tiles along N of one cluster (blocks sharing A's tile: A multicast)."""
        return self.cluster[1]

    @property
    def cluster_blocks(self) -> int:
        """Blocks of one cluster (1: no cluster)."""
        return self.cluster[0] * self.cluster[1]

    @property
    def threads(self) -> int:
        """Consumers, plus a producer warpgroup when TMA loads the stages."""
        return 128 * (self.warpgroups + (self.loads == "tma"))

    @property
    def name(self) -> str:
        name = f"{self.dtype}-{self.bm}x{self.bn}x{self.bk}-s{self.stages}-wg{self.warpgroups}"
        name += "n" if self.split == "N" else ""
        name += f"-f{self.mma_in_flight}" + (f"l{self.mma_lead}" if self.mma_lead else "")
        if self.loads != "tma":
            return name + self.operand_suffix
        name += "-tma-" + ("pp" if self.schedule == "pingpong" else "coop")
        name += "" if self.c_dtype == "f32" else f"-c{self.c_dtype}"
        name += f"-r{self.raster}"
        if self.cluster_blocks > 1:  # -x2: (1, 2), along N (the name it always had); -x2x1
            name += (
                f"-x{self.cluster_n}" if self.cluster_m == 1 else "-x{}x{}".format(*self.cluster)
            )
        name += "-etma" if self.epilogue == "tma" else ""
        name += f"-eb{self.epi_buffers}" if self.epi_buffers else ""
        name += f"-eo{self.epi_overlap}" if self.epi_overlap else ""
        name += "f" if self.epi_overlap and self.overlap_n == "full" else ""
        name += "-rwg" if self.release == "warpgroup" else ""
        name += {"streamk": "-sk", "splitk": f"-split{self.split_k}"}.get(self.decomposition, "")
        return (
            name
            + "".join(f"-{o}{m}" for o, m in (("a", self.a_major), ("b", self.b_major)) if m != "K")
            + self.operand_suffix
            + self.epilogue_op.name
            + ("-npf" if self.epilogue_op.fused and not self.epi_prefetch else "")
            + ("-nbs" if self.epilogue_op.bias == "n" and not self.bias_smem else "")
            + (f"-bc{self.block_chunk}" if self.block_chunk != 2 else "")
            + ("-bpf" if self.block_prefetch else "")
            + ("" if self.uniform_a else "-nua")
            + ("-sas" if self.scale_smem else "")
        )

    @property
    def operand_suffix(self) -> str:
        """The name's part for the RS mainloop (``-rs``), B's own type (``-bf8e5m2``) and the
        scale factors (``-sc`` tensors, ``-scv`` values, ``-scr`` rows and columns)."""
        suffix = "-rs" if self.mainloop == "rs" else ""
        suffix += f"-b{self.b_dtype}" if self.b_type != self.dtype else ""
        suffix += {None: "", "tensor": "-sc", "value": "-scv", "row": "-scr", "block": "-scb"}.get(
            self.scales, ""
        )
        return suffix + {"after": "", "before": "p", "box": "b"}.get(self.scale_loads, "?")

    @property
    def element(self) -> Any:
        return ELEMENTS[self.dtype]

    @property
    def b_type(self) -> str:
        """B's element type (A's unless ``b_dtype`` says otherwise)."""
        return self.b_dtype or self.dtype

    @property
    def b_element(self) -> Any:
        return ELEMENTS[self.b_type]

    @property
    def split_n(self) -> int:
        """Consumer warpgroups side by side along N in one tile (``split="N"``), else 1."""
        return self.warpgroups if self.split == "N" else 1

    @property
    def split_m(self) -> int:
        """Consumer warpgroups stacked along M in one tile (cooperative, ``split="M"``)."""
        pingpong = self.loads == "tma" and self.schedule == "pingpong"
        return 1 if pingpong or self.split == "N" else self.warpgroups

    @property
    def atom(self) -> str:
        """The mainloop's wgmma atom (``_RS`` for ``mainloop="rs"``)."""
        return self.wgmma_atom(self.bn // self.split_n, "RS" if self.mainloop == "rs" else "SS")

    def wgmma_atom(self, n: int, a_from: str = "SS") -> str:
        """CuTe's wgmma atom for this configuration's types with N = ``n``; ``a_from``: ``SS``
        (A from shared memory) or ``RS`` (A from registers)."""
        name = ATOMS[self.dtype][0].format(n=n).replace("_SS", "_" + a_from)
        if self.b_type != self.dtype:  # FP8 with mixed types: F32{A}{B}
            a, b = (FP8_NAMES[t] for t in (self.dtype, self.b_type))
            name = name.replace(f"F32{a}{a}", f"F32{a}{b}")
        return name

    @property
    def vector(self) -> int:
        """Elements in one 128-bit cp.async."""
        return 128 // self.element.bits

    @property
    def epilogue_box(self) -> tuple[int, int]:
        """The TMA epilogue's box of C: 64 rows (one warpgroup's wgmma slice) by one 128-byte
        swizzled row of columns; where a warpgroup's columns are no multiple of that (192 x
        160 split along N: 80 each), by all its columns, unswizzled."""
        cols = 1024 // C_ELEMENTS.get(self.c_dtype, lc.f32).bits
        mine = self.bn // self.split_n
        return 64, cols if mine % cols == 0 else mine

    @property
    def epilogue_swizzled(self) -> bool:
        return self.epilogue_box[1] * C_ELEMENTS.get(self.c_dtype, lc.f32).bits == 1024

    @property
    def epilogue_boxes(self) -> int:
        """Boxes of C per consumer warpgroup and tile."""
        rows, cols = self.epilogue_box
        return (self.bm // (rows * self.split_m)) * (self.bn // self.split_n // cols)

    @property
    def overlappable(self) -> bool:
        """Whether ``epi_overlap`` applies: the TMA epilogue with an even number of boxes per
        warpgroup, the cooperative schedule split along M with one 64-row slice per warpgroup,
        ``mma_in_flight=0`` without ``mma_lead``, the SS mainloop, K-major B, data-parallel,
        no per-box scale loads, no fused epilogue (``epilogue_op``)."""
        return not (
            self.epilogue != "tma"
            or self.epilogue_op.fused
            or self.loads != "tma"
            or self.schedule != "cooperative"
            or self.split != "M"
            or self.bm != 64 * self.warpgroups
            or self.epilogue_boxes % 2
            or (self.bn // 2) % 8
            or self.mma_in_flight
            or self.mma_lead
            or self.mainloop != "ss"
            or self.b_major != "K"
            or self.decomposition != "data_parallel"
            or self.scale_loads == "box"
            or self.scales == "block"
        )

    @property
    def epilogue_buffers(self) -> int:
        """Boxes of C each consumer warpgroup stages in shared memory: two (one is written
        while the TMA stores the other) where a tile has more than one and they fit next to
        the stages, else one."""
        if self.epilogue != "tma":
            return 0
        if self.epi_buffers:
            return self.epi_buffers
        return 2 if self.epilogue_boxes > 1 and self._smem_bytes(2) <= 227 * 1024 else 1

    def epilogue_bytes(self, buffers: int | None = None) -> int:
        rows, cols = self.epilogue_box
        box = rows * cols * C_ELEMENTS[self.c_dtype].bits // 8
        return self.warpgroups * (self.epilogue_buffers if buffers is None else buffers) * box

    @property
    def bias_staged(self) -> bool:
        """Whether the fused per-column bias goes through shared memory (``bias_smem``)."""
        return (
            self.bias_smem
            and self.epilogue_op.bias == "n"
            and self.schedule == "cooperative"
            and self.loads == "tma"
        )

    @property
    def bias_stage(self) -> int:
        """Bias values each consumer thread stages per tile (``bias_staged``), 0 without."""
        return -(-self.bn // (128 * self.warpgroups)) if self.bias_staged else 0

    def _smem_bytes(self, buffers: int) -> int:
        tiles = self.stages * (self.bm + self.bn) * self.bk * self.element.bits // 8
        tiles += self.epilogue_bytes(buffers) if self.epilogue == "tma" else 0
        if self.bias_stage:  # one value a consumer thread, bias_stage times (16-byte rounded)
            out = C_ELEMENTS.get(self.c_dtype, lc.f32)
            bits = 32 if self.epilogue_op.bias_dtype == "f32" else out.bits
            tiles += -(-128 * self.warpgroups * self.bias_stage * bits // 8 // 16) * 16
        barriers = (16 * self.stages + 16) * (self.loads == "tma")
        if self.scale_smem:  # the stages' scale_a rows (f32), 128-byte aligned (TMA's rule)
            tiles += 4 * self.bm * self.stages + 128
        # + the bytes the kernel realigns its 1024-aligned tiles in (docs/frontend.md)
        return tiles + barriers + 1024 - 16

    def smem_bytes(self) -> int:
        return self._smem_bytes(self.epilogue_buffers)

    def workspace_slots(self, m: int, n: int, grid: int) -> int:
        """The f32 partial tiles (``bm * bn`` each, with one i32 flag) a launch of ``grid``
        blocks may leave for the tiles' last units: split-K ``S - 1`` per tile, stream-K one
        per block (only a block's first unit can end inside a tile); none data-parallel."""
        if self.decomposition == "splitk":
            return -(-m // self.bm) * -(-n // self.bn) * (self.split_k - 1)
        return grid if self.decomposition == "streamk" else 0

    def check(self) -> None:
        """Raise ValueError for a tiling the kernel does not handle (with the reason)."""
        if not isinstance(self.epilogue_op, Epilogue):
            raise ValueError(
                f"epilogue_op must be an Epilogue record, got {type(self.epilogue_op).__name__}"
            )
        self.epilogue_op.check(self)
        if not isinstance(self.epi_prefetch, bool):
            raise ValueError(f"epi_prefetch must be True or False, got {self.epi_prefetch!r}")
        for what, t in (("dtype", self.dtype), ("b_dtype", self.b_type)):
            if t not in ELEMENTS:
                raise ValueError(f"{what} must be one of {sorted(ELEMENTS)}, got {t!r}")
        if self.b_type != self.dtype and not {self.dtype, self.b_type} <= set(FP8_NAMES):
            raise ValueError(
                f"A and B may differ in type only as FP8 (e4m3 x e5m2), got {self.dtype} x "
                f"{self.b_dtype}"
            )
        if self.mainloop not in ("ss", "rs") or (
            self.mainloop == "rs" and (self.loads != "tma" or self.a_major != "K")
        ):  # the RS atoms read A K-major from registers; ldmatrix fills them from the stage
            raise ValueError(
                f"mainloop must be 'ss' or 'rs' (TMA loads, A K-major), got {self.mainloop!r} "
                f"({self.loads}, a_major={self.a_major!r})"
            )
        if self.scales not in (None, "tensor", "value", "row", "block"):
            raise ValueError(
                f"scales must be None, 'tensor', 'value', 'row' or 'block', got {self.scales!r}"
            )
        if self.scales == "block":
            self.check_block_scales()
        if (self.block_chunk, self.block_prefetch) != (2, False) and self.scales != "block":
            raise ValueError(
                f"block_chunk and block_prefetch shape the mainloop of block-wise scales: "
                f"they take scales='block' only, got "
                f"block_chunk={self.block_chunk}, block_prefetch={self.block_prefetch} (scales="
                f"{self.scales!r}, mma_in_flight={self.mma_in_flight})"
            )
        if self.scale_smem and (self.scales != "block" or self.mma_in_flight != 1):
            raise ValueError(
                f"scale_smem reads each K-block's scale_a rows from its stage after the stage's "
                f"wait: it takes scales='block' and mma_in_flight=1, got "
                f"scales={self.scales!r}, mma_in_flight={self.mma_in_flight}"
            )
        if (
            not isinstance(self.block_chunk, int)
            or self.block_chunk < 2
            or self.block_chunk % 2
            or not isinstance(self.block_prefetch, bool)
        ):
            raise ValueError(
                f"block_chunk must be an even number of K-blocks, at least 2, and "
                f"block_prefetch True or False, got block_chunk={self.block_chunk!r}, "
                f"block_prefetch={self.block_prefetch!r}"
            )
        if self.scale_loads not in ("after", "before", "box") or (
            self.scale_loads != "after"
            and (
                self.scales != "row"
                or self.loads != "tma"
                or (self.scale_loads == "box" and self.epilogue != "tma")
            )
        ):
            raise ValueError(
                f"scale_loads must be 'after', or 'before' / 'box' with scales='row' and TMA "
                f"loads ('box': the TMA epilogue), got {self.scale_loads!r} (scales="
                f"{self.scales!r}, {self.loads}, epilogue={self.epilogue!r})"
            )
        if self.bk * self.element.bits != 1024:
            raise ValueError(
                f"bk must make 128-byte rows ({1024 // self.element.bits} {self.dtype}), "
                f"got {self.bk}"
            )
        pingpong = self.loads == "tma" and self.schedule == "pingpong"
        if self.split not in ("M", "N") or (
            self.split == "N" and (self.loads != "tma" or pingpong or self.mainloop != "ss")
        ):  # (with "N" each warpgroup would hold all bm rows of A in registers for RS)
            raise ValueError(
                f"split must be 'M' or 'N' (N: TMA loads, cooperative, the SS mainloop), got "
                f"{self.split!r}"
            )
        if self.bm % (64 * self.split_m):
            raise ValueError(
                f"{self.warpgroups} warpgroups of 64-row wgmmas do not tile bm={self.bm}"
            )
        if self.bn % self.split_n:
            raise ValueError(f"{self.warpgroups} warpgroups do not split bn={self.bn}")
        if self.schedule not in ("cooperative", "pingpong"):
            raise ValueError(f"schedule must be 'cooperative' or 'pingpong', got {self.schedule!r}")
        if pingpong and self.warpgroups != 2:
            raise ValueError("the ping-pong schedule takes two consumer warpgroups")
        self.check_cluster()
        for what, major, extent in (  # a cluster's blocks each load a part of the shared box
            ("a", self.a_major, self.bm // self.cluster_n),
            ("b", self.b_major, self.bn // self.cluster_m),
        ):
            if major not in ("K", "MN"):
                raise ValueError(f"{what}_major must be 'K' or 'MN', got {major!r}")
            if major == "MN" and (
                self.loads != "tma" or self.element.bits != 16 or extent % 64
            ):  # wgmma transposes 16-bit types only
                raise ValueError(
                    f"{what}_major='MN' takes TMA loads, f16/bf16 and 64-element boxes along "
                    f"M/N (a multiple of 64 per block), got {self.loads}, {self.dtype}, {extent}"
                )
        if self.release not in ("warp", "warpgroup"):
            raise ValueError(f"release must be 'warp' or 'warpgroup', got {self.release!r}")
        if self.c_dtype not in ("f32", "f16", "bf16"):
            raise ValueError(f"c_dtype must be f32, f16 or bf16, got {self.c_dtype!r}")
        if self.epilogue not in ("store", "tma") or (
            self.epilogue == "tma" and self.loads != "tma"
        ):
            raise ValueError(
                f"epilogue must be 'store' or 'tma' (TMA loads only), got {self.epilogue!r}"
            )
        if self.epi_buffers < 0 or (self.epi_buffers and self.epilogue != "tma"):
            raise ValueError(
                f"epi_buffers takes the TMA epilogue and a count > 0, got {self.epi_buffers} "
                f"({self.epilogue})"
            )
        if self.epi_buffers and self.smem_bytes() > 227 * 1024:
            raise ValueError(
                f"{self.epi_buffers} epilogue buffers and {self.stages} stages need "
                f"{self.smem_bytes()} bytes of shared memory, over 227 KB"
            )
        if self.epi_overlap < 0 or (self.epi_overlap and not self.overlappable):
            raise ValueError(
                f"epi_overlap takes a count >= 0 and, when > 0: the TMA epilogue with an "
                f"even number of boxes, the cooperative schedule "
                f"split along M with one 64-row slice per warpgroup (bm = 64 * warpgroups), "
                f"mma_in_flight=0 without mma_lead, the SS mainloop, K-major B, the "
                f"data-parallel decomposition, no per-box scale loads and no fused "
                f"epilogue_op; got "
                f"epi_overlap={self.epi_overlap} for {self.name}"
            )
        if self.overlap_n not in ("half", "full"):
            raise ValueError(f"overlap_n must be 'half' or 'full', got {self.overlap_n!r}")
        box = self.epilogue_box[1]
        c_bytes = C_ELEMENTS.get(self.c_dtype, lc.f32).bits // 8
        if self.epilogue == "tma" and not self.epilogue_swizzled and box * c_bytes % 16:
            raise ValueError(
                f"the TMA epilogue stores {1024 // 8 // c_bytes}-column boxes of "
                f"{self.c_dtype}, or unswizzled boxes of a warpgroup's {box} columns (a "
                f"multiple of 16 bytes): bn={self.bn} is neither"
            )
        if self.loads != "tma" and self.c_dtype != "f32":
            raise ValueError("the cp.async kernel writes f32 C (c_dtype needs loads='tma')")
        wn = self.bn // self.split_n
        if wn % 8 or not 8 <= wn <= 256:
            raise ValueError(
                f"bn per warpgroup must be a multiple of 8 in [8, 256], got {wn} (bn={self.bn})"
            )
        rows = self.threads * self.vector // self.bk
        if self.loads == "cp.async" and (self.bm % rows or self.bn % rows):
            raise ValueError(f"{self.threads} threads do not tile the {self.bm}x{self.bn} blocks")
        if self.loads not in ("cp.async", "tma"):
            raise ValueError(f"loads must be 'cp.async' or 'tma', got {self.loads!r}")
        if self.mma_in_flight not in (0, 1):
            raise ValueError(f"mma_in_flight must be 0 or 1, got {self.mma_in_flight}")
        steps = self.bk // ATOMS[self.dtype][1]  # wgmmas along K per K-block
        if self.mma_lead and (
            self.loads != "tma" or self.mma_in_flight or not 0 < self.mma_lead < steps
        ):
            raise ValueError(
                f"mma_lead takes TMA loads, mma_in_flight=0 and 0 < mma_lead < {steps} (the "
                f"K-steps of a K-block), got {self.mma_lead} ({self.loads}, "
                f"mma_in_flight={self.mma_in_flight})"
            )
        if self.decomposition not in ("data_parallel", "splitk", "streamk"):
            raise ValueError(
                "decomposition must be 'data_parallel', 'splitk' or 'streamk', got "
                f"{self.decomposition!r}"
            )
        if self.decomposition != "data_parallel" and (
            self.loads != "tma" or self.cluster_blocks != 1
        ):
            raise ValueError(
                f"decomposition={self.decomposition!r} takes TMA loads and no cluster, got "
                f"{self.loads}, cluster={self.cluster}"
            )
        if (self.decomposition == "splitk") != (self.split_k > 1) or self.split_k < 1:
            raise ValueError(
                f"split_k must be > 1 with decomposition='splitk' and 1 otherwise, got "
                f"split_k={self.split_k}, decomposition={self.decomposition!r}"
            )
        if self.stages < 2 + self.mma_in_flight * (self.loads != "tma"):
            raise ValueError(
                f"the pipeline needs at least {2 + self.mma_in_flight} stages with "
                f"mma_in_flight={self.mma_in_flight}, got {self.stages}"
            )

    def check_block_scales(self) -> None:
        """Raise ValueError for block-wise scales (``scales="block"``: A per 1 x 128 block, a
        row's 128 elements of one K block; B per 128 x 128 block, as CUTLASS's
        ``KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum`` and ``torch._scaled_mm``'s
        BlockWise1x128 x BlockWise128x128 take them) where the kernel cannot apply them: each
        K-block's wgmmas go into a separate f32 accumulator that is scaled and added to the
        tile's after their wait (wgmma accumulates in place), so FP8 A and B, TMA loads, a
        K-block of exactly 128 (one scale column), whole K-blocks per accumulator
        (``mma_in_flight`` 0: each K-block waited for before its promotion; 1: two K-block
        accumulators in turn, one promoted while the next K-block's wgmmas run; no
        ``mma_lead`` / ``epi_overlap``), and a tile's columns in whole 128-column blocks of
        B's scales (``bn`` dividing 128 or a multiple of it, the warpgroups split along M)."""
        fields = (
            f"(dtype={self.dtype}, bk={self.bk}, loads={self.loads!r}, mma_in_flight="
            f"{self.mma_in_flight}, mma_lead={self.mma_lead}, bn={self.bn}, split={self.split!r})"
        )
        why = None
        if {self.dtype, self.b_type} - set(FP8_NAMES):
            why = "takes FP8 A and B (e4m3 / e5m2)"
        elif self.bk != 128:
            why = f"scales K in blocks of 128: bk must be 128, got bk={self.bk}"
        elif self.loads != "tma":
            why = "takes TMA loads (the warp-specialized kernel)"
        elif self.mma_lead or self.epi_overlap:
            why = (
                "promotes each K-block's accumulator after its wgmmas' wait: it takes "
                "mma_in_flight=0 or 1 without mma_lead or epi_overlap"
            )
        elif (128 % self.bn and self.bn % 128) or self.split != "M":
            why = (
                "takes tiles whose columns lie in whole 128-column scale blocks of B: bn dividing "
                "128 or a multiple of it, split='M'"
            )
        elif self.scale_loads != "after":
            why = "loads its scales per K-block: scale_loads must stay 'after'"
        if why is not None:
            raise ValueError(f"scales='block' {why} {fields}")

    def check_cluster(self) -> None:
        """Raise ValueError naming ``cluster`` for a cluster shape the kernel or the hardware
        does not take: (cm, cn) positive ints, at most 8 blocks (the portable cluster size:
        more needs cudaFuncAttributeNonPortableClusterSizeAllowed, and the 16-bit multicast
        masks of larger ones go unchecked by the occupancy the grid assumes), TMA loads, and
        A's tile (B's) splitting into cn (cm) whole parts, one per block of a row (column):
        K-major, multiples of 8 rows (the 128B swizzle atom)."""
        cluster = self.cluster
        if not (
            isinstance(cluster, tuple)
            and len(cluster) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in cluster)
        ):
            raise ValueError(
                f"cluster must be an int n (1 x n) or a pair (tiles along M, along N) of "
                f"positive ints, got {cluster!r}"
            )
        if self.cluster_blocks > 8:
            raise ValueError(
                f"cluster={cluster!r} has {self.cluster_blocks} blocks, more than the 8 of a "
                f"portable cluster (the multicast masks of larger ones, and their occupancy, "
                f"are not handled)"
            )
        if self.cluster_blocks > 1 and self.loads != "tma":
            raise ValueError(
                f"cluster={cluster!r} (A multicast across a cluster's N, B across its M) takes "
                f"TMA loads, got loads={self.loads!r}"
            )
        for what, tile, parts, major in (
            ("bm", self.bm, self.cluster_n, self.a_major),
            ("bn", self.bn, self.cluster_m, self.b_major),
        ):
            if parts > 1 and major == "K" and (tile % parts or (tile // parts) % 8):
                along = "N (cluster[1])" if what == "bm" else "M (cluster[0])"
                raise ValueError(
                    f"cluster={cluster!r}: {what}={tile} does not split into {parts} parts of a "
                    f"multiple of 8 rows, one TMA box per block along {along}"
                )

    def grid(
        self,
        m: int,
        n: int,
        sms: int | None = None,
        balanced: bool = False,
        k: int | None = None,
    ) -> tuple[int, ...]:
        """cp.async: one block per tile (sizes must be multiples of the tile). TMA: the
        persistent grid, ``min(tiles, sms)`` blocks (every tile's own block without ``sms``);
        ``balanced``: the fewest blocks that still take the tiles in as many rounds (512
        tiles on 132 SMs: 128 blocks of 4 tiles, not 116 of 4 and 16 of 3; the idle SMs let
        a power-limited GPU clock the others higher). Split-K: whole rounds of ``split_k``
        blocks per tile, ``max(S, min(tiles * S, sms) // S * S)``; stream-K: every SM
        (``sms``, at most the K-blocks of all tiles when ``k`` is given; without ``sms``
        a block per tile, which is data-parallel)."""
        if self.decomposition == "splitk":
            units = -(-m // self.bm) * -(-n // self.bn) * self.split_k
            blocks = units if sms is None else min(units, sms)
            return (max(self.split_k, blocks // self.split_k * self.split_k),)
        if self.decomposition == "streamk" and sms is not None:
            tiles = -(-m // self.bm) * -(-n // self.bn)
            iters = tiles * max(1, -(-k // self.bk)) if k is not None else sms
            return (max(1, min(sms, iters)),)
        if self.loads == "tma":
            cl = self.cluster_blocks
            # clusters of cluster_m x cluster_n tiles
            groups = -(-m // (self.bm * self.cluster_m)) * -(-n // (self.bn * self.cluster_n))
            if sms is None:
                return (cl * groups,)
            blocks = max(1, min(groups, sms // cl))
            if balanced:
                blocks = -(-groups // -(-groups // blocks))
            return (cl * blocks,)
        if m % self.bm or n % self.bn:
            raise ValueError(f"{m}x{n} is not a multiple of the {self.bm}x{self.bn} CTA tile")
        return (m // self.bm, n // self.bn)


#: Element types whose ping-pong 128 x 192 tiles were measured against cuBLAS (FP8: against
#: torch._scaled_mm; docs/hopper.md) ...
PINGPONG_TUNED = ("bf16", "f16", "tf32", "f8e4m3")
#: ... and those whose cooperative 192 x 160 tiles (split along N) were.
SPLIT_N_TUNED = ("bf16", "f16", "tf32")
#: ... and those whose cooperative 128 x 256 tiles store half of C under the next tile's first
#: K-blocks (``epi_overlap``; +0.6-1.4% on an H100, docs/hopper.md)
EPI_OVERLAP_TUNED = {"bf16": 2, "f16": 2, "tf32": 2}
#: ... with the plain tile's N = bn wgmmas (``overlap_n``; under sustained load on an H100
#: 0.5-1.4% faster than the N = bn/2 halves at 4096^3 and 8192x4096x6144, bf16 and tf32,
#: docs/hopper.md "The overlap at full width")
OVERLAP_N_TUNED = "full"


def tile_efficiency(cfg: GemmConfig, m: int, n: int, sms: int = 132) -> float:
    """The fraction of the tensor cores' tile-rounds that compute C for an ``m x n`` output:
    a persistent block's tiles run one after the other (ping-pong's two warpgroups too: one
    mainloop at a time), so a block with the most tiles sets the time, and tiles past C's
    edge compute zeros. 8192^2 on 132 SMs: 128 x 256 tiles 2048 in 16 rounds, 0.970; ping-pong
    128 x 192 tiles 2752 in 21 rounds, of which C fills 8192/8256 columns, 0.985."""
    tiles = -(-m // cfg.bm) * -(-n // cfg.bn)
    rounds = -(-tiles // sms)
    return (m * n) / (rounds * sms * cfg.bm * cfg.bn)


#: The fewest K-blocks a block's stream-K range has (CUTLASS's ``min_iters_per_sk_unit``):
#: with fewer K-blocks in the stream-K tiles, fewer blocks share them.
MIN_SK_ITERS = 8
#: The named barrier of all consumer threads around the staging of a tile's per-column bias
#: (``GemmConfig.bias_staged``; 1 and 2 are the TMA epilogue's, 3 and 4 the partials' fixup's).
BIAS_BARRIER = 5
#: Split-K factors :func:`tuned` weighs against data-parallel and stream-K.
SPLITS = (2, 3, 4, 6, 8)
#: The fraction of the data-parallel time another decomposition must save to be chosen.
DECOMPOSITION_MARGIN = 0.03
#: An f32 partial tile stored and read costs this many times its bytes at the mainloop's
#: load rate (fitted to the H200 runs in docs/hopper.md: the partials of a round are written
#: at once, and a tile's last unit reads them one after the other).
PARTIAL_COST = 2.0
#: Stream-K's K-blocks cost this factor more than data-parallel ones (measured 1.1-1.3 on
#: an H200): its blocks walk different K-ranges, so tiles that share A or B rows no longer
#: load them from L2 together.
STREAM_K_LOAD_FACTOR = 1.25


def decomposition_time(cfg: GemmConfig, m: int, n: int, k: int, sms: int = 132) -> float:
    """The tile-count model of a decomposition: the busiest block's time in K-blocks (one
    ``bm x bn x bk`` step of the mainloop). A tile's epilogue costs its C bytes, an f32
    partial tile ``PARTIAL_COST`` times its bytes, each at the rate the mainloop loads a
    K-block's A and B (``(bm + bn) * bk`` elements; the sm90 mainloop runs near the L2's
    bandwidth, docs/hopper.md): ``e = bm * bn * c_bytes / kb_bytes``, ``p = PARTIAL_COST * 4
    * bm * bn / kb_bytes`` (bf16 128 x 256: e = 1.33, p = 5.33). With ``T`` tiles of ``kt``
    K-blocks on ``G = sms`` blocks:

    - data-parallel: ``ceil(T / G) * (kt + e)``;
    - split-K ``S``: ``G // S`` tiles per round; the last unit of a tile waits for the
      others' partials and adds ``S - 1`` of them: ``ceil(T / (G // S)) * (ceil(kt / S) + e
      + S * p)``;
    - stream-K: ``T = w * G + r``; ``w - 1`` data-parallel waves (none when ``w == 0``), then
      the other ``sk`` tiles' K-blocks spread evenly over ``U = min(G, sk * kt //
      MIN_SK_ITERS)`` blocks, at ``f = STREAM_K_LOAD_FACTOR`` times the cost: ``dp * (kt +
      e) + f * ceil(sk * kt / U) + p * (1 + ceil(U / sk)) + e * ceil(sk / U)`` (a block
      stores at most one partial and its last tile adds the partials of the blocks sharing
      it); ``r == 0`` is data-parallel.
    """
    tiles = -(-m // cfg.bm) * -(-n // cfg.bn)
    kt = max(1, -(-k // cfg.bk))
    kb_bytes = (cfg.bm + cfg.bn) * cfg.bk * cfg.element.bits // 8
    e = cfg.bm * cfg.bn * C_ELEMENTS[cfg.c_dtype].bits // 8 / kb_bytes
    p = PARTIAL_COST * 4 * cfg.bm * cfg.bn / kb_bytes
    dp_time = -(-tiles // sms) * (kt + e)
    if cfg.decomposition == "splitk":
        s = min(cfg.split_k, kt, sms)
        per = sms // s
        return -(-tiles // per) * (-(-kt // s) + e + s * p)
    if cfg.decomposition == "streamk" and tiles % sms:
        waves = tiles // sms
        sk = tiles if waves == 0 else tiles % sms + sms
        dp = (tiles - sk) // sms
        units = max(1, min(sms, sk * kt // MIN_SK_ITERS))  # the blocks sharing them
        spread = STREAM_K_LOAD_FACTOR * -(-sk * kt // units)
        return dp * (kt + e) + spread + p * (1 + -(-units // sk)) + e * -(-sk // units)
    return dp_time


def tuned(
    dtype: str = "bf16",
    shape: tuple[int, ...] | None = None,
    sms: int = 132,
    **overrides: Any,
) -> GemmConfig:
    """The fastest configuration measured for ``dtype`` (H100 and H200 against cuBLAS,
    benchmarks/gemm_sm90_ws.py; docs/hopper.md): the warp-specialized persistent TMA kernel
    with 128 x 256 cooperative tiles, 4 stages, one K-block of wgmmas at a time, no cluster
    and the TMA epilogue, C in the input type (tf32: f32; FP8: bf16). With ``shape``
    (``(m, n)`` or ``(m, n, k)``) for bf16, f16 and tf32: the ping-pong schedule with a
    128 x 192 tile per consumer warpgroup (4 stages, one K-block in flight) where its
    :func:`tile_efficiency` on ``sms`` SMs beats the cooperative tile's by more than 0.5%
    (8192^2: 1.016x of cuBLAS bf16 against 0.996x on an H200; 4096^2: 0.88x against 0.96x,
    its 704 tiles take 6 rounds of 5.3), or the cooperative 192 x 160 tile with the
    warpgroups side by side along N (``split="N"``, cuBLAS's tile at 4000^3: 525 tiles in 4
    rounds of 3.98, 0.986 against 0.925; 0.93 -> 0.98x of cuBLAS bf16 on an H100), whichever
    fills the rounds best. FP8 e4m3 takes the ping-pong tile by the same rule (8192^3 on an
    H200, two runs, CUDA-graph replays: 1.05x of ``torch._scaled_mm`` with row-wise scales
    against the cooperative tile's 1.00-1.02x; per-tensor 1.04x against 1.00x, one run; an
    H100, one run: 1.14x against 1.01x), not the 192 x 160 one (not measured). With ``k`` in
    ``shape`` (and no cluster), the tile (that one or the cooperative 128 x 256) and
    decomposition with the lowest :func:`decomposition_time` times the tile's area:
    stream-K or split-K (``SPLITS``) where it saves more than ``DECOMPOSITION_MARGIN`` of the
    data-parallel time (1024 x 1024 x 32768: 32 tiles of 512 K-blocks on 132 SMs, split-K 4
    of 128 x 256, 0.91-0.93x of cuBLAS bf16 against 0.3x data-parallel on an H200), else
    data-parallel (4096^3, 4000^3, and 128 tiles on 132 SMs: the measured best). The
    cooperative 128 x 256 tile (bf16, f16, tf32) stores the second half of its C under the next
    tile's first two K-blocks (``epi_overlap=2``, ``EPI_OVERLAP_TUNED``: +0.6-1.4% on an H100,
    side by side with the plain tile), with N = bn wgmmas throughout (``overlap_n="full"``:
    under sustained load on an H100 0.5-1.4% faster than the N = bn/2 halves at 4096^3 and
    8192x4096x6144, bf16 and tf32), except where the configuration cannot take it
    (``GemmConfig.overlappable``: split-K, stream-K, ``mma_lead``, per-box scale loads).
    ``overrides`` replace fields (``tuned("f16", c_dtype="f32")``, ``tuned("f8e4m3", shape,
    scales="row")``); block-wise FP8 scales (``scales="block"``) take the cooperative 128 x
    128 tile, 5 stages, one K-block in flight (its promotion under the next one's wgmmas),
    A's descriptors uniform, and with a ``shape`` whose M is a multiple of 4 ``scale_a``'s
    rows through shared memory (``scale_smem``; H100, same process: 0.94-0.97x / 0.93-0.94x
    of ``torch._scaled_mm``'s block-wise GEMM at 4096^3 direct / graph, 0.89-0.90x /
    0.89-0.90x at 8192^3), else the factors loaded two K-blocks ahead.
    A fused ``epilogue_op`` (:class:`Epilogue`) never takes the ping-pong
    128 x 192 tile (its 192 accumulators a thread leave too few registers: spills)."""
    if dtype not in ELEMENTS:
        raise ValueError(f"dtype must be one of {sorted(ELEMENTS)}, got {dtype!r}")
    c_dtype = {"tf32": "f32", "f8e4m3": "bf16", "f8e5m2": "bf16"}.get(dtype, dtype)
    base = GemmConfig(
        dtype,
        bm=128,
        bn=256,
        bk=1024 // ELEMENTS[dtype].bits,
        stages=4,
        mma_in_flight=0,
        loads="tma",
        c_dtype=c_dtype,
        epilogue="tma",
        epi_overlap=EPI_OVERLAP_TUNED.get(dtype, 0),
    )
    if overrides.get("scales") == "block":
        # the block-scaled promotion holds two more accumulator fragments a thread (a
        # K-block's wgmmas run into one while the last K-block's is promoted out of the
        # other, mma_in_flight=1): the cooperative 128 x 128 tile with 5 stages (128 x 256
        # would need 384 registers a thread; docs/hopper.md, "Block-wise FP8 scales"), any shape,
        # each K-block's scale factors loaded two K-blocks ahead (measured faster, H100), in
        # chunks of 2 K-blocks (4 measured 1-4% slower since each chunk's first promotion
        # runs under the next K-block's wgmmas: docs/hopper.md)
        block = replace(base, bn=128, stages=5, epi_overlap=0, mma_in_flight=1, block_prefetch=True)
        # where M is known to be a multiple of 4 (TMA's 16-byte strides of scale_a), the row
        # scales through shared memory by the producer's TMA instead (scale_smem; with the
        # ring's stage carried through the mainloop measured up to 7% faster at 4096^3 and
        # 8192^3 on H100s, same process: docs/hopper.md)
        if shape is not None and shape[0] % 4 == 0 and overrides.get("mma_in_flight", 1) == 1:
            block = replace(block, block_prefetch=False, scale_smem=True)
        return replace(block, **overrides)
    coop = base
    # a fused epilogue (epilogue_op) keeps a box's C and bias values and the activation's
    # temporaries next to the accumulators: ping-pong's 192 a thread leave too few of
    # setmaxnreg's 232 registers for them (spills), the cooperative tiles' 128 or 120 do not
    fused = getattr(overrides.get("epilogue_op"), "fused", False)  # (check() refuses others)
    if shape is not None and dtype in PINGPONG_TUNED:
        m, n = shape[0], shape[1]
        best, score = base, tile_efficiency(base, m, n, sms) + 0.005
        pingpong = replace(base, bn=192, schedule="pingpong", mma_in_flight=1, epi_overlap=0)
        others = [] if fused else [pingpong]
        if dtype in SPLIT_N_TUNED:
            others.append(replace(base, bm=192, bn=160, split="N", epi_overlap=0))
        for other in others:
            if tile_efficiency(other, m, n, sms) > score:
                best, score = other, tile_efficiency(other, m, n, sms)
        base = best
    no_cluster = replace(base, cluster=overrides.get("cluster", base.cluster)).cluster_blocks == 1
    if shape is not None and len(shape) > 2 and no_cluster:
        # the decomposition, and with it the tile (this one or the cooperative 128 x 256):
        # the model's time per K-block is the tile's area (the tensor cores' work)
        m, n, k = shape[0], shape[1], shape[2]

        def cost(c: GemmConfig) -> float:
            return decomposition_time(c, m, n, k, sms) * c.bm * c.bn

        best, score = base, cost(base) * (1 - DECOMPOSITION_MARGIN)
        for tile in dict.fromkeys((base, coop)):
            for other in (
                tile,
                replace(tile, decomposition="streamk", epi_overlap=0),
                *(replace(tile, split_k=s, epi_overlap=0) for s in SPLITS),
            ):
                if cost(other) < score:
                    best, score = other, cost(other)
        base = best
    out = replace(base, **overrides)
    if "epi_overlap" not in overrides and out.epi_overlap and not out.overlappable:
        out = replace(out, epi_overlap=0)  # e.g. mma_lead=1, scale_loads="box"
    if out.epi_overlap and "overlap_n" not in overrides:  # (the field matters only then)
        out = replace(out, overlap_n=OVERLAP_N_TUNED)
    return out


def workspace(cfg: GemmConfig, m: int, n: int, grid: int, like: Any = None) -> tuple:
    """The stream-K / split-K workspace of a launch of ``grid`` blocks on an ``m x n`` C:
    ``(work, flags)``, :meth:`GemmConfig.workspace_slots` f32 partial tiles of ``bm * bn``
    (left uninitialised: a partial is written before its flag is raised) and as many i32
    flags, zeroed; ``()`` for the data-parallel kernel. torch tensors on ``like``'s device
    when ``like`` is one, else numpy arrays (the CPU runtime). The kernel rearms each flag it
    consumes, so one workspace serves any number of launches of the same shape and grid
    (one launch at a time: concurrent launches need their own)."""
    slots = cfg.workspace_slots(m, n, grid)
    if not slots:
        return ()
    if type(like).__module__.startswith("torch"):
        import torch

        work = torch.empty(slots * cfg.bm * cfg.bn, dtype=torch.float32, device=like.device)
        return work, torch.zeros(slots, dtype=torch.int32, device=like.device)
    return np.empty(slots * cfg.bm * cfg.bn, np.float32), np.zeros(slots, np.int32)


def kernel_args(
    cfg: GemmConfig, a: Any, b: Any, c: Any, scales: tuple = (), ws: tuple = (), epi: tuple = ()
) -> tuple:
    """The kernel's positional arguments: A, B, C (D), the scales (:func:`scale_args`), the
    workspace (:func:`workspace`) and the fused epilogue's ``alpha, beta, source, bias``
    (:func:`epilogue_args`); None for the compile-time defaults where a later group follows."""
    if any(x is not None for x in epi):
        ws = ws or (None, None)
    else:
        epi = ()
    if ws and not scales:
        scales = (None, None)
    return (a, b, c, *scales, *ws, *epi)


def gemm(
    kernel: Any,
    cfg: GemmConfig,
    a: Any,
    b: Any,
    c: Any,
    scales: tuple = (),
    sms: int | None = None,
    workspaces: dict | None = None,
    epi: tuple = (),
    **launch: Any,
) -> None:
    """The host entry point of the TMA kernel: ``C = A @ B.T`` on ``kernel`` (``make_gemm(cfg)``
    or its ``lc.compile``d form) with the persistent grid for ``sms`` SMs (``cfg.grid``), the
    workspace a stream-K / split-K configuration needs (kept in ``workspaces``, keyed by
    shape, grid and device, so repeated launches reuse it: the kernel leaves its flags zeroed)
    , ``scales`` (:func:`scale_args`) and the fused epilogue's arguments ``epi``
    (:func:`epilogue_args`)."""
    m, n = c.shape[0], c.shape[1]
    if cfg.scales == "block":
        check_block_scale_shapes(cfg, a, b, *scales)
    (grid,) = cfg.grid(m, n, sms, k=a.shape[1])
    key = (m, n, grid, str(getattr(c, "device", "cpu")))
    cache = {} if workspaces is None else workspaces
    if key not in cache:
        cache[key] = workspace(cfg, m, n, grid, like=c)
    args = kernel_args(cfg, a, b, c, scales, cache[key], epi)
    kernel(*args, grid=grid, block=cfg.threads, smem=cfg.smem_bytes(), **launch)


def load_a_copy(cfg: GemmConfig, mma: Any) -> Any:
    """The RS mainloop's copy of A from a stage into the registers the ``_RS`` wgmma atoms
    read (CuTe's ``make_tiled_copy_A(SM75_U32x4_LDSM_N, mma)``: ldmatrix.x4, four 8x8 b16
    matrices per instruction, which are the A fragments of 16-bit, tf32 and FP8 alike)."""
    return lc.make_tiled_copy_A(lc.make_copy_atom("SM75_U32x4_LDSM_N", cfg.element), mma)


def load_a(s2r: Any, thr_mma: Any, stage_a: Any, tid: Any) -> Any:
    """In the kernel: thread ``tid``'s A fragment of one stage, ``(MMA, MMA_M, MMA_K)``,
    loaded with ``s2r`` (a fresh fragment per K-block: the wgmmas still reading the last one
    keep their registers)."""
    frag = thr_mma.partition_fragment_A(stage_a)
    thr = s2r.get_slice(tid)
    lc.copy(s2r, thr.partition_S(stage_a), thr.retile_D(frag))
    return frag


def scale_annotation(cfg: GemmConfig, which: str = "a") -> Any:
    """The type of the kernel's ``scale_a``/``scale_b`` (``which``) parameters: one-element f32
    tensors (``scales="tensor"``, as ``torch._scaled_mm`` takes them: they stay on the
    device), f32 values (``"value"``), contiguous f32 vectors of M (``scale_a``) and N
    (``scale_b``) elements (``"row"``: the same M and N as A's, B's and C's extents, so a launch
    with vectors of other lengths is refused), or compile-time constants left at None (no
    scales)."""
    if cfg.scales == "row":
        return lc.Tensor(lc.f32, "(M):(1)" if which == "a" else "(N):(1)")
    if cfg.scales == "block":  # (M, KB) M-major (torch's 1x128 form), (NB, KB) K-major
        return lc.Tensor(lc.f32, "(M,KB):(1,M)" if which == "a" else "(NB,KB):(KB,1)")
    return {None: lc.Constexpr, "tensor": lc.Tensor(lc.f32, "(1):(1)"), "value": lc.f32}[cfg.scales]


def scale_factor(cfg: GemmConfig, scale_a: Any, scale_b: Any) -> Any:
    """In the kernel: the factor ``scale_a * scale_b`` the epilogue applies (None: none, or
    row-wise scales, which :class:`RowScales` applies per element)."""
    if cfg.scales == "tensor":
        return scale_a[0] * scale_b[0]
    return scale_a * scale_b if cfg.scales == "value" else None


class RowScales:
    """In the kernel: the row and column scales of a thread's f32 accumulators ``frag`` of a
    wgmma tiled MMA for one tile, ``coords`` their coordinates in C (the identity tensor's
    partition). The fragment is ``((2, 2, n / 8), MMA_M, MMA_N)`` (CuTe's ``CLayout_64xN`` per
    64 x n atom: value (v0, v1, v2) is column ``2 * (t % 4) + v0 + 8 * v2`` and row ``t / 4 +
    8 * v1`` of its warp's 16 rows), so a row depends on (v1, MMA_M) alone and a column on
    (v0, v2, MMA_N) alone: the thread loads each of its ``2 * MMA_M`` row scales and ``n / 4
    * MMA_N`` column scales once per tile, where :meth:`apply` first needs it (``load_all``:
    all now). A row past M (a column past N) reads the last scale (the index is clamped: no
    load outside the vector); its results are never stored. Every load must happen outside
    dynamic control flow that its later uses are not in (the kernel's callers do)."""

    def __init__(self, frag: Any, coords: Any, scale_a: Any, scale_b: Any) -> None:
        shape = lc.shape(frag)
        (v0s, v1s, self.v2s), self.mms, self.nns = shape
        if (v0s, v1s) != (2, 2):
            raise ValueError(f"row scales take a wgmma accumulator fragment, got {shape}")
        self.frag, self.coords, self.scale_a, self.scale_b = frag, coords, scale_a, scale_b
        self.rows: dict = {}
        self.cols: dict = {}

    def _split(self, e: int) -> tuple[tuple[int, int], tuple[int, int, int]]:
        """The row key (v1, mi) and column key (v0, v2, ni) of fragment element ``e``."""
        per_m = 4 * self.v2s  # values of one atom
        v0, v1, v2 = e % 2, (e // 2) % 2, (e // 4) % self.v2s
        return (v1, (e // per_m) % self.mms), (v0, v2, e // (per_m * self.mms))

    def _row(self, key: tuple[int, int]) -> Any:
        if key not in self.rows:
            v1, mi = key
            row = self.coords[2 * v1 + 4 * self.v2s * mi][0]
            self.rows[key] = self.scale_a[lc.min(row, lc.size(self.scale_a, 0) - 1)]
        return self.rows[key]

    def _col(self, key: tuple[int, int, int]) -> Any:
        if key not in self.cols:
            v0, v2, ni = key
            col = self.coords[v0 + 4 * v2 + 4 * self.v2s * self.mms * ni][1]
            self.cols[key] = self.scale_b[lc.min(col, lc.size(self.scale_b, 0) - 1)]
        return self.cols[key]

    def load_all(self) -> "RowScales":
        for e in range(lc.size(self.frag)):
            row, col = self._split(e)
            self._row(row)
            self._col(col)
        return self

    def apply(self, elements: Any = None) -> None:
        """``frag[e] *= scale_a[row(e)] * scale_b[col(e)]`` for ``elements`` (all by default),
        two multiplies each, column by column."""
        todo = range(lc.size(self.frag)) if elements is None else elements
        for e in sorted(todo, key=lambda e: (self._split(e)[1], e)):
            row, col = self._split(e)
            self.frag[e] = self.frag[e] * self._row(row) * self._col(col)


class BlockScales:
    """In the kernel: block-wise scales (``scales="block"``) of a thread's f32 accumulators
    ``frag`` (the wgmma fragment ``((2, 2, n / 8), MMA_M, MMA_N)`` of one tile, ``coords``
    their coordinates in C). A row's scale ``scale_a[row, kb]`` depends on (v1, MMA_M) alone
    (as :class:`RowScales`); a column's ``scale_b[col // 128, kb]`` on its 128-column block,
    which is the tile's first block plus ``(8 * v2 + n * ni) // 128`` (``check_block_scales``:
    the tile's columns lie in whole blocks, the warpgroups split it along M), so per K-block
    a thread loads ``2 * MMA_M`` row scales and one column scale per 128 columns of the tile.
    Indices are clamped into the scale tensors (rows and columns past C: results never
    stored; the K-blocks are ``ceil(K / 128)``, checked by :func:`check_block_scale_shapes`)."""

    def __init__(
        self,
        frag: Any,
        coords: Any,
        tile_n: Any,
        bn: int,
        scale_a: Any,
        scale_b: Any,
        row0: Any = 0,
    ):
        shape = lc.shape(frag)
        (v0s, v1s, self.v2s), self.mms, self.nns = shape
        if (v0s, v1s) != (2, 2):
            raise ValueError(f"block scales take a wgmma accumulator fragment, got {shape}")
        self.scale_a, self.scale_b = scale_a, scale_b
        per_m = 4 * self.v2s
        self.keys = []  # per element: (row key, column block)
        for e in range(lc.size(frag)):
            v1, v2 = (e // 2) % 2, (e // 4) % self.v2s
            mi, ni = (e // per_m) % self.mms, e // (per_m * self.mms)
            self.keys.append(((v1, mi), (8 * v2 + 8 * self.v2s * ni) // 128))
        last_row = lc.size(scale_a, 0) - 1
        self.rows = {}  # row key -> its row of scale_a (clamped), once per tile
        self.local = {}  # ... and its row in the tile (row0: the tile's first row)
        for (v1, mi), _g in self.keys:
            if (v1, mi) not in self.rows:
                row = coords[2 * v1 + 4 * self.v2s * mi][0]
                self.rows[(v1, mi)] = lc.min(row, last_row)
                self.local[(v1, mi)] = row - row0
        first = (tile_n * bn) // 128  # the tile's first 128-column block of B
        last_blk = lc.size(scale_b, 0) - 1
        self.blocks = {g: lc.min(first + g, last_blk) for _r, g in self.keys}

    def load(self, kb: Any, into: Any = None, rows: Any = None) -> None:
        """Issue K-block ``kb``'s scale loads: its factors ``scale_a[row, kb] *
        scale_b[block, kb]`` per (row key, column block) of this thread, for :meth:`promote`
        (``into``: a fragment of :meth:`factor_fragment`, which keeps them across the
        kernel's loops and branches; else values for the next :meth:`promote`). ``rows``:
        K-block ``kb``'s ``scale_a`` rows of the tile in shared memory (``scale_smem``), read
        there by the row in the tile, not from ``scale_a``."""
        kb = lc.min(kb, lc.size(self.scale_a, 1) - 1)
        if rows is None:
            sa = {key: self.scale_a[row, kb] for key, row in self.rows.items()}
        else:
            sa = {key: rows[r] for key, r in self.local.items()}
        sb = {g: self.scale_b[blk, kb] for g, blk in self.blocks.items()}
        self.factors = {(r, g): sa[r] * sb[g] for r in sa for g in sb}
        if into is not None:
            for i, key in enumerate(self.factors):
                into[i] = self.factors[key]

    def factor_fragment(self) -> Any:
        """A register fragment for one K-block's factors (:meth:`load`'s ``into``)."""
        return lc.make_fragment(lc.make_layout(len(self._order())), lc.f32)

    def column_fragment(self) -> Any:
        """A register fragment for one K-block's ``scale_b`` values (:meth:`load_columns`)."""
        return lc.make_fragment(lc.make_layout(len(self.blocks)), lc.f32)

    def load_columns(self, kb: Any, into: Any) -> None:
        """Issue K-block ``kb``'s ``scale_b`` loads alone (one per column block), into
        ``into`` (:meth:`column_fragment`): loaded ahead, for :meth:`combine`."""
        kb = lc.min(kb, lc.size(self.scale_b, 1) - 1)
        for i, blk in enumerate(self.blocks.values()):
            into[i] = self.scale_b[blk, kb]

    def combine(self, rows: Any, columns: Any, into: Any) -> None:
        """K-block's factors into ``into`` (:meth:`factor_fragment`) from its ``scale_a``
        rows of the tile in shared memory (``rows``) and its ``scale_b`` values loaded ahead
        (``columns``, :meth:`load_columns`)."""
        sa = {key: rows[r] for key, r in self.local.items()}
        col = {g: i for i, g in enumerate(self.blocks)}
        for i, (r, g) in enumerate(self._order()):
            into[i] = sa[r] * columns[col[g]]

    def promote(self, acc: Any, part: Any, factors: Any = None) -> None:
        """``acc[e] += part[e] * factor(e)`` with the factors :meth:`load` gave (``factors``:
        the fragment it filled): one K-block's accumulators, scaled, into the tile's
        (CUTLASS's GmmaFP8Accumulation promotion, with the scales), one fma each (libNVVM
        contracts a written-out multiply and add, LLVM's NVPTX back end does not: with it,
        twice the instructions, and 4 K-blocks a chunk spilled)."""
        index = {key: i for i, key in enumerate(self._order())}
        for e, key in enumerate(self.keys):
            f = self.factors[key] if factors is None else factors[index[key]]
            acc[e] = lc.fma(part[e], f, acc[e])

    def _order(self) -> list:
        """The (row key, column block) pairs in :meth:`load`'s order."""
        return [(r, g) for r in self.rows for g in self.blocks]


def apply_scale(frag: Any, scale: Any) -> None:
    """In the kernel: multiply the f32 accumulators by ``scale`` (before C's conversion, as
    cuBLAS's FP8 GEMM applies its per-tensor scales); nothing for None."""
    if scale is not None:
        for e in range(lc.size(frag)):
            frag[e] = frag[e] * scale


def scale_args(cfg: GemmConfig, scale_a: Any = None, scale_b: Any = None) -> tuple:
    """The kernel's scale arguments from what ``torch._scaled_mm`` accepts: ``scales="tensor"``
    takes 0-d or one-element f32 tensors (reshaped to one element, no copy), ``"value"``
    Python floats, ``"row"`` ``scale_a`` of shape (M, 1) and ``scale_b`` of shape (1, N)
    (or vectors of M and N; reshaped to vectors, no copy where contiguous)."""
    if cfg.scales is None:
        return ()
    if cfg.scales == "block":
        return block_scale_args(scale_a, scale_b)
    out = []
    for what, x in (("scale_a", scale_a), ("scale_b", scale_b)):
        if cfg.scales == "row":
            shape = tuple(getattr(x, "shape", ()))
            unit = 1 if what == "scale_a" else 0  # (M, 1) / (1, N): the mode of extent 1
            if not hasattr(x, "reshape") or not (
                len(shape) == 1 or (len(shape) == 2 and shape[unit] == 1)
            ):
                want = "(M, 1)" if what == "scale_a" else "(1, N)"
                raise TypeError(
                    f"{what}: scales='row' takes an f32 tensor of shape {want} or a vector, got "
                    f"{type(x).__name__} of shape {shape}"
                )
            out.append(x.reshape(-1))
        elif cfg.scales == "value":
            if not isinstance(x, numbers.Real) or isinstance(x, bool):
                raise TypeError(f"{what}: scales='value' takes a Python float, got {x!r}")
            out.append(float(x))
        else:
            shape = tuple(getattr(x, "shape", (None,)))
            if not hasattr(x, "reshape") or shape not in ((), (1,)):
                raise TypeError(
                    f"{what}: scales='tensor' takes a 0-d or one-element f32 tensor, got "
                    f"{type(x).__name__} of shape {shape}"
                )
            out.append(x.reshape(1))
    return tuple(out)


def block_scale_args(scale_a: Any, scale_b: Any) -> tuple:
    """``scales="block"``: ``scale_a`` (M, KB) f32 with M contiguous (torch._scaled_mm's
    "outer-dim-major" BlockWise1x128 form: ``s.t().contiguous().t()``) and ``scale_b`` (NB,
    KB) f32 row-major (DeepSeek-V3's weight scales; torch._scaled_mm takes its transpose
    ``scale_b.t()`` for a (K, N) B), KB = ceil(K / 128), NB = ceil(N / 128). Passed as they
    are (the kernel's spec refuses other strides at launch); the extents are checked against
    A and B by :func:`check_block_scale_shapes`. A mode of extent 1 (K <= 128, M = 1, N <=
    128) gets the stride the spec names, whatever the tensor says (torch's ``contiguous``
    leaves such strides at 1): a view of the same elements, no copy."""
    out = []
    for what, x in (("scale_a", scale_a), ("scale_b", scale_b)):
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) != 2:
            want = "(M, ceil(K/128))" if what == "scale_a" else "(ceil(N/128), ceil(K/128))"
            raise TypeError(
                f"{what}: scales='block' takes a 2-d f32 tensor of shape {want}, got "
                f"{type(x).__name__} of shape {shape}"
            )
        spec = (1, shape[0]) if what == "scale_a" else (shape[1], 1)  # in elements
        out.append(_unit_strides(x, spec))
    return tuple(out)


def _unit_strides(x: Any, want: tuple[int, int]) -> Any:
    """``x`` (a torch tensor or numpy array) with the strides of its extent-1 modes set to
    ``want``'s (a view: those strides never move to another element)."""
    shape = tuple(x.shape)
    if 1 not in shape:
        return x
    if type(x).__module__.startswith("torch"):
        strides = tuple(w if e == 1 else s for e, s, w in zip(shape, x.stride(), want))
        return x.as_strided(shape, strides)
    if isinstance(x, np.ndarray):
        size = x.itemsize
        strides = tuple(w * size if e == 1 else s for e, s, w in zip(shape, x.strides, want))
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return x


def check_block_scale_shapes(cfg: GemmConfig, a: Any, b: Any, scale_a: Any, scale_b: Any) -> None:
    """Raise ValueError unless the block-wise scales cover A (M, K) and B (N, K) exactly:
    ``scale_a`` (M, ceil(K/128)), ``scale_b`` (ceil(N/128), ceil(K/128)) (the kernel clamps
    its indices, so fewer K blocks would silently reuse the last scale)."""
    if cfg.scales != "block":
        return
    m, k = a.shape
    n = b.shape[0]
    kb, nb = -(-k // 128), -(-n // 128)
    for what, x, want in (("scale_a", scale_a, (m, kb)), ("scale_b", scale_b, (nb, kb))):
        if tuple(x.shape) != want:
            raise ValueError(
                f"{what}: block-wise scales of A ({m} x {k}) and B ({n} x {k}) have shape "
                f"{want}, got {tuple(x.shape)}"
            )


EPILOGUE_PARAMS = ("alpha", "beta", "source", "bias", "amax")  # the arguments after flags


def epilogue_annotation(cfg: GemmConfig, which: str) -> Any:
    """The type of the kernel's epilogue parameter ``which`` (one of ``EPILOGUE_PARAMS``):
    ``alpha`` and ``beta`` f32 values, ``source`` D's type and extents (M, N) row-major,
    ``bias`` a contiguous vector of M (``bias="m"``) or N (``"n"``) values, f32 or D's type;
    a compile-time None where :class:`Epilogue` does not use it (so launches of other
    extents are refused at launch, naming the argument)."""
    op = cfg.epilogue_op
    out = C_ELEMENTS.get(cfg.c_dtype, lc.f32)
    used = {
        "alpha": op.alpha,
        "beta": op.source,
        "source": op.source,
        "bias": op.bias,
        "amax": op.amax,
    }
    if not used[which]:
        return lc.Constexpr
    if which == "amax":
        return lc.Tensor(lc.f32, "(1):(1)")
    if which in ("alpha", "beta"):
        return lc.f32
    if which == "source":
        return lc.Tensor(out, "(M,N):(N,1)")
    elem = lc.f32 if op.bias_dtype == "f32" else out
    return lc.Tensor(elem, "(M):(1)" if op.bias == "m" else "(N):(1)")


def epilogue_args(
    cfg: GemmConfig,
    alpha: float = 1.0,
    beta: float = 0.0,
    source: Any = None,
    bias: Any = None,
    amax: Any = None,
) -> tuple:
    """The kernel's ``alpha, beta, source, bias, amax`` arguments for ``cfg.epilogue_op`` (None
    where it uses none of them: compile-time defaults). A value the configuration has no
    parameter for (``alpha != 1`` without ``alpha``, ``beta != 0`` without ``source``, a
    bias without ``bias``) is refused with a TypeError, as is a missing C or bias; a bias of
    shape (1, N) or (M, 1) is reshaped to a vector (no copy where contiguous)."""
    op = cfg.epilogue_op
    for what, given, used in (
        ("alpha", alpha != 1.0, op.alpha),
        ("beta", beta != 0.0, op.source),
        ("source", source is not None, op.source),
        ("bias", bias is not None, op.bias is not None),
        ("amax", amax is not None, op.amax),
    ):
        if given and not used:
            field = {"beta": "source", "alpha": "alpha"}.get(what, what)
            raise TypeError(f"{what}: the configuration's epilogue_op has no {field} ({op})")
    if op.source and source is None:
        raise TypeError("source: epilogue_op.source=True takes a source matrix C (D's shape)")
    if op.bias is not None and (bias is None or not hasattr(bias, "reshape")):
        raise TypeError(f"bias: epilogue_op.bias={op.bias!r} takes a bias vector, got {bias!r}")
    if op.bias is not None:
        bias = bias.reshape(-1)
    if op.amax and (amax is None or not hasattr(amax, "reshape")):
        raise TypeError(f"amax: epilogue_op.amax=True takes a one-element f32 tensor, got {amax!r}")
    return (
        float(alpha) if op.alpha else None,
        float(beta) if op.source else None,
        source if op.source else None,
        bias if op.bias is not None else None,
        amax.reshape(1) if op.amax else None,
    )


GELU_K = 0.7978845608028654  # sqrt(2 / pi)


def activation(act: str, x: Any, fast_tanh: bool = True) -> Any:
    """In the kernel: ``act`` (one of ``ACTIVATIONS``) of an f32 value; ``fast_tanh``: the
    GPU's ``tanh.approx.f32`` (``lc.tanh(..., fastmath=True)``)."""
    if act == "relu":
        return lc.max(x, 0.0)
    if act == "gelu":  # 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
        t = lc.tanh(GELU_K * (x + 0.044715 * x * x * x), fastmath=fast_tanh)
        return 0.5 * x * (1.0 + t)
    if act == "silu":  # x sigmoid(x) = x (1 + tanh(x / 2)) / 2
        return x * (0.5 + 0.5 * lc.tanh(0.5 * x, fastmath=fast_tanh))
    return x


class EpilogueFusion:
    """In the kernel: :class:`Epilogue` ``op`` applied to a consumer thread's accumulators,
    one 64 x ``ec`` box of D at a time (the box's fragment is that of a 64 x ec wgmma,
    ``((2, 2, ec / 8), 1, 1)``: value ``v`` is column ``(v0, v2)`` and row ``v1`` of the
    thread's, CuTe's ``CLayout_64xN``). :meth:`load` issues a box's loads of C's values,
    predicated by the coordinates against D's extents and off when ``beta == 0``, and with
    ``bias_ahead`` its bias values; :meth:`apply` computes the box's values (loading its bias
    values first where they are not loaded yet). ``staged``: ``(smem, first)``, the tile's
    per-column bias in shared memory from column ``first`` on (``GemmConfig.bias_staged``),
    read there instead of from ``bias``."""

    def __init__(
        self,
        op: Epilogue,
        c: Any,
        ec: Any,
        alpha: Any,
        beta: Any,
        source: Any,
        bias: Any,
        bias_ahead: bool = True,
        staged: Any = None,
    ) -> None:
        self.op, self.c, self.ec, self.bias_ahead = op, c, ec, bias_ahead and staged is None
        self.staged = staged
        self.peak = None  # amax: this thread's max |D| over the tile's boxes so far
        self.alpha, self.beta, self.source, self.bias = alpha, beta, source, bias
        self.cC = lc.make_identity_tensor(c.shape)
        # beta == 0: no row of C is in bounds, so no load is issued (cuBLAS's rule)
        self.rows = lc.where(beta != 0.0, lc.size(c, 0), 0) if op.source else None

    def load(self, thr_epi: Any, row: Any, col: Any) -> Any:
        """Box ``(row, col)`` (in 64 x ec boxes of D): its coordinates, C's values, biases."""
        from types import SimpleNamespace

        op, ec = self.op, self.ec
        coords = thr_epi.partition_C(lc.local_tile(self.cC, (64, ec), (row, col)))
        box = SimpleNamespace(coords=coords, src=None, bias={})
        if op.source:
            g_src = thr_epi.partition_C(lc.local_tile(self.source, (64, ec), (row, col)))
            box.src = lc.make_fragment_like(g_src)
            lc.clear(box.src)
            lc.copy_if(coords, g_src, box.src, bounds=(self.rows, lc.size(self.c, 1)))
        if op.bias is not None and self.bias_ahead:
            for v in range(lc.size(coords)):
                self._bias(box, v)
        return box

    def _bias(self, box: Any, v: int) -> Any:
        """Value ``v``'s bias (each loaded once per box, at an index clamped into the
        vector)."""
        op = self.op
        v0, v1, v2 = v % 2, (v // 2) % 2, v // 4
        key = v1 if op.bias == "m" else (v0, v2)
        if key not in box.bias:
            at = box.coords[v][0 if op.bias == "m" else 1]
            if self.staged is not None:  # the tile's values in shared memory
                smem, first = self.staged
                box.bias[key] = smem[at - first].to(lc.f32)
            else:
                box.bias[key] = self.bias[lc.min(at, lc.size(self.bias, 0) - 1)].to(lc.f32)
        return box.bias[key]

    def apply(self, box: Any, values: list) -> list:
        """The box's D values (f32) from its accumulators ``values`` (in fragment order)."""
        op, out = self.op, []
        for v, x in enumerate(values):
            if op.alpha:
                x = x * self.alpha
            if op.source:
                x = x + self.beta * box.src[v].to(lc.f32)
            if op.bias is not None:
                x = x + self._bias(box, v)
            x = activation(op.act, x, op.fast_tanh)
            if op.amax:  # |x| of D's elements only (a residue tile's others hold bias and C)
                y = lc.where(lc.elem_less(box.coords[v], self.c.shape), abs(x), 0.0)
                self.peak = y if self.peak is None else lc.max(self.peak, y)
            out.append(x)
        return out

    def warp_amax(self) -> Any:
        """After the tile's last box: the warp's max |D| (a butterfly of shuffles) as i32
        bits (|D| >= 0 orders as its bits do), for one ``atomicMax`` per warp."""
        peak = self.peak
        for step in (16, 8, 4, 2, 1):
            peak = lc.max(peak, lc.shuffle_xor(peak, step))
        one = lc.make_fragment_like(lc.make_layout(1), lc.f32)
        one[0] = peak
        return lc.recast(one, lc.i32)[0]


class TileBoxes:
    """In the kernel: a consumer warpgroup's part of one tile of D as 64 x ``ec`` boxes (``ec``
    = ``cfg.epilogue_box[1]``), the unit of the TMA epilogue and of the fused epilogue. Box
    ``q = (mi, jc)`` holds the accumulators (v0, v1, v2 + jc * ec/8, mi) of the fragment
    ``((2, 2, wn/8), slices, 1)`` (CuTe's ``CLayout_64xN``), which are the fragment of a
    64 x ec wgmma (``thr_epi``'s partition of the box), in the same order."""

    def __init__(
        self,
        cfg: GemmConfig,
        tile_m: Any,
        tile_n: Any,
        wg: Any,
        acc: Any,
        thr_epi: Any,
        rsc: Any = None,
        fusion: Any = None,
    ) -> None:
        self.cfg, self.tile_m, self.tile_n, self.wg = cfg, tile_m, tile_n, wg
        self.acc, self.thr_epi, self.rsc, self.fusion = acc, thr_epi, rsc, fusion
        self.ec = cfg.epilogue_box[1]
        self.wn = cfg.bn // cfg.split_n  # columns of a tile per warpgroup
        self.boxes_n = self.wn // self.ec
        self.count = cfg.epilogue_boxes
        slices = cfg.bm // (64 * cfg.split_m)
        if (cfg.epilogue == "tma" or fusion is not None) and lc.size(acc) != (
            self.wn // 2
        ) * slices:
            raise ValueError(f"unexpected accumulator fragment {lc.size(acc)}")
        if fusion is not None:  # the first box's C values, in flight now
            fusion.next = fusion.load(thr_epi, *self.at(0, 0))

    def at(self, mi: int, jc: int) -> tuple[Any, Any]:
        """Box (mi, jc)'s place in D's 64 x ec boxes."""
        cfg = self.cfg
        wgs, wgs_n = cfg.split_m, cfg.split_n
        row = self.tile_m * (cfg.bm // 64) + mi * wgs + (self.wg if wgs > 1 else 0)
        col = self.tile_n * (cfg.bn // self.ec) + jc
        return row, col + (self.wg * self.boxes_n if wgs_n > 1 else 0)

    def values(self, q: int) -> list:
        """The f32 values of box ``q`` of D, in its fragment's order: the row scales with
        ``scale_loads="box"`` and the fused epilogue applied (box ``q + 1``'s loads issued
        first)."""
        mi, jc = divmod(q, self.boxes_n)
        ec = self.ec
        mine = [v + (ec // 2) * jc + (self.wn // 2) * mi for v in range(ec // 2)]
        if self.cfg.scales == "row" and self.cfg.scale_loads == "box":
            self.rsc.apply(mine)  # this box's column scales: loaded here
        values = [self.acc[e] for e in mine]
        fusion = self.fusion
        if fusion is None:
            return values
        now = fusion.next
        if q + 1 < self.count:
            fusion.next = fusion.load(self.thr_epi, *self.at(*divmod(q + 1, self.boxes_n)))
        return fusion.apply(now, values)


def cluster_peer(cm: int, cn: int, rm: Any, rn: Any, lane: Any) -> Any:
    """The rank of the ``lane``-th (``0 <= lane < cm + cn - 1``) block that multicasts into
    block (``rm``, ``rn``) of a ``cm x cn`` cluster (rank ``rm + cm * rn``): lanes ``< cn``
    its row's blocks (rm, lane), which send it A (itself included); the others its column's
    blocks but itself, which send it B. Each block releases a stage in exactly the blocks
    that wrote it (CUTLASS's ``PipelineTmaAsync`` signalling threads). Python ints or kernel
    values."""
    if cm == 1:
        return lane
    j = lane - cn  # (negative for the row's lanes: unused there)
    if all(isinstance(x, int) for x in (rm, rn, lane)):
        return rm + cm * lane if lane < cn else j + (j >= rm) + cm * rn
    return lc.where(lane < cn, rm + cm * lane, lc.where(j >= rm, j + 1, j) + cm * rn)


def box_rows(rows: int) -> int:
    """The rows of one TMA box of a K-major stage of ``rows`` rows: all of them, or the largest
    part of at most 256 (TMA's limit per box dimension) that splits them into whole 8-row
    swizzle atoms (``rows`` is a multiple of 8: ``check`` makes bm and bn so)."""
    if rows % 8:
        raise ValueError(f"a K-major stage has whole 8-row swizzle atoms, got {rows} rows")
    parts = 1
    while rows // parts > 256 or rows % parts or (rows // parts) % 8:
        parts += 1
    return rows // parts


class WorkUnits:
    """In the kernel: the persistent tile scheduler's work units of one block (a cluster),
    CUTLASS's ``PersistentTileSchedulerSm90`` / ``...StreamK`` (TMA kernel). A unit is a
    K-range ``[k_begin, k_end)`` of output tile ``tile`` (in raster order); ``count`` units per
    block, the producer and the consumers walk the same ones (``base``: the pipeline uses
    before unit ``i``, so ping-pong's warpgroups can take every other unit).

    - ``data_parallel``: tile ``bid + i * blocks``, all of K.
    - ``splitk``: ``s = min(split_k, k_tiles, blocks)`` units per tile, each ``k_tiles / s``
      K-blocks; ``blocks // s`` tiles per round, the ``s`` units of a tile on consecutive
      blocks of one round, so its last unit (on the highest block) only waits for lower
      blocks of the same round, which never wait themselves: partial ``p`` of tile ``t``
      in slot ``t * (split_k - 1) + p``.
    - ``streamk``: with ``tiles = w * blocks + r`` and ``r > 0``, the first ``r + blocks``
      tiles' K-blocks (all tiles when ``w == 0``) are split evenly over the blocks, at least
      ``MIN_SK_ITERS`` each (CUTLASS's
      data-parallel waves plus one stream-K wave and the remainder: units of 1-2 tiles, not
      slivers), each block walking its range from the end backwards, then its
      data-parallel tiles. Only a block's first unit can end inside a tile (partial in slot
      ``bid``), and the unit that ends a tile belongs to the highest of its blocks and runs
      last in it, so it waits for lower blocks only (also on the CPU runtime, which runs a
      worker's blocks in index order), for partials they produced first."""

    def __init__(self, cfg: GemmConfig, tiles: Any, k_tiles: Any, blocks: Any, bid: Any):
        self.cfg, self.tiles, self.kt, self.blocks, self.bid = cfg, tiles, k_tiles, blocks, bid
        kt1 = lc.max(k_tiles, 1)  # (divisors are never 0, also where a value goes unused)
        if cfg.decomposition == "data_parallel":
            self.count = (tiles - bid + (blocks - 1)) // blocks
        elif cfg.decomposition == "splitk":
            s = lc.max(lc.min(lc.min(cfg.split_k, k_tiles), blocks), 1)
            self.splits, self.per = s, blocks // s  # units per tile, tiles per round
            self.part, first = bid % s, bid // s
            self.first = first
            left = lc.max(tiles - first, 0)
            self.count = lc.where(first < self.per, (left + self.per - 1) // self.per, 0)
        else:
            waves, rem = tiles // blocks, tiles % blocks
            sk_tiles = lc.where(rem == 0, 0, lc.where(waves == 0, tiles, rem + blocks))
            sk_tiles = lc.where(k_tiles == 0, 0, sk_tiles)
            iters = sk_tiles * k_tiles  # the stream-K K-blocks, over `sk_blocks` blocks
            self.iters1 = lc.max(iters, 1)
            # at least MIN_SK_ITERS K-blocks per stream-K block (CUTLASS's
            # min_iters_per_sk_unit): fewer blocks where the K-blocks are few
            self.sk_blocks = lc.max(lc.min(blocks, iters // MIN_SK_ITERS), 1)
            self.in_sk = bid < lc.where(iters > 0, self.sk_blocks, 0)
            self.g0 = bid * iters // self.sk_blocks  # this block's K-blocks [g0, g1)
            self.g1 = (bid + 1) * iters // self.sk_blocks
            self.hi = lc.max(self.g1 - 1, 0) // kt1  # its last (first walked) tile
            lo = self.g0 // kt1
            self.n_sk = lc.where(self.in_sk, self.hi - lo + 1, 0)
            self.sk_tiles = sk_tiles
            n_dp = (tiles - sk_tiles - bid + (blocks - 1)) // blocks
            self.count = self.n_sk + n_dp

    def unit(self, i: Any) -> Any:
        """Unit ``i`` of this block: ``tile``, ``k_begin``, ``k_end``, ``base``, ``final`` (it
        ends the tile: it stores C), ``slot`` (its partial's, when not final) and the slots
        ``[first_slot, end_slot)`` of the tile's earlier partials, in K order."""
        from types import SimpleNamespace

        cfg, kt, bid = self.cfg, self.kt, self.bid
        if cfg.decomposition == "data_parallel":
            return SimpleNamespace(tile=bid + i * self.blocks, k_begin=0, k_end=kt, base=i * kt)
        if cfg.decomposition == "splitk":
            s, p = self.splits, self.part
            t = self.first + i * self.per
            kb, ke = p * kt // s, (p + 1) * kt // s
            first = t * (cfg.split_k - 1)
            return SimpleNamespace(
                tile=t,
                k_begin=kb,
                k_end=ke,
                base=i * (ke - kb),
                final=p == s - 1,
                slot=first + p,
                first_slot=first,
                end_slot=first + s - 1,
            )
        sk = i < self.n_sk
        ts = self.hi - i  # the stream-K tile (walked backwards)
        kb_s = lc.max(self.g0, ts * kt) - ts * kt
        ke_s = lc.min(self.g1, (ts + 1) * kt) - ts * kt
        base_s = self.g1 - lc.min(self.g1, (ts + 1) * kt)
        d = i - self.n_sk  # the data-parallel tile, after the stream-K ones
        base_d = lc.where(self.in_sk, self.g1 - self.g0, 0) + d * kt
        ke = lc.where(sk, ke_s, kt)
        # the lowest block with K-blocks of this tile: its partials' blocks up to this one
        lowest = ((ts * kt + 1) * self.sk_blocks - 1) // self.iters1
        return SimpleNamespace(
            tile=lc.where(sk, ts, self.sk_tiles + bid + d * self.blocks),
            k_begin=lc.where(sk, kb_s, 0),
            k_end=ke,
            base=lc.where(sk, base_s, base_d),
            final=ke == kt,
            slot=bid,
            first_slot=lc.where(sk, lowest, bid),
            end_slot=bid,
        )


def make_gemm(cfg: GemmConfig, name: str | None = None) -> Any:
    """The kernel of one configuration (``gemm_sm90_f16_128x128x64_s4_wg2_f1``): arguments
    ``(a, b, c)``, with ``scales`` also ``scale_a, scale_b`` (:func:`scale_args`)."""
    cfg.check()
    if cfg.loads == "tma":
        return make_gemm_tma(cfg, name)
    elem, stages, in_flight = cfg.element, cfg.stages, cfg.mma_in_flight
    b_elem = cfg.b_element
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    mma = lc.make_tiled_mma(cfg.atom, lc.make_layout((cfg.warpgroups, 1, 1)))
    atom = lc.gmma_layout_atom("K", "SW128", elem)
    s_a = lc.tile_to_shape(atom, (bm, bk, stages))
    s_b = lc.tile_to_shape(lc.gmma_layout_atom("K", "SW128", b_elem), (bn, bk, stages))
    per_row = bk // cfg.vector  # threads covering one 128-byte row, 128 bits each

    def g2s_of(e: Any) -> Any:
        return lc.make_tiled_copy(
            lc.make_copy_atom("cp.async.cg", e),
            lc.make_layout((cfg.threads // per_row, per_row), (per_row, 1)),
            lc.make_layout((1, cfg.vector)),
        )

    g2s, g2s_b = g2s_of(elem), g2s_of(b_elem)
    a_spec = lc.Tensor(elem, "(M,K):(K,1)")
    b_spec = lc.Tensor(b_elem, "(N,K):(K,1)")
    c_spec = lc.Tensor(lc.f32, "(M,N):(N,1)")
    sa_spec, sb_spec = scale_annotation(cfg, "a"), scale_annotation(cfg, "b")

    @lc.kernel(name=name or "gemm_sm90_" + cfg.name.replace("-", "_"))
    def gemm_sm90(
        a: a_spec, b: b_spec, c: c_spec, scale_a: sa_spec = None, scale_b: sb_spec = None
    ):
        tid = lc.thread_idx.x
        where = (lc.block_idx.x, lc.block_idx.y, _)
        gA = lc.local_tile(a, (bm, bn, bk), where, proj=(1, None, 1))  # (BM, BK, k)
        gB = lc.local_tile(b, (bm, bn, bk), where, proj=(None, 1, 1))  # (BN, BK, k)
        gC = lc.local_tile(c, (bm, bn, bk), where, proj=(1, 1, None))  # (BM, BN)
        sA = lc.dynamic_smem_tensor(elem, s_a, align=1024)  # (BM, BK, STAGES)
        sB = lc.dynamic_smem_tensor(b_elem, s_b, align=1024)  # (BN, BK, STAGES)

        g2s_thr, g2s_b_thr = g2s.get_slice(tid), g2s_b.get_slice(tid)
        tAgA, tAsA = g2s_thr.partition_S(gA), g2s_thr.partition_D(sA)
        tBgB, tBsB = g2s_b_thr.partition_S(gB), g2s_b_thr.partition_D(sB)
        k_tiles = lc.size(gA, 2)

        # Stage of K-tile t: t % STAGES. With F wgmma K-blocks in flight, iteration k refills
        # the stage read at k - 1 - F (every warpgroup has retired those wgmmas: it waited
        # for all but F groups before the barrier of iteration k) with K-tile k + S - 1 - F.
        ahead = stages - 1 - in_flight  # K-tiles loaded before the loop
        for s in range(ahead):
            kn = lc.min(s, k_tiles - 1)
            lc.copy(g2s, tAgA[_, _, _, kn], tAsA[_, _, _, s])
            lc.copy(g2s_b, tBgB[_, _, _, kn], tBsB[_, _, _, s])
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
            lc.copy(g2s_b, tBgB[_, _, _, kn], tBsB[_, _, _, write])
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
        apply_scale(tCrC, scale_factor(cfg, scale_a, scale_b))
        if cfg.scales == "row":
            cC = lc.local_tile(
                lc.make_identity_tensor(c.shape), (bm, bn, bk), where, proj=(1, 1, None)
            )
            RowScales(tCrC, thr_mma.partition_C(cC), scale_a, scale_b).apply()
        lc.copy(tCrC, thr_mma.partition_C(gC))

    return gemm_sm90


def make_gemm_tma(cfg: GemmConfig, name: str | None = None) -> Any:
    """The warp-specialized persistent TMA GEMM (CUTLASS's ``KernelTmaWarpSpecialized
    {Cooperative,Pingpong}``): grid = min(tiles, SMs) blocks of ``cfg.threads`` threads.

    - warpgroup 0 is the producer: it lowers its register limit (``setmaxnreg.dec``) and one
      elected thread walks the block's tiles (tile ``t = block_idx.x + i * grid_dim.x``, in
      grouped raster order) issuing a TMA load of A and of B per K-block into an
      ``lc.PipelineTmaAsync`` ring of ``stages`` (TMA fills the box past the tensor's edge
      with zeros: any M, N, K);
    - warpgroups 1.. are consumers (``setmaxnreg.inc``): they wait for a stage's ``full``
      barrier, issue its wgmmas, keep ``mma_in_flight`` K-blocks of wgmmas in flight and
      release the stage read before (one arrival per consumer warp), then write their tile
      with predicated stores (C's element type: f32, bf16 or f16);
    - ``cooperative``: both consumer warpgroups share each tile (64-row slices, a tiled MMA
      of (2, 1, 1); with ``split="N"`` each takes all rows of half the columns, (1, 2, 1));
      ``pingpong``: they take alternate tiles, each a whole tile, and an
      mbarrier pair orders their mainloops so that one's epilogue overlaps the other's MMAs
      (and no consumer runs a phase ahead of the ring); a warpgroup hands the mainloop on
      once its last K-block is issued, before its tail wait (CUTLASS's ``Pingpong``).
    """
    elem, stages = cfg.element, cfg.stages
    b_elem = cfg.b_element
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    in_flight = cfg.mma_in_flight
    lead = cfg.mma_lead
    steps = bk // ATOMS[cfg.dtype][1]  # wgmmas (K-steps) per K-block
    pingpong = cfg.schedule == "pingpong"
    sharing = 1 if pingpong else cfg.warpgroups  # consumer warpgroups of one tile
    wgs, wgs_n = cfg.split_m, cfg.split_n  # ... along M and along N
    # arrivals that release a stage in one block: one per consumer warp, or (CUTLASS's
    # PipelineTmaAsync) one per consumer warpgroup, from its thread 0 after its wgmma wait
    # (wgmma is warpgroup-collective: its wait retires the whole warpgroup's reads)
    per_wg = cfg.release == "warpgroup"
    consumer_warps = sharing if per_wg else 4 * sharing
    rs = cfg.mainloop == "rs"
    mma = lc.make_tiled_mma(cfg.atom, lc.make_layout((wgs, wgs_n, 1)))
    overlap = cfg.epi_overlap
    # epi_overlap: the tile's halves along N (columns [0, bn/2) and [bn/2, bn)) as N = bn/2
    # wgmmas, for the K-blocks issued around the last tile's stores (overlap_n="half"), or
    # the plain tile's N = bn wgmmas throughout ("full")
    halved = overlap and cfg.overlap_n == "half"
    s2r = load_a_copy(cfg, mma) if rs else None
    atom = lc.gmma_layout_atom("K", "SW128", elem)
    atom_a = lc.gmma_layout_atom(cfg.a_major, "SW128", elem)
    atom_b = lc.gmma_layout_atom(cfg.b_major, "SW128", b_elem)
    # The cluster: cm x cn tiles, cl blocks, block (rm, rn) of rank rm + cm * rn (CUTLASS's
    # cluster layout, M first). The cn blocks of a row (one rm) share A's tile: each loads
    # bm / cn of its rows and multicasts them into the row (``mask_a << rm``); the cm blocks of
    # a column (one rn) share B's tile alike (``mask_b << cm * rn``). A block's stage is thus
    # written by its row and column, cm + cn - 1 blocks (``peers``), and released in each of
    # them: the empty barriers count ``peers`` arrivals per consumer warp (warpgroup).
    cm, cn = cfg.cluster
    cl = cm * cn
    peers = cm + cn - 1
    mask_a = sum(1 << (cm * j) for j in range(cn))  # blocks (0, 0..cn-1)
    mask_b = (1 << cm) - 1  # blocks (0..cm-1, 0)
    # TMA boxes: K-major, A's bm / cn rows and B's bn / cm; MN-major, 64 M (N) elements (the
    # 128B swizzle span) by bk, so a stage is `parts` boxes, tiled K first (each box contiguous)
    # (a TMA box has at most 256 rows: a K-major tile of more, e.g. 320 x 128, is two boxes)
    hm = box_rows(bm // cn) if cfg.a_major == "K" else 64
    hn = box_rows(bn // cm) if cfg.b_major == "K" else 64
    parts_a, parts_b = bm // hm, bn // hn
    order_a = (1, 0) if cfg.a_major == "MN" else (0, 1)
    order_b = (1, 0) if cfg.b_major == "MN" else (0, 1)
    box_a = lc.tile_to_shape(atom_a, (bm, bk), order_a)  # one stage of A, canonical for wgmma
    half_a = lc.tile_to_shape(atom_a, (hm, bk))  # the TMA box of A
    box_b = lc.tile_to_shape(atom_b, (bn, bk), order_b)
    part_b = lc.tile_to_shape(atom_b, (hn, bk))  # the TMA box of B
    mma_half = box_b_half = None
    if halved:
        mma_half = lc.make_tiled_mma(cfg.wgmma_atom(bn // 2), lc.make_layout((wgs, 1, 1)))
        box_b_half = lc.tile_to_shape(atom_b, (bn // 2, bk))
    ring_a = lc.tile_to_shape(atom, (bm, bk, stages))
    ring_b = lc.tile_to_shape(lc.gmma_layout_atom("K", "SW128", b_elem), (bn, bk, stages))
    a_spec = lc.Tensor(elem, "(M,K):(K,1)" if cfg.a_major == "K" else "(M,K):(1,M)")
    b_spec = lc.Tensor(b_elem, "(N,K):(K,1)" if cfg.b_major == "K" else "(N,K):(1,N)")
    sa_spec, sb_spec = scale_annotation(cfg, "a"), scale_annotation(cfg, "b")
    c_spec = lc.Tensor(C_ELEMENTS[cfg.c_dtype], "(M,N):(N,1)")
    raster = cfg.raster
    regs_producer, regs_consumer = cfg.registers
    c_elem = C_ELEMENTS[cfg.c_dtype]
    full_tiles = cfg.full_tiles
    epi_tma = cfg.epilogue == "tma"
    scale_loads = cfg.scale_loads
    ec = cfg.epilogue_box[1]  # columns of C in one 128-byte swizzled row (or unswizzled box)
    if cfg.epilogue_swizzled:
        box_c = lc.tile_to_shape(lc.gmma_layout_atom("K", "SW128", c_elem), (64, ec))
    else:  # a warpgroup's columns, row-major (rows a multiple of 16 bytes apart)
        box_c = lc.make_layout((64, ec), (ec, 1))
    # the accumulators of one box are those of a 64 x ec wgmma: partitions the box
    mma_epi = lc.make_tiled_mma(cfg.wgmma_atom(ec), lc.make_layout((1, 1, 1)))
    wn = bn // wgs_n  # columns of a tile per warpgroup
    slices = bm // (64 * wgs)  # 64-row wgmma slices of a tile per warpgroup
    boxes_n = wn // ec
    epi_boxes = cfg.epilogue_boxes  # per warpgroup and tile: slices * boxes_n
    epi_bufs = cfg.epilogue_buffers
    batched = epi_bufs >= epi_boxes  # a buffer per box of a tile
    box_elems = 64 * ec
    # 16-bit C goes to shared memory with stmatrix (CuTe's SM90_U32x4_STSM_N through
    # make_tiled_copy_C: four 8x8 matrices, 16 bytes per thread and instruction, 4 of them
    # per box); f32 C with 32-bit stores (stmatrix moves 16-bit elements). The copy takes
    # CuTe's nested partitions (mode 0 one stmatrix's values and its repetitions).
    r2s = None
    if epi_tma and c_elem.bits == 16:
        stsm = "SM90_U32x4_STSM_N" if ec % 16 == 0 else "SM90_U32x2_STSM_N"  # ec / 2 values
        r2s = lc.make_tiled_copy_C(lc.make_copy_atom(stsm, c_elem), mma_epi)

    kernel_name = name or "gemm_sm90_" + cfg.name.replace("-", "_")
    reduce = cfg.decomposition != "data_parallel"  # units may end inside a tile (partials)
    # the workspace: f32 partial tiles and their i32 flags (compile-time None without)
    w_spec = lc.Tensor(lc.f32, "(W):(1)") if reduce else lc.Constexpr
    f_spec = lc.Tensor(lc.i32, "(F):(1)") if reduce else lc.Constexpr
    fix_n = 128 * sharing  # the threads of one tile: they share its partials
    # the fused epilogue's arguments (compile-time None where epilogue_op does not use them)
    al_spec, be_spec, src_spec, bias_spec, amax_spec = (
        epilogue_annotation(cfg, p) for p in EPILOGUE_PARAMS
    )
    fuse = cfg.epilogue_op.fused
    prefetch = fuse and cfg.epi_prefetch and cfg.schedule != "pingpong"
    bias_stage = cfg.bias_stage  # bias values each consumer thread stages per tile
    consumers = 128 * cfg.warpgroups
    bias_elem = lc.f32 if cfg.epilogue_op.bias_dtype == "f32" else c_elem
    blockwise = cfg.scales == "block"
    chunk, scale_ahead = cfg.block_chunk, cfg.block_prefetch
    scale_smem = cfg.scale_smem

    def release(pipe: Any, count: Any, rm: Any, rn: Any, lane: Any, index: Any = None) -> None:
        """Lane ``lane < peers`` of a consumer warp done with use ``count`` of the ring: one
        arrival on the stage's empty barrier of the ``lane``-th block that multicasts into this
        one (block (``rm``, ``rn``) of the cluster): :func:`cluster_peer` (in a single-block
        cluster, its own barrier). ``index``: the use's stage, where the caller carries it."""
        if index is None:
            index = count % stages
        if cl == 1:
            lc.mbarrier_arrive(pipe.empty.iterator + index)
        else:
            target = cluster_peer(cm, cn, rm, rn, lane)
            lc.mbarrier_arrive(pipe.empty.iterator + index, cta_id=target)

    @lc.kernel(name=kernel_name, min_blocks_per_sm=1, cluster=(cl, 1, 1) if cl > 1 else None)
    def gemm_sm90_ws(
        a: a_spec,
        b: b_spec,
        c: c_spec,
        scale_a: sa_spec = None,
        scale_b: sb_spec = None,
        work: w_spec = None,
        flags: f_spec = None,
        alpha: al_spec = None,
        beta: be_spec = None,
        source: src_spec = None,
        bias: bias_spec = None,
        amax: amax_spec = None,
    ):
        tid = lc.thread_idx.x
        op_a = "SM90_TMA_LOAD_MULTICAST" if cn > 1 else "SM90_TMA_LOAD"
        tma_a = lc.make_tma_copy(op_a, a, half_a, (hm, bk), multicast=cn)
        op_b = "SM90_TMA_LOAD_MULTICAST" if cm > 1 else "SM90_TMA_LOAD"
        tma_b = lc.make_tma_copy(op_b, b, part_b, (hn, bk), multicast=cm)
        sA = lc.dynamic_smem_tensor(elem, ring_a, align=1024)
        sB = lc.dynamic_smem_tensor(b_elem, ring_b, align=1024)
        if epi_tma:
            tma_c = lc.make_tma_copy("SM90_TMA_STORE", c, box_c, (64, ec))
            epi_elems = cfg.warpgroups * epi_bufs * box_elems
            sC = lc.dynamic_smem_tensor(c_elem, lc.make_layout(epi_elems), align=1024)
        bars = lc.dynamic_smem_tensor(lc.i64, lc.make_layout(2 * stages + 2), align=8)
        if bias_stage:  # the tile's per-column bias (bias_staged), one value a consumer thread
            sBias = lc.dynamic_smem_tensor(
                bias_elem, lc.make_layout(consumers * bias_stage), align=16
            )
        if scale_smem:  # each stage's scale_a rows of the tile (bm f32), by TMA
            sSA = lc.dynamic_smem_tensor(lc.f32, lc.make_layout(bm * stages), align=128)
            tma_sa = lc.make_tma_copy("SM90_TMA_LOAD", scale_a, lc.make_layout((bm, 1)), (bm, 1))
        # a stage is released by every block that multicasts into it (its row and column)
        tx = parts_a * tma_a.tx_bytes + parts_b * tma_b.tx_bytes
        if scale_smem:  # (each block loads its own rows' scales: no multicast)
            tx += tma_sa.tx_bytes
        pipe = lc.PipelineTmaAsync(stages, tx, peers * consumer_warps, bars)
        order = lc.make_tensor(bars.iterator + 2 * stages, lc.make_layout(2))
        # The cluster: its `cl` blocks take the cm x cn tiles (gm * cm + rm, gn * cn + rn) of
        # its tile group (gm, gn) together, block `rank` = rm + cm * rn (M first, as CUTLASS's
        # cluster layout)
        rank = lc.block_rank_in_cluster() if cl > 1 else 0
        rm, rn = rank % cm, rank // cm
        if cl > 1:
            lc.cluster_sync()  # the peers' barriers are initialised before any remote use
        if pingpong:
            if tid == 0:
                lc.mbarrier_init(order.iterator, 128)
                lc.mbarrier_init(order.iterator + 1, 128)
                lc.mbarrier_init_fence()
            lc.syncthreads()
        tiles_m = (lc.size(a, 0) + (bm - 1)) // bm
        tiles_n = (lc.size(b, 0) + (bn - 1)) // bn
        k_tiles = (lc.size(a, 1) + (bk - 1)) // bk
        run_time = cl == 1 and not pingpong
        groups_m = (tiles_m + cm - 1) // cm if cm > 1 else tiles_m
        groups_n = (tiles_n + cn - 1) // cn if cn > 1 else tiles_n
        tiles = groups_m * groups_n  # tile groups of one cluster
        # Rasterization over tile groups: bands of `band` group rows (`raster` tile rows), each
        # walked down M first, then along N; the blocks of a cluster take neighbours
        band = max(1, raster // cm)
        group = band * groups_n  # tile groups of one band
        # The cooperative schedule's single block reads its cluster size and rank at run time
        # (1 and 0): measured faster than the constants, 1-2% for the plain 128 x 256 bf16
        # tile at 4096^3 and 8192x4096x6144 (H100, same process), for no reason found in its
        # PTX (the scheduler's scalar code only). Ping-pong keeps the constants (with the
        # run-time form ptxas spills at 128 x 192, f16 and tf32, C7514). Either way each
        # predicated load of the fused epilogue's C shares the tile's coordinates, computed
        # once per tile (lower-layouts builds what guarded accesses share before the guards;
        # tests/hopper/test_gemm_sm90_epilogue.py checks the PTX).
        csize = lc.cluster_size() if run_time else cl
        cid = lc.block_idx.x // csize
        clusters = lc.grid_dim.x // csize
        # The cluster's work units (tile groups, or K-ranges of tiles): `mine` of them.
        units = WorkUnits(cfg, tiles, k_tiles, clusters, cid)
        mine = units.count

        def tile_of(t: Any) -> tuple[Any, Any]:
            """This block's tile (tile_m, tile_n) of the cluster's tile group ``t``."""
            first = (t // group) * band
            rows = lc.min(groups_m - first, band)
            gm = first + (t % group) % rows
            gn = (t % group) // rows
            if run_time:
                return gm, gn * csize + lc.block_rank_in_cluster()
            return gm * cm + rm, gn * cn + rn

        def load_parts(
            tma: Any,
            mX: Any,
            ring: Any,
            box: Any,
            rows: int,
            parts: int,
            tile: Any,
            k: Any,
            s: Any,
            bar: Any,
            share: int,
            mine: Any,
            mask: int,
            shift: Any,
        ) -> None:
            """The producer's TMA loads of one operand's stage ``s`` (K-block ``k`` of tile
            ``tile``): its ``parts`` boxes of ``rows`` rows, of which this block loads those
            ``h % share == mine`` (all without a cluster), each multicast to ``mask << shift``
            where ``share > 1``."""
            for h in range(parts):
                if share == 1 or h % share == mine:
                    off = s * (parts * rows * bk) + h * (rows * bk)
                    part = lc.make_tensor(
                        ring.iterator + lc.assume(off, divisible_by=rows * bk), box
                    )
                    g = lc.local_tile(mX, (rows, bk), (tile * parts + h, k))
                    if share > 1:
                        lc.tma_copy(tma, g, part, mbar=bar, mcast_mask=mask << shift)
                    else:
                        lc.tma_copy(tma, g, part, mbar=bar)

        if tid < 128:  # the producer warpgroup
            lc.warpgroup_reg_dealloc(regs_producer)
            if tid < 32:  # noqa: SIM102 (elect.sync in the converged warp 0 only)
                if lc.elect_one_sync():
                    mA, mB = tma_a.get_tma_tensor(), tma_b.get_tma_tensor()
                    mSA = tma_sa.get_tma_tensor() if scale_smem else None
                    for i in lc.range(mine):
                        u = units.unit(i)
                        tile_m, tile_n = tile_of(u.tile)
                        for k in lc.range(u.k_begin, u.k_end):
                            count = u.base + (k - u.k_begin)
                            pipe.producer_acquire(count)
                            s = count % stages
                            bar = pipe.producer_mbar(count)
                            # this block's parts of A (multicast into the blocks of its
                            # row, rm) and of B (of its column, rn)
                            load_parts(
                                tma_a,
                                mA,
                                sA,
                                half_a,
                                hm,
                                parts_a,
                                tile_m,
                                k,
                                s,
                                bar,
                                cn,
                                rn,
                                mask_a,
                                rm,
                            )
                            load_parts(
                                tma_b,
                                mB,
                                sB,
                                part_b,
                                hn,
                                parts_b,
                                tile_n,
                                k,
                                s,
                                bar,
                                cm,
                                rm,
                                mask_b,
                                cm * rn,
                            )
                            if scale_smem:  # the tile's scale_a rows of K-block k
                                sa_stage = lc.make_tensor(
                                    sSA.iterator + lc.assume(s * bm, divisible_by=bm),
                                    lc.make_layout((bm, 1)),
                                )
                                g_sa = lc.local_tile(mSA, (bm, 1), (tile_m, k))
                                lc.tma_copy(tma_sa, g_sa, sa_stage, mbar=bar)
        else:  # the consumer warpgroups
            lc.warpgroup_reg_alloc(regs_consumer)
            scale = scale_factor(cfg, scale_a, scale_b)  # None without scales
            ct = tid - 128
            me = 0
            step = 1
            if pingpong:
                me = ct // 128  # this warpgroup takes the block's tiles me, me + 2, ...
                step = 2
                ct = ct % 128
                if me == 1:  # lets warpgroup 0 run its first mainloop
                    lc.mbarrier_arrive(order.iterator)
            thr_mma = mma.get_slice(ct)
            thr_half = mma_half.get_slice(ct) if halved else None
            # A's partition depends on the warpgroup alone: its index broadcast from lane 0
            # (CUTLASS's __shfl_sync) is warp-uniform, so ptxas builds A's descriptors in
            # uniform registers, as B's, not in vector ones moved over per wgmma
            thr_a = thr_mma
            if blockwise and cfg.uniform_a:
                thr_a = mma.get_slice(lc.shuffle_idx(ct // 128, 0) * 128)

            def stage(count: Any, s: Any = None) -> tuple[Any, Any]:
                """Use ``count`` of the ring: its stages of A and B (``s``: its stage, where
                the caller carries it)."""
                if s is None:
                    s = count % stages
                stage_a = lc.make_tensor(
                    sA.iterator + lc.assume(s * (bm * bk), divisible_by=bm * bk), box_a
                )
                stage_b = lc.make_tensor(
                    sB.iterator + lc.assume(s * (bn * bk), divisible_by=bn * bk), box_b
                )
                return stage_a, stage_b

            def stage_views(count: Any, h: int) -> tuple[Any, Any]:
                """Use ``count`` of the ring: its stage of A, and half ``h`` of B's rows
                (columns [h * bn/2, (h + 1) * bn/2) of C; K-major, so bn/2 * bk elements on)."""
                s = count % stages
                stage_a = lc.make_tensor(
                    sA.iterator + lc.assume(s * (bm * bk), divisible_by=bm * bk), box_a
                )
                off = s * (bn * bk) + h * (bn // 2 * bk)
                stage_b = lc.make_tensor(
                    sB.iterator + lc.assume(off, divisible_by=bn // 2 * bk), box_b_half
                )
                return stage_a, stage_b

            def ring_next(ring: tuple[Any, Any]) -> tuple[Any, Any]:
                """The (stage, phase) of the ring's next use after ``ring``'s."""
                s, ph = ring
                wrap = s == stages - 1
                return lc.where(wrap, 0, s + 1), lc.where(wrap, 1 - ph, ph)

            def issue_block(
                u: Any, ring: Any, k: Any, part: Any, bsc: Any, factors: Any, cols: Any = None
            ) -> None:
                """Block-wise scales: the ring's use of stage and phase ``ring`` (K-block
                ``k`` of unit ``u``), its wgmmas into ``part`` (scale-d 0 first: nothing
                cleared) as one commit group, then its scale factors' loads into
                ``factors``, in flight under the wgmmas. The stage and phase are carried
                through the mainloop rather than derived from the use count (two
                divisions by ``stages`` a K-block, in the consumers' issue slots).
                ``cols``: the K-block's ``scale_b`` values, loaded ahead (``scale_smem``
                with ``block_prefetch``): the factors are its smem rows times them."""
                s, ph = ring
                lc.mbarrier_wait(pipe.full.iterator + s, ph)
                stage_a, stage_b = stage(None, s)
                lc.warpgroup_fence_operand(part)
                tCsA = thr_a.partition_A(stage_a)
                if rs:
                    tCsA = load_a(s2r, thr_mma, stage_a, ct)
                lc.warpgroup_arrive()
                # (the first K-step with scale-d 0: the K-block's own product, no clearing)
                lc.gemm(mma, tCsA, thr_mma.partition_B(stage_b), part, accumulate=False)
                lc.warpgroup_commit_batch()
                if factors is not None:
                    rows = None
                    if scale_smem:  # this stage's scale_a rows, landed with its A and B
                        off = lc.assume(s * bm, divisible_by=bm)
                        rows = lc.make_tensor(sSA.iterator + off, lc.make_layout(bm))
                    if cols is not None:
                        bsc.combine(rows, cols, factors)
                    else:
                        bsc.load(u.k_begin + k, factors, rows)

            def block_chunk(
                u: Any,
                ring: Any,
                k0: Any,
                n: int,
                bsc: Any,
                acc: Any,
                parts: Any,
                facs: Any,
                cols: Any = None,
            ) -> tuple[Any, Any]:
                """Block-wise scales with one K-block of wgmmas in flight (``mma_in_flight=1``):
                ``n`` K-blocks from ``k0`` of unit ``u`` in straight-line code, into
                ``parts[0]`` and ``parts[1]`` in turn. After each issue, the wait for the
                K-block before it (``wait_group 1``), its stage's release and its promotion
                into ``acc``, which run while the tensor cores work on the K-block just
                issued; the chunk ends with every wgmma waited for (ptxas serializes the
                wgmmas where a group stays in flight across a loop's back edge while
                accumulator registers are read). ``ring``: the (stage, phase) of K-block
                ``k0``'s use of the ring; returns the next K-block's. ``cols``: with
                ``scale_smem`` and ``block_prefetch``, the ``scale_b`` values loaded two
                K-blocks ahead (as ``facs`` otherwise: two in turn and a spare); the row
                scales are read from the stage at each issue."""
                rings = [ring]
                for _ in range(n):
                    rings.append(ring_next(rings[-1]))

                def retire(i: int, h: int, load: bool = True) -> None:
                    k = k0 + i  # the chunk's K-block i
                    lc.warpgroup_fence_operand(parts[h])
                    if lane < peers:
                        release(pipe, None, rm, rn, lane, rings[i][0])
                    bsc.promote(acc, parts[h], facs[h])
                    if scale_ahead and load:  # the factors of K-block k + 2 (same parity)
                        if cols is not None:
                            bsc.load_columns(u.k_begin + k + 2, cols[h])
                        else:
                            bsc.load(u.k_begin + k + 2, facs[h])

                for i in range(n):
                    early = None if scale_ahead and cols is None else facs[i % 2]
                    col = None if cols is None else cols[i % 2]
                    issue_block(u, rings[i], k0 + i, parts[i % 2], bsc, early, col)
                    if not in_flight:  # each K-block waited for and promoted in turn
                        lc.warpgroup_wait(0)
                        retire(i, i % 2)
                    elif i > 0:
                        lc.warpgroup_wait(1)
                        retire(i - 1, (i - 1) % 2)
                if in_flight:
                    last = (n - 1) % 2
                    if scale_ahead:
                        # the last K-block's next factors, loaded before the chunk's last wait
                        # into a third fragment: ptxas issues loads as early as it can, and
                        # took that wait (which the loads followed) above the promotion
                        # before it, so with chunks of 2 no promotion ran under a wgmma
                        # (docs/hopper.md, "Block-wise FP8 scales")
                        if cols is not None:
                            bsc.load_columns(u.k_begin + k0 + n + 1, cols[2])
                        else:
                            bsc.load(u.k_begin + k0 + n + 1, facs[2])
                    lc.warpgroup_wait(0)
                    retire(n - 1, last, load=not scale_ahead)
                    if scale_ahead:
                        spare = facs if cols is None else cols
                        for e in range(lc.size(spare[2])):
                            spare[last][e] = spare[2][e]
                return rings[n]

            lane = ct % (128 if per_wg else 32)  # the signalling threads: lane < peers
            wg = (tid - 128) // 128  # this consumer warpgroup, and its thread wct
            wct = tid % 128
            thr_epi = mma_epi.get_slice(wct)  # this thread's part of a 64 x ec box of D

            def store_boxes(
                tCrC: Any,
                qs: Any,
                tile_m: Any,
                tile_n: Any,
                ej: Any,
                rsc: Any,
                first: int = 0,
                fused: Any = None,
            ) -> None:
                """CUTLASS's sm90 TMA epilogue for boxes ``qs`` of this warpgroup's part of
                tile (``tile_m``, ``tile_n``) (``ej``: the tiles this warpgroup stored before,
                for the buffers' rotation), from the accumulators ``tCrC``: each 64 x ec box
                goes to a (128B-swizzled) shared-memory buffer in C's type, then a TMA store
                writes it, clipped at C's edges (any M, N). Two buffers alternate: one is
                written while the other is stored. The accumulator fragment is ((2, 2,
                bn/8), slices, 1) (CuTe's CLayout_64xN): box (mi, jc) holds its values (v0,
                v1, v2 + jc * ec/8, mi), the fragment of a 64 x ec wgmma; ``tCrC`` starts
                at its value ``first``. ``fused``: the tile's :class:`TileBoxes` with the
                fused epilogue, which gives each box's values."""
                mC = tma_c.get_tma_tensor()
                thr_epi = mma_epi.get_slice(wct)

                # a buffer per box (``batched``): the last tile's stores have long read
                # theirs; all boxes are written, then all stored, one barrier pair per tile
                if batched:
                    if wct == 0:
                        lc.tma_store_wait(0)
                    lc.named_barrier_sync(1 + wg, 128)
                for q in qs:
                    mi, jc = q // boxes_n, q % boxes_n
                    if batched or epi_boxes % epi_bufs == 0:
                        buf = q % epi_bufs
                    else:  # the buffers rotate across tiles too
                        buf = (ej * epi_boxes + q) % epi_bufs
                    off = wg * (epi_bufs * box_elems) + buf * box_elems
                    sbuf = lc.make_tensor(
                        sC.iterator + lc.assume(off, divisible_by=box_elems), box_c
                    )
                    frag = thr_epi.partition_fragment_C(sbuf, c_elem)
                    if fused is not None:  # the fused epilogue's values (TileBoxes)
                        for v, x in enumerate(fused.values(q)):
                            frag[v] = x
                    else:
                        mine = [v + (ec // 2) * jc + (wn // 2) * mi for v in range(ec // 2)]
                        if cfg.scales == "row" and scale_loads == "box":
                            rsc.apply(mine)  # this box's column scales: loaded here
                        for v in range(ec // 2):
                            frag[v] = tCrC[mine[v] - first]
                    if not batched:
                        if wct == 0:  # the store that last read this buffer is done
                            lc.tma_store_wait(epi_bufs - 1)
                        lc.named_barrier_sync(1 + wg, 128)
                    if r2s is None:  # f32 C
                        lc.copy(frag, thr_epi.partition_C(sbuf))
                    else:
                        r2s_thr = r2s.get_slice(wct)
                        src = r2s_thr.retile_S(frag)  # ((8,4),1,1): 4 stmatrix
                        lc.copy(r2s, src, r2s_thr.partition_D(sbuf))
                    if not batched:
                        lc.fence_proxy_async()  # the writes, visible to the TMA
                        lc.named_barrier_sync(1 + wg, 128)
                    if not batched:  # noqa: SIM102 (a trace-time test around a dynamic one)
                        if wct == 0:
                            row = tile_m * (bm // 64) + mi * wgs + (wg if wgs > 1 else 0)
                            col = tile_n * (bn // ec) + (wg * boxes_n if wgs_n > 1 else 0) + jc
                            gD = lc.local_tile(mC, (64, ec), (row, col))
                            lc.tma_copy(tma_c, sbuf, gD)
                            lc.tma_store_arrive()
                if batched:
                    lc.fence_proxy_async()  # the writes, visible to the TMA (async proxy)
                    lc.named_barrier_sync(1 + wg, 128)
                if batched:  # noqa: SIM102 (a trace-time test around a dynamic one)
                    if wct == 0:
                        for q in qs:
                            mi, jc = q // boxes_n, q % boxes_n
                            off = wg * (epi_bufs * box_elems) + q * box_elems
                            sbuf = lc.make_tensor(
                                sC.iterator + lc.assume(off, divisible_by=box_elems), box_c
                            )
                            row = tile_m * (bm // 64) + mi * wgs + (wg if wgs > 1 else 0)
                            col = tile_n * (bn // ec) + jc
                            col = col + (wg * boxes_n if wgs_n > 1 else 0)
                            gD = lc.local_tile(mC, (64, ec), (row, col))
                            lc.tma_copy(tma_c, sbuf, gD)
                        lc.tma_store_arrive()

            cC = lc.make_identity_tensor(c.shape)
            j = 0  # this warpgroup's tile number (pingpong: orders the mainloops)
            ej = 0  # ... and of the tiles it stored (the TMA epilogue's buffer rotation)
            fix_t = ct  # this thread in its tile's group (its partials' slots)
            fix_bar = 3 + me  # the named barrier of that group
            last_m, last_n = 0, 0  # epi_overlap: the tile whose second half waits
            if overlap:
                # the accumulators live across tiles: a tile's second half of C waits in them
                # until the next tile's first K-blocks have been issued on the first half
                # (a name of its own: one the tile loop assigns would be carried through it)
                accs = thr_mma.partition_fragment_C(lc.local_tile(c, (bm, bn), (0, 0)), lc.f32)
                half = lc.size(accs) // 2
                # the halves: the fragment's values [0, half) are columns [0, bn/2) of the
                # CLayout_64xN fragment, [half, 2 half) the rest (as the fragment of an
                # N = bn/2 wgmma with overlap_n="half"; the stored copy's layout either way)
                gC_half = lc.local_tile(c, (bm, bn // 2), (0, 0))
                if halved:
                    frag_layout = thr_half.partition_fragment_C(gC_half, lc.f32).layout
                else:
                    frag_layout = lc.make_layout(half)
                halves = [lc.make_tensor(accs.iterator + h * half, frag_layout) for h in (0, 1)]
            for i in lc.range(me, mine, step):
                u = units.unit(i)
                tile_m, tile_n = tile_of(u.tile)
                gC = lc.local_tile(c, (bm, bn), (tile_m, tile_n))
                tCgC = thr_mma.partition_C(gC)
                if overlap:
                    tCrC = accs
                else:
                    tCrC = thr_mma.partition_fragment_C(gC, lc.f32)  # the accumulators
                    lc.clear(tCrC)
                # row-wise scales: this tile's coordinates; with scale_loads="before" its
                # scales, loaded now, in flight under the mainloop
                tCcR = None
                if cfg.scales == "row":
                    tCcR = thr_mma.partition_C(lc.local_tile(cC, (bm, bn), (tile_m, tile_n)))
                early = None
                if scale_loads == "before":
                    early = RowScales(tCrC, tCcR, scale_a, scale_b).load_all()
                # the fused epilogue's first box's C and bias values: in flight under the
                # mainloop (cooperative; ping-pong's hide under the other warpgroup's)
                # the tile's per-column bias, to be staged in shared memory: each consumer
                # thread's values (coalesced, clamped into the vector), in flight under the
                # mainloop
                staged = staging = None
                if bias_stage:
                    last = lc.size(bias, 0) - 1
                    staging = [
                        bias[lc.min(tile_n * bn + ct + r * consumers, last)]
                        for r in range(bias_stage)
                    ]
                    staged = (sBias, tile_n * bn)
                boxes = None
                if prefetch:
                    fusion = EpilogueFusion(
                        cfg.epilogue_op, c, ec, alpha, beta, source, bias, True, staged
                    )
                    boxes = TileBoxes(cfg, tile_m, tile_n, wg, tCrC, thr_epi, None, fusion)
                # block-wise scales: each K-block's wgmmas accumulate into `part`, which is
                # scaled and added to the tile's accumulators after their wait
                bsc = part = parts = facs = cols = None
                if blockwise:
                    tCcB = thr_mma.partition_C(lc.local_tile(cC, (bm, bn), (tile_m, tile_n)))
                    bsc = BlockScales(tCrC, tCcB, tile_n, bn, scale_a, scale_b, tile_m * bm)
                    part = thr_mma.partition_fragment_C(gC, lc.f32)
                chunked = blockwise and (in_flight or (chunk, scale_ahead) != (2, False))
                if chunked:
                    # two K-block accumulators in turn: a K-block's wgmmas are issued before
                    # the previous one's wait (wait_group 1), whose promotion then runs under
                    # them (mma_in_flight=0: one, each K-block waited for before its promotion)
                    second = thr_mma.partition_fragment_C(gC, lc.f32) if in_flight else part
                    parts = (part, second)
                    # (with the factors two ahead, a third: block_chunk's spare)
                    facs = tuple(bsc.factor_fragment() for _ in range(3 if scale_ahead else 2))
                    if scale_smem and scale_ahead:  # the scale_b values two ahead instead
                        cols = tuple(bsc.column_fragment() for _ in range(3))
                if pingpong:
                    lc.mbarrier_wait(order.iterator + me, j % 2)
                base = u.base
                k_count = u.k_end - u.k_begin  # K-blocks of this unit (>= 1)
                head = 0  # K-blocks issued in two halves around the last tile's stores
                if overlap:
                    # The last tile's second half, out of the registers its wgmmas defined: ptxas
                    # makes any read of a wgmma-defined register wait for every wgmma in
                    # flight (C7517), so the stores read copies made before the first wgmmas
                    # are issued (a multiply by a 1.0 it cannot fold: a copy it would merge)
                    one = lc.where(k_count > 0, 1.0, 2.0)
                    stash = lc.make_fragment_like(halves[1])
                    for e in range(half):
                        stash[e] = halves[1][e] * one
                    lc.warpgroup_fence_operand(stash)  # (the copies stay here)
                    # both halves cleared before any wgmma is issued: ptxas serializes the
                    # wgmmas where other instructions write accumulators while some are in
                    # flight (C7515), as it does around a loop of them (hence static loops)
                    lc.clear(halves[0])
                    lc.clear(halves[1])
                    fits = k_count >= overlap
                    head = lc.where(fits, overlap, 0)
                    if fits:
                        if halved:
                            for k in range(overlap):
                                pipe.consumer_wait(base + k)
                                a0, b0 = stage_views(base + k, 0)
                                lc.warpgroup_fence_operand(halves[0])
                                lc.warpgroup_arrive()
                                tA, tB = thr_half.partition_A(a0), thr_half.partition_B(b0)
                                lc.gemm(mma_half, tA, tB, halves[0])
                                lc.warpgroup_commit_batch()
                            if i != me:  # the last tile's second half, under those wgmmas
                                second = range(epi_boxes // 2, epi_boxes)
                                store_boxes(stash, second, last_m, last_n, ej - 1, None, half)
                            for k in range(overlap):
                                a1, b1 = stage_views(base + k, 1)
                                lc.warpgroup_fence_operand(halves[1])
                                lc.warpgroup_arrive()
                                tA, tB = thr_half.partition_A(a1), thr_half.partition_B(b1)
                                lc.gemm(mma_half, tA, tB, halves[1])
                                lc.warpgroup_commit_batch()
                                # this K-block's first half and the last one's second are done:
                                # the last one's stage is free
                                lc.warpgroup_wait(1)
                                if k > 0 and lane < peers:
                                    release(pipe, base + k - 1, rm, rn, lane)
                            lc.warpgroup_wait(0)
                            lc.warpgroup_fence_operand(tCrC)
                            if lane < peers:
                                release(pipe, base + overlap - 1, rm, rn, lane)
                        else:
                            # the K-blocks whole (N = bn), the stores under them, then one wait
                            # and the K-blocks' releases
                            for k in range(overlap):
                                pipe.consumer_wait(base + k)
                                stage_a, stage_b = stage(base + k)
                                lc.warpgroup_fence_operand(tCrC)
                                lc.warpgroup_arrive()
                                tA, tB = thr_mma.partition_A(stage_a), thr_mma.partition_B(stage_b)
                                lc.gemm(mma, tA, tB, tCrC)
                                lc.warpgroup_commit_batch()
                            if i != me:  # the last tile's second half, under those wgmmas
                                second = range(epi_boxes // 2, epi_boxes)
                                store_boxes(stash, second, last_m, last_n, ej - 1, None, half)
                            lc.warpgroup_wait(0)
                            lc.warpgroup_fence_operand(tCrC)
                            if lane < peers:
                                for k in range(overlap):
                                    release(pipe, base + k, rm, rn, lane)
                    else:  # fewer K-blocks than that: the stores first
                        if i != me:
                            second = range(epi_boxes // 2, epi_boxes)
                            store_boxes(stash, second, last_m, last_n, ej - 1, None, half)
                mainloop = lc.range(head, k_count) if overlap else lc.range(k_count)
                if chunked:
                    # block-wise scales, one K-block in flight: chunks of ``cfg.block_chunk`` K-blocks
                    # (:func:`block_chunk`), then one of the rest (a version per count)
                    mainloop = ()
                    if cols is not None:  # K-block k's scale_b values in cols[k % 2]
                        bsc.load_columns(u.k_begin, cols[0])
                        bsc.load_columns(u.k_begin + 1, cols[1])
                    elif scale_ahead:  # K-block k's factors in facs[k % 2], two ahead
                        bsc.load(u.k_begin, facs[0])
                        bsc.load(u.k_begin + 1, facs[1])
                    full = k_count // chunk
                    # the ring's stage and phase, carried through the chunks
                    first = pipe.state(lc.assume(base, lower=0))
                    ring_s, ring_ph = first.index, first.phase
                    for q in lc.range(full):
                        ring_s, ring_ph = block_chunk(
                            u, (ring_s, ring_ph), q * chunk, chunk, bsc, tCrC, parts, facs, cols
                        )
                    rest = k_count - full * chunk
                    for r in range(1, chunk):
                        if rest == r:
                            at = (ring_s, ring_ph)
                            block_chunk(u, at, full * chunk, r, bsc, tCrC, parts, facs, cols)
                for k in mainloop:
                    count = base + k
                    pipe.consumer_wait(count)
                    stage_a, stage_b = stage(count)
                    if blockwise:  # this K-block's accumulators start at zero
                        lc.clear(part)
                        lc.warpgroup_fence_operand(part)
                    lc.warpgroup_fence_operand(tCrC)
                    tCsA = thr_mma.partition_A(stage_a)  # (MMA, MMA_M, MMA_K)
                    if rs:  # A from registers: ldmatrix it from the stage first
                        tCsA = load_a(s2r, thr_mma, stage_a, ct)
                    lc.warpgroup_arrive()
                    tCsB = thr_mma.partition_B(stage_b)  # (MMA, MMA_N, MMA_K)
                    if lead:
                        # the first `lead` K-steps, then the wait for the previous K-block
                        # (all groups but this one) and its release, then the rest: the
                        # tensor cores never run dry at the K-block boundary
                        for kk in range(lead):
                            lc.gemm(mma, tCsA[_, _, kk], tCsB[_, _, kk], tCrC)
                        lc.warpgroup_commit_batch()
                        lc.warpgroup_wait(1)
                        if k > 0:  # noqa: SIM102 (both dynamic)
                            if lane < peers:
                                release(pipe, count - 1, rm, rn, lane)
                        for kk in range(lead, steps):
                            lc.gemm(mma, tCsA[_, _, kk], tCsB[_, _, kk], tCrC)
                        lc.warpgroup_commit_batch()
                    else:
                        if halved:  # the same N = bn/2 halves as the head (ptxas keeps
                            # an N = bn wgmma's upper half and an N = bn/2 one's registers apart)
                            for h in (0, 1):
                                sbh = stage_views(count, h)[1]
                                lc.gemm(mma_half, tCsA, thr_half.partition_B(sbh), halves[h])
                        elif blockwise:
                            lc.gemm(mma, tCsA, tCsB, part)
                        else:
                            lc.gemm(mma, tCsA, tCsB, tCrC)
                        lc.warpgroup_commit_batch()
                        if blockwise:  # the scales' loads, under the wgmmas
                            bsc.load(u.k_begin + k)
                            lc.warpgroup_wait(0)
                            lc.warpgroup_fence_operand(part)
                        else:
                            lc.warpgroup_wait(in_flight)
                            lc.warpgroup_fence_operand(tCrC)
                    if in_flight:
                        if k > 0:  # noqa: SIM102 (both dynamic)
                            if lane < peers:
                                release(pipe, count - 1, rm, rn, lane)
                    elif not lead and lane < peers:
                        release(pipe, count, rm, rn, lane)
                    if blockwise:  # (the stage released first: the producer refills it)
                        bsc.promote(tCrC, part)
                if pingpong:
                    # the other warpgroup's mainloop may start now, while this one's last
                    # wgmmas still run (CUTLASS's Pingpong arrives before its mma_tail): the
                    # tensor cores get its first K-block queued behind them, not after a
                    # drain and a barrier round trip
                    lc.mbarrier_arrive(order.iterator + (1 - me))
                if (in_flight or lead) and not blockwise:
                    lc.warpgroup_wait(0)
                    lc.warpgroup_fence_operand(tCrC)
                    if lane < peers:
                        release(pipe, base + k_count - 1, rm, rn, lane)
                j = j + 1
                fin = True  # this unit ends the tile: it stores C
                if reduce:
                    # Stream-K / split-K fixup (deterministic): a unit that ends inside its
                    # tile leaves its f32 partial in its workspace slot (each thread's
                    # elements four by four, 16-byte vectors, a warp's 512 bytes contiguous) and
                    # raises the slot's flag (block barrier, then fence and relaxed atomic:
                    # release); the tile's last unit waits for the earlier units' flags
                    # (atomic exchange with 0, which also rearms them for the next launch,
                    # then a fence: acquire; one barrier) and adds their partials in K order.
                    fin = u.final
                    frag = lc.size(tCrC)
                    if fin:
                        if u.first_slot < u.end_slot:  # all flags, then one barrier
                            if fix_t == 0:
                                for src in lc.range(u.first_slot, u.end_slot):
                                    while lc.atomic_exch(flags, src, 0) == 0:
                                        pass
                                lc.threadfence()
                            lc.named_barrier_sync(fix_bar, fix_n)
                        for src in lc.range(u.first_slot, u.end_slot):
                            at = lc.assume(src * (frag * fix_n) + fix_t * 4, divisible_by=4)
                            for q in range(frag // 4):  # four at a time: few registers
                                off = lc.assume(at + q * (4 * fix_n), divisible_by=4)
                                part = lc.make_tensor(work.iterator + off, lc.make_layout(4))
                                if frag <= 128:  # a 16-byte load
                                    got = lc.make_fragment_like(part)
                                    lc.copy(part, got)
                                else:  # (ping-pong 128 x 192: no registers for vectors)
                                    got = part
                                for e in range(4):
                                    tCrC[4 * q + e] = tCrC[4 * q + e] + got[e]
                    else:
                        at = lc.assume(u.slot * (frag * fix_n) + fix_t * 4, divisible_by=4)
                        part = lc.make_tensor(
                            work.iterator + at,
                            lc.make_layout((4, frag // 4), (1, 4 * fix_n)),
                        )
                        flat = lc.make_tensor(tCrC.iterator, lc.make_layout((4, frag // 4)))
                        lc.copy(flat, part)
                        lc.named_barrier_sync(fix_bar, fix_n)
                        if fix_t == 0:
                            lc.threadfence()
                            lc.atomic_exch(flags, u.slot, 1)
                if fin:
                    if bias_stage:
                        # the consumers are done with the last tile's values; this one's in
                        # shared memory for all of them
                        lc.named_barrier_sync(BIAS_BARRIER, consumers)
                        for r in range(bias_stage):
                            sBias[ct + r * consumers] = staging[r]
                        lc.named_barrier_sync(BIAS_BARRIER, consumers)
                    apply_scale(tCrC, scale)
                    # row-wise scales: each loaded once per tile, here (or before the mainloop),
                    # or with scale_loads="box" each box's next to it in the TMA epilogue
                    rsc = early
                    if cfg.scales == "row" and scale_loads != "before":
                        rsc = RowScales(tCrC, tCcR, scale_a, scale_b)
                    if cfg.scales == "row" and scale_loads != "box":
                        rsc.apply()

                    # the fused epilogue (and the TMA epilogue) go box by box: a 64 x ec box
                    # of D at a time, its C and bias values loaded one box ahead
                    if boxes is not None:  # prefetched before the mainloop
                        fusion, boxes.rsc = boxes.fusion, rsc
                    else:
                        fusion = None
                        if fuse:
                            # ping-pong: a per-column bias ahead would hold ec / 4 more
                            # registers a box (spills); its loads hide under the other
                            # warpgroup's mainloop anyway
                            fusion = EpilogueFusion(
                                cfg.epilogue_op,
                                c,
                                ec,
                                alpha,
                                beta,
                                source,
                                bias,
                                not pingpong,
                                staged,
                            )
                        boxes = TileBoxes(cfg, tile_m, tile_n, wg, tCrC, thr_epi, rsc, fusion)

                    if epi_tma:
                        # CUTLASS's sm90 TMA epilogue, per consumer warpgroup ``wg`` (thread
                        # ``wct`` of it): ``store_boxes``. With ``epi_overlap`` the first half
                        # of the boxes now, the second under the next tile's first K-blocks.
                        if lc.size(tCrC) != (wn // 2) * slices:
                            raise ValueError(f"unexpected accumulator fragment {lc.size(tCrC)}")
                        now = epi_boxes // 2 if overlap else epi_boxes
                        # (a fused epilogue: its values box by box, ``boxes``; no overlap)
                        fused = boxes if fuse else None
                        store_boxes(tCrC, range(now), tile_m, tile_n, ej, rsc, 0, fused)
                        if overlap:
                            last_m, last_n = tile_m, tile_n
                    elif fuse:
                        # the store epilogue, fused: box by box (as the TMA epilogue), each
                        # box's D values converted and written with predicated stores
                        for q in range(epi_boxes):
                            box = fusion.next
                            g_box = thr_epi.partition_C(
                                lc.local_tile(c, (64, ec), boxes.at(*divmod(q, boxes_n)))
                            )
                            frag = lc.make_fragment_like(g_box)
                            for v, x in enumerate(boxes.values(q)):
                                frag[v] = x
                            if full_tiles:
                                lc.copy(frag, g_box)
                            else:
                                lc.copy_if(box.coords, frag, g_box, bounds=c.shape)
                    else:
                        tCcC = thr_mma.partition_C(lc.local_tile(cC, (bm, bn), (tile_m, tile_n)))
                        if c_elem is lc.f32:
                            tCrD = tCrC
                        else:
                            tCrD = lc.make_fragment_like(tCrC, c_elem)
                            for e in range(lc.size(tCrC)):
                                tCrD[e] = tCrC[e]
                        if full_tiles:
                            lc.copy(tCrD, tCgC)
                        else:
                            lc.copy_if(tCcC, tCrD, tCgC, bounds=c.shape)
                    if cfg.epilogue_op.amax:  # the tile's max |D|: one atomic per warp
                        peak = fusion.warp_amax()
                        if wct % 32 == 0:
                            lc.atomic_max(lc.recast(amax, lc.i32), 0, peak)
                    ej = ej + 1
            if overlap:  # noqa: SIM102 (a trace-time test around a dynamic one)
                if mine > me:  # the last tile's second half
                    store_boxes(
                        accs, range(epi_boxes // 2, epi_boxes), last_m, last_n, ej - 1, None
                    )
            if epi_tma:  # noqa: SIM102 (a trace-time test around a dynamic one)
                if wct == 0:  # the last stores have read shared memory before the block exits
                    lc.tma_store_wait(0)
        if cl > 1:
            lc.cluster_sync()  # no block leaves while a peer may still write its smem

    return gemm_sm90_ws


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
        c = np.full((m, n), np.nan, np.float32)
        # no scales: the kernel's compile-time scale parameters stay None
        return {"a": a, "b": b, "c": c, "scale_a": None, "scale_b": None}

    def reference(args: dict) -> dict:
        a, b = args["a"].astype(np.float64), args["b"].astype(np.float64)
        return {"c": (a @ b.T).astype(np.float32)}

    return lc.Example(
        kernel=kernel,
        inputs=inputs,
        launch=lambda args: {
            "grid": cfg.grid(*args["c"].shape),
            "block": cfg.threads,
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
