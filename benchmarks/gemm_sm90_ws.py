"""The warp-specialized persistent TMA GEMM (examples/gemm_sm90.py, ``loads="tma"``) against
cuBLAS (``torch.mm``) in the same process, on a Hopper GPU.

For each configuration and element type: a correctness check against a float64 reference at
sizes with residues (every element written, relative error bounded), then timings at the
benchmark shapes: random normal inputs, rotating input sets larger than L2 (each launch reads
a different set, for ours and for cuBLAS alike), CUDA events around batches of launches after
a warm-up, medians. C is in the input type (bf16/f16; tf32: f32), as ``torch.mm`` writes it,
unless the configuration says ``-cf32``. FP8 rows (``f8e4m3``, ``f8e5m2``: C in bf16 unless
``c_dtype=`` says otherwise) compare with cuBLAS's FP8 GEMM through ``torch._scaled_mm``
(B column-major as it requires) with the same per-tensor scales (``scales=tensor``: 0-d f32
device tensors, ``SCALES``; without it unit scales; ``scales=row``: row-wise scales, f32
``scale_a`` (M, 1) and ``scale_b`` (1, N) of random values, what FP8 LLM inference passes);
``b_dtype=f8e5m2`` mixes the types; ``scales=block``: block-wise scales (DeepSeek-V3's,
``scale_a`` (M, K/128) M-major, ``scale_b`` (N/128, K/128), random), against
``torch._scaled_mm``'s BlockWise1x128 x BlockWise128x128 path where this torch has it, else
against its per-tensor FP8 GEMM (the row says which). ``cluster=2x1`` is a cluster of two tiles along M (B
multicast), ``cluster=1x2`` (or ``2``) along N (A multicast), ``cluster=2x2`` both (up to 8
blocks: ``4x1``, ``1x4``, ``2x4``...).
Where torch has no ``_scaled_mm`` (or cuBLAS refuses the pair, e.g. e5m2 x e5m2) the row is
timed without a reference and says why. Printed per row: registers, local memory (spills),
shared memory, blocks per SM; the GPU's name and clocks first.

    python benchmarks/gemm_sm90_ws.py [--shapes 4096,8192,8192x4096x6144,4000] [--configs ...]

``--configs "bf16:tuned;f16:tuned;tf32:tuned"`` times ``tuned(dtype, shape)`` at each shape
(examples/gemm_sm90.py's choice per shape). The tile scheduler's decompositions are fields
like any other: ``bf16:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma,
decomposition=streamk`` (every SM, the workspace allocated once per shape by the example's
``gemm``), ``...,split_k=2``; ``--configs streamk`` stands for ``STREAMK_CONFIGS`` (bf16
and tf32: data-parallel, stream-K, split-K 2 and 4) and ``--shapes streamk`` for
``STREAMK_SHAPES`` (docs/hopper.md, "Stream-K and split-K").

``--epilogue`` times the fused epilogues instead (``GemmConfig(epilogue_op=Epilogue(...))``,
``tuned(dtype, shape, epilogue_op=...)``; ``--epilogue-dtype bf16`` or ``f16``) against
torch's cuBLASLt paths in the same process: bias + GELU (per column) against
``torch._addmm_activation(bias, a, b.t(), use_gelu=True)`` (cuBLASLt's GELU_BIAS epilogue),
bias alone against ``torch.addmm(bias, a, b.t())`` (its BIAS epilogue), ``beta = 1`` with a
source C against ``torch.addmm(c, a, b.t())``, and the plain GEMM against ``torch.mm`` for
scale; each row checked against the float64 reference first (``FUSED``).
``--epilogue-fields schedule=pingpong,bn=192,mma_in_flight=1`` overrides tuned()'s tile.
``--epilogue-ab`` adds, under each fused row, the same kernel without the fast tanh, the
first box's prefetch and the bias staged in shared memory (``fast_tanh=False``,
``epi_prefetch=False``, ``bias_smem=False``: ``... old``), or with the fields it is given
(``--epilogue-ab bias_smem=False``), timed in the same alternating loop against the same
torch run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _gemm_module() -> Any:
    from layoutc.driver.loading import load_source

    return load_source(ROOT / "examples" / "gemm_sm90.py")


def parse_shape(text: str) -> tuple[int, int, int]:
    parts = [int(x) for x in text.lower().split("x")]
    return (parts[0],) * 3 if len(parts) == 1 else tuple(parts)  # type: ignore[return-value]


DEFAULT_CONFIGS = (
    # the tuned ones (examples/gemm_sm90.py's ``tuned(dtype)``, first): 128x256 tiles,
    # TMA-store epilogue, one K-block of wgmmas at a time (the stage is released a K-block
    # earlier: 3 of 4 stages in flight), no cluster; then 256x128
    "bf16:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma",
    "f16:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma",
    "tf32:bm=128,bn=256,bk=32,stages=4,mma_in_flight=0,epilogue=tma",
    "bf16:bm=256,bn=128,stages=4,mma_in_flight=0,epilogue=tma",
    "f16:bm=256,bn=128,stages=4,mma_in_flight=0,epilogue=tma",
    "tf32:bm=256,bn=128,bk=32,stages=4,mma_in_flight=0,epilogue=tma",
    # ping-pong with 128 x 192 per consumer warpgroup: ``tuned(dtype, shape)``'s choice where
    # its tiles fill the SMs' rounds better (8192^2: 21 rounds of 20.8 against 16 of 15.5)
    "bf16:bm=128,bn=192,stages=4,schedule=pingpong,epilogue=tma",
    "tf32:bm=128,bn=192,bk=32,stages=4,schedule=pingpong,epilogue=tma",
    # cuBLAS's 192 x 160 (its tile at 4000^3): the two consumer warpgroups side by side along
    # N, 192 x 80 each; ``tuned(dtype, shape)``'s choice at 4000^2 (525 tiles in 4 rounds)
    "bf16:bm=192,bn=160,stages=4,mma_in_flight=0,epilogue=tma,split=N",
    "tf32:bm=192,bn=160,bk=32,stages=4,mma_in_flight=0,epilogue=tma,split=N",
    # for comparison: predicated stores and one K-block in flight; a cluster of 2 (A
    # multicast); mma_lead (the previous K-block's wait after this one's first K-step)
    "bf16:bm=256,bn=128,stages=4",
    "bf16:bm=256,bn=128,stages=4,mma_in_flight=0,epilogue=tma,cluster=2",
    "bf16:bm=128,bn=256,stages=4,mma_in_flight=0,mma_lead=1,epilogue=tma",
    # the RS mainloop (A ldmatrix'd into registers, the _RS wgmma atoms) against the SS one
    "bf16:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma,mainloop=rs",
    # FP8 (e4m3 in, f32 accumulate, bf16 C, per-tensor scales as torch._scaled_mm applies
    # them): 128-element (128-byte) K-blocks
    "f8e4m3:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma,scales=tensor",
)
#: The tile scheduler's decompositions side by side (``--configs streamk``).
STREAMK_CONFIGS = tuple(
    f"{base}{extra}"
    for base in (
        "bf16:bm=128,bn=256,stages=4,mma_in_flight=0,epilogue=tma",
        "tf32:bm=128,bn=256,bk=32,stages=4,mma_in_flight=0,epilogue=tma",
    )
    for extra in ("", ",decomposition=streamk", ",split_k=2", ",split_k=4")
)
#: Full waves, partial waves, and few tiles with a deep K (``--shapes streamk``).
STREAMK_SHAPES = "4096,4000,2048x2048x16384,1024x1024x32768,4096x1024x16384"
FP8 = ("f8e4m3", "f8e5m2")
#: The per-tensor scale factors of scaled rows (``scales=``), ours and ``torch._scaled_mm``'s.
SCALES = (0.375, 1.25)


#: Build options a configuration may add (not GemmConfig fields): ``asm=nvjitlink`` assembles
#: with nvJitLink even where setmaxnreg needs a whole program (the code before whole-program
#: assembly: the producer keeps the consumers' registers), ``backend=llvm|libnvvm`` the PTX,
#: ``grid=balanced`` the fewest blocks for as many rounds of tiles (``GemmConfig.grid``).
BUILD_KEYS = ("asm", "backend", "grid")


def field_value(key: str, text: str) -> Any:
    """A GemmConfig field's value from its text: ints, ``cluster=2x1`` as ``(2, 1)`` (tiles
    along M, along N), else the string."""
    if key == "cluster" and "x" in text:
        return tuple(int(x) for x in text.split("x"))
    if text in ("True", "False"):
        return text == "True"
    return int(text) if text.isdigit() else text


#: ``--epilogue-ab``'s fields without a value: the fused epilogue as it was before the fast
#: tanh, the first box's prefetch and the bias staged in shared memory.
EPILOGUE_AB = "fast_tanh=False,epi_prefetch=False,bias_smem=False"


def ab_config(g: Any, cfg: Any, fields: str) -> Any:
    """``cfg`` with ``fields`` (``k=v,...``; Epilogue fields go to its ``epilogue_op``)."""
    epi_fields = {f.name for f in dataclasses.fields(g.Epilogue)}
    over: dict[str, Any] = {}
    epi: dict[str, Any] = {}
    for item in filter(None, fields.split(",")):
        k, v = item.split("=")
        (epi if k in epi_fields else over)[k] = field_value(k, v)
    return dataclasses.replace(cfg, epilogue_op=dataclasses.replace(cfg.epilogue_op, **epi), **over)


def make_config(g: Any, text: str) -> tuple[Any, dict[str, str]]:
    dtype, _, rest = text.partition(":")
    kw: dict[str, Any] = {"loads": "tma"}
    build: dict[str, str] = {}
    if dtype in FP8:
        kw["c_dtype"] = "bf16"
    elif dtype != "tf32":
        kw["c_dtype"] = dtype
    for item in filter(None, rest.split(",")):
        k, v = item.split("=")
        if k in BUILD_KEYS:
            build[k] = v
        else:
            kw[k] = field_value(k, v)
    return g.GemmConfig(dtype, **kw), build


def plan(g: Any, configs: str, shapes: list) -> list[tuple[Any, dict[str, str], list]]:
    """The configurations of ``configs`` (``;``-separated) with the shapes each is timed at:
    all of them, except that ``DTYPE:tuned`` (optionally ``DTYPE:tuned,field=value,...``)
    stands for ``tuned(DTYPE, shape)`` of each shape (one build per distinct configuration)."""
    out: list[tuple[Any, dict[str, str], list]] = []
    for text in filter(None, configs.split(";")):
        dtype, _, rest = text.partition(":")
        items = [x for x in rest.split(",") if x]
        if "tuned" not in items:
            out.append((*make_config(g, text), shapes))
            continue
        fields = dict(x.split("=") for x in items if x != "tuned")
        fields = {k: field_value(k, v) for k, v in fields.items()}
        per: dict[Any, list] = {}
        for shape in shapes:
            per.setdefault(g.tuned(dtype, shape, **fields), []).append(shape)
        out += [(cfg, {}, cfg_shapes) for cfg, cfg_shapes in per.items()]
    return out


def build_label(cfg: Any, build: dict[str, str]) -> str:
    return cfg.name + "".join(f"-{v}" for v in build.values())


def rate_columns(flops: int, mine: float, ref: float, mine_g: float, ref_g: float) -> str:
    """TFLOP/s of ours and the reference and their ratio, for direct launches then CUDA-graph
    replays (times in seconds): the six columns every table of this script ends with."""
    return (
        f"{flops / mine / 1e12:>7.1f} {flops / ref / 1e12:>7.1f} {ref / mine:>6.3f}x "
        f"{flops / mine_g / 1e12:>7.1f} {flops / ref_g / 1e12:>7.1f} {ref_g / mine_g:>6.3f}x"
    )


def gpu_header(torch: Any) -> str:
    name = torch.cuda.get_device_name()
    try:
        q = "clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu"
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        out = "nvidia-smi unavailable"
    return f"GPU: {name}; sm clock, max sm clock, mem clock, power, temp: {out}"


def torch_type(torch: Any, dtype: str) -> Any:
    if dtype in FP8:
        return {"f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}[dtype]
    return {"bf16": torch.bfloat16, "f16": torch.float16, "tf32": torch.float32}[dtype]


def operands(
    torch: Any, dtype: str, m: int, n: int, k: int, gen: Any, b_dtype: str | None = None
) -> tuple[Any, Any]:
    """Random normal A and B (B in ``b_dtype`` where it differs: mixed FP8)."""
    a = torch.randn((m, k), device="cuda", generator=gen).to(torch_type(torch, dtype))
    b = torch.randn((n, k), device="cuda", generator=gen).to(torch_type(torch, b_dtype or dtype))
    if dtype == "tf32":  # exact in tf32: both tensor-core paths agree
        a = (a.view(torch.int32) & ~0x1FFF).view(torch.float32)
        b = (b.view(torch.int32) & ~0x1FFF).view(torch.float32)
    return a, b


class Ours:
    """One compiled configuration (the spec is dynamic in M, N, K: one build for all shapes)."""

    def __init__(self, g: Any, cfg: Any, torch: Any, build: dict[str, str] | None = None):
        import layoutc as lc

        self.cfg = cfg
        options: dict[str, Any] = {}
        build = build or {}
        self.balanced = build.get("grid") == "balanced"
        if build.get("backend"):
            options["ptx_backend"] = build["backend"]
        if build.get("asm") == "nvjitlink":
            from layoutc.codegen import cubin

            os.environ["LAYOUTC_PTXAS"] = "none"  # no ptxas, and cubin="always": no driver JIT
            cubin.find_ptxas.cache_clear()
            options["cubin"] = "always"
        self.g, self.torch = g, torch
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.scales = tuple(torch.tensor(x, device="cuda") for x in SCALES)  # 0-d f32
        if cfg.scales == "value":
            self.scales = SCALES
        self.factor = SCALES[0] * SCALES[1] if cfg.scales else 1.0
        self.rows: dict[tuple[int, int], tuple] = {}  # (m, n) -> row-wise scales, arguments
        self.fixed = g.scale_args(cfg, *self.scales) if cfg.scales not in ("row", "block") else ()
        kernel = g.make_gemm(cfg)
        # M odd, N and K multiples of 8 only (16 for 1-byte FP8): the spec assumes no more than
        # that (TMA needs 16-byte row pitches; C's rows stay aligned for paired stores); M a
        # multiple of 4 where scale_a goes through TMA (scale_smem: its K-block pitch is M)
        k = 272 if cfg.dtype in FP8 else 264
        m = 260 if getattr(cfg, "scale_smem", False) else 257
        a, b = operands(torch, cfg.dtype, m, 264, k, None, cfg.b_type)
        c = torch.empty((m, 264), device="cuda", dtype=self.c_type(torch))
        # stream-K / split-K: the workspace's parameters (examples/gemm_sm90.py's workspace)
        self.workspaces: dict = {}
        ws = g.workspace(cfg, m, 264, 4, like=c)
        try:
            self.ck = lc.compile(
                kernel,
                *g.kernel_args(cfg, a, b, c, self.scale_args(m, 264, k), ws),
                block=cfg.threads,
                index_bitwidth=32,
                cache=False,
                **options,
            )
        finally:
            if build.get("asm") == "nvjitlink":
                os.environ.pop("LAYOUTC_PTXAS", None)
                cubin.find_ptxas.cache_clear()
        self.notes = [n for n in self.ck.products.notes if "setmaxnreg" in n]
        self.kernel = self.ck.load()
        self.slots: int | None = None  # resident blocks, known after the first launch
        # What a call launches with, worked out once (the configuration's properties cost
        # microseconds per call, which a direct call's first launch exposes): the block, the
        # dynamic shared memory, and the grid per output shape (once the slots are known).
        self.threads = cfg.threads
        self.smem = cfg.smem_bytes()
        self.grids: dict[tuple[int, int], tuple[int, ...]] = {}

    def scales_for(self, m: int, n: int, k: int = 0) -> tuple:
        """The scales of an ``m x n`` C (K = ``k``) as ``torch._scaled_mm`` takes them: the
        per-tensor 0-d tensors (or floats), with ``scales=row`` f32 ``scale_a`` (M, 1) and
        ``scale_b`` (1, N), random in [0.5, 1.5) and [0.25, 1.25), with ``scales=block``
        ``scale_a`` (M, K/128) M-major and ``scale_b`` (N/128, K/128) alike; made once per
        shape."""
        if self.cfg.scales not in ("row", "block"):
            return self.scales
        key = (m, n, k) if self.cfg.scales == "block" else (m, n)
        if key not in self.rows:
            torch = self.torch
            gen = torch.Generator(device="cuda").manual_seed(m * 31 + n + 7 * k)
            if self.cfg.scales == "block":
                kb, nb = -(-k // 128), -(-n // 128)
                sa = torch.rand((m, kb), device="cuda", generator=gen) + 0.5
                sa = sa.t().contiguous().t()
                sb = torch.rand((nb, kb), device="cuda", generator=gen) + 0.25
            else:
                sa = torch.rand((m, 1), device="cuda", generator=gen) + 0.5
                sb = torch.rand((1, n), device="cuda", generator=gen) + 0.25
            self.rows[key] = ((sa, sb), self.g.scale_args(self.cfg, sa, sb))
        return self.rows[key][0]

    def scale_args(self, m: int, n: int, k: int = 0) -> tuple:
        """The kernel's scale arguments for an ``m x n`` C (K = ``k``)."""
        if self.cfg.scales in ("row", "block"):
            self.scales_for(m, n, k)
            return self.rows[(m, n, k) if self.cfg.scales == "block" else (m, n)][1]
        return self.fixed

    def reference(self, a: Any, b: Any) -> Any:
        """The float64 product the kernel approximates: the scales times A @ B.T, with block
        scales the product of the dequantized inputs."""
        torch = self.torch
        m, n, k = a.shape[0], b.shape[0], a.shape[1]
        if self.cfg.scales == "block":
            sa, sb = self.scales_for(m, n, k)
            ks = torch.arange(k, device="cuda") // 128
            ad = a.double() * sa.double()[:, ks]
            bd = b.double() * sb.double()[torch.arange(n, device="cuda") // 128][:, ks]
            return ad @ bd.t()
        return self.factor_for(m, n) * (a.double() @ b.double().t())

    def factor_for(self, m: int, n: int) -> Any:
        """What the reference multiplies A @ B by (a float, or the (M, N) row-wise factors)."""
        if self.cfg.scales == "row":
            sa, sb = self.scales_for(m, n)
            return sa.double() * sb.double()
        return self.factor

    def c_type(self, torch: Any) -> Any:
        return {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[
            self.cfg.c_dtype
        ]

    def __call__(self, a: Any, b: Any, c: Any) -> None:
        if self.cfg.decomposition != "data_parallel":  # every SM, and the workspace
            scales = self.scale_args(*c.shape, a.shape[1])
            self.g.gemm(self.ck, self.cfg, a, b, c, scales, self.sms, self.workspaces)
            return
        shape = c.shape
        grid = self.grids.get(shape)
        if grid is None:
            grid = self.cfg.grid(*shape, self.slots, balanced=self.balanced)
            if self.slots is not None:
                self.grids[shape] = grid
        scales = (
            self.fixed
            if self.cfg.scales not in ("row", "block")
            else self.scale_args(*shape, a.shape[1])
        )
        self.ck(a, b, c, *scales, grid=grid, block=self.threads, smem=self.smem)
        if self.slots is None:  # after the first launch (which set the smem limit)
            self.slots = self.resident_blocks()

    def resident_blocks(self) -> int:
        """Blocks the persistent grid may have: one per SM, or with clusters as many whole
        clusters as fit at once (``cuOccupancyMaxActiveClusters``: SMs of a GPC that cannot
        take a whole cluster stay idle; a grid of one block per SM would run a second wave)."""
        from layoutc.runtime import cuda_driver as cd

        cl = self.cfg.cluster_blocks
        if cl == 1:
            return self.sms
        drv = cd.api()
        config = drv.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = cl * (self.sms // cl), 1, 1
        config.blockDimX, config.blockDimY, config.blockDimZ = self.cfg.threads, 1, 1
        config.sharedMemBytes = self.cfg.smem_bytes()
        config.numAttrs = 0
        n = cd.check(drv.cuOccupancyMaxActiveClusters(self.kernel.function, config), "clusters")
        return cl * int(n)

    def resources(self) -> str:
        from layoutc.runtime import cuda_driver as cd

        k = self.kernel
        regs = k.attribute("NUM_REGS")
        local = k.attribute("LOCAL_SIZE_BYTES")
        smem = k.attribute("SHARED_SIZE_BYTES") + self.cfg.smem_bytes()
        occ = cd.check(
            cd.api().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                k.function, self.cfg.threads, self.cfg.smem_bytes()
            ),
            "occupancy",
        )
        return f"{regs:>4} {local:>5} {smem // 1024:>4}K {occ:>3}"


def check(ours: Ours, torch: Any, shapes: list[tuple[int, int, int]]) -> list[str]:
    out = []
    for m, n, k in shapes:
        gen = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
        a, b = operands(torch, ours.cfg.dtype, m, n, k, gen, ours.cfg.b_type)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=ours.c_type(torch))
        ours(a, b, c)
        torch.cuda.synchronize()
        ref = ours.reference(a, b)
        got = c.double()
        unwritten = int(torch.isnan(got).sum())
        err = ((got - ref).norm() / ref.norm()).item()
        limit = {"f32": 1e-5, "bf16": 1e-2, "f16": 2e-3}[ours.cfg.c_dtype]
        if ours.cfg.dtype in FP8:  # the FP8 tensor cores add with about 14 bits
            limit = max(limit, 1e-3)
        ok = unwritten == 0 and err < limit
        out.append(f"{m}x{n}x{k}: rel err {err:.2e} {'ok' if ok else 'FAIL'}")
        if not ok:
            out[-1] += f" ({unwritten} unwritten)"
    return out


def timed(
    torch: Any, fns: list, sets: list, warmup: int = 3, reps: int = 15, graph_first: bool = False
) -> list:
    """Per function of ``fns``: median seconds per launch (each launch takes the next input
    set), from CUDA events around batches of direct calls and around replays of a CUDA graph
    of the same batch (no host launch cost: the GPU's own time), and the host's seconds per
    direct call (the median over ``reps`` batches, each on an idle GPU). The functions'
    batches alternate within each repetition, so ours and cuBLAS see the same clocks (a
    power-limited H100 drifts by 10% over a run). The graph replays are timed after the
    direct calls (``graph_first``: before them, to tell a ratio that moves with the launch
    mode from one that moves with the GPU's warming up)."""
    import time

    per_batch = len(sets) * max(1, 8 // len(sets))

    def batch(fn: Any) -> Any:
        def run() -> None:
            for i in range(per_batch):
                fn(*sets[i % len(sets)])

        return run

    for fn in fns:
        for i in range(warmup * len(sets)):
            fn(*sets[i % len(sets)])
    host_times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for j, fn in enumerate(fns):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            batch(fn)()
            host_times[j].append((time.perf_counter() - t0) / per_batch)
    torch.cuda.synchronize()
    host = [statistics.median(t) for t in host_times]

    def events(runs: list) -> list:
        times: list[list[float]] = [[] for _ in runs]
        for _ in range(reps):
            for j, run in enumerate(runs):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                run()
                end.record()
                end.synchronize()
                times[j].append(start.elapsed_time(end) / 1e3 / per_batch)
        return [statistics.median(t) for t in times]

    graphs = [float("nan")] * len(fns)
    replays = []
    try:
        for fn in fns:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream):
                batch(fn)()
            torch.cuda.current_stream().wait_stream(stream)
            graph.replay()
            torch.cuda.synchronize()
            replays.append(graph.replay)
    except Exception as e:  # capture refused: the direct numbers stand alone
        print(f"  (no CUDA graph: {type(e).__name__}: {str(e)[:120]})", flush=True)
        replays = []
    if graph_first and replays:
        graphs = events(replays)
    direct = events([batch(fn) for fn in fns])
    if not graph_first and replays:
        graphs = events(replays)
    return list(zip(direct, graphs, host))


def fp8_reference(torch: Any, ours: Ours, first: tuple) -> tuple[Any, str]:
    """cuBLAS's FP8 GEMM for the same operands (``torch._scaled_mm`` with the same scales as
    0-d f32 device tensors, unit ones for an unscaled row, the same (M, 1) and (1, N) tensors
    for row-wise scales; C in ``cfg.c_dtype``), or (None, why not)."""
    cfg = ours.cfg
    scaled_mm = getattr(torch, "_scaled_mm", None)
    if scaled_mm is None:
        return None, "no cuBLAS FP8 reference: this torch has no torch._scaled_mm"
    sa, sb = (
        (torch.tensor(x, device="cuda") for x in SCALES)
        if cfg.scales
        else (torch.ones((), device="cuda", dtype=torch.float32),) * 2
    )
    if cfg.scales == "row":
        sa, sb = ours.scales_for(*first[2].shape)
    out = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[cfg.c_dtype]
    what = "cuBLAS"
    if cfg.scales == "block":  # BlockWise1x128 (M, K/128) x BlockWise128x128 (K/128, N/128)
        sa, sb = ours.scales_for(*first[2].shape, first[0].shape[1])
        sb = sb.t()
        what = "torch._scaled_mm block-wise (1x128 x 128x128)"

    def theirs(a: Any, b: Any, c: Any) -> None:
        scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=out)

    try:
        theirs(*first)
        torch.cuda.synchronize()
        if cfg.scales == "block":  # the same scales: the same product
            got = torch.empty_like(first[2])
            got.copy_(scaled_mm(first[0], first[1].t(), scale_a=sa, scale_b=sb, out_dtype=out))
            ref = ours.reference(first[0], first[1])
            err = ((got.double() - ref).norm() / ref.norm()).item()
            what += f" (its rel err {err:.1e})"
    except Exception as e:  # e.g. cuBLAS has no e5m2 x e5m2 GEMM, or no block-wise scales
        if cfg.scales != "block":
            return None, f"no cuBLAS FP8 reference: torch._scaled_mm failed: {str(e)[:160]}"
        sa = sb = torch.ones((), device="cuda", dtype=torch.float32)
        why = f"{type(e).__name__}: {str(e)[:120]}"

        def theirs(a: Any, b: Any, c: Any) -> None:
            scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=out)

        try:
            theirs(*first)
            torch.cuda.synchronize()
        except Exception as e2:
            return None, f"no cuBLAS FP8 reference: torch._scaled_mm failed: {str(e2)[:160]}"
        what = f"cuBLAS per-tensor FP8 (torch._scaled_mm refused block-wise scales: {why})"
    return theirs, what


def cublas_for(torch: Any, cfg: Any) -> Any:
    """cuBLAS (``torch.mm``) writing C as ``cfg``'s rows compare with it (not FP8)."""
    if cfg.dtype == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
    if cfg.c_dtype == "f32" and cfg.dtype != "tf32":

        def theirs(a: Any, b: Any, c: Any) -> None:
            torch.mm(a, b.t(), out_dtype=torch.float32)
    else:

        def theirs(a: Any, b: Any, c: Any) -> None:
            torch.mm(a, b.t(), out=c)

    return theirs


def side_by_side(g: Any, torch: Any, args: Any, shapes: list) -> int:
    """``--together``: per shape and (input, C) type, every configuration's batch and
    cuBLAS's alternate within each repetition (``timed``), so all see the same clocks; the
    rows give each against cuBLAS and against the group's first configuration."""
    built: list[tuple[str, Any, list]] = []
    checks = [parse_shape(s) for s in args.check.split(",") if s]
    for cfg, build, cfg_shapes in plan(g, args.configs, shapes):
        label = build_label(cfg, build)
        if cfg.dtype in FP8:
            print(f"{label}: --together times torch.mm's types only", flush=True)
            continue
        ours = Ours(g, cfg, torch, build)
        for line in check(ours, torch, checks):
            print(f"{label}: {line}", flush=True)
        built.append((label, ours, cfg_shapes))
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows = []
    for m, n, k in shapes:
        groups: dict[tuple[str, str], list] = {}
        for label, ours, cfg_shapes in built:
            if (m, n, k) in cfg_shapes:
                groups.setdefault((ours.cfg.dtype, ours.cfg.c_dtype), []).append((label, ours))
        for (dtype, _), members in groups.items():
            first = members[0][1]
            per_set = (m + n) * k * (4 if dtype == "tf32" else 2)
            gen = torch.Generator(device="cuda").manual_seed(m + n + k)
            sets = []
            for _ in range(max(2, -(-3 * l2 // per_set))):
                a, b = operands(torch, dtype, m, n, k, gen)
                sets.append((a, b, torch.empty((m, n), device="cuda", dtype=first.c_type(torch))))
            fns = [ours for _, ours in members] + [cublas_for(torch, first.cfg)]
            times = timed(torch, fns, sets, reps=args.reps, graph_first=args.graph_first)
            (ref, ref_g, _), (base, base_g, _) = times[-1], times[0]
            flops = 2 * m * n * k
            for (label, _), (mine, mine_g, _) in zip(members, times):
                row = (
                    f"{label:<56} {m}x{n}x{k:<5} {flops / mine / 1e12:>7.1f} "
                    f"{flops / ref / 1e12:>7.1f} {ref / mine:>6.3f}x {ref_g / mine_g:>6.3f}x "
                    f"{base / mine:>6.3f}x {base_g / mine_g:>6.3f}x"
                )
                add_row(rows, row)
            del sets
            torch.cuda.empty_cache()
    header = (
        f"{'kernel':<56} {'MxNxK':<15} TFLOP/s  cuBLAS  ratio  graph   vs first (direct, graph)"
    )
    return table(torch, header, rows)


#: The fused rows of ``--epilogue``: (label, Epilogue fields, torch's call on (a, b, bias,
#: c)). bias: per column of D (N values, D's type); C: beta = 1.
FUSED = (
    ("mm", {}, lambda torch, a, b, bias, c: torch.mm(a, b.t())),
    (
        "bias+gelu",
        {"bias": "n", "bias_dtype": "out", "act": "gelu"},
        lambda torch, a, b, bias, c: torch._addmm_activation(bias, a, b.t(), use_gelu=True),
    ),
    (
        "bias",
        {"bias": "n", "bias_dtype": "out"},
        lambda torch, a, b, bias, c: torch.addmm(bias, a, b.t()),
    ),
    ("beta=1,C", {"source": True}, lambda torch, a, b, bias, c: torch.addmm(c, a, b.t())),
)


class Fused:
    """One fused-epilogue configuration, compiled once, called as ``(a, b, bias, c, d)``."""

    def __init__(self, g: Any, torch: Any, cfg: Any, first: tuple, sms: int):
        import layoutc as lc

        self.g, self.cfg, self.sms, self.workspaces = g, cfg, sms, {}
        a, b, _, _, d = first
        m, n = d.shape
        args = g.kernel_args(
            cfg, a, b, d, (), g.workspace(cfg, m, n, sms, like=d), self.epi(*first)
        )
        self.ck = lc.compile(g.make_gemm(cfg), *args, block=cfg.threads, index_bitwidth=32)

    def epi(self, a: Any, b: Any, bias: Any, c: Any, d: Any) -> tuple:
        op = self.cfg.epilogue_op
        return self.g.epilogue_args(
            self.cfg,
            1.0,
            1.0 if op.source else 0.0,
            c if op.source else None,
            bias if op.bias else None,
        )

    def __call__(self, a: Any, b: Any, bias: Any, c: Any, d: Any) -> None:
        epi = self.epi(a, b, bias, c, d)
        self.g.gemm(self.ck, self.cfg, a, b, d, sms=self.sms, workspaces=self.workspaces, epi=epi)


def fused_main(args: Any, g: Any, torch: Any) -> int:
    """``--epilogue``: the fused epilogues against torch's cuBLASLt calls (module docstring)."""
    dtype = args.epilogue_dtype
    t = torch_type(torch, dtype)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    shapes = [parse_shape(x) for x in args.shapes.split(",") if x]
    F = torch.nn.functional
    overrides = {}
    for item in filter(None, args.epilogue_fields.split(",")):
        key, value = item.split("=")
        overrides[key] = field_value(key, value)
    rows = []
    for m, n, k in shapes:
        n_sets = max(2, -(-3 * l2 // ((m + n) * k * 2)))
        gen = torch.Generator(device="cuda").manual_seed(m + n + k)
        sets = []
        for _ in range(n_sets):
            a, b = operands(torch, dtype, m, n, k, gen)
            bias = torch.randn(n, device="cuda", generator=gen).to(t)
            c = torch.randn((m, n), device="cuda", generator=gen).to(t)
            sets.append((a, b, bias, c, torch.empty((m, n), device="cuda", dtype=t)))
        for label, fields, call in FUSED:
            cfg = g.tuned(
                dtype, (m, n, k), c_dtype=dtype, epilogue_op=g.Epilogue(**fields), **overrides
            )
            op = cfg.epilogue_op
            ours = Fused(g, torch, cfg, sets[0], sms)

            def theirs(a: Any, b: Any, bias: Any, c: Any, d: Any, call: Any = call) -> None:
                call(torch, a, b, bias, c)

            a, b, bias, c, d = sets[0]
            ours(*sets[0])
            x = a.double() @ b.double().t()
            x = x + c.double() if op.source else x
            x = x + bias.double()[None, :] if op.bias else x
            ref = F.gelu(x, approximate="tanh") if op.act == "gelu" else x
            got = call(torch, a, b, bias, c)
            err = ((d.double() - ref).norm() / ref.norm()).item()
            err_t = ((got.double() - ref).norm() / ref.norm()).item()
            ok = not torch.isnan(d).any().item() and err < 1e-2
            fns = [ours, theirs]
            old = None
            old_cfg = ab_config(g, cfg, args.epilogue_ab) if args.epilogue_ab else cfg
            if old_cfg.name != cfg.name:  # the kernel with the --epilogue-ab fields
                old = Fused(g, torch, old_cfg, sets[0], sms)
                old(*sets[0])
                old_err = ((d.double() - ref).norm() / ref.norm()).item()
                ok = ok and not torch.isnan(d).any().item() and old_err < 1e-2
                fns.append(old)
            times = timed(torch, fns, sets, reps=args.reps)
            (mine, mine_g, _), (tm, tm_g, _) = times[:2]
            flops = 2 * m * n * k
            row = (
                f"{label:<10} {cfg.name:<58} {m}x{n}x{k:<5} {err:.1e} {err_t:.1e} "
                f"{'ok' if ok else 'FAIL'} {rate_columns(flops, mine, tm, mine_g, tm_g)}"
            )
            add_row(rows, row)
            if old is not None:
                (om, om_g, _) = times[2]
                add_row(
                    rows,
                    f"{label + ' old':<10} {old.cfg.name:<58} {m}x{n}x{k:<5} {old_err:.1e} "
                    f"{err_t:.1e} {'ok' if ok else 'FAIL'} {rate_columns(flops, om, tm, om_g, tm_g)}",
                )
        del sets
        torch.cuda.empty_cache()
    return table(torch, FUSED_HEADER, rows)


FUSED_HEADER = (
    f"{'epilogue':<10} {'kernel':<58} {'MxNxK':<15} relerr torch    TFLOP/s  torch  ratio  "
    "graph: TFLOP/s torch  ratio"
)
ROWS_HEADER = (
    f"{'kernel':<56} {'MxNxK':<15} regs  lmem smem occ grid  TFLOP/s  cuBLAS  ratio  "
    "graph: TFLOP/s cuBLAS  ratio  host-us"
)


def add_row(rows: list[str], row: str) -> None:
    """A result row: printed now, and kept for the table at the end."""
    rows.append(row)
    print(row, flush=True)


def table(torch: Any, header: str, rows: list[str]) -> int:
    """The results again as one table under the GPU's name and clocks (exit status 0)."""
    print()
    print(gpu_header(torch))
    print(header)
    print("\n".join(rows))
    return 0


TOGETHER_HELP = (
    "per shape and input type, time all configurations and cuBLAS in one alternating loop "
    "(differences of a percent between configurations, which the clock's drift between "
    "separately timed rows hides)"
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4096,8192,8192x4096x6144,4000")
    p.add_argument("--configs", default=";".join(DEFAULT_CONFIGS), help="';'-separated")
    p.add_argument("--check", default="4000,1000x520x264,256x384x136")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--together", action="store_true", help=TOGETHER_HELP)
    p.add_argument(
        "--graph-first",
        action="store_true",
        help="with --together: time the CUDA-graph replays before the direct calls",
    )
    p.add_argument("--epilogue", action="store_true", help="the fused epilogues (FUSED)")
    p.add_argument("--epilogue-dtype", default="bf16", choices=("bf16", "f16"))
    p.add_argument(
        "--epilogue-fields",
        default="",
        help="GemmConfig fields over tuned()'s choice, e.g. schedule=pingpong,bn=192",
    )
    p.add_argument(
        "--epilogue-ab",
        nargs="?",
        const=EPILOGUE_AB,
        default="",
        metavar="FIELDS",
        help="--epilogue: also time each fused row's kernel with these GemmConfig or Epilogue "
        f"fields in the same alternating loop (alone: {EPILOGUE_AB}, the kernel before the "
        "fast tanh, the prefetch and the staged bias)",
    )
    args = p.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return 0
    g = _gemm_module()
    if args.epilogue:
        print(gpu_header(torch), flush=True)
        return fused_main(args, g, torch)
    if args.configs == "streamk":
        args.configs = ";".join(STREAMK_CONFIGS)
    if args.shapes == "streamk":
        args.shapes = STREAMK_SHAPES
    print(gpu_header(torch), flush=True)
    shapes = [parse_shape(s) for s in args.shapes.split(",") if s]
    if args.together:
        return side_by_side(g, torch, args, shapes)
    rows = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for cfg, build, cfg_shapes in plan(g, args.configs, shapes):
        label = build_label(cfg, build)
        try:
            ours = Ours(g, cfg, torch, build)
        except Exception as e:  # a configuration that does not build: its row says why
            print(f"{label}: build failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        for note in ours.notes:
            print(f"{label}: {note}", flush=True)
        checks = [parse_shape(s) for s in args.check.split(",") if s]
        if cfg.dtype in FP8:  # TMA's 16-byte row pitch: K a multiple of 16 one-byte elements
            checks = [(m, n, -(-k // 16) * 16) for m, n, k in checks]
        for line in check(ours, torch, checks):
            print(f"{label}: {line}", flush=True)
        for m, n, k in cfg_shapes:
            elem = {"tf32": 4, "f8e4m3": 1, "f8e5m2": 1}.get(cfg.dtype, 2)
            per_set = (m + n) * k * elem
            n_sets = max(2, -(-3 * l2 // per_set))
            gen = torch.Generator(device="cuda").manual_seed(m + n + k)
            sets = []
            for _ in range(n_sets):
                a, b = operands(torch, cfg.dtype, m, n, k, gen, cfg.b_type)
                sets.append((a, b, torch.empty((m, n), device="cuda", dtype=ours.c_type(torch))))
            reference = "cuBLAS"
            if cfg.dtype in FP8:
                theirs, reference = fp8_reference(torch, ours, sets[0])
            elif cfg.dtype == "tf32":
                torch.backends.cuda.matmul.allow_tf32 = True

                def theirs(a: Any, b: Any, c: Any) -> None:
                    torch.mm(a, b.t(), out=c)
            elif cfg.c_dtype == "f32":

                def theirs(a: Any, b: Any, c: Any) -> None:
                    torch.mm(a, b.t(), out_dtype=torch.float32)
            else:

                def theirs(a: Any, b: Any, c: Any) -> None:
                    torch.mm(a, b.t(), out=c)

            if theirs is not None and reference != "cuBLAS":
                print(f"{label}: against {reference}", flush=True)
            if theirs is None:  # no FP8 reference: ours alone, the reference columns NaN
                print(f"{label}: {reference}", flush=True)
                mine, mine_g, host = timed(torch, [ours], sets, reps=args.reps)[0]
                ref = ref_g = float("nan")
            else:
                (mine, mine_g, host), (ref, ref_g, _) = timed(
                    torch, [ours, theirs], sets, reps=args.reps
                )
            res = (
                ours.resources()
                + f" {ours.cfg.grid(m, n, ours.slots or ours.sms, ours.balanced, k)[0]:>4}"
            )
            flops = 2 * m * n * k
            rate = rate_columns(flops, mine, ref, mine_g, ref_g)
            add_row(rows, f"{label:<56} {m}x{n}x{k:<5} {res} {rate} {host * 1e6:>6.0f}")
            del sets
            torch.cuda.empty_cache()
    return table(torch, ROWS_HEADER, rows)


if __name__ == "__main__":
    sys.exit(main())
