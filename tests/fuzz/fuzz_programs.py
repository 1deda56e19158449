"""Random layout programs for the end-to-end fuzzer: what a program is, and the kernels that run it.

A ``Program`` is a frozen description (hashable, so it is a ``lc.Constexpr`` kernel argument and
part of the compile cache key) of one data movement through the public front end: a global
source and destination layout over one logical shape, tiled per thread block with
``local_tile``, split over threads by one of the front end's partitioners, optionally staged in
registers or shared memory, then one algorithm (copy, copy_if, axpby, fill, clear). The kernel
bodies below are ordinary front-end code whose static ``if``s pick the pieces at trace time.

Every element of the logical shape belongs to exactly one (block, thread, value): tiles divide
the shape and every partition is a bijection of the tile. So the result does not depend on the
partition, and the oracle (``fuzz_oracle.py``) is the plain elementwise map over the shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import layoutc as lc
from layoutc import _

DTYPES = {"f32": lc.f32, "f16": lc.f16, "i32": lc.i32, "f64": lc.f64}


@dataclass(frozen=True)
class Partition:
    """How a block's tile is split over its threads.

    kind:
      ``tv``        ``lc.partition_tv(tile, layout, tid)`` with a (thread, value) layout;
      ``local``     ``lc.local_partition(tile, layout, tid)`` with a thread layout;
      ``tiled``     ``make_tiled_copy(atom, layout, values).get_slice(tid).partition_S/D``;
      ``zipped``    ``lc.zipped_divide(tile, values)[_, tid]`` (one sub-tile per thread).
    """

    kind: str
    layout: Any = None  # tv / thread layout
    values: Any = None  # value layout (tiled) or sub-tile shape (zipped)
    atom_bits: int = 0  # tiled: the atom's width
    atom: str = "universal"  # tiled: the copy atom (cp.async.ca for global -> shared copies)

    def threads(self) -> int:
        if self.kind == "tv":
            return lc.size(lc.shape(self.layout)[0])
        if self.kind == "zipped":
            return 0  # filled in by the program (the number of sub-tiles)
        return lc.size(self.layout)


@dataclass(frozen=True)
class Program:
    """One random data-movement kernel (see the module docstring)."""

    op: str  # copy | copy_if | axpby | fill | clear
    dtype: str
    src: Any  # global layout of the source (static programs) or None (array programs)
    dst: Any  # global layout of the destination
    tiler: tuple[int, ...]
    part: Partition
    part2: Partition | None  # the partition that reads the staged tile back (smem staging)
    stage: str  # none | rmem | smem | dsmem (dynamic shared memory)
    smem: Any = None  # layout of the shared-memory tile (may be swizzled)
    threads: int = 32
    row_major: tuple[bool, bool] = (True, True)  # scalar_layout_copy: source, destination order
    shift: tuple[int, int] = (0, 0)  # static_copy: static element offsets of the two pointers
    view: str = "none"  # none | coalesce | flatten | group: applied to both tiles (tv partitions)


def dtype_of(prog: Program) -> Any:
    return DTYPES[prog.dtype]


def _slice(tile: Any, part: Partition, tid: Any, side: str, dtype: Any = None) -> Any:
    """Thread ``tid``'s part of ``tile`` under ``part`` (``side`` picks S or D of tiled copies)."""
    if part.kind == "tv":
        return lc.partition_tv(tile, part.layout, tid)
    if part.kind == "local":
        return lc.local_partition(tile, part.layout, tid)
    if part.kind == "zipped":
        return lc.zipped_divide(tile, part.values)[_, tid]
    tiled = _tiled(part, dtype or tile.element_type)
    thr = tiled.get_slice(tid)
    return thr.partition_S(tile) if side == "S" else thr.partition_D(tile)


def _tiled(part: Partition, dtype: Any) -> Any:
    atom = lc.make_copy_atom(part.atom, dtype, bits=part.atom_bits)
    return lc.make_tiled_copy(atom, part.layout, part.values)


def _block_coord(rank: int) -> tuple[Any, ...]:
    return (lc.block_idx.x, lc.block_idx.y, lc.block_idx.z)[:rank]


_VIEWS = {
    "none": lambda t: t,
    "coalesce": lc.coalesce,
    "flatten": lc.flatten,
    "group": lambda t: lc.group_modes(t, 0, lc.rank(t)),
}


def _move(prog: Program, gS: Any, gD: Any, tid: Any) -> None:
    """Copy the block's source tile ``gS`` to ``gD`` through the program's staging.

    A view that keeps the layout's function of the 1-D index (coalesce, flatten, grouping all
    modes) changes nothing for a TV partition, whose layout maps to 1-D tile indices."""
    gS, gD = _VIEWS[prog.view](gS), _VIEWS[prog.view](gD)
    tS = _slice(gS, prog.part, tid, "S")
    if prog.stage == "none":
        lc.copy(tS, _slice(gD, prog.part, tid, "D"))
        return
    if prog.stage == "rmem":
        staged = lc.make_fragment_like(tS)
        lc.copy(tS, staged)
        lc.copy(staged, _slice(gD, prog.part, tid, "D"))
        return
    if prog.stage == "dsmem":  # dynamic shared memory, after a small static-size pad tensor
        lc.dynamic_smem_tensor(lc.f16, lc.make_layout((3,)))
        sT = lc.dynamic_smem_tensor(dtype_of(prog), prog.smem)
    else:
        sT = lc.smem_tensor(dtype_of(prog), prog.smem)
    if prog.part.atom == "universal":
        lc.copy(tS, _slice(sT, prog.part, tid, "D"))
    else:  # cp.async: the tiled copy's atom, then wait for the group
        lc.copy(_tiled(prog.part, dtype_of(prog)), tS, _slice(sT, prog.part, tid, "D"))
        lc.cp_async_commit()
        lc.cp_async_wait(0)
    lc.syncthreads()
    lc.copy(_slice(sT, prog.part2, tid, "S"), _slice(gD, prog.part2, tid, "D"))


@lc.kernel
def static_copy(src_buf: lc.Tensor, dst_buf: lc.Tensor, ks: int, kd: int, prog: lc.Constexpr):
    """Global tensors of static layouts over flat buffers, at pointers moved by a static
    (``prog.shift``) and a run-time (``ks``, ``kd``) number of elements."""
    S = lc.make_tensor(src_buf.iterator + prog.shift[0] + ks, prog.src)
    D = lc.make_tensor(dst_buf.iterator + prog.shift[1] + kd, prog.dst)
    coord = _block_coord(len(prog.tiler))
    _move(
        prog,
        lc.local_tile(S, prog.tiler, coord),
        lc.local_tile(D, prog.tiler, coord),
        lc.thread_idx.x,
    )


@lc.kernel
def static_update(x_buf: lc.Tensor, y_buf: lc.Tensor, alpha, beta, prog: lc.Constexpr):
    """``axpby`` (y = alpha x + beta y), ``fill`` (y = alpha) or ``clear`` (y = 0) over ``prog.dst``,
    through register fragments (axpby) or directly on the partitioned global tile. ``alpha`` and
    ``beta`` are numpy scalars of the tensor's kind (int32, or float64), which keep their type."""
    Y = lc.make_tensor(y_buf.iterator, prog.dst)
    tid = lc.thread_idx.x
    coord = _block_coord(len(prog.tiler))
    tY = _slice(lc.local_tile(Y, prog.tiler, coord), prog.part, tid, "D")
    if prog.op == "fill":
        lc.fill(tY, alpha)
    elif prog.op == "clear":
        lc.clear(tY)
    else:
        X = lc.make_tensor(x_buf.iterator, prog.src)
        tX = _slice(lc.local_tile(X, prog.tiler, coord), prog.part, tid, "S")
        if prog.stage == "rmem":
            rX = lc.make_fragment_like(tX)
            rY = lc.make_fragment_like(tY)
            lc.copy(tX, rX)
            lc.copy(tY, rY)
            lc.axpby(alpha, rX, beta, rY)
            lc.copy(rY, tY)
        else:
            lc.axpby(alpha, tX, beta, tY)


@lc.kernel
def array_copy(src: lc.Tensor, dst: lc.Tensor, prog: lc.Constexpr):
    """Arrays with run-time extents and strides (the spec derives them); the tiles are static.

    ``prog.op == "copy"``: the extents are multiples of the tiler (every tile is full);
    ``copy_if``: a ragged last tile, guarded by identity-tensor coordinates.
    """
    tid = lc.thread_idx.x
    coord = _block_coord(len(prog.tiler))
    gS = lc.local_tile(src, prog.tiler, coord)
    gD = lc.local_tile(dst, prog.tiler, coord)
    if prog.op == "copy":
        _move(prog, gS, gD, tid)
    else:
        cS = lc.local_tile(lc.make_identity_tensor(src.shape), prog.tiler, coord)
        tC = _slice(cS, prog.part, tid, "S", dtype_of(prog))
        lc.copy_if(
            tC, _slice(gS, prog.part, tid, "S"), _slice(gD, prog.part, tid, "D"), bounds=src.shape
        )


@lc.kernel
def array_copy_if_fragment(src: lc.Tensor, dst: lc.Tensor, prog: lc.Constexpr):
    """A ragged copy_if with the predicates written into an i1 fragment first (CuTe's tApA)."""
    tid = lc.thread_idx.x
    coord = _block_coord(len(prog.tiler))
    cS = lc.local_tile(lc.make_identity_tensor(src.shape), prog.tiler, coord)
    tC = _slice(cS, prog.part, tid, "S", dtype_of(prog))
    tS = _slice(lc.local_tile(src, prog.tiler, coord), prog.part, tid, "S")
    pred = lc.make_fragment_like(tS, lc.i1)
    for i in range(lc.size(pred)):
        pred[i] = lc.elem_less(tC[i], src.shape)
    lc.copy_if(pred, tS, _slice(lc.local_tile(dst, prog.tiler, coord), prog.part, tid, "D"))


def _matrix(buf: Any, m: Any, n: Any, ld: Any, row_major: bool) -> Any:
    """An (m, n) matrix over ``buf`` with leading dimension ``ld`` (all run-time integers)."""
    stride = (ld, 1) if row_major else (1, ld)
    return lc.make_tensor(buf.iterator, lc.make_layout((m, n), stride))


@lc.kernel
def scalar_layout_copy(
    src_buf: lc.Tensor, dst_buf: lc.Tensor, m: int, n: int, lds: int, ldd: int, prog: lc.Constexpr
):
    """Matrices whose extents and leading dimensions are kernel scalars (``lc.make_layout`` of
    dynamic integers); ``copy`` over full tiles or ``copy_if`` over a ragged last tile."""
    S = _matrix(src_buf, m, n, lds, prog.row_major[0])
    D = _matrix(dst_buf, m, n, ldd, prog.row_major[1])
    tid = lc.thread_idx.x
    coord = _block_coord(2)
    gS = lc.local_tile(S, prog.tiler, coord)
    gD = lc.local_tile(D, prog.tiler, coord)
    if prog.op == "copy":
        _move(prog, gS, gD, tid)
    else:
        cS = lc.local_tile(lc.make_identity_tensor(S.shape), prog.tiler, coord)
        tC = _slice(cS, prog.part, tid, "S", dtype_of(prog))
        lc.copy_if(
            tC, _slice(gS, prog.part, tid, "S"), _slice(gD, prog.part, tid, "D"), bounds=S.shape
        )


@lc.kernel
def array_update(x: lc.Tensor, y: lc.Tensor, alpha, beta, prog: lc.Constexpr):
    """``axpby``/``fill``/``clear`` over arrays of run-time extents and strides (full tiles)."""
    tid = lc.thread_idx.x
    coord = _block_coord(len(prog.tiler))
    tY = _slice(lc.local_tile(y, prog.tiler, coord), prog.part, tid, "D")
    if prog.op == "fill":
        lc.fill(tY, alpha)
    elif prog.op == "clear":
        lc.clear(tY)
    else:
        tX = _slice(lc.local_tile(x, prog.tiler, coord), prog.part, tid, "S")
        lc.axpby(alpha, tX, beta, tY)
