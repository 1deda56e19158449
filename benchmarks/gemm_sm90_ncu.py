"""Launch the warp-specialized sm90 GEMM (benchmarks/gemm_sm90_ws.py's configurations) and
cuBLAS once each at one shape, for a profiler to look at side by side:

    ncu -k regex:'gemm|nvjet' --section SpeedOfLight --section WarpStateStats -o prof \\
        python benchmarks/gemm_sm90_ncu.py --shape 8192 --configs "bf16:bm=128,bn=256"

Each configuration first runs once at a small shape (it sets the shared-memory limit and
finds the persistent grid: those small launches show in the profile too), then once at the
shape; then cuBLAS (``torch.mm``) runs once per element type seen, on the same operands.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gemm_sm90_ws as ws


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", default="8192")
    p.add_argument("--configs", default=ws.DEFAULT_CONFIGS[1], help="';'-separated")
    args = p.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to profile")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = True
    g = ws._gemm_module()
    m, n, k = ws.parse_shape(args.shape)
    gen = torch.Generator(device="cuda").manual_seed(0)
    operands: dict[str, tuple] = {}
    for text in filter(None, args.configs.split(";")):
        cfg, build = ws.make_config(g, text)
        ours = ws.Ours(g, cfg, torch, build)
        small = ws.operands(torch, cfg.dtype, 256, 256, 256, gen)
        ours(*small, torch.empty((256, 256), device="cuda", dtype=ours.c_type(torch)))
        if cfg.dtype not in operands:
            operands[cfg.dtype] = ws.operands(torch, cfg.dtype, m, n, k, gen)
        a, b = operands[cfg.dtype]
        c = torch.empty((m, n), device="cuda", dtype=ours.c_type(torch))
        ours(a, b, c)
        torch.cuda.synchronize()
        print(f"{ws.build_label(cfg, build)}: grid {cfg.grid(m, n, ours.slots)}", flush=True)
    for dtype, (a, b) in operands.items():
        c = torch.mm(a, b.t())
        torch.cuda.synchronize()
        print(f"cuBLAS {dtype}: {tuple(c.shape)} {c.dtype}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
