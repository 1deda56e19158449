"""Which kernel cuBLAS (``torch.mm``) runs for the sm90 GEMM benchmark's shapes and types.

The kernel's name encodes its tiling: ``nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB`` is a CTA
tile of 320 x 128 with K-blocks of 64, 3 stages, a 1 x 2 cluster, the cooperative schedule
(``pingpong`` ping-pong); ``sm90_xmma_gemm_..._256x128x32_..._cga2x1x1`` likewise;
``splitK``/``streamk``/``_sk`` mark the split or stream-K schedulers. Shapes and types as
benchmarks/gemm_sm90_ws.py takes them (C in the input type, as that benchmark writes it;
tf32 with ``allow_tf32``), each launched a few times under ``torch.profiler``:

    python benchmarks/gemm_cublas_kernels.py [--shapes 4096,4000,8192] [--dtypes bf16,f16,tf32]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gemm_sm90_ws as ws


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="4096,4000,8192,8192x4096x6144")
    p.add_argument("--dtypes", default="bf16,f16,tf32")
    args = p.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to look at")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = True
    print(ws.gpu_header(torch), flush=True)
    rows = []
    for dtype in filter(None, args.dtypes.split(",")):
        for text in filter(None, args.shapes.split(",")):
            m, n, k = ws.parse_shape(text)
            gen = torch.Generator(device="cuda").manual_seed(0)
            a, b = ws.operands(torch, dtype, m, n, k, gen)
            c = torch.empty((m, n), device="cuda", dtype=a.dtype)
            for _ in range(3):
                torch.mm(a, b.t(), out=c)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(3):
                    torch.mm(a, b.t(), out=c)
                torch.cuda.synchronize()
            for ev in prof.key_averages():
                if ev.device_type.name == "CUDA" or getattr(ev, "device_time", 0):
                    us = getattr(ev, "device_time", None) or getattr(ev, "cuda_time", 0.0)
                    rows.append(f"{dtype:<5} {m}x{n}x{k:<6} {ev.count:>3} {us:>9.1f}  {ev.key}")
                    print(rows[-1], flush=True)
            del a, b, c
            torch.cuda.empty_cache()
    print()
    print(f"{'type':<5} {'MxNxK':<16} {'n':>3} {'us/call':>9}  kernel")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
