"""Make the ``index`` width a kernel is compiled with provably hold every element offset.

Element offsets are computed in ``index`` (docs/dialects.md: index arithmetic does not wrap).
At 64 bits every offset into a real array fits. ``index_bitwidth=32`` is faster on a GPU, but an
offset past 2^31 would silently wrap to another element. So a static layout whose largest offset
does not fit is a compile error; a layout with ``?`` entries is checked at every launch against
the arrays' extents and strides (the runtime reads ``KernelSpec.index_bits``, runtime/packing.py).
Static constants are checked again where they are materialised: retyping in ``convert-to-llvm``
refuses an index constant that does not fit instead of wrapping it, and a GEP constant past i32
becomes an index operand.

``index_bitwidth="auto"`` chooses from the spec's facts (:func:`choose_index_width`): 32 when
every tensor argument provably fits (a static layout whose reach fits, or an array whose
offsets the spec records as below 2^30: ``TensorSpec.index_bits``, derived from the arrays and
part of the spec's key, so larger arrays derive another spec and compile at 64), 64 otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from layoutc.frontend.errors import CompileError
from layoutc.runtime.abi import KernelSpec
from layoutc.runtime.layout_text import leaves, parse_layout


def static_reach(layout: str) -> int:
    """The largest ``|offset|`` of a static layout: the sum of ``(extent - 1) * |stride|``."""
    shape, stride = parse_layout(layout)
    return sum(max(n - 1, 0) * abs(d) for n, d in zip(leaves(shape), leaves(stride)))  # type: ignore[operator]


def choose_index_width(spec: Any) -> int:
    """The ``"auto"`` width of a front-end spec: 32 when every tensor argument's offsets
    provably fit (with the 2^30 margin of ``TensorSpec.index_bits``), else 64."""
    from layoutc.frontend.spec import INDEX32_REACH, TensorSpec

    for _, arg in spec.args:
        if not isinstance(arg, TensorSpec) or arg.index_bits == 32:
            continue
        leaves = [*_flat(arg.shape), *_flat(arg.stride)]
        if not all(isinstance(x, int) for x in leaves):
            return 64  # a dynamic entry the spec knows nothing about
        if static_reach(arg.layout_text(symbols=False)) >= INDEX32_REACH:
            return 64
    return 32


def resolve_index_width(options: Any, spec: Any) -> Any:
    """``options`` with ``index_bitwidth="auto"`` replaced by the spec's choice."""
    if options.index_bitwidth != "auto":
        return options
    return replace(options, index_bitwidth=choose_index_width(spec))


def _flat(tree: Any) -> list[Any]:
    if isinstance(tree, tuple):
        return [x for t in tree for x in _flat(t)]
    return [tree]


def require_index_width(spec: KernelSpec, index_bitwidth: int) -> KernelSpec:
    """``spec`` stating ``index_bitwidth`` (the runtime refuses launches whose arrays reach past
    it); a :class:`CompileError` where a static layout provably does."""
    limit = (1 << (index_bitwidth - 1)) - 1
    for param in spec.params:
        if param.layout is None or param.dynamic:
            continue  # dynamic extents are checked at launch, against the arrays
        reach = static_reach(param.layout)
        if reach > limit:
            raise CompileError(
                f"kernel '{spec.name}', tensor '{param.name}' {param.layout}: element offsets "
                f"reach {reach}, past the {index_bitwidth}-bit index type's {limit}; compile "
                "with index_bitwidth=64"
            )
    return replace(spec, index_bits=index_bitwidth)
