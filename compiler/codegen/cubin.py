"""PTX -> cubin with nvJitLink (``cuda.bindings.nvjitlink``, pip ``nvidia-nvjitlink``), or with
a ``ptxas`` executable for PTX that needs whole-program compilation.

nvJitLink runs on machines without a GPU, is what users can install from pip (ptxas is not),
and the cubin it writes sidesteps the PTX-version trap: a driver loads a cubin for its
architecture whatever PTX ISA it came from.

But nvJitLink (like the driver's cuLink*) compiles its PTX as *relocatable* code (``ptxas
-c``), and in that mode ptxas drops ``setmaxnreg`` ("C7504: 'setmaxnreg' ignored to maintain
compatibility across compilation units"): a warp-specialized kernel's producer keeps the
consumers' register budget. Only whole-program compilation (``ptxas`` without ``-c``, the
driver's own JIT of a module's PTX, nvcc without ``-rdc``) honours it; ``.maxnreg`` on the
entry does not help. So PTX that uses such an instruction (:func:`whole_program_reason`) is
assembled by a ``ptxas`` found on this machine (:func:`find_ptxas`) when there is one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from layoutc.runtime.compat import PtxIsa, max_ptx_isa_for_cuda, parse_arch

from .errors import ToolchainError


@dataclass(frozen=True)
class CubinResult:
    cubin: bytes
    arch: str
    log: str
    seconds: float


def nvjitlink_version() -> tuple[int, int] | None:
    """(major, minor) of the loadable nvJitLink, or None when it is not installed."""
    try:
        from cuda.bindings import nvjitlink

        major, minor = nvjitlink.version()
        return int(major), int(minor)
    except Exception:
        return None


def nvjitlink_max_ptx_isa() -> PtxIsa | None:
    """The newest PTX ISA the installed nvJitLink assembles, or None without nvJitLink."""
    version = nvjitlink_version()
    return max_ptx_isa_for_cuda(*version) if version else None


def _log(nvjitlink, handle, error: bool) -> str:
    size_fn = nvjitlink.get_error_log_size if error else nvjitlink.get_info_log_size
    get_fn = nvjitlink.get_error_log if error else nvjitlink.get_info_log
    size = size_fn(handle)
    if size <= 1:
        return ""
    buf = bytearray(size)
    get_fn(handle, buf)
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def _opt_options(opt_level: int) -> list[str]:
    """nvJitLink's options for an optimisation level: it takes only ``-O0`` and ``-O3``
    (ERROR_UNRECOGNIZED_OPTION for ``-O1``/``-O2``), so levels 1 and 2 go to its ptxas."""
    level = max(0, min(opt_level, 3))
    return [f"-O{level}"] if level in (0, 3) else [f"-Xptxas=-O{level}"]


def ptx_to_cubin(ptx: str, arch: str, opt_level: int = 3, verbose: bool = False) -> CubinResult:
    """Assemble ``ptx`` into a cubin for ``arch`` (``sm_90``, ``sm_90a``, ...); ``verbose``
    puts ptxas's resource report (registers, stack frame, spills) in the log."""
    parse_arch(arch)
    try:
        from cuda.bindings import nvjitlink
    except ImportError as e:
        raise ToolchainError("nvJitLink", "cuda-bindings is not installed") from e
    options = [f"-arch={arch}", *_opt_options(opt_level)]
    if verbose:
        options.append("-verbose")
    start = time.perf_counter()
    try:
        handle = nvjitlink.create(len(options), options)
    except Exception as e:
        raise ToolchainError("nvJitLink", f"cannot load nvJitLink: {e}") from e
    try:
        data = ptx.encode()
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "layoutc.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            raise ToolchainError(
                "nvJitLink",
                f"assembling PTX for {arch} failed ({e})",
                _log(nvjitlink, handle, True),
            ) from None
        size = nvjitlink.get_linked_cubin_size(handle)
        buf = bytearray(size)
        nvjitlink.get_linked_cubin(handle, buf)
        log = _log(nvjitlink, handle, False)
    finally:
        nvjitlink.destroy(handle)
    return CubinResult(bytes(buf), arch, log, time.perf_counter() - start)


#: Instructions relocatable compilation drops (ptxas's C7504 for ``setmaxnreg``).
WHOLE_PROGRAM_INSTRUCTIONS = ("setmaxnreg",)
_WHOLE_PROGRAM_RE = re.compile(
    r"^\s*(?:@!?%\w+\s+)?(" + "|".join(WHOLE_PROGRAM_INSTRUCTIONS) + r")\.", re.M
)


def whole_program_reason(ptx: str) -> str | None:
    """The instruction of ``ptx`` that only whole-program compilation honours, or None."""
    m = _WHOLE_PROGRAM_RE.search(ptx)
    return m.group(1) if m else None


@dataclass(frozen=True)
class Ptxas:
    """A ``ptxas`` executable and the newest PTX ISA it assembles."""

    path: str
    version: tuple[int, int]

    @property
    def max_isa(self) -> PtxIsa:
        return max_ptx_isa_for_cuda(*self.version)

    @property
    def identity(self) -> str:
        return f"{self.path}@{self.version[0]}.{self.version[1]}"


def cuda_tool_candidates(name: str) -> list[Path]:
    """Where a CUDA tool (``ptxas``, ``cuobjdump``, ``nvdisasm``) may be: on PATH;
    ``$CUDA_HOME``/``$CUDA_PATH``/bin; /usr/local/cuda/bin; the pip packages that ship the
    tools (``nvidia-cuda-nvcc`` and the CUDA 13 tool wheels, Triton's ptxas), found without
    importing them. ``ptxas``: ``$LAYOUTC_PTXAS`` alone when it is set."""
    if name == "ptxas" and os.environ.get("LAYOUTC_PTXAS"):
        return [Path(os.environ["LAYOUTC_PTXAS"])]
    found: list[Path] = []
    if which := shutil.which(name):
        found.append(Path(which))
    roots = [os.environ.get(var) for var in ("CUDA_HOME", "CUDA_PATH")]
    found.extend(Path(root) / "bin" / name for root in (*roots, "/usr/local/cuda") if root)
    for package, rel in (
        ("nvidia", (f"cu13/bin/{name}", f"cuda_nvcc/bin/{name}")),
        ("triton", (f"backends/nvidia/bin/{name}",)),
    ):
        try:
            spec = find_spec(package)
        except (ImportError, ValueError):
            continue
        for root in (spec.submodule_search_locations or []) if spec else []:
            found.extend(Path(root) / r for r in rel)
    return found


def find_cuda_tool(name: str) -> str | None:
    """The first of :func:`cuda_tool_candidates` that exists, or None."""
    return next((str(p) for p in cuda_tool_candidates(name) if p.is_file()), None)


@cache
def find_ptxas() -> Ptxas | None:
    """The first working ``ptxas`` of :func:`cuda_tool_candidates` (``LAYOUTC_PTXAS=none``:
    none)."""
    if os.environ.get("LAYOUTC_PTXAS", "").lower() == "none":
        return None
    for path in cuda_tool_candidates("ptxas"):
        if not path.is_file():
            continue
        try:
            out = subprocess.run(
                [str(path), "--version"], capture_output=True, text=True, timeout=30
            ).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        m = re.search(r"release (\d+)\.(\d+)", out)
        if m:
            return Ptxas(str(path), (int(m.group(1)), int(m.group(2))))
    return None


def ptxas_to_cubin(
    ptx: str, arch: str, ptxas: Ptxas, opt_level: int = 3, verbose: bool = False
) -> CubinResult:
    """Assemble ``ptx`` as a whole program (no ``-c``) with the executable ``ptxas``."""
    parse_arch(arch)
    options = [f"-arch={arch}", f"-O{max(0, min(opt_level, 3))}"] + (["-v"] if verbose else [])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="layoutc-ptxas-") as tmp:
        src, out = Path(tmp) / "layoutc.ptx", Path(tmp) / "layoutc.cubin"
        src.write_text(ptx)
        try:
            run = subprocess.run(
                [ptxas.path, *options, str(src), "-o", str(out)],
                capture_output=True,
                text=True,
                timeout=600,
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise ToolchainError("ptxas", f"cannot run {ptxas.path}: {e}") from None
        log = (run.stdout + run.stderr).strip()
        if run.returncode != 0 or not out.is_file():
            raise ToolchainError("ptxas", f"assembling PTX for {arch} failed", log)
        cubin = out.read_bytes()
    return CubinResult(cubin, arch, log, time.perf_counter() - start)
