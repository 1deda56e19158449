"""The kernel's code objects are found by identity, and instruction positions are remembered per
code object: the location of every traced op walks the Python stack, and neither may hash a code
object (its hash covers its bytecode and constants) nor confuse two of them."""

from __future__ import annotations

import layoutc as lc
import layoutc.frontend.trace as trace_module
from layoutc.frontend.locations import CodeSet, code_position
from layoutc.ir.dialects import arith, scf


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
    # Fresh code objects, each dropped before the next (freed by its reference count once the
    # memo lets go of it: no collection needed, which costs a second a call in a full test
    # process): CPython reuses their memory, so a memo keyed by id alone would answer with a
    # freed object's position.
    for k in range(50):
        code = _code(k % 7)  # the last instruction's line differs from the previous object's
        offset, expected = _last_position(code)
        assert code_position(code, offset, None) == expected
        del code


@lc.kernel
def guarded(n: int):
    tid = lc.thread_idx.x
    m = tid * 3
    if tid < n:
        x = tid * 2
    else:
        x = n
    y = x + m  # noqa: F841


def test_end_of_trace_verification_trusts_only_ops_verified_where_they_stay(monkeypatch):
    """Ops verified in the function when emitted are not verified again at the end of the
    trace; those of a dynamic ``if``'s branches, built in detached blocks (where a rule that
    looks at the op's surroundings cannot see them), are."""
    seen = {}
    verify = trace_module.verify_op

    def spy(module, *, checked=()):
        seen["checked"], seen["module"] = set(checked), module
        return verify(module, checked=checked)

    monkeypatch.setattr(trace_module, "verify_op", spy)
    guarded.trace(guarded.specialize(10, block=128))
    ops = list(seen["module"].walk_ops())
    branch = [o for o in ops if isinstance(o.parent_op, scf.IfOp)]
    top = [o for o in ops if isinstance(o, arith.MulIOp) and not isinstance(o.parent_op, scf.IfOp)]
    assert top and all(o in seen["checked"] for o in top)
    assert branch and not any(o in seen["checked"] for o in branch)
