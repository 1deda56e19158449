"""Copy sweep: which configuration of a 1-D fp32 copy reaches torch's ``copy_`` bandwidth?

    python benchmarks/copy_sweep.py                  # 1 GiB fp32, every configuration
    python benchmarks/copy_sweep.py --quick          # 1/16 of the data, fewer samples
    python benchmarks/copy_sweep.py --only tiled     # names containing "tiled"
    python benchmarks/copy_sweep.py --device cpu --quick   # a dry run on the CPU runtime

Needs an NVIDIA GPU and torch with CUDA (like benchmarks/gpu.py, whose helpers it reuses).
Every configuration is a copy kernel written with the DSL the way examples/copy_1d.py is
(tiles, a thread-value layout, 128-bit accesses, staged through a register fragment), varied
along the knobs that decide a memory-bound kernel's bandwidth:

- threads per block: 128, 256, 512;
- 128-bit vectors per thread and tile: 2, 4, 8 (tile = threads x 4 floats x vectors);
- the tile's shape: *interleaved* (each of a thread's vectors is one step of a block-wide
  coalesced sweep: ``(T,(4,V)):(4,(1,4T))``, copy_1d's layout) or *blocked* (a thread's
  vectors are consecutive: ``(T,(4,V)):(4V,(1,4))``);
- one tile per block (grid = tiles) or *persistent*: a grid of 1, 2 or 4 waves of resident
  blocks (SMs x blocks per SM, from the driver's occupancy calculator) striding over the tiles
  with ``lc.range``;
- one *direct* variant that copies global to global without the register stage (src and dst
  may alias as far as the compiler knows, so each load waits for the store before it).

For each configuration, in one process with one 1 GiB source and destination: compile, launch
once on a NaN-poisoned destination and compare with the source exactly, then time it and torch's
``dst.copy_(src)`` back to back with CUDA events (warm-up, median over batches; gpu.py's
``bench``). A failing configuration is reported as FAILED with its reason and does not stop the
others. The table comes last: GB/s (bytes read + written), the ratio against the torch copy
timed next to it, registers per thread, resident blocks per SM, and the best configuration.
With ``$OUT`` set, the log goes to ``$OUT/copy_sweep.log`` and the rows to
``$OUT/copy_sweep.json``. The whole sweep takes well under 2 minutes on an H100/H200.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import layoutc as lc  # light: the compiler loads lazily


def _gpu_benchmark() -> Any:
    """benchmarks/gpu.py (bench, Log, fmt_time) as a module of its own name, so that no other
    module called ``gpu`` is picked up instead."""
    name = "layoutc_benchmarks_gpu"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("gpu.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


bench_gpu = _gpu_benchmark()

FULL_SIZE = 1 << 28  # 1 GiB of f32
MAX_THREADS_PER_SM = 2048  # Hopper; the fallback when the occupancy calculator is unavailable


@dataclass(frozen=True)
class Config:
    """One copy kernel: ``threads`` per block, ``vectors`` 128-bit vectors per thread and tile,
    the tile ``shape`` (interleaved/blocked), ``waves`` of resident blocks for a persistent grid
    (0: one tile per block), and whether the data is ``staged`` through registers."""

    threads: int
    vectors: int
    shape: str = "interleaved"
    waves: int = 0
    staged: bool = True

    @property
    def tile(self) -> int:
        return self.threads * 4 * self.vectors

    @property
    def name(self) -> str:
        kind = f"persistent{self.waves}w" if self.waves else "tiled"
        extra = "" if self.staged else "-direct"
        return f"{kind}-{self.shape}-t{self.threads}-v{self.vectors}{extra}"

    def tv(self) -> Any:
        t, v = self.threads, self.vectors
        if self.shape == "interleaved":
            return lc.make_layout((t, (4, v)), (4, (1, 4 * t)))
        return lc.make_layout((t, (4, v)), (4 * v, (1, 4)))


def configurations() -> list[Config]:
    out = [Config(t, v) for t in (128, 256, 512) for v in (2, 4, 8)]
    out += [Config(256, v, "blocked") for v in (2, 4, 8)]
    out += [Config(t, v, waves=w) for t in (256, 512) for v in (4, 8) for w in (1, 2, 4)]
    out.append(Config(256, 4, staged=False))
    return out


COPY_1D = Config(128, 2)
"""What examples/copy_1d.py uses today."""


def make_kernel(cfg: Config) -> Any:
    """The DSL kernel of one configuration (tile, layout and staging bound at definition)."""
    tile, tv, staged = cfg.tile, cfg.tv(), cfg.staged
    values = (4, cfg.vectors)

    if cfg.waves:

        @lc.kernel
        def copy_persistent(src: lc.Tensor(lc.f32, "(N):(1)"), dst: lc.Tensor(lc.f32, "(N):(1)")):
            tid = lc.thread_idx.x
            frag = lc.make_fragment(values, lc.f32)  # the register stage, reused every tile
            for t in lc.range(lc.block_idx.x, lc.size(src) // tile, lc.grid_dim.x):
                tS = lc.partition_tv(lc.local_tile(src, (tile,), (t,)), tv, tid)
                tD = lc.partition_tv(lc.local_tile(dst, (tile,), (t,)), tv, tid)
                lc.copy(tS, frag)
                lc.copy(frag, tD)

        return copy_persistent

    @lc.kernel
    def copy_tiled(src: lc.Tensor(lc.f32, "(N):(1)"), dst: lc.Tensor(lc.f32, "(N):(1)")):
        bid, tid = lc.block_idx.x, lc.thread_idx.x
        tS = lc.partition_tv(lc.local_tile(src, (tile,), (bid,)), tv, tid)
        tD = lc.partition_tv(lc.local_tile(dst, (tile,), (bid,)), tv, tid)
        if staged:  # static: a Python bool of the configuration
            frag = lc.make_fragment_like(tS)
            lc.copy(tS, frag)
            lc.copy(frag, tD)
        else:
            lc.copy(tS, tD)

    return copy_tiled


@dataclass
class Row:
    name: str
    ok: bool = False
    error: str = ""
    grid: int = 0
    ours_s: float = math.nan
    torch_s: float = math.nan
    registers: int | None = None
    blocks_per_sm: int | None = None
    vector_bits: list[int] | None = None
    compile_s: float = math.nan

    def gbps(self, seconds: float, nbytes: int) -> str:
        return "n/a" if seconds != seconds else f"{nbytes / seconds / 1e9:.0f}"

    @property
    def ratio(self) -> float:
        return self.torch_s / self.ours_s if self.ours_s == self.ours_s else math.nan


def _occupancy(ck: Any, threads: int) -> tuple[int | None, int | None]:
    """(registers per thread, resident blocks per SM) from the driver; (None, None) on the
    CPU or when the driver cannot say."""
    if bench_gpu.DEVICE == "cpu":
        return None, None
    try:
        from layoutc.runtime import cuda_driver as cd
        from layoutc.runtime.cuda_module import function_attribute

        fn = ck.load().function
        regs = function_attribute(fn, "NUM_REGS")
        drv = cd.api()
        blocks = cd.check(
            drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(fn, threads, 0),
            "asking the occupancy calculator",
        )
        return regs, int(blocks)
    except Exception:  # informative only: the sweep still runs
        return None, None


def _resident_fallback(threads: int) -> int:
    """Blocks per SM when the driver cannot say: thread-limited on a GPU; on the CPU dry run 1,
    so that a persistent grid is smaller than the tile count and its loop really strides."""
    return 1 if bench_gpu.DEVICE == "cpu" else max(1, MAX_THREADS_PER_SM // threads)


def _sms() -> int:
    if bench_gpu.DEVICE == "cpu":
        return 1
    torch = bench_gpu._torch()
    return int(torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count)


def measure(cfg: Config, src: Any, dst: Any, samples: int, log: bench_gpu.Log) -> Row:
    """Compile, check and time one configuration; a failure becomes the row's error."""
    row = Row(cfg.name)
    try:
        _measure(cfg, src, dst, samples, row, log)
    except Exception as e:
        row.ok = False
        row.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        log(traceback.format_exc(), echo=False)
    return row


def _measure(cfg: Config, src: Any, dst: Any, samples: int, row: Row, log: bench_gpu.Log) -> None:
    torch = bench_gpu._torch()
    n = src.numel()
    if n % cfg.tile:
        raise ValueError(f"{n} elements are not a whole number of {cfg.tile}-element tiles")
    start = time.perf_counter()
    ck = lc.compile(make_kernel(cfg), src, dst, target=bench_gpu.DEVICE, block=cfg.threads)
    ck.load()
    row.compile_s = time.perf_counter() - start
    row.vector_bits = ck.vector_bits
    for r in ck.remarks:
        log(f"  {r}", echo=False)
    if ck.ptx is not None:
        log.save(f"ptx/{cfg.name}.ptx", ck.ptx)
    row.registers, row.blocks_per_sm = _occupancy(ck, cfg.threads)
    tiles = n // cfg.tile
    if cfg.waves:
        resident = row.blocks_per_sm or _resident_fallback(cfg.threads)
        row.grid = min(tiles, cfg.waves * resident * _sms())
    else:
        row.grid = tiles

    dst.fill_(math.nan)
    bench_gpu._synchronize()
    ck(src, dst, grid=row.grid, block=cfg.threads)
    bench_gpu._synchronize()
    if not torch.equal(dst, src):
        wrong = int((dst != src).sum())  # NaN != anything: unwritten elements count
        row.error = f"check failed: {wrong} of {n} elements differ from the source"
        return

    bound = ck.bind((src, dst), {})
    ours = [lambda: ck.launch_bound(bound, row.grid, cfg.threads, None, None)]
    theirs = [lambda: dst.copy_(src)]
    batch = 10
    row.ours_s = bench_gpu.bench(ours, samples, batch)
    row.torch_s = bench_gpu.bench(theirs, samples, batch)
    row.ok = True


def table(rows: list[Row], nbytes: int) -> str:
    head = ("configuration", "grid", "regs", "blk/SM", "layoutc", "GB/s", "torch", "GB/s", "ratio")
    body = []
    for r in rows:
        mark = " *" if r.name == COPY_1D.name else ""
        if not r.ok:
            body.append(
                (r.name + mark, str(r.grid or ""), "", "", "FAILED", r.error[:70], "", "", "")
            )
            continue
        body.append(
            (
                r.name + mark,
                str(r.grid),
                "" if r.registers is None else str(r.registers),
                "" if r.blocks_per_sm is None else str(r.blocks_per_sm),
                bench_gpu.fmt_time(r.ours_s),
                r.gbps(r.ours_s, nbytes),
                bench_gpu.fmt_time(r.torch_s),
                r.gbps(r.torch_s, nbytes),
                f"{r.ratio:.3f}x",
            )
        )
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    lines += [fmt.format(*b) for b in body]
    return "\n".join(lines)


def summary(rows: list[Row]) -> list[str]:
    good = sorted((r for r in rows if r.ok), key=lambda r: r.ratio, reverse=True)
    if not good:
        return ["no configuration ran"]
    best = good[0]
    out = [f"best: {best.name} at {best.ratio:.3f}x torch copy_ (goal for copy_1d: >= 0.95x)"]
    today = next((r for r in rows if r.name == COPY_1D.name and r.ok), None)
    if today is not None:
        out.append(f"copy_1d today (*): {today.name} at {today.ratio:.3f}x")
    out.append("top 5: " + ", ".join(f"{r.name} {r.ratio:.3f}x" for r in good[:5]))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1/16 of the data, fewer samples")
    p.add_argument("--only", help="run configurations whose name contains this text")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    args = p.parse_args()
    bench_gpu.DEVICE = args.device
    log = bench_gpu.Log("copy_sweep.log")
    try:
        torch = bench_gpu._torch()
        if args.device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("torch reports no CUDA device")
    except Exception as e:
        log(f"copy_sweep.py needs torch with CUDA and a GPU: {e}")
        return 2
    n = FULL_SIZE // (16 if args.quick else 1)
    if args.device == "cpu":
        n = 1 << 16  # a dry run of the script: small, wall-clock timings
    samples = args.samples or (5 if args.quick or args.device == "cpu" else 15)
    name = torch.cuda.get_device_name() if args.device == "cuda" else "CPU (dry run)"
    log(f"device: {name}  torch {torch.__version__}  {n} f32 ({n * 4 / 2**30:.3f} GiB)")
    gen = torch.Generator(device=args.device)
    gen.manual_seed(0)
    src = torch.randn(n, device=args.device, generator=gen)
    dst = torch.empty_like(src)
    rows = []
    started = time.perf_counter()
    for cfg in configurations():
        if args.only and args.only not in cfg.name:
            continue
        row = measure(cfg, src, dst, samples, log)
        status = f"{row.ratio:.3f}x" if row.ok else f"FAILED: {row.error}"
        log(f"{cfg.name}: {status}")
        rows.append(row)
    nbytes = 2 * n * 4
    if log.dir is not None:
        (log.dir / "copy_sweep.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    log(f"\nswept {len(rows)} configurations in {time.perf_counter() - started:.0f} s\n")
    log(table(rows, nbytes))
    log()
    for line in summary(rows):
        log(line)
    return 0 if rows and all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
