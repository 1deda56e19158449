"""Launch example 59's Hopper gather kernel and its dense twin (benchmarks/conv.py's kernels)
once each at one N, checked against torch, for a profiler to look at side by side:

    ncu -k regex:conv3d --set full -o prof python benchmarks/conv_ncu.py --size 131072
    ncu -i prof.ncu-rep --page raw --csv > raw.csv
    python benchmarks/conv_ncu.py --summarize raw.csv      # the metrics that differ, side by side

The kernels: ``sm90`` is the gather kernel ``conv3d_fprop`` runs for N and its dense twin
(the same body, tiling, cp.async loads and shared-memory epilogue over dense layouts); more
configurations by benchmarks/conv.py's names (``dense:NAME`` launches only that tiling's dense
kernel). Each launch is checked against torch's FP32 conv3d (the check of benchmarks/conv.py).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conv as bench

# (label, metric): what --summarize prints for each kernel
METRICS = [
    ("duration (us)", "gpu__time_duration.sum"),
    ("SM clock (cycles/ns)", "smsp__cycles_elapsed.avg.per_second"),
    ("SM throughput %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    (
        "tensor pipe active %",
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    ),
    ("L2 throughput %", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"),
    ("L2 hit rate %", "lts__t_sector_hit_rate.pct"),
    ("DRAM throughput %", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM read (MB)", "dram__bytes_read.sum"),
    ("L2 sectors read (M)", "lts__t_sectors_op_read.sum"),
    ("L1 sectors global ld (M)", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("warp instructions (M)", "smsp__inst_executed.sum"),
    ("issue slots busy %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("IPC per scheduler", "smsp__inst_executed.avg.per_cycle_active"),
    ("shared ld wavefronts (M)", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared st wavefronts (M)", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("bank conflicts ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("LDGSTS bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"),
]


def summarize(path: str) -> None:
    """The chosen metrics and every warp-stall reason, one column per profiled kernel."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [r for r in rows[2:] if len(r) == len(rows[0])]
    col = {name: i for i, name in enumerate(header)}
    names = [r[col["Kernel Name"]] for r in body]
    short = [n.replace("conv3d_fprop_", "")[:28] for n in names]
    print(f"{'metric':<34}" + "".join(f"{s:>30}" for s in short))

    def line(label: str, metric: str) -> None:
        if metric in col:
            print(f"{label:<34}" + "".join(f"{r[col[metric]]:>30}" for r in body))

    for label, metric in METRICS:
        line(label, metric)
    for name in header:  # warp-state sampling: cycles per issued instruction by reason
        if name.startswith("smsp__average_warps_issue_stalled_") and name.endswith(
            "_per_issue_active.ratio"
        ):
            vals = [float(r[col[name]] or 0) for r in body]
            if max(vals) >= 0.02:
                reason = name[
                    len("smsp__average_warps_issue_stalled_") : -len("_per_issue_active.ratio")
                ]
                line(f"stall {reason}", name)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=131072)
    p.add_argument("--configs", default="sm90", help="benchmarks/conv.py's names, ','-separated")
    p.add_argument("--repeat", type=int, default=1, help="launches of each kernel after the check")
    p.add_argument(
        "--identity",
        action="store_true",
        help="launch each gather kernel again on identity index vectors (the dense addresses)",
    )
    p.add_argument("--summarize", metavar="RAW_CSV", help="print an ncu --page raw --csv export")
    args = p.parse_args()
    if args.summarize:
        summarize(args.summarize)
        return 0
    import torch

    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to profile")
        return 0
    import layoutc as lc

    cv = bench._example()
    prob = bench.Problem(torch, cv, args.size, seed=args.size)
    n = args.size
    launches = []  # (label, kernel, "dense"|"gather")
    for text in args.configs.split(","):
        only_dense = text.startswith("dense:")
        cfg = bench.config_from_name(cv, text[6:] if only_dense else text)
        if cfg == "sm90":
            _, gathered = cv.default_kernels(n, "sm_90a")
            gcfg = gathered.config
            launches += [
                ("gather", gathered, "gather"),
                ("twin", cv.make_conv3d_sm90(gcfg)[0], "dense"),
            ]
        else:
            dense, gathered = cv.make_conv3d_sm90(cfg)
            launches.append((cfg.name, dense, "dense"))
            if not only_dense:
                launches.append((cfg.name, gathered, "gather"))
    failed = False
    if args.identity:  # the dense kernel's addresses through each gather kernel's code
        ident = (
            prob.pool.clone(),
            torch.arange(n * 96, dtype=torch.int32, device="cuda"),
            torch.arange(n * 16, dtype=torch.int32, device="cuda"),
        )
        ident[0][: n * 96] = prob.act.reshape(-1, cv.C)
        launches += [
            (f"{lb} identity", k, "identity") for lb, k, kind in launches if kind == "gather"
        ]
    for label, kernel, kind in launches:
        kcfg = kernel.config
        grid, block = (n // kcfg.images,), kcfg.threads
        if kind == "dense":
            out = torch.full((n, cv.Z, cv.P, cv.Q, cv.K), float("nan"), device="cuda")
            args_ = (prob.act, prob.flt, out)
        else:
            out = torch.full((prob.out_rows, cv.K), 7.0, device="cuda")
            rows = (prob.pool, prob.gather, prob.scatter) if kind == "gather" else ident
            args_ = (rows[0], prob.flt, out, rows[1], rows[2])
        ck = lc.compile(kernel, *args_, target="cuda", block=block, index_bitwidth=32)
        bound = ck.bind(args_, {})
        ck.launch_bound(bound, grid, block, None, None)
        torch.cuda.synchronize()
        got = out if kind == "dense" else out[args_[4].long()].view(n, 4, 2, 2, 128)
        err = bench.rel_error(torch, got, prob.ref)
        failed |= not err <= bench.TOLERANCE
        for _ in range(args.repeat - 1):
            ck.launch_bound(bound, grid, block, None, None)
        torch.cuda.synchronize()
        print(f"{label:<10} {kind:<6} {kernel.__name__ if hasattr(kernel, '__name__') else ''} "
              f"{kcfg.name} N={n}: error {err:.1e}", flush=True)  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
