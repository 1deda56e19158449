"""The GPU toolchain: finished NVVM IR -> PTX -> cubin, and what to hand the driver.

Choices are explicit and reported: ``ToolchainOptions`` says which PTX back end (``auto``,
``libnvvm`` or ``llvm``) and whether to make a cubin; ``GpuBinary`` records what was used,
why (``notes``), the tools' logs and per-step timings.

The PTX-version trap (FACTS.md): libNVVM 13.5 writes ``.version 9.5``, which a CUDA 13.0
driver rejects. So what reaches the driver is a cubin whenever nvJitLink is present; without
nvJitLink it is PTX of an ISA the driver accepts, and if neither is possible the error says so
before any launch. libNVVM's PTX that is newer than a tool or driver takes is declared at the
older ISA when an assembler here accepts it so (it refuses any instruction the declared ISA
lacks), else LLVM re-emits it at the target's ISA (``_at_isa``).

PTX with ``setmaxnreg`` needs whole-program compilation, which nvJitLink does not do (see
``cubin.py``): it is assembled by a ``ptxas`` executable when one is found, else handed to the
driver as PTX when the driver is known (its JIT compiles whole programs), else assembled by
nvJitLink with a note that the register reallocation is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from layoutc.runtime.compat import PtxIsa, format_isa, max_ptx_isa_for_driver, with_ptx_isa

from .cubin import (
    CubinResult,
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

#: An assembler of PTX text (raises ``ToolchainError`` on PTX it refuses).
Assemble = Callable[[str], CubinResult]


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
    """What the driver gets: ``cubin``, ``ptx`` as made, or ``older-ptx`` (libNVVM's PTX
    declared at the driver's ISA, or LLVM's at the target's: see ``_at_isa``)."""

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
    accepted; PTX from libNVVM that is too new is made again at an older ISA unless the caller
    pinned the back end; otherwise the error states the versions involved.
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
        "older-ptx",
        f"libNVVM wrote PTX ISA {format_isa(ptx_isa)}, newer than the driver accepts "
        f"({format_isa(driver_max_isa)}), and no cubin was made: PTX of an ISA from "
        f"{format_isa(target_isa)} to {format_isa(driver_max_isa)} instead",
    )


def _run_backend(backend: str, text: str, target: Target, opt_level: int) -> PtxResult:
    if backend == LIBNVVM:
        return compile_ptx_libnvvm(text, target, opt_level)
    return compile_ptx_llvm(text, target, opt_level)


def _checker(limit: PtxIsa, target: Target, opts: ToolchainOptions) -> Assemble | None:
    """An assembler here that takes PTX ISA ``limit`` and so can vouch for PTX declared at it
    before a driver sees it: ``ptxas``, else nvJitLink; None when neither is installed."""
    ptxas = find_ptxas()
    if ptxas is not None and ptxas.max_isa >= limit:
        return lambda ptx: ptxas_to_cubin(ptx, target.arch, ptxas, opts.opt_level)
    link_max = nvjitlink_max_ptx_isa()
    if link_max is not None and link_max >= limit:
        return lambda ptx: ptx_to_cubin(ptx, target.arch, opts.opt_level)
    return None


def _at_isa(
    result: PtxResult,
    limit: PtxIsa,
    consumer: str,
    assemble: Assemble | None,
    text: str,
    target: Target,
    opts: ToolchainOptions,
    notes: list[str],
    timings: dict[str, float],
) -> tuple[PtxResult, CubinResult | None] | None:
    """``result`` made acceptable to ``consumer``, which takes PTX ISA up to ``limit``, and
    ``assemble``'s cubin of it (``assemble`` raises ``ToolchainError`` on PTX it refuses; None:
    nothing here assembles it). PTX of an accepted ISA is kept. libNVVM's newer PTX (libNVVM
    13.5 writes ISA 9.5 whatever the module needs; CUDA 13.0's ptxas and driver take 9.0) is
    declared at ``limit`` when ``assemble`` accepts it that way: an assembler refuses any
    instruction the declared ISA lacks, and the code is libNVVM's (LLVM's NVPTX PTX of a
    ping-pong wgmma GEMM makes ptxas serialize its wgmmas, C7514). Otherwise, with the back
    end ours to choose, LLVM re-emits the PTX at the target's ISA. None: no way is open."""
    if result.isa <= limit:
        return result, assemble(result.ptx) if assemble else None
    if result.backend != LIBNVVM or opts.ptx_backend != AUTO or target.ptx_isa > limit:
        return None
    wrote = f"libNVVM wrote PTX ISA {format_isa(result.isa)}, newer than {consumer} takes"
    if assemble is not None:
        declared = replace(result, ptx=with_ptx_isa(result.ptx, limit), isa=limit)
        try:
            cubin = assemble(declared.ptx)
        except ToolchainError as e:
            notes.append(f"{wrote}; declared at ISA {format_isa(limit)} it was refused "
                         f"({str(e).splitlines()[0]})")  # fmt: skip
        else:
            notes.append(f"{wrote}: declared at ISA {format_isa(limit)}, which it takes")
            return declared, cubin
    redone = _run_backend(LLVM, text, target, opts.opt_level)
    timings["ptx_llvm"] = redone.seconds
    if assemble is None:
        notes.append(f"{wrote} ({format_isa(limit)}) and nothing here can check it declared "
                     "older: PTX re-emitted by LLVM at ISA " + format_isa(redone.isa))  # fmt: skip
    else:
        notes.append(f"PTX re-emitted by LLVM at ISA {format_isa(redone.isa)}")
    return redone, assemble(redone.ptx) if assemble else None


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
    cubin = None
    if link_max is not None:
        done = _at_isa(
            result, link_max, "nvJitLink",
            lambda ptx: ptx_to_cubin(ptx, target.arch, opts.opt_level),
            text, target, opts, notes, timings,
        )  # fmt: skip
        if done is None and opts.cubin == "always":
            raise ToolchainError(
                "nvJitLink",
                f"nvJitLink assembles PTX ISA up to {format_isa(link_max)}, the PTX is "
                f"{format_isa(result.isa)}",
            )
        if done is None:
            notes.append("nvJitLink is older than the PTX: no cubin")
        else:
            result, linked = done
            cubin = linked.cubin
            timings["cubin"] = linked.seconds
            if linked.log:
                logs.append(linked.log)
            if whole is not None:
                notes.append(
                    f"{whole} needs whole-program compilation; no ptxas was found (set "
                    f"LAYOUTC_PTXAS) and the driver cannot take the PTX: nvJitLink's "
                    f"relocatable cubin ignores {whole} (ptxas C7504)"
                )
    payload = choose_payload(
        have_cubin=cubin is not None,
        ptx_isa=result.isa,
        ptx_backend=result.backend,
        backend_fixed=opts.ptx_backend != AUTO,
        target_isa=target.ptx_isa,
        driver_max_isa=driver_max,
    )
    if payload.kind == "older-ptx":
        assert driver_max is not None  # (choose_payload: only for a known driver)
        check = _checker(driver_max, target, opts)
        done = _at_isa(result, driver_max, "the driver", check, text, target, opts, notes, timings)
        assert done is not None  # (choose_payload: libNVVM's, ours to redo, target accepted)
        result, checked = done
        if checked is not None:
            timings["check"] = checked.seconds
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
    executable, or (``cubin != 'always'``, driver known) the PTX for the driver's JIT, each at
    an ISA it takes (``_at_isa``). None: neither way is open (the caller assembles with
    nvJitLink and says what is lost)."""
    why = f"{whole} needs whole-program compilation (nvJitLink's relocatable code ignores it)"
    ptxas = find_ptxas()
    if ptxas is not None:
        name = f"{ptxas.path} ({ptxas.version[0]}.{ptxas.version[1]})"
        done = _at_isa(
            result, ptxas.max_isa, name,
            lambda ptx: ptxas_to_cubin(ptx, target.arch, ptxas, opts.opt_level),
            text, target, opts, notes, timings,
        )  # fmt: skip
        if done is not None:
            ptx, linked = done
            assert linked is not None
            timings["cubin"] = linked.seconds
            if linked.log:
                logs.append(linked.log)
            notes.append(f"{why}: cubin from {name}")
            return ptx, linked.cubin
    if opts.cubin != "always" and driver_max is not None:
        check = _checker(driver_max, target, opts)
        done = _at_isa(result, driver_max, "the driver", check, text, target, opts, notes, timings)
        if done is not None:
            ptx, checked = done
            if checked is not None:
                timings["check"] = checked.seconds
            notes.append(f"{why}: PTX for the driver's JIT (no ptxas found)")
            return ptx, None
    return None
