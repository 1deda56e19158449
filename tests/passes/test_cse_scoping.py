"""CSE scoping: dominance, isolation, graph regions, unknown ops, and what is never merged."""

from __future__ import annotations

from layoutc.ir.core import Context, parse
from layoutc.passes import PassManager


def cse(text: str) -> list[str]:
    ctx = Context(allow_unregistered=True)
    module = parse(text, ctx)
    assert PassManager.parse("builtin.module(cse)", ctx).run(module)
    return [line.strip() for line in module.to_text().splitlines()]


def count(lines: list[str], needle: str) -> int:
    return sum(needle in line for line in lines)


def test_siblings_in_a_cfg_do_not_share_values():
    lines = cse(
        """
func.func @f(%c: i1, %a: i32) {
  cf.cond_br %c, ^l, ^r
^l:
  %x = arith.addi %a, %a : i32
  "test.use"(%x) : (i32) -> ()
  return
^r:
  %y = arith.addi %a, %a : i32
  "test.use"(%y) : (i32) -> ()
  return
}
"""
    )
    assert count(lines, "arith.addi") == 2


def test_loop_header_dominates_its_body_blocks():
    lines = cse(
        """
func.func @f(%a: i32, %c: i1) {
  cf.br ^head
^head:
  %x = arith.muli %a, %a : i32
  "test.use"(%x) : (i32) -> ()
  cf.cond_br %c, ^body, ^exit
^body:
  %y = arith.muli %a, %a : i32
  "test.use"(%y) : (i32) -> ()
  cf.br ^head
^exit:
  %z = arith.muli %a, %a : i32
  "test.use"(%z) : (i32) -> ()
  return
}
"""
    )
    assert count(lines, "arith.muli") == 1


def test_isolated_and_unregistered_regions_start_empty():
    lines = cse(
        """
module {
  %k = arith.constant 3 : i32
  "test.use"(%k) : (i32) -> ()
  func.func @f() -> i32 {
    %k2 = arith.constant 3 : i32
    return %k2 : i32
  }
  "test.opaque_region"() ({
    %k3 = arith.constant 3 : i32
    "test.use"(%k3) : (i32) -> ()
  }) : () -> ()
}
"""
    )
    assert count(lines, "arith.constant 3") == 3


def test_graph_region_duplicates_merge():
    lines = cse(
        """
module {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i32
  "test.use"(%a, %b) : (i32, i32) -> ()
}
"""
    )
    assert count(lines, "arith.constant 1") == 1
    assert '"test.use"(%a, %a) : (i32, i32) -> ()' in lines


def test_ops_with_regions_effects_or_terminators_are_kept():
    lines = cse(
        """
func.func @f(%c: i1, %a: i32) -> (i32, i32) {
  %0 = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  %1 = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  "test.effect"() : () -> ()
  "test.effect"() : () -> ()
  return %0, %1 : i32, i32
}
"""
    )
    assert count(lines, "scf.if") == 2
    assert count(lines, '"test.effect"') == 2
    assert count(lines, "scf.yield") == 4


def test_unreachable_blocks_are_left_alone():
    lines = cse(
        """
func.func @f(%a: i32) {
  %x = arith.addi %a, %a : i32
  "test.use"(%x) : (i32) -> ()
  return
^dead:
  %y = arith.addi %a, %a : i32
  "test.use"(%y) : (i32) -> ()
  return
}
"""
    )
    assert count(lines, "arith.addi") == 2
