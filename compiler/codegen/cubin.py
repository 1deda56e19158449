"""PTX -> cubin with nvJitLink (``cuda.bindings.nvjitlink``, pip ``nvidia-nvjitlink``).

nvJitLink runs on machines without a GPU, is what users can install from pip (ptxas is not),
and the cubin it writes sidesteps the PTX-version trap: a driver loads a cubin for its
architecture whatever PTX ISA it came from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

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


def ptx_to_cubin(ptx: str, arch: str, opt_level: int = 3, verbose: bool = False) -> CubinResult:
    """Assemble ``ptx`` into a cubin for ``arch`` (``sm_90``, ``sm_90a``, ...); ``verbose``
    puts ptxas's resource report (registers, stack frame, spills) in the log."""
    parse_arch(arch)
    try:
        from cuda.bindings import nvjitlink
    except ImportError as e:
        raise ToolchainError("nvJitLink", "cuda-bindings is not installed") from e
    options = [f"-arch={arch}", f"-O{max(0, min(opt_level, 3))}"]
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
