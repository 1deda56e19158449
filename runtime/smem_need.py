"""The dynamic shared memory a launch needs, from its arguments.

A kernel whose last ``lc.dynamic_smem_tensor`` has a run-time size needs a number of bytes that
depends on its arguments (``4 * n`` for an ``n``-element f32 tensor). The front end states that
number as a formula over the kernel's integer parameters (``KernelSpec.dynamic_smem_formula``,
the manifest's ``shared_memory.dynamic_formula``), so every launch, JIT or AOT, CPU or GPU, can
give the default (``smem=`` left out: exactly what is needed) and refuse too little (which on
the CPU overruns the runtime's buffer and on the GPU reads and writes other blocks' memory).

The formula is a small JSON tree: an int, a parameter name, or ``[op, a, b, ...]`` with ``op``
one of ``add sub mul floordiv mod ceildiv min max`` (Python's floor semantics). It is checked
once when the spec is made and compiled into a closure over the parameter slots.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import ArgumentError

__all__ = ["NeedFn", "check_formula", "need_function", "smem_need_of"]

#: (smem= as given or None, the values of the parameters) -> the bytes to launch with
NeedFn = Callable[[int | None, Sequence[Any]], int]

_OPS: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "ceildiv": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
}


def check_formula(formula: Any, names: Sequence[str]) -> Any:
    """``formula`` as nested tuples, or ValueError naming what is wrong with it."""
    if isinstance(formula, bool):
        raise ValueError(f"bad dynamic shared-memory formula entry {formula!r}")
    if isinstance(formula, int):
        return formula
    if isinstance(formula, str):
        if formula not in names:
            raise ValueError(f"the dynamic shared-memory formula names no parameter {formula!r}")
        return formula
    if isinstance(formula, (list, tuple)) and formula and formula[0] in _OPS:
        args = tuple(check_formula(a, names) for a in formula[1:])
        if len(args) < 2:
            raise ValueError(
                f"'{formula[0]}' in the dynamic shared-memory formula needs 2 operands"
            )
        return (formula[0], *args)
    raise ValueError(f"bad dynamic shared-memory formula entry {formula!r}")


def _compile(formula: Any, slots: dict[str, int]) -> Callable[[Sequence[Any]], int]:
    if isinstance(formula, int):
        return lambda values: formula
    if isinstance(formula, str):
        slot = slots[formula]
        return lambda values: values[slot]
    op = _OPS[formula[0]]
    parts = [_compile(a, slots) for a in formula[1:]]

    def apply(values: Sequence[Any]) -> int:
        acc = parts[0](values)
        for p in parts[1:]:
            acc = op(acc, p(values))
        return acc

    return apply


def need_function(name: str, formula: Any, slots: dict[str, int], default: int) -> NeedFn:
    """The launch's check: ``smem=None`` gives the larger of ``default`` (tensors of static
    size) and the formula's bytes; a given ``smem`` below the formula's bytes is refused."""
    bytes_for = _compile(formula, slots)

    def need(smem: int | None, values: Sequence[Any]) -> int:
        needed = bytes_for(values)
        if smem is None:
            return max(default, needed)
        if smem < needed:
            raise ArgumentError(
                f"kernel {name!r}: smem={smem} bytes is too little: its dynamic shared-memory "
                f"tensors need {needed} bytes for these arguments (leave smem= out to launch "
                "with exactly that)"
            )
        return smem

    return need


def smem_need_of(spec: Any, binder: Any) -> NeedFn | None:
    """The check of a kernel whose spec has a formula (None for every other kernel: its
    launches pay nothing)."""
    if spec.dynamic_smem_formula is None:
        return None
    return need_function(spec.name, spec.dynamic_smem_formula, binder.slots, spec.dynamic_smem)
