"""Hypothesis strategies for the fuzzer's random layout programs (``fuzz_programs.Program``).

Sizes stay small (a few thousand elements, at most 128 threads per block, at most 64 values per
thread) so that a kernel compiles in a fraction of a second and runs on the CPU runtime in
milliseconds. Tiles are built so that every partition is a bijection of the tile (see
fuzz_programs.py); what varies is everything the compiler must get right: nested shapes,
permuted and padded strides, broadcast (stride-0) sources, swizzled shared memory, thread
layouts of every partitioner, vector widths of copy atoms, element types and base offsets.
"""

from __future__ import annotations

import math
from typing import Any

import layoutc as lc
import numpy as np
from fuzz_programs import DTYPES, Partition, Program
from hypothesis import strategies as st

ELEM_BITS = {"f32": 32, "f16": 16, "i32": 32, "f64": 64}
MAX_THREADS = 128
MAX_VALUES = 64


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@st.composite
def nested_mode(draw: Any, extent: int, tile: int) -> Any:
    """A shape of ``extent`` elements, maybe nested as ``(a, rest)`` with ``a | tile`` (so
    that ``local_tile`` by ``tile`` stays admissible), recursively."""
    if extent == 1 or not draw(st.booleans()):
        return extent
    inner = [d for d in _divisors(tile) if 1 < d < extent]
    if not inner:
        return extent
    a = draw(st.sampled_from(inner))
    rest = draw(nested_mode(extent // a, max(tile // a, 1)))
    return (a, rest)


def _leaves(shape: Any) -> list[int]:
    if isinstance(shape, int):
        return [shape]
    return [x for s in shape for x in _leaves(s)]


def _rebuild(shape: Any, it: Any) -> Any:
    if isinstance(shape, int):
        return next(it)
    return tuple(_rebuild(s, it) for s in shape)


@st.composite
def strides_for(draw: Any, shape: Any, broadcast: bool = False) -> Any:
    """Injective strides for ``shape`` (compact in a random leaf order, with padding between
    leaves), or with one stride-0 leaf when ``broadcast``."""
    leaves = _leaves(shape)
    ordered = draw(st.booleans())  # compact column-major order: the vectorizable case
    order = list(range(len(leaves))) if ordered else draw(st.permutations(range(len(leaves))))
    strides = [0] * len(leaves)
    running = 1
    for k in order:
        strides[k] = running
        running *= leaves[k]
        running += draw(st.sampled_from([0, 0, 0, 0, 1, 3, 4])) if leaves[k] > 1 else 0
    if broadcast:
        candidates = [k for k, n in enumerate(leaves) if n > 1]
        if candidates:
            strides[draw(st.sampled_from(candidates))] = 0
    return _rebuild(shape, iter(strides))


@st.composite
def tv_layout(draw: Any, tile_size: int, threads: int, values_first: bool = False) -> Any:
    """A bijection (thread, value) -> [0, tile_size): the prime factors of each side grouped
    into modes, strides compact in a random order of all modes."""

    def chunks(n: int) -> list[int]:
        factors = draw(st.permutations(_prime_factors(n)))
        out: list[int] = []
        for f in factors:
            if out and draw(st.booleans()):
                out[-1] *= f
            else:
                out.append(f)
        return out or [1]

    thr, val = chunks(threads), chunks(tile_size // threads)
    modes = [("t", n) for n in thr] + [("v", n) for n in val]
    order = draw(st.permutations(range(len(modes))))
    if values_first or draw(st.booleans()):  # a thread's values contiguous: vector accesses
        order = [k for k in order if modes[k][0] == "v"] + [k for k in order if modes[k][0] == "t"]
    stride = [0] * len(modes)
    running = 1
    for k in order:
        stride[k] = running if modes[k][1] > 1 else 0
        running *= modes[k][1]
    ts = tuple(stride[: len(thr)])
    vs = tuple(stride[len(thr) :])
    return lc.make_layout((tuple(thr), tuple(val)), (ts, vs))


def _compact(shape: tuple[int, ...], row_major: bool) -> Any:
    if row_major:
        return lc.make_layout(shape, tuple(math.prod(shape[i + 1 :]) for i in range(len(shape))))
    return lc.make_layout(shape)


@st.composite
def split_threads(draw: Any, tile: tuple[int, ...], threads: int, cap: tuple[int, ...]) -> Any:
    """Per-mode thread counts ``p`` with ``prod(p) == threads`` and ``p[i] | cap[i]``, or None."""
    options = []

    def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
        if i == len(tile):
            if left == 1:
                options.append(acc)
            return
        for d in _divisors(cap[i]):
            if left % d == 0:
                rec(i + 1, left // d, (*acc, d))

    rec(0, threads, ())
    return draw(st.sampled_from(options)) if options else None


@st.composite
def partition(
    draw: Any, tile: tuple[int, ...], threads: int, elem_bits: int, friendly: bool = False
) -> Partition:
    """One of the front end's partitioners over ``tile`` for ``threads`` threads (TV layouts
    with each thread's values contiguous first when ``friendly``)."""
    size = math.prod(tile)
    kinds = ["tv", "local", "zipped"] + (["tiled"] if len(tile) == 2 else [])
    kind = "tv" if friendly else draw(st.sampled_from(kinds))
    if kind == "local":
        p = draw(split_threads(tile, threads, tile))
        if p is not None:
            return Partition("local", _compact(p, draw(st.booleans())))
    elif kind == "zipped":
        p = draw(split_threads(tile, threads, tile))
        if p is not None:
            return Partition("zipped", values=tuple(t // q for t, q in zip(tile, p)))
    elif kind == "tiled":
        p = draw(split_threads(tile, threads, tile))
        if p is not None:
            rest = tuple(t // q for t, q in zip(tile, p))
            v = tuple(draw(st.sampled_from(_divisors(r))) for r in rest)
            val = _compact(v, draw(st.booleans()))
            widths = [
                k for k in _divisors(math.prod(v)) if k * elem_bits <= 128 and k & (k - 1) == 0
            ]
            k = draw(st.sampled_from(widths))
            return Partition("tiled", _compact(p, draw(st.booleans())), val, k * elem_bits)
    return Partition("tv", draw(tv_layout(size, threads, friendly)))


@st.composite
def maybe_cp_async(draw: Any, part: Partition, elem_bits: int) -> Partition:
    """A tiled copy into shared memory may use ``cp.async.ca`` (4, 8 or 16 bytes per access)
    instead of the universal atom, when its width is one of those."""
    if part.kind == "tiled" and part.atom_bits in (32, 64, 128) and draw(st.booleans()):
        return Partition(part.kind, part.layout, part.values, part.atom_bits, "cp.async.ca")
    return part


@st.composite
def smem_layout(
    draw: Any, tile: tuple[int, ...], elem_bits: int, friendly: bool = False, swizzle: bool = True
) -> Any:
    """The staging tile in shared memory: padded/permuted strides, or a swizzle over a compact
    layout whose swizzled bits stay inside the tile's offsets (column-major when ``friendly``).
    Over a tile whose size is not a power of two, the swizzle can move offsets past the
    tile's cosize (``Sw<1,2,3>`` over 42 elements reaches 45): the allocation must hold them."""
    size = math.prod(tile)
    power_of_two = size & (size - 1) == 0
    if (
        swizzle
        and (friendly or draw(st.booleans()))
        and size >= 8
        and (power_of_two or not friendly)
    ):
        inner = _compact(tile, not friendly and draw(st.booleans()))
        top = (size - 1).bit_length()  # bits of the largest offset (2**top elements if a power)
        if power_of_two:
            b = draw(st.integers(1, max(1, top // 2)))
            s = draw(st.integers(b, max(b, top - b)))
            m = draw(st.integers(0, max(0, top - b - s)))
        else:  # the ZZZ bit above the size's power-of-two factor: offsets land past the cosize
            low = (size & -size).bit_length() - 1
            b = 1
            m = draw(st.integers(low, max(low, top - 2)))
            s = draw(st.integers(1, max(1, top - 1 - m)))
        if b + m + s <= top:
            return lc.composition(lc.Swizzle(b, m, s), inner)
    shape = tuple(draw(nested_mode(t, t)) for t in tile)
    return lc.make_layout(shape, draw(strides_for(shape)))


@st.composite
def tile_and_grid(draw: Any, max_tile: int = 256) -> tuple[tuple[int, ...], tuple[int, ...]]:
    rank = draw(st.sampled_from([1, 2, 2, 3]))
    if rank == 1:
        tile = (draw(st.sampled_from([4, 8, 16, 32, 64, 128, 256, 12, 48])),)
    elif rank == 2:
        tile = tuple(draw(st.sampled_from([1, 2, 4, 8, 16, 32, 6])) for _ in range(2))
    else:
        tile = tuple(draw(st.sampled_from([1, 2, 4, 8, 3])) for _ in range(3))
    if math.prod(tile) > max_tile or math.prod(tile) < 2:
        tile = (max_tile // 2,)
    grid = tuple(draw(st.integers(1, 3)) for _ in tile)
    return tile, grid


@st.composite
def threads_for(draw: Any, size: int) -> int:
    choices = [d for d in _divisors(size) if d <= MAX_THREADS and size // d <= MAX_VALUES]
    return draw(st.sampled_from(choices))


@st.composite
def static_programs(
    draw: Any, ops: tuple[str, ...] = ("copy",), dtypes: tuple[str, ...] = tuple(DTYPES)
) -> tuple[Program, tuple[int, ...], int, int]:
    """(program, grid, source element offset, destination element offset); copies also move
    their pointers by ``prog.shift`` elements."""
    op = draw(st.sampled_from(ops))
    dtype = draw(st.sampled_from(dtypes))
    bits = ELEM_BITS[dtype]
    tile, grid = draw(tile_and_grid())
    extents = tuple(t * g for t, g in zip(tile, grid))
    # A third of the programs are vector-friendly: compact column-major tensors and tiles,
    # aligned pointers, a thread's values contiguous: the paths of 64- and 128-bit accesses
    # (through swizzles too) that random strides rarely reach.
    friendly = draw(st.integers(0, 2)) == 0
    if friendly:
        src = dst = lc.make_layout(extents)
    else:
        shape_s = tuple(draw(nested_mode(n, t)) for n, t in zip(extents, tile))
        shape_d = tuple(draw(nested_mode(n, t)) for n, t in zip(extents, tile))
        broadcast = op in ("copy", "axpby") and draw(st.integers(0, 3)) == 0
        src = lc.make_layout(shape_s, draw(strides_for(shape_s, broadcast)))
        dst = lc.make_layout(shape_d, draw(strides_for(shape_d)))
    threads = draw(threads_for(math.prod(tile)))
    part = draw(partition(tile, threads, bits, friendly))
    stage = draw(
        st.sampled_from(["none", "rmem", "smem", "dsmem"] if op == "copy" else ["none", "rmem"])
    )
    part2 = smem = None
    if stage in ("smem", "dsmem"):
        part2 = draw(partition(tile, threads, bits, friendly))
        smem = draw(smem_layout(tile, bits, friendly))
        part = draw(maybe_cp_async(part, bits))
    offset = st.sampled_from([0] if friendly else [0, 0, 0, 1, 2, 3])  # 16-byte aligned or not
    shift = draw(st.tuples(offset, offset)) if op == "copy" else (0, 0)
    view = (
        draw(st.sampled_from(["none", "coalesce", "flatten", "group"]))
        if part.kind == "tv"
        else "none"
    )
    if part2 is not None and part2.kind != "tv":
        view = "none"
    prog = Program(
        op, dtype, src, dst, tile, part, part2, stage, smem, threads, shift=shift, view=view
    )
    offs = draw(st.tuples(offset, offset))
    return prog, grid, offs[0], offs[1]


@st.composite
def array_programs(
    draw: Any, ops: tuple[str, ...] = ("copy", "copy_if"), dtypes: tuple[str, ...] = tuple(DTYPES)
) -> tuple[Program, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int]:
    """(program, extents, source strides, destination strides, source and destination element
    offsets): numpy views whose extents and strides are run-time values of the kernel.

    ``copy``: extents are multiples of the tile; ``copy_if``: the last tile is ragged.
    Strides: row- or column-major, leading dimensions padded, the source maybe broadcast.
    """
    op = draw(st.sampled_from(ops))
    dtype = draw(st.sampled_from(dtypes))
    bits = ELEM_BITS[dtype]
    tile, grid = draw(tile_and_grid())
    if op != "copy_if":
        extents = tuple(t * g for t, g in zip(tile, grid))
    else:
        extents = tuple(t * (g - 1) + draw(st.integers(1, t)) for t, g in zip(tile, grid))

    friendly = draw(st.integers(0, 2)) == 0  # compact, aligned, values contiguous (see above)

    def strides(broadcast: bool) -> tuple[int, ...]:
        order = (
            list(range(len(extents))) if friendly else draw(st.permutations(range(len(extents))))
        )
        out = [0] * len(extents)
        running = 1 if friendly else draw(st.sampled_from([1, 1, 1, 2]))
        for k in order:
            out[k] = running
            running = running * extents[k] + (
                0 if friendly else draw(st.sampled_from([0, 0, 1, 4, 5]))
            )
        if broadcast:
            out[draw(st.sampled_from(range(len(extents))))] = 0
        return tuple(out)

    broadcast = not friendly and op in ("copy", "copy_if", "axpby") and draw(st.integers(0, 3)) == 0
    src_strides = strides(broadcast)
    dst_strides = strides(False)
    threads = draw(threads_for(math.prod(tile)))
    part = draw(partition(tile, threads, bits, friendly))
    stage = "none"
    part2 = smem = None
    if op == "copy":
        stage = draw(st.sampled_from(["none", "rmem", "smem", "dsmem"]))
        if stage in ("smem", "dsmem"):
            part2 = draw(partition(tile, threads, bits, friendly))
            smem = draw(smem_layout(tile, bits, friendly))
            part = draw(maybe_cp_async(part, bits))
    view = "none"
    if op == "copy" and part.kind == "tv" and (part2 is None or part2.kind == "tv"):
        view = draw(st.sampled_from(["none", "coalesce", "flatten", "group"]))
    prog = Program(op, dtype, None, None, tile, part, part2, stage, smem, threads, view=view)
    offset = st.sampled_from(
        [0] if friendly else [0, 0, 0, 1, 2, 3]
    )  # element offsets: 16-byte aligned or not
    offs = draw(st.tuples(offset, offset))
    return prog, extents, src_strides, dst_strides, offs[0], offs[1]


@st.composite
def scalar_layout_programs(
    draw: Any, ops: tuple[str, ...] = ("copy", "copy_if"), dtypes: tuple[str, ...] = tuple(DTYPES)
) -> tuple[Program, tuple[int, int], tuple[int, int], int, int]:
    """(program, (m, n), (source, destination) leading dimensions, element offsets) for
    ``scalar_layout_copy``: rank-2 tiles, extents full or ragged, leading dimensions padded."""
    op = draw(st.sampled_from(ops))
    dtype = draw(st.sampled_from(dtypes))
    tile = tuple(draw(st.sampled_from([1, 2, 4, 8, 16, 32])) for _ in range(2))
    if math.prod(tile) < 2 or math.prod(tile) > 256:
        tile = (8, 16)
    grid = tuple(draw(st.integers(1, 3)) for _ in tile)
    if op == "copy":
        m, n = (t * g for t, g in zip(tile, grid))
    else:
        m, n = (t * (g - 1) + draw(st.integers(1, t)) for t, g in zip(tile, grid))
    row_major = (draw(st.booleans()), draw(st.booleans()))
    pads = st.sampled_from([0, 0, 1, 3, 4, 8])
    lds = (n if row_major[0] else m) + draw(pads)
    ldd = (n if row_major[1] else m) + draw(pads)
    threads = draw(threads_for(math.prod(tile)))
    bits = ELEM_BITS[dtype]
    part = draw(partition(tile, threads, bits))
    stage, part2, smem = "none", None, None
    if op == "copy":
        stage = draw(st.sampled_from(["none", "rmem", "smem", "dsmem"]))
        if stage in ("smem", "dsmem"):
            part2 = draw(partition(tile, threads, bits))
            smem = draw(smem_layout(tile, bits))
    prog = Program(op, dtype, None, None, tile, part, part2, stage, smem, threads, row_major)
    offset = st.sampled_from([0, 0, 0, 1, 2, 3])
    return prog, (m, n), (lds, ldd), draw(offset), draw(offset)


def axpby_scalars(dtype: str) -> Any:
    """``(alpha, beta)`` of the tensor's kind, as numpy scalars (which keep their type): int32
    for an integer tensor (CuTe's axpby on integers takes integer scalars), float64 quarters
    for a float tensor. Small enough that ``alpha * x + beta * y`` of the oracle's inputs
    (|x| <= 1000 for i32, quarters below 16 for floats) is exact in every element type, so
    the kernel and numpy agree whatever precision the kernel computes in."""
    if dtype == "i32":
        return st.tuples(st.integers(-8, 8), st.integers(-8, 8)).map(
            lambda ab: (np.int32(ab[0]), np.int32(ab[1]))
        )
    quarter = st.integers(-8, 8).map(lambda k: np.float64(k / 4))
    return st.tuples(quarter, quarter)


def with_axpby_scalars(programs: Any) -> Any:
    """Each case of ``programs`` (its first item is the Program) with ``(alpha, beta)`` of the
    program's element type appended."""
    return programs.flatmap(lambda case: axpby_scalars(case[0].dtype).map(lambda ab: (*case, *ab)))
