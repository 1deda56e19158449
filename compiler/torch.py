"""layoutc kernels as torch custom operators (``layoutc.torch.custom_op``).

A layoutc kernel writes into tensors it is given, as CuTe kernels do. Registered through
``torch.library.custom_op`` with a schema derived from the kernel's annotations (tensors
``Tensor``, the written ones ``Tensor(a!)``; Python scalars ``int``/``float``/``bool``), the
kernel becomes an operator that ``torch.compile`` traces as one node (no graph break) and that
``torch.library.opcheck`` accepts. The fake (meta) implementation is derived from the same
annotations: it checks each tensor's dtype and rank against the kernel's ABI, so a wrong call
fails while tracing, with the kernel's name, instead of when the compiled graph runs.

torch is imported only here (``import layoutc`` never imports it).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch

from .frontend.annotations import ConstexprAnnotation, TensorAnnotation, normalize
from .frontend.dtypes import ElementType

__all__ = ["custom_op", "schema_of"]

# layoutc element type name -> torch dtype (the types both sides have)
_TORCH_DTYPES: dict[str, Any] = {
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f32": torch.float32,
    "f64": torch.float64,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "i1": torch.bool,
}


class _Arg:
    """One kernel parameter as the operator sees it."""

    __slots__ = ("dtype", "kind", "mutated", "name", "rank")

    def __init__(self, name: str, kind: str, dtype: Any, rank: int | None, mutated: bool):
        self.name = name
        self.kind = kind  # "Tensor", "int", "float" or "bool"
        self.dtype = dtype  # torch dtype of a tensor, None when the annotation leaves it open
        self.rank = rank  # a tensor's rank when its annotation states a layout
        self.mutated = mutated


def _scalar_kind(annotation: Any, name: str, kernel: str) -> str:
    if isinstance(annotation, ConstexprAnnotation):
        annotation = annotation.type
    if annotation is bool:
        return "bool"
    if annotation is int or annotation is None:
        return "int"
    if annotation is float:
        return "float"
    if isinstance(annotation, ElementType):
        return {"float": "float", "int": "int", "bool": "bool"}.get(annotation.kind, "float")
    raise TypeError(
        f"layoutc.torch.custom_op: kernel '{kernel}' parameter {name!r} has annotation "
        f"{annotation!r}, which has no torch schema type (use lc.Tensor[...], int, float, "
        "bool, an lc element type or lc.Constexpr[...])"
    )


def _rank(layout: str | None) -> int | None:
    if layout is None:
        return None
    from layoutc.ir.algebra import parse_layout

    try:
        parsed = parse_layout(layout)
    except Exception:
        return None  # a symbolic layout text the algebra cannot read alone: rank unchecked
    shape = parsed.shape
    return len(shape) if isinstance(shape, tuple) else 1


def _arguments(kernel: Any, mutates_args: Iterable[str]) -> list[_Arg]:
    mutated = set(mutates_args)
    names = list(kernel.signature.parameters)
    unknown = mutated.difference(names)
    if unknown:
        raise TypeError(
            f"layoutc.torch.custom_op: kernel '{kernel.name}' has no parameter(s) "
            f"{sorted(unknown)} (its parameters: {', '.join(names)})"
        )
    annotations = kernel.annotations
    out = []
    for name in names:
        ann = normalize(annotations.get(name))
        if isinstance(ann, TensorAnnotation):
            dtype = None
            if ann.dtype is not None:
                dtype = _TORCH_DTYPES.get(ann.dtype.name)
                if dtype is None:
                    raise TypeError(
                        f"layoutc.torch.custom_op: kernel '{kernel.name}' parameter {name!r} "
                        f"has element type {ann.dtype.name}, which torch has no dtype for"
                    )
            out.append(_Arg(name, "Tensor", dtype, _rank(ann.layout), name in mutated))
        else:
            if name in mutated:
                raise TypeError(
                    f"layoutc.torch.custom_op: kernel '{kernel.name}' parameter {name!r} is a "
                    "scalar; only tensors can be mutated"
                )
            out.append(_Arg(name, _scalar_kind(ann, name, kernel.name), None, None, False))
    return out


def schema_of(kernel: Any, mutates_args: Iterable[str]) -> str:
    """The torch operator schema of ``kernel``: ``(Tensor x, Tensor(a!) y, float alpha) -> ()``.

    Each mutated tensor gets its own alias set, as torch requires for distinct outputs."""
    parts = []
    alias = 0
    for arg in _arguments(kernel, mutates_args):
        if arg.kind == "Tensor" and arg.mutated:
            parts.append(f"Tensor({chr(ord('a') + alias)}!) {arg.name}")
            alias += 1
        else:
            parts.append(f"{arg.kind} {arg.name}")
    return f"({', '.join(parts)}) -> ()"


def _checker(kernel_name: str, args: Sequence[_Arg]) -> Callable[..., None]:
    """The fake implementation: what the ABI says about each tensor, checked on fake tensors."""

    def fake(*values: Any) -> None:
        for arg, value in zip(args, values):
            if arg.kind != "Tensor":
                continue
            if arg.dtype is not None and value.dtype != arg.dtype:
                raise TypeError(
                    f"layoutc kernel '{kernel_name}': argument {arg.name!r} must be a "
                    f"{arg.dtype} tensor, got {value.dtype}"
                )
            if arg.rank is not None and value.dim() != arg.rank:
                raise TypeError(
                    f"layoutc kernel '{kernel_name}': argument {arg.name!r} must have rank "
                    f"{arg.rank}, got {value.dim()}"
                )

    return fake


def custom_op(
    kernel: Any,
    name: str | None = None,
    *,
    mutates_args: Iterable[str],
    grid: Any,
    block: Any = None,
    smem: Any = None,
    device_types: str | Sequence[str] | None = None,
) -> Any:
    """Register ``kernel`` as the torch operator ``name`` (default ``layoutc::<kernel name>``).

    ``mutates_args`` names the tensors the kernel writes. ``grid`` (and ``block``, ``smem``) are
    values or callables of the call's arguments, evaluated per call, like Triton's grid lambdas:
    ``grid=lambda src, dst: src.numel() // 1024``. The kernel launches on torch's current
    stream (docs/runtime.md), so the operator joins side streams and CUDA graph captures.
    Returns the operator (``torch.ops.<namespace>.<name>``'s callable wrapper).
    """
    mutated = tuple(mutates_args)
    args = _arguments(kernel, mutated)
    qualname = name or f"layoutc::{kernel.name}"
    if "::" not in qualname:
        qualname = f"layoutc::{qualname}"

    def resolve(value: Any, values: tuple[Any, ...]) -> Any:
        return value(*values) if callable(value) else value

    def impl(*values: Any) -> None:
        kernel(
            *values,
            grid=resolve(grid, values),
            block=resolve(block, values),
            smem=resolve(smem, values),
        )

    params = [inspect.Parameter(arg.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for arg in args]
    impl.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    impl.__name__ = kernel.name
    op = torch.library.custom_op(
        qualname,
        impl,
        mutates_args=mutated,
        device_types=device_types,
        schema=schema_of(kernel, mutated),
    )
    op.register_fake(_checker(kernel.name, args))
    return op
