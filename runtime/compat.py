"""Which PTX ISA versions and GPU architectures a CUDA driver or device accepts.

One table, shared by code generation (to choose what to hand the driver) and by the artifact
loader (to refuse, with a clear message, an artifact the installed driver cannot run). Plain
Python: the production loader imports it without any compiler library.
"""

from __future__ import annotations

import re

from .errors import IncompatibleDriverError, NotSupportedError

PtxIsa = tuple[int, int]

#: CUDA release (major, minor) -> highest PTX ISA its driver, ptxas and nvJitLink accept,
#: from the release notes of the PTX ISA ("PTX ISA version X.Y ... CUDA A.B").
_CUDA_TO_PTX_ISA: dict[tuple[int, int], PtxIsa] = {
    (11, 0): (7, 0),
    (11, 1): (7, 1),
    (11, 2): (7, 2),
    (11, 3): (7, 3),
    (11, 4): (7, 4),
    (11, 5): (7, 5),
    (11, 6): (7, 6),
    (11, 7): (7, 7),
    (11, 8): (7, 8),
    (12, 0): (8, 0),
    (12, 1): (8, 1),
    (12, 2): (8, 2),
    (12, 3): (8, 3),
    (12, 4): (8, 4),
    (12, 5): (8, 5),
    (12, 6): (8, 5),
    (12, 7): (8, 6),
    (12, 8): (8, 7),
    (12, 9): (8, 8),
    (13, 0): (9, 0),
}

#: Architectures layoutc generates code for -> the lowest PTX ISA that can target them.
ARCH_MIN_PTX_ISA: dict[str, PtxIsa] = {
    "sm_80": (7, 0),
    "sm_86": (7, 1),
    "sm_89": (7, 8),
    "sm_90": (8, 0),  # Hopper's async features (TMA, expect_tx, elect.sync...) need ISA 8.0
    "sm_90a": (8, 0),
}

SUPPORTED_ARCHS: tuple[str, ...] = tuple(ARCH_MIN_PTX_ISA)

_ARCH_RE = re.compile(r"^sm_(\d)(\d+)(a?)$")


def cuda_version_tuple(driver_version: int) -> tuple[int, int]:
    """``cuDriverGetVersion``'s integer (1000*major + 10*minor) -> (major, minor)."""
    if driver_version <= 0:
        raise ValueError(f"invalid CUDA driver version {driver_version}")
    return driver_version // 1000, (driver_version % 1000) // 10


def max_ptx_isa_for_cuda(major: int, minor: int) -> PtxIsa:
    """The highest PTX ISA a CUDA ``major.minor`` driver or compiler library accepts.

    Releases newer than the table are answered conservatively: a later 13.x maps to ISA
    9.minor (the rule every 13.x release so far follows, e.g. libNVVM 13.5 writes 9.5); a later
    major maps to the newest ISA we know, which such a driver certainly accepts.
    """
    key = (major, minor)
    if key in _CUDA_TO_PTX_ISA:
        return _CUDA_TO_PTX_ISA[key]
    if major == 13:
        return (9, minor)
    known = max(_CUDA_TO_PTX_ISA)
    if key > known:
        return max(_CUDA_TO_PTX_ISA.values())
    raise IncompatibleDriverError(
        f"CUDA {major}.{minor} is older than any release layoutc supports (11.0 or newer)"
    )


def max_ptx_isa_for_driver(driver_version: int) -> PtxIsa:
    """The highest PTX ISA accepted by a driver reporting ``driver_version``."""
    return max_ptx_isa_for_cuda(*cuda_version_tuple(driver_version))


def parse_arch(arch: str) -> tuple[int, int, bool]:
    """``"sm_90a"`` -> (9, 0, True): compute capability and whether ``a`` features are on."""
    m = _ARCH_RE.match(arch)
    if not m:
        raise ValueError(f"not a GPU architecture name: {arch!r} (expected e.g. 'sm_90')")
    return int(m.group(1)), int(m.group(2)), m.group(3) == "a"


def require_supported_arch(arch: str) -> None:
    """Raise a clear error for an architecture layoutc does not generate code for."""
    if arch not in ARCH_MIN_PTX_ISA:
        raise NotSupportedError(
            f"not supported: GPU architecture {arch!r}; supported: {', '.join(SUPPORTED_ARCHS)}"
        )


def arch_for_capability(major: int, minor: int) -> str:
    """The architecture name for a device's compute capability (``9.0`` -> ``sm_90``)."""
    return f"sm_{major}{minor}"


def cubin_runs_on(arch: str, capability: tuple[int, int]) -> bool:
    """Whether machine code for ``arch`` runs on a device of ``capability``.

    cubin is compatible within a major version for equal or newer minors; ``a`` (arch
    specific) code runs only on exactly its own capability.
    """
    major, minor, specific = parse_arch(arch)
    if specific:
        return capability == (major, minor)
    return capability[0] == major and capability[1] >= minor


def ptx_runs_on(arch: str, capability: tuple[int, int]) -> bool:
    """Whether PTX targeting ``arch`` can be JIT-compiled for a device of ``capability``."""
    major, minor, specific = parse_arch(arch)
    if specific:
        return capability == (major, minor)
    return capability >= (major, minor)


_PTX_VERSION_RE = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)", re.MULTILINE)
_PTX_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\w+)", re.MULTILINE)


def ptx_isa_of(ptx: str) -> PtxIsa:
    """The ``.version`` directive of a PTX module."""
    m = _PTX_VERSION_RE.search(ptx)
    if not m:
        raise ValueError("PTX text has no '.version' directive")
    return int(m.group(1)), int(m.group(2))


def with_ptx_isa(ptx: str, isa: PtxIsa) -> str:
    """``ptx`` with its ``.version`` directive set to ``isa``. The assemblers check every
    instruction and qualifier against the declared ISA ("Feature ... requires PTX ISA .version
    8.0 or later"), so PTX declared older than a feature it uses is refused, never
    mis-assembled."""
    m = _PTX_VERSION_RE.search(ptx)
    if not m:
        raise ValueError("PTX text has no '.version' directive")
    return f"{ptx[: m.start(1)]}{isa[0]}.{isa[1]}{ptx[m.end(2) :]}"


def ptx_target_of(ptx: str) -> str:
    """The ``.target`` architecture of a PTX module (``sm_90a``)."""
    m = _PTX_TARGET_RE.search(ptx)
    if not m:
        raise ValueError("PTX text has no '.target' directive")
    return m.group(1)


def format_isa(isa: PtxIsa) -> str:
    return f"{isa[0]}.{isa[1]}"


def parse_isa(text: str) -> PtxIsa:
    """``"8.0"`` -> (8, 0)."""
    parts = text.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a PTX ISA version: {text!r} (expected e.g. '8.0')")
    return int(parts[0]), int(parts[1])
