"""The kernel's code objects are found by identity, and instruction positions are remembered per
code object: the location of every traced op walks the Python stack, and neither may hash a code
object (its hash covers its bytecode and constants) nor confuse two of them."""

from __future__ import annotations

import gc

from layoutc.frontend.locations import CodeSet, code_position


def _code(blank_lines: int = 0) -> object:
    source = "def f(a):\n" + "\n" * blank_lines + "    b = a + 1\n    return b\n"
    namespace: dict = {}
    exec(compile(source, "<kernel>", "exec"), namespace)
    return namespace["f"].__code__


def test_code_set_holds_the_objects_not_equal_copies():
    a, b = _code(), _code()
    assert a == b and a is not b  # code objects compare (and hash) by value
    codes = CodeSet([a])
    assert a in codes
    assert b not in codes  # a frame running b does not run the kernel's code
    assert list(codes) == [a] and len(codes) == 1


def _last_position(code) -> tuple[int, int]:
    """(line, 1-based column) of the last instruction, from CPython's table."""
    offset, (line, _end, col, _endcol) = [
        (2 * i, p) for i, p in enumerate(code.co_positions()) if p[0] is not None
    ][-1]
    return offset, (line, col + 1)


def test_positions_follow_each_code_object_even_when_ids_are_reused():
    # Fresh code objects, each freed before the next: CPython reuses their memory, so a memo
    # keyed by id alone would answer with a freed object's position.
    for k in range(50):
        code = _code(k % 7)  # the last instruction's line differs from the previous object's
        offset, expected = _last_position(code)
        assert code_position(code, offset, None) == expected
        del code
        gc.collect()
