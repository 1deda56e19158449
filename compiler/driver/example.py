"""The example-program convention that ``layoutc run FILE.py`` understands.

An example file defines its kernel(s) as any program would, then describes one runnable
problem per kernel with :class:`Example`, at module level::

    EXAMPLE = lc.Example(
        kernel=copy_1d,
        inputs=make_inputs,          # (size, numpy Generator) -> {parameter: array or value}
        launch=launch,               # arguments -> {"grid": ..., "block": ...}
        reference=reference,         # arguments -> {output parameter: expected numpy array}
        size=1 << 16,                # the problem size for CPU runs (CI)
        gpu_size=1 << 28,            # ... and on a GPU
        bytes=lambda a: 2 * a["src"].nbytes,   # memory traffic, for GB/s (or flops= for FLOP/s)
    )

(``EXAMPLES = [...]`` holds several.) ``inputs`` returns host numpy arrays and Python values by
kernel parameter name; arrays the kernel only writes should be filled with NaN (or another
poison) so that a kernel that skips elements cannot pass. ``reference`` gets a copy of the
inputs and returns the expected final value of every output. The runner does the rest:
chooses the GPU or the CPU, compiles, moves data, launches, checks and times.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Arguments = dict[str, Any]


@dataclass(frozen=True)
class Example:
    """One runnable, checkable problem for one kernel (see the module docstring)."""

    kernel: Any
    inputs: Callable[[int, Any], Arguments]
    launch: Callable[[Arguments], Mapping[str, Any]]
    reference: Callable[[Arguments], Mapping[str, Any]]
    size: int
    gpu_size: int | None = None
    name: str | None = None
    description: str = ""
    bytes: Callable[[Arguments], int] | None = None
    flops: Callable[[Arguments], int] | None = None
    rtol: float = 0.0
    atol: float = 0.0

    def __post_init__(self) -> None:
        from layoutc.frontend.kernel import Kernel

        if not isinstance(self.kernel, Kernel):
            raise TypeError(f"Example(kernel=...) needs a @layoutc.kernel, got {self.kernel!r}")
        for field_name in ("inputs", "launch", "reference"):
            if not callable(getattr(self, field_name)):
                raise TypeError(f"Example({field_name}=...) must be a function")
        if not isinstance(self.size, int) or self.size <= 0:
            raise TypeError(f"Example(size=...) must be a positive int, got {self.size!r}")

    @property
    def title(self) -> str:
        return self.name or self.kernel.name

    def size_for(self, on_gpu: bool, override: int | None = None) -> int:
        """The problem size of a run: ``override``, else ``gpu_size`` on a GPU, else ``size``."""
        if override is not None:
            return override
        if on_gpu and self.gpu_size is not None:
            return self.gpu_size
        return self.size

    def ordered_arguments(self, arguments: Mapping[str, Any]) -> list[Any]:
        """The arguments in the kernel's parameter order (missing ones are an error)."""
        names = list(self.kernel.signature.parameters)
        missing = [n for n in names if n not in arguments]
        extra = [n for n in arguments if n not in names]
        if missing or extra:
            raise TypeError(
                f"example '{self.title}': inputs() must give exactly the kernel's parameters "
                f"{names}; missing {missing}, unexpected {extra}"
            )
        return [arguments[n] for n in names]


def find_examples(namespace: Mapping[str, Any], where: str) -> list[Example]:
    """``EXAMPLE`` and/or ``EXAMPLES`` of a loaded example module."""
    found: list[Example] = []
    single = namespace.get("EXAMPLE")
    if single is not None:
        found.append(single)
    many = namespace.get("EXAMPLES")
    if many is not None:
        found.extend(many)
    if not found:
        raise LookupError(
            f"{where} defines no EXAMPLE (or EXAMPLES list) of layoutc.Example; see docs/driver.md"
        )
    for item in found:
        if not isinstance(item, Example):
            raise TypeError(f"{where}: EXAMPLE(S) must hold layoutc.Example objects, got {item!r}")
    return found
