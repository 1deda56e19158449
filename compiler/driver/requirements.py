"""Checking that a call's arguments satisfy what a compiled kernel was specialised on.

A kernel compiled for one set of arrays (or for explicit specs) assumes facts about the
arguments: static extents and strides, that ``N`` is a multiple of 16, that a pointer is 16-byte
aligned, that two arrays agree on ``N``, the values of its compile-time constants. Calling it with
arguments that break an assumption would silently compute a wrong result, so such calls are
refused with a message naming the argument, the fact and the value.

Every fact about a run-time argument travels in the runtime's ``KernelSpec``
(spec_facts.py) and is checked by the runtime's argument binder at each launch, the same code
that guards AOT artifacts (runtime/packing_facts.py). What only the compiler knows, the values
of compile-time constants, is checked here. (Direct kernel calls never fail these checks: they
look up the compiled kernel by the call's own spec.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from layoutc.frontend.spec import ConstexprSpec, KernelSpec, SpecError


def check_call(spec: KernelSpec, bound: Mapping[str, Any], kernel: str) -> None:
    """Raise SpecError unless every argument is present and every constant has its value."""
    for name, arg in spec.args:
        if name not in bound:
            raise SpecError(f"kernel '{kernel}': missing argument '{name}'")
        if isinstance(arg, ConstexprSpec):
            value = bound[name]
            if not (type(value) is type(arg.value) and value == arg.value):
                raise SpecError(
                    f"kernel '{kernel}': argument '{name}' is the compile-time constant "
                    f"{arg.value!r} in this compiled kernel, got {value!r}; compile it again for "
                    "the new value (or call the @kernel function, which compiles per value)"
                )
