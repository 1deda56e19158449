"""Argument specs written as text (lc.spec, --spec): parsing, building a KernelSpec without
arrays, and the facts the traced kernel then states."""

from __future__ import annotations

import layoutc as lc
import pytest
from driver_kernels import tensor_params, with_constant
from layoutc.driver.argspecs import ArgSpec, build_spec, parse_arg_spec
from layoutc.frontend.spec import ConstexprSpec, ScalarSpec, SpecError, TensorSpec


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("f32[(N,8):(8,1)]", ArgSpec("tensor", "f32", "(N,8):(8,1)")),
        ("f32[(N):(1)],align=16", ArgSpec("tensor", "f32", "(N):(1)", align=16)),
        ("[(N):(1)]", ArgSpec("tensor", None, "(N):(1)")),
        ("bf16[(M,N):(?,1)], align=8", ArgSpec("tensor", "bf16", "(M,N):(?,1)", align=8)),
        ("align=16", ArgSpec("tensor", align=16)),  # the rest from the annotation
        ("i32", ArgSpec("scalar", "i32")),
        ("i32,div=4", ArgSpec("scalar", "i32", divisible_by=4)),
        ("f64", ArgSpec("scalar", "f64")),
        ("128", ArgSpec("const", value=128)),
        ("True", ArgSpec("const", value=True)),
        ("'row'", ArgSpec("const", value="row")),
        ("(2, 4)", ArgSpec("const", value=(2, 4))),
    ],
)
def test_parse(text, expected):
    assert parse_arg_spec(text) == expected
    if expected.kind != "const":
        assert parse_arg_spec(str(expected)) == expected  # str() writes the syntax back


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty spec"),
        ("f33[(N):(1)]", "expected an element type"),
        ("f32[(N):(1)", "must end with"),
        ("f32[]", "empty layout"),
        ("f32[(N):(1)],align=3", "power of two"),
        ("f32[(N):(1)],align=x", "needs an integer"),
        ("i32,div=0", "must be positive"),
        ("i32,foo=1", "unknown key 'foo'"),
        ("f32[(N):(1)],div=4", "div= is for scalars"),
        ("i32,f32", "two element types"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(SpecError, match=message):
        parse_arg_spec(text)


def test_build_spec_from_texts_and_assumptions():
    spec = build_spec(
        tensor_params,
        (lc.spec("f32[(N):(1)],align=4"), lc.spec("f32[(N):(1)]"), lc.spec("i32,div=4")),
        {},
        block=128,
        assume=["N%16==0", "N>=1"],
    )
    args = dict(spec.args)
    assert args["src"] == TensorSpec("f32", ("N",), (1,), 4)
    assert args["dst"] == TensorSpec("f32", ("N",), (1,), 16)  # 16 bytes by default
    assert args["n"] == ScalarSpec("i32", 4)
    facts = spec.symbol("N")
    assert (facts.divisible_by, facts.lower, facts.dtype) == (16, 1, "i32")
    assert spec.block == (128, 1, 1)


def test_traced_kernel_states_the_spec_facts():
    spec = build_spec(
        tensor_params,
        (lc.spec("f32[(N,?):(?,1)]"), lc.spec("f32[(N,?):(?,1)],align=4"), lc.spec("i32,div=8")),
        {},
        block=64,
        assume="N:div=16",
    )
    module, name, abi = tensor_params.trace(spec)
    text = module.to_text()
    assert name == "tensor_params"
    assert "!tile.ptr<f32, gmem, 16> {layoutc.align = 16 : i64}" in text
    assert "!tile.ptr<f32, gmem, 4> {layoutc.align = 4 : i64}" in text
    assert "%n: i32 {layoutc.divisible_by = 8 : i64}" in text
    assert text.count("layoutc.divisible_by = 16") == 2  # N for src and for dst
    # unnamed ? entries are their own symbols, with no facts beyond non-negative extents
    assert [p.layout for p in abi.runtime_spec().params if p.layout] == ["(?,?):(?,1)"] * 2


def test_unnamed_entries_get_front_end_names_and_facts():
    spec = build_spec(tensor_params, (lc.spec("f32[(?):(1)]"),) * 2 + (3,), {})
    assert dict(spec.args)["src"].shape == ("?src.shape0",)
    assert spec.symbol("?src.shape0").lower == 0 and spec.symbol("?src.shape0").divisible_by == 1
    assert dict(spec.args)["n"] == ScalarSpec("i32", 1)  # from the value 3, as for calls


def test_constants_and_annotations():
    spec = build_spec(with_constant, (lc.spec("i32"), lc.spec("8")), {})
    assert dict(spec.args)["scale"] == ConstexprSpec(8)
    with pytest.raises(SpecError, match="compile-time constant"):
        build_spec(with_constant, (lc.spec("i32"), lc.spec("i32")), {})


@pytest.mark.parametrize(
    ("args", "assume", "message"),
    [
        ((lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]"), 1), "M%4==0", "assumptions about M"),
        ((lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]"), 1), "N<=64", "upper bound"),
        ((lc.spec("f32[(N):(1)]"), lc.spec("i32"), 1), None, "dst.* is a tensor; give its layout"),
        ((lc.spec("f32"), lc.spec("f32[(N):(1)]"), 1), None, "give its layout"),
        ((lc.spec("i32[(N):(1)],align=2"),) * 2 + (1,), None, "not a multiple of the i32"),
        ((lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]"), lc.spec("f32,div=2")), None, "integer"),
        ((lc.spec("f32[((N,2)):((1,?))]"),) * 2 + (1,), None, "nested mode"),
        ((lc.spec("f32[(N):(1)]"), lc.spec("f32[(N):(1)]")), None, "missing a required"),
    ],
)
def test_build_spec_errors(args, assume, message):
    with pytest.raises(SpecError, match=message):
        build_spec(tensor_params, args, {}, assume=assume)


def test_arrays_and_specs_do_not_mix():
    import numpy as np

    with pytest.raises(SpecError, match="not supported: mixing arrays and specs"):
        lc.compile(tensor_params, np.zeros(4, np.float32), lc.spec("f32[(N):(1)]"), 1, target="cpu")
