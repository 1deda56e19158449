"""DiagnosticEngine: severities, notes, handlers, formatting with source excerpts."""

from __future__ import annotations

import io

import pytest
from layoutc.ir.core import (
    CallSiteLoc,
    Context,
    Diagnostic,
    DiagnosticEngine,
    DiagnosticError,
    FileLineColLoc,
    FusedLoc,
    NameLoc,
    Severity,
    UnknownLoc,
    parse_source,
)


def test_format_with_notes_and_location_kinds() -> None:
    d = Diagnostic(Severity.ERROR, "bad thing", NameLoc("x", FileLineColLoc("a.py", 3, 4)))
    d.attach_note("because", CallSiteLoc(UnknownLoc(), FileLineColLoc("b.py", 1, 2)))
    d.attach_note("unlocated", UnknownLoc())
    assert d.format() == "a.py:3:4: error: bad thing\nb.py:1:2: note: because\nnote: unlocated"
    fused = Diagnostic(Severity.REMARK, "r", FusedLoc([UnknownLoc(), FileLineColLoc("c", 9, 9)]))
    assert str(fused) == "c:9:9: remark: r"
    assert str(Diagnostic(Severity.WARNING, "w", NameLoc("only"))) == 'loc("only"): warning: w'


def test_handlers_run_last_pushed_first_and_can_consume() -> None:
    stream = io.StringIO()
    engine = DiagnosticEngine(stream=stream)
    seen: list[str] = []

    def observe(d):
        seen.append("observer:" + d.message)
        return False

    def consume_errors(d):
        seen.append("consumer:" + d.message)
        return d.severity is Severity.ERROR

    engine.push_handler(observe)
    with engine.handler(consume_errors):
        engine.emit_error("e1")
        engine.emit_warning("w1")
    engine.emit_remark("r1")
    assert seen == ["consumer:e1", "consumer:w1", "observer:w1", "observer:r1"]
    assert stream.getvalue() == "warning: w1\nremark: r1\n"
    assert engine.error_count == 1


def test_collect_swallows_and_returns_diagnostics() -> None:
    engine = DiagnosticEngine(stream=io.StringIO())
    with engine.collect() as found:
        engine.emit_error("x", FileLineColLoc("f", 1, 1))
    assert [d.message for d in found] == ["x"]
    assert engine.stream.getvalue() == ""


def test_source_excerpt_for_split_buffers() -> None:
    stream = io.StringIO()
    c = Context(diagnostics=DiagnosticEngine(stream=stream))
    text_a = '"test.ok"() : () -> ()'
    text_b = '\n  "test.op"(%nope) : (i32) -> ()'
    c.allow_unregistered = True
    assert parse_source(text_a, c, buffer_name="split.mlir") is not None
    assert parse_source(text_b, c, buffer_name="split.mlir", line_offset=5) is None
    assert stream.getvalue().splitlines() == [
        "split.mlir:7:13: error: use of undeclared SSA value name '%nope'",
        '  "test.op"(%nope) : (i32) -> ()',
        "            ^",
    ]


def test_verify_diagnostics_style_handler_can_match_expectations() -> None:
    """The hook `--verify-diagnostics` builds on: a handler sees every diagnostic with location."""
    expected = {
        (2, "error", "'func.return' op has 0 operands, but enclosing function (@f) returns 1")
    }
    matched = set()

    def check(d: Diagnostic) -> bool:
        flc = d.location.file_line_col()
        key = (flc[1], d.severity.label, d.message)
        assert key in expected
        matched.add(key)
        return True

    c = Context()
    module = parse_source("func.func @f() -> i32 {\n  return\n}", c, buffer_name="v.mlir")
    with c.diagnostics.handler(check), pytest.raises(DiagnosticError):
        module.verify(c.diagnostics)
    assert matched == expected


def test_long_source_lines_are_clipped_around_the_column() -> None:
    stream = io.StringIO()
    c = Context(diagnostics=DiagnosticEngine(stream=stream))
    c.allow_unregistered = True
    depth = 3000  # one 40 KB line, nested deeper than the parser allows
    text = '"test.op"() ({' * depth + "}) : () -> ()" * depth
    assert parse_source(text, c, buffer_name="deep.mlir") is None
    header, excerpt, caret = stream.getvalue().splitlines()
    assert header.endswith("error: nesting too deep to parse")
    column = int(header.split(":")[2])
    assert excerpt.startswith("...") and excerpt.endswith("...") and len(excerpt) <= 130
    # the caret points at the character the column names
    assert excerpt[caret.index("^")] == text[column - 1]


@pytest.mark.parametrize("column", [1, 5, 200, 999, 1000])
def test_clipped_excerpt_keeps_the_caret_on_its_character(column: int) -> None:
    from layoutc.ir.core.diagnostics import clip_source_line

    line = "".join(chr(ord("a") + i % 26) for i in range(1000))
    shown, caret = clip_source_line(line, column - 1)
    assert len(shown) <= 126
    if column <= len(line):
        assert shown[caret] == line[column - 1]
    assert clip_source_line("short", 3) == ("short", 3)


def test_diagnostic_error_survives_pickling() -> None:
    """A process pool sends a worker's DiagnosticError back pickled: same text, same
    diagnostics (its constructor takes diagnostics, not the message)."""
    import pickle

    from layoutc.ir.core import DiagnosticError, parse

    with pytest.raises(DiagnosticError) as info:
        parse("func.func @f(", buffer_name="in.mlir")
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is DiagnosticError
    assert str(again) == str(info.value) and "in.mlir:1:" in str(again)
    assert [d.format() for d in again.diagnostics] == [d.format() for d in info.value.diagnostics]
