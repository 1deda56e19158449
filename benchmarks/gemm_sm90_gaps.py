"""Where a batch's time goes, ours (examples/gemm_sm90.py) against cuBLAS, direct launches and
CUDA-graph replays: each kernel's own duration and the gap before the next one, from the
profiler's kernel records (CUPTI, torch.profiler), on a Hopper GPU.

``benchmarks/gemm_sm90_ws.py`` times batches of launches with CUDA events, so a ratio that
moves between direct launches and graph replays moves with the kernels or with the gaps
between them; this script says which. Per shape and input type, the configurations
(``DTYPE:tuned`` or ``DTYPE:field=value,...`` as in gemm_sm90_ws.py) and cuBLAS take turns:
batches of ``--batch`` launches, each configuration's and cuBLAS's direct, then each
replayed from a CUDA graph, ``--reps`` times (each launch on the next of input sets larger
than L2), and the table gives medians over the batches' kernels: the
kernel's duration (the first of a batch separately: it starts on an idle GPU) and the gap
from one kernel's end to the next one's start, in microseconds, with cuBLAS's kernel names;
then cuBLAS's duration over each row's (``kernel``) and the same with the gaps added
(``+gap``: the steady state of a stream of launches). ``--energy S``: each graph replayed
for about S seconds per turn, three turns, NVML's energy counter read around each: joules
per kernel, watts and microseconds per kernel (a power-limited GPU runs the kernel that
needs fewer joules at the higher clock). Every configuration is first checked against a
float64 reference (``gemm_sm90_ws.check``) at the ``--check`` shapes (several tiles per
block, residues in M, N and K by default); a failure stops the run before any timing.

    python benchmarks/gemm_sm90_gaps.py [--shapes 4096,8192x4096x6144] [--configs tf32:tuned]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gemm_sm90_ws as ws


def kernel_records(prof: Any) -> list[tuple[float, float, str]]:
    """(start us, duration us, name) of every GPU kernel the profiler saw, in start order."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        trace = json.loads(path.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    out = [
        (float(e["ts"]), float(e["dur"]), e["name"])
        for e in events
        if e.get("cat") == "kernel" and e.get("ph") == "X"
    ]
    return sorted(out)


def batches(records: list, count: int, size: int) -> list[list]:
    """``records`` cut into ``count`` batches of ``size`` consecutive kernels (the batches run
    one after another, each after a synchronization)."""
    if len(records) != count * size:
        raise RuntimeError(f"expected {count * size} kernels, the profiler saw {len(records)}")
    return [records[i * size : (i + 1) * size] for i in range(count)]


def summary(runs: list[list]) -> tuple[float, float, float]:
    """Median first kernel's duration, median duration of the others, median gap (us)."""
    first = statistics.median(r[0][1] for r in runs)
    rest = statistics.median(d for r in runs for _, d, _ in r[1:])
    gaps = statistics.median(b[0] - (a[0] + a[1]) for r in runs for a, b in itertools.pairwise(r))
    return first, rest, gaps


def energy_counter() -> Any:
    """A function giving the GPU's energy counter in joules (NVML's total energy consumption,
    millijoules since the driver loaded; GPU 0, the only one on the device machines), or None
    where NVML is missing."""
    import ctypes

    try:
        nvml = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    handle = ctypes.c_void_p()
    if nvml.nvmlInit_v2() or nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)):
        return None
    value = ctypes.c_ulonglong()

    def read() -> float:
        if nvml.nvmlDeviceGetTotalEnergyConsumption(handle, ctypes.byref(value)):
            raise RuntimeError("nvmlDeviceGetTotalEnergyConsumption failed")
        return value.value / 1e3

    return read


def energy(torch: Any, replays: list, launches: int, seconds: float, reps: int = 3) -> list:
    """Per graph replay function (``launches`` kernels each): (joules per kernel, watts,
    seconds per kernel), medians over ``reps`` turns, each replaying every function in turn
    for about ``seconds`` (the counter updates every few milliseconds: long runs)."""
    read = energy_counter()
    if read is None:
        return []
    per_replay = []
    for replay in replays:  # how many replays make ``seconds``
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        replay()
        end.record()
        end.synchronize()
        per_replay.append(max(1, int(seconds / (start.elapsed_time(end) / 1e3))))
    out: list[list[tuple[float, float, float]]] = [[] for _ in replays]
    for _ in range(reps):
        for j, replay in enumerate(replays):
            torch.cuda.synchronize()
            e0 = read()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(per_replay[j]):
                replay()
            end.record()
            end.synchronize()
            joules = read() - e0
            secs = start.elapsed_time(end) / 1e3
            kernels = per_replay[j] * launches
            out[j].append((joules / kernels, joules / secs, secs / kernels))
    return [tuple(statistics.median(x[i] for x in rows) for i in range(3)) for rows in out]


def ptxas_remarks(ours: Any) -> str:
    """The wgmma remarks (``C75xx``) of ptxas (whole program, sm_90a) on ``ours``'s PTX, or why
    there are none to read."""
    import re

    from layoutc.codegen.cubin import find_ptxas, ptxas_to_cubin

    ptxas = find_ptxas()
    if ptxas is None:
        return "ptxas: not found"
    try:
        log = ptxas_to_cubin(ours.ck.ptx, "sm_90a", ptxas, verbose=True).log
    except Exception as e:  # e.g. PTX of a newer ISA than this ptxas (nvJitLink assembled it)
        return f"ptxas: {str(e).splitlines()[-1][:80]}"
    codes = sorted(set(re.findall(r"\(C75\d\d\)", log)))
    return "ptxas: " + (" ".join(codes) if codes else "no wgmma remarks")


def batch(fn: Any, sets: list, size: int) -> Any:
    """``size`` launches of ``fn``, each on the next input set."""

    def run() -> None:
        for i in range(size):
            fn(*sets[i % len(sets)])

    return run


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4096,8192x4096x6144")
    p.add_argument("--configs", default="tf32:tuned", help="';'-separated")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument(
        "--check",
        default="4000x4000x264",
        help="','-separated shapes each configuration is checked at first ('' for none)",
    )
    p.add_argument(
        "--energy",
        type=float,
        default=0.0,
        help="also replay each graph for this many seconds per turn: joules per kernel (NVML)",
    )
    args = p.parse_args()

    import torch
    from torch.profiler import ProfilerActivity, profile

    g = ws._gemm_module()
    shapes = [ws.parse_shape(s) for s in args.shapes.split(",")]
    print(ws.gpu_header(torch), flush=True)
    built = [
        (ws.build_label(cfg, build), ws.Ours(g, cfg, torch, build), cfg_shapes)
        for cfg, build, cfg_shapes in ws.plan(g, args.configs, shapes)
    ]
    checks = [ws.parse_shape(s) for s in args.check.split(",") if s]
    failed = False
    for label, ours, _ in built:
        for line in ws.check(ours, torch, checks):
            print(f"  check {label}: {line}", flush=True)
            failed = failed or "FAIL" in line
        # registers, local memory (spills), shared memory, blocks per SM; ptxas's remarks on
        # the wgmmas (C7510-C7517: serialized, or waits it injected) for the PTX as built here
        print(f"  {label}: regs lmem smem occ {ours.resources()}; {ptxas_remarks(ours)}")
    if failed:
        print("a configuration computed a wrong result: no timings")
        return 1
    rows = []
    for m, n, k in shapes:
        groups: dict[str, list] = {}
        for label, ours, cfg_shapes in built:
            if (m, n, k) in cfg_shapes:
                groups.setdefault(ours.cfg.dtype, []).append((label, ours))
        for dtype, members in groups.items():
            first = members[0][1]
            per_set = (m + n) * k * (4 if dtype == "tf32" else 2)
            l2 = torch.cuda.get_device_properties(0).L2_cache_size
            gen = torch.Generator(device="cuda").manual_seed(m + n + k)
            sets = []
            for _ in range(max(2, -(-3 * l2 // per_set))):
                a, b = ws.operands(torch, dtype, m, n, k, gen)
                sets.append((a, b, torch.empty((m, n), device="cuda", dtype=first.c_type(torch))))
            labels = [label for label, _ in members] + ["cuBLAS"]
            fns = [ours for _, ours in members] + [ws.cublas_for(torch, first.cfg)]
            runs = [batch(fn, sets, args.batch) for fn in fns]
            for run in runs:  # warm-up: the first launch sets the limits, cuBLAS its handle
                run()
            graphs = []
            for run in runs:
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.stream(stream), torch.cuda.graph(graph, stream=stream):
                    run()
                torch.cuda.current_stream().wait_stream(stream)
                graph.replay()
                graphs.append(graph.replay)
            torch.cuda.synchronize()
            order = [*runs, *graphs]  # each configuration and cuBLAS direct, then replayed
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.reps):
                    for run in order:
                        run()
                        torch.cuda.synchronize()
            cut = batches(kernel_records(prof), args.reps * len(order), args.batch)
            count = len(runs)
            names = sorted({name for r in cut[count - 1 :: len(order)] for _, _, name in r})
            for mode, offset in (("direct", 0), ("graph", count)):
                stats = [summary(cut[offset + j :: len(order)]) for j in range(count)]
                _, ref, ref_gap = stats[-1]
                for label, (head, rest, gap) in zip(labels, stats, strict=True):
                    rows.append(
                        f"{label:<52} {m}x{n}x{k:<6} {mode:<6} {head:>8.1f} {rest:>8.1f} "
                        f"{gap:>6.2f} {ref / rest:>6.3f}x {(ref + ref_gap) / (rest + gap):>6.3f}x"
                    )
            rows.append(f"  cuBLAS: {', '.join(n[:110] for n in names)}")
            if args.energy:
                joules = energy(torch, graphs, args.batch, args.energy)
                ref_j = joules[-1][0] if joules else 0.0
                for label, (j, w, t) in zip(labels, joules, strict=True):
                    rows.append(
                        f"  energy {label:<45} {m}x{n}x{k:<6} {j * 1e3:>8.2f} mJ {w:>6.1f} W "
                        f"{t * 1e6:>8.1f} us  cuBLAS/ours J {ref_j / j:>6.3f}x"
                    )
            del sets, runs, graphs, order, fns
            torch.cuda.empty_cache()
    print(ws.gpu_header(torch))
    print(
        f"{'kernel':<52} {'MxNxK':<16} {'mode':<6} {'first us':>8} {'rest us':>8} {'gap us':>6} "
        "kernel  +gap (cuBLAS / ours)"
    )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
