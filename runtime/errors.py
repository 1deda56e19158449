"""Exceptions raised by the runtimes.

They live in one module so that callers can catch them without importing the CUDA bindings or
llvmlite: every class here is plain Python.
"""

from __future__ import annotations


class RuntimeErrorBase(Exception):
    """Base class of every error the layoutc runtimes raise."""


class CudaError(RuntimeErrorBase):
    """A CUDA driver call failed.

    Carries the driver's error name and description and what layoutc was doing, so that the
    message reads like ``cuModuleLoadData (loading kernel 'copy' from cubin): CUDA_ERROR_...``.
    """

    def __init__(self, code: int, name: str, description: str, doing: str) -> None:
        self.code = code
        self.name = name
        self.description = description
        self.doing = doing
        super().__init__(f"{doing}: {name} ({code}): {description}")


class CudaUnavailableError(RuntimeErrorBase):
    """No usable CUDA driver or device (missing cuda-bindings, no driver, no GPU)."""


class ArgumentError(RuntimeErrorBase, TypeError):
    """A kernel argument does not match the kernel's ABI (dtype, device, shape, strides)."""


class ArtifactError(RuntimeErrorBase):
    """An AOT artifact directory or manifest is malformed, corrupt or unsupported."""


class IncompatibleDriverError(RuntimeErrorBase):
    """The installed driver or device cannot run an artifact (PTX ISA or architecture)."""


class CpuExecutionError(RuntimeErrorBase):
    """A kernel misbehaved on the CPU runtime (e.g. a barrier not reached by all threads)."""


class SettingError(RuntimeErrorBase, ValueError):
    """An environment variable layoutc reads has a value it cannot use (the message names it)."""


class OutOfBoundsError(RuntimeErrorBase, IndexError):
    """A bounds-checked kernel accessed memory outside the argument (or shared-memory object)
    the access belongs to; the message names the kernel, thread, block, tensor, coordinate and
    offset of the first such access (docs/runtime.md, "The bounds check")."""


class NotSupportedError(RuntimeErrorBase, NotImplementedError):
    """A feature that layoutc does not implement (yet); the message says which."""
