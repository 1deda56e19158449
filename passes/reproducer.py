"""Crash reproducers: the IR a pipeline started from plus the pipeline, in one .mlir file.

The format is MLIR's, so the file documents itself and ``layoutc-opt --run-reproducer FILE``
replays it::

    "builtin.module"() ({ ... }) : () -> () loc(...)

    {-#
      external_resources: {
        mlir_reproducer: {
          pipeline: "builtin.module(canonicalize{...},cse)",
          disable_threading: true,
          verify_each: true
        }
      }
    #-}

The IR is printed in the generic form with locations, so diagnostics on replay point at the
original source.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


class ReproducerError(Exception):
    """The file metadata block is malformed or has no reproducer configuration."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass
class ReproducerConfig:
    pipeline: str
    verify_each: bool = True
    allow_unregistered_dialect: bool = False


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_reproducer(ir_text: str, config: ReproducerConfig) -> str:
    entries = [
        f"pipeline: {_quote(config.pipeline)}",
        "disable_threading: true",
        f"verify_each: {'true' if config.verify_each else 'false'}",
    ]
    if config.allow_unregistered_dialect:
        entries.append("allow_unregistered_dialect: true")
    body = ",\n".join("      " + e for e in entries)
    return (
        f"{ir_text.rstrip()}\n\n{{-#\n  external_resources: {{\n    mlir_reproducer: {{\n"
        f"{body}\n    }}\n  }}\n#-}}\n"
    )


def write_reproducer(path: str | None, ir_text: str, config: ReproducerConfig) -> str:
    """Write the reproducer (to a fresh temporary file when ``path`` is None); return its path."""
    text = format_reproducer(ir_text, config)
    if path is None:
        import tempfile  # only when a reproducer is written: keeps the tools' start-up light

        fd, path = tempfile.mkstemp(prefix="layoutc-reproducer-", suffix=".mlir")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def split_metadata(text: str) -> tuple[str, dict[str, object] | None, int]:
    """Split ``text`` into the IR and its trailing ``{-# ... #-}`` dictionary (None if absent).

    Returns (ir text, parsed dictionary, offset of the block). The IR keeps its line numbers.
    """
    start = text.rfind("{-#")
    if start < 0:
        return text, None, len(text)
    end = text.find("#-}", start)
    if end < 0:
        raise ReproducerError("file metadata dictionary '{-#' is not closed by '#-}'", start)
    if text[end + 3 :].strip():
        raise ReproducerError("unexpected text after the file metadata dictionary", end + 3)
    parser = _DictParser(text, start + 3, end)
    return text[:start], parser.parse_entries(), start


def reproducer_config(metadata: dict[str, object], offset: int = 0) -> ReproducerConfig:
    """The ``external_resources.mlir_reproducer`` entry of a metadata dictionary."""
    resources = metadata.get("external_resources")
    entry = resources.get("mlir_reproducer") if isinstance(resources, dict) else None
    if not isinstance(entry, dict):
        raise ReproducerError("the file has no 'external_resources.mlir_reproducer' entry", offset)
    pipeline = entry.get("pipeline")
    if not isinstance(pipeline, str):
        raise ReproducerError("the reproducer configuration has no 'pipeline' string", offset)
    verify = entry.get("verify_each", True)
    unregistered = entry.get("allow_unregistered_dialect", False)
    if not isinstance(verify, bool) or not isinstance(unregistered, bool):
        raise ReproducerError("'verify_each' and 'allow_unregistered_dialect' must be booleans")
    return ReproducerConfig(pipeline, verify, unregistered)


#: ``{-# ... #-}`` dictionaries nest two or three levels; 5,000 must not exhaust the stack.
_MAX_METADATA_NESTING = 64


class _DictParser:
    """``key: value, ...`` entries; values are strings, booleans, integers or ``{...}``."""

    def __init__(self, text: str, pos: int, end: int):
        self.text = text
        self.pos = pos
        self.end = end
        self.depth = 0

    def skip(self) -> None:
        while self.pos < self.end and self.text[self.pos].isspace():
            self.pos += 1

    def parse_entries(self, closing: str = "") -> dict[str, object]:
        out: dict[str, object] = {}
        while True:
            self.skip()
            if self.pos >= self.end or (closing and self.text[self.pos] == closing):
                if closing:
                    if self.pos >= self.end:
                        raise ReproducerError("expected '}' in file metadata", self.pos)
                    self.pos += 1
                return out
            key = self.parse_key()
            self.skip()
            if self.pos >= self.end or self.text[self.pos] != ":":
                raise ReproducerError(f"expected ':' after '{key}' in file metadata", self.pos)
            self.pos += 1
            out[key] = self.parse_value()
            self.skip()
            if self.pos < self.end and self.text[self.pos] == ",":
                self.pos += 1

    def parse_key(self) -> str:
        if self.text[self.pos] == '"':
            return self.parse_string()
        start = self.pos
        while self.pos < self.end and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_.$-"
        ):
            self.pos += 1
        if start == self.pos:
            raise ReproducerError("expected a key in file metadata", self.pos)
        return self.text[start : self.pos]

    def parse_string(self) -> str:
        self.pos += 1
        out = []
        while self.pos < self.end:
            c = self.text[self.pos]
            if c == "\\" and self.pos + 1 < self.end:
                self.pos += 1
                out.append(self.text[self.pos])
            elif c == '"':
                self.pos += 1
                return "".join(out)
            else:
                out.append(c)
            self.pos += 1
        raise ReproducerError("unterminated string in file metadata", self.pos)

    def parse_value(self) -> object:
        self.skip()
        if self.pos >= self.end:
            raise ReproducerError("expected a value in file metadata", self.pos)
        c = self.text[self.pos]
        if c == '"':
            return self.parse_string()
        if c == "{":
            self.depth += 1
            if self.depth > _MAX_METADATA_NESTING:
                raise ReproducerError(
                    f"file metadata nests deeper than {_MAX_METADATA_NESTING} levels", self.pos
                )
            self.pos += 1
            value = self.parse_entries(closing="}")
            self.depth -= 1
            return value
        start = self.pos
        while self.pos < self.end and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_-"
        ):
            self.pos += 1
        word = self.text[start : self.pos]
        if word in ("true", "false"):
            return word == "true"
        try:
            return int(word)
        except ValueError:
            raise ReproducerError(
                f"unexpected value '{word or c}' in file metadata", start
            ) from None
