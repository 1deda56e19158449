"""--verify-diagnostics matching rules (layoutc.cli.expected_diagnostics), MLIR's semantics."""

from __future__ import annotations

from layoutc.cli.expected_diagnostics import ExpectedDiagnostics
from layoutc.ir.core import Diagnostic, FileLineColLoc, Severity, UnknownLoc


def diag(line: int | None, message: str, severity: Severity = Severity.ERROR) -> Diagnostic:
    loc = UnknownLoc() if line is None else FileLineColLoc("in.mlir", line, 3)
    return Diagnostic(severity, message, loc)


def check(text: str, diags: list[Diagnostic], line_offset: int = 0) -> list[str]:
    expected = ExpectedDiagnostics(text, "in.mlir", line_offset)
    for d in diags:
        assert expected.handle(d) is True  # consumed
    return [f"{d.location_prefix()}{d.message}" for d in expected.finish()]


def test_line_designators():
    text = "\n".join(
        [
            "op1  // expected-error {{same line}}",  # 1
            "// expected-error@+2 {{two below}}",  # 2
            "// expected-warning@-2 {{first line}}",  # 3
            "op4",  # 4
            "// expected-remark@above {{on op4}}",  # 5
            "// expected-note@below {{on op7}}",  # 6
            "op7",  # 7
            "// expected-error@unknown {{nowhere}}",  # 8
        ]
    )
    diags = [
        diag(1, "it is the same line"),
        diag(4, "two below"),
        diag(1, "the first line", Severity.WARNING),
        diag(4, "remark on op4", Severity.REMARK),
        diag(7, "a note on op7", Severity.NOTE),
        diag(None, "from nowhere"),
    ]
    assert check(text, diags) == []


def test_mismatches_are_reported_where_they_are():
    text = "op  // expected-error {{never}}\n// expected-warning@-1 {{kind}}\n"
    problems = check(text, [diag(1, "wrong kind", Severity.ERROR), diag(5, "stray")])
    assert problems == [
        "in.mlir:2:4: 'error' diagnostic emitted when expecting a 'warning'",
        "in.mlir:5:3: unexpected error: stray",
        'in.mlir:1:8: expected error "never" was not produced',
        'in.mlir:2:4: expected warning "kind" was not produced',
    ]


def test_notes_are_checked_and_other_files_are_unexpected():
    text = "op  // expected-error {{main}}\n// expected-note@-1 {{attached}}\n"
    d = diag(1, "main message")
    d.attach_note("attached note", FileLineColLoc("in.mlir", 1, 1))
    other = Diagnostic(Severity.ERROR, "elsewhere", FileLineColLoc("other.mlir", 1, 1))
    assert check(text, [d, other]) == ["other.mlir:1:1: unexpected error: elsewhere"]


def test_regex_and_offsets_of_split_chunks():
    text = "// expected-error-re@+1 {{value {{[0-9]+}} is {{(odd|even)}}}}\nop\n"
    assert check(text, [diag(12, "the value 42 is even")], line_offset=10) == []
    assert check(text, [diag(12, "the value x is even")], line_offset=10)[-1].endswith(
        'expected error "value {{[0-9]+}} is {{(odd|even)}}" was not produced'
    )
    bad = check("// expected-error-re {{a {{[}}}}\n", [])
    assert bad[0].startswith("in.mlir:1:4: invalid regular expression")


def test_identical_annotations_match_identical_diagnostics():
    text = "op  // expected-error {{twice}}\n// expected-error@-1 {{twice}}\n"
    assert check(text, [diag(1, "twice"), diag(1, "twice")]) == []
    # A dangling @below applies past the end and is simply not produced.
    assert check("// expected-error@below {{x}}", []) == [
        'in.mlir:1:4: expected error "x" was not produced'
    ]
