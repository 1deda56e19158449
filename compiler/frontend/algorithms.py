"""CuTe's tensor algorithms as ops: ``lc.copy``, ``lc.copy_if``, ``lc.gemm``, ``lc.axpby``,
``lc.fill``, ``lc.clear``, and the cp.async group commit/wait.

Each call is one ``tile`` op; its verifier checks CuTe's rules (equal sizes, element types, the
five gemm mode forms, what an atom allows) when the op is built, so a mismatch is reported at
the line of the call. Passes later choose vector widths and lower the algorithms to loops.
"""

from __future__ import annotations

from typing import Any

from ..ir.algebra.errors import LayoutError
from ..ir.core.types import FloatType, f32
from ..ir.dialects import tile as T
from ..ir.dialects.tile import agreement
from ..ir.dialects.tile.spaces import COORD
from ..ir.dialects.tile.value_layouts import ValueSymbols
from . import scalars, state, symbols
from .atoms import CopyAtom, TiledCopy, TiledMMA
from .errors import CompileError
from .tensor import IntTuple, Tensor, _element_value, int_tuple_value

_SIZE_HINT = (
    "dynamic sizes agree only when they are the same value: give the extents one name in both "
    'annotations (lc.Tensor[lc.f32, "(N):(1)"] for both), tile the tensor to a static size '
    "(lc.local_tile), or state its shape with lc.assume(t, shape=...)"
)


def _require_agreement(check: Any, *args: Any) -> None:
    """Run one of the tile dialect's size-agreement checks (the verifier's rule) with the front
    end's symbols, so unproven dynamic sizes are reported in the user's names with a hint."""
    try:
        why = check(*args, symbols=ValueSymbols(named=symbols.argument_symbol))
    except LayoutError:
        return  # the op's verifier reports what is wrong with the operands
    if why is not None and why.startswith("cannot prove"):
        raise CompileError(why, state.location(), [(_SIZE_HINT, None)])
    # other mismatches (static sizes that differ) are the op verifier's diagnostic


def _tensor(x: Any, what: str, fn: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise state.error(f"lc.{fn}: {what} must be a tensor, got {_describe(x)}")
    return x


def _describe(x: Any) -> str:
    describe = getattr(x, "_lc_describe", None)
    return describe() if describe is not None else f"{type(x).__name__} {x!r}"


def _copy_atom(x: Any) -> Any:
    if isinstance(x, TiledCopy):
        return x.atom.attr
    if isinstance(x, CopyAtom):
        return x.attr
    return None


def copy(*args: Any) -> None:
    """``lc.copy(src, dst)`` or ``lc.copy(atom_or_tiled_copy, src, dst)``: dst = src."""
    if len(args) == 3:
        atom = _copy_atom(args[0])
        if atom is None:
            raise state.error(
                f"lc.copy(atom, src, dst): the first argument must be a copy atom or a tiled "
                f"copy, got {_describe(args[0])}"
            )
        src, dst = args[1], args[2]
    elif len(args) == 2:
        atom, (src, dst) = None, args
    else:
        raise state.error(
            f"lc.copy takes (src, dst) or (atom, src, dst), got {len(args)} arguments"
        )
    s = _tensor(src, "the source", "copy")
    d = _tensor(dst, "the destination", "copy")
    _require_agreement(agreement.copy_problem, s.value, d.value)
    state.emit(T.CopyOp(s.value, d.value, atom=atom))


def copy_if(*args: Any, bounds: Any = None) -> None:
    """``lc.copy_if(pred, src, dst)`` / ``lc.copy_if(atom, pred, src, dst)``: dst = src where pred.

    ``pred`` is an i1 tensor shaped like ``src`` (built the CuTe way: ``pred[i] =
    lc.elem_less(tcS[i], shape)``), or a coordinate tensor plus ``bounds=`` (the residue of a
    partial tile), which compares each coordinate with the bounds.
    """
    if len(args) == 4:
        atom = _copy_atom(args[0])
        if atom is None:
            raise state.error(
                f"lc.copy_if(atom, pred, src, dst): the first argument must be a copy atom or a "
                f"tiled copy, got {_describe(args[0])}"
            )
        pred, src, dst = args[1:]
    elif len(args) == 3:
        atom, (pred, src, dst) = None, args
    else:
        raise state.error(
            f"lc.copy_if takes (pred, src, dst) or (atom, pred, src, dst), got {len(args)} arguments"
        )
    p = _tensor(pred, "the predicate", "copy_if")
    s = _tensor(src, "the source", "copy_if")
    d = _tensor(dst, "the destination", "copy_if")
    b = None
    if bounds is not None:
        if isinstance(bounds, Tensor):
            bounds = bounds.shape
        b = bounds.value if isinstance(bounds, IntTuple) else int_tuple_value(bounds)
    elif p.type.is_coord:
        raise state.error(
            "lc.copy_if with a coordinate tensor as predicate needs bounds=shape (the "
            "coordinates are compared with it)"
        )
    _require_agreement(agreement.copy_if_problem, p.value, s.value, d.value, atom is not None)
    state.emit(T.CopyIfOp(p.value, s.value, d.value, b, atom=atom))


def gemm(*args: Any, accumulate: bool = True) -> None:
    """``lc.gemm(a, b, c)`` or ``lc.gemm(tiled_mma, a, b, c)``: C += A * B (CuTe's five mode
    forms: (V)x(V)=>(V), (M)x(N)=>(M,N), (M,K)x(N,K)=>(M,N), (V,M)x(V,N)=>(V,M,N),
    (V,M,K)x(V,N,K)=>(V,M,N)). ``accumulate=False`` (warpgroup MMA atoms): C = A * B, C's
    values before it ignored (CuTe's ``GMMA::ScaleOut::Zero``: the first K-step's wgmmas get
    scale-d 0, so no accumulator is cleared first)."""
    if len(args) == 4:
        mma = args[0]
        if isinstance(mma, TiledMMA):
            atom = mma.attr
        elif isinstance(mma, str):
            atom = T.MMAAtomAttr(mma) if _known_mma(mma) else None
            if atom is None:
                raise state.error(f"lc.gemm: unknown MMA atom {mma!r}")
        else:
            raise state.error(
                f"lc.gemm(mma, a, b, c): the first argument must be a tiled MMA, got "
                f"{_describe(mma)}"
            )
        a, b, c = args[1:]
    elif len(args) == 3:
        atom, (a, b, c) = None, args
    else:
        raise state.error(f"lc.gemm takes (a, b, c) or (mma, a, b, c), got {len(args)} arguments")
    ta = _tensor(a, "A", "gemm")
    tb = _tensor(b, "B", "gemm")
    tc = _tensor(c, "C", "gemm")
    if ta.type.space != COORD and tb.type.space != COORD and tc.type.space != COORD:
        op = atom.op if atom is not None else None
        _require_agreement(agreement.gemm_problem, ta.value, tb.value, tc.value, op)
    if accumulate not in (True, False):
        raise state.error(f"lc.gemm: accumulate must be True or False, got {accumulate!r}")
    if not accumulate and (atom is None or atom.op.wgmma is None):
        raise state.error(
            "lc.gemm(..., accumulate=False) takes a warpgroup MMA (wgmma) atom, whose first "
            "K-step ignores C (scale-d 0); clear C first otherwise"
        )
    scale_d = None if accumulate else 0
    state.emit(T.GemmOp(ta.value, tb.value, tc.value, atom=atom, scale_d=scale_d))


def _known_mma(name: str) -> bool:
    try:
        T.MMAAtomAttr(name)
    except ValueError:
        return False
    return True


def axpby(alpha: Any, x: Any, beta: Any, y: Any) -> None:
    """``y = alpha * x + beta * y`` elementwise (alpha, beta: numbers or dynamic scalars).

    As CuTe's ``axpby`` (C++'s arithmetic conversions): it computes in the scalars' type when
    that is a wider float than the elements (f32 scalars on f16 tensors: f32, rounded once
    when stored) or a float where the elements are integers (converted on store, truncating
    toward zero as C++ does).
    """
    tx = _tensor(x, "x", "axpby")
    ty = _tensor(y, "y", "axpby")
    elem = ty.type.element
    if elem is None:
        raise state.error("lc.axpby: y is a coordinate tensor (it has no memory)")
    compute = _axpby_compute_type(elem, alpha, beta)
    a = _element_value(alpha, compute)
    b = _element_value(beta, compute)
    _require_agreement(agreement.axpby_problem, tx.value, ty.value)
    state.emit(T.AxpbyOp(a, tx.value, b, ty.value))


def _axpby_compute_type(elem: Any, alpha: Any, beta: Any) -> Any:
    """The type C++ computes ``alpha * x + beta * y`` in: the widest float among the elements
    and the scalars (a Python float is f32, layoutc's type for it; a Python int adapts), two
    16-bit floats of different kinds meet in f32; integers only with integer scalars."""
    floats = [elem] if isinstance(elem, FloatType) else []
    for s in (alpha, beta):
        if isinstance(s, float):
            floats.append(f32)
        elif isinstance(s, scalars.Float):
            floats.append(s.value.type)
    if not floats:
        return elem
    widest = max(floats, key=lambda t: t.width)
    if any(t.width == widest.width and t is not widest for t in floats):
        return f32 if widest.width < 32 else widest  # f16 and bf16 (or tf32 and f32)
    return widest


def fill(t: Any, value: Any) -> None:
    """Every element of ``t`` becomes ``value``."""
    tt = _tensor(t, "the tensor", "fill")
    elem = tt.type.element
    if elem is None:
        raise state.error("lc.fill: cannot fill a coordinate tensor (it has no memory)")
    state.emit(T.FillOp(tt.value, _element_value(value, elem)))


def clear(t: Any) -> None:
    """Every element of ``t`` becomes zero."""
    state.emit(T.ClearOp(_tensor(t, "the tensor", "clear").value))


def cp_async_commit() -> None:
    """Close the current group of cp.async copies (``cp.async.commit_group``)."""
    state.emit(T.CpAsyncCommitOp())


def cp_async_wait(pending: int = 0) -> None:
    """Wait until at most ``pending`` committed cp.async groups are in flight."""
    if not isinstance(pending, int) or isinstance(pending, bool) or pending < 0:
        raise state.error(f"lc.cp_async_wait needs a static non-negative int, got {pending!r}")
    state.emit(T.CpAsyncWaitOp(pending))


def assume(
    x: Any,
    divisible_by: int | None = None,
    lower: int | None = None,
    upper: int | None = None,
    *,
    shape: Any = None,
) -> Any:
    """Facts the compiler may use; a false fact is undefined behaviour, like
    ``__builtin_assume``.

    - ``lc.assume(n, divisible_by=4, lower=1)``: ``n`` with facts (``tile.assume``).
    - ``lc.assume(t, shape=s)``: the tensor ``t`` with the shape ``s`` (its own strides), for
      when its extents are known to equal ``s``'s but come from other values: copying between
      ``lc.assume(dst, shape=src.shape)`` and ``src`` is then provably in bounds.
    """
    if isinstance(x, Tensor):
        if divisible_by is not None or lower is not None or upper is not None:
            raise state.error("lc.assume(tensor, shape=...) takes a shape, not integer facts")
        if shape is None:
            raise state.error("lc.assume(tensor, ...) needs shape=: the shape the tensor has")
        return _tensor_with_shape(x, shape)
    if shape is not None:
        raise state.error(f"lc.assume(..., shape=) needs a tensor, got {_describe(x)}")
    if isinstance(x, int):
        return x
    if not isinstance(x, scalars.Int):
        raise state.error(f"lc.assume needs a dynamic integer or a tensor, got {_describe(x)}")
    op = state.emit(T.AssumeOp(x.value, divisible_by, lower, upper))
    nonneg = x.nonneg or (lower is not None and lower >= 0)
    return scalars.Int(op.results[0], nonneg)


def _tensor_with_shape(t: Tensor, shape: Any) -> Tensor:
    """``make_tensor(t.iterator, make_layout(shape, t.stride))``, checked against what is known
    of ``t``'s shape (static extents must match)."""
    from ..ir.algebra import Layout, congruent, make_layout
    from ..ir.algebra.inttuple import flatten_to_tuple, unflatten
    from .tensor import layout_value

    if t.type.is_coord:
        raise state.error("lc.assume(t, shape=...): t is a coordinate tensor (it has no memory)")
    layout = t.layout
    if not isinstance(layout, Layout):
        raise state.error(
            f"not supported: lc.assume(t, shape=...) of a swizzled or composed tensor {t.type.text}"
        )
    if isinstance(shape, Tensor):
        shape = shape.shape
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not isinstance(layout.shape, tuple):
        layout = make_layout((layout.shape,), (layout.stride,))
    wanted = symbols.symbolize_tree(shape, "s")
    if not congruent(wanted, layout.shape) and len(flatten_to_tuple(wanted)) == len(
        flatten_to_tuple(layout.shape)
    ):
        wanted = unflatten(wanted, layout.shape)  # (4,) for the shape ((4)) of a tile
    if not congruent(wanted, layout.shape):
        raise state.error(
            f"lc.assume(t, shape=...): the shape {_show(shape)} does not have the modes of the "
            f"tensor's shape {_show(t.shape)}"
        )
    for have, want in zip(flatten_to_tuple(layout.shape), flatten_to_tuple(wanted)):
        if type(have) is int and type(want) is int and have != want:
            raise state.error(
                f"lc.assume(t, shape=...): the tensor's extent {have} is not {want} (shapes "
                f"{_show(t.shape)} and {_show(shape)})"
            )
    new = layout_value(make_layout(wanted, layout.stride))
    return Tensor(state.emit(T.MakeTensorOp(t.iterator.value, new)).results[0])


def _show(x: Any) -> str:
    if isinstance(x, tuple):
        return "(" + ",".join(_show(e) for e in x) + ")"
    return str(x) if isinstance(x, int) else "?"
