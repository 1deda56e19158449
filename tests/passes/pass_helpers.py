"""Shared helpers for the pass tests: hypothesis settings, an independent arith interpreter
(the oracle for semantic-preservation tests) and a generator of random arith programs."""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from layoutc.ir.core import Context, Operation, parse
from layoutc.ir.core.attributes import IntegerAttr

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def examples(n: int) -> settings:
    """``n`` examples locally, a quarter on CI; no deadline (shared, noisy machines)."""
    return settings(
        max_examples=max(10, n // 4) if CI else n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def parse_text(text: str, *, unregistered: bool = True) -> Operation:
    return parse(text, Context(allow_unregistered=unregistered))


# -- an interpreter for straight-line i32 arith + scf.if, written from the MLIR spec ------------

WIDTH = 32
MASK = (1 << WIDTH) - 1


def _signed(x: int) -> int:
    return x - (1 << WIDTH) if x >> (WIDTH - 1) else x


_BINARY = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.maxsi": lambda a, b: a if _signed(a) >= _signed(b) else b,
    "arith.minsi": lambda a, b: a if _signed(a) <= _signed(b) else b,
    "arith.maxui": max,
    "arith.minui": min,
}

_PREDICATES = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: _signed(a) < _signed(b),
    3: lambda a, b: _signed(a) <= _signed(b),
    4: lambda a, b: _signed(a) > _signed(b),
    5: lambda a, b: _signed(a) >= _signed(b),
    6: lambda a, b: a < b,
    7: lambda a, b: a <= b,
    8: lambda a, b: a > b,
    9: lambda a, b: a >= b,
}


def run_function(func: Operation, args: Sequence[int]) -> list[int]:
    """Execute a ``func.func`` of the supported subset on unsigned i32/i1 values.

    Supports arith (the ops above), scf.if, cf.br/cf.cond_br between blocks and func.call of
    functions in the same module.
    """
    return _run_region(func.regions[0], [v & MASK for v in args], {})


def _run_region(region, args, env) -> list[int]:
    block = region.blocks[0]
    while True:
        for a, v in zip(block.args, args):
            env[a] = v
        outcome = _run_block(block, env)
        if isinstance(outcome, tuple):  # a branch: (target block, its arguments)
            block, args = outcome
            continue
        return outcome


def _run_block(block, env):
    for op in block.ops:
        name = op.name
        vals = [env[v] for v in op.operands]
        if name == "arith.constant":
            attr = op.properties["value"]
            assert isinstance(attr, IntegerAttr)
            env[op.results[0]] = attr.unsigned_value
        elif name in _BINARY:
            env[op.results[0]] = _BINARY[name](*vals) & MASK
        elif name == "arith.cmpi":
            pred = op.properties["predicate"].value
            env[op.results[0]] = int(_PREDICATES[pred](*vals))
        elif name == "arith.select":
            env[op.results[0]] = vals[1] if vals[0] else vals[2]
        elif name == "scf.if":
            region = op.regions[0] if vals[0] else op.regions[1]
            out = _run_region(region, [], env) if region.blocks else []
            for r, v in zip(op.results, out):
                env[r] = v
        elif name == "func.call":
            module = op.parent_op
            while module.name != "builtin.module":
                module = module.parent_op
            callee = next(
                f
                for f in module.regions[0].blocks[0].ops
                if f.name == "func.func"
                and f.properties["sym_name"].value == op.properties["callee"].root
            )
            for r, v in zip(op.results, _run_region(callee.regions[0], vals, {})):
                env[r] = v
        elif name == "cf.br":
            return (op.successors[0].block, vals)
        elif name == "cf.cond_br":
            sizes = op.properties["operandSegmentSizes"].values
            true_args = vals[1 : 1 + sizes[1]]
            false_args = vals[1 + sizes[1] :]
            if vals[0]:
                return (op.successors[0].block, true_args)
            return (op.successors[1].block, false_args)
        elif name in ("scf.yield", "func.return"):
            return vals
        else:
            raise AssertionError(f"the test interpreter does not know {name}")
    return []


# -- random programs -----------------------------------------------------------------------------

_OPS = sorted(_BINARY)
_PRED_NAMES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_INTERESTING = [0, 1, 2, -1, 3, 7, -8, 255, 1 << 31, (1 << 31) - 1]


@st.composite
def arith_programs(draw, max_ops: int = 24) -> str:
    """A ``func.func @f(%a0, %a1, %a2 : i32)`` of random arith ops (and scf.if), as text."""
    lines: list[str] = []
    i32: list[str] = ["%a0", "%a1", "%a2"]
    i1: list[str] = []
    count = draw(st.integers(1, max_ops))

    def emit_ops(indent: str, n: int, scope_i32: list[str], scope_i1: list[str]) -> None:
        for _ in range(n):
            k = len(lines)
            kind = draw(
                st.sampled_from(
                    ["const", "bin", "bin", "bin_const", "bin_const", "cmp", "select", "if"]
                )
            )
            if kind == "const":
                c = draw(st.sampled_from(_INTERESTING) | st.integers(-(2**31), 2**31 - 1))
                lines.append(f"{indent}%v{k} = arith.constant {c} : i32")
                scope_i32.append(f"%v{k}")
            elif kind == "bin":
                op = draw(st.sampled_from(_OPS))
                # Recent values feed later ops, so most of the program reaches the results.
                a, b = draw(st.sampled_from(scope_i32[-4:])), draw(st.sampled_from(scope_i32))
                lines.append(f"{indent}%v{k} = {op} {a}, {b} : i32")
                scope_i32.append(f"%v{k}")
            elif kind == "bin_const":
                # An op with a constant operand: what folders and patterns look for.
                c = draw(st.sampled_from(_INTERESTING) | st.integers(-(2**31), 2**31 - 1))
                lines.append(f"{indent}%c{k} = arith.constant {c} : i32")
                op = draw(st.sampled_from(_OPS))
                a = draw(st.sampled_from(scope_i32[-4:]))
                lhs, rhs = (a, f"%c{k}") if draw(st.booleans()) else (f"%c{k}", a)
                lines.append(f"{indent}%v{k} = {op} {lhs}, {rhs} : i32")
                scope_i32.append(f"%v{k}")
            elif kind == "cmp":
                p = draw(st.sampled_from(_PRED_NAMES))
                a, b = draw(st.sampled_from(scope_i32)), draw(st.sampled_from(scope_i32))
                lines.append(f"{indent}%v{k} = arith.cmpi {p}, {a}, {b} : i32")
                scope_i1.append(f"%v{k}")
            elif kind == "select" and scope_i1:
                c = draw(st.sampled_from(scope_i1))
                a, b = draw(st.sampled_from(scope_i32)), draw(st.sampled_from(scope_i32))
                lines.append(f"{indent}%v{k} = arith.select {c}, {a}, {b} : i32")
                scope_i32.append(f"%v{k}")
            elif kind == "if" and scope_i1 and len(indent) < 8:
                c = draw(st.sampled_from(scope_i1))
                lines.append(f"{indent}%v{k} = scf.if {c} -> (i32) {{")
                for branch in ("then", "else"):
                    inner = list(scope_i32)
                    emit_ops(indent + "  ", draw(st.integers(0, 3)), inner, list(scope_i1))
                    lines.append(f"{indent}  scf.yield {draw(st.sampled_from(inner))} : i32")
                    if branch == "then":
                        lines.append(f"{indent}}} else {{")
                lines.append(f"{indent}}}")
                scope_i32.append(f"%v{k}")

    emit_ops("  ", count, i32, i1)
    results = [i32[-1], *draw(st.lists(st.sampled_from(i32), max_size=3))]
    types = ", ".join(["i32"] * len(results))
    body = "\n".join(lines)
    return (
        f"func.func @f(%a0: i32, %a1: i32, %a2: i32) -> ({types}) {{\n{body}\n"
        f"  return {', '.join(results)} : {types}\n}}\n"
    )


def function(module: Operation) -> Operation:
    return next(op for op in module.walk_ops() if op.name == "func.func")
