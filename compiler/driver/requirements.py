"""Checking that a call's arguments satisfy what a compiled kernel was specialised on.

A kernel compiled for one set of arrays (or for explicit specs) assumes facts about the
arguments: static extents and strides, that ``N`` is a multiple of 16, that a pointer is 16-byte
aligned, that two arrays agree on ``N``. Calling it with arguments that break an assumption would
silently compute a wrong result, so :func:`check_call` refuses such calls with a message naming
the argument, the fact and the value. (Direct kernel calls never need this: they look up the
compiled kernel by the call's own spec.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from layoutc.frontend.spec import ConstexprSpec, KernelSpec, ScalarSpec, SpecError, TensorSpec

_INT_RANGE = {"i32": (-(1 << 31), (1 << 31) - 1), "i64": (-(1 << 63), (1 << 63) - 1)}


def _is_int(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return (
        getattr(value, "dtype", None) is not None
        and value.dtype.kind in "iu"
        and not getattr(value, "shape", ())
    )


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return (
        getattr(value, "dtype", None) is not None
        and value.dtype.kind in "iuf"
        and not getattr(value, "shape", ())
    )


class _SymbolValues:
    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.values: dict[str, tuple[int, str]] = {}

    def bind(self, name: str, value: int, where: str) -> None:
        old = self.values.get(name)
        if old is not None and old[0] != value:
            raise SpecError(
                f"kernel '{self.kernel}': {where} gives {_pretty(name)} = {value}, but "
                f"{old[1]} gave {old[0]}; the compiled kernel needs them equal"
            )
        self.values.setdefault(name, (value, where))


def _pretty(symbol: str) -> str:
    """``?src.shape0`` -> ``the extent of mode 0 of 'src'``; named symbols stay as they are."""
    if not symbol.startswith("?"):
        return symbol
    arg, _, what = symbol[1:].rpartition(".")
    m = re.fullmatch(r"(shape|stride)(\d+)", what)
    if m is None:
        return symbol
    kind = "extent" if m.group(1) == "shape" else "stride"
    return f"the {kind} of mode {m.group(2)} of '{arg}'"


def check_call(spec: KernelSpec, bound: Mapping[str, Any], kernel: str) -> None:
    """Raise SpecError unless the bound arguments satisfy every assumption of ``spec``."""
    symbols = _SymbolValues(kernel)
    for name, arg in spec.args:
        if name not in bound:
            raise SpecError(f"kernel '{kernel}': missing argument '{name}'")
        value = bound[name]
        if isinstance(arg, ConstexprSpec):
            if not (type(value) is type(arg.value) and value == arg.value):
                raise SpecError(
                    f"kernel '{kernel}': argument '{name}' is the compile-time constant "
                    f"{arg.value!r} in this compiled kernel, got {value!r}; compile it again for "
                    "the new value (or call the @kernel function, which compiles per value)"
                )
        elif isinstance(arg, ScalarSpec):
            _check_scalar(kernel, name, arg, value)
        else:
            _check_tensor(kernel, name, arg, value, symbols)
    for sym, (value, where) in symbols.values.items():
        facts = spec.symbol(sym)
        if value % facts.divisible_by:
            raise SpecError(
                f"kernel '{kernel}': {where} gives {_pretty(sym)} = {value}, but the kernel was "
                f"compiled assuming it is a multiple of {facts.divisible_by}; compile it for "
                "these arguments"
            )
        if facts.lower is not None and value < facts.lower:
            raise SpecError(
                f"kernel '{kernel}': {where} gives {_pretty(sym)} = {value}, but the kernel was "
                f"compiled assuming it is at least {facts.lower}"
            )
        if value > facts.upper:
            raise SpecError(
                f"kernel '{kernel}': {where} gives {_pretty(sym)} = {value}, which does not fit "
                f"the kernel's {facts.dtype} parameter"
            )


def _check_scalar(kernel: str, name: str, arg: ScalarSpec, value: Any) -> None:
    if arg.dtype in _INT_RANGE:
        if not _is_int(value):
            raise SpecError(f"kernel '{kernel}': argument '{name}' must be an int ({arg.dtype})")
        v = int(value)
        lo, hi = _INT_RANGE[arg.dtype]
        if not lo <= v <= hi:
            raise SpecError(f"kernel '{kernel}': argument '{name}' = {v} does not fit {arg.dtype}")
        if v % arg.divisible_by:
            raise SpecError(
                f"kernel '{kernel}': argument '{name}' = {v}, but the kernel was compiled "
                f"assuming it is a multiple of {arg.divisible_by}"
            )
    elif not _is_number(value):
        raise SpecError(f"kernel '{kernel}': argument '{name}' must be a number ({arg.dtype})")


def _check_tensor(
    kernel: str, name: str, arg: TensorSpec, value: Any, symbols: _SymbolValues
) -> None:
    from layoutc.runtime.arrays import array_facts

    try:
        facts = array_facts(value)
    except (TypeError, ValueError) as e:
        raise SpecError(f"kernel '{kernel}': argument '{name}': {e}") from None
    shape = arg.shape if isinstance(arg.shape, tuple) else (arg.shape,)
    stride = arg.stride if isinstance(arg.stride, tuple) else (arg.stride,)
    if len(facts.shape) != len(shape):
        raise SpecError(
            f"kernel '{kernel}': argument '{name}' has {len(facts.shape)} dimensions, the "
            f"compiled kernel takes rank {len(shape)} ({arg.layout_text()})"
        )
    where = f"argument '{name}'"
    for mode, (ps, pd, n, st) in enumerate(zip(shape, stride, facts.shape, facts.strides)):
        if isinstance(ps, str):
            symbols.bind(ps, n, where)
        elif isinstance(ps, int) and ps != n:
            raise SpecError(
                f"kernel '{kernel}': {where}: mode {mode} has extent {n}, the compiled kernel "
                f"needs {ps} ({arg.layout_text()})"
            )
        if isinstance(pd, str):
            symbols.bind(pd, st, where)
        elif isinstance(pd, int) and n != 1 and pd != st:
            raise SpecError(
                f"kernel '{kernel}': {where}: mode {mode} has stride {st}, the compiled kernel "
                f"needs {pd} ({arg.layout_text()})"
            )
    empty = any(n == 0 for n in facts.shape)
    if arg.align > 1 and facts.ptr % arg.align and not empty:
        raise SpecError(
            f"kernel '{kernel}': {where}: its data is not {arg.align}-byte aligned (address "
            f"{facts.ptr:#x}), which the compiled kernel assumes; compile it for this array"
        )
