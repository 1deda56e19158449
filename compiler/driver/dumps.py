"""IR dumps of one compilation: files in a directory and/or text on stderr.

Files, numbered in the order the IR was produced so that ``ls`` shows the pipeline::

    00-traced.mlir  01-canonicalize.mlir  02-fold-static-strides.mlir ...  <kernel>.ll
    <kernel>.ptx  remarks.txt  pipeline.txt

On stderr the same text follows MLIR's headers (``// -----// IR Dump After CSE (cse) //----- //``)
so habits and scripts made for ``mlir-opt --mlir-print-ir-after-all`` carry over.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TextIO

from .options import OutputOptions

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(text: str) -> str:
    """A file-name-safe rendering of ``text`` (pass arguments, kernel names)."""
    return _UNSAFE.sub("_", text).strip("_") or "unnamed"


class DumpSink:
    """Receives the IR after each step of one compilation and writes/prints it."""

    def __init__(
        self, output: OutputOptions, subdir_name: str, stream: TextIO | None = None
    ) -> None:
        self.output = output
        self.stream = stream
        self.directory: Path | None = None
        if output.dump_dir is not None:
            d = output.dump_dir / safe_name(subdir_name) if output.dump_subdir else output.dump_dir
            d.mkdir(parents=True, exist_ok=True)
            self.directory = d
        self.step = 0
        self.written: list[Path] = []

    @property
    def active(self) -> bool:
        return self.directory is not None or self.output.print_ir_after_all

    def _err(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr

    def ir(self, name: str, header: str, text: str) -> None:
        """One IR snapshot: ``NN-name.mlir`` and, when printing, MLIR's dump header."""
        index = self.step
        self.step += 1
        if self.directory is not None:
            self._write(f"{index:02d}-{safe_name(name)}.mlir", text)
        if self.output.print_ir_after_all:
            self._err().write(f"// -----// IR Dump After {header} //----- //\n{text}\n\n")

    def file(self, filename: str, header: str, text: str, echo: bool = True) -> None:
        """A non-MLIR artifact (LLVM IR, PTX, remarks); ``echo``: also print it with the IR."""
        if self.directory is not None:
            self._write(safe_name(filename), text)
        if echo and self.output.print_ir_after_all:
            self._err().write(f"// -----// {header} //----- //\n{text}\n\n")

    def _write(self, filename: str, text: str) -> None:
        assert self.directory is not None
        path = self.directory / filename
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        self.written.append(path)
