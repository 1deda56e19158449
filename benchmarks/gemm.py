"""GEMM benchmark: layoutc's tensor-core GEMMs against cuBLAS (torch), checked and timed in one
process.

    python benchmarks/gemm.py                        # the examples at 4096^3 and 8192^3
    python benchmarks/gemm.py --sweep                # + the best variant per type, by lc.autotune
    python benchmarks/gemm.py --configs tf32-128x128x32-s4-w2x2-smem,f16-128x256x32-s3-w2x4-smem
    python benchmarks/gemm.py --sizes 4096 --only f16 --index-bitwidth 32,64
    python benchmarks/gemm.py --device cpu --quick   # a dry run of this script on the CPU runtime
    python benchmarks/gemm.py --only KKR --ragged-sizes 4000,8191 --index-bitwidth 32,64

Needs an NVIDIA GPU and torch with CUDA. Rows:

- ``sm80``: examples/gemm_tf32_sm80.py's builder (examples/gemm_f16_sm80.py uses the same one)
  for tf32, f16 and bf16: ``C = A @ B.T`` with A (M, K) and B (N, K) row-major (K-major) and
  C (M, N) f32; against ``torch.matmul(a, b.t())`` with TF32 allowed (tf32 rows) and
  ``torch.mm(a, b.t(), out_dtype=torch.float32)`` (f16/bf16 inputs, f32 accumulation and output;
  where this torch has no ``out_dtype``, the f16/bf16-output matmul, said in the row);
- ``sm90``: examples/gemm_sm90.py's builder (wgmma m64nNk16 / m64nNk8 from shared memory,
  cp.async pipeline or, ``-tma-`` rows, the warp-specialized persistent TMA kernel; f16/bf16/
  tf32 in, f32 out) on a Hopper GPU (``--sm90 on|off`` overrides), same baselines as the sm80
  rows of the same type (benchmarks/gemm_sm90_ws.py has the TMA kernel's own table: C in the
  input type, non-square shapes, residues, CUDA graphs);
- ``sm80 ...-KKR`` / ``-MNC``: the same builder at ragged sizes (``--ragged-sizes``, 4000 and
  8191 by default: edge CTAs, or with K ragged all CTAs, run the predicated pipeline) with
  K-major operands and row-major C (``KKR``) or M-major A, N-major B and column-major C
  (``MNC``), at each index width (the builder's own choice is ``auto``: 32 bits here);
- the teaching examples gemm_mma_tf32, gemm_mma_f16 and gemm_fma (4096 only: they are slow).

Each row: fresh random inputs (rounded to tf32 for the tf32 rows, so that truncating and
rounding tensor cores agree), C poisoned with NaN, one launch checked against a float64
reference (relative 2-norm error at most 1e-4: FP32 accumulation), then CUDA-event medians of
back-to-back batches of ours and torch's (gpu.py's ``bench``). A row that fails (compile, check,
timing) says FAILED with its reason and does not stop the others. Registers per thread, local
memory (spills), shared memory and resident CTAs per SM come from the loaded cubin. The table
comes last: TFLOP/s and the ratio to torch (above 1: faster). ``--index-bitwidth`` compiles
with 32-bit index arithmetic (the sizes here fit) or 64-bit (the driver's default) or both.
With ``$OUT`` set, the log goes to ``$OUT/gemm_bench.log``, the rows to ``$OUT/gemm_bench.json``
and each kernel's PTX to ``$OUT/ptx/``. The default run (5 kernels x 2 sizes x 2 index widths,
and the teaching examples) should take one to two minutes on an H200. ``--sweep`` tunes at
every size with the last index width only (32 by default): on an H200 with 16 host cores, at
4096 the tf32 group (10 tilings) tuned in 8.0 s, f16 (11) in 8.5 s, bf16 (1) in 2.3 s, compiles
included; the winners were tf32-128x256x32-s3-w2x4-smem (0.60x cuBLAS), f16-128x256x64-s3-w2x4-
smem-r3 (0.66x) and bf16-128x128x64-s3-w2x2-smem (0.65x).

``--sweep`` tunes: per element type and size, ``lc.autotune`` over the builder
(``make_gemm``) with the default configurations of that type and the ``SWEEP`` variants
compiles them all in parallel (a process per core), checks each one's output against float64
(C poisoned first), times each (CUDA events, median) and keeps the fastest; its table of every
variant is logged, and the winner gets a full row (``tuned-<config>``) next to cuBLAS.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _module(name: str, path: Path) -> Any:
    """A file as a module of its own name (so no other module of that name is picked up)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


bench_gpu = _module("layoutc_benchmarks_gpu", Path(__file__).with_name("gpu.py"))
sys.path.insert(0, str(EXAMPLES))  # gemm_f16_sm80 imports its neighbour
sm80 = _module("gemm_tf32_sm80", EXAMPLES / "gemm_tf32_sm80.py")
sm90 = _module("gemm_sm90", EXAMPLES / "gemm_sm90.py")

TOLERANCE = 1e-4  # relative 2-norm error against float64 on the same (tf32/f16/bf16) inputs


def config_from_name(name: str) -> Any:
    """``tf32-128x128x32-s3-w2x2-smem`` -> GemmConfig (GemmConfig.name's spelling)."""
    try:
        dtype, tile, stages, warps, epilogue, *raster = name.split("-")
        bm, bn, bk = (int(x) for x in tile.split("x"))
        wm, wn = (int(x) for x in warps[1:].split("x"))
        (r,) = [int(raster[0][1:])] if raster else [0]
        cfg = sm80.GemmConfig(dtype, bm, bn, bk, int(stages[1:]), wm, wn, epilogue, r)
    except ValueError:
        raise ValueError(
            f"bad configuration {name!r}: expected DTYPE-BMxBNxBK-sSTAGES-wWMxWN-EPILOGUE[-rR], "
            "e.g. tf32-128x128x32-s3-w2x2-smem or tf32-128x128x32-s3-w2x2-smem-r3"
        ) from None
    cfg.check()
    return cfg


# Ragged sizes (no multiple of any tile: every edge CTA runs the predicated pipeline, and with
# K ragged every CTA does) and the other majors (A M-major, B N-major, C column-major), at both
# index widths: (configuration, majors as in tests/examples/test_gemm_general.py)
RAGGED = [
    (sm80.GemmConfig("tf32"), "KKR"),
    (sm80.GemmConfig("f16", bk=64), "KKR"),
    (sm80.GemmConfig("tf32"), "MNC"),
    (sm80.GemmConfig("f16", bk=64), "MNC"),
]
RAGGED_SIZES = "4000,8191"

DEFAULTS = [
    sm80.GemmConfig("tf32"),
    sm80.GemmConfig("tf32", raster=3),
    sm80.GemmConfig("f16", bk=64),
    sm80.GemmConfig("f16", bk=64, raster=3),
    sm80.GemmConfig("bf16", bk=64),
]

SWEEP = [
    "tf32-128x128x32-s4-w2x2-smem",
    "tf32-128x128x16-s4-w2x2-smem",
    "tf32-128x128x32-s3-w2x2-direct",
    "tf32-128x256x32-s3-w2x4-smem",
    "tf32-256x128x32-s3-w4x2-smem",
    "tf32-128x128x32-s3-w2x4-smem",
    "f16-128x128x32-s3-w2x2-smem",
    "f16-128x128x32-s4-w2x2-smem",
    "f16-128x128x64-s4-w2x2-smem",
    "f16-128x256x32-s3-w2x4-smem",
    "f16-256x128x32-s3-w4x2-smem",
    "f16-128x128x64-s3-w2x2-direct",
    "tf32-128x128x32-s3-w2x2-smem-r2",
    "f16-128x128x64-s3-w2x2-smem-r2",
    "f16-128x128x64-s4-w2x2-smem-r3",
    "f16-128x256x64-s3-w2x4-smem-r3",
    "tf32-128x256x32-s3-w2x4-smem-r3",
]

# examples/gemm_sm90.py (wgmma, sm_90a): run where the GPU is a Hopper (or in a CPU dry run)
DEFAULTS_SM90 = [
    sm90.GemmConfig("f16", mma_in_flight=0),
    sm90.GemmConfig("f16"),
    sm90.GemmConfig("f16", stages=3),  # 96 KiB: two CTAs per SM
    sm90.GemmConfig("bf16", stages=3),
    sm90.GemmConfig("f16", bn=256, stages=3),
    sm90.GemmConfig("f16", bn=256, stages=4),
    sm90.GemmConfig("bf16", bn=256, stages=4),
    sm90.GemmConfig("tf32", bk=32, stages=3),
    sm90.GemmConfig("tf32", bn=256, bk=32, stages=4),
    # the warp-specialized persistent TMA kernel (benchmarks/gemm_sm90_ws.py times it with C in
    # the input type, shapes with residues and CUDA graphs)
    # (examples/gemm_sm90.py's tuned configurations, with f32 C as the rows above)
    sm90.tuned("bf16", c_dtype="f32"),
    sm90.tuned("f16", c_dtype="f32"),
    sm90.tuned("tf32"),
]

TEACHING = {  # example stem -> (kernel's dtype, torch baseline's name)
    "gemm_mma_tf32": "tf32",
    "gemm_mma_f16": "f16",
    "gemm_fma": "f32",
}


@dataclass
class Row:
    name: str
    dtype: str
    size: int
    index_bits: int = 64
    ok: bool = False
    error: str = ""
    ours_s: float = math.nan
    torch_s: float = math.nan
    torch_name: str = ""
    rel_error: float = math.nan
    registers: int | None = None
    local_bytes: int | None = None
    smem_bytes: int | None = None
    ctas_per_sm: int | None = None
    compile_s: float = math.nan
    notes: list[str] = field(default_factory=list)

    @property
    def flops(self) -> int:
        return 2 * self.size**3

    def tflops(self, seconds: float) -> str:
        return "n/a" if seconds != seconds else f"{self.flops / seconds / 1e12:.1f}"

    @property
    def ratio(self) -> float:
        return self.torch_s / self.ours_s if self.ours_s == self.ours_s else math.nan


# -- inputs, references, baselines -----------------------------------------------------------------


def _torch() -> Any:
    return bench_gpu._torch()


def torch_dtype(dtype: str) -> Any:
    torch = _torch()
    return {"tf32": torch.float32, "f32": torch.float32, "f16": torch.float16}.get(
        dtype, torch.bfloat16
    )


def random_operand(shape: tuple[int, int], dtype: str, gen: Any) -> Any:
    """Standard normal values, exact in the kernel's input type (tf32: the low 13 mantissa bits
    cleared, so that tensor cores that truncate and ones that round agree)."""
    torch = _torch()
    x = torch.randn(shape, device=bench_gpu.DEVICE, generator=gen)
    if dtype == "tf32":
        return (x.view(torch.int32) & ~0x1FFF).view(torch.float32)
    return x.to(torch_dtype(dtype))


def reference(a: Any, b_nk: Any) -> Any:
    """float64 ``a @ b_nk.T`` as f32 (the exact product of the inputs, rounded once)."""
    return (a.double() @ b_nk.double().t()).float()


def relative_error(got: Any, want: Any) -> float:
    torch = _torch()
    if torch.isnan(got).any():
        return math.inf
    return ((got.double() - want.double()).norm() / want.double().norm().clamp_min(1e-30)).item()


def baseline(a: Any, b_nk: Any, dtype: str) -> tuple[Any, str]:
    """torch's call computing the same product (a zero-argument function) and its name."""
    torch = _torch()
    bt = b_nk.t()
    if dtype in ("tf32", "f32"):
        out = torch.empty(a.shape[0], b_nk.shape[0], device=a.device)
        tf32 = dtype == "tf32"

        def run() -> None:
            old = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.matmul(a, bt, out=out)
            torch.backends.cuda.matmul.allow_tf32 = old

        return run, f"matmul {'TF32' if tf32 else 'FP32'} (cuBLAS)"
    try:
        torch.mm(a[:16, :16], bt[:16, :16], out_dtype=torch.float32)

        def run_f32_out() -> None:
            torch.mm(a, bt, out_dtype=torch.float32)

        return run_f32_out, f"mm {dtype} -> f32 out (cuBLAS)"
    except (TypeError, RuntimeError):
        return (lambda: torch.matmul(a, bt)), f"matmul {dtype} -> {dtype} out (cuBLAS)"


# -- measuring ----------------------------------------------------------------------------------


def measure(
    label: str, dtype: str, size: int, bits: int, build: Any, samples: int, log: Any
) -> Row:
    """One row; any failure becomes its error (the traceback goes to the log only)."""
    row = Row(label, dtype, size, bits)
    try:
        _measure(row, build, samples, log)
    except Exception as e:
        row.ok = False
        row.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        log(traceback.format_exc(), echo=False)
    return row


def _measure(row: Row, build: Any, samples: int, log: Any) -> None:
    import layoutc as lc

    torch = _torch()
    gen = torch.Generator(device=bench_gpu.DEVICE)
    gen.manual_seed(row.size)
    if row.index_bits == 32 and row.size * row.size >= 2**31:
        raise ValueError(f"{row.size}^2 elements do not fit 32-bit indices: use 64")
    kernel, args, grid, block = build(row.size, gen)
    a, b_nk, c = args["a"], args["b_nk"], args["c"]
    call = [args[name] for name in kernel.signature.parameters]
    start = time.perf_counter()
    options = {} if bench_gpu.DEVICE == "cpu" else {"index_bitwidth": row.index_bits}
    ck = lc.compile(kernel, *call, target=bench_gpu.DEVICE, block=block, **options)
    ck.load()
    row.compile_s = time.perf_counter() - start
    if ck.ptx is not None:
        log.save(f"ptx/{row.name}-i{row.index_bits}.ptx", ck.ptx)
    ck(*call, grid=grid, block=block)
    bench_gpu._synchronize()
    _resources(row, ck, block)
    row.rel_error = relative_error(c, reference(a, b_nk))
    if not row.rel_error <= TOLERANCE:
        unwritten = int(torch.isnan(c).sum())
        row.error = f"check failed: relative error {row.rel_error:.3g} > {TOLERANCE:g}" + (
            f" ({unwritten} elements not written)" if unwritten else ""
        )
        return
    theirs, row.torch_name = baseline(a, b_nk, row.dtype)
    bound = ck.bind(tuple(call), {})
    ours = [lambda: ck.launch_bound(bound, grid, block, None, None)]
    batch = max(2, min(20, int(2e12 // row.flops)))  # batches of a few milliseconds
    if bench_gpu.DEVICE == "cpu":
        batch = 1  # the dry run: the CPU runtime emulates every mma.sync
    row.ours_s = bench_gpu.bench(ours, samples, batch)
    row.torch_s = bench_gpu.bench([theirs], samples, batch)
    row.ok = True


def _resources(row: Row, ck: Any, block: int) -> None:
    """Registers, local memory, shared memory and CTAs per SM of the loaded kernel
    (informative: absent on the CPU and where the driver cannot say)."""
    if bench_gpu.DEVICE == "cpu":
        return
    try:
        from layoutc.runtime import cuda_driver as cd

        kernel = ck.load()
        row.registers = kernel.attribute("NUM_REGS")
        row.local_bytes = kernel.attribute("LOCAL_SIZE_BYTES")
        dynamic = ck.runtime_spec.dynamic_smem
        row.smem_bytes = kernel.attribute("SHARED_SIZE_BYTES") + dynamic
        blocks = cd.check(
            cd.api().cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel.function, block, dynamic),
            "asking the occupancy calculator",
        )
        row.ctas_per_sm = int(blocks)
    except Exception as e:
        row.notes.append(f"resources unknown: {e}")


def sm80_builder(cfg: Any, majors: str = "KKR") -> Any:
    """Rows of ``make_gemm(cfg)``; ``majors``: A's contiguous mode (K or M), B's (K or N), C's
    order (R or C), as tests/examples/test_gemm_general.py spells them."""
    kernel = sm80.make_gemm(cfg)

    def operand(rows: int, cols: int, transposed: bool, gen: Any) -> Any:
        if transposed:  # the same values, stored with ``rows`` contiguous
            return random_operand((cols, rows), cfg.dtype, gen).t()
        return random_operand((rows, cols), cfg.dtype, gen)

    def build(size: int, gen: Any) -> tuple[Any, dict, Any, int]:
        m = n = size
        a = operand(m, size, majors[0] == "M", gen)
        b = operand(n, size, majors[1] == "N", gen)
        c = bench_gpu.nan((n, m)).t() if majors[2] == "C" else bench_gpu.nan((m, n))
        return kernel, {"a": a, "b": b, "b_nk": b, "c": c}, cfg.grid(m, n), cfg.threads

    return build


def sm90_builder(cfg: Any) -> Any:
    kernel = sm90.make_gemm(cfg)

    def build(size: int, gen: Any) -> tuple[Any, dict, Any, int]:
        a = random_operand((size, size), cfg.dtype, gen)
        b = random_operand((size, size), cfg.dtype, gen)
        c = bench_gpu.nan((size, size))
        sms = None
        if cfg.loads == "tma" and bench_gpu.DEVICE != "cpu":  # persistent: one block per SM
            sms = _torch().cuda.get_device_properties(0).multi_processor_count
        grid = cfg.grid(size, size, sms) if cfg.loads == "tma" else cfg.grid(size, size)
        return kernel, {"a": a, "b": b, "b_nk": b, "c": c}, grid, cfg.threads

    return build


def teaching_builder(stem: str) -> Any:
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    path = EXAMPLES / f"{stem}.py"
    example = find_examples(vars(load_source(path)), str(path))[0]
    dtype = TEACHING[stem]

    def build(size: int, gen: Any) -> tuple[Any, dict, Any, int]:
        a = random_operand((size, size), dtype, gen)
        b_kn = random_operand((size, size), dtype, gen)  # B (K, N) row-major: b_nk = b_kn.T
        c = bench_gpu.nan((size, size))
        shapes = {"a": a, "b": b_kn.t(), "c": c}
        launch = example.launch({k: bench_gpu._proxy(v) for k, v in shapes.items()})
        args = {**shapes, "b_nk": b_kn.t()}
        return example.kernel, args, launch["grid"], launch["block"]

    return build


def tuned_rows(sizes: list[int], bits: int, samples: int, only: str, log: Any) -> list[Row]:
    """``--sweep``: per element type, lc.autotune over DEFAULTS + SWEEP of that type at every
    size, then a full row for the winner. A type whose every variant fails is a FAILED row."""
    import layoutc as lc

    groups: dict[str, list[Any]] = {}
    for cfg in [*DEFAULTS, *(config_from_name(n) for n in SWEEP)]:
        if cfg not in groups.setdefault(cfg.dtype, []):
            groups[cfg.dtype].append(cfg)
    options = {} if bench_gpu.DEVICE == "cpu" else {"index_bitwidth": bits}
    torch = _torch()
    rows = []
    for dtype, cfgs in groups.items():
        if only and only not in f"tuned-{dtype}":
            continue
        want: dict[str, Any] = {}
        tuner = lc.autotune(
            configs=cfgs,
            key=["a", "b"],
            block=lambda cfg: cfg.threads,
            options=options,
            prepare=lambda meta: meta["c"].fill_(math.nan),
            check=lambda meta, want=want: relative_error(meta["c"], want["c"]) <= TOLERANCE,
        )(sm80.make_gemm)
        for size in sizes:
            gen = torch.Generator(device=bench_gpu.DEVICE)
            gen.manual_seed(size)
            a = random_operand((size, size), dtype, gen)
            b = random_operand((size, size), dtype, gen)
            c = bench_gpu.nan((size, size))
            want["c"] = reference(a, b)
            start = time.perf_counter()
            try:
                tuner(
                    a, b, c, grid=lambda m, s=size: m["config"].grid(s, s), target=bench_gpu.DEVICE
                )
            except Exception as e:
                row = Row(f"tuned-{dtype}", dtype, size, bits, error=f"{type(e).__name__}: {e}")
                log(traceback.format_exc(), echo=False)
                rows.append(row)
                continue
            log(f"tuned {dtype} at {size} in {time.perf_counter() - start:.1f} s")
            log(tuner.table())
            best = tuner.best_config(a, b, c, target=bench_gpu.DEVICE)
            row = measure(f"tuned-{best.name}", dtype, size, bits, sm80_builder(best), samples, log)
            rows.append(row)
    return rows


# -- output -------------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    head = ("kernel", "size", "idx", "regs", "local", "smem", "CTA/SM")
    head += ("layoutc", "TFLOP/s", "torch", "TFLOP/s", "ratio", "torch call")
    body = []
    for r in rows:
        cells = [r.name, str(r.size), str(r.index_bits)]
        cells.append("" if r.registers is None else str(r.registers))
        cells.append("" if r.local_bytes is None else str(r.local_bytes))
        cells.append("" if r.smem_bytes is None else f"{r.smem_bytes // 1024}K")
        cells.append("" if r.ctas_per_sm is None else str(r.ctas_per_sm))
        if r.ok:
            cells += [bench_gpu.fmt_time(r.ours_s), r.tflops(r.ours_s)]
            cells += [bench_gpu.fmt_time(r.torch_s), r.tflops(r.torch_s)]
            cells += [f"{r.ratio:.3f}x", r.torch_name]
        else:
            cells += ["FAILED", r.error[:90], "", "", "", ""]
        body.append(tuple(cells))
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    lines += [fmt.format(*b) for b in body]
    return "\n".join(lines)


def summary(rows: list[Row]) -> list[str]:
    out = []
    for dtype in ("tf32", "f16", "bf16"):
        good = [r for r in rows if r.ok and r.dtype == dtype and r.name.startswith(dtype)]
        if good:
            best = max(good, key=lambda r: r.flops / r.ours_s)
            out.append(
                f"best {dtype}: {best.name} (index {best.index_bits}-bit) at {best.size}: "
                f"{best.tflops(best.ours_s)} TFLOP/s, {best.ratio:.3f}x {best.torch_name}"
            )
    failed = [r for r in rows if not r.ok]
    if failed:
        out.append(
            f"{len(failed)} row(s) FAILED: " + ", ".join(f"{r.name}@{r.size}" for r in failed)
        )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4096,8192", help="square sizes M = N = K (comma list)")
    p.add_argument("--sweep", action="store_true", help="add the tile/stage/warp variants")
    p.add_argument(
        "--ragged-sizes",
        default=RAGGED_SIZES,
        help="sizes of the ragged/major rows (RAGGED; empty: none)",
    )
    p.add_argument("--configs", default="", help="configurations to add (GemmConfig.name)")
    p.add_argument("--only", default="", help="rows whose name contains this text")
    p.add_argument("--no-teaching", action="store_true", help="skip the teaching examples")
    p.add_argument(
        "--sm90",
        choices=("auto", "on", "off"),
        default="auto",
        help="the wgmma GEMM rows (examples/gemm_sm90.py): auto = on a Hopper GPU",
    )
    p.add_argument("--index-bitwidth", default="64,32", help="64 (the default), 32, or both")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--quick", action="store_true", help="4096 only, fewer samples")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    args = p.parse_args()
    bench_gpu.DEVICE = args.device
    log = bench_gpu.Log("gemm_bench.log")
    try:
        torch = _torch()
        if args.device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("torch reports no CUDA device")
    except Exception as e:
        log(f"gemm.py needs torch (with CUDA for --device cuda): {e}")
        return 2
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.quick:
        sizes = sizes[:1]
    if args.device == "cpu":
        sizes = [256]  # a dry run of the script: small, wall-clock timings
    samples = args.samples or (2 if args.device == "cpu" else 5 if args.quick else 15)
    bit_widths = [int(b) for b in args.index_bitwidth.split(",")]
    if args.device == "cpu":
        bit_widths = [64]  # the host code always indexes with 64 bits
    try:
        configs = [(cfg, bit_widths) for cfg in DEFAULTS]
        configs += [(config_from_name(n), bit_widths) for n in args.configs.split(",") if n]
    except ValueError as e:
        log(str(e))
        return 2
    name = torch.cuda.get_device_name() if args.device == "cuda" else "CPU (dry run)"
    log(f"device: {name}  torch {torch.__version__}  sizes {sizes}  index bits {bit_widths}")

    jobs = []
    for cfg, widths in configs:
        for size in sizes:
            for bits in widths:
                jobs.append((cfg.name, cfg.dtype, size, bits, sm80_builder(cfg)))
    ragged = [int(s) for s in args.ragged_sizes.split(",") if s]
    if args.device == "cpu" and ragged:
        ragged = [200]  # the dry run: ragged against every tile, small
    for cfg, majors in RAGGED:
        for size in ragged:
            for bits in bit_widths:
                label = f"{cfg.name}-{majors}"
                jobs.append((label, cfg.dtype, size, bits, sm80_builder(cfg, majors)))
    hopper = args.device == "cpu" or torch.cuda.get_device_capability()[0] == 9
    if args.sm90 == "on" or (args.sm90 == "auto" and hopper):
        for cfg in DEFAULTS_SM90:
            for size in sizes:
                jobs.append(
                    ("sm90-" + cfg.name, cfg.dtype, size, bit_widths[-1], sm90_builder(cfg))
                )
    if not args.no_teaching:
        for stem, dtype in TEACHING.items():
            jobs.append((stem, dtype, sizes[0], bit_widths[0], teaching_builder(stem)))
    rows = []
    started = time.perf_counter()
    for label, dtype, size, bits, build in jobs:
        if args.only and args.only not in label:
            continue
        row = measure(label, dtype, size, bits, build, samples, log)
        status = f"{row.tflops(row.ours_s)} TFLOP/s, {row.ratio:.3f}x" if row.ok else row.error
        log(f"{label} {size} i{bits}: {status} (compile {row.compile_s:.1f} s)")
        rows.append(row)
    if args.sweep:  # the variants with the last index width only (32 by default)
        rows += tuned_rows(sizes, bit_widths[-1], samples, args.only, log)
    if log.dir is not None:
        (log.dir / "gemm_bench.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    log(f"\n{len(rows)} rows in {time.perf_counter() - started:.0f} s\n")
    log(table(rows))
    log()
    for line in summary(rows):
        log(line)
    return 0 if rows and all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
