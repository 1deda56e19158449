"""Argument specs written by hand: compiling without arrays (AOT builds, ``layoutc compile``).

A spec states what the compiled code may assume about one argument. The text syntax is the
same in Python (``lc.spec("f32[(N):(1)],align=16")``) and on the command line
(``--spec "src=f32[(N):(1)],align=16"``)::

    f32[(N,8):(8,1)]          a tensor: element type and CuTe layout (names and ? are dynamic)
    f32[(N):(1)],align=16     ... whose base address is a multiple of 16 bytes (the default;
                              align=4 relaxes it, e.g. for views at any element offset)
    [(N):(1)]                 the element type from the parameter's annotation
    i32  /  i32,div=4         a dynamic scalar (i32, i64, f32, f64), optionally a multiple of 4
    128  /  True  /  "row"    a compile-time constant (a Python literal)

Facts about the layout symbols (``N`` above) come from assumptions, written as for
``layoutc algebra --assume``: ``N%16==0``, ``N>=1``, or ``N:div=16,min=1``. Without one, an
extent is assumed only non-negative and a stride nothing at all. Unnamed ``?`` entries get the
front end's names (``?src.shape0``) and no facts.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from layoutc.frontend.annotations import ConstexprAnnotation, TensorAnnotation, normalize
from layoutc.frontend.dtypes import ELEMENT_TYPES, ElementType
from layoutc.frontend.spec import (
    ConstexprSpec,
    KernelSpec,
    ScalarSpec,
    SpecError,
    SymbolFacts,
    TensorSpec,
    normalize_block,
)

_SCALAR_DTYPES = ("i32", "i64", "f16", "bf16", "f32", "f64")
_TENSOR_DTYPES = ("f16", "bf16", "tf32", "f32", "f64", "i8", "i16", "i32", "i64")
_I32_MAX = (1 << 31) - 1
#: Alignment assumed of a tensor spec without ``align=``: CUDA allocators return at least 256-byte
#: aligned memory, and every launch checks the pointer (runtime/packing_facts.py), so a view at
#: an odd offset is refused with a message rather than run by code that assumed otherwise.
DEFAULT_SPEC_ALIGN = 16


@dataclass(frozen=True)
class ArgSpec:
    """One argument's spec: ``kind`` is ``tensor``, ``scalar`` or ``const``."""

    kind: str
    dtype: str | None = None
    layout: str | None = None
    align: int | None = None
    divisible_by: int | None = None
    value: Any = None

    def __str__(self) -> str:
        if self.kind == "const":
            return repr(self.value)
        parts = [(self.dtype or "") + (f"[{self.layout}]" if self.layout else "")]
        if self.align is not None:
            parts.append(f"align={self.align}")
        if self.divisible_by is not None:
            parts.append(f"div={self.divisible_by}")
        return ",".join(p for p in parts if p)


def _split_items(text: str) -> list[str]:
    """Split at commas outside brackets and parentheses."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


def _positive_int(key: str, raw: str, text: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise SpecError(f"spec {text!r}: {key}= needs an integer, got {raw!r}") from None
    if value <= 0:
        raise SpecError(f"spec {text!r}: {key}= must be positive, got {value}")
    return value


def parse_arg_spec(text: str) -> ArgSpec:
    """Parse one argument spec (module docstring); SpecError on bad text."""
    text = text.strip()
    if not text:
        raise SpecError("empty spec; expected e.g. 'f32[(N):(1)]', 'i32,div=4' or a constant")
    first = _split_items(text)[0]
    head = first.split("[", 1)[0].strip()
    if head not in ELEMENT_TYPES and not first.startswith("[") and "=" not in first:
        try:
            return ArgSpec("const", value=ast.literal_eval(text))
        except (ValueError, SyntaxError):
            raise SpecError(
                f"spec {text!r}: expected an element type ({', '.join(_TENSOR_DTYPES)}) with an "
                "optional [layout], 'align=', 'div=', or a Python literal for a constant"
            ) from None
    dtype = layout = None
    align = div = None
    for item in _split_items(text):
        key, eq, raw = item.partition("=")
        if eq:
            key = key.strip()
            if key == "align":
                align = _positive_int(key, raw.strip(), text)
                if align & (align - 1):
                    raise SpecError(f"spec {text!r}: align= must be a power of two, got {align}")
            elif key in ("div", "divisible_by"):
                div = _positive_int(key, raw.strip(), text)
            else:
                raise SpecError(f"spec {text!r}: unknown key {key!r} (expected align= or div=)")
            continue
        name, bracket, rest = item.partition("[")
        name = name.strip()
        if name:
            if name not in ELEMENT_TYPES or name == "i1":
                raise SpecError(
                    f"spec {text!r}: unknown element type {name!r}; expected one of "
                    f"{', '.join(_TENSOR_DTYPES)}"
                )
            if dtype is not None:
                raise SpecError(f"spec {text!r}: two element types")
            dtype = name
        if bracket:
            if not rest.endswith("]"):
                raise SpecError(f"spec {text!r}: the layout must end with ']'")
            layout = rest[:-1].strip()
            if not layout:
                raise SpecError(f"spec {text!r}: empty layout")
    kind = "tensor" if layout is not None or align is not None else "scalar"
    if kind == "scalar" and dtype is None:
        raise SpecError(f"spec {text!r}: give an element type")
    if kind == "tensor" and div is not None:
        raise SpecError(
            f"spec {text!r}: div= is for scalars; state facts of layout entries with "
            "assumptions (e.g. 'N%16==0')"
        )
    return ArgSpec(kind, dtype, layout, align, div)


def spec(text: str | None = None, **fields: Any) -> ArgSpec:
    """``lc.spec("f32[(N):(1)],align=16")`` or ``lc.spec(dtype="f32", layout="(N):(1)")``."""
    if text is not None:
        if fields:
            raise TypeError("lc.spec takes either a text or keyword fields, not both")
        return parse_arg_spec(text)
    kind = fields.pop("kind", None)
    if kind is None:
        kind = "tensor" if fields.get("layout") or fields.get("align") else "scalar"
    return ArgSpec(kind, **fields)


# ----------------------------------------------------------------------------------------------
# assumptions on layout symbols
# ----------------------------------------------------------------------------------------------


def parse_assumptions(items: Sequence[str] | str | None) -> dict[str, dict[str, int]]:
    """``["N%16==0", "N>=1", "M:div=8"]`` -> ``{"N": {"divisible_by": 16, "lower": 1}, ...}``."""
    if not items:
        return {}
    if isinstance(items, str):
        items = [items]
    from layoutc.cli.main import UsageError
    from layoutc.cli.main import parse_assumptions as parse

    try:
        return parse(list(items))
    except UsageError as e:
        raise SpecError(str(e).replace("--assume ", "assumption ")) from None


# ----------------------------------------------------------------------------------------------
# building a KernelSpec
# ----------------------------------------------------------------------------------------------


def _is_array(value: Any) -> bool:
    return any(
        hasattr(value, a)
        for a in ("__cuda_array_interface__", "__array_interface__", "__dlpack__", "data_ptr")
    )


def spec_of_call(
    kernel: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    block: Any = None,
    assume: Sequence[str] | str | Mapping[str, Mapping[str, int]] | None = None,
) -> KernelSpec:
    """Stage *spec* of ``layoutc.compile``: the KernelSpec for what the kernel is compiled with,
    argument specs (``lc.spec``, with ``assume``'s facts) or real arguments (arrays, scalars,
    constants: as a call derives it)."""
    if any(isinstance(a, ArgSpec) for a in (*args, *kwargs.values())):
        return build_spec(kernel, args, kwargs, block, assume)
    if assume:
        raise SpecError(
            "assume= applies to specs (lc.spec(...)); with arrays the facts come from them"
        )
    return kernel.bind(tuple(args), dict(kwargs), block)[0]


def build_spec(
    kernel: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    block: Any = None,
    assume: Sequence[str] | str | Mapping[str, Mapping[str, int]] | None = None,
) -> KernelSpec:
    """The KernelSpec of ``kernel`` for arguments given as specs (and constants/scalars)."""
    from layoutc.frontend.spec import SymbolTable, arg_spec

    try:
        bound = kernel.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise SpecError(f"kernel '{kernel.name}': {e}") from None
    bound.apply_defaults()
    facts = dict(assume) if isinstance(assume, Mapping) else parse_assumptions(assume)
    annotations = kernel.annotations
    out: list[tuple[str, Any]] = []
    symbols: dict[str, bool] = {}  # name -> is an extent
    for name, value in bound.arguments.items():
        ann = normalize(annotations.get(name, inspect.Parameter.empty))
        where = f"kernel '{kernel.name}', argument '{name}'"
        if isinstance(value, ArgSpec):
            out.append((name, _from_arg_spec(where, name, value, ann, symbols)))
        elif _is_array(value):
            raise SpecError(
                f"{where}: not supported: mixing arrays and specs in one compile; give every "
                "tensor argument as a spec (lc.spec('f32[(N):(1)]')) or every one as an array"
            )
        else:
            out.append((name, arg_spec(name, value, ann, SymbolTable(), None)))
    unknown = sorted(set(facts) - set(symbols))
    if unknown:
        known = ", ".join(sorted(s for s in symbols if not s.startswith("?"))) or "none"
        raise SpecError(
            f"kernel '{kernel.name}': assumptions about {', '.join(unknown)}, which no layout "
            f"names (layout symbols: {known})"
        )
    sym_facts = tuple(
        _symbol_facts(kernel.name, s, symbols[s], facts.get(s, {})) for s in sorted(symbols)
    )
    return KernelSpec(tuple(out), sym_facts, normalize_block(block))


def _symbol_facts(kernel: str, name: str, is_extent: bool, given: Mapping[str, int]) -> SymbolFacts:
    if "upper" in given:
        raise SpecError(
            f"kernel '{kernel}': not supported: an upper bound on the layout symbol {name} "
            "(symbols are bounded by their i32 carrier)"
        )
    lower = given.get("lower", 0 if is_extent else None)
    return SymbolFacts(name, "i32", int(given.get("divisible_by", 1)), lower)


def _from_arg_spec(
    where: str, name: str, s: ArgSpec, ann: Any, symbols: dict[str, bool]
) -> ConstexprSpec | ScalarSpec | TensorSpec:
    if s.kind == "const":
        return ConstexprSpec(s.value)
    if isinstance(ann, ConstexprAnnotation):
        raise SpecError(f"{where} is a compile-time constant (lc.Constexpr): give its value")
    if s.kind == "scalar":
        dtype = s.dtype or (ann.name if isinstance(ann, ElementType) else None)
        if dtype not in _SCALAR_DTYPES:
            raise SpecError(
                f"{where}: scalar arguments are {', '.join(_SCALAR_DTYPES)}, not {dtype}"
            )
        if isinstance(ann, ElementType) and ann.name != dtype:
            raise SpecError(f"{where} is annotated {ann!r} but the spec says {dtype}")
        if isinstance(ann, TensorAnnotation):
            raise SpecError(f"{where} is a tensor; give its layout, e.g. 'f32[(N):(1)]'")
        div = s.divisible_by or 1
        if dtype not in ("i32", "i64") and s.divisible_by is not None:
            raise SpecError(f"{where}: div= applies to integer scalars only")
        return ScalarSpec(dtype, div)
    tann = ann if isinstance(ann, TensorAnnotation) else None
    if ann is not inspect.Parameter.empty and tann is None:
        raise SpecError(f"{where} is annotated {ann!r}, not as a tensor")
    dtype = s.dtype or (tann.dtype.name if tann is not None and tann.dtype is not None else None)
    if dtype is None:
        raise SpecError(f"{where}: give the element type, e.g. 'f32[(N):(1)]'")
    if tann is not None and tann.dtype is not None and tann.dtype.abi != ELEMENT_TYPES[dtype].abi:
        raise SpecError(f"{where} is annotated {tann!r} but the spec says {dtype}")
    if tann is not None and tann.dtype is not None:
        dtype = tann.dtype.name  # tf32 data is stored as f32
    layout = s.layout or (tann.layout if tann is not None else None)
    if layout is None:
        raise SpecError(f"{where}: give the layout, e.g. '{dtype}[(N):(1)]'")
    from layoutc.frontend.spec import parse_layout_pattern

    shape, stride = parse_layout_pattern(name, layout)
    shape = tuple(_name_entry(name, "shape", i, e, symbols, True) for i, e in enumerate(shape))
    stride = tuple(_name_entry(name, "stride", i, e, symbols, False) for i, e in enumerate(stride))
    elem_bytes = max(ELEMENT_TYPES[dtype].bits // 8, 1)
    align = s.align if s.align is not None else max(DEFAULT_SPEC_ALIGN, elem_bytes)
    if align % elem_bytes:
        raise SpecError(f"{where}: align={align} is not a multiple of the {dtype} element size")
    return TensorSpec(dtype, shape, stride, min(align, 16))


def _name_entry(
    arg: str, kind: str, mode: int, entry: Any, symbols: dict[str, bool], is_extent: bool
) -> Any:
    if isinstance(entry, tuple):
        for leaf in _leaves(entry):
            if not isinstance(leaf, int):
                raise SpecError(
                    f"argument '{arg}': not supported: dynamic entries inside the nested mode "
                    f"{mode} of a layout (nested modes must be static)"
                )
        return entry
    if isinstance(entry, int):
        return entry
    name = f"?{arg}.{kind}{mode}" if entry == "?" else entry
    symbols[name] = symbols.get(name, False) or is_extent
    return name


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, tuple):
        return [x for t in tree for x in _leaves(t)]
    return [tree]
