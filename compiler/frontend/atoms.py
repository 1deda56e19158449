"""Copy atoms, tiled copies and tiled MMAs for kernels, over the tile dialect's pure-algebra
helpers (``layoutc.ir.dialects.tile.tiled``).

``lc.make_tiled_copy(atom, thr_layout, val_layout).get_slice(tid).partition_S(gS)`` and
``lc.make_tiled_mma(atom, atom_layout).get_slice(tid).partition_A(sA)`` are views, emitted as the
same chain of tile view ops that CuTe's ``tidfrg``/``thrfrg`` functions apply to a layout
(``zipped_divide``/``logical_divide``, ``composition`` with a by-mode tile, ``slice`` at the
thread), so the IR says what happens and every result type comes from the algebra.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra import (
    Layout,
    LayoutError,
    _,
    coalesce,
    composition,
    rank,
    right_inverse,
    size,
    zip_layouts,
    zipped_divide,
)
from ..ir.dialects import tile as T
from ..ir.dialects.layout.types import LayoutType
from ..ir.dialects.tile import tiled as tiled_algebra
from ..ir.dialects.tile.atoms import AtomError, cute_copy_name
from . import partition_bounds, scalars, state, symbols, thread_bounds
from .dtypes import ElementType
from .tensor import Tensor, _tiler_value, _view, make_fragment_like


def _atom_error(e: Exception) -> Exception:
    return state.error(str(e))


class CopyAtom:
    """A copy instruction for one element type: ``lc.make_copy_atom("cp.async.cg", lc.f32,
    bits=128)``. ``bits`` defaults to one element per access for ``"universal"`` copies and to
    the only width of single-width instructions (``ldmatrix.x4``: 128)."""

    __slots__ = ("atom", "attr", "dtype")

    def __init__(self, name: str, dtype: ElementType, bits: int | None = None):
        if not isinstance(dtype, ElementType):
            raise _atom_error(TypeError(f"make_copy_atom: expected an element type, got {dtype!r}"))
        try:
            name, bits = cute_copy_name(name, bits)
            if bits is None and name == "universal":
                bits = dtype.bits
            self.atom = tiled_algebra.make_copy_atom(name, bits, dtype.ir_type.text)
            self.attr = T.CopyAtomAttr(name, self.atom.op.bits)
        except (AtomError, ValueError) as e:
            raise _atom_error(e) from None
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"lc.CopyAtom({self.atom.op.name!r}, {self.dtype!r}, bits={self.atom.op.bits})"


def make_copy_atom(name: str, dtype: ElementType, bits: int | None = None) -> CopyAtom:
    return CopyAtom(name, dtype, bits)


class TiledCopy:
    """CuTe's ``TiledCopy``: threads and values of a tile, each moving with the atom."""

    __slots__ = ("algebra", "atom")

    def __init__(self, atom: CopyAtom, algebra: Any):
        self.atom = atom
        self.algebra = algebra

    @property
    def num_threads(self) -> int:
        return self.algebra.num_threads

    @property
    def tiler(self) -> Any:
        return self.algebra.tiler_mn

    @property
    def layout_tv(self) -> Layout:
        return self.algebra.layout_tv

    def get_slice(self, thr_idx: Any) -> ThrCopy:
        return ThrCopy(self, thr_idx)

    get_thread_slice = get_slice

    def _thrval2mn(self, target: str) -> Layout:
        # CuTe's TiledCopy::tile2thrfrg (include/cute/atom/copy_atom.hpp): the (thread, value)
        # -> tile coordinate layout of the source or destination side of the atom.
        a = self.algebra.atom
        trg = a.val_layout_src if target == "S" else a.val_layout_dst
        ref2trg = composition(right_inverse(a.val_layout_ref), trg)
        atom_tv = zipped_divide(self.algebra.layout_tv, (a.num_threads, a.num_values))
        trg_tv = composition(atom_tv, (ref2trg, _))
        return coalesce(zip_layouts(trg_tv), (1, (1, 1)))

    def retile(self, t: Any) -> Tensor:
        """CuTe's ``retile``: a thread's fragment (e.g. an MMA partition) regrouped into
        ((atom values, rest), modes...) so that copies with this tiled copy fill it in the
        order the atom delivers its values (``thr_copy.retile_D(tCrA)``)."""
        t = _require(t, "retile")
        r = t.rank()
        v = _static_size(t, "retile")
        try:
            tile, frg_layout_v, coord = self.algebra.retile_steps(v, r)
        except (AtomError, LayoutError) as e:
            raise _atom_error(e) from None
        tiled = _view(T.ZippedDivideOp, t, _tiler_value(tile, "the retile tile"))
        tv = _view(T.CompositionOp, tiled, _tiler_value((frg_layout_v, _), "the retile values"))
        return _view(T.SliceOp, tv, coord)

    def _partition(self, t: Any, thr_idx: Any, target: str) -> Tensor:
        t = _require(t, f"partition_{target}")
        if t.rank() < tiled_algebra._tiler_rank(self.tiler):
            raise state.error(
                f"partition_{target}: the tensor has rank {t.rank()}, less than the rank of the "
                f"tiled copy's tile {self.tiler}"
            )
        tile = _tiler_value(self.tiler, "a tiled copy's tile")
        thrval2mn = self._thrval2mn(target)
        what = f"partition_{target}"
        partition_bounds.check_tv_in_tile(thrval2mn, partition_bounds.tiler_size(self.tiler), what)
        partition_bounds.check_divide(t, self.tiler, what)
        tiled = _view(T.ZippedDivideOp, t, tile)
        tv = _view(T.CompositionOp, tiled, _tiler_value((thrval2mn, _), "TV"))
        view = _view(T.SliceOp, tv, ((_index(thr_idx), _), _rest(t.rank())))
        what = f"partition_{target}: the tiled copy {self.layout_tv}"
        thread_bounds.record_partition(view.value, thr_idx, self.num_threads, what)
        return view

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture (CuTe's print_latex)."""
        return self.algebra._repr_svg_()

    def __repr__(self) -> str:
        return f"lc.TiledCopy({self.atom!r}, layout_tv={self.layout_tv}, tiler={self.tiler})"


class ThrCopy:
    """One thread's view of a tiled copy (CuTe's ``ThrCopy``)."""

    __slots__ = ("thr_idx", "tiled")

    def __init__(self, tiled: TiledCopy, thr_idx: Any):
        self.tiled = tiled
        self.thr_idx = thr_idx

    def partition_S(self, t: Any) -> Tensor:
        """(CPY, CPY_M, CPY_N, ...): this thread's part of a source tensor."""
        return self.tiled._partition(t, self.thr_idx, "S")

    def partition_D(self, t: Any) -> Tensor:
        """(CPY, CPY_M, CPY_N, ...): this thread's part of a destination tensor."""
        return self.tiled._partition(t, self.thr_idx, "D")

    def retile_S(self, t: Any) -> Tensor:
        """A thread's fragment as the source of this tiled copy (CuTe's ``retile_S``)."""
        return self.tiled.retile(t)

    def retile_D(self, t: Any) -> Tensor:
        """A thread's fragment as the destination of this tiled copy (CuTe's ``retile_D``):
        ``lc.copy(tiled_copy, thr_copy.partition_S(sA), thr_copy.retile_D(tCrA))``."""
        return self.tiled.retile(t)


def make_tiled_copy(atom: CopyAtom, thr_layout: Any, val_layout: Any = None) -> TiledCopy:
    """CuTe's ``make_tiled_copy(atom, thr_layout, val_layout)``."""
    if not isinstance(atom, CopyAtom):
        raise state.error(f"make_tiled_copy expects an lc.make_copy_atom(...), got {atom!r}")
    try:
        algebra = tiled_algebra.make_tiled_copy(
            atom.atom, _layout(thr_layout), _layout(val_layout) if val_layout is not None else None
        )
    except (AtomError, ValueError) as e:
        raise _atom_error(e) from None
    return TiledCopy(atom, algebra)


def make_tiled_copy_tv(atom: CopyAtom, thr_layout: Any, val_layout: Any) -> TiledCopy:
    """CuTe DSL's ``make_tiled_copy_tv(atom, thr_layout, val_layout)``: the tiled copy whose
    (thread, value) layout and tile are ``make_layout_tv(thr_layout, val_layout)`` (C++'s
    ``make_tiled_copy(atom, thr_layout, val_layout)``)."""
    if not isinstance(atom, CopyAtom):
        raise state.error(f"make_tiled_copy_tv expects an lc.make_copy_atom(...), got {atom!r}")
    return make_tiled_copy(atom, thr_layout, val_layout)


def _tiled_copy_for(which: str, atom: Any, mma: Any) -> TiledCopy:
    if not isinstance(atom, CopyAtom):
        raise state.error(
            f"make_tiled_copy_{which} expects an lc.make_copy_atom(...) first, got {atom!r}"
        )
    if not isinstance(mma, TiledMMA):
        raise state.error(
            f"make_tiled_copy_{which} expects an lc.make_tiled_mma(...) second, got {mma!r}"
        )
    make = {
        "A": tiled_algebra.make_tiled_copy_A,
        "B": tiled_algebra.make_tiled_copy_B,
        "C": tiled_algebra.make_tiled_copy_C,
    }[which]
    try:
        return TiledCopy(atom, make(atom.atom, mma.algebra))
    except (AtomError, LayoutError, ValueError) as e:
        raise _atom_error(e) from None


def make_tiled_copy_A(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    """CuTe's ``make_tiled_copy_A``: the atom tiled so that each thread copies the A values it
    holds in the tiled MMA (e.g. ldmatrix from shared memory into the MMA's registers)."""
    return _tiled_copy_for("A", atom, mma)


def make_tiled_copy_B(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    """CuTe's ``make_tiled_copy_B``: as ``make_tiled_copy_A``, for B."""
    return _tiled_copy_for("B", atom, mma)


def make_tiled_copy_C(atom: CopyAtom, mma: TiledMMA) -> TiledCopy:
    """CuTe's ``make_tiled_copy_C``: as ``make_tiled_copy_A``, for the accumulators C."""
    return _tiled_copy_for("C", atom, mma)


def _static_size(t: Tensor, what: str) -> int:
    n = size(t.type.layout(), 0)
    if type(n) is not int:
        raise state.error(
            f"{what} needs a tensor whose mode 0 has a static size, got {t.type.text}"
        )
    return n


def _layout(x: Any) -> Layout:
    if isinstance(x, Layout):
        return x
    if isinstance(x, (int, tuple)):
        return Layout(x)
    raise state.error(f"expected a static layout or shape, got {x!r}")


def _require(t: Any, what: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise state.error(f"{what} expects a tensor, got {t!r}")
    return t


def _index(x: Any) -> Any:
    y = scalars.to_index(x, "a thread index")
    return y if isinstance(y, int) else y.value


def _rest(r: int) -> Any:
    return _ if r == 1 else tuple([_] * r)


# -------------------------------------------------------------------------------------------
# tiled MMA
# -------------------------------------------------------------------------------------------


class TiledMMA:
    """CuTe's ``TiledMMA``: MMA atoms arranged over (M, N, K) and the threads that run them."""

    __slots__ = ("algebra", "attr")

    def __init__(self, algebra: Any):
        self.algebra = algebra
        self.attr = T.MMAAtomAttr(algebra.atom.name)

    @property
    def num_threads(self) -> int:
        return self.algebra.num_threads

    def tile_size(self, mode: int) -> int:
        """The M (0), N (1) or K (2) extent one step of the tiled MMA covers."""
        return self.algebra.tile_size_mnk(mode)

    def get_slice(self, thr_idx: Any) -> ThrMMA:
        return ThrMMA(self, thr_idx)

    get_thread_slice = get_slice

    def _partition(self, t: Any, thr_idx: Any, which: str, coords: Any = None) -> Tensor:
        # CuTe's TiledMMA::thrfrg_{A,B,C} then the thread's slice (include/cute/atom/mma_atom.hpp)
        t = _require(t, f"partition_{which}")
        if t.rank() < 2:
            raise state.error(f"partition_{which}: the tensor must have rank >= 2, got {t.rank()}")
        mma = self.algebra
        modes = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}[which]
        atom_tv = {"A": mma.atom.layout_a, "B": mma.atom.layout_b, "C": mma.atom.layout_c}[which]
        i, j = modes
        shape = mma.atom.shape_mnk
        vmnk = mma.thr_layout_vmnk
        perm = (mma.permutation_mnk(i), mma.permutation_mnk(j))
        t1 = _view(T.LogicalDivideOp, t, _tiler_value(perm, "the MMA permutation"))
        atoms = (Layout(shape[i]), Layout(shape[j]))
        t2 = _view(T.ZippedDivideOp, t1, _tiler_value(atoms, "the MMA atom tile"))
        t3 = _view(T.CompositionOp, t2, _tiler_value((atom_tv, _), "the MMA atom TV layout"))
        thr_tile = (_, (Layout(size(vmnk, i + 1)), Layout(size(vmnk, j + 1))))
        t4 = _view(T.ZippedDivideOp, t3, _tiler_value(thr_tile, "the MMA thread tile"))
        v, m, n, k = coords if coords is not None else _thread_vmnk(mma, thr_idx)
        first, second = {"A": (m, k), "B": (n, k), "C": (m, n)}[which]
        rest = rank(LayoutType(t4.type.layout_text).parsed.template, 1, 1)
        coord = ((_index(v), (_index(first), _index(second))), (_, _rest(rest)))
        view = _view(T.SliceOp, t4, coord)
        what = f"partition_{which}: the tiled MMA {mma.thr_layout_vmnk}"
        thread_bounds.record_partition(view.value, thr_idx, self.num_threads, what)
        return view

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture (CuTe's print_latex)."""
        return self.algebra._repr_svg_()

    def __repr__(self) -> str:
        return f"lc.TiledMMA({self.algebra.atom.name!r}, {self.algebra.thr_layout_vmnk})"


def _thread_vmnk(mma: Any, thr_idx: Any) -> tuple[Any, Any, Any, Any]:
    """The (v, m, n, k) coordinate of a (dynamic) thread index, computed with the algebra."""
    sym = symbols.symbolize(thr_idx, "tid")
    return tuple(symbols.materialize(c) for c in mma.thr_vmnk(sym))  # type: ignore[return-value]


class ThrMMA:
    """One thread's view of a tiled MMA (CuTe's ``ThrMMA``).

    The thread's (v, m, n, k) coordinate is computed once, where the slice is made, so every
    partition of this slice (in this block or nested regions) reuses the same values.
    """

    __slots__ = ("coords", "thr_idx", "tiled")

    def __init__(self, tiled: TiledMMA, thr_idx: Any):
        self.tiled = tiled
        self.thr_idx = thr_idx
        self.coords = _thread_vmnk(tiled.algebra, thr_idx)

    def partition_A(self, t: Any) -> Tensor:
        """(MMA, MMA_M, MMA_K, ...): this thread's part of A."""
        return self.tiled._partition(t, self.thr_idx, "A", self.coords)

    def partition_B(self, t: Any) -> Tensor:
        """(MMA, MMA_N, MMA_K, ...): this thread's part of B."""
        return self.tiled._partition(t, self.thr_idx, "B", self.coords)

    def partition_C(self, t: Any) -> Tensor:
        """(MMA, MMA_M, MMA_N, ...): this thread's part of C."""
        return self.tiled._partition(t, self.thr_idx, "C", self.coords)

    def make_fragment_A(self, partitioned: Any, dtype: ElementType | None = None) -> Tensor:
        """A register fragment for a thread's partition of A (CuTe's ``make_fragment_A``)."""
        return make_fragment_like(_require(partitioned, "make_fragment_A"), dtype)

    def make_fragment_B(self, partitioned: Any, dtype: ElementType | None = None) -> Tensor:
        return make_fragment_like(_require(partitioned, "make_fragment_B"), dtype)

    def make_fragment_C(self, partitioned: Any, dtype: ElementType | None = None) -> Tensor:
        return make_fragment_like(_require(partitioned, "make_fragment_C"), dtype)

    def partition_fragment_A(self, t: Any, dtype: ElementType | None = None) -> Tensor:
        """``make_fragment_A(partition_A(t))``."""
        return self.make_fragment_A(self.partition_A(t), dtype)

    def partition_fragment_B(self, t: Any, dtype: ElementType | None = None) -> Tensor:
        return self.make_fragment_B(self.partition_B(t), dtype)

    def partition_fragment_C(self, t: Any, dtype: ElementType | None = None) -> Tensor:
        return self.make_fragment_C(self.partition_C(t), dtype)


def make_tiled_mma(atom: str, atom_layout: Any = None, permutation: Any = None) -> TiledMMA:
    """CuTe's ``make_tiled_mma(atom, atom_layout = (1,1,1), permutations = (_,_,_))``; ``atom``
    names an MMA atom (``"FMA"``, ``"SM80_16x8x8_F32TF32TF32F32_TN"``, ...)."""
    try:
        lay = _layout(atom_layout) if atom_layout is not None else None
        algebra = tiled_algebra.make_tiled_mma(atom, lay, permutation)
    except (AtomError, ValueError) as e:
        raise _atom_error(e) from None
    return TiledMMA(algebra)
