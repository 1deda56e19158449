"""The kernel ABI of a traced kernel: its parameter list and how call arguments map onto it.

Following docs/architecture.md ("Kernel ABI") and docs/runtime.md: a tensor argument becomes a
pointer parameter followed by one scalar "carrier" per dynamic layout entry (shape entries left to
right, then strides), a dynamic scalar becomes one parameter, and a compile-time constant none.
When several entries share a symbol (``N`` in two annotations), each still has its own carrier
(the runtime binds every carrier from its own array), the kernel reads the first one, and
``equal_carriers`` lists the groups the caller must check to be equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..runtime.abi import POINTER, SCALAR, LaunchBounds, Param
from ..runtime.abi import KernelSpec as RuntimeKernelSpec
from .dtypes import element_type
from .spec import ConstexprSpec, KernelSpec, ScalarSpec, TensorSpec


@dataclass(frozen=True)
class Carrier:
    """One parameter carrying a dynamic layout entry of a tensor argument."""

    param: str
    arg: str
    kind: str  # "shape" or "stride"
    leaf: int  # index among the flattened shape (or stride) entries
    symbol: str


@dataclass(frozen=True)
class KernelABI:
    """The parameters of one compiled kernel and where their values come from."""

    name: str
    params: tuple[Param, ...]
    args: tuple[tuple[str, str | None], ...]  # (argument, its parameter, None for constants)
    carriers: tuple[Carrier, ...]
    equal_carriers: tuple[tuple[str, ...], ...]
    block: tuple[int, int, int] | None
    static_smem: int = 0
    dynamic_smem: int = 0  # the launch default: what tensors of static size need
    min_blocks: int | None = None  # @lc.kernel(min_blocks_per_sm=...)
    dynamic_smem_formula: Any = None  # bytes a launch needs, over the parameters (smem_need.py)

    def runtime_spec(self) -> RuntimeKernelSpec:
        """The runtime's KernelSpec (what code generation, both runtimes and manifests use)."""
        bounds = LaunchBounds(
            max_threads=self.block[0] * self.block[1] * self.block[2] if self.block else None,
            min_blocks=self.min_blocks,
            block=self.block,
        )
        return RuntimeKernelSpec(
            self.name,
            self.params,
            bounds,
            static_smem=self.static_smem,
            dynamic_smem=self.dynamic_smem,
            dynamic_smem_formula=self.dynamic_smem_formula,
        )

    def call_arguments(self, bound: Mapping[str, Any]) -> list[Any]:
        """The values to pass for ``runtime_spec().arguments``, from the call's bound arguments."""
        return [bound[arg] for arg, param in self.args if param is not None]


def build_abi(
    name: str,
    spec: KernelSpec,
    static_smem: int = 0,
    dynamic_smem: int = 0,
    min_blocks: int | None = None,
    dynamic_smem_formula: Any = None,
) -> KernelABI:
    taken = {arg for arg, _ in spec.args}
    params: list[Param] = []
    args: list[tuple[str, str | None]] = []
    carriers: list[Carrier] = []
    by_symbol: dict[str, list[str]] = {}
    for arg, a in spec.args:
        if isinstance(a, ConstexprSpec):
            args.append((arg, None))
            continue
        if isinstance(a, ScalarSpec):
            params.append(Param(arg, SCALAR, a.dtype))
            args.append((arg, arg))
            continue
        assert isinstance(a, TensorSpec)
        mine: list[Carrier] = []
        for kind, leaf, symbol in a.dynamic_entries():
            pname = _unique(f"{arg}_{kind}{leaf}", taken)
            mine.append(Carrier(pname, arg, kind, leaf, symbol))
            by_symbol.setdefault(symbol, []).append(pname)
        params.append(
            Param(
                arg,
                POINTER,
                element_type(a.dtype).abi or a.dtype,
                layout=a.layout_text(symbols=False),
                dynamic=tuple(c.param for c in mine),
            )
        )
        args.append((arg, arg))
        for c in mine:
            params.append(Param(c.param, SCALAR, spec.symbol(c.symbol).dtype))
        carriers.extend(mine)
    groups = tuple(tuple(v) for v in by_symbol.values() if len(v) > 1)
    return KernelABI(
        name,
        tuple(params),
        tuple(args),
        tuple(carriers),
        groups,
        spec.block,
        static_smem,
        dynamic_smem,
        min_blocks,
        dynamic_smem_formula,
    )


def _unique(base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name
