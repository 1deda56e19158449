"""LLVM IR of the CPU runtime's support code: the collective helpers, the fiber scheduler and
the per-kernel launchers. The text (opaque pointers) is the package data file
``cpu_support.ll``, filled in here from the record tables (:mod:`.cpu_records`) and parsed by
llvmlite when a CPU kernel is first compiled (this module itself imports nothing heavy).

Execution model (docs/runtime.md, "CPU runtime"): kernels that call no collective helper run
as plain loops over blocks and threads (``grid`` launcher). Kernels that do run every GPU
thread of a block as a fiber (glibc ``makecontext``/``swapcontext``) on one OS thread; a
barrier or warp sync parks the fiber and returns to the scheduler, which releases a barrier
when every thread of the block has reached it, so execution is exactly "phases between
barriers". Misuse (a barrier some threads never reach) is detected exactly, not by timeout.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template

from .cpu_context import CONTEXT
from .cpu_records import CFG, CLUSTER, FIBER, SCHED

# Fiber states.
RUNNABLE, AT_BARRIER, AT_WARP_SYNC, DONE, FAILED, AT_YIELD = 0, 1, 2, 3, 4, 5

# Error codes returned by the fiber launcher (and stored in the scheduler).
OK = 0
# (1 was "a block barrier after some threads exited": exited threads now count as arrived,
# as PTX's bar.sync and barrier.cluster say.)
ERR_WARP_EXITED = 2  # a warp sync names a lane that has exited
ERR_DEADLOCK = 3  # threads wait at different kinds of synchronisation forever
ERR_BAD_MASK = 4  # a warp collective's mask does not include the calling lane
ERR_BAD_SHFL_SOURCE = 5  # a shuffle reads a lane outside the mask or the block
ERR_MBARRIER_OVERFLOW = 6  # more arrivals on an mbarrier phase than its expected count
ERR_BAD_CLUSTER_RANK = 7  # mapa / multicast names a block outside the cluster
ERR_IM2COL_START = 8  # a TMA im2col load starts outside its descriptor's bounding box
ERR_IM2COL_GRID = 9  # a TMA im2col load starts off its descriptor's traversal grid

ERROR_TEXT = {
    ERR_WARP_EXITED: "a warp sync/collective names a lane whose thread has exited",
    ERR_DEADLOCK: "deadlock: the threads of the block wait at different synchronisation points "
    "(e.g. some at a block barrier, others at a warp sync or on an mbarrier phase that nothing "
    "will complete) and none can proceed",
    ERR_BAD_MASK: "a warp collective's member mask does not include the calling lane",
    ERR_BAD_SHFL_SOURCE: "a shuffle reads from a lane outside its member mask or the block",
    ERR_MBARRIER_OVERFLOW: "an mbarrier received more arrivals in one phase than the count it "
    "was initialised with (undefined behaviour on the GPU: a phase/parity bookkeeping bug)",
    ERR_BAD_CLUSTER_RANK: "a cluster rank (mapa, a remote mbarrier arrive or a TMA multicast "
    "mask) names a block outside the cluster",
    ERR_IM2COL_START: "a TMA im2col load's first pixel lies outside the descriptor's bounding "
    "box ([lower, extent - 1 + upper] per spatial dimension; an H200 raises an illegal "
    "instruction for it)",
    ERR_IM2COL_GRID: "a TMA im2col load's first pixel lies off the descriptor's traversal grid "
    "(lower + a multiple of the traversal stride per spatial dimension: an output position's "
    "pixel; other starts are not modelled)",
}


def _substitutions() -> dict[str, object]:
    from .cpu_context import WARP_SCRATCH_BYTES

    subs: dict[str, object] = {}
    for record in (CONTEXT, SCHED, FIBER, CFG, CLUSTER):
        subs.update(record.substitutions())
    subs.update(
        RUNNABLE=RUNNABLE,
        AT_BARRIER=AT_BARRIER,
        AT_WARP_SYNC=AT_WARP_SYNC,
        DONE=DONE,
        FAILED=FAILED,
        AT_YIELD=AT_YIELD,
        ERR_MBARRIER_OVERFLOW=ERR_MBARRIER_OVERFLOW,
        ERR_BAD_CLUSTER_RANK=ERR_BAD_CLUSTER_RANK,
        ERR_IM2COL_START=ERR_IM2COL_START,
        ERR_IM2COL_GRID=ERR_IM2COL_GRID,
        ERR_WARP_EXITED=ERR_WARP_EXITED,
        ERR_DEADLOCK=ERR_DEADLOCK,
        ERR_BAD_MASK=ERR_BAD_MASK,
        ERR_BAD_SHFL_SOURCE=ERR_BAD_SHFL_SOURCE,
        WARP_SCRATCH_BYTES=WARP_SCRATCH_BYTES,
    )
    return subs


@cache
def _sections() -> dict[str, Template]:
    """The sections of ``cpu_support.ll`` (package data), without its ``;;`` documentation."""
    text = files(__package__).joinpath("cpu_support.ll").read_text(encoding="utf-8")
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(";;"):
            continue
        if line.startswith(_SECTION):
            current = sections.setdefault(line[len(_SECTION) :].strip(), [])
        else:
            current.append(line)
    return {name: Template("".join(lines)) for name, lines in sections.items()}


_SECTION = "; @@section "


# Rounding to bf16 on x86 without AVX512-BF16 (f32 -> bf16) and always from f64: LLVM emits
# calls to these compiler-rt functions, which libgcc does not provide; an unresolved one would
# be a call to address 0. Round to nearest even, NaN stays a (quiet) NaN, as PTX's cvt.rn.bf16.
# f64 first rounds to f32 *to odd* (truncate, then set the last bit if inexact), which makes the
# second rounding exact (f32 keeps 16 more bits than bf16): the result is f64 -> bf16 rounded
# once, overflow to infinity and subnormals included.
BF16_LIBCALLS: tuple[str, ...] = ("__truncsfbf2", "__truncdfbf2")


# The f16 conversions x86 has no instruction for (f64 -> f16 always; f32 <-> f16 without F16C).
# libgcc_s has them only from GCC 12 on, so the runtime supplies its own: round to nearest
# even, subnormals exact, overflow to infinity, NaN stays a quiet NaN; f64 again rounds to odd
# f32 first (f32 keeps 13 more bits than f16), so it is rounded once.
F16_LIBCALLS: tuple[str, ...] = ("__truncsfhf2", "__truncdfhf2", "__extendhfsf2", "__extendhfdf2")


def support_ir() -> str:
    """The support module: collective helpers, fiber entry, scheduler, fiber launcher, and the
    bf16/f16 conversion functions LLVM calls on x86."""
    sec = _sections()
    subs = _substitutions()

    def odd(name: str, ty: str, from_f32: str) -> str:
        return sec["f64_through_odd_f32"].substitute(NAME=name, TY=ty, FROM_F32=from_f32)

    return "".join(
        (
            sec["support"].substitute(subs),
            sec["bf16_libcalls"].substitute(),
            odd("__truncdfbf2", "bfloat", "__truncsfbf2"),
            sec["f16_libcalls"].substitute(),
            odd("__truncdfhf2", "half", "__truncsfhf2"),
        )
    )


def kernel_launcher_ir(kernel: str, param_types: list[str]) -> str:
    """Thread-main and grid launcher for one kernel with LLVM parameter types ``param_types``
    (``ptr``, ``i32``, ``float``, ...). Must be linked with ``support_ir()`` (types, helpers)."""
    unpack = []
    args = []
    for i, ty in enumerate(param_types):
        unpack.append(f"  %pp{i} = getelementptr inbounds ptr, ptr %params, i32 {i}")
        unpack.append(f"  %pv{i} = load ptr, ptr %pp{i}")
        unpack.append(f"  %a{i} = load {ty}, ptr %pv{i}")
        args.append(f"{ty} %a{i},")
    subs = _substitutions()
    subs.update(
        MAIN=main_name(kernel),
        GRID=grid_name(kernel),
        KERNEL=kernel,
        PARAMS=", ".join([*param_types, "ptr"]),
        UNPACK="\n".join(unpack),
        ARGS=" ".join(args),
    )
    return _sections()["kernel"].substitute(subs)


def main_name(kernel: str) -> str:
    return f"__layoutc_main.{kernel}"


def grid_name(kernel: str) -> str:
    return f"__layoutc_grid.{kernel}"
