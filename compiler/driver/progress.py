"""A progress bar on stderr for long parallel work (library builds, autotuning): rewritten in
place, shown only when stderr is a terminal, so logs and tests see nothing."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """``built 12/40`` on stderr, rewritten in place, only when stderr is a terminal."""

    def __init__(self, total: int, what: str, stream: Any = None) -> None:
        self.total, self.done, self.what = total, 0, what
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)()) and total > 1

    def __call__(self) -> None:
        self.done += 1
        if self.live:
            width = 30
            filled = width * self.done // self.total
            bar = "#" * filled + "." * (width - filled)
            self.stream.write(f"\r{self.what} [{bar}] {self.done}/{self.total}")
            if self.done == self.total:
                self.stream.write("\r" + " " * (len(self.what) + width + 20) + "\r")
            self.stream.flush()
