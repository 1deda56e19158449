"""The GPU toolchain: finished NVVM IR -> PTX -> cubin, and what to hand the driver.

Choices are explicit and reported: ``ToolchainOptions`` says which PTX back end (``auto``,
``libnvvm`` or ``llvm``) and whether to make a cubin; ``GpuBinary`` records what was used,
why (``notes``), the tools' logs and per-step timings.

The PTX-version trap (FACTS.md): libNVVM 13.5 writes ``.version 9.5``, which a CUDA 13.0
driver rejects. So what reaches the driver is a cubin whenever nvJitLink is present; without
nvJitLink it is PTX of an ISA the driver accepts (re-emitted by LLVM at the target's ISA if
libNVVM's is too new), and if neither is possible the error says so before any launch.

PTX with ``setmaxnreg`` needs whole-program compilation, which nvJitLink does not do (see
``cubin.py``): it is assembled by a ``ptxas`` executable when one is found, else handed to the
driver as PTX when the driver is known (its JIT compiles whole programs), else assembled by
nvJitLink with a note that the register reallocation is lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from layoutc.runtime.compat import PtxIsa, format_isa, max_ptx_isa_for_driver

from .cubin import (
    WHOLE_PROGRAM_INSTRUCTIONS,
    find_ptxas,
    nvjitlink_max_ptx_isa,
    ptx_to_cubin,
    ptxas_to_cubin,
    whole_program_reason,
)
from .errors import ToolchainError
from .ptx import (
    LIBNVVM,
    LLVM,
    PtxResult,
    compile_ptx_libnvvm,
    compile_ptx_llvm,
    libnvvm_available,
    uses_opaque_pointers,
)
from .target import Target

AUTO = "auto"
BACKENDS = (AUTO, LIBNVVM, LLVM)
CUBIN_MODES = (AUTO, "always", "never")


@dataclass(frozen=True)
class ToolchainOptions:
    """How to compile.

    ``ptx_backend``: ``auto`` (libNVVM when installed, else LLVM), ``libnvvm`` or ``llvm``.
    ``cubin``: ``auto`` (when nvJitLink is installed), ``always`` (error without it), ``never``.
    ``driver_version``: ``cuDriverGetVersion`` of the driver that will load the code, or None
    when unknown (AOT builds); with it, PTX the driver would refuse is never returned alone.
    """

    ptx_backend: str = AUTO
    cubin: str = AUTO
    opt_level: int = 3
    driver_version: int | None = None

    def __post_init__(self) -> None:
        if self.ptx_backend not in BACKENDS:
            raise ValueError(f"ptx_backend must be one of {BACKENDS}, not {self.ptx_backend!r}")
        if self.cubin not in CUBIN_MODES:
            raise ValueError(f"cubin must be one of {CUBIN_MODES}, not {self.cubin!r}")

    def key(self) -> dict[str, Any]:
        """The options that change the output (for cache keys); the ``ptxas`` that assembles
        whole-program PTX is one (``find_ptxas`` runs it once per process)."""
        ptxas = find_ptxas() if self.cubin != "never" else None
        return {
            "ptx_backend": self.ptx_backend,
            "cubin": self.cubin,
            "opt_level": self.opt_level,
            "ptxas": ptxas.identity if ptxas else None,
        }


@dataclass
class GpuBinary:
    """The result of compiling one module for one target."""

    target: Target
    ptx: str
    ptx_backend: str
    ptx_isa: PtxIsa
    cubin: bytes | None
    log: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def image(self) -> tuple[str, bytes]:
        """What to load into the driver: ``("cubin", bytes)`` or ``("ptx", bytes)``."""
        if self.cubin is not None:
            return "cubin", self.cubin
        return "ptx", self.ptx.encode()


def choose_backend(requested: str, libnvvm_ok: bool, opaque_ir: bool) -> tuple[str, str | None]:
    """The PTX back end to run and, when ``auto`` fell back, why."""
    if requested == LIBNVVM:
        if not libnvvm_ok:
            raise ToolchainError(
                "libNVVM",
                "ptx_backend='libnvvm' but libNVVM is not installed (pip install nvidia-nvvm)",
            )
        return LIBNVVM, None
    if requested == LLVM:
        return LLVM, None
    if not libnvvm_ok:
        return LLVM, "libNVVM is not installed: PTX from LLVM's NVPTX back end"
    if opaque_ir:
        return LLVM, "the module uses opaque pointers, which libNVVM refuses: PTX from LLVM"
    return LIBNVVM, None


@dataclass(frozen=True)
class Payload:
    """What the driver gets: ``cubin``, ``ptx`` as made, or ``llvm-ptx`` (re-emit with LLVM)."""

    kind: str
    reason: str


def choose_payload(
    *,
    have_cubin: bool,
    ptx_isa: PtxIsa,
    ptx_backend: str,
    backend_fixed: bool,
    target_isa: PtxIsa,
    driver_max_isa: PtxIsa | None,
) -> Payload:
    """Decide what to hand a driver accepting PTX ISA up to ``driver_max_isa`` (None: unknown).

    Pure function (unit-tested without a GPU): a cubin always wins; PTX is fine when its ISA is
    accepted; PTX from libNVVM that is too new is re-emitted by LLVM at ``target_isa`` unless
    the caller pinned the back end; otherwise the error states the versions involved.
    """
    if have_cubin:
        return Payload("cubin", "cubin from nvJitLink (accepted whatever the PTX ISA)")
    if driver_max_isa is None or ptx_isa <= driver_max_isa:
        return Payload("ptx", "PTX (no nvJitLink); the driver JIT-compiles it")
    if ptx_backend == LLVM or backend_fixed:
        raise ToolchainError(
            "driver",
            f"the driver accepts PTX ISA up to {format_isa(driver_max_isa)}, the {ptx_backend} "
            f"back end wrote {format_isa(ptx_isa)}, and no cubin can be made (nvJitLink is not "
            "installed): pip install nvidia-nvjitlink, or choose ptx_backend='llvm' with an "
            "older target PTX ISA",
        )
    if target_isa > driver_max_isa:
        raise ToolchainError(
            "driver",
            f"the driver accepts PTX ISA up to {format_isa(driver_max_isa)}, but the target needs "
            f"{format_isa(target_isa)}: update the GPU driver, or pip install nvidia-nvjitlink",
        )
    return Payload(
        "llvm-ptx",
        f"libNVVM wrote PTX ISA {format_isa(ptx_isa)}, newer than the driver accepts "
        f"({format_isa(driver_max_isa)}), and no cubin was made: PTX re-emitted by LLVM "
        f"at ISA {format_isa(target_isa)}",
    )


def _run_backend(backend: str, text: str, target: Target, opt_level: int) -> PtxResult:
    if backend == LIBNVVM:
        result = compile_ptx_libnvvm(text, target, opt_level)
        _libnvvm_isa[target.arch] = result.isa
        return result
    return compile_ptx_llvm(text, target, opt_level)


#: The PTX ISA libNVVM wrote for each arch in this process (it writes its own version's ISA
#: whatever the module: libNVVM 13.5, 9.5).
_libnvvm_isa: dict[str, PtxIsa] = {}


def _libnvvm_too_new_for_ptxas(text: str, target: Target) -> str | None:
    """Why libNVVM's PTX of NVVM IR ``text`` would only be thrown away, or None: the module
    uses an instruction that needs whole-program assembly (``setmaxnreg``, in its inline asm),
    the ``ptxas`` that would assemble it takes an older ISA than libNVVM wrote for this arch
    before, and it takes the target's. Then :func:`_whole_program` would re-emit the PTX by
    LLVM at the target's ISA, and the same PTX comes from LLVM directly."""
    isa = _libnvvm_isa.get(target.arch)
    if isa is None or not any(f"{name}." in text for name in WHOLE_PROGRAM_INSTRUCTIONS):
        return None
    ptxas = find_ptxas()
    if ptxas is None or isa <= ptxas.max_isa or target.ptx_isa > ptxas.max_isa:
        return None
    return (
        f"libNVVM writes PTX ISA {format_isa(isa)}, newer than {ptxas.path} "
        f"({ptxas.version[0]}.{ptxas.version[1]}) takes: PTX emitted by LLVM at ISA "
        f"{format_isa(target.ptx_isa)}"
    )


def compile_gpu(module: Any, target: Target, options: ToolchainOptions | None = None) -> GpuBinary:
    """Compile a finished NVVM module (``llvmlite.ir.Module`` or its text) for ``target``."""
    opts = options or ToolchainOptions()
    timings: dict[str, float] = {}
    notes: list[str] = []
    start = time.perf_counter()
    text = module if isinstance(module, str) else str(module)
    timings["print_ir"] = time.perf_counter() - start

    backend, why = choose_backend(opts.ptx_backend, libnvvm_available(), uses_opaque_pointers(text))
    if why:
        notes.append(why)
    if backend == LIBNVVM and opts.ptx_backend == AUTO and opts.cubin != "never":
        why = _libnvvm_too_new_for_ptxas(text, target)
        if why:
            notes.append(why)
            backend = LLVM
    try:
        result = _run_backend(backend, text, target, opts.opt_level)
    except ToolchainError as e:
        # libNVVM refuses some valid modules ("unsupported operation" for a vector store to
        # shared memory read back as scalars after a barrier, at every -opt above 0). With the
        # back end left to us, LLVM's NVPTX compiles the same IR; the note says why.
        if backend != LIBNVVM or opts.ptx_backend != AUTO:
            raise
        first_line = str(e).splitlines()[0]
        notes.append(f"{first_line}: PTX from LLVM's NVPTX back end instead")
        result = _run_backend(LLVM, text, target, opts.opt_level)
    timings["ptx"] = result.seconds
    logs = [result.log] if result.log else []

    driver_max = (
        max_ptx_isa_for_driver(opts.driver_version) if opts.driver_version is not None else None
    )
    whole = whole_program_reason(result.ptx) if opts.cubin != "never" else None
    if whole is not None:
        wp = _whole_program(result, text, target, opts, whole, driver_max, notes, timings, logs)
        if wp is not None:
            result, cubin = wp
            return _binary(target, result, cubin, start, timings, logs, notes)

    link_max = nvjitlink_max_ptx_isa() if opts.cubin != "never" else None
    if opts.cubin == "always" and link_max is None:
        raise ToolchainError("nvJitLink", "cubin='always' but nvJitLink is not installed")
    if link_max is not None and result.isa > link_max:
        if backend == LIBNVVM and opts.ptx_backend == AUTO:
            notes.append(
                f"nvJitLink assembles PTX ISA up to {format_isa(link_max)}, libNVVM wrote "
                f"{format_isa(result.isa)}: PTX re-emitted by LLVM"
            )
            result = _run_backend(LLVM, text, target, opts.opt_level)
            timings["ptx_llvm"] = result.seconds
        elif opts.cubin == "always":
            raise ToolchainError(
                "nvJitLink",
                f"nvJitLink assembles PTX ISA up to {format_isa(link_max)}, the PTX is "
                f"{format_isa(result.isa)}",
            )
        else:
            link_max = None
            notes.append("nvJitLink is older than the PTX: no cubin")

    cubin = None
    if link_max is not None:
        linked = ptx_to_cubin(result.ptx, target.arch, opts.opt_level)
        cubin = linked.cubin
        timings["cubin"] = linked.seconds
        if linked.log:
            logs.append(linked.log)
        if whole is not None:
            notes.append(
                f"{whole} needs whole-program compilation; no ptxas was found (set "
                f"LAYOUTC_PTXAS) and the driver cannot take the PTX: nvJitLink's relocatable cubin "
                f"ignores {whole} (ptxas C7504)"
            )
    payload = choose_payload(
        have_cubin=cubin is not None,
        ptx_isa=result.isa,
        ptx_backend=result.backend,
        backend_fixed=opts.ptx_backend != AUTO,
        target_isa=target.ptx_isa,
        driver_max_isa=driver_max,
    )
    if payload.kind == "llvm-ptx":
        notes.append(payload.reason)
        result = _run_backend(LLVM, text, target, opts.opt_level)
        timings["ptx_llvm"] = result.seconds
    return _binary(target, result, cubin, start, timings, logs, notes)


def _binary(
    target: Target,
    result: PtxResult,
    cubin: bytes | None,
    start: float,
    timings: dict[str, float],
    logs: list[str],
    notes: list[str],
) -> GpuBinary:
    """The compile's result, its total time stamped now (both ways out of `compile_gpu` end here)."""
    timings["total"] = time.perf_counter() - start
    return GpuBinary(
        target=target,
        ptx=result.ptx,
        ptx_backend=result.backend,
        ptx_isa=result.isa,
        cubin=cubin,
        log="\n".join(logs),
        timings=timings,
        notes=notes,
    )


def _whole_program(
    result: PtxResult,
    text: str,
    target: Target,
    opts: ToolchainOptions,
    whole: str,
    driver_max: PtxIsa | None,
    notes: list[str],
    timings: dict[str, float],
    logs: list[str],
) -> tuple[PtxResult, bytes | None] | None:
    """PTX and cubin for PTX using ``whole`` (``setmaxnreg``): a cubin from a ``ptxas``
    executable, or (``cubin != 'always'``, driver known) the PTX for the driver's JIT; LLVM
    re-emits libNVVM's PTX at the target's ISA when the tool is older than it. None: neither
    way is open (the caller assembles with nvJitLink and says what is lost)."""
    why = f"{whole} needs whole-program compilation (nvJitLink's relocatable code ignores it)"
    can_reemit = result.backend == LIBNVVM and opts.ptx_backend == AUTO

    def at_isa(limit: PtxIsa) -> PtxResult | None:
        if result.isa <= limit:
            return result
        if not can_reemit or target.ptx_isa > limit:
            return None
        redone = _run_backend(LLVM, text, target, opts.opt_level)
        timings["ptx_llvm"] = redone.seconds
        notes.append(f"PTX re-emitted by LLVM at ISA {format_isa(redone.isa)}")
        return redone

    ptxas = find_ptxas()
    if ptxas is not None and (ptx := at_isa(ptxas.max_isa)) is not None:
        linked = ptxas_to_cubin(ptx.ptx, target.arch, ptxas, opts.opt_level)
        timings["cubin"] = linked.seconds
        if linked.log:
            logs.append(linked.log)
        notes.append(f"{why}: cubin from {ptxas.path} ({ptxas.version[0]}.{ptxas.version[1]})")
        return ptx, linked.cubin
    if opts.cubin != "always" and driver_max is not None:
        ptx = at_isa(driver_max)
        if ptx is not None:
            notes.append(f"{why}: PTX for the driver's JIT (no ptxas found)")
            return ptx, None
    return None
