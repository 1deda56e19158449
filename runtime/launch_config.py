"""Normalising launch configuration shared by the GPU and CPU runtimes (grid, block, stream)."""

from __future__ import annotations

import sys
from typing import Any

from .abi import LaunchBounds
from .errors import ArgumentError

Dim3 = tuple[int, int, int]


def dim3(value: Any, what: str, kernel: str) -> Dim3:
    """``8`` or ``(8,)`` or ``(8, 2)`` or ``(8, 2, 1)`` -> ``(8, 2, 1)``, all positive."""
    kind = type(value)
    if kind is int and value >= 1:  # fast paths: the common spellings, checked cheaply
        return (value, 1, 1)
    if kind is tuple and len(value) == 3:
        x, y, z = value
        if type(x) is int and type(y) is int and type(z) is int and x >= 1 and y >= 1 and z >= 1:
            return value
    if isinstance(value, int):
        dims = (value,)
    else:
        try:
            dims = tuple(value)
        except TypeError:
            raise ArgumentError(
                f"kernel {kernel!r}: {what} must be an int or a tuple of up to 3 ints, got {value!r}"
            ) from None
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d >= 1 for d in dims):
        raise ArgumentError(
            f"kernel {kernel!r}: {what} must be 1 to 3 positive ints, got {value!r}"
        )
    return (*dims, 1, 1)[:3]  # type: ignore[return-value]


def check_block(block: Dim3, bounds: LaunchBounds, kernel: str) -> None:
    """Refuse a block shape that breaks the kernel's launch bounds (a GPU would refuse too)."""
    threads = block[0] * block[1] * block[2]
    if bounds.block is not None and tuple(bounds.block) != block:
        raise ArgumentError(
            f"kernel {kernel!r} was compiled for block {tuple(bounds.block)}, launched with {block}"
        )
    if bounds.max_threads is not None and threads > bounds.max_threads:
        raise ArgumentError(
            f"kernel {kernel!r} allows at most {bounds.max_threads} threads per block "
            f"(launch bounds), launched with {threads}"
        )
    if threads > 1024:
        raise ArgumentError(f"kernel {kernel!r}: {threads} threads per block exceeds 1024")


def framework_stream(device: int) -> int:
    """The stream a launch without ``stream=`` goes on: torch's current stream on ``device``
    once torch has initialised CUDA (Triton's rule, so kernels join ``torch.cuda.stream(s)``
    blocks and CUDA graph captures), else 0, the legacy default stream. torch is never
    imported here: a process that has not imported it has no torch stream to follow."""
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return 0
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if raw is not None:  # the cheap accessor torch's own launchers use
        return int(raw(device))
    return int(cuda.current_stream(device).cuda_stream)


def stream_handle(stream: Any) -> int:
    """A raw ``CUstream`` handle from None (default stream), an int, a torch or CuPy stream,
    anything with ``__cuda_stream__`` or a ``cuda.bindings`` ``CUstream``."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        _, handle = protocol()
        return int(handle)
    for attr in ("cuda_stream", "ptr", "handle"):
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    try:
        return int(stream)
    except (TypeError, ValueError):
        raise ArgumentError(f"cannot use {type(stream).__name__} as a CUDA stream") from None
