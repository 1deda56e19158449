"""The kernel ABI: one description shared by code generation, both runtimes and the manifest.

A kernel's parameters follow docs/architecture.md ("Kernel ABI"): one per flattened kernel
argument; a tensor becomes its pointer followed by the parameters carrying its dynamic layout
entries. ``KernelSpec`` states that list plus launch facts; it serialises to the ``kernels[]``
entries of ``manifest.json`` (docs/runtime.md) and is what both runtimes marshal arguments from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dtypes import dtype
from .layout_text import LayoutTextError, count_dynamic

POINTER = "pointer"
SCALAR = "scalar"


@dataclass(frozen=True)
class Param:
    """One kernel parameter.

    ``kind`` is ``pointer`` (a tensor's or raw buffer's base address; ``dtype`` is the element
    type) or ``scalar`` (passed by value). A pointer with ``layout`` is a tensor: ``layout`` is
    its CuTe layout text with ``?`` for dynamic entries and ``dynamic`` names, in the order the
    ``?`` appear (shape entries first, then strides), the scalar parameters that carry them.
    """

    name: str
    kind: str
    dtype: str
    layout: str | None = None
    dynamic: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in (POINTER, SCALAR):
            raise ValueError(f"parameter {self.name!r}: kind must be 'pointer' or 'scalar'")
        dtype(self.dtype)  # validates the name
        if self.kind == SCALAR and (self.layout is not None or self.dynamic):
            raise ValueError(f"scalar parameter {self.name!r} cannot carry a layout")
        if self.layout is not None:
            try:
                n = count_dynamic(self.layout)
            except LayoutTextError as e:
                raise ValueError(f"parameter {self.name!r}: {e}") from None
            if n != len(self.dynamic):
                raise ValueError(
                    f"parameter {self.name!r}: layout {self.layout!r} has {n} dynamic entries "
                    f"but {len(self.dynamic)} carrier parameters are named"
                )
        elif self.dynamic:
            raise ValueError(f"parameter {self.name!r}: 'dynamic' given without a layout")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "dtype": self.dtype}
        if self.layout is not None:
            out["layout"] = self.layout
            out["dynamic"] = list(self.dynamic)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Param:
        return cls(
            name=data["name"],
            kind=data["kind"],
            dtype=data["dtype"],
            layout=data.get("layout"),
            dynamic=tuple(data.get("dynamic", ())),
        )


@dataclass(frozen=True)
class LaunchBounds:
    """``__launch_bounds__``: at most ``max_threads`` per block, ``min_blocks`` per SM.

    ``block`` is an exactly required block shape (``gpu.known_block_size`` / ``reqntid``).
    """

    max_threads: int | None = None
    min_blocks: int | None = None
    block: tuple[int, int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "max_threads": self.max_threads,
            "min_blocks": self.min_blocks,
            "block": list(self.block) if self.block else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> LaunchBounds:
        if not data:
            return cls()
        block = data.get("block")
        return cls(data.get("max_threads"), data.get("min_blocks"), tuple(block) if block else None)


@dataclass(frozen=True)
class KernelSpec:
    """A kernel's name (its symbol), parameters and launch facts."""

    name: str
    params: tuple[Param, ...]
    launch_bounds: LaunchBounds = field(default_factory=LaunchBounds)
    static_smem: int = 0
    dynamic_smem: int = 0

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"kernel {self.name!r}: duplicate parameter names in {names}")
        by_name = {p.name: p for p in self.params}
        carried: set[str] = set()
        for p in self.params:
            for d in p.dynamic:
                q = by_name.get(d)
                if q is None or q.kind != SCALAR:
                    raise ValueError(
                        f"kernel {self.name!r}: parameter {p.name!r} names {d!r} as a layout "
                        "entry carrier, but no scalar parameter has that name"
                    )
                if d in carried:
                    raise ValueError(f"kernel {self.name!r}: {d!r} carries two layout entries")
                carried.add(d)

    @property
    def arguments(self) -> tuple[Param, ...]:
        """Parameters the caller passes (everything but layout-entry carriers), in order."""
        carried = {d for p in self.params for d in p.dynamic}
        return tuple(p for p in self.params if p.name not in carried)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": [p.to_json() for p in self.params],
            "launch_bounds": self.launch_bounds.to_json(),
            "shared_memory": {"static_bytes": self.static_smem, "dynamic_bytes": self.dynamic_smem},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelSpec:
        smem = data.get("shared_memory", {})
        return cls(
            name=data["name"],
            params=tuple(Param.from_json(p) for p in data["params"]),
            launch_bounds=LaunchBounds.from_json(data.get("launch_bounds")),
            static_smem=int(smem.get("static_bytes", 0)),
            dynamic_smem=int(smem.get("dynamic_bytes", 0)),
        )


def simple_spec(name: str, params: Sequence[tuple[str, str, str]], **kw: Any) -> KernelSpec:
    """Shorthand for tests and hand-written kernels: ``[("x", "pointer", "f32"), ...]``."""
    return KernelSpec(name, tuple(Param(n, k, d) for n, k, d in params), **kw)
