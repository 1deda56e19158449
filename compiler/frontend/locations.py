"""Where in the user's source an op is being built: ``file:line:col`` from the Python stack.

While a kernel runs under the tracer, the stack interleaves the user's frames (the rewritten
kernel, branch and loop-body functions generated from it, helper functions the user calls) with
layoutc's own frames (the DSL functions, the control-flow runtime). An op's location is the
innermost user frame's position; when that frame is a helper the kernel called, the location is
a call-site chain ``callsite(helper at kernel)`` so both lines are known. Columns come from
CPython's per-instruction positions (3.11+), so ``lc.copy(a, b)`` points at the call itself.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from types import CodeType, FrameType, TracebackType

from ..ir.core.location import CallSiteLoc, FileLineColLoc, Location, UnknownLoc


@cache
def _internal_dirs() -> tuple[str, ...]:
    """The directories of layoutc's own code (every frame in them is "ours")."""
    dirs = []
    for name in ("layoutc", "layoutc.ir", "layoutc.passes", "layoutc.runtime"):
        spec = importlib.util.find_spec(name)
        for d in (spec.submodule_search_locations or []) if spec else []:
            dirs.append(os.path.join(os.path.realpath(d), ""))
    return tuple(dirs)


@cache
def is_internal_file(filename: str) -> bool:
    """True for files of layoutc itself (tests and user code are not internal)."""
    real = os.path.realpath(filename)
    return real.startswith(_internal_dirs())


class CodeSet:
    """Code objects compared by identity: ``code in codes`` without hashing ``code``.

    A code object hashes by value, its bytecode and constants, the code of nested functions
    included: a few microseconds for a kernel's, paid on every frame that the location of every
    traced op walks. A frame runs one of the kernel's code objects exactly when it runs that
    object."""

    __slots__ = ("_codes", "_ids")

    def __init__(self, codes: Iterable[CodeType]):
        self._codes = tuple(codes)  # kept alive: their ids stay theirs
        self._ids = frozenset(map(id, self._codes))

    def __contains__(self, code: object) -> bool:
        return id(code) in self._ids

    def __iter__(self) -> Iterator[CodeType]:
        return iter(self._codes)

    def __len__(self) -> int:
        return len(self._codes)


# (id of a code object, instruction offset) -> (that code object, its position). The entry holds
# the code object, so no other object has its id while it is cached; keyed by id, a lookup does
# not hash the code object (see CodeSet).
_POSITIONS: dict[tuple[int, int], tuple[CodeType, tuple[int, int] | None]] = {}
_POSITIONS_LIMIT = 4096


def _instruction_position(code: CodeType, lasti: int) -> tuple[int, int] | None:
    key = (id(code), lasti)
    hit = _POSITIONS.get(key)
    if hit is not None and hit[0] is code:
        return hit[1]
    pos = _find_position(code, lasti)
    if len(_POSITIONS) >= _POSITIONS_LIMIT:
        _POSITIONS.clear()
    _POSITIONS[key] = (code, pos)
    return pos


def _find_position(code: CodeType, lasti: int) -> tuple[int, int] | None:
    positions = getattr(code, "co_positions", None)
    if positions is None or lasti < 0:
        return None
    for i, pos in enumerate(positions()):
        if i == lasti // 2:
            line, _end, col, _endcol = pos
            if line is None:
                return None
            return line, (col if col is not None else 0) + 1
    return None


def code_position(code: CodeType, lasti: int, lineno: int | None) -> tuple[int, int]:
    """(line, 1-based column) of the instruction at byte offset ``lasti`` of ``code``."""
    pos = _instruction_position(code, lasti)
    if pos is not None:
        return pos
    return (lineno or code.co_firstlineno), 1


def frame_location(frame: FrameType) -> FileLineColLoc:
    line, col = code_position(frame.f_code, frame.f_lasti, frame.f_lineno)
    return FileLineColLoc(frame.f_code.co_filename, line, col)


def user_location(kernel_codes: CodeSet, frame: FrameType | None = None) -> Location:
    """The location of the op being built now (see the module docstring).

    ``kernel_codes`` are the code objects generated from the kernel being traced: the innermost
    such frame is the kernel line; user frames inside it are helpers (call-site chain).
    """
    f = frame if frame is not None else sys._getframe(1)
    helpers: list[FrameType] = []
    while f is not None:
        code = f.f_code
        if code in kernel_codes:
            loc: Location = frame_location(f)
            for h in reversed(helpers):
                loc = CallSiteLoc(frame_location(h), loc)
            return loc
        if not is_internal_file(code.co_filename):
            helpers.append(f)
        f = f.f_back
    # Not under a kernel frame (the tracer itself is building IR, e.g. the arguments).
    return UnknownLoc()


def traceback_location(tb: TracebackType | None, kernel_codes: CodeSet) -> Location:
    """The user location an exception was raised from: its innermost non-layoutc frame."""
    frames: list[tuple[FrameType, int]] = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lasti))
        tb = tb.tb_next
    for frame, lasti in reversed(frames):
        code = frame.f_code
        if code in kernel_codes or not is_internal_file(code.co_filename):
            line, col = code_position(code, lasti, frame.f_lineno)
            inner: Location = FileLineColLoc(code.co_filename, line, col)
            if code in kernel_codes:
                return inner
            caller = user_location(kernel_codes, frame.f_back)
            return inner if isinstance(caller, UnknownLoc) else CallSiteLoc(inner, caller)
    return UnknownLoc()


def nested_code_objects(code: CodeType) -> Iterable[CodeType]:
    """``code`` and every code object defined inside it (nested functions, lambdas, ...)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from nested_code_objects(const)
