"""Printing: ``lc.printf``/``lc.print`` in kernels (``gpu.printf``: CUDA's vprintf on the GPU,
the C library's printf on the CPU runtime, one output format), and CuTe's ``print_tensor``
in kernels and on the host.

- ``lc.printf("%d: %f\\n", i, x)``: C's format, checked against the arguments at your line;
- ``lc.print(a, b, ...)``: CuTe's ``print`` of each value, separated by ``sep`` and ended by
  ``end`` (ints ``%d``/``%lld``, floats ``%f``, predicates ``%d``); Python values (strings,
  numbers, layouts) are written into the format at compile time;
- ``lc.print_tensor(t)``: CuTe's ``print_tensor``: a header ``<space>_ptr[<bits>b] o <layout>:``
  then the elements, rows of a rank-2 tensor on one line each, with CuTe's ``pretty_print``
  widths (``%5d``, ``%10.2e`` for f32, ``%11.3e`` for f64, ``%3d`` for predicates, ``  %f``
  for 16-bit floats). CuTe prints the pointer's address in the header; layoutc leaves it out
  so that the CPU runtime and the GPU print the same text. In a kernel the tensor needs a
  static shape (print a tile: ``lc.print_tensor(lc.local_tile(t, ...))``); on the host
  ``print_tensor`` takes a numpy array (or anything ``numpy.asarray`` reads) and prints
  the same text.
"""

from __future__ import annotations

import sys
from typing import Any

from ..ir.algebra import Layout
from ..ir.core.types import FloatType, IndexType, IntegerType, f64, i32, i64
from ..ir.dialects import gpu
from . import scalars, state
from .scalars import Scalar
from .tensor import Tensor


def _value(x: Any, what: str) -> Any:
    """An SSA value for a printf argument."""
    if isinstance(x, Scalar):
        return x.value
    if isinstance(x, bool):
        return scalars.constant(int(x), i32)
    if isinstance(x, int):
        return scalars.constant(x, i32 if -(2**31) <= x < 2**31 else i64)
    if isinstance(x, float):
        return scalars.constant(x, f64)
    raise state.error(f"lc.printf: {what} must be a number or a dynamic scalar, got {x!r}")


def printf(fmt: str, *args: Any) -> None:
    """C's ``printf(fmt, args...)`` from every thread that runs it (``gpu.printf``)."""
    if state.active() is None:
        raise TypeError("lc.printf prints from a kernel; on the host use Python's print")
    if not isinstance(fmt, str):
        raise state.error(f"lc.printf: the format must be a Python string, got {fmt!r}")
    values = [_value(a, f"argument {i + 1}") for i, a in enumerate(args)]
    try:
        wanted = gpu.printf_conversions(fmt)
    except ValueError as e:
        raise state.error(f"lc.printf: {e}") from None
    if len(wanted) != len(values):
        raise state.error(
            f"lc.printf: the format has {len(wanted)} conversions but {len(values)} arguments "
            "were given"
        )
    # index values (thread ids, extents) take the width their conversion asks for, and
    # narrower integers widen to a long conversion (vprintf reads what the format says)
    values = [_widen(v, want) for v, want in zip(values, wanted)]
    state.emit(gpu.PrintfOp(fmt, values))


def _widen(v: Any, want: str) -> Any:
    t = v.type
    if isinstance(t, IndexType) and want != "f64":
        return scalars.cast_value(v, i32 if want == "i32" else i64)
    if want == "i64" and isinstance(t, IntegerType) and t.width < 64:
        return scalars.cast_value(v, i64)
    return v


def _conversion(t: Any) -> str:
    if isinstance(t, FloatType):
        return "%f"
    if isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width > 32):
        return "%lld"
    return "%d"


def _static_text(x: Any) -> str:
    return str(x).replace("%", "%%")


def print_(*values: Any, sep: str = " ", end: str = "\n") -> None:
    """CuTe's ``print`` of each value (``lc.print`` in kernels; Python's ``print`` outside)."""
    if state.active() is None:
        print(*values, sep=sep, end=end)
        return
    parts, args = [], []
    for v in values:
        if isinstance(v, Scalar):
            parts.append(_conversion(v.value.type))
            args.append(v.value)
        elif isinstance(v, Tensor):
            parts.append(_static_text(_header(v)))
        elif hasattr(v, "_lc_values"):
            raise state.error(f"lc.print cannot print {v._lc_describe()}")
        else:
            parts.append(_static_text(v))
    state.emit(gpu.PrintfOp(_static_text(sep).join(parts) + _static_text(end), args))


# -- print_tensor ------------------------------------------------------------------------------

_PRETTY = {
    "i1": "%3d",
    "i8": "%5d",
    "i16": "%5d",
    "i32": "%5d",
    "i64": "%5lld",
    "f32": "%10.2e",
    "tf32": "%10.2e",
    "f64": "%11.3e",
    "f16": "  %f",
    "bf16": "  %f",
}


def _header(t: Tensor) -> str:
    space = t.memspace
    if t.type.is_coord:
        return f"coord_tensor o {t.type.layout_text}"
    return f"{space}_ptr[{t.type.element_bits}b] o {t.type.layout_text}"


def _static_extents(t: Tensor) -> tuple[int, ...]:
    from ..ir.algebra import rank, size

    lay = t.type.layout()
    r = rank(lay)
    extents = tuple(size(lay, i) for i in range(r))
    if not all(type(e) is int for e in extents):
        raise state.error(
            f"lc.print_tensor needs a static shape, got {t.type.layout_text}; print a tile "
            "of it (lc.local_tile)"
        )
    if r > 4:
        raise state.error(f"not supported: lc.print_tensor of a rank-{r} tensor (rank 1 to 4)")
    return extents


def _print_rows(t: Tensor, extents: tuple[int, ...]) -> None:
    pretty = _PRETTY[t.type.element.text]
    if len(extents) == 1:
        for m in range(extents[0]):
            state.emit(gpu.PrintfOp(pretty + "\n", [t[m].value]))
        return
    for m in range(extents[0]):
        row = [t[m, n] for n in range(extents[1])]
        state.emit(gpu.PrintfOp(pretty * len(row) + "\n", [v.value for v in row]))


def _kernel_print_tensor(t: Tensor) -> None:
    if t.type.is_coord:
        raise state.error("not supported: lc.print_tensor of a coordinate tensor")
    extents = _static_extents(t)
    state.emit(gpu.PrintfOp(_static_text(_header(t)) + ":\n", []))
    if len(extents) <= 2:
        _print_rows(t, extents)
        return
    for k in _indices(extents[2:]):
        _print_slice(t, extents, k)
        state.emit(gpu.PrintfOp("----------\n", []))


def _indices(extents: tuple[int, ...]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for e in extents:
        out = [(*prefix, i) for i in range(e) for prefix in out]
    return out


def _print_slice(t: Tensor, extents: tuple[int, ...], rest: tuple[int, ...]) -> None:
    pretty = _PRETTY[t.type.element.text]
    for m in range(extents[0]):
        row = [t[(m, n, *rest)] for n in range(extents[1])]
        state.emit(gpu.PrintfOp(pretty * len(row) + "\n", [v.value for v in row]))


def print_tensor(t: Any) -> None:
    """CuTe's ``print_tensor``: a kernel's tensor (``gpu.printf``), or a host array."""
    if isinstance(t, Tensor):
        _kernel_print_tensor(t)
        return
    if state.active() is not None:
        raise state.error(f"lc.print_tensor expects a tensor, got {t!r}")
    sys.stdout.write(format_tensor(t))


_NUMPY_NAMES = {
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
}


def format_tensor(array: Any) -> str:
    """The text ``print_tensor`` prints for a host array (the kernel's format)."""
    import numpy as np

    a = np.asarray(array)
    name = _NUMPY_NAMES.get(a.dtype.name) or ("bf16" if "bfloat16" in str(a.dtype) else None)
    if name is None:
        raise TypeError(f"print_tensor: no element type for numpy dtype {a.dtype}")
    if not 1 <= a.ndim <= 4:
        raise TypeError(f"print_tensor: rank 1 to 4, got an array of rank {a.ndim}")
    itemsize = a.dtype.itemsize
    layout = Layout(a.shape, tuple(s // itemsize for s in a.strides))
    bits = 8 if name == "i1" else itemsize * 8
    lines = [f"host_ptr[{bits}b] o {layout}:"]
    pretty = _PRETTY[name].replace("ll", "")  # Python's % has no length modifiers
    values = a.astype(np.float64) if name in ("f16", "bf16") else a
    cast = int if name.startswith("i") else float

    def rows(block: Any) -> None:
        if block.ndim == 1:
            lines.extend(pretty % cast(v) for v in block)
        else:
            lines.extend("".join(pretty % cast(v) for v in row) for row in block)

    if a.ndim <= 2:
        rows(values)
    else:
        for k in _indices(a.shape[2:]):
            rows(values[(slice(None), slice(None), *k)])
            lines.append("----------")
    return "\n".join(lines) + "\n"
