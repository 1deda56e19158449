"""The fuzzer's oracle and runner: numpy results from pycute's layout functions, kernels compiled
by the driver and run on the CPU runtime, compared bit for bit with poisoned outputs.

pycute evaluates the global layouts (an implementation independent of layoutc's algebra), and
numpy does the data movement, so a wrong offset anywhere in layoutc's stack (front-end views,
the tile dialect's algebra, the symbolic passes, lowering, code generation, the CPU runtime)
shows up as a mismatch. Outputs are filled with a poison value first (a NaN payload, or a
sentinel integer), so an element that is never written is seen as well.
"""

from __future__ import annotations

import linecache
import math
import re
from typing import Any

import layoutc as lc
import numpy as np
import pycute
from fuzz_programs import (
    Program,
    array_copy,
    array_copy_if_fragment,
    array_update,
    scalar_layout_copy,
    static_copy,
    static_update,
)

NP_DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "f64": np.float64}
# A NaN with a payload no arithmetic produces, and an integer no random input contains.
POISON = {"f32": 0x7FC0DEAD, "f16": 0x7E5A, "i32": -0x5A5A5A5A, "f64": 0x7FF8DEADBEEFDEAD}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def offsets(layout: Any) -> np.ndarray:
    """``layout(i)`` for every ``i`` of its domain, evaluated by pycute."""
    py = pycute.Layout(lc.shape(layout), lc.stride(layout))
    return np.array([py(i) for i in range(pycute.size(py.shape))], dtype=np.int64)


def poisoned(dtype: str, n: int) -> np.ndarray:
    np_dtype = np.dtype(NP_DTYPES[dtype])
    out = np.empty(n, np_dtype)
    if dtype == "i32":
        out[:] = POISON[dtype]
    else:
        out.view(UINT[np_dtype.itemsize])[:] = POISON[dtype]
    return out


def random_values(dtype: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if dtype == "i32":
        return rng.integers(-1000, 1000, n).astype(np.int32)
    return rng.integers(-64, 64, n).astype(NP_DTYPES[dtype]) / 4  # exact in every float type


def axpby_reference(alpha: Any, x: np.ndarray, beta: Any, y: np.ndarray) -> np.ndarray:
    """CuTe's axpby (cute/algorithm/axpby.hpp): ``alpha * x`` alone when beta is zero (y is
    not read, so its NaNs do not propagate and ``0 * -x`` stays -0.0), else
    ``alpha * x + beta * y``."""
    return alpha * x if beta == 0 else alpha * x + beta * y


def assert_same_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Bitwise equality (so NaN poison compares equal to itself, and -0.0 differs from 0.0)."""
    u = UINT[got.dtype.itemsize]
    bad = np.nonzero(got.view(u) != want.view(u))[0]
    if bad.size:
        rows = ", ".join(f"[{i}] got {got[i]!r} want {want[i]!r}" for i in bad[:8])
        raise AssertionError(f"{what}: {bad.size} of {got.size} elements differ: {rows}")


def compile_cpu(kernel: Any, *args: Any, block: int) -> Any:
    return lc.compile(kernel, *args, target="cpu", block=block)


def grid_of(grid: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(grid)


def run_static_copy(
    prog: Program,
    grid: tuple[int, ...],
    off_s: int,
    off_d: int,
    seed: int = 0,
    ks: int = 0,
    kd: int = 0,
) -> Any:
    """Run ``static_copy`` and compare with numpy; returns the compiled kernel.

    The buffers start ``off_s``/``off_d`` elements into their allocations (the spec's pointer
    alignment), the tensors another ``prog.shift`` (static) plus ``ks``/``kd`` (run-time)."""
    rng = np.random.default_rng(seed)
    base_s, base_d = off_s + prog.shift[0] + ks, off_d + prog.shift[1] + kd
    src_idx, dst_idx = offsets(prog.src), offsets(prog.dst)
    src_full = random_values(prog.dtype, base_s + int(src_idx.max()) + 1, rng)
    dst_full = poisoned(prog.dtype, base_d + int(dst_idx.max()) + 1 + 4)
    want = dst_full.copy()
    want[base_d + dst_idx] = src_full[base_s + src_idx]
    src, dst = src_full[off_s:], dst_full[off_d:]
    ck = compile_cpu(static_copy, src, dst, ks, kd, prog, block=prog.threads)
    check_vector_claims(ck, src_full[base_s:], dst_full[base_d:])
    check_shared_memory(ck, prog)
    ck(src, dst, ks, kd, prog, grid=grid_of(grid))
    assert_same_bits(dst_full, want, "copy destination")
    return ck


def run_static_update(
    prog: Program,
    grid: tuple[int, ...],
    off_s: int,
    off_d: int,
    alpha: np.number,
    beta: np.number,
    seed: int = 0,
) -> Any:
    """Run ``static_update`` (axpby, fill, clear) and compare with numpy."""
    rng = np.random.default_rng(seed)
    np_dtype = NP_DTYPES[prog.dtype]
    src_idx, dst_idx = offsets(prog.src), offsets(prog.dst)
    x_full = random_values(prog.dtype, off_s + int(src_idx.max()) + 1, rng)
    y_full = poisoned(prog.dtype, off_d + int(dst_idx.max()) + 1 + 4)
    y_full[off_d + dst_idx] = random_values(prog.dtype, dst_idx.size, rng)
    want = y_full.copy()
    if prog.op == "fill":
        want[off_d + dst_idx] = np_dtype(alpha)
    elif prog.op == "clear":
        want[off_d + dst_idx] = 0
    else:
        x = x_full[off_s + src_idx].astype(np.float64)
        y = y_full[off_d + dst_idx].astype(np.float64)
        want[off_d + dst_idx] = axpby_reference(alpha, x, beta, y).astype(np_dtype)
    x, y = x_full[off_s:], y_full[off_d:]
    ck = compile_cpu(static_update, x, y, alpha, beta, prog, block=prog.threads)
    check_vector_claims(ck, x, y)
    ck(x, y, alpha, beta, prog, grid=grid_of(grid))
    assert_same_bits(y_full, want, f"{prog.op} destination")
    return ck


def strided_view(
    buf: np.ndarray, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]
) -> np.ndarray:
    """``buf[offset:]`` seen with element ``strides``."""
    item = buf.itemsize
    return np.lib.stride_tricks.as_strided(
        buf[offset:], shape=shape, strides=tuple(s * item for s in strides), writeable=True
    )


def run_array_copy(
    prog: Program,
    extents: tuple[int, ...],
    src_strides: tuple[int, ...],
    dst_strides: tuple[int, ...],
    off_s: int,
    off_d: int,
    fragment_predicates: bool = False,
    seed: int = 0,
) -> Any:
    """Run ``array_copy`` (or the i1-fragment copy_if) on strided numpy views; compare."""
    rng = np.random.default_rng(seed)

    def span(strides: tuple[int, ...]) -> int:
        return sum((n - 1) * s for n, s in zip(extents, strides)) + 1

    src_full = random_values(prog.dtype, off_s + span(src_strides), rng)
    dst_full = poisoned(prog.dtype, off_d + span(dst_strides) + 4)
    src = strided_view(src_full, off_s, extents, src_strides)
    dst = strided_view(dst_full, off_d, extents, dst_strides)
    want_full = dst_full.copy()
    strided_view(want_full, off_d, extents, dst_strides)[...] = src
    kernel = array_copy_if_fragment if fragment_predicates else array_copy
    ck = compile_cpu(kernel, src, dst, prog, block=prog.threads)
    grid = tuple(math.ceil(n / t) for n, t in zip(extents, prog.tiler))
    check_vector_claims(ck, src, dst)
    check_shared_memory(ck, prog)
    ck(src, dst, prog, grid=grid_of(grid))
    assert_same_bits(dst_full, want_full, f"{prog.op} destination")
    return ck


# -- vector widths: a claim may never exceed what the pointers' alignment allows -----------------

_WIDTH = re.compile(r"uses (\d+)-bit accesses")
# Names the kernels in fuzz_programs.py give the tensors over each argument.
_SOURCE_NAMES = ("tS", "tX", "gS")
_DEST_NAMES = ("gD", "tY", "tD")


def pointer_alignment(arr: np.ndarray) -> int:
    """The alignment the spec derives from a data pointer: its largest power of two, up to 16."""
    ptr = arr.ctypes.data
    return min(ptr & -ptr, 16) if ptr else 16


def check_vector_claims(ck: Any, src: np.ndarray | None, dst: np.ndarray) -> list[int]:
    """Every access width a remark claims for an operation on the source or destination is at
    most 8x the alignment of that argument's pointer (the base of every access through it).

    Returns the claimed widths. A claim above the bound is unsound: on the CPU runtime the
    access is an aligned vector instruction, which faults on a misaligned address.
    """
    widths = []
    for remark in ck.remarks:
        assert "None" not in remark.message, f"remark with a Python None: {remark}"
        m = _WIDTH.search(remark.message)
        if m is None or remark.location is None:
            continue
        bits = int(m.group(1))
        widths.append(bits)
        line = _source_line(remark.location)
        touched = []
        if src is not None and any(re.search(rf"\b{n}\b", line) for n in _SOURCE_NAMES):
            touched.append(("source", src))
        if any(re.search(rf"\b{n}\b", line) for n in _DEST_NAMES):
            touched.append(("destination", dst))
        for what, arr in touched:
            align = pointer_alignment(arr)
            assert bits <= 8 * align, (
                f"{remark.location}: {remark.message!r} but the {what}'s pointer is only "
                f"{align}-byte aligned"
            )
    return widths


def _source_line(location: str) -> str:
    path, line = location.rsplit(":", 2)[:2]
    return linecache.getline(path, int(line))


def check_shared_memory(ck: Any, prog: Program) -> None:
    """The staging tile's allocation holds every offset its (maybe swizzled) layout produces;
    a swizzle can address past the inner layout's cosize, and an overrun of shared memory
    would go unseen on the CPU."""
    if prog.stage not in ("smem", "dsmem"):
        return
    furthest = max(prog.smem(i) for i in range(lc.size(prog.smem)))
    need = (furthest + 1) * np.dtype(NP_DTYPES[prog.dtype]).itemsize
    if prog.stage == "smem":
        assert ck.runtime_spec.static_smem >= need, (prog.smem, ck.runtime_spec.static_smem)
    else:  # after the 3 f16 of padding, at the next 16 bytes
        assert ck.runtime_spec.dynamic_smem >= 16 + need, (prog.smem, ck.runtime_spec)


def run_scalar_layout_copy(
    prog: Program,
    extents: tuple[int, int],
    lds: tuple[int, int],
    off_s: int,
    off_d: int,
    seed: int = 0,
) -> Any:
    """Run ``scalar_layout_copy`` (layouts from run-time scalars) and compare with numpy."""
    rng = np.random.default_rng(seed)
    m, n = extents

    def strides(row_major: bool, ld: int) -> tuple[int, int]:
        return (ld, 1) if row_major else (1, ld)

    s_strides, d_strides = strides(prog.row_major[0], lds[0]), strides(prog.row_major[1], lds[1])

    def span(st: tuple[int, int]) -> int:
        return (m - 1) * st[0] + (n - 1) * st[1] + 1

    src_full = random_values(prog.dtype, off_s + span(s_strides), rng)
    dst_full = poisoned(prog.dtype, off_d + span(d_strides) + 4)
    want = dst_full.copy()
    strided_view(want, off_d, extents, d_strides)[...] = strided_view(
        src_full, off_s, extents, s_strides
    )
    src, dst = src_full[off_s:], dst_full[off_d:]
    args = (src, dst, m, n, lds[0], lds[1], prog)
    ck = compile_cpu(scalar_layout_copy, *args, block=prog.threads)
    check_vector_claims(ck, src, dst)
    check_shared_memory(ck, prog)
    grid = (math.ceil(m / prog.tiler[0]), math.ceil(n / prog.tiler[1]))
    ck(*args, grid=grid)
    assert_same_bits(dst_full, want, f"{prog.op} destination")
    return ck


def run_array_update(
    prog: Program,
    extents: tuple[int, ...],
    x_strides: tuple[int, ...],
    y_strides: tuple[int, ...],
    off_x: int,
    off_y: int,
    alpha: np.number,
    beta: np.number,
    seed: int = 0,
) -> Any:
    """Run ``array_update`` (axpby, fill, clear on strided views) and compare with numpy."""
    rng = np.random.default_rng(seed)
    np_dtype = NP_DTYPES[prog.dtype]

    def span(strides: tuple[int, ...]) -> int:
        return sum((n - 1) * s for n, s in zip(extents, strides)) + 1

    x_full = random_values(prog.dtype, off_x + span(x_strides), rng)
    y_full = poisoned(prog.dtype, off_y + span(y_strides) + 4)
    x = strided_view(x_full, off_x, extents, x_strides)
    y = strided_view(y_full, off_y, extents, y_strides)
    y[...] = random_values(prog.dtype, math.prod(extents), rng).reshape(extents)
    want_full = y_full.copy()
    want = strided_view(want_full, off_y, extents, y_strides)
    if prog.op == "fill":
        want[...] = np_dtype(alpha)
    elif prog.op == "clear":
        want[...] = 0
    else:
        want[...] = axpby_reference(alpha, x.astype(np.float64), beta, y.astype(np.float64)).astype(
            np_dtype
        )
    ck = compile_cpu(array_update, x, y, alpha, beta, prog, block=prog.threads)
    check_vector_claims(ck, x, y)
    grid = tuple(math.ceil(n / t) for n, t in zip(extents, prog.tiler))
    ck(x, y, alpha, beta, prog, grid=grid)
    assert_same_bits(y_full, want_full, f"{prog.op} destination")
    return ck
