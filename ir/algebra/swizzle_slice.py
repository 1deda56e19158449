"""Slicing a swizzled layout `Sw<B,M,S> o offset o L` (CuTe's `swizzle_layout.hpp`).

A slice fixes some coordinates. CuTe splits the fixed part of the index into the bits the
swizzle reads or writes (Y and Z) and the bits it leaves alone, folds the former into the
composed offset and returns the latter as a plain pointer offset. When the remaining (sliced)
layout touches only Y bits or only Z bits, the swizzle restricted to it is linear and the slice
decays to a plain `Layout` whose strides carry the swizzle (so that e.g. a thread's row of a
swizzled shared-memory tile is an ordinary strided layout).

Every step uses compositions with projection layouts that need power-of-two strides; when one
of them is inadmissible the caller keeps the generic composed form (same function).

Symbolic coordinates (a thread's row of a swizzled tile): CuTe carries their bits as
``MixedBits`` and XORs them into the offset, decaying to strides that depend on run-time bits.
Our integer expressions have no XOR, so ``composed_slice_and_offset`` keeps the exact generic
form ``Sw o (offset + L(diced)) o sliced`` instead, and the swizzle is emitted as XOR operations
when lowering; this module refuses symbolic values with a LayoutError.
"""

from __future__ import annotations

from typing import Any

from . import inttuple as it
from .composition import composition
from .layout import Layout, dice, size, slice_
from .swizzle import Swizzle


def _projections(sw: Swizzle) -> tuple[Layout, Layout]:
    """(anti_zy, only_zy): the index bits the swizzle leaves alone, and the bits it reads/writes."""
    b, m, s = sw.bits, sw.base, abs(sw.shift)
    shape = (1 << m, 1 << b, 1 << (s - b), 1 << b, 1)
    anti = Layout._new(shape, (1, 0, 1 << (m + b), 0, 1 << (m + b + s)))
    only = Layout._new(shape, (0, 1 << m, 0, 1 << (m + s), 0))
    return anti, only


def _xor_bits(layout: Layout, coord: Any) -> int:
    """CuTe's to_mixed_bits for static values: the XOR of every mode's coord*stride."""
    crd = it.idx2crd(coord, layout.shape)
    result = 0
    for c, d in zip(it.flatten_to_tuple(crd), it.flatten_to_tuple(layout.stride)):
        result ^= c * d
    return result


def _static_coord(coord: Any) -> bool:
    """Every entry is an int or ``_``."""
    if isinstance(coord, tuple):
        return all(_static_coord(c) for c in coord)
    return coord is it._ or type(coord) is int


def _static_layout(layout: Layout) -> bool:
    return it.all_int(it.flatten_to_tuple(layout.shape)) and it.all_int(
        it.flatten_to_tuple(layout.stride)
    )


def _swizzle_strides(z_first: bool, z: int, y: int, offset: int, bits: int) -> tuple:
    if z_first:
        return tuple(z << i if offset & (y << i) == 0 else -(z << i) for i in range(bits))
    return tuple((y + z) << i if offset & (z << i) == 0 else (y - z) << i for i in range(bits))


def disjoint_bit_fields(inner: Layout, offset: int) -> bool:
    """True when every index is `offset | inner(c)` with the modes of `inner` writing disjoint bit
    fields (power-of-two shapes and strides): CuTe's swizzle slicing reasons bit by bit and
    assumes this; where it does not hold the caller keeps the generic form."""
    used = offset
    if offset < 0:
        return False
    for s, d in zip(it.flatten_to_tuple(inner.shape), it.flatten_to_tuple(inner.stride)):
        if s == 1 or d == 0:
            continue
        if d < 0 or s & (s - 1) or d & (d - 1):
            return False
        field = (s - 1) * d
        if used & field:
            return False
        used |= field
    return True


def swizzle_slice_and_offset(
    coord: Any, sw: Swizzle, offset: int, inner: Layout
) -> tuple[Any, int]:
    """slice_and_offset of `sw o offset o inner` with a static offset and a static inner layout
    whose modes are disjoint bit fields (see disjoint_bit_fields).

    Raises LayoutError when a value is symbolic (CuTe carries dynamic bits through
    ``to_mixed_bits`` and XOR; our expressions have no XOR, so the caller keeps the exact generic
    form ``Sw o (offset + L(diced)) o sliced``) or a projection is inadmissible.
    """
    from .composed import ComposedLayout
    from .errors import LayoutError

    if not (_static_coord(coord) and type(offset) is int and _static_layout(inner)):
        raise LayoutError(
            f"swizzle slicing of {sw} o {offset} o {inner} at {it.format_tuple(coord)}: "
            "needs a static coordinate, offset and layout (a symbolic one keeps the composed form)"
        )
    sliced = slice_(coord, inner)
    diced = dice(coord, inner)
    diced_coord = it.dice_tuple(coord, coord) if isinstance(coord, tuple) else coord
    anti, only = _projections(sw)
    diced_anti = composition(anti, diced)
    diced_only = composition(only, diced)
    offset_only = offset ^ _xor_bits(diced_only, diced_coord)
    offset_anti = it.crd2idx(
        it.idx2crd(diced_coord, diced_anti.shape), diced_anti.shape, diced_anti.stride
    )
    sliced_only = composition(only, sliced)
    active = it.crd2idx(size(sliced_only) - 1, sliced_only.shape, sliced_only.stride)
    if type(active) is not int or type(offset_anti) is not int:
        raise LayoutError(f"swizzle slicing of {sw} o {offset} o {inner}: needs static values")
    if active & ~sw(active):  # the slice touches Y and Z bits: the swizzle stays
        return ComposedLayout(sw, offset_only, sliced), offset_anti
    z = sw.zzz_mask & -sw.zzz_mask
    y = sw.yyy_mask & -sw.yyy_mask
    lo = _swizzle_strides(z < y, z, y, offset_only, sw.bits)
    hi = _swizzle_strides(z > y, z, y, offset_only, sw.bits)
    m, b, s = sw.base, sw.bits, abs(sw.shift)
    two = (2,) * b
    decayed = Layout._new(
        (1 << m, two, 1 << (s - b), two, 1),
        (1, lo, 1 << (m + b), hi, 1 << (m + b + s)),
    )
    return composition(decayed, sliced), sw(offset_only) + offset_anti
