"""The CPU runtime's records (structs shared by Python and the support IR), each declared once.

A record is a table of ``(field, kind)`` with kind ``"i32"`` or ``"ptr"``. From it come the
ctypes structure the runtime fills or reads, the LLVM type text (``{ ptr, i32 }``) and the field
indices the support IR (``cpu_support.ll``) reaches fields by: ``$Fiber_state`` in the IR text
is the index of ``state`` in ``FIBER``. Adding, removing or reordering a field is a change to
one table. The thread context ``%Ctx`` (the kernel ABI) is ``cpu_context.CONTEXT``.
"""

from __future__ import annotations

import ctypes
from typing import Any

_CTYPES = {"i32": ctypes.c_int32, "ptr": ctypes.c_void_p}


class Record:
    """One struct: its IR name (``Sched`` for ``%Sched``) and ``(field, kind)`` in order."""

    __slots__ = ("fields", "index", "name")

    def __init__(self, name: str, fields: tuple[tuple[str, str], ...]):
        for field, kind in fields:
            if kind not in _CTYPES:
                raise ValueError(f"record {name}: field {field!r} has kind {kind!r}")
        self.name = name
        self.fields = fields
        self.index: dict[str, int] = {field: i for i, (field, _) in enumerate(fields)}

    def ctypes_struct(self, class_name: str) -> type[ctypes.Structure]:
        """A ``ctypes.Structure`` subclass with this record's fields."""
        return type(
            class_name,
            (ctypes.Structure,),
            {
                "_fields_": [(field, _CTYPES[kind]) for field, kind in self.fields],
                "__doc__": f"The ``%{self.name}`` record as the runtime sees it.",
            },
        )

    def llvm_type_text(self) -> str:
        """The struct as LLVM IR text with opaque pointers."""
        return "{ " + ", ".join(kind for _, kind in self.fields) + " }"

    def substitutions(self) -> dict[str, Any]:
        """``{Name}`` -> its type text and ``{Name}_{field}`` -> the field's index (for the
        support IR's ``string.Template`` text)."""
        subs: dict[str, Any] = {self.name: self.llvm_type_text()}
        subs.update({f"{self.name}_{field}": i for field, i in self.index.items()})
        return subs


#: The block scheduler of the fiber path (one per block being run).
SCHED = Record(
    "Sched",
    (
        ("main_uctx", "ptr"),
        ("fibers", "ptr"),
        ("nthreads", "i32"),
        ("nwarps", "i32"),
        ("error", "i32"),
        ("error_thread", "i32"),
        ("thread_main", "ptr"),
        ("params", "ptr"),
        ("progress", "i32"),  # bumped by every state change (mbarriers, parking)
        ("named_barriers", "ptr"),  # per block, 16 x {arrived, generation}: bar.sync id, n
        ("block_threads", "i32"),  # threads of one block (nthreads is the cluster's)
        ("nblocks", "i32"),  # blocks of the cluster run together (1 without clusters)
    ),
)

#: The thread block cluster the scheduler runs: its blocks' shared-memory windows (``mapa``,
#: TMA multicast, remote mbarrier arrivals) and the cluster barrier (``barrier.cluster``).
CLUSTER = Record(
    "Cluster",
    (
        ("threads", "i32"),  # the threads a cluster barrier phase waits for
        ("arrived", "i32"),
        ("generation", "i32"),  # bumped when a cluster barrier phase completes
        ("nblocks", "i32"),
        ("smem", "ptr"),  # nblocks pointers: each rank's shared-memory window
    ),
)

#: One GPU thread run as a fiber.
FIBER = Record(
    "Fiber",
    (
        ("uctx", "ptr"),
        ("ctx", "ptr"),
        ("sched", "ptr"),
        ("state", "i32"),
        ("wait_mask", "i32"),  # at a warp sync: its member mask
        ("named_barrier", "i32"),  # parked at bar.sync id, n: id + 1 (0 otherwise) ...
        ("named_count", "i32"),  # ... and n
    ),
)

#: What a kernel's grid launcher is given: the grid, the blocks (clusters on the fiber path)
#: to run, the blocks' memory.
CFG = Record(
    "Cfg",
    (
        ("gx", "i32"),
        ("gy", "i32"),
        ("gz", "i32"),
        ("bx", "i32"),
        ("by", "i32"),
        ("bz", "i32"),
        ("begin", "i32"),
        ("end", "i32"),
        ("smem", "ptr"),
        ("dynamic_smem", "ptr"),
        ("warp_scratch", "ptr"),
        ("error_block", "i32"),  # the cluster (= the block without clusters) that failed
        ("pad", "i32"),
        ("cx", "i32"),  # the cluster shape (1, 1, 1 without clusters)
        ("cy", "i32"),
        ("cz", "i32"),
        ("smem_stride", "i32"),  # bytes between the shared windows of a cluster's blocks
        ("cluster", "ptr"),  # the Cluster record (fiber path)
    ),
)
