"""Pass options and textual pipelines: parsing, errors with positions, printing round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from layoutc.passes import ListOption, Option, OptionError, Pass, PassManager, PipelineError
from layoutc.passes.options import parse_option_values, tokenize_options
from layoutc.passes.pipeline_parser import NestedSpec, PassSpec, parse_pipeline
from layoutc.passes.registry import lookup_pass, register_pass, register_pipeline
from pass_helpers import examples


class OptionsPass(Pass):
    """Not registered: built directly by the tests below."""

    argument = "test-options"
    count = Option(int, 3, "an int")
    flag = Option(bool, False, "a bool")
    label = Option(str, "x", "a string")
    ratio = Option(float, 0.5, "a float")
    mode = Option(str, "fast", "a choice", choices=("fast", "slow"))
    names = ListOption(str, (), "strings")
    sizes = ListOption(int, (1, 2), "ints", name="tile-sizes")

    def run_on_operation(self, op):
        pass


def parse(text: str) -> dict:
    return parse_option_values(OptionsPass._options, text, "pass 'test-options'")


def test_defaults_and_keyword_construction():
    p = OptionsPass()
    assert (p.count, p.flag, p.label, p.ratio, p.mode, p.names, p.sizes) == (
        3,
        False,
        "x",
        0.5,
        "fast",
        (),
        (1, 2),
    )
    q = OptionsPass(count=7, flag=True, names=["a", "b"], sizes=[4])
    assert (q.count, q.flag, q.names, q.sizes) == (7, True, ("a", "b"), (4,))
    assert OptionsPass(**{"tile-sizes": [8]}).sizes == (8,)
    with pytest.raises(OptionError, match="expects a int"):
        OptionsPass(count="7")
    with pytest.raises(OptionError, match="expects a int"):
        OptionsPass(count=True)
    with pytest.raises(OptionError, match="no such option 'nope'"):
        OptionsPass(nope=1)
    with pytest.raises(OptionError, match="expected one of fast, slow"):
        OptionsPass(mode="medium")


def test_parsing_values():
    assert parse("count=5 flag label=hello") == {"count": 5, "flag": True, "label": "hello"}
    assert parse("flag=false count=-3 count=0x10") == {"flag": False, "count": 16}
    assert parse("ratio=2 mode=slow") == {"ratio": 2.0, "mode": "slow"}
    assert parse('label="a b, {c}"') == {"label": "a b, {c}"}
    assert parse("label='a b'") == {"label": "a b"}
    assert parse(r'label="q\"uote\\"') == {"label": 'q"uote\\'}
    assert parse("label={x y}") == {"label": "x y"}
    assert parse("names=a,b,c tile-sizes=4,8") == {"names": ("a", "b", "c"), "sizes": (4, 8)}
    assert parse('names="a,b",c') == {"names": ("a,b", "c")}
    assert parse("names={a,b}") == {"names": ("a", "b")}
    assert parse("names=") == {"names": ()}
    assert parse("   ") == {}


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("count=abc", "invalid value 'abc' for int option 'count'", 0),
        ("flag=maybe", "invalid value 'maybe' for bool option 'flag'", 0),
        ("mode=medium", "expected one of fast, slow", 0),
        ("  counts=1", "no such option 'counts' for pass 'test-options'; did you mean 'count'", 2),
        ("count", "option 'count' needs a value", 0),
        ("tile-sizes=1,x", "invalid value 'x' for int option 'tile-sizes'", 0),
        ('label="open', "unterminated string", 6),
        ("label={a", "unbalanced braces", 6),
        ("=3", "expected an option name", 0),
    ],
)
def test_option_errors(text, message, position):
    with pytest.raises(OptionError) as e:
        parse(text)
    assert message in e.value.message
    assert e.value.position == position


def test_tokenize_keeps_offsets():
    assert tokenize_options("a=1  b c={x y}", base=10) == [
        ("a", "1", 10),
        ("b", None, 15),
        ("c", "{x y}", 17),
    ]


option_values = st.fixed_dictionaries(
    {},
    optional={
        "count": st.integers(-(10**6), 10**6),
        "flag": st.booleans(),
        "label": st.text(st.characters(codec="ascii"), max_size=12),
        "ratio": st.floats(allow_nan=False, allow_infinity=False, width=32),
        "mode": st.sampled_from(["fast", "slow"]),
        "names": st.lists(st.text("abcxyz-_.0123456789", min_size=1, max_size=5), max_size=4).map(
            tuple
        ),
        "sizes": st.lists(st.integers(-99, 99), max_size=4).map(tuple),
    },
)


@examples(150)
@given(option_values)
def test_pipeline_text_round_trips(values):
    """Printing a pass and parsing the text back gives the same option values."""
    p = OptionsPass(**values)
    text = p.pipeline_text()
    assert text.startswith("test-options")
    inner = text[len("test-options") :]
    parsed = parse(inner[1:-1]) if inner else {}
    rebuilt = OptionsPass(**parsed)
    for opt in OptionsPass.options():
        assert getattr(rebuilt, opt.attr) == getattr(p, opt.attr), (opt.name, text)


# -- pipeline syntax ------------------------------------------------------------------------------


def test_pipeline_tree():
    elements = parse_pipeline("builtin.module( func.func(canonicalize{a=1 b}, cse) ,any(dce))")
    assert len(elements) == 1
    root = elements[0]
    assert isinstance(root, NestedSpec) and root.anchor == "builtin.module"
    func, anyop = root.elements
    assert isinstance(func, NestedSpec) and func.anchor == "func.func"
    canon, cse = func.elements
    assert isinstance(canon, PassSpec) and canon.options == "a=1 b"
    assert canon.position == 26 and canon.options_position == 39
    assert isinstance(cse, PassSpec) and cse.options is None
    assert isinstance(anyop, NestedSpec) and anyop.anchor == "any"
    assert parse_pipeline("") == []
    assert parse_pipeline("builtin.module()")[0].elements == []


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("builtin.module(cse", "expected ',' or ')', found end of pipeline", 18),
        ("builtin.module(cse))", "unbalanced ')'", 19),
        ("cse,,dce", "expected a pass or operation name, found ','", 4),
        ("cse{a=1", "missing '}'", 3),
        ("cse{a}(dce)", "only passes take options", 6),
        ("cse dce", "expected ',' or end of pipeline, found 'd'", 4),
    ],
)
def test_pipeline_syntax_errors(text, message, position):
    with pytest.raises(PipelineError) as e:
        PassManager.parse(text)
    assert message in e.value.message
    assert e.value.position == position
    assert str(e.value).startswith(f"<pass-pipeline>:1:{position + 1}: ")


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("builtin.module(cse,frobnicate)", "'frobnicate' does not refer to a registered pass", 19),
        ("builtin.module(cse{x=1})", "no such option 'x' for pass 'cse'", 19),
        ("cse(dce)", "'cse' is a pass, not an operation name", 0),
        ("builtin.module(func(cse))", "expected an operation name ('dialect.op') or 'any'", 15),
        ("builtin.module(canonicalize{max-iterations=1.5})", "invalid value '1.5'", 28),
    ],
)
def test_pipeline_build_errors(text, message, position):
    with pytest.raises(PipelineError) as e:
        PassManager.parse(text)
    assert message in e.value.message
    assert e.value.position == position


def test_pipeline_printing_round_trips():
    text = (
        "builtin.module(func.func(canonicalize{max-iterations=3 test-convergence=true},cse),"
        "any(dce),symbol-dce)"
    )
    pm = PassManager.parse(text)
    assert pm.pipeline_text() == text
    assert PassManager.parse(pm.pipeline_text()).pipeline_text() == text
    # A bare pass list is added to the root manager.
    assert PassManager.parse("cse, dce").pipeline_text() == "builtin.module(cse,dce)"


def test_registering_a_pass_is_one_decorator():
    @register_pass
    class FooCount(Pass):
        argument = "test-foo-count"
        summary = "count foo ops"
        anchor = "func.func"

        def run_on_operation(self, op):
            pass

    assert lookup_pass("test-foo-count") is FooCount
    pm = PassManager.parse("builtin.module(func.func(test-foo-count))")
    assert [type(p) for p in pm.passes()] == [FooCount]
    with pytest.raises(PipelineError, match=r"runs on 'func\.func' ops and cannot be scheduled"):
        PassManager.parse("builtin.module(test-foo-count)")
    with pytest.raises(ValueError, match="already registered"):

        @register_pass
        class Clash(Pass):
            argument = "test-foo-count"

    with pytest.raises(ValueError, match="has no 'argument'"):
        register_pass(type("NoName", (Pass,), {}))


def test_registered_pipelines_expand():
    register_pipeline("test-cleanup", "canonicalize,cse", "canonicalize then cse")
    pm = PassManager.parse("builtin.module(test-cleanup,dce)")
    assert pm.pipeline_text() == "builtin.module(canonicalize,cse,dce)"
    with pytest.raises(PipelineError, match="does not take options"):
        PassManager.parse("test-cleanup{x=1}")
