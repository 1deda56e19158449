"""Tiled copies and tiled MMAs: CuTe's ``make_tiled_copy`` / ``make_tiled_mma`` as pure algebra.

These compute, from an atom and a thread arrangement, the thread-value (TV) layouts and the
per-thread partitions of any layout, following ``include/cute/atom/copy_atom.hpp`` and
``include/cute/atom/mma_atom.hpp`` step by step (same names, same intermediate shapes), on
the layout algebra of ``layoutc.ir.algebra``. Nothing here touches the IR: the front end wraps
these objects for tensors, and ``tile.partition_tv`` views consume the TV layouts.

Partition functions take a layout (the tensor's layout) and a thread index, which may be an
int or a symbolic integer (the thread id), and return ``(layout, offset)``: the thread's
sub-layout and the offset of its first element, as slicing a tensor does.
"""

from __future__ import annotations

from typing import Any

from ...algebra import (
    Layout,
    LayoutError,
    _,
    append,
    coalesce,
    complement,
    composition,
    idx2crd,
    logical_divide,
    logical_product,
    make_layout,
    product_each,
    raked_product,
    rank,
    right_inverse,
    size,
    slice_and_offset,
    tiled_product,
    zip_layouts,
    zipped_divide,
)
from ...algebra.inttuple import compact_col_major, crd2crd, filter_zeros_tuple, repeat
from ...algebra.layout import get, make_ordered_layout, take
from .atoms import (
    COPY_OPERATIONS,
    AtomError,
    CopyOperation,
    MMAOperation,
    copy_operation,
    cute_copy_name,
    mma_operation,
)
from .recast import recast_layout, upcast
from .spaces import element_bits

__all__ = [
    "CopyAtom",
    "ThrCopy",
    "ThrMMA",
    "make_fragment_like",
    "TiledCopy",
    "TiledMMA",
    "make_copy_atom",
    "make_tiled_copy",
    "make_tiled_copy_A",
    "make_tiled_copy_B",
    "make_tiled_copy_C",
    "make_tiled_mma",
]


# ---------------------------------------------------------------------------------------------
# register fragments
# ---------------------------------------------------------------------------------------------


def make_fragment_like(layout: Any) -> Layout:
    """CuTe's ``make_fragment_like``: a compact layout of the same shape for a register copy,
    mode 0 (the atom's values) column-major and the other modes in the order of the given
    strides, so that copying between the two keeps contiguous runs."""
    shape = layout.shape
    r = rank(layout)
    if r > 1 and all(type(x) is int for x in _leaves(shape)):
        s0, d0 = get(layout, 0).shape, get(layout, 0).stride
        mode0 = Layout(s0, compact_col_major(filter_zeros_tuple(d0, s0)))
        rest = take(layout, 1, r)
        ordered = make_ordered_layout(rest.shape, rest.stride)
        return tiled_product(mode0, ordered)
    return Layout(shape)


def _leaves(t: Any) -> list[Any]:
    if isinstance(t, tuple):
        return [x for e in t for x in _leaves(e)]
    return [t]


# ---------------------------------------------------------------------------------------------
# copy atoms
# ---------------------------------------------------------------------------------------------


class CopyAtom:
    """A copy operation applied to elements of one type (CuTe's ``Copy_Atom<Op, T>``).

    ``val_layout_src/dst/ref`` are the operation's bit layouts recast to elements: they map
    (thread, value) to an element index of the data the atom moves.
    """

    __slots__ = (
        "element",
        "element_bits",
        "op",
        "val_layout_dst",
        "val_layout_ref",
        "val_layout_src",
    )

    def __init__(self, op: CopyOperation, element: str):
        bits = element_bits(element)
        why = op.check_element_bits(bits)
        if why is not None:
            raise AtomError(why)
        self.op = op
        self.element = element
        self.element_bits = bits
        self.val_layout_src = recast_layout(op.src_bits, 1, bits)
        self.val_layout_dst = recast_layout(op.dst_bits, 1, bits)
        self.val_layout_ref = recast_layout(op.ref_bits, 1, bits)
        threads = op.num_threads
        for what, lay in (
            ("source", self.val_layout_src),
            ("destination", self.val_layout_dst),
            ("reference", self.val_layout_ref),
        ):
            if size(lay, 0) != threads:
                raise AtomError(f"atom '{op.name}' is not valid for the {what} of {element}")

    @property
    def num_threads(self) -> int:
        return self.op.num_threads

    @property
    def num_values(self) -> int:
        """Values (elements) one thread moves per instruction (CuTe's AtomNumVal)."""
        return size(self.val_layout_ref, 1)

    @property
    def num_values_src(self) -> int:
        return size(self.val_layout_src, 1)

    @property
    def num_values_dst(self) -> int:
        return size(self.val_layout_dst, 1)

    def __repr__(self) -> str:
        return f"CopyAtom({self.op.name!r}, {self.op.bits}, {self.element!r})"


def make_copy_atom(name: str | CopyOperation, bits: int | None, element: str) -> CopyAtom:
    """``Copy_Atom<Op, element>``: ``make_copy_atom("cp.async.ca", 128, "f32")``; ``bits`` may
    be None for an operation of one width (``ldmatrix.x4`` moves 128 bits per thread)."""
    if isinstance(name, CopyOperation):
        return CopyAtom(name, element)
    name, bits = cute_copy_name(name, bits)
    if bits is None:
        widths = sorted(b for n, b in COPY_OPERATIONS if n == name)
        if not widths:
            copy_operation(name, 0)  # an unknown name: the registry's error lists the known ones
        if len(widths) != 1:
            raise AtomError(
                f"copy atom '{name}' needs its width in bits (one of {', '.join(map(str, widths))})"
            )
        bits = widths[0]
    return CopyAtom(copy_operation(name, bits), element)


# ---------------------------------------------------------------------------------------------
# tiled copy
# ---------------------------------------------------------------------------------------------


def _slice(layout: Any, coord: Any) -> tuple[Any, Any]:
    return slice_and_offset(coord, layout)


def _rest_wildcards(r: int) -> Any:
    """CuTe's ``repeat<R>(_)``: ``_`` for one mode, a tuple of ``_`` otherwise."""
    return _ if r == 1 else repeat(r, _)


class TiledCopy:
    """A tiling of copy atoms over threads and values (CuTe's ``TiledCopy``).

    ``layout_tv`` maps (thread index, value index) to the coordinate (column-major index) of
    the ``tiler_mn`` tile; ``tiler_mn`` is a shape (one extent per mode) or a tuple of layouts.
    """

    __slots__ = ("atom", "layout_tv", "tiler_mn")

    def __init__(self, atom: CopyAtom, layout_tv: Layout, tiler_mn: Any):
        self.atom = atom
        self.layout_tv = layout_tv
        self.tiler_mn = tiler_mn
        thr, val = size(layout_tv, 0), size(layout_tv, 1)
        if thr % atom.num_threads != 0:
            raise AtomError(
                f"tiled copy uses {thr} threads, not a multiple of the {atom.num_threads} "
                f"threads of atom '{atom.op.name}'"
            )
        if val % atom.num_values != 0:
            raise AtomError(
                f"tiled copy gives each thread {val} values, not a multiple of the "
                f"{atom.num_values} values of atom '{atom.op.name}' on {atom.element}"
            )

    @property
    def num_threads(self) -> int:
        return size(self.layout_tv, 0)

    @property
    def num_values(self) -> int:
        return size(self.layout_tv, 1)

    def _ref2src(self) -> Layout:
        return composition(right_inverse(self.atom.val_layout_ref), self.atom.val_layout_src)

    def _ref2dst(self) -> Layout:
        return composition(right_inverse(self.atom.val_layout_ref), self.atom.val_layout_dst)

    def tile2thrfrg(self, tensor: Any, ref2trg: Layout) -> Any:
        """((TileM,TileN,...),(RestM,RestN,...)) -> (Thr,(FrgV,FrgX),(RestM,RestN,...))."""
        atom = self.atom
        atom_layout_tv = zipped_divide(self.layout_tv, (atom.num_threads, atom.num_values))
        trg_layout_tv = composition(atom_layout_tv, (ref2trg, _))
        thrval2mn = coalesce(zip_layouts(trg_layout_tv), (1, (1, 1)))
        tv_tensor = composition(tensor, (thrval2mn, _))
        return _slice(tv_tensor, ((_, _), _))[0]

    def _check_rank(self, layout: Any, what: str) -> None:
        if rank(layout) < _tiler_rank(self.tiler_mn):
            raise LayoutError(
                f"{what}: the layout {layout} has rank {rank(layout)}, less than the rank "
                f"{_tiler_rank(self.tiler_mn)} of the tiled copy's tile"
            )

    def tidfrg_S(self, layout: Any) -> Any:
        """(M,N,...) -> (Thr,(FrgV,FrgX),(RestM,RestN,...)) for the source."""
        self._check_rank(layout, "tidfrg_S")
        return self.tile2thrfrg(zipped_divide(layout, self.tiler_mn), self._ref2src())

    def tidfrg_D(self, layout: Any) -> Any:
        """(M,N,...) -> (Thr,(FrgV,FrgX),(RestM,RestN,...)) for the destination."""
        self._check_rank(layout, "tidfrg_D")
        return self.tile2thrfrg(zipped_divide(layout, self.tiler_mn), self._ref2dst())

    def _ref_tile(self) -> Layout:
        return make_layout((_tiler_shape(self.tiler_mn), 1))

    def get_layoutS_TV(self) -> Layout:
        """(thread, value) -> coordinate of the tile, for the source."""
        return _slice(self.tile2thrfrg(self._ref_tile(), self._ref2src()), (_, _, 0))[0]

    def get_layoutD_TV(self) -> Layout:
        """(thread, value) -> coordinate of the tile, for the destination."""
        return _slice(self.tile2thrfrg(self._ref_tile(), self._ref2dst()), (_, _, 0))[0]

    def partition_S(self, layout: Any, thr_idx: Any) -> tuple[Any, Any]:
        """Thread ``thr_idx``'s part of a source layout: ((FrgV,FrgX),RestM,RestN,...)."""
        frg = self.tidfrg_S(layout)
        return _slice(frg, (thr_idx, _, _rest_wildcards(rank(layout))))

    def partition_D(self, layout: Any, thr_idx: Any) -> tuple[Any, Any]:
        """Thread ``thr_idx``'s part of a destination layout."""
        frg = self.tidfrg_D(layout)
        return _slice(frg, (thr_idx, _, _rest_wildcards(rank(layout))))

    def get_slice(self, thr_idx: Any) -> ThrCopy:
        """Thread ``thr_idx``'s view (CuTe's ``get_slice``/``get_thread_slice``)."""
        return ThrCopy(self, thr_idx)

    get_thread_slice = get_slice

    def retile_steps(self, values: int, r: int) -> tuple[tuple, Layout, Any]:
        """CuTe's ``retile`` of a rank-``r`` fragment with ``values`` values in mode 0, as the
        three views it applies: ``zipped_divide`` by the returned tile, ``composition`` with
        ``(frg_layout_v, _)``, then the slice at the returned coordinate."""
        tiler_shape = _tiler_shape(self.tiler_mn)
        inv = composition(right_inverse(self.layout_tv), Layout(tiler_shape))
        frg_layout_mn = upcast(inv, self.num_threads * values)
        frg_layout_v = zipped_divide(
            logical_product(make_layout(values), right_inverse(frg_layout_mn)),
            make_layout(self.atom.num_values),
        )
        tile = (values, *product_each(frg_layout_mn.shape))
        return tile, frg_layout_v, (_, (0,) + (_,) * (r - 1))

    def retile(self, layout: Layout) -> Layout:
        """Re-tile a thread's fragment (e.g. an MMA partition) into (atom values, rest) modes
        (CuTe's ``retile_S``/``retile_D``, which use the reference layout for both)."""
        tile, frg_layout_v, coord = self.retile_steps(size(layout, 0), rank(layout))
        t_tensor = zipped_divide(layout, tile)
        v_tensor = composition(t_tensor, (frg_layout_v, _))
        return _slice(v_tensor, coord)[0]

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture: CuTe's print_latex of the tiled copy (S and D TV layouts)."""
        from ...algebra.show import tiled_copy_drawing

        try:
            tile = _tiler_shape(self.tiler_mn)
            return tiled_copy_drawing(self.get_layoutS_TV(), self.get_layoutD_TV(), tile).svg()
        except (LayoutError, TypeError, ValueError):
            return None

    def __repr__(self) -> str:
        return f"TiledCopy({self.atom!r}, layout_tv={self.layout_tv}, tiler={self.tiler_mn})"


class ThrCopy:
    """One thread of a tiled copy (CuTe's ``ThrCopy``): ``partition_S/D(layout)``."""

    __slots__ = ("thr_idx", "tiled")

    def __init__(self, tiled: TiledCopy, thr_idx: Any):
        self.tiled = tiled
        self.thr_idx = thr_idx

    def partition_S(self, layout: Any) -> tuple[Any, Any]:
        return self.tiled.partition_S(layout, self.thr_idx)

    def partition_D(self, layout: Any) -> tuple[Any, Any]:
        return self.tiled.partition_D(layout, self.thr_idx)

    def retile_S(self, layout: Layout) -> Layout:
        return self.tiled.retile(layout)

    def retile_D(self, layout: Layout) -> Layout:
        return self.tiled.retile(layout)


def _tiler_shape(tiler: Any) -> Any:
    if isinstance(tiler, tuple):
        return tuple(size(t) if isinstance(t, Layout) else t for t in tiler)
    return size(tiler) if isinstance(tiler, Layout) else tiler


def _tiler_rank(tiler: Any) -> int:
    return len(tiler) if isinstance(tiler, tuple) else 1


def _as_copy_atom(atom: Any) -> CopyAtom:
    if isinstance(atom, CopyAtom):
        return atom
    raise AtomError(
        f"expected a copy atom made by make_copy_atom(name, bits, element), got {atom!r}"
    )


def make_tiled_copy(
    atom: CopyAtom, thr_layout: Layout, val_layout: Layout | None = None
) -> TiledCopy:
    """CuTe's ``make_tiled_copy``: ``thr_layout`` maps (m,n) to a thread index and
    ``val_layout`` maps (m,n) to a value index; their raked product gives the TV layout."""
    atom = _as_copy_atom(atom)
    if val_layout is None:
        val_layout = Layout(1)
    layout_mn = raked_product(thr_layout, val_layout)
    layout_tv = composition(right_inverse(layout_mn), Layout((size(thr_layout), size(val_layout))))
    tiler = product_each(layout_mn.shape)
    return TiledCopy(atom, layout_tv, tiler)


def make_tiled_copy_A(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    """A tiled copy whose threads hold the values TiledMMA ``mma`` needs for A."""
    return TiledCopy(
        _as_copy_atom(atom), mma.get_layoutA_TV(), (mma.tile_size_mnk(0), mma.tile_size_mnk(2))
    )


def make_tiled_copy_B(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    return TiledCopy(
        _as_copy_atom(atom), mma.get_layoutB_TV(), (mma.tile_size_mnk(1), mma.tile_size_mnk(2))
    )


def make_tiled_copy_C(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    return TiledCopy(
        _as_copy_atom(atom), mma.get_layoutC_TV(), (mma.tile_size_mnk(0), mma.tile_size_mnk(1))
    )


# ---------------------------------------------------------------------------------------------
# tiled MMA
# ---------------------------------------------------------------------------------------------


class TiledMMA:
    """A tiling of MMA atoms over an (M,N,K) arrangement of atoms (CuTe's ``TiledMMA``).

    ``thr_layout_vmnk`` maps (thread-in-atom, atom-m, atom-n, atom-k) to the thread index;
    ``permutation`` holds, per mode M/N/K, ``_`` (the natural tile), an extent or a layout
    applied to that mode before tiling (CuTe's ``PermutationMNK``).
    """

    __slots__ = ("atom", "permutation", "thr_layout_vmnk")

    def __init__(self, atom: MMAOperation, atom_layout_mnk: Layout, permutation: tuple):
        self.atom = atom
        self.thr_layout_vmnk = tiled_product(atom.thr_id, atom_layout_mnk)
        self.permutation = permutation

    @property
    def num_threads(self) -> int:
        return size(self.thr_layout_vmnk)

    def permutation_mnk(self, i: int) -> Any:
        perm = self.permutation[i]
        if perm is _:
            return self.atom.shape_mnk[i] * size(self.thr_layout_vmnk, i + 1)
        return perm

    def tile_size_mnk(self, i: int) -> int:
        return size(self.permutation_mnk(i))

    def _thrfrg(self, layout: Any, modes: tuple[int, int], atom_tv: Layout) -> Any:
        if rank(layout) < 2:
            raise LayoutError(f"TiledMMA partition: the layout {layout} has rank < 2")
        i, j = modes
        t_tensor = logical_divide(layout, (self.permutation_mnk(i), self.permutation_mnk(j)))
        shape = self.atom.shape_mnk
        a_tensor = zipped_divide(t_tensor, (Layout(shape[i]), Layout(shape[j])))
        tv_tensor = composition(a_tensor, (atom_tv, _))
        vmnk = self.thr_layout_vmnk
        thr_tile = (_, (Layout(size(vmnk, i + 1)), Layout(size(vmnk, j + 1))))
        return zipped_divide(tv_tensor, thr_tile)

    def thrfrg_C(self, layout: Any) -> Any:
        """(M,N,...) -> ((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN,...)))."""
        return self._thrfrg(layout, (0, 1), self.atom.layout_c)

    def thrfrg_A(self, layout: Any) -> Any:
        """(M,K,...) -> ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK,...)))."""
        return self._thrfrg(layout, (0, 2), self.atom.layout_a)

    def thrfrg_B(self, layout: Any) -> Any:
        """(N,K,...) -> ((ThrV,(ThrN,ThrK)),(FrgV,(RestN,RestK,...)))."""
        return self._thrfrg(layout, (1, 2), self.atom.layout_b)

    def _thridx_2_thrid(self) -> Layout:
        vmnk = self.thr_layout_vmnk
        return composition(
            Layout((size(vmnk), 1), (1, 0)),
            right_inverse(make_layout(vmnk, complement(vmnk))),
        )

    def get_layoutC_TV(self) -> Layout:
        """(thread index, value) -> column-major index of the (M,N) tile."""
        ref = Layout((self.tile_size_mnk(0), self.tile_size_mnk(1)))
        return composition(self.thrfrg_C(ref), (self._thridx_2_thrid(), _))

    def get_layoutA_TV(self) -> Layout:
        """(thread index, value) -> column-major index of the (M,K) tile."""
        vmnk = self.thr_layout_vmnk
        ref = Layout((self.tile_size_mnk(0), self.tile_size_mnk(2)))
        atile = (_, (Layout((size(vmnk, 1), size(vmnk, 2)), (1, 0)), _))
        frg = composition(self.thrfrg_A(ref), (atile, _))
        return composition(frg, (self._thridx_2_thrid(), _))

    def get_layoutB_TV(self) -> Layout:
        """(thread index, value) -> column-major index of the (N,K) tile."""
        vmnk = self.thr_layout_vmnk
        ref = Layout((self.tile_size_mnk(1), self.tile_size_mnk(2)))
        btile = (_, (Layout((size(vmnk, 1), size(vmnk, 2)), (0, 1)), _))
        frg = composition(self.thrfrg_B(ref), (btile, _))
        return composition(frg, (self._thridx_2_thrid(), _))

    def thr_vmnk(self, thr_idx: Any) -> tuple[Any, Any, Any, Any]:
        """(v, m, n, k) coordinate of thread ``thr_idx`` (CuTe's ``get_flat_coord``)."""
        vmnk = self.thr_layout_vmnk
        hier = idx2crd(thr_idx, vmnk.shape, vmnk.stride)
        return crd2crd(hier, vmnk.shape, repeat(rank(vmnk), 1))

    def _partition(self, frg: Any, thr: tuple[Any, Any, Any]) -> tuple[Any, Any]:
        rest = rank(frg, 1, 1)
        coord = (thr[0], (thr[1], thr[2])), (_, _rest_wildcards(rest))
        return _slice(frg, coord)

    def partition_C(self, layout: Any, thr_idx: Any) -> tuple[Any, Any]:
        """Thread ``thr_idx``'s part of C: (FrgV, RestM, RestN, ...)."""
        v, m, n, _k = self.thr_vmnk(thr_idx)
        return self._partition(self.thrfrg_C(layout), (v, m, n))

    def partition_A(self, layout: Any, thr_idx: Any) -> tuple[Any, Any]:
        """Thread ``thr_idx``'s part of A: (FrgV, RestM, RestK, ...)."""
        v, m, _n, k = self.thr_vmnk(thr_idx)
        return self._partition(self.thrfrg_A(layout), (v, m, k))

    def partition_B(self, layout: Any, thr_idx: Any) -> tuple[Any, Any]:
        """Thread ``thr_idx``'s part of B: (FrgV, RestN, RestK, ...)."""
        v, _m, n, k = self.thr_vmnk(thr_idx)
        return self._partition(self.thrfrg_B(layout), (v, n, k))

    def partition_fragment_C(self, layout: Any, thr_idx: Any) -> Layout:
        """The register layout for thread ``thr_idx``'s C accumulators (CuTe: a compact
        column-major layout of the partition's shape)."""
        part, _offset = self.partition_C(layout, thr_idx)
        return Layout(part.shape)

    def partition_fragment_A(self, layout: Any, thr_idx: Any) -> Layout:
        """The register layout for thread ``thr_idx``'s A values (``make_fragment_like``)."""
        return make_fragment_like(self.partition_A(layout, thr_idx)[0])

    def partition_fragment_B(self, layout: Any, thr_idx: Any) -> Layout:
        return make_fragment_like(self.partition_B(layout, thr_idx)[0])

    def get_slice(self, thr_idx: Any) -> ThrMMA:
        """Thread ``thr_idx``'s view (CuTe's ``get_slice``/``get_thread_slice``)."""
        return ThrMMA(self, thr_idx)

    get_thread_slice = get_slice

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture: CuTe's print_latex of the tiled MMA (A, B and C TV layouts)."""
        from ...algebra.show import tiled_mma_drawing

        try:
            mnk = tuple(self.tile_size_mnk(i) for i in range(3))
            return tiled_mma_drawing(
                self.get_layoutA_TV(), self.get_layoutB_TV(), self.get_layoutC_TV(), mnk
            ).svg()
        except (LayoutError, TypeError, ValueError):
            return None

    def __repr__(self) -> str:
        return f"TiledMMA({self.atom.name!r}, thr_layout_vmnk={self.thr_layout_vmnk})"


class ThrMMA:
    """One thread of a tiled MMA (CuTe's ``ThrMMA``): ``partition_A/B/C(layout)`` and the
    register fragments ``partition_fragment_A/B/C(layout)``."""

    __slots__ = ("thr_idx", "tiled")

    def __init__(self, tiled: TiledMMA, thr_idx: Any):
        self.tiled = tiled
        self.thr_idx = thr_idx

    def partition_A(self, layout: Any) -> tuple[Any, Any]:
        return self.tiled.partition_A(layout, self.thr_idx)

    def partition_B(self, layout: Any) -> tuple[Any, Any]:
        return self.tiled.partition_B(layout, self.thr_idx)

    def partition_C(self, layout: Any) -> tuple[Any, Any]:
        return self.tiled.partition_C(layout, self.thr_idx)

    def partition_fragment_A(self, layout: Any) -> Layout:
        return self.tiled.partition_fragment_A(layout, self.thr_idx)

    def partition_fragment_B(self, layout: Any) -> Layout:
        return self.tiled.partition_fragment_B(layout, self.thr_idx)

    def partition_fragment_C(self, layout: Any) -> Layout:
        return self.tiled.partition_fragment_C(layout, self.thr_idx)


def make_tiled_mma(
    atom: str | MMAOperation,
    atom_layout: Layout | None = None,
    permutation: tuple | None = None,
) -> TiledMMA:
    """CuTe's ``make_tiled_mma(atom, thr_layout = (1,1,1), permutations = (_,_,_))``.

    ``atom_layout`` arranges atoms over (M,N,K) (padded to rank 3 with ``1:0``);
    ``permutation`` is a tuple of up to three entries (``_``, an extent or a layout).
    """
    op = mma_operation(atom) if isinstance(atom, str) else atom
    if atom_layout is None:
        atom_layout = Layout((1, 1, 1))
    if rank(atom_layout) > 3:
        raise AtomError(f"make_tiled_mma: the atom layout {atom_layout} has rank > 3")
    thr_layout_mnk = append(atom_layout, Layout(1, 0), 3)
    perm = tuple(permutation) if permutation is not None else ()
    if len(perm) > 3:
        raise AtomError(f"make_tiled_mma: {len(perm)} permutations given, at most 3 (M, N, K)")
    perm = perm + (_,) * (3 - len(perm))
    for i, p in enumerate(perm):
        if p is not _ and not isinstance(p, (int, Layout)):
            raise AtomError(
                f"make_tiled_mma: permutation of mode {'MNK'[i]} must be _, an extent or a "
                f"layout, got {p!r}"
            )
    return TiledMMA(op, thr_layout_mnk, perm)
