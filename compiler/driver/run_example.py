"""Running an :class:`~.example.Example`: compile, move data, launch, check against numpy, time.

:func:`run_example` returns a :class:`RunResult`; :func:`format_result` renders the report that
``layoutc run`` prints (what ran where, with which backend and vector width, how fast, whether
the result matched numpy and whether the compile came from the cache).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .example import Example
from .remarks import Remark
from .targets import BuildTarget, resolve_target
from .timing import format_rate, format_seconds, median, time_cpu, time_gpu


@dataclass
class CheckResult:
    ok: bool
    detail: str


@dataclass
class RunResult:
    example: Example
    size: int
    target: BuildTarget
    device: str
    backend: str
    compile_seconds: float
    stages: dict[str, float]
    cache_hit: bool
    vector_bits: list[int] | None
    remarks: list[Remark]
    check: CheckResult | None
    times: list[float] = field(default_factory=list)
    bytes: int | None = None
    flops: int | None = None

    @property
    def seconds(self) -> float:
        return median(self.times)

    @property
    def ok(self) -> bool:
        return self.check is None or self.check.ok


def compare(name: str, actual: Any, expected: Any, rtol: float, atol: float) -> CheckResult:
    """Exact equality when both tolerances are 0, else numpy's isclose; NaN never matches."""
    import numpy as np

    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        return CheckResult(False, f"{name}: shape {actual.shape}, expected {expected.shape}")
    a64 = actual.astype(np.float64)
    e64 = expected.astype(np.float64)
    if rtol == 0 and atol == 0:
        bad = ~(a64 == e64)
    else:
        bad = ~np.isclose(a64, e64, rtol=rtol, atol=atol)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a64 - e64)
    finite = diff[~np.isnan(diff)]
    worst = float(finite.max()) if finite.size else 0.0
    count = int(np.count_nonzero(bad))
    if count == 0:
        return CheckResult(True, f"{name} matches numpy (max abs error {worst:.3g})")
    nans = int(np.count_nonzero(np.isnan(a64)))
    first = np.unravel_index(int(np.argmax(bad)), bad.shape)
    return CheckResult(
        False,
        f"{name}: {count} of {bad.size} elements differ ({nans} NaN); first at index "
        f"{tuple(int(i) for i in first)}: got {actual[first].item()!r}, expected {expected[first].item()!r}; "
        f"max abs error {worst:.3g}",
    )


def _copy_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    import numpy as np

    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in arguments.items()}


class DeviceCopy:
    """A device copy of a host array with the same shape and strides (numpy views such as
    ``out.T`` or ``buf[::2, ::2]`` keep their layout), exported through
    ``__cuda_array_interface__``."""

    def __init__(self, host: Any) -> None:
        import numpy as np
        from layoutc.runtime.cuda_memory import DeviceBuffer

        if any(s < 0 for s in host.strides):
            raise ValueError("arrays with negative strides cannot be copied to the GPU")
        self.shape = tuple(host.shape)
        self.byte_strides = tuple(host.strides)
        self.dtype = host.dtype
        item = host.itemsize
        empty = any(n == 0 for n in self.shape)
        self.span = (
            0
            if empty
            else 1 + sum((n - 1) * (s // item) for n, s in zip(self.shape, self.byte_strides))
        )
        flat = np.ascontiguousarray(
            np.lib.stride_tricks.as_strided(host, (self.span,), (item,), writeable=False)
        )
        self.buffer = DeviceBuffer(max(self.span, 1) * item)
        if self.span:
            self.buffer.copy_from_host(flat.ctypes.data, flat.nbytes)
        self.buffer.device.synchronize()

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.buffer.ptr, False),
            "strides": self.byte_strides,
            "version": 3,
        }

    def to_host(self) -> Any:
        import numpy as np

        flat = np.empty(max(self.span, 1), self.dtype)
        self.buffer.device.synchronize()
        if self.span:
            self.buffer.copy_to_host(flat.ctypes.data, self.span * self.dtype.itemsize)
        self.buffer.device.synchronize()
        return np.lib.stride_tricks.as_strided(flat, self.shape, self.byte_strides)


def describe_device(target: BuildTarget) -> str:
    if not target.is_gpu:
        from layoutc.runtime.cpu_kernel import worker_count

        return f"CPU ({os.cpu_count()} cores, {worker_count()} worker threads)"
    from layoutc.runtime import cuda_driver

    dev = cuda_driver.current_device()
    return f"GPU {dev.ordinal}: {dev.name} (compute capability {dev.capability[0]}.{dev.capability[1]})"


def run_example(
    example: Example,
    *,
    target: Any = None,
    size: int | None = None,
    repeat: int | None = None,
    seed: int = 0,
    check: bool = True,
) -> RunResult:
    """Compile and run ``example`` once, check it, then time ``repeat`` more launches."""
    import numpy as np

    from .jit import compile

    build_target = resolve_target(target)
    on_gpu = build_target.is_gpu
    n = example.size_for(on_gpu, size)
    rng = np.random.default_rng(seed)
    arguments = example.inputs(n, rng)
    ordered = example.ordered_arguments(arguments)
    expected = dict(example.reference(_copy_arguments(arguments))) if check else {}
    launch = dict(example.launch(arguments))
    if "grid" not in launch:
        raise TypeError(f"example '{example.title}': launch() must give grid= (and block=)")
    block = launch.pop("block", None)

    start = time.perf_counter()
    ck = compile(example.kernel, *ordered, target=build_target, block=block)
    ck.load()
    compile_seconds = time.perf_counter() - start

    if on_gpu:
        device = {
            name: DeviceCopy(v) if isinstance(v, np.ndarray) else v for name, v in arguments.items()
        }
        call_args = [device[name] for name in example.kernel.signature.parameters]
    else:
        call_args = ordered
    ck(*call_args, block=block, **launch)  # the checked call
    bound = ck.bind(tuple(call_args), {})

    def run_once() -> None:  # later launches skip the argument checks (same arguments)
        ck.launch_bound(
            bound,
            launch["grid"],
            block,
            launch.get("smem"),
            launch.get("stream"),
            launch.get("cluster"),
        )

    if on_gpu:
        from layoutc.runtime import cuda_driver

        cuda_driver.current_device().synchronize()
        results = {name: device[name].to_host() for name in expected}
    else:
        results = {name: arguments[name] for name in expected}

    outcome = None
    if check:
        checks = [
            compare(name, results[name], want, example.rtol, example.atol)
            for name, want in expected.items()
        ]
        outcome = CheckResult(all(c.ok for c in checks), "; ".join(c.detail for c in checks))

    reps = repeat if repeat is not None else (20 if on_gpu else 3)
    times = (time_gpu if on_gpu else time_cpu)(run_once, reps) if reps > 0 else []
    return RunResult(
        example=example,
        size=n,
        target=build_target,
        device=describe_device(build_target),
        backend=ck.backend,
        compile_seconds=compile_seconds,
        stages=dict(ck.timings),
        cache_hit=ck.cache_hit,
        vector_bits=ck.vector_bits,
        remarks=ck.remarks,
        check=outcome,
        times=times,
        bytes=example.bytes(arguments) if example.bytes else None,
        flops=example.flops(arguments) if example.flops else None,
    )


_STAGES = ("trace", "passes", "translate", "ptx", "cubin", "load")


def format_result(r: RunResult) -> str:
    """The report ``layoutc run`` prints for one example."""
    lines = [
        f"example   {r.example.title}"
        + (f": {r.example.description}" if r.example.description else "")
    ]
    lines.append(f"size      {r.size}")
    lines.append(f"ran on    {r.device}")
    lines.append(f"target    {r.target.describe()}")
    lines.append(f"backend   {r.backend}")
    if r.vector_bits:
        widths = ", ".join(f"{b}-bit" if b else "unvectorized" for b in r.vector_bits)
        lines.append(f"copies    {widths} accesses (proven by prove-vectorization)")
    for remark in r.remarks:
        where = ""
        if remark.location:
            file, line, _col = remark.location.rsplit(":", 2)
            where = f"{os.path.basename(file)}:{line}: "
        lines.append(f"remark    {where}{remark.message}")
    stages = ", ".join(
        f"{name} {format_seconds(r.stages[name])}" for name in _STAGES if name in r.stages
    )
    cache = "cache hit" if r.cache_hit else "cache miss"
    lines.append(f"compile   {format_seconds(r.compile_seconds)} ({cache}; {stages})")
    if r.check is not None:
        lines.append(f"check     {'passed' if r.check.ok else 'FAILED'}: {r.check.detail}")
    if r.times:
        rates = []
        if r.bytes:
            rates.append(format_rate(r.bytes, r.seconds, "B/s"))
        if r.flops:
            rates.append(format_rate(r.flops, r.seconds, "FLOP/s"))
        rate = f" -> {', '.join(rates)}" if rates else ""
        lines.append(f"time      {format_seconds(r.seconds)} median of {len(r.times)}{rate}")
    return "\n".join(lines)
