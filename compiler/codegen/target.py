"""GPU targets: which architecture to generate code for and which PTX ISA to emit.

``Target`` is a value object handed from the driver down to code generation and recorded in
artifacts. The default target comes from the device when a GPU is present; without one the
caller must choose (``Target.parse("sm_90")``), because guessing would build unusable code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from layoutc.runtime.compat import (
    ARCH_MIN_PTX_ISA,
    SUPPORTED_ARCHS,
    PtxIsa,
    arch_for_capability,
    format_isa,
    parse_arch,
    parse_isa,
    require_supported_arch,
)

#: PTX ISA versions LLVM's NVPTX back end (llvmlite 0.50, LLVM 22) can emit, as ``+ptxNN``.
LLVM_PTX_ISAS: frozenset[PtxIsa] = frozenset(
    {(7, i) for i in range(9)} | {(8, i) for i in range(9)} | {(9, 0)}
)


class TargetError(ValueError):
    """A target that cannot be built (unknown arch, PTX ISA too old for the arch, ...)."""


@dataclass(frozen=True)
class Target:
    """A GPU code-generation target.

    ``arch`` is ``sm_80``, ``sm_86``, ``sm_89``, ``sm_90`` or ``sm_90a``; ``ptx_isa`` is the PTX
    ISA version to emit where the back end lets us choose (LLVM's NVPTX; libNVVM always writes
    its own version). By default it is the lowest ISA that supports the arch, which maximises
    the range of drivers that accept the PTX.
    """

    arch: str
    ptx_isa: PtxIsa

    def __post_init__(self) -> None:
        try:
            require_supported_arch(self.arch)
        except NotImplementedError as e:
            raise TargetError(str(e)) from None
        minimum = ARCH_MIN_PTX_ISA[self.arch]
        if self.ptx_isa < minimum:
            raise TargetError(
                f"PTX ISA {format_isa(self.ptx_isa)} cannot target {self.arch} "
                f"(needs {format_isa(minimum)} or newer)"
            )

    @classmethod
    def parse(cls, arch: str, ptx_isa: str | PtxIsa | None = None) -> Target:
        """``Target.parse("sm_90a")`` or ``Target.parse("sm_80", "7.8")``."""
        arch = arch.strip().lower()
        if arch.startswith("compute_"):
            arch = "sm_" + arch[len("compute_") :]
        try:
            parse_arch(arch)
        except ValueError as e:
            raise TargetError(f"{e}; supported: {', '.join(SUPPORTED_ARCHS)}") from None
        if arch not in ARCH_MIN_PTX_ISA:
            raise TargetError(
                f"not supported: GPU architecture {arch!r}; supported: {', '.join(SUPPORTED_ARCHS)}"
            )
        if ptx_isa is None:
            isa = ARCH_MIN_PTX_ISA[arch]
        elif isinstance(ptx_isa, str):
            isa = parse_isa(ptx_isa)
        else:
            isa = tuple(ptx_isa)  # type: ignore[assignment]
        return cls(arch, isa)

    @classmethod
    def from_capability(cls, major: int, minor: int, arch_specific: bool | None = None) -> Target:
        """The target for a device of compute capability ``major.minor``.

        By default (``arch_specific=None``) a device whose architecture has an ``a`` variant
        gets it (an H100 or H200 gets ``sm_90a``): the code is built for exactly this device,
        so its arch-specific features (wgmma, setmaxnreg) cost nothing in portability.
        """
        base = arch_for_capability(major, minor)
        if arch_specific is None:
            arch_specific = base + "a" in ARCH_MIN_PTX_ISA
        arch = base + ("a" if arch_specific else "")
        if arch not in ARCH_MIN_PTX_ISA:
            raise TargetError(
                f"not supported: the device's architecture {arch} "
                f"(compute capability {major}.{minor}); supported: {', '.join(SUPPORTED_ARCHS)}"
            )
        return cls.parse(arch)

    @classmethod
    def from_device(cls, device: int | None = None, arch_specific: bool | None = None) -> Target:
        """The target for CUDA device ``device`` (current device by default; ``sm_90a`` on an
        sm_90 device unless ``arch_specific=False``)."""
        from layoutc.runtime import cuda_driver

        major, minor = cuda_driver.get_device(device).capability
        return cls.from_capability(major, minor, arch_specific)

    @property
    def capability(self) -> tuple[int, int]:
        major, minor, _ = parse_arch(self.arch)
        return major, minor

    @property
    def arch_specific(self) -> bool:
        """Whether ``a`` features (wgmma, setmaxnreg, ...) are on; such code runs only on
        exactly this compute capability."""
        return self.arch.endswith("a")

    @property
    def compute_name(self) -> str:
        """libNVVM's ``-arch`` value: ``compute_90a``."""
        return "compute_" + self.arch[len("sm_") :]

    @property
    def llvm_cpu(self) -> str:
        return self.arch

    @property
    def llvm_features(self) -> str:
        """LLVM NVPTX's feature string selecting the PTX ISA: ``+ptx78``."""
        if self.ptx_isa not in LLVM_PTX_ISAS:
            raise TargetError(
                f"LLVM's NVPTX back end cannot emit PTX ISA {format_isa(self.ptx_isa)}; "
                f"it emits up to {format_isa(max(LLVM_PTX_ISAS))}"
            )
        return f"+ptx{self.ptx_isa[0]}{self.ptx_isa[1]}"

    def with_ptx_isa(self, isa: PtxIsa) -> Target:
        return replace(self, ptx_isa=isa)

    def to_json(self) -> dict[str, str]:
        return {"arch": self.arch, "ptx_isa": format_isa(self.ptx_isa)}

    def __str__(self) -> str:
        return f"{self.arch} (PTX ISA {format_isa(self.ptx_isa)})"


def default_target(arch: str | None = None) -> Target:
    """``arch`` if given, else the current GPU's target; a clear error without a GPU."""
    if arch is not None:
        return Target.parse(arch)
    from layoutc.runtime.errors import CudaUnavailableError

    try:
        return Target.from_device()
    except CudaUnavailableError as e:
        raise TargetError(
            f"no GPU to choose a target from ({e}); name one explicitly, "
            f"e.g. arch='sm_90' (supported: {', '.join(SUPPORTED_ARCHS)})"
        ) from None
