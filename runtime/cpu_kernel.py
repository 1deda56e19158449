"""Running a kernel on the CPU with GPU semantics: ``CpuKernel(ir, spec)(*args, grid, block)``.

Blocks are independent, so they are split across worker threads (the JIT code runs without
the GIL); inside a block, kernels without collectives run as a loop over threads, kernels with
barriers or warp collectives run each thread as a fiber (cpu_fibers.py). A launch in thread
block clusters runs each cluster's blocks together, as the fibers of one scheduler, each block
with its own shared window (distributed shared memory: ``mapa``, remote mbarrier arrivals,
TMA multicast) and a cluster barrier across them. Arrays are host
arrays (numpy, CPU torch tensors, DLPack/array-interface objects), used in place.
"""

from __future__ import annotations

import ctypes
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .abi import KernelSpec
from .bounds import BoundsRecord
from .cpu_context import WARP_SCRATCH_BYTES, WARP_SIZE
from .cpu_fibers import FiberPool
from .cpu_records import CFG
from .cpu_support_ir import ERROR_TEXT
from .errors import CpuExecutionError
from .launch_config import check_block, check_smem, cpu_threads, dim3, launch_cluster
from .packing import ArgumentBinder
from .smem_need import smem_need_of

LaunchConfig = CFG.ctypes_struct("LaunchConfig")


_GRID_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)
_SMEM_ALIGN = 1024
"""The block's shared-memory window starts 1024-byte aligned, as the GPU's does (address 0 of
its shared window): a kernel's run-time realignment of the dynamic base (``ptrtoint``, the
absolute address here) then agrees with the window offsets the wgmma and TMA models use."""


def worker_count() -> int:
    """Worker threads for block-level parallelism (``LAYOUTC_CPU_THREADS``, default: cores)."""
    return cpu_threads()


class _WorkerState(threading.local):
    """Per-OS-thread memory: shared-memory buffer, warp scratch and fiber pools."""

    def __init__(self) -> None:
        self.smem = ctypes.create_string_buffer(_SMEM_ALIGN)
        self.scratch = ctypes.create_string_buffer(WARP_SCRATCH_BYTES * 32)
        self.pools: dict[tuple[tuple[int, int, int], int], FiberPool] = {}

    def smem_for(self, nbytes: int) -> int:
        if ctypes.sizeof(self.smem) < nbytes + _SMEM_ALIGN:
            self.smem = ctypes.create_string_buffer(nbytes + _SMEM_ALIGN)
        return (ctypes.addressof(self.smem) + _SMEM_ALIGN - 1) & ~(_SMEM_ALIGN - 1)


_state = _WorkerState()
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        with _executor_lock:
            if _executor is None:
                _executor = ThreadPoolExecutor(worker_count(), thread_name_prefix="layoutc-cpu")
    return _executor


class CpuKernel:
    """A kernel compiled for the host, called like the GPU kernels:
    ``k(*args, grid=(gx, gy, gz), block=(bx, by, bz), smem=bytes)``.

    ``ir`` is the CPU-flavour module (text or ``llvmlite.ir.Module``) defining ``spec.name``
    with the CPU kernel ABI (docs/runtime.md). ``opt_level`` and ``jit`` (the tier) are the
    JIT's (cpu_jit.compile_cpu). Launches are synchronous; ``stream`` is accepted for symmetry with
    the GPU and ignored.
    """

    def __init__(
        self,
        ir: Any,
        spec: KernelSpec,
        opt_level: int = 2,
        object_cache: Any = None,
        jit: str = "fast",
    ) -> None:
        from .cpu_jit import compile_cpu

        self.spec = spec
        text = ir if isinstance(ir, str) else str(ir)
        self.program = compile_cpu(text, spec, opt_level, object_cache, jit)
        self.binder = ArgumentBinder(spec, "cpu")
        self.bounds = BoundsRecord(spec) if spec.bounds_sites is not None else None
        if self.bounds is not None:  # the last parameter: the record, at a fixed address
            self.binder.values[-1] = self.bounds.address
        self._smem_need = smem_need_of(spec, self.binder)
        self._grid = _GRID_FN(self.program.grid)
        self._run_fibers = _GRID_FN(self.program.run_fibers)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def uses_collectives(self) -> bool:
        return self.program.uses_collectives

    def __call__(
        self,
        *args: Any,
        grid: Any,
        block: Any = None,
        smem: int | None = None,
        stream: Any = None,
        cluster: Any = None,
    ) -> None:
        name = self.spec.name
        g = dim3(grid, "grid", name)
        if block is None:
            if self.spec.launch_bounds.block is None:
                from .errors import ArgumentError

                raise ArgumentError(f"kernel {name!r}: block= is required")
            block = self.spec.launch_bounds.block
        b = dim3(block, "block", name)
        check_block(b, self.spec.launch_bounds, name)
        dyn = (
            self.spec.dynamic_smem
            if smem is None
            else check_smem(smem, self.spec.static_smem, name)
        )
        c = launch_cluster(cluster, g, self.spec) or (1, 1, 1)
        nclusters = (g[0] // c[0]) * (g[1] // c[1]) * (g[2] // c[2])
        with self._lock:
            keep = self.binder.bind(args)
            if self._smem_need is not None:
                dyn = self._smem_need(smem, self.binder.values)
            bounds = self.bounds
            if bounds is not None:
                bounds.prepare(self.binder.values, args, dyn)
            table = self.binder.buffer.table_address
            workers = min(nclusters, worker_count())
            chunks = [
                (nclusters * i // workers, nclusters * (i + 1) // workers) for i in range(workers)
            ]
            if workers == 1:
                results = [self._run_range(table, g, b, c, dyn, *chunks[0])]
            else:
                futures = [
                    _pool().submit(self._run_range, table, g, b, c, dyn, lo, hi)
                    for lo, hi in chunks
                ]
                results = [f.result() for f in futures]
            bad_access = bounds.failure(self.binder.values) if bounds is not None else None
        del keep
        if bad_access is not None:
            raise bad_access
        for failure in results:
            if failure is not None:
                raise failure

    def _run_range(
        self, table: int, g: tuple, b: tuple, c: tuple, dyn: int, begin: int, end: int
    ) -> CpuExecutionError | None:
        """Run clusters ``[begin, end)`` of shape ``c`` (blocks when ``c`` is 1 x 1 x 1)."""
        state = _state
        nb = c[0] * c[1] * c[2]
        # dynamic shared memory starts 1024-byte aligned in the block's window, as the GPU
        # places it for the largest .align a kernel declares (128B-swizzled GMMA tiles); the
        # windows of a cluster's blocks follow each other, each 1024-byte aligned
        static = (self.spec.static_smem + 1023) & ~1023
        stride = (static + dyn + 1023) & ~1023
        base = state.smem_for(max(stride * nb, static + dyn))
        cfg = LaunchConfig(*g, *b, begin, end, base, base + static, 0, -1, 0, *c, stride, None)
        if not self.program.uses_collectives and nb == 1:
            cfg.warp_scratch = ctypes.addressof(state.scratch)
            self._grid(table, ctypes.addressof(cfg))
            return None
        pool = state.pools.get((b, nb))
        if pool is None:
            pool = state.pools[(b, nb)] = FiberPool(b, nb)
        if not pool.ready:
            pool.make_fibers(self.program.fiber_entry)
        nwarps = (b[0] * b[1] * b[2] + WARP_SIZE - 1) // WARP_SIZE
        cfg.warp_scratch = ctypes.addressof(pool.warp_scratch)
        cfg.cluster = pool.prepare_cluster(base, stride)
        assert nwarps == pool.nwarps
        pool.sched.thread_main = self.program.main
        pool.sched.params = table
        pool.sched.error = 0
        rc = self._run_fibers(ctypes.addressof(pool.sched), ctypes.addressof(cfg))
        if rc == 0:
            return None
        pool.ready = False  # fibers were abandoned mid-kernel: rebuild before the next launch
        cl = cfg.error_block
        ncx, ncy = g[0] // c[0], g[1] // c[1]
        origin = (cl % ncx * c[0], (cl // ncx) % ncy * c[1], cl // (ncx * ncy) * c[2])
        t = pool.sched.error_thread
        bn = b[0] * b[1] * b[2]
        rank, local = divmod(t, bn) if t >= 0 else (0, -1)
        where_b = (
            origin[0] + rank % c[0],
            origin[1] + (rank // c[0]) % c[1],
            origin[2] + rank // (c[0] * c[1]),
        )
        where_t = (
            (local % b[0], (local // b[0]) % b[1], local // (b[0] * b[1])) if local >= 0 else None
        )
        return CpuExecutionError(
            f"kernel {self.spec.name!r} on the CPU, block {where_b}"
            + (f", thread {where_t}" if where_t else "")
            + (f" (cluster of {c})" if nb > 1 else "")
            + f": {ERROR_TEXT.get(rc, f'error {rc}')}"
        )
