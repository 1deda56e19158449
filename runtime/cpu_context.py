"""The CPU kernel ABI's thread context: one definition of the struct, for every user.

A CPU-flavour kernel takes its GPU parameters plus a trailing pointer to this struct, which the
CPU runtime fills for every GPU thread it runs. Code generation reads fields with
``load_field(builder, ctx, "tid_x")`` and spells the pointer type with ``context_pointer_type()``
(both import llvmlite lazily); the runtime fills it through ``ThreadContext`` (ctypes). Field
order and types live only in ``CONTEXT_FIELDS``. docs/runtime.md ("CPU kernel ABI") explains
each field.
"""

from __future__ import annotations

from typing import Any

from .cpu_records import Record

#: (name, type) in struct order; "i32" or "ptr" (a pointer, i8* in typed-pointer IR).
CONTEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("tid_x", "i32"),
    ("tid_y", "i32"),
    ("tid_z", "i32"),
    ("ntid_x", "i32"),
    ("ntid_y", "i32"),
    ("ntid_z", "i32"),
    ("ctaid_x", "i32"),
    ("ctaid_y", "i32"),
    ("ctaid_z", "i32"),
    ("nctaid_x", "i32"),
    ("nctaid_y", "i32"),
    ("nctaid_z", "i32"),
    ("lane_id", "i32"),
    ("warp_id", "i32"),
    ("linear_tid", "i32"),
    ("block_threads", "i32"),
    ("smem", "ptr"),  # the block's shared memory: static allocations from offset 0
    ("dynamic_smem", "ptr"),  # extern (dynamic) shared memory, after the static bytes
    ("warp_scratch", "ptr"),  # 32 x 8 bytes per warp, used by the warp-collective helpers
    ("fiber", "ptr"),  # runtime-private: this thread's fiber record (null on the fast path)
    ("scheduler", "ptr"),  # runtime-private: the block's scheduler
    ("cluster_rank", "i32"),  # %cluster_ctarank: the block's rank in its cluster
    ("cluster_x", "i32"),  # the cluster shape (%cluster_nctaid), 1 1 1 without clusters
    ("cluster_y", "i32"),
    ("cluster_z", "i32"),
    ("cluster_phase", "i32"),  # runtime-private: the cluster barrier phase this thread joined
    ("cluster", "ptr"),  # runtime-private: the cluster record (fiber path; null otherwise)
)

#: The context as a record (``%Ctx`` in the support IR; see :mod:`.cpu_records`).
CONTEXT = Record("Ctx", CONTEXT_FIELDS)
FIELD_INDEX: dict[str, int] = CONTEXT.index

WARP_SIZE = 32
#: Bytes of warp scratch per warp (one 8-byte slot per lane).
WARP_SCRATCH_BYTES = WARP_SIZE * 8

#: Helper functions generated CPU code may call (all take the context pointer first).
BARRIER = "__layoutc_barrier"  # void (ctx*): bar.sync 0 / __syncthreads
WARP_SYNC = "__layoutc_warp_sync"  # void (ctx*, i32 mask): __syncwarp(mask)
SHFL_I32 = "__layoutc_shfl_sync_i32"  # i32 (ctx*, i32 mode, i32 mask, i32 a, i32 b, i32 c)
SHFL_F32 = "__layoutc_shfl_sync_f32"  # float (ctx*, i32 mode, i32 mask, float a, i32 b, i32 c)
BALLOT = "__layoutc_vote_ballot"  # i32 (ctx*, i32 mask, i1 pred)
MBAR_INIT = "__layoutc_mbar_init"  # void (ctx*, ptr bar, i32 count)
MBAR_ARRIVE = "__layoutc_mbar_arrive"  # i64 (ctx*, ptr bar, i32 count, i32 expect_tx_bytes)
MBAR_COMPLETE_TX = "__layoutc_mbar_complete_tx"  # void (ctx*, ptr bar, i32 bytes)
MBAR_WAIT = "__layoutc_mbar_wait"  # void (ctx*, ptr bar, i32 parity): blocks the fiber
YIELD = "__layoutc_yield"  # void (ctx*): let the block's other fibers run
NAMED_BARRIER = "__layoutc_named_barrier"  # void (ctx*, i32 id, i32 nthreads): bar.sync id, n
TMA_LOAD = "__layoutc_tma_load"  # void (ctx*, ptr dst, ptr desc, ptr mbar, i32 c0..c4)
TMA_STORE = "__layoutc_tma_store"  # void (ctx*, ptr desc, ptr src, i32 c0..c4)
#: void (ctx*, ptr dst, ptr desc, ptr mbar, i32 c0..c4, i32 o0..o2): an im2col-mode load,
#: coordinates (c, w, h, d, n) and offsets (w, h, d) of the normalised rank-5 tensor
TMA_LOAD_IM2COL = "__layoutc_tma_load_im2col"
#: void (ctx*, ptr dst, ptr desc, ptr mbar, i32 mask, i32 c0..c4, i32 o0..o2): the im2col load
#: into every block of the cluster in ``mask``
TMA_LOAD_IM2COL_MULTICAST = "__layoutc_tma_load_im2col_multicast"
#: void (ctx*, ptr dst, ptr desc, ptr mbar, i32 mask, i32 c0..c4): a TMA load into every block
#: of the cluster in ``mask``, each completing its own mbarrier at the same offset
TMA_LOAD_MULTICAST = "__layoutc_tma_load_multicast"
MAPA = "__layoutc_mapa"  # ptr (ctx*, ptr p, i32 rank): p in block ``rank``'s shared window
CLUSTER_ARRIVE = "__layoutc_cluster_arrive"  # void (ctx*): barrier.cluster.arrive
CLUSTER_WAIT = "__layoutc_cluster_wait"  # void (ctx*): barrier.cluster.wait
COLLECTIVE_HELPERS: tuple[str, ...] = (
    BARRIER,
    WARP_SYNC,
    SHFL_I32,
    SHFL_F32,
    BALLOT,
    MBAR_INIT,
    MBAR_ARRIVE,
    MBAR_COMPLETE_TX,
    MBAR_WAIT,
    YIELD,
    NAMED_BARRIER,
    TMA_LOAD,
    TMA_STORE,
    TMA_LOAD_IM2COL,
    TMA_LOAD_IM2COL_MULTICAST,
    TMA_LOAD_MULTICAST,
    MAPA,
    CLUSTER_ARRIVE,
    CLUSTER_WAIT,
)

#: ``mode`` operand of the shuffle helpers (PTX shfl.sync modes).
SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_BFLY = 0, 1, 2, 3


#: The context struct as the runtime writes it.
ThreadContext = CONTEXT.ctypes_struct("ThreadContext")


def llvm_type_text() -> str:
    """The struct as LLVM IR text with opaque pointers (for runtime-generated modules)."""
    return CONTEXT.llvm_type_text()


def context_type() -> Any:
    """The struct as an ``llvmlite.ir`` literal struct type."""
    from llvmlite import ir

    i8p = ir.IntType(8).as_pointer()
    return ir.LiteralStructType([ir.IntType(32) if k == "i32" else i8p for _, k in CONTEXT_FIELDS])


def context_pointer_type() -> Any:
    """The type of the trailing kernel parameter (``llvmlite.ir``)."""
    return context_type().as_pointer()


def load_field(builder: Any, ctx: Any, name: str) -> Any:
    """Emit a load of context field ``name`` (i32, or i8* for pointer fields)."""
    from llvmlite import ir

    try:
        index = FIELD_INDEX[name]
    except KeyError:
        raise KeyError(
            f"no thread-context field {name!r}; fields: {', '.join(FIELD_INDEX)}"
        ) from None
    i32 = ir.IntType(32)
    ptr = builder.gep(ctx, [i32(0), i32(index)], inbounds=True, name=f"ctx.{name}.addr")
    return builder.load(ptr, name=f"ctx.{name}")
