"""A host compiler of its own, with layoutc as its backend: a two-op elementwise language.

The language has vectors, float constants, ``add`` and ``mul``, one assignment per program::

    out = add(mul(x, 2.0), y)

``lower`` turns a program into layoutc IR with the IR builder (no Python DSL, no MLIR text):
a ``gpu.kernel`` function taking one ``!tile.ptr<f32, gmem, 4>`` per vector and the length
``n``, where each thread computes one element (``block_id * block_dim + thread_id``, guarded by
``i < n``) with ``tile.load``, ``arith.addf``/``arith.mulf`` and ``tile.store``.
``layoutc.embed.compile_module`` compiles it for the CPU or a GPU; the result is launched with
layoutc's runtime (or the host's own launcher, from ``metadata()``).

Run it:  python examples/embedding/elementwise.py "out = add(mul(x, 2.0), y)"
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import numpy as np

# -- the language: parse ----------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    value: float


@dataclass(frozen=True)
class Call:
    op: str  # "add" or "mul"
    lhs: Expr
    rhs: Expr


Expr = Var | Const | Call

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_]\w*)|(?P<sym>[(),=]))"
)


class LanguageError(ValueError):
    """A program the language does not accept (with the column of the problem)."""


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if not m:
            raise LanguageError(f"column {pos + 1}: unexpected {text[pos:].strip()[:1]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    return out


def parse(text: str) -> tuple[str, Expr]:
    """``"out = add(x, y)"`` -> ``("out", Call("add", Var("x"), Var("y")))``."""
    toks = _tokens(text)
    i = 0

    def take(kind: str | None = None, value: str | None = None) -> tuple[str, str, int]:
        nonlocal i
        if i >= len(toks):
            raise LanguageError("unexpected end of program")
        tok = toks[i]
        if (kind and tok[0] != kind) or (value and tok[1] != value):
            raise LanguageError(f"column {tok[2]}: expected {value or kind}, got {tok[1]!r}")
        i += 1
        return tok

    def expr() -> Expr:
        kind, value, col = take()
        if kind == "num":
            return Const(float(value))
        if kind != "name":
            raise LanguageError(f"column {col}: expected a name or a number, got {value!r}")
        if i < len(toks) and toks[i][1] == "(":
            if value not in ("add", "mul"):
                raise LanguageError(f"column {col}: unknown operation {value!r} (add, mul)")
            take(value="(")
            lhs = expr()
            take(value=",")
            rhs = expr()
            take(value=")")
            return Call(value, lhs, rhs)
        return Var(value)

    out = take("name")[1]
    take(value="=")
    e = expr()
    if i != len(toks):
        raise LanguageError(f"column {toks[i][2]}: unexpected {toks[i][1]!r}")
    return out, e


def inputs_of(e: Expr) -> list[str]:
    """The vectors a program reads, in order of first use."""
    if isinstance(e, Var):
        return [e.name]
    if isinstance(e, Call):
        return list(dict.fromkeys(inputs_of(e.lhs) + inputs_of(e.rhs)))
    return []


# -- lowering to layoutc IR with the builder --------------------------------------------------


def lower(text: str, name: str = "elementwise"):
    """The layoutc IR module of a program: ``func.func @name(inputs..., out, n)``."""
    from layoutc.ir.core import Builder, FunctionType, InsertionPoint, UnitAttr, f32, i32
    from layoutc.ir.core.location import FileLineColLoc
    from layoutc.ir.dialects import arith, gpu, scf
    from layoutc.ir.dialects.builtin import ModuleOp
    from layoutc.ir.dialects.func import FuncOp, ReturnOp
    from layoutc.ir.dialects.tile.ops_element import LoadOp, StoreOp
    from layoutc.ir.dialects.tile.types import PtrType

    out, e = parse(text)
    names = [*inputs_of(e), out]
    if out in names[:-1]:
        raise LanguageError(f"{out!r} is both read and written")
    ptr = PtrType(f32, "gmem", 4)
    fn = FuncOp(name, FunctionType([ptr] * len(names) + [i32], []))
    fn.attributes[gpu.KERNEL_ATTR] = UnitAttr()
    for arg, arg_name in zip(fn.args, [*names, "n"]):
        arg.name_hint = arg_name
    args = dict(zip([*names, "n"], fn.args))
    b = Builder(InsertionPoint.at_end(fn.entry_block))
    b.loc = FileLineColLoc("<elementwise>", 1, 1)
    tid = b.create(gpu.ThreadIdOp, "x").results[0]
    bid = b.create(gpu.BlockIdOp, "x").results[0]
    bdim = b.create(gpu.BlockDimOp, "x").results[0]
    i = b.create(arith.AddIOp, b.create(arith.MulIOp, bid, bdim).results[0], tid).results[0]
    n = b.create(arith.IndexCastOp, args["n"], i.type).results[0]
    inside = b.create(arith.CmpIOp, "slt", i, n).results[0]
    guard = b.create(scf.IfOp, inside)
    with b.at(InsertionPoint.before_op(guard.then_block.last_op)):  # before its scf.yield
        loaded: dict[str, object] = {}

        def emit(node: Expr):
            if isinstance(node, Const):
                return b.create(arith.ConstantOp.from_float, node.value, f32).results[0]
            if isinstance(node, Var):
                if node.name not in loaded:
                    loaded[node.name] = b.create(LoadOp, args[node.name], i).results[0]
                return loaded[node.name]
            op = arith.AddFOp if node.op == "add" else arith.MulFOp
            return b.create(op, emit(node.lhs), emit(node.rhs)).results[0]

        b.create(StoreOp, emit(e), args[out], i)
    b.create(ReturnOp)
    module = ModuleOp([fn])
    module.verify()
    return module, names


def evaluate(text: str, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The program's meaning in numpy (the reference the compiled kernel is checked against)."""
    _, e = parse(text)

    def ev(node: Expr):
        if isinstance(node, Const):
            return np.float32(node.value)
        if isinstance(node, Var):
            return arrays[node.name]
        a, c = ev(node.lhs), ev(node.rhs)
        return (a + c if node.op == "add" else a * c).astype(np.float32)

    return np.broadcast_to(ev(e), next(iter(arrays.values())).shape).astype(np.float32)


def run(text: str, n: int = 10_000, target: str = "cpu", block: int = 128) -> float:
    """Compile ``text``, run it on random vectors of length ``n``, return the max error."""
    import layoutc.embed as embed

    module, names = lower(text)
    kernel = embed.compile_module(module, target=target)
    rng = np.random.default_rng(0)
    arrays = {v: rng.standard_normal(n, dtype=np.float32) for v in names[:-1]}
    out = np.zeros(n, np.float32)
    kernel.load()(*arrays.values(), out, n, grid=-(-n // block), block=block)
    return float(np.max(np.abs(out - evaluate(text, arrays))))


if __name__ == "__main__":
    program = sys.argv[1] if len(sys.argv) > 1 else "out = add(mul(x, 2.0), y)"
    print(f"{program}: max error {run(program)}")
