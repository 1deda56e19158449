"""Every layout op round-trips in its custom and generic forms; xDSL accepts the generic form."""

from __future__ import annotations

import re

import pytest
from layout_corpus import ALL_OPS
from layout_helpers import ctx
from layoutc.ir.core import parse
from layoutc.ir.dialects.layout import DIALECT


def test_custom_form_prints_identically() -> None:
    module = parse(ALL_OPS, ctx())
    module.verify()
    assert module.to_text() + "\n" == ALL_OPS


def test_generic_form_round_trips() -> None:
    generic = parse(ALL_OPS, ctx()).to_text(generic=True)
    again = parse(generic, ctx())
    again.verify()
    assert again.to_text() + "\n" == ALL_OPS
    assert again.to_text(generic=True) == generic


def test_corpus_uses_every_op() -> None:
    used = set(re.findall(r"\blayout\.[a-z_0-9]+(?= )", ALL_OPS)) - {
        "layout.int_tuple",
        "layout.layout",
        "layout.tile",
    }
    assert used == set(DIALECT.ops)


def test_generic_form_is_accepted_by_xdsl() -> None:
    pytest.importorskip("xdsl", reason="xdsl is not installed")
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    xctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        xctx.register_dialect(name, factory)
    generic = parse(ALL_OPS, ctx()).to_text(generic=True)
    module = Parser(xctx, generic).parse_module()
    module.verify()


def test_builders_infer_the_printed_types() -> None:
    """Re-building each op with its builder from the parsed operands gives the same types."""
    module = parse(ALL_OPS, ctx())
    from layoutc.ir.dialects.layout import AlgebraOp

    checked = 0
    for op in module.walk_ops():
        if isinstance(op, AlgebraOp):
            rebuilt = type(op)(*op.operands, **op.properties)
            assert rebuilt.result_types == op.result_types, op.name
            checked += 1
    assert checked > 40
