"""Helpers of the layout-pass tests: kernels written as IR text, the pipeline, hypothesis
settings and strategies for random layouts."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout
from layoutc.ir.core import Context, parse
from layoutc.ir.core.diagnostics import Severity
from layoutc.passes.manager import PassManager

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

LOWERING = (
    "builtin.module(fold-static-strides, prove-vectorization, select-atoms, lower-algorithms, "
    "fragment-scalrep, lower-layouts, canonicalize, cse)"
)


def examples(n: int) -> settings:
    """``n`` examples locally, a quarter on CI; no deadline (shared, noisy machines)."""
    return settings(
        max_examples=max(5, n // 4) if CI else n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def parse_module(text: str) -> Any:
    return parse(text, Context())


def run(module: Any, pipeline: str = LOWERING) -> list[Any]:
    """Run ``pipeline``; return the diagnostics (remarks included). Errors raise."""
    ctx = Context()
    diags: list[Any] = []
    with ctx.diagnostics.collect() as found:
        ok = PassManager.parse(pipeline, ctx).run(module)
    diags = list(found)
    if not ok:
        messages = "\n".join(f"{d.severity.name}: {d.message}" for d in diags)
        raise AssertionError(f"pipeline failed:\n{messages}\n{module}")
    return diags


def remarks(diags: Sequence[Any]) -> list[str]:
    return [d.message for d in diags if d.severity is Severity.REMARK]


def kernel_func(module: Any) -> Any:
    return module.regions[0].blocks[0].first_op


# -- kernels as text ------------------------------------------------------------------------------


class Kernel:
    """Builds ``func.func @k`` text: pointer and index arguments, layouts and tensors."""

    def __init__(self, block: tuple[int, int, int] | None = None):
        self.args: list[str] = []
        self.body: list[str] = []
        self.block = block
        self._n = 0

    def fresh(self, prefix: str = "v") -> str:
        self._n += 1
        return f"%{prefix}{self._n}"

    def pointer(self, name: str, elem: str = "f32", space: str = "gmem", align: int = 16) -> str:
        self.args.append(f"%{name}: !tile.ptr<{elem}, {space}, {align}>")
        return f"%{name}"

    def index_arg(
        self, name: str, divisible_by: int = 1, lower: int | None = None, upper: int | None = None
    ) -> str:
        attrs = [f"layoutc.divisible_by = {divisible_by} : i64"]
        if lower is not None:
            attrs.append(f"layoutc.lower = {lower} : i64")
        if upper is not None:
            attrs.append(f"layoutc.upper = {upper} : i64")
        self.args.append(f"%{name}: index {{{', '.join(attrs)}}}")
        return f"%{name}"

    def op(self, text: str) -> None:
        self.body.append(text)

    def layout(
        self, text: str, shape_values: Sequence[str] = (), stride_values: Sequence[str] = ()
    ) -> str:
        """A layout value: a constant, or make_layout from index values for the ``?``s."""
        v = self.fresh("l")
        if not shape_values and not stride_values:
            self.op(f'{v} = layout.constant #layout.layout<"{text}">')
            return v
        shape, stride = text.split(":")
        s = self.fresh("s")
        d = self.fresh("d")
        self.op(_tuple_op("layout.make_shape", s, shape, shape_values))
        self.op(_tuple_op("layout.make_stride", d, stride, stride_values))
        self.op(f'{v} = layout.make_layout {s}, {d} : !layout.layout<"{text}">')
        return v

    def tensor(
        self,
        ptr: str,
        layout: str,
        layout_text: str,
        elem: str = "f32",
        space: str = "gmem",
        align: int = 16,
    ) -> tuple[str, str]:
        v = self.fresh("t")
        lt = f'!layout.layout<"{layout_text}">'
        tt = tensor_type(layout_text, elem, space, align)
        self.op(
            f"{v} = tile.make_tensor {ptr}, {layout} : (!tile.ptr<{elem}, {space}, {align}>, {lt}) -> {tt}"
        )
        return v, tt

    def text(self) -> str:
        attrs = "gpu.kernel"
        if self.block is not None:
            attrs += f", gpu.known_block_size = array<i32: {self.block[0]}, {self.block[1]}, {self.block[2]}>"
        body = "\n".join("    " + line for line in self.body)
        return (
            f"module {{\n  func.func @k({', '.join(self.args)}) attributes {{{attrs}}} {{\n"
            f"{body}\n    return\n  }}\n}}\n"
        )


def _tuple_op(name: str, v: str, text: str, values: Sequence[str]) -> str:
    operands = " " + ", ".join(values) if values else ""
    return f'{v} = {name}{operands} : !layout.int_tuple<"{text}">'


def tensor_type(layout_text: str, elem: str = "f32", space: str = "gmem", align: int = 16) -> str:
    return f'!tile.tensor<{elem}, {space}, "{layout_text}", {align}>'


# -- random layouts --------------------------------------------------------------------------------


@st.composite
def factorizations(draw: Any, max_size: int = 64, max_rank: int = 3) -> tuple[int, ...]:
    rank = draw(st.integers(1, max_rank))
    dims = [draw(st.sampled_from([1, 2, 3, 4, 8])) for _ in range(rank)]
    n = 1
    out = []
    for d in dims:
        if n * d > max_size:
            d = 1
        n *= d
        out.append(d)
    return tuple(out)


@st.composite
def injective_strides(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Compact strides in a random mode order, each gap widened by a random factor."""
    order = draw(st.permutations(range(len(shape))))
    strides = [0] * len(shape)
    current = draw(st.sampled_from([1, 1, 1, 2, 3]))
    for i in order:
        strides[i] = current
        current *= shape[i] * draw(st.sampled_from([1, 1, 2]))
    return tuple(strides)


def layout_text(shape: Sequence[int], stride: Sequence[int]) -> str:
    return str(Layout(tuple(shape), tuple(stride)))
