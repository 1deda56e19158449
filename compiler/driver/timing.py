"""Timing launches: CUDA events on the GPU, wall clock on the CPU; median of repeats.

GPU timings use the driver's events on the legacy default stream (the stream kernels launch on
by default), bracketing each launch, after warm-up launches; the CPU's are ``perf_counter``
around synchronous launches.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def time_cpu(fn: Callable[[], None], repeat: int, warmup: int = 1) -> list[float]:
    """Seconds per call of ``fn`` (synchronous), ``repeat`` times after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def time_gpu(fn: Callable[[], None], repeat: int, warmup: int = 3) -> list[float]:
    """Seconds per launch of ``fn`` measured with CUDA events, ``repeat`` times."""
    from layoutc.runtime import cuda_driver as cd

    drv = cd.api()
    device = cd.current_device()
    device.activate()
    for _ in range(warmup):
        fn()
    device.synchronize()
    begin = cd.check(drv.cuEventCreate(0), "creating a CUDA event")
    end = cd.check(drv.cuEventCreate(0), "creating a CUDA event")
    out = []
    try:
        for _ in range(repeat):
            cd.check(drv.cuEventRecord(begin, 0), "recording a CUDA event")
            fn()
            cd.check(drv.cuEventRecord(end, 0), "recording a CUDA event")
            cd.check(drv.cuEventSynchronize(end), "waiting for a CUDA event")
            ms = cd.check(drv.cuEventElapsedTime(begin, end), "reading a CUDA event timer")
            out.append(float(ms) / 1e3)
    finally:
        drv.cuEventDestroy(begin)
        drv.cuEventDestroy(end)
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def format_seconds(seconds: float) -> str:
    if seconds != seconds:  # NaN
        return "n/a"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def format_rate(amount: float, seconds: float, unit: str) -> str:
    """``123.4 GB/s`` style: ``amount`` per second with an SI prefix."""
    if not seconds or seconds != seconds:
        return "n/a"
    rate = amount / seconds
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:.1f} {prefix}{unit}"
    return f"{rate:.1f} {unit}"
