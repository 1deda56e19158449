"""GPU benchmark: every example on the GPU, checked against torch, then timed against torch.

    python benchmarks/gpu.py              # full sizes (1 GiB copies, 4096^3 GEMMs)
    python benchmarks/gpu.py --quick      # 1/16 of the sizes
    python benchmarks/gpu.py --only copy_1d,transpose
    python benchmarks/gpu.py --device cpu --quick   # a dry run of this script on the CPU runtime

Needs an NVIDIA GPU and torch with CUDA. For each example kernel, in one process:

1. fresh random inputs as torch tensors with the example's layouts (views such as ``out.t()``
   included); outputs the kernel only writes are poisoned with NaN first;
2. compile (``layoutc.compile``, target = the GPU), launch once, compare every output with
   torch's result (exact for copies, fill and clear; a relative tolerance for arithmetic);
3. time the kernel and torch's equivalent with CUDA events on the default stream: warm-up
   launches, then the median over samples of back-to-back batches (so the host's launch cost
   overlaps the GPU's work, as in a real program); when a working set is smaller than 512 MiB,
   several input sets rotate so that L2 does not serve repeated launches.

A row that fails (compile, check or timing) is reported as FAILED with its reason and does not
stop the others. The table comes last: kernel, size, times, GB/s or TFLOP/s, and the ratio
layoutc/torch in speed (above 1: faster than torch). Then the goals: the 1 GiB fp32 copy at
>= 0.95x torch ``copy_`` bandwidth with 128-bit accesses proven (remark) and in the PTX
(``ld.global.v4``/``st.global.v4``), the transpose at >= 0.85x the copy's bandwidth, the ragged
copy_if_tail at >= 0.95x the copy's bandwidth, and clear at >= 0.95x torch with 128-bit stores.
``benchmarks/copy_sweep.py`` sweeps the copy's own configuration.

``--device cpu`` runs the same steps with CPU torch tensors on layoutc's CPU runtime (wall-clock
timings, small sizes): it checks the script and the examples without a GPU; its timings are not
the benchmark. With ``$OUT`` set, ``$OUT/gpu_bench.log`` gets the full log (tracebacks included),
``$OUT/gpu_bench.json`` the rows, and ``$OUT/ptx/<kernel>.ptx`` the PTX of every kernel.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MIB = 1 << 20
DEVICE = "cuda"  # --device cpu: dry run on the CPU runtime


class Log:
    """Prints to stdout and, with ``$OUT``, also into ``$OUT/<name>`` (``gpu_bench.log``)."""

    def __init__(self, name: str = "gpu_bench.log") -> None:
        out = os.environ.get("OUT")
        self.dir = Path(out) if out else None
        self.file = None
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.file = open(self.dir / name, "w", encoding="utf-8")  # noqa: SIM115

    def __call__(self, text: str = "", echo: bool = True) -> None:
        if echo:
            print(text, flush=True)
        if self.file is not None:
            self.file.write(text + "\n")
            self.file.flush()

    def save(self, name: str, text: str) -> None:
        if self.dir is not None:
            path = self.dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


@dataclass
class Row:
    name: str
    size: str
    ok: bool = False
    error: str = ""
    ours_s: float = math.nan
    torch_s: float = math.nan
    bytes: int | None = None
    flops: int | None = None
    torch_name: str = ""
    notes: list[str] = field(default_factory=list)
    vector_bits: list[int] | None = None
    v4_in_ptx: bool = False
    st_v4_in_ptx: bool = False
    compile_s: float = math.nan

    def rate(self, seconds: float) -> str:
        if seconds != seconds:
            return "n/a"
        if self.bytes:  # memory-bound rows: bandwidth (bytes read + written)
            return f"{self.bytes / seconds / 1e9:.0f} GB/s"
        if self.flops:
            return f"{self.flops / seconds / 1e12:.1f} TFLOP/s"
        return "n/a"

    @property
    def speed_ratio(self) -> float:
        return self.torch_s / self.ours_s if self.ours_s == self.ours_s else math.nan


@dataclass
class Case:
    """One example with torch inputs, torch's expected outputs and torch's equivalent op."""

    name: str  # the example's kernel name
    example: str  # file stem in examples/
    size: int
    make: Callable[[int, Any], dict[str, Any]]
    expected: Callable[[dict[str, Any]], dict[str, Any]]
    baseline: Callable[[dict[str, Any]], Callable[[], None]]
    torch_name: str
    tolerance: float | None = None  # None: exact; else max relative error in the 2-norm
    describe: Callable[[int], str] = str
    square: bool = False  # size is the side of a square matrix
    min_size: int = 256  # the smallest size the example's tiles allow

    def scaled_size(self, scale: int) -> int:
        """The size for a run at 1/``scale`` of the data (sides of squares scale by sqrt)."""
        return max(self.size // (math.isqrt(scale) if self.square else scale), self.min_size)


def _torch() -> Any:
    import torch

    return torch


def nan(shape: Any, dtype: Any = None) -> Any:
    torch = _torch()
    shape = shape if isinstance(shape, tuple) else (shape,)
    return torch.full(shape, math.nan, device=DEVICE, dtype=dtype or torch.float32)


def randn(shape: Any, gen: Any, dtype: Any = None) -> Any:
    torch = _torch()
    shape = shape if isinstance(shape, tuple) else (shape,)
    t = torch.randn(shape, device=DEVICE, generator=gen)
    return t.to(dtype) if dtype is not None else t


def square(stem: str, name: str, size: int, **kw: Any) -> Case:
    return Case(name, stem, size, describe=lambda n: f"{n}x{n}", square=True, **kw)


def _matmul(a: Any, b: Any, tf32: bool) -> Any:
    torch = _torch()
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        return a @ b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def _matmul_op(a: Any, b: Any, out: Any, tf32: bool) -> Callable[[], None]:
    torch = _torch()

    def run() -> None:
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.matmul(a, b, out=out)
        torch.backends.cuda.matmul.allow_tf32 = old

    return run


def _gemm_inputs(dtype: Any) -> Callable[[int, Any], dict[str, Any]]:
    def make(n: int, gen: Any) -> dict[str, Any]:
        a = randn((n, n), gen, dtype)
        b = randn((n, n), gen, dtype)
        return {"a": a, "b": b.t(), "c": nan((n, n))}  # b passed as the (N, K) view

    return make


def _gemm_expected(a: dict[str, Any]) -> dict[str, Any]:
    return {"c": (a["a"].double() @ a["b"].t().double()).float()}


def _affine2_inputs(n: int, gen: Any) -> dict[str, Any]:
    buffer = randn(4 * n * n, gen)
    src = buffer.as_strided((n, n), (2, 4 * n))  # element (i, j) at 2i + 4nj
    return {"src": src, "dst": nan((n, n)).t()}


CASES: list[Case] = [
    Case(
        "copy_1d",
        "copy_1d",
        1 << 28,
        make=lambda n, g: {"src": randn(n, g), "dst": nan(n)},
        expected=lambda a: {"dst": a["src"].clone()},
        baseline=lambda a: lambda: a["dst"].copy_(a["src"]),
        torch_name="dst.copy_(src)",
        describe=lambda n: f"{n} f32 ({n * 4 / 2**30:.2f} GiB)",
    ),
    square(
        "copy_2d_tiled",
        "copy_2d",
        16384,
        make=lambda n, g: {"src": randn((n, n), g), "dst": nan((n, n))},
        expected=lambda a: {"dst": a["src"].clone()},
        baseline=lambda a: lambda: a["dst"].copy_(a["src"]),
        torch_name="dst.copy_(src)",
    ),
    square(
        "transpose_smem",
        "transpose",
        16384,
        make=lambda n, g: {"src": randn((n, n), g), "dst": nan((n, n)).t()},
        expected=lambda a: {"dst": a["src"].clone()},  # dst is out.t(): out == src.t()
        baseline=lambda a: lambda: a["dst"].t().copy_(a["src"].t()),
        torch_name="out.copy_(src.t())",
    ),
    Case(
        "copy_if_tail",
        "copy_if_tail",
        (1 << 28) - 3,
        make=lambda n, g: {"src": randn(n, g), "dst": nan(n)},
        expected=lambda a: {"dst": a["src"].clone()},
        baseline=lambda a: lambda: a["dst"].copy_(a["src"]),
        torch_name="dst.copy_(src)",
        describe=lambda n: f"{n} f32",
    ),
    Case(
        "axpby",
        "axpby",
        1 << 28,
        make=lambda n, g: {"alpha": 1.5, "x": randn(n, g), "beta": -0.25, "y": randn(n, g)},
        expected=lambda a: {"y": a["alpha"] * a["x"] + a["beta"] * a["y"]},
        baseline=lambda a: lambda: a["y"].mul_(a["beta"]).add_(a["x"], alpha=a["alpha"]),
        torch_name="y.mul_(b).add_(x, alpha=a)",
        tolerance=1e-6,
        describe=lambda n: f"{n} f32",
    ),
    square(
        "fill",
        "fill",
        16384,
        make=lambda n, g: {"out": nan((n, n)), "value": 0.75},
        expected=lambda a: {"out": _torch().full_like(a["out"], 0.75)},
        baseline=lambda a: lambda: a["out"].fill_(a["value"]),
        torch_name="out.fill_(v)",
    ),
    square(
        "clear",
        "clear",
        16384,
        make=lambda n, g: {"out": nan((n, n))},
        expected=lambda a: {"out": _torch().zeros_like(a["out"])},
        baseline=lambda a: lambda: a["out"].zero_(),
        torch_name="out.zero_()",
    ),
    square(
        "copy_affine2",
        "copy_affine2",
        8192,
        make=_affine2_inputs,
        expected=lambda a: {"dst": a["src"].clone()},
        baseline=lambda a: lambda: a["dst"].copy_(a["src"]),
        torch_name="dense.copy_(affine2 view)",
    ),
    square(
        "gemm_fma",
        "gemm_fma",
        4096,
        make=_gemm_inputs(None),
        expected=_gemm_expected,
        baseline=lambda a: _matmul_op(a["a"], a["b"].t(), a["c"].clone(), tf32=False),
        torch_name="matmul fp32 (cuBLAS, no TF32)",
        tolerance=1e-5,
        min_size=128,
    ),
    square(
        "gemm_mma_tf32",
        "gemm_tf32",
        4096,
        make=_gemm_inputs(None),
        expected=_gemm_expected,
        baseline=lambda a: _matmul_op(a["a"], a["b"].t(), a["c"].clone(), tf32=True),
        torch_name="matmul TF32 (cuBLAS)",
        tolerance=2e-3,
        min_size=64,
    ),
    square(
        "gemm_mma_f16",
        "gemm_f16",
        4096,
        make=lambda n, g: _gemm_inputs(_torch().float16)(n, g),
        expected=_gemm_expected,
        baseline=lambda a: _matmul_op(a["a"], a["b"].t(), _torch().empty_like(a["a"]), tf32=False),
        torch_name="matmul f16 (cuBLAS, f16 out)",
        tolerance=1e-4,
        min_size=64,
    ),
]


# ----------------------------------------------------------------------------------------------
# measuring
# ----------------------------------------------------------------------------------------------


def bench(fns: list[Callable[[], None]], samples: int, batch: int, warmup: int = 3) -> float:
    """Median seconds per call, calling ``fns`` in rotation in batches between CUDA events."""
    torch = _torch()
    for i in range(warmup):
        fns[i % len(fns)]()
    if DEVICE == "cpu":
        return _bench_wall(fns, samples, batch)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    k = 0
    for _ in range(samples):
        start.record()
        for _ in range(batch):
            fns[k % len(fns)]()
            k += 1
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3 / batch)
    return statistics.median(times)


def _bench_wall(fns: list[Callable[[], None]], samples: int, batch: int) -> float:
    times = []
    k = 0
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(batch):
            fns[k % len(fns)]()
            k += 1
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times)


def _synchronize() -> None:
    if DEVICE != "cpu":
        _torch().cuda.synchronize()


def _proxy(value: Any) -> Any:
    """What an Example's launch/bytes/flops functions read from a numpy array."""
    if hasattr(value, "element_size"):
        return SimpleNamespace(
            shape=tuple(value.shape),
            size=value.numel(),
            nbytes=value.numel() * value.element_size(),
        )
    return value


def _working_set(args: dict[str, Any]) -> int:
    return sum(v.numel() * v.element_size() for v in args.values() if hasattr(v, "numel"))


def check_outputs(case: Case, got: dict[str, Any], want: dict[str, Any]) -> str | None:
    """None when every output matches; else what differs."""
    torch = _torch()
    for name, expected in want.items():
        actual = got[name]
        if torch.isnan(actual).any():
            count = int(torch.isnan(actual).sum())
            return f"{name}: {count} elements were not written (still NaN)"
        if case.tolerance is None:
            if not torch.equal(actual.contiguous(), expected.to(actual.dtype).contiguous()):
                diff = (actual.double() - expected.double()).abs()
                return (
                    f"{name}: {int((diff > 0).sum())} elements differ, max {diff.max().item():.3g}"
                )
        else:
            a, e = actual.double(), expected.double()
            rel = ((a - e).norm() / e.norm().clamp_min(1e-30)).item()
            if not rel <= case.tolerance:
                return f"{name}: relative error {rel:.3g} > {case.tolerance:g}"
    return None


def run_case(case: Case, scale: int, samples: int, log: Log) -> Row:
    """Measure one case; any failure becomes the row's error (logged with its traceback)."""
    size = case.scaled_size(scale)
    row = Row(case.name, case.describe(size), torch_name=case.torch_name)
    try:
        _measure(case, size, row, samples, log)
    except Exception as e:
        row.ok = False
        row.error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        log(traceback.format_exc(), echo=False)
    return row


def _measure(case: Case, size: int, row: Row, samples: int, log: Log) -> None:
    import layoutc as lc
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    torch = _torch()
    path = EXAMPLES / f"{case.example}.py"
    example = find_examples(vars(load_source(path)), str(path))[0]
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(0)

    args = case.make(size, gen)
    want = case.expected(args)
    proxies = {k: _proxy(v) for k, v in args.items()}
    launch = dict(example.launch(proxies))
    block = launch.pop("block", None)
    grid = launch["grid"]
    ordered = example.ordered_arguments(args)
    row.bytes = example.bytes(proxies) if example.bytes else None
    row.flops = example.flops(proxies) if example.flops else None

    start = time.perf_counter()
    ck = lc.compile(example.kernel, *ordered, target=DEVICE, block=block)
    ck.load()
    row.compile_s = time.perf_counter() - start
    row.vector_bits = ck.vector_bits
    if ck.ptx is not None:
        row.v4_in_ptx = "ld.global.v4" in ck.ptx and "st.global.v4" in ck.ptx
        row.st_v4_in_ptx = "st.global.v4" in ck.ptx
        log.save(f"ptx/{ck.name}.ptx", ck.ptx)
    for r in ck.remarks:
        log(f"  {r}", echo=False)

    ck(*ordered, grid=grid, block=block)
    _synchronize()
    problem = check_outputs(case, {k: args[k] for k in want}, want)
    if problem is not None:
        row.error = f"check failed: {problem}"
        return

    sets = [args]
    if _working_set(args) < 512 * MIB:  # rotate inputs so that L2 does not serve repeats
        for _ in range(max(1, (512 * MIB) // max(_working_set(args), 1)) - 1):
            sets.append(case.make(size, gen))
        sets = sets[:16]
    ours = []
    for s in sets:
        bound = ck.bind(tuple(example.ordered_arguments(s)), {})
        ours.append(lambda b=bound: ck.launch_bound(b, grid, block, None, None))
    theirs = [case.baseline(s) for s in sets]
    batch = 10
    row.ours_s = bench(ours, samples, batch)
    row.torch_s = bench(theirs, samples, batch)
    row.ok = True


# ----------------------------------------------------------------------------------------------
# reporting
# ----------------------------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    if seconds != seconds:
        return "n/a"
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-4 else f"{seconds * 1e6:.1f} us"


def table(rows: list[Row]) -> str:
    head = (
        "kernel",
        "size",
        "layoutc",
        "torch",
        "layoutc rate",
        "torch rate",
        "vs torch",
        "torch op",
    )
    lines = []
    body = []
    for r in rows:
        if not r.ok:
            body.append((r.name, r.size, "FAILED", "", "", "", "", r.error[:90]))
            continue
        body.append(
            (
                r.name,
                r.size,
                fmt_time(r.ours_s),
                fmt_time(r.torch_s),
                r.rate(r.ours_s),
                r.rate(r.torch_s),
                f"{r.speed_ratio:.2f}x",
                r.torch_name,
            )
        )
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines.append(fmt.format(*head))
    lines.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
    lines.extend(fmt.format(*b) for b in body)
    return "\n".join(lines)


def goals(rows: list[Row]) -> list[str]:
    by = {r.name: r for r in rows}
    out = []
    copy = by.get("copy_1d")
    if copy is not None and copy.ok:
        ratio = copy.speed_ratio
        proven = bool(copy.vector_bits) and all(b == 128 for b in copy.vector_bits)
        verdict = "PASS" if ratio >= 0.95 and proven and copy.v4_in_ptx else "FAIL"
        out.append(
            f"goal copy_1d >= 0.95x torch copy_ bandwidth with 128-bit accesses: {verdict} "
            f"({ratio:.3f}x; proven widths {copy.vector_bits}; ld/st.global.v4 in PTX: "
            f"{copy.v4_in_ptx})"
        )
    else:
        out.append("goal copy_1d: NOT MEASURED (the row failed or was not run)")
    tr = by.get("transpose")
    if tr is not None and tr.ok and copy is not None and copy.ok:
        ratio = (tr.bytes / tr.ours_s) / (copy.bytes / copy.ours_s)
        verdict = "PASS" if ratio >= 0.85 else "FAIL"
        out.append(f"goal transpose >= 0.85x the copy's bandwidth: {verdict} ({ratio:.3f}x)")
    else:
        out.append("goal transpose: NOT MEASURED (a row failed or was not run)")
    tail = by.get("copy_if_tail")
    if tail is not None and tail.ok and copy is not None and copy.ok:
        ratio = (tail.bytes / tail.ours_s) / (copy.bytes / copy.ours_s)
        verdict = "PASS" if ratio >= 0.95 else "FAIL"
        out.append(
            f"goal copy_if_tail >= 0.95x the copy's bandwidth (only the last tile predicated): "
            f"{verdict} ({ratio:.3f}x)"
        )
    else:
        out.append("goal copy_if_tail: NOT MEASURED (a row failed or was not run)")
    clear = by.get("clear")
    if clear is not None and clear.ok:
        ratio = clear.speed_ratio
        verdict = "PASS" if ratio >= 0.95 and clear.st_v4_in_ptx else "FAIL"
        out.append(
            f"goal clear >= 0.95x torch zero_ with 128-bit stores: {verdict} ({ratio:.3f}x; "
            f"st.global.v4 in PTX: {clear.st_v4_in_ptx})"
        )
    else:
        out.append("goal clear: NOT MEASURED (the row failed or was not run)")
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1/16 of the sizes, fewer samples")
    p.add_argument("--only", help="comma-separated kernel names")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    args = p.parse_args()
    global DEVICE
    DEVICE = args.device
    log = Log()
    try:
        torch = _torch()
        if DEVICE == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("torch reports no CUDA device")
    except Exception as e:
        log(f"gpu.py needs torch with CUDA and a GPU: {e}")
        return 2
    name = torch.cuda.get_device_name() if DEVICE == "cuda" else "CPU (dry run)"
    log(f"device: {name}  torch {torch.__version__}")
    scale = 16 if args.quick else 1
    if DEVICE == "cpu":
        scale = max(scale, 4096)
    samples = args.samples or (5 if args.quick else 15)
    wanted = set(args.only.split(",")) if args.only else None
    rows: list[Row] = []
    for case in CASES:
        if wanted is not None and case.name not in wanted:
            continue
        log(f"== {case.name}")
        row = run_case(case, scale, samples, log)
        if row.ok:
            log(
                f"   compile {row.compile_s * 1e3:.0f} ms, layoutc {fmt_time(row.ours_s)}, torch "
                f"{fmt_time(row.torch_s)}, {row.speed_ratio:.2f}x"
            )
        else:
            log(f"   FAILED: {row.error}")
        rows.append(row)
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
    if log.dir is not None:
        (log.dir / "gpu_bench.json").write_text(json.dumps([asdict(r) for r in rows], indent=1))
    log()
    log(table(rows))
    log()
    for line in goals(rows):
        log(line)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
