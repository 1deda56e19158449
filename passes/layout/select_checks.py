"""Checks of user-given copy atoms against what the operands allow (shared by select-atoms and
lower-algorithms, which re-checks hand-written IR)."""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import inttuple as it
from layoutc.ir.algebra.composed import ComposedLayout
from layoutc.ir.algebra.layout import Layout, coalesce, get, rank, size
from layoutc.ir.algebra.swizzle import Swizzle

from ..analysis.proofs import prove_divisible
from ..analysis.symbolic import TensorInfo
from .loops import LoweringError

__all__ = ["check_ldmatrix", "instruction_leaves", "instruction_view"]

LDMATRIX_ROW_BYTES = 16


def check_ldmatrix(src: TensorInfo, atom: Any) -> None:
    """Each thread's value mode must be one 16-byte row, contiguous and 16-byte aligned, for
    every repetition (PTX ldmatrix: each thread names the address of a 16-byte row)."""
    e = src.element_bytes
    row = LDMATRIX_ROW_BYTES // e
    layout = src.layout
    # one instruction's row, then its repetitions (CuTe's peeling of a nested mode 0)
    k = instruction_leaves(layout, row, "shared-memory", atom.atom_name)
    layout = instruction_view(layout, k)
    offsets = [src.offset]
    if isinstance(layout, ComposedLayout):
        if not isinstance(layout.outer, Swizzle) or not isinstance(layout.inner, Layout):
            raise LoweringError(f"atom '{atom.atom_name}' cannot read a gather layout")
        if (1 << layout.outer.base) % row:
            raise LoweringError(
                f"atom '{atom.atom_name}': the swizzle {layout.outer} breaks the 16-byte rows "
                f"{atom.atom_name.split('.')[0]} accesses (it keeps runs of {1 << layout.outer.base} "
                "elements)"
            )
        offsets.append(layout.offset)
        layout = layout.inner
    mode0 = get(layout, 0) if rank(layout) > 1 else layout
    lanes = coalesce(mode0)
    if not (lanes.size() == row and (row == 1 or lanes.stride == 1)):
        raise LoweringError(
            f"atom '{atom.atom_name}' accesses one 16-byte row ({row} contiguous "
            f"{src.element.text if src.element else ''}) per thread, but the shared-memory "
            f"tensor's value mode is {mode0}"
        )
    if src.alignment < LDMATRIX_ROW_BYTES:
        raise LoweringError(
            f"atom '{atom.atom_name}' needs 16-byte aligned rows, but the source base is only "
            f"{src.alignment}-byte aligned"
        )
    strides = []
    if rank(layout) > 1:
        for i in range(1, rank(layout)):
            m = get(layout, i)
            shapes = it.flatten_to_tuple(m.shape)
            ds = it.flatten_to_tuple(m.stride)
            strides += [d for s, d in zip(shapes, ds) if not (type(s) is int and s == 1)]
    for x in (*offsets, *strides):
        if not prove_divisible(row, x):
            raise LoweringError(
                f"atom '{atom.atom_name}' needs 16-byte aligned rows, but {x} elements is not "
                f"provably a multiple of {row}"
            )


def instruction_leaves(layout: Any, values: int, side: str, atom: str) -> int:
    """CuTe's ``Copy_Atom::call``: mode 0 of a partition holds one instruction's ``values``,
    or (peeling) its first sub-mode does, recursively, and the rest of mode 0 repeats the
    instruction as modes 1.. do (``partition_D`` of a tiled copy gives ``((8,4),1,1)`` for 4
    stmatrix per thread). Returns how many leading leaves of the flattened shape make one
    instruction; value ``v`` of instruction ``r`` is then at 1-D index ``v + values * r``."""
    mode = get(layout, 0).shape if rank(layout) > 1 else layout.shape
    while True:
        n = size(mode)
        if type(n) is int and n == values:
            return len(it.flatten_to_tuple(mode)) if isinstance(mode, tuple) else 1
        if not isinstance(mode, tuple):
            whole = get(layout, 0).shape if rank(layout) > 1 else layout.shape
            raise LoweringError(
                f"atom '{atom}' moves {values} values per thread and instruction on the {side} "
                f"side, but the partition's mode 0 {it.format_tuple(whole)} does not start "
                f"with a mode of {values} (partition with a tiled copy of this atom)"
            )
        mode = mode[0]


def instruction_view(layout: Any, k: int) -> Any:
    """``layout`` as (one instruction's values, the repetitions): its first ``k`` leaves, then
    the others (the same function of the 1-D index)."""
    if isinstance(layout, ComposedLayout):
        return ComposedLayout(layout.outer, layout.offset, instruction_view(layout.inner, k))
    shapes = it.flatten_to_tuple(layout.shape)
    strides = it.flatten_to_tuple(layout.stride)

    def part(xs: tuple, fill: Any) -> Any:
        return xs[0] if len(xs) == 1 else (xs or fill)

    return Layout(
        (part(shapes[:k], 1), part(shapes[k:], 1)), (part(strides[:k], 0), part(strides[k:], 0))
    )
