"""fragment-scalrep's loop promotion (fragment elements carried through ``scf.for`` as iteration
arguments), checked by running random programs before and after the pass: random loads,
stores, arithmetic, loops (nested, with zero trips), ``scf.if`` and accesses through another
view of the fragment, each program's fragment and values written out, the outputs equal bit
for bit. The lit file tests/lit/layout-passes/fragment-scalrep.mlir shows the rewrites."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import examples, kernel_func, parse_module, run
from layoutc.ir.dialects import scf

ELEMENTS = 4
FRAG = f'!tile.tensor<f32, rmem, "({ELEMENTS}):(1)", 4>'
PTR = "!tile.ptr<f32, rmem, 4>"
GPTR = "!tile.ptr<f32, gmem, 4>"


class _Program:
    """Builds one random kernel's text while hypothesis draws its statements."""

    def __init__(self, draw) -> None:
        self.draw = draw
        self.lines: list[str] = []
        self.counter = 0
        self.outputs = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def block(self, depth: int, scope: list[str], indent: str) -> None:
        scope = list(scope)
        for _ in range(self.draw(st.integers(1, 5))):
            self.statement(depth, scope, indent)

    def statement(self, depth: int, scope: list[str], indent: str) -> None:
        kinds = ["store", "load", "add"] + (["for", "if"] if depth < 2 else []) + ["view"]
        kind = self.draw(st.sampled_from(kinds))
        element = self.draw(st.integers(0, ELEMENTS - 1))
        emit = self.lines.append
        if kind == "store":
            emit(f"{indent}tile.store {self.draw(st.sampled_from(scope))}, %p[{element}] : {PTR}")
        elif kind == "load":
            v = self.fresh()
            emit(f"{indent}{v} = tile.load %p[{element}] : {PTR} -> f32")
            scope.append(v)
        elif kind == "add":
            a, b = self.draw(st.sampled_from(scope)), self.draw(st.sampled_from(scope))
            v = self.fresh()
            emit(f"{indent}{v} = arith.addf {a}, {b} : f32")
            scope.append(v)
        elif kind == "view":  # an access through another view: not a promotable access
            q, v = self.fresh(), self.fresh()
            emit(f"{indent}{q} = tile.ptr_offset %p, %c{element} : ({PTR}, index) -> {PTR}")
            emit(f"{indent}{v} = tile.load {q}[0] : {PTR} -> f32")
            scope.append(v)
        elif kind == "for":
            trips = self.draw(st.sampled_from(["%c0", "%c1", "%c3", "%n"]))
            i = self.fresh()
            emit(f"{indent}scf.for {i} = %c0 to {trips} step %c1 {{")
            self.block(depth + 1, scope, indent + "  ")
            emit(f"{indent}}}")
        else:
            emit(f"{indent}scf.if %cond {{")
            self.block(depth + 1, scope, indent + "  ")
            emit(f"{indent}}}")
        if self.draw(st.booleans()):  # a value computed so far, written out (last write wins)
            emit(f"{indent}tile.store {scope[-1]}, %out[{ELEMENTS + self.outputs}] : {GPTR}")
            self.outputs += 1

    def text(self) -> str:
        self.block(0, ["%x", "%y"], "  ")
        out = [
            f"  %e{k} = tile.load %p[{k}] : {PTR} -> f32\n  tile.store %e{k}, %out[{k}] : {GPTR}"
            for k in range(ELEMENTS)
        ]
        consts = "\n".join(f"  %c{k} = arith.constant {k} : index" for k in range(4))
        body = "\n".join(self.lines + out)
        return (
            "module {\n"
            f"func.func @k(%out: {GPTR}, %x: f32, %y: f32, %n: index, %cond: i1) {{\n"
            f"{consts}\n"
            f"  %f = tile.alloc_fragment : {FRAG}\n"
            f"  %p = tile.get_ptr %f : {FRAG} -> {PTR}\n"
            f"{body}\n"
            "  return\n}\n}\n"
        )


@st.composite
def programs(draw) -> tuple[str, int]:
    program = _Program(draw)
    text = program.text()
    return text, ELEMENTS + program.outputs


def _outputs(text: str, size: int, pipeline: str | None, n: int, cond: bool) -> np.ndarray:
    module = parse_module(text)
    if pipeline is not None:
        run(module, pipeline)
    out = np.full(size, -1.0, dtype=np.float32)
    func = kernel_func(module)
    Interpreter(func).run([Ptr(out, 0), np.float32(1.5), np.float32(-0.25), n, cond])
    return out


@examples(300)
@given(programs(), st.integers(0, 3), st.booleans())
def test_promotion_keeps_what_programs_compute(program, n, cond):
    text, size = program
    before = _outputs(text, size, None, n, cond)
    after = _outputs(text, size, "builtin.module(fragment-scalrep)", n, cond)
    np.testing.assert_array_equal(after, before, err_msg=text)


def test_a_main_loop_carries_its_fragment():
    """The shape of an MMA main loop: the accumulator loaded and stored every iteration, read
    after the loop; it becomes iteration arguments and no access stays in the loop."""
    text = f"""module {{
func.func @k(%out: {GPTR}, %x: f32, %n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : {FRAG}
  %p = tile.get_ptr %f : {FRAG} -> {PTR}
  %zero = arith.constant 0.0 : f32
  tile.store %zero, %p[0] : {PTR}
  tile.store %zero, %p[1] : {PTR}
  scf.for %i = %c0 to %n step %c1 {{
    %a = tile.load %p[0] : {PTR} -> f32
    %b = arith.addf %a, %x : f32
    tile.store %b, %p[0] : {PTR}
    %c = tile.load %p[1] : {PTR} -> f32
    %d = arith.addf %c, %b : f32
    tile.store %d, %p[1] : {PTR}
  }}
  %v = tile.load_vector %f[0] {{alignment = 4 : i64}} : {FRAG} -> vector<2xf32>
  return
}}
}}"""
    module = parse_module(text)
    run(module, "builtin.module(fragment-scalrep)")
    loop = next(op for op in kernel_func(module).walk_ops() if type(op) is scf.ForOp)
    assert len(loop.results) == 2
    assert not [op for op in loop.body_block.ops if op.name.startswith("tile.")]
    # the results are stored back for the vector load after the loop; the zeros are forwarded
    after = [op.name for op in kernel_func(module).regions[0].blocks[0].ops]
    assert after.count("tile.store") == 2 and "tile.load" not in after
