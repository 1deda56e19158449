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
- the sm80 GEMM (examples/gemm_tf32_sm80.py's default configuration, compiled from argument
  specs) from Python source to cubin and to CPU code (incl. JIT), warm (after the copy kernel's
  compiles), cache off, against the NVIDIA tools alone on its NVVM IR (goal: < 0.5 s each);
  min and median, and the machine's load average (the CPU is shared); the same in CPU time
  (``time.process_time``: what other processes on a shared machine inflate least), against
  verifying the IR after every pass (``verify_each=True``; the default verifies once, after
  the pipeline: docs/driver.md, "Compile time"); the GEMM for any M, N and K (no divisibility
  facts: the full, K-peeled and residue pipelines), against the full-tile one;
- the GEMM's CPU JIT alone (``load``: optimisation and machine code, CPU time) in its default
  tier (``cpu_jit="fast"``) against the optimised tier (-O3 passes and code generation, the
  default before: docs/runtime.md, "JIT tiers");
- the CPU GEMM compiled and loaded by a new process: a disk-cache hit (the JIT's machine code
  comes from the cache too) against the same process with the cache off;
- the per-stage breakdown of both GPU compiles: trace, each pass, translation, PTX, cubin;
  for the GEMM also the young-generation collection that follows each compile (outside
  ``ck.timings`` and the stage total, inside the compile's wall time), and the GEMM's CPU
  compile (``load``: the JIT).
"""

from __future__ import annotations

import argparse
import gc
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
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def times(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def cpu_times(fn, repeat: int) -> list[float]:
    """CPU seconds of this process (all its threads: nvJitLink's and LLVM's too) per call."""
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        samples.append(time.process_time() - start)
    return samples


def median_time(fn, repeat: int) -> float:
    return statistics.median(times(fn, repeat))


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


def gemm_specs(cfg) -> tuple[tuple, list[str]]:
    """The sm80 GEMM's argument specs (A, B K-major, C row-major, any M, N, K) and the facts
    that make every tile full; benchmarks/compile_fingerprint.py compiles the same."""
    import layoutc as lc

    specs = (
        lc.spec("tf32[(M,K):(K,1)]"),
        lc.spec("tf32[(N,K):(K,1)]"),
        lc.spec("f32[(M,N):(N,1)]"),
    )
    return specs, [f"M%{cfg.bm}==0", f"N%{cfg.bn}==0", f"K%{cfg.bk}==0"]


def gemm_rows(arch: str, repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    """The sm80 GEMM's default configuration, a fresh kernel object per compile (make_gemm),
    compiled from specs with the cache off, in a process already warm from the copy rows."""
    import layoutc as lc
    from layoutc.codegen.target import Target
    from layoutc.codegen.toolchain import compile_gpu

    sys.path.insert(0, str(EXAMPLES))
    import gemm_tf32_sm80 as gemm

    cfg = gemm.CONFIG
    specs, assume = gemm_specs(cfg)
    stages: list[dict[str, float]] = []
    cpu_stages: list[dict[str, float]] = []
    last: list = []

    def compile_for(target: str, facts=assume, **options):
        kernel = gemm.make_gemm(cfg, "gemm_tf32_sm80")
        return lc.compile(
            kernel, *specs, block=cfg.threads, target=target, assume=facts, cache=False, **options
        )

    def to_cubin() -> None:
        ck = compile_for(arch)
        stages.append(ck.timings)
        last[:] = [ck]

    def to_cpu() -> None:
        ck = compile_for("cpu")
        ck.load()
        cpu_stages.append(ck.timings)

    def jit_cpu_seconds(tier: str) -> float:
        """CPU seconds of the JIT alone (the kernel's load) in ``tier``."""
        ck = compile_for("cpu", cpu_jit=tier)
        start = time.process_time()
        ck.load()
        return time.process_time() - start

    # CPU time first (the machine is shared: other processes inflate wall time, not this)
    cpu_gpu = cpu_times(to_cubin, repeat)
    cpu_each = cpu_times(lambda: compile_for(arch, verify_each=True), repeat)
    row(
        f"GEMM: source -> cubin/PTX ({arch}), CPU time, min",
        min(cpu_gpu),
        "verifying after every pass, min",
        min(cpu_each),
        f"< 0.5 s (load avg {os.getloadavg()[0]:.1f})",
    )
    cpu_ragged = cpu_times(lambda: compile_for(arch, facts=[]), repeat)
    row(
        f"GEMM, any M, N, K: source -> cubin/PTX ({arch}), CPU time, min",
        min(cpu_ragged),
        "M, N, K multiples of the tile, min",
        min(cpu_gpu),
        "(3 pipelines: full, K-peeled, residue)",
    )
    stages.clear()
    gpu = times(to_cubin, repeat)
    young = collection_after(to_cubin, repeat)
    ck = last[0]
    target = Target.parse(arch)
    tools = times(lambda: compile_gpu(ck.llvm_ir, target), repeat)
    what = "cubin" if ck.cubin is not None else "PTX"
    load = os.getloadavg()[0]
    row(
        f"GEMM tf32 128x128x32: source -> {what} ({arch}), min",
        min(gpu),
        "NVIDIA tools alone, min",
        min(tools),
        "< 0.5 s",
    )
    row(
        f"GEMM tf32 128x128x32: source -> {what} ({arch}), median",
        statistics.median(gpu),
        "NVIDIA tools alone, median",
        statistics.median(tools),
        f"(load avg {load:.1f})",
    )
    cpu = times(to_cpu, repeat)
    cpu_cpu = cpu_times(to_cpu, repeat)
    row(
        "GEMM: source -> CPU code (incl. JIT), CPU time, min",
        min(cpu_cpu),
        "GPU compile, CPU time, min",
        min(cpu_gpu),
        f"< 0.5 s (load avg {os.getloadavg()[0]:.1f})",
    )
    row("GEMM: source -> CPU code (incl. JIT), min", min(cpu), "GPU compile, min", min(gpu))
    row(
        "GEMM: source -> CPU code (incl. JIT), median",
        statistics.median(cpu),
        "GPU compile, median",
        statistics.median(gpu),
        "< 0.5 s",
    )
    jit: dict[str, list[float]] = {"fast": [], "optimized": []}
    for _ in range(repeat):  # alternating, so that both see the same load
        for tier, samples in jit.items():
            samples.append(jit_cpu_seconds(tier))
    row(
        "GEMM: the CPU JIT alone (cpu_jit='fast'), CPU time, min",
        min(jit["fast"]),
        "cpu_jit='optimized' (-O3), min",
        min(jit["optimized"]),
        "(LLVM passes + machine code)",
    )
    merged = {name: statistics.median(s.get(name, 0.0) for s in stages) for name in stages[0]}
    merged["collection after (gen 0)"] = young
    cpu_merged = {
        name: statistics.median(s.get(name, 0.0) for s in cpu_stages) for name in cpu_stages[0]
    }
    return merged, cpu_merged


def collection_after(compile_once, repeat: int) -> float:
    """The median seconds of the young-generation collection that follows a compile (the
    driver pauses the collector while it compiles; the first allocation after it walks the
    compile's garbage: erased ops, the lowered module, llvmlite's objects). Not part of
    ``ck.timings``, but of every compile's wall time."""
    samples = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            compile_once()
            start = time.perf_counter()
            gc.collect(0)
            samples.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(samples)


NEW_PROCESS_GEMM = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {examples!r})
    import layoutc as lc
    import gemm_tf32_sm80 as gemm
    cfg = gemm.CONFIG
    specs = [lc.spec(t) for t in ("tf32[(M,K):(K,1)]", "tf32[(N,K):(K,1)]", "f32[(M,N):(N,1)]")]
    facts = [f"M%{{cfg.bm}}==0", f"N%{{cfg.bn}}==0", f"K%{{cfg.bk}}==0"]
    kernel = gemm.make_gemm(cfg, "gemm_tf32_sm80")
    lc.compile(kernel, *specs, block=cfg.threads, target="cpu", assume=facts).load()
    """
)


def new_process_rows(repeat: int) -> None:
    """The CPU GEMM compiled and loaded by a new process (wall time of the whole process): a
    disk-cache hit, whose load takes the JIT's machine code from the cache, against the same
    process with the cache off (passes, translation and the JIT)."""
    code = NEW_PROCESS_GEMM.format(examples=str(EXAMPLES))

    def run(**env: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, **env})
        return time.perf_counter() - start

    run()  # fills the cache (its own directory: main() sets LAYOUTC_CACHE_DIR)
    hit = statistics.median(run() for _ in range(repeat))
    off = statistics.median(run(LAYOUTC_CACHE="0") for _ in range(repeat))
    row(
        "GEMM, new process: disk cache hit -> CPU code loaded",
        hit,
        "new process, cache off",
        off,
        "(machine code from the cache)",
    )


def print_stages(title: str, stages: dict[str, float]) -> None:
    print()
    print(f"per-stage breakdown of the {title} (median):")
    total = sum(
        v for k, v in stages.items() if not k.startswith(("pass:", "collection")) and k != "spec"
    )
    for name, seconds in stages.items():
        indent = "    " if name.startswith("pass:") else "  "
        counted = total and not name.startswith(("pass:", "collection"))
        share = f"{100 * seconds / total:5.1f}%" if counted else ""
        print(f"{indent}{name:<28} {fmt(seconds):>11}  {share}")
    print(f"  {'total (stages)':<28} {fmt(total):>11}")


def print_table(stages: dict[str, dict[str, float]]) -> None:
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
    for title, breakdown in stages.items():
        print_stages(title, breakdown)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--no-gemm", action="store_true", help="skip the GEMM rows")
    args = p.parse_args()
    repeat = 3 if args.quick else 9
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LAYOUTC_CACHE_DIR"] = str(Path(tmp) / "cache")
        path = str(Path(tmp) / "copy_kernel.py")
        Path(path).write_text(SOURCE)
        import_time(repeat)
        stages = {"copy kernel's GPU compile": compile_rows(path, args.arch, repeat)}
        if not args.no_gemm:
            gpu, cpu = gemm_rows(args.arch, max(3, repeat // 2))
            stages["GEMM's GPU compile"] = gpu
            stages["GEMM's CPU compile (load: the JIT)"] = cpu
            new_process_rows(3)
    print_table(stages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
