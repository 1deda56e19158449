"""Validating what configures a launch, in one place for the CPU, GPU and AOT launch paths:
grid, block, dynamic shared memory, stream, and the environment variables the runtimes read
(``LAYOUTC_CPU_THREADS``, ``LAYOUTC_CPU_STACK_KB``, ``LAYOUTC_CHECK_BOUNDS``).

Limits are CUDA's (the CPU runtime keeps them too, so that a launch it accepts is one a GPU
would run): a grid of at most 2^31 - 1 x 65535 x 65535 blocks, a block of at most 1024 x 1024 x
64 and 1024 threads, at most 227 KiB of shared memory per block (sm_90's maximum; a smaller GPU
refuses more through its driver). Every refusal is an ``ArgumentError`` naming the kernel and the
value, or a ``SettingError`` naming the variable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from .abi import KernelSpec, LaunchBounds
from .errors import ArgumentError, SettingError

Dim3 = tuple[int, int, int]

MAX_GRID = ((1 << 31) - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_BLOCK_THREADS = 1024
MAX_SMEM_BYTES = 227 * 1024
"""Shared memory one block may use (static + dynamic), the largest any supported GPU allows."""


# -- environment ------------------------------------------------------------------------------
def env_int(name: str, default: int, lo: int, hi: int, meaning: str) -> int:
    """The integer environment variable ``name`` (``default`` when unset or empty), in
    ``[lo, hi]``; anything else is a ``SettingError`` saying what is expected."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise SettingError(
            f"{name}={raw!r} is not valid: expected {meaning}, an integer from {lo} to {hi} "
            f"(unset it for the default, {default})"
        )
    return value


def env_switch(name: str) -> bool:
    """A boolean environment variable: unset, empty, 0/false/no/off or 1/true/yes/on."""
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise SettingError(f"{name}={raw!r} is not valid: expected 1/true/yes/on or 0/false/no/off")


def cpu_threads() -> int:
    """Worker threads for the CPU runtime's blocks (``LAYOUTC_CPU_THREADS``; default: cores)."""
    return env_int("LAYOUTC_CPU_THREADS", max(1, os.cpu_count() or 1), 1, 4096, "worker threads")


def cpu_stack_bytes() -> int:
    """Stack of each CPU fiber (``LAYOUTC_CPU_STACK_KB``, default 256 KiB)."""
    kib = env_int("LAYOUTC_CPU_STACK_KB", 256, 16, 1 << 20, "KiB of stack per CPU thread")
    return kib * 1024


def check_bounds_setting() -> bool:
    """``LAYOUTC_CHECK_BOUNDS``: compile the bounds check into GPU kernels too."""
    return env_switch("LAYOUTC_CHECK_BOUNDS")


# -- launches ---------------------------------------------------------------------------------
def check_smem(smem: Any, static: int, kernel: str) -> int:
    """Dynamic shared-memory bytes of a launch: an int from 0 to what the block has left."""
    if type(smem) is not int:
        if isinstance(smem, bool) or not hasattr(smem, "__index__"):
            raise ArgumentError(
                f"kernel {kernel!r}: smem must be an int number of bytes, got {smem!r}"
            )
        smem = smem.__index__()
    if not 0 <= smem <= MAX_SMEM_BYTES - static:
        raise ArgumentError(
            f"kernel {kernel!r}: smem={smem} bytes of dynamic shared memory is outside 0.."
            f"{MAX_SMEM_BYTES - static} (a block has at most {MAX_SMEM_BYTES} bytes, "
            f"{static} of them static)"
        )
    return smem


def same_shape(given: Any, last: Any) -> bool:
    """Whether a launch's ``grid`` or ``block`` as given is ``last``, a value given and checked
    before, by value: an int equal to it, or a tuple of ints equal to it element by element.
    Only exact ints pass (never ``8.0``, ``True`` or a list, which ``dim3`` decides), so the
    checked dim3 of ``last`` is the one ``given`` would get."""
    kind = given.__class__
    if kind is int:
        return last.__class__ is int and given == last
    if kind is not tuple or last.__class__ is not tuple or len(given) != len(last):
        return False
    return all(x.__class__ is int and x == y for x, y in zip(given, last))


def dim3(value: Any, what: str, kernel: str) -> Dim3:
    """``8`` or ``(8,)`` or ``(8, 2)`` or ``(8, 2, 1)`` -> ``(8, 2, 1)``, all positive."""
    kind = type(value)
    limits = MAX_GRID if what == "grid" else MAX_BLOCK
    if kind is int and 1 <= value <= limits[0]:  # fast paths: the common spellings, cheaply
        return (value, 1, 1)
    if kind is tuple and len(value) == 3:
        x, y, z = value
        if (
            type(x) is int
            and type(y) is int
            and type(z) is int
            and 1 <= x <= limits[0]
            and 1 <= y <= limits[1]
            and 1 <= z <= limits[2]
        ):
            return value
    if isinstance(value, int) and not isinstance(value, bool):
        dims = (value,)
    else:
        try:
            dims = tuple(value)
        except TypeError:
            raise ArgumentError(
                f"kernel {kernel!r}: {what} must be an int or a tuple of up to 3 ints, got {value!r}"
            ) from None
    if not 1 <= len(dims) <= 3 or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims
    ):
        raise ArgumentError(
            f"kernel {kernel!r}: {what} must be 1 to 3 positive ints, got {value!r}"
        )
    full = (*(int(d) for d in dims), 1, 1)[:3]
    for axis, n, limit in zip("xyz", full, limits):
        if n > limit:
            raise ArgumentError(
                f"kernel {kernel!r}: {what} {full} is too large: {what}.{axis} = {n} exceeds "
                f"CUDA's limit of {limit} (a {what} is at most "
                f"{' x '.join(str(x) for x in limits)})"
            )
    return full  # type: ignore[return-value]


PORTABLE_CLUSTER_BLOCKS = 8
"""Blocks in one cluster that every sm_90 GPU runs: CUDA's portable cluster size."""
MAX_CLUSTER_BLOCKS = 16
"""Blocks in one cluster at most: Hopper's non-portable cluster size, which a launch of more
than :data:`PORTABLE_CLUSTER_BLOCKS` opts into (``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_
ALLOWED``; :func:`non_portable`)."""


def non_portable(cluster: Dim3 | None) -> bool:
    """Whether a launch in clusters of ``cluster`` needs the kernel's non-portable opt-in."""
    return cluster is not None and cluster[0] * cluster[1] * cluster[2] > PORTABLE_CLUSTER_BLOCKS


def launch_cluster(cluster: Any, grid: Dim3, spec: KernelSpec) -> Dim3 | None:
    """The cluster shape a launch runs with: ``cluster=`` as given (1 to 3 positive ints, at
    most 16 blocks, at most the kernel's ``max_cluster_blocks``), or the kernel's compiled one
    (``spec.cluster``; a different shape is refused), or ``None`` for a launch without
    clusters (refused for an ``explicit_cluster`` kernel). The grid must be a multiple of it
    on every axis. The GPU refuses the same launches (``.reqnctapercluster``,
    ``.explicitcluster``, ``.maxclusterrank``), with a less telling error."""
    fixed, kernel = spec.cluster, spec.name
    if cluster is None:
        shape = fixed
        if shape is None and spec.explicit_cluster:
            raise ArgumentError(
                f"kernel {kernel!r} must be launched in clusters (@lc.kernel(cluster="
                "'explicit'), PTX .explicitcluster): pass cluster= at launch"
            )
    else:
        if isinstance(cluster, int) and not isinstance(cluster, bool):
            dims: tuple = (cluster,)
        else:
            try:
                dims = tuple(cluster)
            except TypeError:
                dims = ()
        if not 1 <= len(dims) <= 3 or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims
        ):
            raise ArgumentError(
                f"kernel {kernel!r}: cluster must be 1 to 3 positive ints, got {cluster!r}"
            )
        shape = (*(int(d) for d in dims), 1, 1)[:3]  # type: ignore[assignment]
        if fixed is not None and tuple(fixed) != shape:
            raise ArgumentError(
                f"kernel {kernel!r} was compiled for clusters of {tuple(fixed)} blocks "
                f"(@lc.kernel(cluster=...)), launched with cluster={shape}"
            )
    if shape is None:
        return None
    n = shape[0] * shape[1] * shape[2]
    if spec.max_cluster_blocks is not None and n > spec.max_cluster_blocks:
        raise ArgumentError(
            f"kernel {kernel!r}: a cluster of {shape} is {n} blocks, more than the "
            f"{spec.max_cluster_blocks} it was compiled for (max_cluster_size, PTX "
            ".maxclusterrank)"
        )
    if n > MAX_CLUSTER_BLOCKS:
        raise ArgumentError(
            f"kernel {kernel!r}: a cluster of {shape} is {n} blocks, more than the "
            f"{MAX_CLUSTER_BLOCKS} a cluster may have (Hopper's non-portable cluster size; "
            f"{PORTABLE_CLUSTER_BLOCKS} is the portable one)"
        )
    for axis, g, c in zip("xyz", grid, shape):
        if g % c:
            raise ArgumentError(
                f"kernel {kernel!r}: grid {grid} is not divisible by the cluster shape "
                f"{shape}: grid.{axis} = {g} is not a multiple of {c}"
            )
    return shape  # type: ignore[return-value]


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
    if threads > MAX_BLOCK_THREADS:
        raise ArgumentError(
            f"kernel {kernel!r}: {threads} threads per block exceeds {MAX_BLOCK_THREADS}"
        )


#: (the torch module, its current-stream accessor), once that torch has initialised CUDA (it
#: stays initialised for the life of the process; a forked child forgets it, as torch does).
_torch_stream: tuple[Any, Callable[[int], Any]] | None = None
_modules = sys.modules


def _forget_torch_stream() -> None:
    global _torch_stream
    _torch_stream = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_torch_stream)


def framework_stream(device: int) -> int:
    """The stream a launch without ``stream=`` goes on: torch's current stream on ``device``
    once torch has initialised CUDA (Triton's rule, so kernels join ``torch.cuda.stream(s)``
    blocks and CUDA graph captures), else 0, the legacy default stream. torch is never
    imported here: a process that has not imported it has no torch stream to follow. Once
    torch is initialised its accessor is kept, so a launch costs one call of it."""
    global _torch_stream
    known = _torch_stream
    torch = _modules.get("torch")
    if known is not None and known[0] is torch:
        return int(known[1](device))
    if torch is None:
        return 0
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return 0
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if raw is not None:  # the cheap accessor torch's own launchers use
        _torch_stream = (torch, raw)
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
