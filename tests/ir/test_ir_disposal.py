"""Disposing of dead IR (ir/core/disposal.py): erased ops are recorded while a recording is
active, and disposed IR is freed by reference counting alone, without the cyclic collector."""

from __future__ import annotations

import gc
import weakref

from ir_helpers import ctx
from layoutc.ir.core import dispose, parse, recording_erased

SOURCE = """
func.func @f(%a: i32, %b: i32, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = arith.addi %a, %b : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (i32) {
    %t = arith.muli %acc, %b : i32
    scf.yield %t : i32
  }
  %dead = arith.subi %a, %b : i32
  func.return %r : i32
}
"""


def _ops(module):
    func = module.regions[0].blocks[0].first_op
    return func, list(func.regions[0].blocks[0].ops)


def test_ir_is_a_reference_cycle_that_dispose_breaks() -> None:
    gc.disable()
    try:
        kept = parse(SOURCE, ctx())
        _, ops = _ops(kept)
        alive_kept = weakref.ref(ops[3].results[0])  # scf.for's result
        del ops
        kept = None  # without dispose: the cycles keep it
        assert alive_kept() is not None

        module = parse(SOURCE, ctx())
        func, ops = _ops(module)
        loop = ops[3]
        nested = weakref.ref(loop.regions[0].blocks[0].first_op.results[0])
        result = weakref.ref(loop.results[0])
        arg = weakref.ref(func.regions[0].blocks[0].args[0])
        del ops, loop, func
        dispose([module])
        del module
        assert result() is None and nested() is None and arg() is None
    finally:
        gc.enable()
        gc.collect()


def test_erased_ops_are_recorded_and_disposed() -> None:
    module = parse(SOURCE, ctx())
    _, ops = _ops(module)
    add, loop, dead = ops[2], ops[3], ops[4]
    body = loop.regions[0].blocks[0]
    with recording_erased() as erased:
        dead.erase()
        with recording_erased() as inner:  # a nested recording keeps its own list
            mul = body.first_op
            mul.results[0].replace_all_uses_with(body.args[1])
            mul.erase()
        assert inner == [mul]
    assert erased == [dead]
    # an erased op is still readable until it is disposed
    assert [v.name_hint for v in dead.operands] == ["a", "b"] and len(dead.results) == 1
    gc.disable()
    try:
        result = weakref.ref(dead.results[0])
        del ops, dead
        dispose(erased)
        erased.clear()
        assert result() is None
        assert add.parent is not None and add.results[0].uses  # only what was given
    finally:
        gc.enable()
