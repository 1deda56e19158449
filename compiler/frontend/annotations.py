"""Parameter annotations of kernels: ``lc.Tensor[...]`` and ``lc.Constexpr[...]``.

``lc.Tensor`` alone accepts any array; ``lc.Tensor[lc.f32]`` fixes the element type;
``lc.Tensor[lc.f32, "(N,8):(8,1)"]`` also fixes the layout's form: integers are static entries the
array must match, names are dynamic entries (a name used in several annotations, or twice in one,
is one run-time value that every array must agree on), and ``?`` is an anonymous dynamic entry.
``lc.Constexpr`` (or ``lc.Constexpr[int]``) makes the argument a compile-time constant.
"""

from __future__ import annotations

from typing import Any

from .dtypes import ElementType


class TensorAnnotation:
    """What ``lc.Tensor[...]`` evaluates to: an element type and/or a layout pattern."""

    __slots__ = ("dtype", "layout")

    def __init__(self, dtype: ElementType | None = None, layout: str | None = None):
        self.dtype = dtype
        self.layout = layout

    def __repr__(self) -> str:
        parts = [repr(self.dtype)] if self.dtype is not None else []
        if self.layout is not None:
            parts.append(repr(self.layout))
        return f"lc.Tensor[{', '.join(parts)}]" if parts else "lc.Tensor"


class _TensorMeta(type):
    def __call__(cls, *params: Any) -> TensorAnnotation:  # type: ignore[override]
        """``lc.Tensor(lc.f32, "(N,8):(8,1)")``: the same annotation as ``lc.Tensor[...]``
        (linters read string subscripts in annotations as forward references; calls they don't)."""
        if not params:
            raise TypeError(
                "lc.Tensor(...) is an annotation and takes an element type and/or a layout text; "
                "make tensors with lc.make_tensor, lc.make_fragment_like, lc.smem_tensor or "
                "lc.make_identity_tensor"
            )
        return cls[params]

    def __getitem__(cls, params: Any) -> TensorAnnotation:
        if not isinstance(params, tuple):
            params = (params,)
        dtype: ElementType | None = None
        layout: str | None = None
        for p in params:
            if isinstance(p, ElementType) and dtype is None:
                dtype = p
            elif isinstance(p, str) and layout is None:
                layout = p
            else:
                raise TypeError(
                    "lc.Tensor[...] takes an element type (lc.f32, ...) and/or a layout text such "
                    f'as "(N,8):(8,1)"; got {p!r}'
                )
        return TensorAnnotation(dtype, layout)

    def __instancecheck__(cls, obj: Any) -> bool:
        from .tensor import Tensor as TensorProxy

        return isinstance(obj, TensorProxy)


class Tensor(metaclass=_TensorMeta):
    """Annotation for tensor parameters (and ``isinstance(x, lc.Tensor)`` for tensor proxies)."""


class ConstexprAnnotation:
    __slots__ = ("type",)

    def __init__(self, type: Any = None):
        self.type = type

    def __repr__(self) -> str:
        name = getattr(self.type, "__name__", repr(self.type))
        return f"lc.Constexpr[{name}]" if self.type is not None else "lc.Constexpr"


class _ConstexprMeta(type):
    def __getitem__(cls, t: Any) -> ConstexprAnnotation:
        return ConstexprAnnotation(t)


class Constexpr(metaclass=_ConstexprMeta):
    """Annotation: the argument is a compile-time constant (its value is part of the key)."""

    def __init__(self) -> None:
        raise TypeError("lc.Constexpr is an annotation: `def k(n: lc.Constexpr[int]): ...`")


def normalize(annotation: Any) -> Any:
    """``lc.Tensor`` -> TensorAnnotation(), ``lc.Constexpr`` -> ConstexprAnnotation(); else as is."""
    if annotation is Tensor:
        return TensorAnnotation()
    if annotation is Constexpr:
        return ConstexprAnnotation()
    return annotation
