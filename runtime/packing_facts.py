"""The facts a kernel was compiled under, as launch-time checks and the messages that explain them.

A kernel's code may rely on facts about its arguments (docs/runtime.md, "Facts"): a pointer is
16-byte aligned, ``N`` is a multiple of 16, two tensors agree on ``N``. Arguments that break a
fact would make the code compute a wrong result, so the argument binder (packing.py) refuses
them. What a check needs is computed here once per parameter when a kernel is loaded (a mask,
an inclusive range and a modulus); a launch pays a few integer operations, and only a failing
check calls the functions below that build the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd

from .abi import Param, integer_range
from .dtypes import DTYPES

# -- precomputed checks -------------------------------------------------------------------------


def alignment_mask(param: Param) -> int:
    """``ptr & mask`` is non-zero exactly when a pointer breaks ``param``'s alignment."""
    return (param.align - 1) if param.align else 0


def integer_bounds(param: Param) -> tuple[int, int, int]:
    """``(lo, hi, divisor)``: a value is acceptable iff ``lo <= v <= hi and v % divisor == 0``.

    The range is the parameter type's intersected with the fact bounds, so one comparison
    covers both "fits in i32" and "at least 1".
    """
    lo, hi = integer_range(param.dtype)
    if param.lower is not None:
        lo = max(lo, param.lower)
    if param.upper is not None:
        hi = min(hi, param.upper)
    return lo, hi, param.divisible_by


# -- messages (only built when a check failed) --------------------------------------------------


def integer_violation(param: Param, value: int, subject: str, carrier: bool) -> str:
    """Which fact of integer ``param`` the ``value`` breaks, as the tail of an error message.

    ``subject`` names the value (``"4"`` for a scalar argument, whose name the caller's prefix
    gives; ``"dimension 0's extent N = 1000"`` for a layout entry); ``carrier`` says the parameter carries a layout entry (hints
    then point at ``--assume`` instead of ``--spec``).
    """
    lo, hi = integer_range(param.dtype)
    if not lo <= value <= hi:
        where = f" parameter {param.name!r}" if carrier else ""
        return f"{subject} does not fit in {param.dtype}{where}"
    anonymous = carrier and carrier_is_anonymous(param)
    label = param.symbol if carrier else param.name

    def broken(fact: str, plainly: str, fix: str | None) -> str:
        said = f"it is {plainly}" if anonymous else f"{label}{fact}"
        return f", but the kernel was compiled assuming {said}" + (f" ({fix})" if fix else "")

    if param.lower is not None and value < param.lower:
        lower = param.lower
        return f"{subject} is less than {lower}" + broken(f">={lower}", f"at least {lower}", None)
    if param.upper is not None and value > param.upper:
        upper = param.upper
        return f"{subject} is greater than {upper}" + broken(f"<={upper}", f"at most {upper}", None)
    div = param.divisible_by
    relaxed = gcd(value, div)
    if anonymous:
        fix = "compile the kernel for these arguments"
    elif carrier:
        fix = (
            f'compile with --assume "{label}%{relaxed}==0" to relax'
            if relaxed > 1
            else f"compile without the assumption {label}%{div}==0 to relax"
        )
    else:
        keep = f",div={relaxed}" if relaxed > 1 else ""
        fix = f'compile with --spec "{param.name}={param.dtype}{keep}" to relax'
    return f"{subject} is not a multiple of {div}" + broken(f"%{div}==0", "one", fix)


def carrier_is_anonymous(param: Param) -> bool:
    """Carriers of ``?`` entries have no user-visible symbol to state an assumption about."""
    return param.symbol is None or param.symbol.startswith("?")


def symbolic_layout(param: Param, carriers: Sequence[Param]) -> str:
    """``param.layout`` with each ``?`` replaced by the symbol its carrier carries (``(N):(1)``)."""
    assert param.layout is not None
    names = iter(c.symbol if not carrier_is_anonymous(c) else "?" for c in carriers)
    return "".join(next(names) if ch == "?" else ch for ch in param.layout)


def alignment_violation(param: Param, ptr: int, layout: str | None) -> str:
    """Why ``ptr`` breaks ``param``'s alignment, with the ``--spec`` that would accept it."""
    assert param.align is not None
    actual = ptr & -ptr if ptr else param.align
    message = (
        f"data pointer {ptr:#x} is not {param.align}-byte aligned, but the kernel was compiled "
        f"for align={param.align}"
    )
    itemsize = DTYPES[param.dtype].itemsize
    if actual < itemsize:
        return message + f" (the address is not even a multiple of the {param.dtype} size)"
    spec = f"{param.dtype}[{layout}],align={actual}" if layout else f"align={actual}"
    return message + f' (layoutc compile --spec "{param.name}={spec}" to relax)'


def layout_entry(param: Param, dim: int, what: str, value: int) -> str:
    """``"dimension 0's extent N = 1000"`` (or without the symbol for ``?`` entries)."""
    if carrier_is_anonymous(param):
        return f"dimension {dim}'s {what} {value}"
    return f"dimension {dim}'s {what} {param.symbol} = {value}"
