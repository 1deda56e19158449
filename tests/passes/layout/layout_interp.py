"""A small interpreter for the IR that lower-layouts leaves (arith, scf, gpu ids, tile accesses
on pointer + offset), written from the ops' definitions. It is the oracle of the semantic tests:
run a lowered kernel on numpy buffers and compare with what the algorithm means.

Threads run one after the other (the tested kernels do not communicate). Pointers are
``(buffer, element offset)`` pairs; allocations get fresh zeroed buffers of their layout's
storage_cosize (every offset, swizzled ones included).
Anything the lowering should not leave behind (a layout op, a tensor access) raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from layoutc.ir.algebra import storage_cosize
from layoutc.ir.core.attributes import FloatAttr, IntegerAttr
from layoutc.ir.core.types import FloatType, IndexType, IntegerType

DTYPES = {
    "f16": np.float16,
    "f32": np.float32,
    "tf32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}


_UNDEF = 77
"""What an undefined vector lane holds: not a value the tests store, so a lane that a splat
forgets to define is seen."""


class Ptr:
    __slots__ = ("buf", "off")

    def __init__(self, buf: np.ndarray, off: int):
        self.buf = buf
        self.off = off


class Unsupported(Exception):
    pass


def _np_type(t: Any) -> Any:
    return DTYPES[t.text]


def _floor_div(a: int, b: int) -> int:
    return a // b


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_rem(a: int, b: int) -> int:
    return a - _trunc_div(a, b) * b


def _wrap(x: int, t: Any) -> int:
    if isinstance(t, IndexType):
        w = 64
    elif isinstance(t, IntegerType):
        w = t.width
    else:
        return x
    x &= (1 << w) - 1
    if w > 1 and x >> (w - 1):
        x -= 1 << w
    return x


_INT = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": _trunc_div,
    "arith.divui": lambda a, b: a // b,
    "arith.floordivsi": _floor_div,
    "arith.ceildivsi": lambda a, b: -((-a) // b),
    "arith.ceildivui": lambda a, b: -((-a) // b),
    "arith.remsi": _trunc_rem,
    "arith.remui": lambda a, b: a % b,
    "arith.minsi": min,
    "arith.maxsi": max,
    "arith.minui": min,
    "arith.maxui": max,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b,
    "arith.shrsi": lambda a, b: a >> b,
    "arith.shrui": lambda a, b: a >> b,
}
_FLOAT = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
}
_CMPI = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b,
    "ule": lambda a, b: a <= b,
    "ugt": lambda a, b: a > b,
    "uge": lambda a, b: a >= b,
}


class Interpreter:
    """Runs ``func`` for one thread: ``thread`` and ``block`` are (x, y, z) ids."""

    def __init__(self, func: Any, block_dim: tuple[int, int, int] = (1, 1, 1)):
        self.func = func
        self.block_dim = block_dim
        self.steps = 0

    def run(
        self,
        args: list[Any],
        thread: tuple[int, int, int] = (0, 0, 0),
        block: tuple[int, int, int] = (0, 0, 0),
        shared: Mapping[Any, np.ndarray] | None = None,
    ) -> None:
        self.thread = thread
        self.block = block
        self.shared = dict(shared or {})
        env: dict[Any, Any] = {}
        entry = self.func.regions[0].blocks[0]
        for a, v in zip(entry.args, args):
            env[a] = v
        self._block(entry, env)

    # -- control flow -----------------------------------------------------------------------------
    def _block(self, block: Any, env: dict[Any, Any]) -> list[Any] | None:
        for op in block.ops:
            name = op.name
            if name in ("scf.yield", "func.return"):
                return [env[v] for v in op.operands]
            self._op(op, env)
        return None

    def _op(self, op: Any, env: dict[Any, Any]) -> None:
        self.steps += 1
        name = op.name
        ins = [env[v] for v in op.operands]
        if name == "scf.for":
            lb, ub, step = ins[:3]
            carried = ins[3:]
            body = op.regions[0].blocks[0]
            i = lb
            while i < ub:
                local = dict(env)
                local[body.args[0]] = i
                for a, v in zip(body.args[1:], carried):
                    local[a] = v
                carried = self._block(body, local) or []
                i += step
            for r, v in zip(op.results, carried):
                env[r] = v
            return
        if name == "scf.if":
            region = op.regions[0] if ins[0] else op.regions[1]
            out = self._block(region.blocks[0], dict(env)) if region.blocks else []
            for r, v in zip(op.results, out or []):
                env[r] = v
            return
        value = self._compute(op, ins)
        if op.results:
            if len(op.results) == 1:
                env[op.results[0]] = value
            else:
                for r, v in zip(op.results, value):
                    env[r] = v

    # -- single ops -------------------------------------------------------------------------------
    def _compute(self, op: Any, ins: list[Any]) -> Any:
        name = op.name
        rt = op.results[0].type if op.results else None
        if name == "arith.constant":
            a = op.properties["value"]
            if isinstance(a, FloatAttr):
                return _np_type(rt)(a.value)
            assert isinstance(a, IntegerAttr)
            return bool(a.value) if rt.text == "i1" else a.value
        if name in _INT:
            if name in ("arith.divui", "arith.remui", "arith.ceildivui", "arith.shrui"):
                assert ins[0] >= 0 and ins[1] >= 0, f"{name} on a negative operand {ins}"
            if rt.text == "i1":
                return bool(_INT[name](int(ins[0]), int(ins[1])))
            return _wrap(_INT[name](ins[0], ins[1]), rt)
        if name in _FLOAT:
            return _FLOAT[name](ins[0], ins[1])
        if name == "arith.cmpi":
            pred = op.predicate_enum.name
            return bool(_CMPI[pred](ins[0], ins[1]))
        if name == "arith.cmpf":
            pred = op.predicate_enum.name
            if pred == "oeq":
                return bool(ins[0] == ins[1])
            raise Unsupported(f"cmpf {pred}")
        if name == "arith.select":
            return ins[1] if ins[0] else ins[2]
        if name in ("arith.index_cast", "arith.extsi", "arith.index_castui", "arith.extui"):
            return ins[0]
        if name == "arith.trunci":
            return _wrap(ins[0], rt)
        if name in ("arith.extf", "arith.truncf", "arith.sitofp"):
            return _np_type(rt)(ins[0])
        if name == "arith.fptosi":
            return int(np.trunc(ins[0]))
        if name == "gpu.thread_id":
            return self.thread[op.properties["dimension"].index]
        if name == "gpu.block_id":
            return self.block[op.properties["dimension"].index]
        if name == "gpu.block_dim":
            return self.block_dim[op.properties["dimension"].index]
        if name == "tile.assume":
            return ins[0]
        if name in ("tile.alloc_fragment", "tile.alloc_smem"):
            t = rt
            if name == "tile.alloc_smem" and op in self.shared:
                return self.shared[op]
            n = int(storage_cosize(t.layout()))
            buf = np.zeros(max(n, 1), dtype=_np_type(t.element))
            if name == "tile.alloc_smem":
                self.shared[op] = buf
            return buf
        if name == "tile.get_ptr":
            src = ins[0]
            if isinstance(src, np.ndarray):
                return Ptr(src, 0)
            raise Unsupported("tile.get_ptr of a tensor that is not an allocation")
        if name == "tile.ptr_offset":
            p = ins[0]
            return Ptr(p.buf, p.off + ins[1])
        if name in ("tile.load", "tile.load_vector", "tile.store", "tile.store_vector"):
            return self._access(op, ins)
        if name in ("llvm.mlir.undef", "llvm.mlir.zero"):  # vectors (splats of fill/clear)
            # undef lanes read as NaN/garbage-like values, so a lane left undefined shows up
            fill = 0 if name == "llvm.mlir.zero" else _UNDEF
            return np.full(rt.shape[0], fill, dtype=_np_type(rt.element_type))
        if name == "llvm.insertelement":
            vec = ins[0].copy()
            vec[int(ins[2])] = ins[1]
            return vec
        raise Unsupported(f"the interpreter does not run '{name}'")

    def _address(self, op: Any, p: Any, coords: list[Any]) -> tuple[np.ndarray, int]:
        if not isinstance(p, Ptr):
            raise Unsupported(f"'{op.name}' on a tensor (lower-layouts should have rewritten it)")
        pattern = op.properties["coord"].value
        off = coords[0] if pattern == "?" else int(pattern)
        i = p.off + off
        if i < 0 or i >= p.buf.size:
            raise IndexError(f"'{op.name}' at element {i} of a buffer of {p.buf.size}")
        return p.buf, i

    def _access(self, op: Any, ins: list[Any]) -> Any:
        name = op.name
        if name == "tile.load":
            buf, i = self._address(op, ins[0], ins[1:])
            return buf[i]
        if name == "tile.load_vector":
            buf, i = self._address(op, ins[0], ins[1:])
            w = op.properties["width"].value
            self._check_alignment(op, buf, i)
            return buf[i : i + w].copy()
        if name == "tile.store":
            buf, i = self._address(op, ins[1], ins[2:])
            buf[i] = ins[0]
            return None
        buf, i = self._address(op, ins[1], ins[2:])
        w = op.properties["width"].value
        self._check_alignment(op, buf, i)
        buf[i : i + w] = ins[0]
        return None

    def _check_alignment(self, op: Any, buf: np.ndarray, i: int) -> None:
        a = op.properties.get("alignment")
        if a is not None and (i * buf.itemsize) % a.value:
            raise AssertionError(
                f"'{op.name}' claims {a.value}-byte alignment at byte offset {i * buf.itemsize}"
            )


def float_type(t: Any) -> bool:
    return isinstance(t, FloatType)
