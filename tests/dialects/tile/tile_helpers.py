"""Shared helpers for the tile and gpu dialect tests (module name unique across test areas)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import Layout
from layoutc.ir.core import (
    Block,
    Builder,
    Context,
    Diagnostic,
    FunctionType,
    parse,
    parse_source,
    print_op,
    verify_op,
)
from layoutc.ir.dialects.func import FuncOp, ReturnOp

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def examples(n: int) -> settings:
    """Hypothesis settings: ``n`` examples locally, a quarter on CI; no deadline."""
    return settings(
        max_examples=max(10, n // 4) if CI else n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def ctx() -> Context:
    return Context()


def diagnose(text: str) -> list[Diagnostic]:
    """Diagnostics from parsing and (if it parsed) verifying ``text``."""
    c = ctx()
    with c.diagnostics.collect() as found:
        module = parse_source(text, c, buffer_name="test.mlir")
    if module is not None:
        found.extend(verify_op(module))
    return found


def messages(text: str) -> list[str]:
    return [d.message for d in diagnose(text)]


def roundtrip(text: str) -> str:
    """Parse, verify, print custom and generic; both re-parse to the same text."""
    module = parse(text, ctx())
    errors = verify_op(module)
    assert not errors, "\n".join(d.format() for d in errors)
    custom = print_op(module)
    generic = print_op(module, generic=True)
    assert print_op(parse(custom, ctx())) == custom
    assert print_op(parse(generic, ctx())) == custom
    return custom


class Kernel:
    """A func.func under construction: arguments of given types and a builder at its end."""

    def __init__(self, arg_types: Sequence[Any]):
        from layoutc.ir.dialects.builtin import ModuleOp

        self.module = ModuleOp()
        self.func = FuncOp("k", FunctionType(list(arg_types), []))
        self.module.body.block.append(self.func)
        self.block: Block = self.func.body.blocks[0]
        self.args = list(self.block.args)
        self.b = Builder.at_end_of(self.block)

    def create(self, cls: type, *args: Any, **kwargs: Any) -> Any:
        return self.b.create(cls, *args, **kwargs)

    def constant(self, value: int) -> Any:
        from layoutc.ir.core import index
        from layoutc.ir.dialects.arith import ConstantOp

        return self.create(ConstantOp.from_int, value, index).results[0]

    def finish(self) -> list[Diagnostic]:
        self.b.create(ReturnOp)
        return verify_op(self.module)


def static_layouts(max_rank: int = 3, max_extent: int = 6) -> st.SearchStrategy[Layout]:
    """Random plain layouts with small positive shapes and non-negative strides."""

    def leaf() -> st.SearchStrategy[tuple[int, int]]:
        return st.tuples(st.integers(1, max_extent), st.integers(0, 24))

    def build(modes: list[Any]) -> Layout:
        shape = tuple(m[0] for m in modes)
        stride = tuple(m[1] for m in modes)
        return Layout(shape, stride)

    mode = st.one_of(
        leaf(),
        st.lists(leaf(), min_size=2, max_size=2).map(
            lambda pair: (tuple(p[0] for p in pair), tuple(p[1] for p in pair))
        ),
    )
    return st.lists(mode, min_size=1, max_size=max_rank).map(build)
