"""The layout algebra as kernels use it: on static layouts, on layouts with dynamic entries, and on
tensors.

Outside a kernel (or with plain ints) every function here is exactly the algebra's. Inside a
kernel, dynamic integers (kernel scalars, thread indices...) may appear in shapes, strides and
coordinates: they are bound to symbols, the algebra runs symbolically, and integer results come
back as dynamic values (``arith`` ops). Tensor arguments dispatch to tensor views
(``composition(tensor, tiler)`` is ``tile.composition``). This module imports nothing heavy until
a dynamic value or a tensor shows up, so ``layoutc.make_layout`` stays a light calculator call.
"""

from __future__ import annotations

from typing import Any

from ..ir import algebra


def _dynamic(x: Any) -> bool:
    """True when ``x`` holds a front-end proxy (a dynamic value or a tensor)."""
    if hasattr(x, "_lc_values"):
        return True
    if isinstance(x, (tuple, list)):
        return any(_dynamic(e) for e in x)
    return False


def _symbolic(args: tuple) -> tuple:
    from . import symbols

    return tuple(symbols.symbolize_tree(a) if _dynamic(a) else a for a in args)


def _result(x: Any) -> Any:
    """Inside a kernel, integer results over symbols bound to dynamic values become dynamic
    values (arith ops); layouts stay symbolic, and so does anything outside a kernel."""
    if not _has_symint(x) or _has_layout(x):
        return x
    from . import state, symbols

    if state.active() is None or not symbols.all_bound(x):
        return x
    return symbols.materialize_tree(x)


def _has_symint(x: Any) -> bool:
    from ..ir.algebra.symbolic import SymInt

    if isinstance(x, tuple):
        return any(_has_symint(e) for e in x)
    return isinstance(x, SymInt)


def _has_layout(x: Any) -> bool:
    if isinstance(x, tuple):
        return any(_has_layout(e) for e in x)
    return isinstance(x, algebra.Layout)


def _wrap(name: str, tensor_method: str | None = None):
    fn = getattr(algebra, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        if args and tensor_method is not None and _is_tensor(args[0]):
            return getattr(args[0], tensor_method)(*args[1:], **kwargs)
        if any(_dynamic(a) for a in args):
            args = _symbolic(args)
        return _result(fn(*args, **kwargs))

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = fn.__doc__
    return call


def _is_tensor(x: Any) -> bool:
    if not hasattr(x, "_lc_values"):
        return False
    from .tensor import Tensor

    return isinstance(x, Tensor)


def _tensor_layout(x: Any) -> Any:
    return x.layout if _is_tensor(x) else x


make_layout = _wrap("make_layout")
size = _wrap("size", "size")
cosize = _wrap("cosize")
depth = _wrap("depth")
crd2idx = _wrap("crd2idx")
idx2crd = _wrap("idx2crd")
complement = _wrap("complement")
right_inverse = _wrap("right_inverse")
left_inverse = _wrap("left_inverse")
logical_product = _wrap("logical_product")
blocked_product = _wrap("blocked_product")
raked_product = _wrap("raked_product")
tile_to_shape = _wrap("tile_to_shape")
make_identity_layout = _wrap("make_identity_layout")


make_layout_tv = _wrap("make_layout_tv")
upcast = _wrap("upcast")
downcast = _wrap("downcast")


def _bits(x: Any, what: str) -> int:
    bits = getattr(x, "bits", x)
    if type(bits) is not int:
        raise TypeError(
            f"recast_layout: {what} must be an element type (lc.f16) or bits, got {x!r}"
        )
    return bits


def recast_layout(layout: Any, old: Any, new: Any) -> Any:
    """CuTe's ``recast_layout<Old, New>(layout)``: ``old``/``new`` are element types (``lc.f16``)
    or widths in bits."""
    return _wrap("recast_layout")(layout, _bits(old, "the old type"), _bits(new, "the new type"))


def rank(x: Any, *mode: int) -> int:
    return algebra.rank(_tensor_layout(x), *mode)


def shape(x: Any, *mode: int) -> Any:
    """The shape of a layout or tensor (dynamic entries as dynamic values)."""
    if _is_tensor(x):
        x = x.layout
    if _dynamic(x):
        return _result(algebra.shape(*_symbolic((x, *mode))))
    return _result(algebra.shape(x, *mode))


def stride(x: Any, *mode: int) -> Any:
    if _is_tensor(x):
        x = x.layout
    return _result(algebra.stride(x, *mode))


def composition(a: Any, b: Any, inner: Any = None) -> Any:
    """``composition(tensor, tiler)`` is a view (``tile.composition``); else the algebra's.
    ``composition(outer, offset, inner)`` is CuTe's three-argument form, the ComposedLayout
    ``outer o offset o inner`` (a gather layout: an outer layout with a custom stride over an
    inner layout of basis strides); its parts may have dynamic entries."""
    if inner is not None:
        if _is_tensor(a) or _is_tensor(inner):
            from . import state

            raise state.error(
                "composition(outer, offset, inner) composes layouts; to view a tensor through "
                "it use lc.make_tensor(t.iterator, layout)"
            )
        return algebra.composition(*_symbolic((a, b, inner)))
    if _is_tensor(a) or _dynamic(a):
        from . import tensor

        return tensor.composition(a, b)
    return algebra.composition(a, b)


def _divide(name: str):
    fn = getattr(algebra, name)

    def call(a: Any, b: Any) -> Any:
        if _is_tensor(a):
            from . import tensor

            return getattr(tensor, name)(a, b)
        if _dynamic(a) or _dynamic(b):
            return fn(*_symbolic((a, b)))
        return fn(a, b)

    call.__name__ = name
    call.__qualname__ = name
    call.__doc__ = f"``{name}(tensor, tiler)`` is a view (``tile.{name}``); else the algebra's."
    return call


logical_divide = _divide("logical_divide")
zipped_divide = _divide("zipped_divide")
tiled_divide = _divide("tiled_divide")
flat_divide = _divide("flat_divide")


def coalesce(x: Any, profile: Any = None) -> Any:
    if _is_tensor(x):
        from . import tensor

        return tensor.coalesce_view(x, profile)
    return algebra.coalesce(x, profile)


def flatten(x: Any) -> Any:
    if _is_tensor(x):
        from . import tensor

        return tensor.flatten(x)
    return algebra.flatten(x)


def group_modes(x: Any, begin: int, end: int) -> Any:
    if _is_tensor(x):
        from . import tensor

        return tensor.group_modes(x, begin, end)
    return algebra.group(x, begin, end)
