"""Where a kernel is compiled for: a GPU architecture or this machine's CPU.

``resolve_target`` turns what users write (``None``, ``"cuda"``, ``"sm_90"``, ``"cpu"``, a
``codegen.target.Target``) into a :class:`BuildTarget`. ``None`` means "the GPU if there is one,
else the CPU", so the same program runs on a laptop and on a GPU machine; ``LAYOUTC_TARGET``
overrides that default for a whole process (e.g. ``LAYOUTC_TARGET=cpu`` on a GPU machine).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

CPU = "cpu"
GPU = "gpu"

_GPU_WORDS = ("cuda", "gpu")
_CPU_WORDS = ("cpu", "host")


class TargetError(ValueError):
    """A target that cannot be used (unknown name, no GPU to take the architecture from)."""


@dataclass(frozen=True)
class BuildTarget:
    """A resolved target: ``kind`` is ``gpu`` (with ``gpu``, a codegen Target) or ``cpu``."""

    kind: str
    gpu: Any = None  # layoutc.codegen.target.Target for GPU builds

    @property
    def name(self) -> str:
        """``sm_90`` or ``cpu``: the target's part of cache keys, file names and reports."""
        return self.gpu.arch if self.kind == GPU else CPU

    @property
    def is_gpu(self) -> bool:
        return self.kind == GPU

    @property
    def flavour(self) -> str:
        """The LLVM flavour of the IR translation and of convert-to-llvm: nvvm or host."""
        return "nvvm" if self.kind == GPU else "host"

    def describe(self) -> str:
        return str(self.gpu) if self.kind == GPU else "the host CPU"

    def key(self) -> str:
        """Everything about the target that changes generated code."""
        if self.kind == GPU:
            major, minor = self.gpu.ptx_isa
            return f"{self.gpu.arch}/ptx{major}.{minor}"
        return CPU


CPU_TARGET = BuildTarget(CPU)

_gpu_lock = threading.Lock()
_gpu_present: bool | None = None


def gpu_available() -> bool:
    """Whether a CUDA driver and at least one GPU are usable (asked once per process)."""
    global _gpu_present
    if _gpu_present is None:
        with _gpu_lock:
            if _gpu_present is None:
                _gpu_present = _probe_gpu()
    return _gpu_present


def _probe_gpu() -> bool:
    try:
        from layoutc.runtime import cuda_driver

        return cuda_driver.device_count() > 0
    except Exception:  # no bindings, no driver, no device: all mean "run on the CPU"
        return False


def default_target_name() -> str:
    """``LAYOUTC_TARGET`` if set, else ``cuda`` when a GPU is present, else ``cpu``."""
    env = os.environ.get("LAYOUTC_TARGET", "").strip()
    if env:
        return env
    return "cuda" if gpu_available() else CPU


def resolve_target(target: Any = None) -> BuildTarget:
    """A :class:`BuildTarget` for ``target``: None, ``"cuda"``/``"gpu"`` (the current device),
    ``"sm_80"``..``"sm_90a"``, ``"cpu"``/``"host"``, a BuildTarget or a codegen Target."""
    if isinstance(target, BuildTarget):
        return target
    if target is None:
        target = default_target_name()
    from layoutc.codegen.target import Target
    from layoutc.codegen.target import TargetError as CodegenTargetError

    if isinstance(target, Target):
        return BuildTarget(GPU, target)
    if not isinstance(target, str):
        raise TargetError(
            f"target must be 'cpu', 'cuda' or a GPU architecture such as 'sm_90', not {target!r}"
        )
    word = target.strip().lower()
    if word in _CPU_WORDS:
        return CPU_TARGET
    if word in _GPU_WORDS:
        if not gpu_available():
            raise TargetError(
                f"target {target!r} needs a GPU, and none is usable here; name an architecture "
                "(e.g. target='sm_90') to compile without one, or use target='cpu' to run here"
            )
        try:
            return BuildTarget(GPU, Target.from_device())
        except CodegenTargetError as e:
            raise TargetError(str(e)) from None
    try:
        return BuildTarget(GPU, Target.parse(word))
    except CodegenTargetError as e:
        raise TargetError(f"target {target!r}: {e}; or use 'cpu' or 'cuda'") from None
