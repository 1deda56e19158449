"""Compile-time benchmark (CPU only): import time, source-to-cubin, cache hits, per-stage costs.

    python benchmarks/compile.py            # sm_90 (cubin needs nvJitLink; PTX otherwise)
    python benchmarks/compile.py --quick    # fewer repetitions
    python benchmarks/compile.py --arch sm_80

Rows (medians; the ratio compares with a reference measured in the same process):

- ``import layoutc`` in a fresh interpreter, against a bare interpreter (goal: < 0.5 s);
- the 1-D copy kernel from Python source to cubin in a warm process (every compile traces a
  fresh kernel object; the on-disk cache is off), against the NVIDIA tools alone (PTX and cubin
  of the same NVVM IR): the ratio is the share of compile time layoutc itself adds
  (goal: < 100 ms in total);
- a repeated ``layoutc.compile`` of the same kernel and arrays (in-memory hit; goal: < 1 ms),
  against deriving the spec alone; a hit in the on-disk cache (a new kernel object of the same
  source: trace, key, read), against the full compile;
- the same kernel for the CPU (compile + host JIT);
- the per-stage breakdown of the GPU compile: trace, each pass, translation, PTX, cubin.
"""

from __future__ import annotations

import argparse
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

SOURCE = textwrap.dedent(
    """
    import layoutc as lc

    TV = lc.make_layout((256, (4, 4)), (4, (1, 1024)))

    @lc.kernel
    def copy_1d(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):
        bid, tid = lc.block_idx.x, lc.thread_idx.x
        gS = lc.local_tile(src, (4096,), (bid,))
        gD = lc.local_tile(dst, (4096,), (bid,))
        lc.copy(lc.partition_tv(gS, TV, tid), lc.partition_tv(gD, TV, tid))
    """
)

ROWS: list[tuple[str, float, str, float, str]] = []


def median_time(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def row(what: str, seconds: float, ref: str, ref_seconds: float, goal: str = "") -> None:
    ROWS.append((what, seconds, ref, ref_seconds, goal))


def fmt(seconds: float) -> str:
    if seconds != seconds:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds:8.3f} s "


def import_time(repeat: int) -> None:
    def run(code: str) -> float:
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    bare = run("pass")
    full = run("import layoutc")
    row("import layoutc (fresh interpreter)", full, "python -c pass", bare, "< 0.5 s")


def fresh_kernel(path: str):
    """A new Kernel object from the source file (nothing cached on the object)."""
    return runpy.run_path(path)["copy_1d"]


def compile_rows(path: str, arch: str, repeat: int) -> dict[str, float]:
    import layoutc as lc
    from layoutc.codegen.target import Target
    from layoutc.codegen.toolchain import compile_gpu

    x = np.zeros(1 << 20, np.float32)
    y = np.zeros_like(x)
    # warm the process: imports, LLVM initialisation, libNVVM/nvJitLink loading
    for _ in range(2):
        lc.compile(fresh_kernel(path), x, y, block=256, target=arch, cache=False)

    stages: list[dict[str, float]] = []

    def full_compile() -> None:
        ck = lc.compile(fresh_kernel(path), x, y, block=256, target=arch, cache=False)
        stages.append(ck.timings)

    def load_only() -> None:  # what runpy costs, to subtract from the compile rows
        fresh_kernel(path)

    t_load = median_time(load_only, repeat)
    t_full = median_time(full_compile, repeat) - t_load
    ck = lc.compile(fresh_kernel(path), x, y, block=256, target=arch, cache=False)
    target = Target.parse(arch)
    text = ck.llvm_ir

    def tools_only() -> None:  # what the driver runs after translation, on the same IR
        compile_gpu(text, target)

    t_tools = median_time(tools_only, repeat)
    what = "cubin" if ck.cubin is not None else "PTX"
    row(
        f"copy kernel: Python source -> {what} ({arch}), warm",
        t_full,
        "NVIDIA tools alone (PTX + cubin)",
        t_tools,
        "< 100 ms",
    )

    kernel = fresh_kernel(path)
    lc.compile(kernel, x, y, block=256, target=arch)
    t_hit = median_time(lambda: lc.compile(kernel, x, y, block=256, target=arch), repeat * 20)
    t_spec = median_time(lambda: kernel.specialize(x, y, block=256), repeat * 20)
    row("compile again: in-memory cache hit", t_hit, "deriving the spec alone", t_spec, "< 1 ms")

    def disk_hit() -> None:
        ck = lc.compile(fresh_kernel(path), x, y, block=256, target=arch)
        assert ck.cache_hit

    t_disk = median_time(disk_hit, repeat) - t_load
    row("compile in a new kernel object: disk cache hit", t_disk, "full compile", t_full)

    def cpu_compile() -> None:
        lc.compile(fresh_kernel(path), x, y, block=256, target="cpu", cache=False).load()

    cpu_compile()
    t_cpu = median_time(cpu_compile, repeat) - t_load
    row("copy kernel: Python source -> CPU code (incl. JIT)", t_cpu, "GPU compile", t_full)

    merged: dict[str, float] = {}
    for name in stages[0]:
        merged[name] = statistics.median(s.get(name, 0.0) for s in stages)
    return merged


def print_table(stages: dict[str, float]) -> None:
    print()
    w = max(len(r[0]) for r in ROWS)
    wr = max(len(r[2]) for r in ROWS)
    print(
        f"{'measurement':<{w}}  {'time':>11}  {'reference':<{wr}}  {'ref time':>11}  {'ratio':>7}  goal"
    )
    print("-" * (w + wr + 50))
    for what, t, ref, tr, goal in ROWS:
        ratio = t / tr if tr else float("nan")
        print(f"{what:<{w}}  {fmt(t):>11}  {ref:<{wr}}  {fmt(tr):>11}  {ratio:7.2f}  {goal}")
    if stages:
        print()
        print("per-stage breakdown of the GPU compile (median):")
        total = sum(v for k, v in stages.items() if not k.startswith("pass:") and k != "spec")
        for name, seconds in stages.items():
            indent = "    " if name.startswith("pass:") else "  "
            share = (
                f"{100 * seconds / total:5.1f}%" if total and not name.startswith("pass:") else ""
            )
            print(f"{indent}{name:<28} {fmt(seconds):>11}  {share}")
        print(f"  {'total (stages)':<28} {fmt(total):>11}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--arch", default="sm_90")
    args = p.parse_args()
    repeat = 3 if args.quick else 9
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LAYOUTC_CACHE_DIR"] = str(Path(tmp) / "cache")
        path = str(Path(tmp) / "copy_kernel.py")
        Path(path).write_text(SOURCE)
        import_time(repeat)
        stages = compile_rows(path, args.arch, repeat)
    print_table(stages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
