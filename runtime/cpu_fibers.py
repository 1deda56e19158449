"""Fibers for the CPU runtime: one per GPU thread of a block (of every block of a thread block
cluster, which run together), on glibc's ucontext.

A ``FiberPool`` owns, for one block shape and cluster size, every thread's context struct,
fiber record, ``ucontext_t`` and stack (with a guard page), plus the scheduler and cluster
records the JIT-compiled scheduler (cpu_support_ir.py) works on. Pools are per OS thread and reused across launches and
kernels; they are rebuilt only after a launch failed mid-block.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import sys
from functools import cache

from .cpu_context import WARP_SCRATCH_BYTES, WARP_SIZE, ThreadContext
from .cpu_records import CLUSTER, FIBER, SCHED
from .cpu_support_ir import DONE
from .errors import NotSupportedError
from .launch_config import cpu_stack_bytes

#: Room for a glibc ``ucontext_t`` (968 bytes on x86-64, 4560 on aarch64), rounded up.
UCONTEXT_BYTES = 8192
#: Offsets of ``uc_link`` and ``uc_stack`` (ss_sp, ss_flags, ss_size) in glibc's ucontext_t on
#: 64-bit Linux (x86-64 and aarch64 alike).
_UC_LINK, _SS_SP, _SS_SIZE = 8, 16, 32
_PAGE = mmap.PAGESIZE


def stack_bytes() -> int:
    """Each fiber's stack (``LAYOUTC_CPU_STACK_KB``, validated; whole pages, so that the guard
    pages stay page-aligned), read when a pool is made."""
    return -(-cpu_stack_bytes() // _PAGE) * _PAGE


SchedRecord = SCHED.ctypes_struct("SchedRecord")
FiberRecord = FIBER.ctypes_struct("FiberRecord")
ClusterRecord = CLUSTER.ctypes_struct("ClusterRecord")


@cache
def _libc() -> ctypes.CDLL:
    """glibc, or a clear error where fibers cannot be made."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        raise NotSupportedError(
            "not supported: running kernels with barriers or warp collectives on the CPU needs "
            f"Linux with glibc (makecontext/swapcontext); this is {sys.platform} "
            f"{platform.libc_ver()[0] or 'without glibc'}. Kernels without them run everywhere."
        )
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        raise NotSupportedError("not supported: CPU fibers need a 64-bit process")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.getcontext.argtypes = [ctypes.c_void_p]
    libc.getcontext.restype = ctypes.c_int
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mprotect.restype = ctypes.c_int
    return libc


class FiberPool:
    """Everything the fibers of one block shape need, owned by one OS thread: ``nblocks``
    blocks (a cluster's, rank by rank) of ``block`` threads each."""

    def __init__(self, block: tuple[int, int, int], nblocks: int = 1) -> None:
        libc = _libc()
        bx, by, bz = block
        bn = bx * by * bz
        n = bn * nblocks
        self.block = block
        self.nblocks = nblocks
        self.nthreads = n
        self.nwarps = (bn + WARP_SIZE - 1) // WARP_SIZE  # of one block
        self.ctxs = (ThreadContext * n)()
        self.fibers = (FiberRecord * n)()
        self.sched = SchedRecord()
        self.uctx = ctypes.create_string_buffer(UCONTEXT_BYTES * (n + 1) + 64)
        base = (ctypes.addressof(self.uctx) + 63) & ~63
        self._uctx_base = base
        self.stack_bytes = stack_bytes()
        slot = self.stack_bytes + _PAGE
        self._stacks = mmap.mmap(-1, slot * n, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self._stacks_anchor = ctypes.c_char.from_buffer(self._stacks)
        stacks = ctypes.addressof(self._stacks_anchor)
        self.warp_scratch = ctypes.create_string_buffer(self.nwarps * nblocks * WARP_SCRATCH_BYTES)
        sched_addr = ctypes.addressof(self.sched)
        fibers_addr = ctypes.addressof(self.fibers)
        self.sched.main_uctx = base
        self.sched.fibers = fibers_addr
        self.sched.nthreads = n
        self.sched.nwarps = self.nwarps
        self.sched.block_threads = bn
        self.sched.nblocks = nblocks
        self.named_barriers = (ctypes.c_int32 * (32 * nblocks))()
        self.sched.named_barriers = ctypes.addressof(self.named_barriers)
        self.cluster = ClusterRecord()
        self.cluster_smem = (ctypes.c_void_p * nblocks)()
        self.cluster.threads = n
        self.cluster.nblocks = nblocks
        self.cluster.smem = ctypes.addressof(self.cluster_smem)
        self._stack_tops = []
        for t in range(n):
            rank, local = divmod(t, bn)
            tx, ty, tz = local % bx, (local // bx) % by, local // (bx * by)
            c = self.ctxs[t]
            c.tid_x, c.tid_y, c.tid_z = tx, ty, tz
            c.ntid_x, c.ntid_y, c.ntid_z = bx, by, bz
            c.lane_id, c.warp_id, c.linear_tid = local % WARP_SIZE, local // WARP_SIZE, local
            c.block_threads = bn
            c.cluster_rank = rank
            c.fiber = fibers_addr + t * ctypes.sizeof(FiberRecord)
            c.scheduler = sched_addr
            f = self.fibers[t]
            f.uctx = base + (t + 1) * UCONTEXT_BYTES
            f.ctx = ctypes.addressof(c)
            f.sched = sched_addr
            f.state = DONE
            guard = stacks + t * slot
            if libc.mprotect(guard, _PAGE, 0) != 0:  # PROT_NONE: overflow faults, never corrupts
                raise OSError(ctypes.get_errno(), "mprotect of a fiber stack guard page failed")
            self._stack_tops.append(guard + _PAGE)
        self.ready = False

    def prepare_cluster(self, smem: int, stride: int) -> int:
        """Point the cluster record at the blocks' shared windows (``smem + rank * stride``)
        and start its barrier afresh; returns the record's address."""
        for r in range(self.nblocks):
            self.cluster_smem[r] = smem + r * stride
        self.cluster.arrived = 0
        return ctypes.addressof(self.cluster)

    def make_fibers(self, entry: int) -> None:
        """(Re)create every fiber at ``entry`` (``__layoutc_fiber_entry``)."""
        libc = _libc()
        for t in range(self.nthreads):
            f = self.fibers[t]
            if libc.getcontext(f.uctx) != 0:
                raise OSError(ctypes.get_errno(), "getcontext failed")
            ctypes.c_void_p.from_address(f.uctx + _UC_LINK).value = None
            ctypes.c_void_p.from_address(f.uctx + _SS_SP).value = self._stack_tops[t]
            ctypes.c_size_t.from_address(f.uctx + _SS_SIZE).value = self.stack_bytes
            addr = ctypes.addressof(f)
            libc.makecontext(
                ctypes.c_void_p(f.uctx),
                ctypes.c_void_p(entry),
                ctypes.c_int(2),
                ctypes.c_uint32(addr >> 32),
                ctypes.c_uint32(addr & 0xFFFFFFFF),
            )
            f.state = DONE
        self.ready = True

    def close(self) -> None:
        del self._stacks_anchor
        self._stacks.close()
