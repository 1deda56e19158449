"""Syntax of MLIR textual pass pipelines.

::

    pipeline ::= element (',' element)*
    element  ::= name ('{' options '}')?          a pass (or a registered pipeline)
               | op-name '(' pipeline? ')'       passes nested on ops named op-name ('any')

``builtin.module(func.func(canonicalize{max-iterations=5}), cse)``. The parser only builds a
tree with the offset of every name, so that errors found later (unknown pass, bad option)
point at the right character; :mod:`.manager` turns the tree into pass managers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from layoutc.ir.core.limits import MAX_PIPELINE_NESTING

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$")


class PipelineSyntaxError(Exception):
    """A malformed pipeline; ``position`` is the offending offset in the text."""

    def __init__(self, message: str, position: int):
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass
class PassSpec:
    """``name{options}``: ``options`` is the text between the braces (None without braces)."""

    name: str
    position: int
    options: str | None = None
    options_position: int = 0


@dataclass
class NestedSpec:
    """``anchor(elements)``: a pipeline run on every op named ``anchor`` (``any``: all ops)."""

    anchor: str
    position: int
    elements: list[PassSpec | NestedSpec] = field(default_factory=list)


def parse_pipeline(text: str) -> list[PassSpec | NestedSpec]:
    """Top-level elements of a pipeline string (raise PipelineSyntaxError)."""
    parser = _Parser(text)
    elements = parser.parse_list(top=True)
    return elements


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0  # nested pipelines, bounded by MAX_PIPELINE_NESTING

    def skip_space(self) -> None:
        text = self.text
        while self.pos < len(text) and text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def describe(self) -> str:
        c = self.peek()
        return f"'{c}'" if c else "end of pipeline"

    def parse_list(self, top: bool) -> list[PassSpec | NestedSpec]:
        elements: list[PassSpec | NestedSpec] = []
        if not top and self.peek() == ")":
            return elements
        if top and self.peek() == "":
            return elements
        while True:
            elements.append(self.parse_element())
            c = self.peek()
            if c == ",":
                self.pos += 1
                continue
            if top and c == "":
                return elements
            if not top and c == ")":
                return elements
            if top and c == ")":
                raise PipelineSyntaxError("unbalanced ')' in pass pipeline", self.pos)
            expected = "',' or end of pipeline" if top else "',' or ')'"
            raise PipelineSyntaxError(f"expected {expected}, found {self.describe()}", self.pos)

    def parse_element(self) -> PassSpec | NestedSpec:
        self.skip_space()
        start = self.pos
        text = self.text
        while self.pos < len(text) and text[self.pos] in _NAME_CHARS:
            self.pos += 1
        name = text[start : self.pos]
        if not name:
            raise PipelineSyntaxError(
                f"expected a pass or operation name, found {self.describe()}", self.pos
            )
        c = self.peek()
        if c == "(":
            self.depth += 1
            if self.depth > MAX_PIPELINE_NESTING:
                raise PipelineSyntaxError(
                    f"pass pipelines nest deeper than {MAX_PIPELINE_NESTING} levels", start
                )
            self.pos += 1
            nested = NestedSpec(name, start, self.parse_list(top=False))
            self.pos += 1  # ')'
            self.depth -= 1
            return nested
        spec = PassSpec(name, start)
        if c == "{":
            open_at = self.pos
            close = self._matching_brace(open_at)
            spec.options = text[open_at + 1 : close]
            spec.options_position = open_at + 1
            self.pos = close + 1
            if self.peek() == "(":
                raise PipelineSyntaxError(
                    f"'{name}' has options and a nested pipeline; only passes take options",
                    self.pos,
                )
        return spec

    def _matching_brace(self, open_at: int) -> int:
        text = self.text
        depth = 0
        quote = ""
        i = open_at
        while i < len(text):
            c = text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = ""
            elif c in "\"'":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        raise PipelineSyntaxError("missing '}' to close the pass options", open_at)
