"""CUTLASS example 59 on the GPU: layoutc's conv3d fprop (examples/conv3d_fprop.py), dense and
gather/scatter, side by side with cuDNN and torch in one process.

    python benchmarks/conv.py                       # N = 4320 and 131072: seed, sm80, sm90
    python benchmarks/conv.py --sizes 4320 --configs s3-k32,s4-k32
    python benchmarks/conv.py --configs sm90,sm90-i16-s4-wg2-f1-ws,sm90-i12-s5-wg2-f1-direct
    python benchmarks/conv.py --configs sm90-i16-s4-wg2-f1-ws,sm90-i16-s4-wg2-f1-ws-tma --kinds dense
    python benchmarks/conv.py --configs sm90,dense:sm90-i12-s5-wg2-f1-ws-tma-direct

Configs: the sm80 kernel's ``s3-k32-i4-w2x2[-caab][-direct]`` (stages, channels per K-block,
images per CTA, warps, operands copied with ``cp.async.ca``, epilogue), the Hopper kernel's
``sm90-i16-s4-wg2-f1[-qpzn][-ws][-tma|-tmaf][-mf|-sa|-sb][-taps][-gidx][-clamp|-peel|-branch][-direct]`` (images per CTA, stages, consumer
warpgroups, wgmma K-blocks in flight, output positions ordered (Q,P,Z,N), warp-specialized, the dense activation through TMA im2col
and the filter through tile TMA instead of cp.async (``-tmaf``: the filter only, in both kernels), wgmmas issued before the copies (``-sa``/``-sb``: before the activation's / the filter's copies only), gather
indices read from global memory instead of the CTA's slices staged in shared memory, the
plain mainloop's last stages copying the last K-tile again instead of nothing (``-peel``: in a loop of their own; ``-taps``: with ``-peel``, the two K-tiles of a tap per iteration), epilogue
straight from the accumulators), ``sm80``: the sm80 tiling ``conv3d_fprop`` runs for that N on
a GPU without wgmma (``sm80_config``), and ``sm90``: what ``conv3d_fprop`` runs on an
H100/H200 for that N (its dense and its gather kernel,
``default_kernels``, each its own tiling: the dense one may load through TMA), timed also
against the gather kernel's *dense twin* (the same kernel body, tiling, cp.async loads and
epilogue over dense layouts: the issue's twin) and the cp.async dense kernel conv3d_fprop ran
before it had TMA tilings. ``dense:NAME`` times that tiling's dense kernel only. Hopper rows
are skipped on other GPUs. The GPU is timed as found (its
clock is printed); run-to-run spread on an H100 was up to 10% for the same kernel.

Needs an NVIDIA GPU and torch with CUDA. For each N:

1. random normal inputs rounded to TF32 (so that the products are exact and only the summation
   order differs between implementations), a gather vector that is a random permutation into an
   activation pool 1/8 larger than needed, a scatter vector likewise into an output pool;
2. every layoutc kernel runs once through ``conv3d_fprop`` (its checks included) and is compared
   with torch's FP32 conv3d (TF32 off): relative error (max |diff| / max |ref|) at most 1e-4,
   and the output rows the scatter does not name must be untouched;
3. timing with CUDA events (warm-up, then the median over samples of back-to-back batches,
   every kernel of one N taking turns batch by batch, each sample's round in its own random
   order (``--fixed-order``: always the same order, as before)):
   cuDNN = ``torch.nn.functional.conv3d`` on channels-last-3d tensors with TF32 enabled; the
   torch gather pipeline = ``index_select`` + conv3d + ``index_copy_`` on the same index sets;
   layoutc's kernels launched with their bound arguments.

The table gives TFLOP/s (``7,077,888 * N`` FLOP per convolution) and the ratios the issue's goals
name: dense / cuDNN, gather / its dense twin, gather / the torch pipeline; and per kernel the
registers, local memory (spills), shared memory and CTAs per SM of the loaded cubin. The GPU
name and its SM clock (current and max, from nvidia-smi) are printed first.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 1e-4


def _example() -> Any:
    spec = importlib.util.spec_from_file_location(
        "conv3d_fprop", ROOT / "examples" / "conv3d_fprop.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["conv3d_fprop"] = module
    spec.loader.exec_module(module)
    return module


def config_from_name(cv: Any, name: str) -> Any:
    """``s3-k32-i4-w2x2`` -> ConvConfig(stages=3, bk=32, images=4, warps 2x2) (ConvConfig.name's
    spelling; trailing parts may be left out)."""
    if name in ("sm80", "sm90"):  # what conv3d_fprop runs on an sm_80 / sm_90 GPU for this N
        return name
    if name.startswith("sm90"):
        return sm90_config_from_name(cv, name)
    try:
        parts = name.split("-")
        kw: dict = {}
        for part in parts:
            key = {"s": "stages", "k": "bk", "i": "images"}.get(part[0])
            if key is not None:
                kw[key] = int(part[1:])
            elif part == "direct":
                kw["epilogue"] = "direct"
            elif part[0] == "m":
                kw["min_blocks"] = int(part[1:])
            elif part.startswith("ca"):
                kw["l1"] = part[2:]
            elif part[0] == "w":
                kw["warps_m"], kw["warps_n"] = (int(x) for x in part[1:].split("x"))
            else:
                raise ValueError(part)
        return cv.ConvConfig(**kw)
    except Exception:
        raise SystemExit(
            f"config names look like s3-k32-i4-w2x2 (stages, channels per K-block, images per "
            f"CTA, warps): {name!r}"
        ) from None


def sm90_config_from_name(cv: Any, name: str) -> Any:
    """``sm90-i8-s4-wg2-f1[-ws]`` -> Sm90Config(images=8, stages=4, warpgroups=2,
    mma_in_flight=1, specialized=...) (Sm90Config.name's spelling)."""
    try:
        kw: dict = {}
        for part in name.split("-")[1:]:
            if part == "ws":
                kw["specialized"] = True
            elif part.startswith("wg"):
                kw["warpgroups"] = int(part[2:])
            elif part == "direct":
                kw["epilogue"] = "direct"
            elif part == "ra":
                kw["reg_alloc"] = True
            elif part == "mf":
                kw["mma_first"] = True
            elif part == "gidx":
                kw["index_smem"] = False
            elif part in ("tma", "tmaf"):
                kw["loads"] = "tma" if part == "tma" else "tma-filter"
            elif part in ("clamp", "peel", "branch"):
                kw["tail"] = part
            elif part == "qpzn":
                kw["order"] = part
            elif part in ("sa", "sb"):
                kw["split"] = part[1]
            elif part == "taps":
                kw["taps"] = True
            else:
                key = {"i": "images", "s": "stages", "f": "mma_in_flight"}[part[0]]
                kw[key] = int(part[1:])
        return cv.Sm90Config(**kw)
    except Exception:
        raise SystemExit(
            f"Hopper config names look like sm90-i8-s4-wg2-f1 or sm90-i8-s4-wg2-f1-ws (images "
            f"per CTA, stages, consumer warpgroups, wgmma K-blocks in flight, warp-specialized): "
            f"{name!r}"
        ) from None


def gpu_clock() -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20,
        ).stdout.strip()  # fmt: skip
        return f"SM clock (current, max): {out}" if out else "SM clock: nvidia-smi said nothing"
    except Exception as e:
        return f"SM clock unknown ({e})"


def bench(torch: Any, fns: list, samples: int, batch: int, shuffle: bool = True) -> list[float]:
    """Median seconds per call of each function over ``samples`` batches of ``batch``
    back-to-back calls, the functions taking turns batch by batch, so that clock changes
    during the run (an H100 moved 10% between runs) hit all of them alike and the ratios
    hold. ``shuffle``: each sample's round in its own random order (seeded), so that no
    kernel always follows the same one: in a fixed order (also rotated, which keeps the
    neighbours), the kernels right after the torch pipeline's memory-bound batch ran at a
    higher clock than those later in the round: the same code measured up to 12% faster
    there at N = 131072 (H100 and H200; docs/example59.md section 7)."""
    for fn in fns:
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    for sample in range(samples):
        if shuffle:
            random.Random(sample).shuffle(order)
        for i in order:
            start.record()
            for _ in range(batch):
                fns[i]()
            end.record()
            end.synchronize()
            times[i].append(start.elapsed_time(end) / 1e3 / batch)
    return [statistics.median(t) for t in times]


def tf32(torch: Any, x: Any) -> Any:
    bits = x.contiguous().view(torch.int32).to(torch.int64)
    return ((bits + 0x1000) & 0xFFFFE000).to(torch.int32).view(torch.float32)


def resources(ck: Any, block: int) -> str:
    """regs / local bytes / smem / CTAs per SM of a loaded kernel."""
    try:
        from layoutc.runtime import cuda_driver as cd

        kernel = ck.load()
        regs = kernel.attribute("NUM_REGS")
        local = kernel.attribute("LOCAL_SIZE_BYTES")
        dynamic = ck.runtime_spec.dynamic_smem
        smem = kernel.attribute("SHARED_SIZE_BYTES") + dynamic
        ctas = cd.check(
            cd.api().cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel.function, block, dynamic),
            "asking the occupancy calculator",
        )
        return f"{regs:>4} {local:>5} {smem // 1024:>4}K {int(ctas):>3}"
    except Exception as e:
        return f"resources unknown: {e}"


class Problem:
    """The operands of one N (torch CUDA tensors) and torch's reference output."""

    def __init__(self, torch: Any, cv: Any, n: int, seed: int):
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        dev = "cuda"
        self.n = n
        self.act = tf32(torch, torch.randn((n, cv.D, cv.H, cv.W, cv.C), device=dev, generator=g))
        self.flt = tf32(torch, torch.randn((cv.K, cv.T, cv.R, cv.S, cv.C), device=dev, generator=g))
        g_rows, o_rows = n * 96 + n * 96 // 8, n * 16 + n * 16 // 8
        self.gather = torch.randperm(g_rows, device=dev, generator=g)[: n * 96].to(torch.int32)
        self.scatter = torch.randperm(o_rows, device=dev, generator=g)[: n * 16].to(torch.int32)
        self.pool = tf32(torch, torch.randn((g_rows, cv.C), device=dev, generator=g))
        self.pool[self.gather.long()] = self.act.reshape(-1, cv.C)
        self.out_rows = o_rows
        # channels-last-3d views for torch: (N,C,D,H,W) over NDHWC memory
        self.x = self.act.permute(0, 4, 1, 2, 3)
        self.w = self.flt.permute(0, 4, 1, 2, 3)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        ref = torch.nn.functional.conv3d(self.x, self.w)  # FP32 reference
        self.ref = ref.permute(0, 2, 3, 4, 1).contiguous()  # (N,Z,P,Q,K)
        torch.backends.cudnn.allow_tf32 = True
        self.flops = cv.FLOPS_PER_IMAGE * n


def rel_error(torch: Any, got: Any, want: Any) -> float:
    return float((got - want).abs().max() / want.abs().max())


def launcher(ck: Any, bound: Any, grid: tuple, block: int) -> Any:
    """A launch of a compiled kernel with arguments bound once (no per-call checks)."""
    return lambda: ck.launch_bound(bound, grid, block, None, None)


def run_size(
    torch: Any,
    cv: Any,
    n: int,
    configs: list,
    samples: int,
    log: Any,
    kinds: tuple = ("dense", "gather"),
    probe: bool = False,
    shuffle: bool = True,
) -> list[tuple]:
    """The rows of one N. ``probe``: each gather kernel is timed a second time with identity
    index vectors (row i of the pools is position i: the dense kernel's addresses through the
    gather kernel's code), which tells the cost of the gather's code from that of its access
    pattern (random rows over a pool of N * 108 rows)."""
    import layoutc as lc

    p = Problem(torch, cv, n, seed=n)
    batch = max(2, min(20, int(3e12 // p.flops)))
    rows: list[tuple] = []
    fns: list = []  # timed together at the end (bench): rows hold their index until then

    def later(fn: Any) -> int:
        fns.append(fn)
        return len(fns) - 1

    # cuDNN, dense (TF32)
    torch.backends.cudnn.allow_tf32 = True

    def cudnn() -> None:
        torch.nn.functional.conv3d(p.x, p.w)

    t_cudnn = later(cudnn)
    rows.append(("cuDNN conv3d (TF32, NDHWC)", "dense", n, t_cudnn, p.flops, "", None))

    # torch pipeline, gather/scatter
    g64, s64 = p.gather.long(), p.scatter.long()
    out_pool_t = torch.zeros((p.out_rows, cv.K), device="cuda")

    def pipeline() -> None:
        a = p.pool.index_select(0, g64).view(n, cv.D, cv.H, cv.W, cv.C).permute(0, 4, 1, 2, 3)
        o = torch.nn.functional.conv3d(a, p.w)  # channels-last-3d out
        out_pool_t.index_copy_(0, s64, o.permute(0, 2, 3, 4, 1).reshape(-1, cv.K))

    if "gather" in kinds:
        pipeline()
        err = rel_error(torch, out_pool_t[s64].view(n, 4, 2, 2, 128), p.ref)
        t_pipe = later(pipeline)
        rows.append(
            ("torch index_select+conv3d+index_copy_", "gather", n, t_pipe, p.flops, "", err)
        )

    for cfg in configs:
        try:
            only_dense = isinstance(cfg, tuple)  # ("dense", config): no gather kernel
            if only_dense:
                cfg = cfg[1]
            hopper = cfg == "sm90" or isinstance(cfg, cv.Sm90Config)
            if hopper and torch.cuda.get_device_capability() != (9, 0):
                log(f"   {cfg}: skipped (needs an sm_90 GPU)")
                continue
            twins: list = []  # (label, dense kernel): more dense kernels to time the gather by
            if cfg == "sm90":  # conv3d_fprop's choice: its dense and gather kernels
                dense, gathered = cv.default_kernels(n, "sm_90a")
                cfg, gcfg = dense.config, gathered.config
                # dense: epilogue from registers, maybe TMA loads; gather: cp.async, through
                # shared memory. The "dense twin" is the gather kernel's own body over
                # dense layouts: the same tiling, loads and epilogue (`twin`); `cp.async` is
                # the dense kernel conv3d_fprop ran before it had TMA tilings.
                tma = "-tma" if cfg.loads == "tma" else ""
                name = f"sm90 conv3d_fprop i{cfg.images}-s{cfg.stages}{tma}"
                gname = f"sm90 conv3d_fprop i{gcfg.images}-s{gcfg.stages}"
                twins = [
                    ("twin", cv.make_conv3d_sm90(gcfg)[0]),
                    ("cp.async", cv.hopper_kernel(gcfg, "dense")),
                ]
            elif cfg == "sm80":  # conv3d_fprop's choice on a GPU without wgmma
                dense, gathered = cv.default_kernels(n, "sm_80")
                cfg = gcfg = dense.config
                name = gname = f"sm80 {cfg.name}"
            else:
                if n % cfg.images:
                    log(f"   {cfg.name}: skipped ({cfg.images} images per CTA do not divide N)")
                    continue
                dense, gathered = cv.make_conv3d_sm90(cfg) if hopper else cv.make_conv3d(cfg)
                name = gname = cfg.name
                gcfg = cfg
            # dense: compiled with 32-bit indices (the offsets fit), checked, then timed
            for label, kernel in [("", dense), *twins]:
                kcfg = kernel.config
                grid = (n // kcfg.images,)
                out = torch.full((n, cv.Z, cv.P, cv.Q, cv.K), float("nan"), device="cuda")
                args = (p.act, p.flt, out)
                ck = lc.compile(kernel, *args, target="cuda", block=kcfg.threads, index_bitwidth=32)
                bound = ck.bind(args, {})
                ck.launch_bound(bound, grid, kcfg.threads, None, None)
                torch.cuda.synchronize()
                err = rel_error(torch, out, p.ref)
                t = later(launcher(ck, bound, grid, kcfg.threads))
                dname = f"layoutc dense {name}" if not label else f"layoutc dense {gname} {label}"
                rows.append((dname, "dense", n, t, p.flops, resources(ck, kcfg.threads), err))
                if label or ("gather" in kinds and not only_dense):
                    own = "conv3d_fprop's" if twins else "its"
                    TWINS.append((n, f"layoutc gather {gname}", dname, label or own))
            if "gather" not in kinds or only_dense:
                log(f"   {name}: checked", flush=True)
                continue
            # gather/scatter: the same, plus the rows the scatter does not name stay untouched
            grid = (n // gcfg.images,)
            opool = torch.full((p.out_rows, cv.K), 7.0, device="cuda")
            args = (p.pool, p.flt, opool, p.gather, p.scatter)
            ck = lc.compile(gathered, *args, target="cuda", block=gcfg.threads, index_bitwidth=32)
            bound = ck.bind(args, {})
            ck.launch_bound(bound, grid, gcfg.threads, None, None)
            torch.cuda.synchronize()
            err = rel_error(torch, opool[s64].view(n, 4, 2, 2, 128), p.ref)
            untouched = torch.ones(p.out_rows, dtype=torch.bool, device="cuda")
            untouched[s64] = False
            if not bool((opool[untouched] == 7.0).all()):
                log(f"   gather {name} N={n}: rows outside the scatter were written")
                err = float("inf")
            t = later(launcher(ck, bound, grid, gcfg.threads))
            if probe:  # the same kernel over identity indices (checked too)
                ident_g = torch.arange(n * 96, dtype=torch.int32, device="cuda")
                ident_s = torch.arange(n * 16, dtype=torch.int32, device="cuda")
                ipool = p.pool.clone()
                ipool[: n * 96] = p.act.reshape(-1, cv.C)
                iopool = torch.full((p.out_rows, cv.K), 7.0, device="cuda")
                iargs = (ipool, p.flt, iopool, ident_g, ident_s)
                ibound = ck.bind(iargs, {})
                ck.launch_bound(ibound, grid, gcfg.threads, None, None)
                torch.cuda.synchronize()
                ierr = rel_error(torch, iopool[: n * 16].view(n, 4, 2, 2, 128), p.ref)
                rows.append((f"layoutc gather {gname} identity", "probe", n,
                             later(launcher(ck, ibound, grid, gcfg.threads)), p.flops, "",
                             ierr))  # fmt: skip
            rows.append(
                (
                    f"layoutc gather {gname}",
                    "gather",
                    n,
                    t,
                    p.flops,
                    resources(ck, gcfg.threads),
                    err,
                )
            )
        except Exception:  # one tiling failing does not hide the others' numbers
            traceback.print_exc()
            for kind in ("dense", "gather"):
                rows.append((f"layoutc {kind} {cfg}", kind, n, float("inf"), p.flops, "",
                             float("inf")))  # fmt: skip
            continue
        log(f"   {name}: checked", flush=True)
    times = bench(torch, fns, samples, batch, shuffle)
    rows = [(*r[:3], times[r[3]] if type(r[3]) is int else r[3], *r[4:]) for r in rows]
    for r in rows:
        log(f"   {r[0]}: {r[4] / r[3] / 1e12:.1f} TFLOP/s", flush=True)
    return rows


def table(rows: list[tuple]) -> list[str]:
    out = [
        f"{'kernel':<50} {'N':>7} {'time':>10} {'TFLOP/s':>8} {'check':>9}  {'regs':>4} "
        f"{'local':>5} {'smem':>5} {'CTA/SM':>3}"
    ]
    for name, _kind, n, t, flops, res, err in rows:
        check = "" if err is None else (f"{err:.1e}" if err <= TOLERANCE else "FAILED")
        out.append(
            f"{name:<50} {n:>7} {t * 1e3:>8.3f}ms {flops / t / 1e12:>8.1f} {check:>9}  {res}"
        )
    return out


# (N, gather row, dense row, what the dense row is to the gather kernel): the pairs whose
# ratio the goal "gather at least 0.9x its dense twin" is read on (run_size fills it)
TWINS: list[tuple] = []


def ratios(rows: list[tuple]) -> list[str]:
    out = []
    for n in sorted({r[2] for r in rows}):
        at = {r[0]: r[3] for r in rows if r[2] == n}
        cudnn = min(t for name, t in at.items() if name.startswith("cuDNN"))
        pipe = at.get("torch index_select+conv3d+index_copy_")
        for name, t in at.items():
            if name.startswith("layoutc dense"):
                goal = "1.5" if "sm90" in name else "1.0"
                out.append(f"N={n:>6} {name[14:]:<38} {cudnn / t:5.2f}x cuDNN (goal {goal})")
            elif name.endswith(" identity") and name[: -len(" identity")] in at:
                random = at[name[: -len(" identity")]]
                out.append(
                    f"N={n:>6} {name[15:-9]:<38} gather on identity indices {random / t:5.2f}x "
                    "faster than on random rows"
                )
            elif name.startswith("layoutc gather") and pipe is not None:
                line = f"N={n:>6} {name[15:]:<38} gather {pipe / t:5.2f}x the torch pipeline"
                out.append(line + " (goal 2.5)")
        for m, gather, dense, label in TWINS:
            if m == n and gather in at and dense in at:
                out.append(
                    f"N={n:>6} {gather[15:]:<38} gather {at[dense] / at[gather]:5.2f}x "
                    f"{label} dense {dense[14:]} (goal 0.9)"
                )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4320,131072")
    ap.add_argument("--configs", default="s3-k32-i4-w2x2,sm80,sm90")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--kinds", default="dense,gather", help="dense, gather or both")
    ap.add_argument(
        "--probe", action="store_true", help="time each gather kernel on identity indices too"
    )
    ap.add_argument(
        "--fixed-order",
        action="store_true",
        help="every sample's round in the same order (the old way: biased by neighbours)",
    )
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("benchmarks/conv.py needs torch with CUDA and a GPU")
        return 2
    cv = _example()
    # "dense:NAME": that tiling's dense kernel only
    configs = [
        ("dense", config_from_name(cv, c[6:]))
        if c.startswith("dense:")
        else config_from_name(cv, c)
        for c in args.configs.split(",")
    ]
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    print(gpu_clock())
    rows: list[tuple] = []
    failed = False
    for n in (int(s) for s in args.sizes.split(",")):
        print(f"== N = {n}", flush=True)
        try:
            kinds = tuple(args.kinds.split(","))
            rows += run_size(
                torch, cv, n, configs, args.samples, print, kinds, args.probe, not args.fixed_order
            )
        except Exception:
            traceback.print_exc()
            failed = True
        torch.cuda.empty_cache()
    print(gpu_clock())
    print()
    print("\n".join(table(rows)))
    print()
    print("\n".join(ratios(rows)))
    failed = failed or any(r[6] is not None and not r[6] <= TOLERANCE for r in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
