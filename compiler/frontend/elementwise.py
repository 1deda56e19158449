"""CuTe's ``transform`` and ``for_each`` over tensors (``include/cute/algorithm/functional.hpp``,
``tensor_algorithms.hpp``): a Python function traced once per element.

- ``lc.transform(t, fn)``: ``t(i) = fn(t(i))`` for every ``i`` (in place);
- ``lc.transform(src, dst, fn)``: ``dst(i) = fn(src(i))``;
- ``lc.transform(a, b, dst, fn)``: ``dst(i) = fn(a(i), b(i))``;
- ``lc.for_each(t, fn)``: ``fn(t(i))`` for every ``i`` (``fn``'s result is ignored).

Over a tensor of static size (register fragments, static tiles) the loop is unrolled, as CuTe's
``CUTE_UNROLL`` loops are over static fragments: every element is its own ops, and registers
stay registers. A dynamic size becomes one ``scf.for`` whose body is ``fn`` traced once. Sizes
must be provably equal, as for ``lc.copy`` (the tile dialect's rule, in the user's names).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ir.dialects.tile import agreement
from . import control_flow, state
from .algorithms import _describe, _require_agreement
from .tensor import Tensor


def _tensors(args: tuple, fn_name: str, counts: tuple[int, ...]) -> tuple[list[Tensor], Callable]:
    if len(args) - 1 not in counts or not callable(args[-1]) or isinstance(args[-1], Tensor):
        forms = {
            "transform": "lc.transform(t, fn), lc.transform(src, dst, fn) or "
            "lc.transform(a, b, dst, fn)",
            "for_each": "lc.for_each(t, fn)",
        }[fn_name]
        raise state.error(f"lc.{fn_name} expects {forms}")
    tensors = []
    for i, t in enumerate(args[:-1]):
        if not isinstance(t, Tensor):
            raise state.error(
                f"lc.{fn_name}: argument {i + 1} must be a tensor, got {_describe(t)}"
            )
        tensors.append(t)
    return tensors, args[-1]


def _loop(n: Any, body: Callable[[Any], None]) -> None:
    if type(n) is int:
        for i in range(n):
            body(i)
        return

    def step(i: Any) -> tuple:
        body(i)
        return ()

    control_flow.for_(control_flow.DynamicRange(n), step, (), (), (), ())


def transform(*args: Any) -> None:
    """CuTe's ``transform``: ``fn`` applied to every element (see the module docstring)."""
    tensors, fn = _tensors(args, "transform", (1, 2, 3))
    dst = tensors[-1]
    srcs = tensors if len(tensors) == 1 else tensors[:-1]
    for s in srcs:
        if s is not dst:
            _require_agreement(agreement.copy_problem, s.value, dst.value)
            _same_size(s, dst, "transform")

    def body(i: Any) -> None:
        dst[i] = fn(*(s[i] for s in srcs))

    _loop(dst.size(), body)


def for_each(*args: Any) -> None:
    """CuTe's ``for_each(t, fn)``: ``fn(t(i))`` for every element ``i``."""
    (t,), fn = _tensors(args, "for_each", (1,))

    def body(i: Any) -> None:
        fn(t[i])

    _loop(t.size(), body)


def _same_size(a: Tensor, b: Tensor, what: str) -> None:
    na, nb = a.size(), b.size()
    if type(na) is int and type(nb) is int and na != nb:
        raise state.error(f"lc.{what}: the source has {na} elements but the destination has {nb}")
