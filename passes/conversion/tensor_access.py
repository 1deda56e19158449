"""Addressing tensors at the LLVM level: a tensor is a base pointer plus a layout whose ``?``
entries are SSA values; an element's address is the base plus ``crd2idx`` of its coordinate.

lower-layouts normally leaves only pointer + offset accesses; what reaches convert-to-llvm as a
tensor (register fragments and shared-memory buffers with static layouts, kernel arguments with
``?`` entries) is addressed here with CuTe's ``crd2idx``: a coordinate congruent to the shape
contributes ``coord . stride``; an integer (or one index value) for a nested mode is split
colexicographically over its sub-modes first. Only plain ``shape:stride`` layouts are addressed
here; swizzled, composed and gather layouts are lower-layouts' job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from layoutc.ir.core.builder import Builder
from layoutc.ir.core.types import index
from layoutc.ir.core.values import Value
from layoutc.ir.dialects import arith
from layoutc.ir.dialects.tile.coords import DYNAMIC
from layoutc.ir.dialects.tile.types import TensorType


class AccessError(Exception):
    """A tensor access convert-to-llvm cannot address (the message says why)."""


_TOKEN = re.compile(r"\s*(\(|\)|,|:|\?|\d+)")


class _Dyn:
    """A ``?`` entry: the ``n``-th dynamic value of the tensor."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n


def parse_plain_layout(text: str) -> tuple[Any, Any]:
    """``"(4,(?,2)):(1,(?,8))"`` -> (shape, stride) with ints and ``_Dyn`` leaves numbered in
    text order (shape entries first). AccessError for anything but ``shape:stride``."""
    pos = 0
    count = 0

    def fail() -> AccessError:
        return AccessError(
            f'not supported: addressing a tensor with layout "{text}" (only plain '
            "shape:stride layouts; lower-layouts turns the others into pointer + offset)"
        )

    def tok() -> str:
        nonlocal pos
        m = _TOKEN.match(text, pos)
        if m is None:
            raise fail()
        pos = m.end()
        return m.group(1)

    def peek() -> str:
        m = _TOKEN.match(text, pos)
        return m.group(1) if m else ""

    def entry() -> Any:
        nonlocal count
        t = tok()
        if t == "(":
            items = [entry()]
            while peek() == ",":
                tok()
                items.append(entry())
            if tok() != ")":
                raise fail()
            return tuple(items)
        if t == "?":
            count += 1
            return _Dyn(count - 1)
        if t.isdigit():
            return int(t)
        raise fail()

    shape = entry()
    if tok() != ":":
        raise fail()
    stride = entry()
    if text[pos:].strip():
        raise fail()
    return shape, stride


@dataclass
class TensorDesc:
    """A tensor value at the LLVM level: base pointer, type, and the values of its ``?``s."""

    base: Value
    type: TensorType
    dynamic: list[Value] = field(default_factory=list)


class IndexEmitter:
    """Emits ``index`` arithmetic, folding what is static."""

    def __init__(self, builder: Builder):
        self.b = builder

    def const(self, v: int) -> Value:
        if not -(1 << 63) <= v < 1 << 63:  # index arithmetic is signed 64-bit at most
            raise AccessError(f"the static offset {v} does not fit in 64 bits")
        return self.b.insert(arith.ConstantOp.from_int(v, index)).results[0]

    def mul(self, x: Value | int, y: Value | int) -> Value | int:
        if isinstance(x, int) and isinstance(y, int):
            return x * y
        if x == 0 or y == 0:
            return 0
        if x == 1:
            return y
        if y == 1:
            return x
        return self.b.create(arith.MulIOp, self._v(x), self._v(y)).results[0]

    def add(self, x: Value | int, y: Value | int) -> Value | int:
        if isinstance(x, int) and isinstance(y, int):
            return x + y
        if x == 0:
            return y
        if y == 0:
            return x
        return self.b.create(arith.AddIOp, self._v(x), self._v(y)).results[0]

    def div(self, x: Value | int, y: Value | int) -> Value | int:
        if isinstance(x, int) and isinstance(y, int):
            return x // y
        if y == 1:
            return x
        return self.b.create(arith.DivUIOp, self._v(x), self._v(y)).results[0]

    def rem(self, x: Value | int, y: Value | int) -> Value | int:
        if isinstance(x, int) and isinstance(y, int):
            return x % y
        if y == 1:
            return 0
        return self.b.create(arith.RemUIOp, self._v(x), self._v(y)).results[0]

    def _v(self, x: Value | int) -> Value:
        return x if isinstance(x, Value) else self.const(x)

    def value(self, x: Value | int) -> Value:
        return self._v(x)


def _resolve(x: Any, dynamic: Sequence[Value]) -> Any:
    if isinstance(x, _Dyn):
        return dynamic[x.n]
    if isinstance(x, tuple):
        return tuple(_resolve(e, dynamic) for e in x)
    return x


def _product(shape: Any, e: IndexEmitter) -> Value | int:
    if isinstance(shape, tuple):
        p: Value | int = 1
        for s in shape:
            p = e.mul(p, _product(s, e))
        return p
    return shape


def _crd2idx(coord: Any, shape: Any, stride: Any, e: IndexEmitter) -> Value | int:
    if isinstance(coord, tuple):
        if not isinstance(shape, tuple) or len(shape) != len(coord):
            raise AccessError("the coordinate is not congruent with the tensor's shape")
        total: Value | int = 0
        for c, s, d in zip(coord, shape, stride):
            total = e.add(total, _crd2idx(c, s, d, e))
        return total
    if isinstance(shape, tuple):
        # One index for a nested mode: colexicographic split over the sub-modes.
        total = 0
        rest: Value | int = coord
        for k, (s, d) in enumerate(zip(shape, stride)):
            last = k == len(shape) - 1
            size = _product(s, e)
            part = rest if last else e.rem(rest, size)
            total = e.add(total, _crd2idx(part, s, d, e))
            if not last:
                rest = e.div(rest, size)
        return total
    return e.mul(coord, stride)


def element_offset(
    desc: TensorDesc, pattern: Any, coords: Iterator[Value], e: IndexEmitter
) -> Value | int:
    """The element offset (an int when static) of ``pattern`` in ``desc``'s layout."""
    shape, stride = parse_plain_layout(desc.type.layout_text)
    shape, stride = _resolve(shape, desc.dynamic), _resolve(stride, desc.dynamic)

    def fill(p: Any) -> Any:
        if p is DYNAMIC:
            return next(coords)
        if isinstance(p, tuple):
            return tuple(fill(x) for x in p)
        if isinstance(p, int):
            return p
        raise AccessError("a coordinate with '_' names several elements")

    return _crd2idx(fill(pattern), shape, stride, e)


def cosize(text: str) -> int:
    """Elements a static plain layout spans (its largest offset + 1)."""
    shape, stride = parse_plain_layout(text)

    def walk(s: Any, d: Any) -> int:
        if isinstance(s, tuple):
            return sum(walk(x, y) for x, y in zip(s, d))
        if not isinstance(s, int) or not isinstance(d, int):
            raise AccessError(f'layout "{text}" is not static')
        return (s - 1) * abs(d)

    return walk(shape, stride) + 1
