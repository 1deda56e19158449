"""Compile specs: what a kernel is specialised on, derived from annotations and call arguments.

A :class:`KernelSpec` fixes, for each parameter, everything the generated code may rely on:

- a tensor: element type, layout with static entries and named dynamic entries (symbols), base
  alignment (from the data pointer, up to 16 bytes); memory space gmem;
- a dynamic scalar: ``i32``/``i64``/``f32``/``f64`` and, for integers, divisibility;
- a compile-time constant (``lc.Constexpr``, bools, strings, layouts...): its value;

plus the facts on every symbol (the largest power of two up to 16 dividing its value, whether it
is positive, its carrier type) and the static block shape. Like Triton, dynamic values are
specialised on divisibility only, so arrays of many sizes share one compiled kernel. The spec is
hashable (``spec.key``) and has a process-independent ``fingerprint()`` for on-disk caches.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .annotations import ConstexprAnnotation, TensorAnnotation, normalize
from .call_key import typed_value
from .dtypes import ElementType, from_abi

Nested = Any  # int | str | tuple[Nested, ...]   (str: a symbol name)

_I32_MAX = (1 << 31) - 1
_I64_MAX = (1 << 63) - 1


class SpecError(TypeError):
    """A call argument does not fit the kernel's parameters (raised before any tracing)."""


@dataclass(frozen=True)
class SymbolFacts:
    """What is assumed about one dynamic layout entry (shared by every entry of that name)."""

    name: str
    dtype: str = "i32"  # the ABI type of its carrier parameters
    divisible_by: int = 1
    lower: int | None = None

    @property
    def upper(self) -> int:
        return _I32_MAX if self.dtype == "i32" else _I64_MAX


@dataclass(frozen=True)
class TensorSpec:
    dtype: str
    shape: Nested
    stride: Nested
    align: int
    space: str = "gmem"
    index_bits: int = 64
    """32 when the array's element offsets provably fit a 32-bit index with room to spare
    (below 2^30: a ragged tile's coordinates past the edge are computed too), else 64. Derived
    from arrays; a spec written by hand proves it only through static layouts."""

    def layout_text(self, symbols: bool = True) -> str:
        """``(N,8):(8,1)``, or with ``symbols=False`` the IR form ``(?,8):(8,1)``."""
        return f"{_text(self.shape, symbols)}:{_text(self.stride, symbols)}"

    def dynamic_entries(self) -> list[tuple[str, int, str]]:
        """``(kind, leaf index, symbol)`` for every dynamic entry: shape ones, then strides."""
        out = []
        for kind, tree in (("shape", self.shape), ("stride", self.stride)):
            for i, leaf in enumerate(_leaves(tree)):
                if isinstance(leaf, str):
                    out.append((kind, i, leaf))
        return out


@dataclass(frozen=True)
class ScalarSpec:
    dtype: str  # "i32", "i64", "f16", "bf16", "f32", "f64"
    divisible_by: int = 1


@dataclass(frozen=True, eq=False)
class ConstexprSpec:
    """A compile-time constant. Two are equal when their values are equal *and of equal types*
    throughout (``1``, ``1.0`` and ``True`` compare equal in Python but trace differently)."""

    value: Any

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConstexprSpec):
            return NotImplemented
        return typed_value(self.value) == typed_value(other.value)

    def __hash__(self) -> int:
        return hash(typed_value(self.value))


ArgSpec = TensorSpec | ScalarSpec | ConstexprSpec


@dataclass(frozen=True)
class KernelSpec:
    """Everything a compiled kernel is specialised on (the compile-cache key, minus options)."""

    args: tuple[tuple[str, ArgSpec], ...]
    symbols: tuple[SymbolFacts, ...] = ()
    block: tuple[int, int, int] | None = None
    _symbol_map: dict[str, SymbolFacts] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def __post_init__(self) -> None:
        self._symbol_map.update({s.name: s for s in self.symbols})

    @property
    def key(self) -> tuple:
        return (self.args, self.symbols, self.block)

    def symbol(self, name: str) -> SymbolFacts:
        return self._symbol_map[name]

    def fingerprint(self) -> str:
        """A stable hex digest of the spec (same in every process, unlike ``hash``)."""
        return hashlib.sha256(repr(self.key).encode()).hexdigest()

    def with_block(self, block: Any) -> KernelSpec:
        return KernelSpec(self.args, self.symbols, normalize_block(block))


def _leaves(tree: Nested) -> list[Any]:
    if isinstance(tree, tuple):
        return [x for t in tree for x in _leaves(t)]
    return [tree]


def _text(tree: Nested, symbols: bool) -> str:
    if isinstance(tree, tuple):
        return "(" + ",".join(_text(t, symbols) for t in tree) + ")"
    if isinstance(tree, str):
        return tree if symbols and not tree.startswith("?") else "?"
    return str(tree)


def normalize_block(block: Any) -> tuple[int, int, int] | None:
    """``256`` / ``(16, 16)`` / ``(8, 8, 4)`` -> a 3-tuple of positive ints (None stays None)."""
    if block is None:
        return None
    dims = (block,) if isinstance(block, int) else tuple(block)
    if not 1 <= len(dims) <= 3 or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims
    ):
        raise SpecError(f"block must be 1 to 3 positive ints, got {block!r}")
    x, y, z = (*dims, 1, 1)[:3]
    if x * y * z > 1024:
        raise SpecError(f"block {block!r} has {x * y * z} threads; a block has at most 1024")
    return (x, y, z)


def pow2_divisor(value: int, cap: int = 16) -> int:
    """The largest power of two ``<= cap`` dividing ``value`` (``cap`` for 0)."""
    if value == 0:
        return cap
    d = 1
    while d < cap and value % (2 * d) == 0:
        d *= 2
    return d


# -------------------------------------------------------------------------------------------
# derivation
# -------------------------------------------------------------------------------------------


class SymbolTable:
    """The values of the layout symbols seen so far in one call.

    A name bound twice must agree (``N`` in two annotations). Anonymous entries (``?`` and the
    entries of unannotated arrays) are unified by value: every anonymous entry equal to one
    seen before shares its symbol, so two arrays of one shape get one extent symbol and a copy
    between them is provably in bounds. The equality pattern is thereby part of the spec (and
    its key); the caller checks it at every launch (the ABI's equal-carrier groups), and arrays
    that break it derive another spec.
    """

    def __init__(self) -> None:
        self.values: dict[str, int] = {}
        self.where: dict[str, str] = {}
        self._anonymous: dict[int, str] = {}

    def bind(self, name: str, value: int, where: str) -> None:
        old = self.values.get(name)
        if old is not None and old != value:
            raise SpecError(
                f"{where} gives {name} = {value}, but {self.where[name]} gave {name} = {old}"
            )
        self.values[name] = value
        self.where.setdefault(name, where)

    def anonymous(self, name: str, value: int, where: str) -> str:
        """The symbol of an anonymous entry: ``name``, or the one of an equal earlier entry."""
        shared = self._anonymous.setdefault(value, name)
        self.bind(shared, value, where)
        return shared

    def facts(self) -> tuple[SymbolFacts, ...]:
        out = []
        for name in sorted(self.values):
            v = self.values[name]
            if abs(v) > _I64_MAX:
                raise SpecError(f"{self.where[name]}: {name} = {v} does not fit in 64 bits")
            lower = 1 if v >= 1 else (0 if v == 0 else None)
            dtype = "i32" if -_I32_MAX - 1 <= v <= _I32_MAX else "i64"
            out.append(SymbolFacts(name, dtype, pow2_divisor(v), lower))
        return tuple(out)


def derive_spec(
    signature: inspect.Signature,
    annotations: Mapping[str, Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    block: Any = None,
    facts: Callable[[Any], Any] | None = None,
) -> tuple[KernelSpec, dict[str, Any]]:
    """The spec of a call, and the bound arguments by name (defaults applied)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise SpecError(str(e)) from None
    bound.apply_defaults()
    symbols = SymbolTable()
    out: list[tuple[str, ArgSpec]] = []
    for name, value in bound.arguments.items():
        param = signature.parameters[name]
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise SpecError(f"not supported: *args/**kwargs parameters in a kernel ('{name}')")
        ann = normalize(annotations.get(name, inspect.Parameter.empty))
        out.append((name, arg_spec(name, value, ann, symbols, facts)))
    spec = KernelSpec(tuple(out), symbols.facts(), normalize_block(block))
    return spec, dict(bound.arguments)


def arg_spec(
    name: str, value: Any, ann: Any, symbols: SymbolTable, facts_of: Callable[[Any], Any] | None
) -> ArgSpec:
    """The spec of one argument ``value`` of parameter ``name`` annotated ``ann`` (normalized);
    its layout symbols are bound in ``symbols``; ``facts_of`` overrides array introspection."""
    if isinstance(ann, ConstexprAnnotation):
        return ConstexprSpec(_constant(name, value))
    if isinstance(ann, ElementType):
        return _typed_scalar(name, value, ann)
    if isinstance(value, bool):
        return ConstexprSpec(value)
    if ann is inspect.Parameter.empty and _is_np_number(value):
        numpy_scalar = _numpy_scalar(name, value)  # np.float64 keeps f64 (it subclasses float)
        if numpy_scalar is not None:
            return numpy_scalar
    if isinstance(value, int):
        if ann not in (inspect.Parameter.empty, int):
            raise SpecError(f"argument '{name}' is annotated {ann!r} but got the int {value}")
        return _int_scalar(name, value)
    if isinstance(value, float):
        if ann not in (inspect.Parameter.empty, float):
            raise SpecError(f"argument '{name}' is annotated {ann!r} but got the float {value}")
        return ScalarSpec("f32")
    if _is_np_number(value) and getattr(value, "shape", None) == ():
        numpy_scalar = _numpy_scalar(name, value)
        if numpy_scalar is not None:
            return numpy_scalar
    facts = _array_facts(value, facts_of)
    if facts is not None:
        if ann is not inspect.Parameter.empty and not isinstance(ann, TensorAnnotation):
            raise SpecError(f"argument '{name}' is annotated {ann!r} but got an array")
        return _tensor_spec(
            name, facts, ann if ann is not inspect.Parameter.empty else None, symbols
        )
    if isinstance(ann, TensorAnnotation):
        raise SpecError(
            f"argument '{name}' is a tensor parameter but got {type(value).__name__}; pass a "
            "numpy/torch/CuPy array or anything with __cuda_array_interface__ or __dlpack__"
        )
    numpy_scalar = _numpy_scalar(name, value)
    if numpy_scalar is not None:
        return numpy_scalar
    return ConstexprSpec(_constant(name, value))


def _constant(name: str, value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        raise SpecError(
            f"argument '{name}' ({type(value).__name__}) is a compile-time constant and must be "
            "hashable (use a tuple instead of a list)"
        ) from None
    return value


def _typed_scalar(name: str, value: Any, t: ElementType) -> ScalarSpec:
    if t.abi is None or t.name == "tf32" or (t.is_int and t.bits < 32):
        raise SpecError(
            f"argument '{name}': scalar parameters are i32, i64, f16, bf16, f32 or f64, "
            f"not {t.name}"
        )
    if t.is_int:
        if isinstance(value, bool) or (not isinstance(value, int) and not _is_np_int(value)):
            raise SpecError(f"argument '{name}' is annotated {t!r} but got {value!r}")
        v = int(value)
        limit = _I32_MAX if t.bits == 32 else _I64_MAX
        if not -limit - 1 <= v <= limit:
            raise SpecError(f"argument '{name}' = {v} does not fit in {t.name}")
        return ScalarSpec(t.name, pow2_divisor(v))
    if not isinstance(value, (int, float)) and not _is_np_number(value):
        raise SpecError(f"argument '{name}' is annotated {t!r} but got {value!r}")
    return ScalarSpec(t.name)


def _int_scalar(name: str, v: int) -> ScalarSpec:
    if abs(v) > _I64_MAX + 1:
        raise SpecError(f"argument '{name}' = {v} does not fit in 64 bits")
    return ScalarSpec("i32" if -_I32_MAX - 1 <= v <= _I32_MAX else "i64", pow2_divisor(v))


def _is_np_int(value: Any) -> bool:
    return (
        type(value).__module__ == "numpy" and hasattr(value, "dtype") and value.dtype.kind in "iu"
    )


def _is_np_number(value: Any) -> bool:
    return (
        type(value).__module__ == "numpy" and hasattr(value, "dtype") and value.dtype.kind in "iuf"
    )


def _numpy_scalar(name: str, value: Any) -> ScalarSpec | None:
    if not _is_np_number(value) or getattr(value, "shape", ()) != ():
        return None
    dt = from_abi(
        {
            "int32": "i32",
            "int64": "i64",
            "float16": "f16",
            "float32": "f32",
            "float64": "f64",
        }.get(value.dtype.name)
    )
    if dt is None:
        raise SpecError(
            f"argument '{name}': numpy scalars of type {value.dtype.name} are not supported; "
            "use int32, int64, float16, float32 or float64"
        )
    return _typed_scalar(name, value.item() if dt.is_float else int(value), dt)


def _array_facts(value: Any, facts_of: Callable[[Any], Any] | None) -> Any:
    if isinstance(value, (str, bytes, tuple, list, dict)):
        return None
    if facts_of is not None:
        return facts_of(value)
    from ..runtime.arrays import array_facts

    try:
        return array_facts(value)
    except ValueError as e:
        raise SpecError(str(e)) from None


def _tensor_spec(
    name: str, facts: Any, ann: TensorAnnotation | None, symbols: SymbolTable
) -> TensorSpec:
    dtype = from_abi(facts.dtype)
    if dtype is None:
        raise SpecError(
            f"argument '{name}': arrays of element type {facts.dtype or 'unknown'} are not "
            "supported; use f16, bf16, f32, f64, i8, i16, i32 or i64"
        )
    if ann is not None and ann.dtype is not None:
        if ann.dtype.abi != dtype.abi:
            raise SpecError(
                f"argument '{name}' is annotated {ann!r} but the array holds {dtype.name}"
            )
        dtype = ann.dtype  # e.g. tf32 data stored as f32
    shape, strides = tuple(facts.shape), tuple(facts.strides)
    negative = [i for i, (n, st) in enumerate(zip(shape, strides)) if st < 0 and n > 1]
    if negative:
        raise SpecError(
            f"argument '{name}': not supported: negative strides {strides} (dimension "
            f"{negative[0]}); pass a copy (e.g. numpy.ascontiguousarray) or flip the index in the "
            "kernel"
        )
    if not shape:
        raise SpecError(
            f"argument '{name}': a 0-dimensional array is not a tensor; pass a Python number for "
            "a scalar parameter"
        )
    align = pow2_divisor(facts.ptr)
    bits = offset_bits(shape, strides)
    if ann is not None and ann.layout is not None:
        pshape, pstride = parse_layout_pattern(name, ann.layout)
        if len(pshape) != len(shape):
            raise SpecError(
                f"argument '{name}' is annotated with the rank-{len(pshape)} layout "
                f"{ann.layout!r} but the array has {len(shape)} dimensions {shape}"
            )
        s_out, d_out = [], []
        for i, (ps, pd, n, st) in enumerate(zip(pshape, pstride, shape, strides)):
            s_out.append(_match(name, i, ps, n, "extent", symbols))
            if isinstance(ps, tuple):
                _check_nested(name, i, ps, pd, n, st)
                d_out.append(pd)
            else:
                d_out.append(
                    pd
                    if n == 1 and isinstance(pd, int)
                    else _match(name, i, pd, st, "stride", symbols)
                )
        return TensorSpec(dtype.name, tuple(s_out), tuple(d_out), align, index_bits=bits)
    where = f"argument '{name}'"
    s_out = [symbols.anonymous(f"?{name}.shape{i}", n, where) for i, n in enumerate(shape)]
    d_out = [
        1 if st == 1 else symbols.anonymous(f"?{name}.stride{i}", st, where)
        for i, st in enumerate(strides)
    ]
    return TensorSpec(dtype.name, tuple(s_out), tuple(d_out), align, index_bits=bits)


#: The reach below which an array's offsets count as fitting a 32-bit index (half its range).
INDEX32_REACH = 1 << 30


def offset_bits(shape: Sequence[int], strides: Sequence[int]) -> int:
    """32 when every element offset of an array (the sum of ``(extent - 1) * |stride|``) stays
    below :data:`INDEX32_REACH`, else 64."""
    reach = sum(max(n - 1, 0) * abs(d) for n, d in zip(shape, strides))
    return 32 if reach < INDEX32_REACH else 64


def _match(
    arg: str,
    mode: int,
    pattern: Any,
    value: int,
    what: str,
    symbols: SymbolTable,
) -> Any:
    if isinstance(pattern, tuple):
        return pattern
    if isinstance(pattern, int):
        if pattern != value:
            raise SpecError(
                f"argument '{arg}': mode {mode} has {what} {value}, but its annotation requires "
                f"{pattern}"
            )
        return pattern
    where = f"argument '{arg}' ({what} of mode {mode})"
    if pattern == "?":
        kind = "shape" if what == "extent" else "stride"
        return symbols.anonymous(f"?{arg}.{kind}{mode}", value, where)
    symbols.bind(pattern, value, where)
    return pattern


def _check_nested(arg: str, mode: int, ps: Any, pd: Any, n: int, st: int) -> None:
    leaves_s, leaves_d = _leaves(ps), _leaves(pd)
    if any(not isinstance(x, int) for x in (*leaves_s, *leaves_d)):
        raise SpecError(
            f"argument '{arg}': not supported: dynamic entries inside the nested mode {mode} "
            "of an annotation (nested modes must be static)"
        )
    size = 1
    for x in leaves_s:
        size *= x
    if size != n:
        raise SpecError(
            f"argument '{arg}': mode {mode} has extent {n}, but the annotation's nested mode "
            f"has size {size}"
        )
    # the nested mode must be one arithmetic progression matching the array's stride
    expect = None
    for extent, stride in zip(leaves_s, leaves_d):
        if extent == 1:
            continue
        if expect is not None and stride != expect:
            raise SpecError(
                f"argument '{arg}': not supported: the nested mode {mode} of the annotation "
                "does not coalesce to one stride, so it cannot bind to one array dimension"
            )
        if expect is None and n > 1 and stride != st:
            raise SpecError(
                f"argument '{arg}': mode {mode} has stride {st}, but the annotation requires "
                f"{stride}"
            )
        expect = stride * extent


_PATTERNS: dict[tuple[str, str], tuple[tuple, tuple]] = {}


def parse_layout_pattern(arg: str, text: str) -> tuple[tuple, tuple]:
    """``"(N,(2,4)):(?,(1,2))"`` -> nested tuples of ints, names and ``"?"`` (memoised: the
    annotations of a kernel are parsed again at every spec derivation)."""
    found = _PATTERNS.get((arg, text))
    if found is None:
        found = _parse_layout_pattern(arg, text)
        if len(_PATTERNS) >= 4096:  # spec texts from a long-running process: stay bounded
            _PATTERNS.clear()
        _PATTERNS[(arg, text)] = found
    return found


def _parse_layout_pattern(arg: str, text: str) -> tuple[tuple, tuple]:
    pos = 0

    def error(msg: str) -> SpecError:
        return SpecError(f"argument '{arg}': bad layout annotation {text!r}: {msg} at {pos}")

    def skip() -> None:
        nonlocal pos
        while pos < len(text) and text[pos].isspace():
            pos += 1

    def tup() -> Any:
        nonlocal pos
        skip()
        if pos < len(text) and text[pos] == "(":
            pos += 1
            items = [tup()]
            skip()
            while pos < len(text) and text[pos] == ",":
                pos += 1
                items.append(tup())
                skip()
            if pos >= len(text) or text[pos] != ")":
                raise error("expected ')'")
            pos += 1
            return tuple(items)
        start = pos
        while pos < len(text) and (text[pos].isalnum() or text[pos] in "_?-"):
            pos += 1
        word = text[start:pos]
        if word == "?":
            return "?"
        if word.lstrip("-").isdigit():
            return int(word)
        if word[:1].isalpha() or (word[:1] == "_" and len(word) > 1):
            if not word.replace("_", "a").isalnum():
                raise error(f"bad name {word!r}")
            return word
        raise error("expected an integer, a name or '?'")

    shape = tup()
    skip()
    if pos < len(text) and text[pos] == ":":
        pos += 1
        stride = tup()
    else:
        raise error("expected ':' and the stride (annotations give shape and stride)")
    skip()
    if pos != len(text):
        raise error("unexpected text")
    if not isinstance(shape, tuple):
        shape, stride = (shape,), (stride,)
    if not isinstance(stride, tuple) or len(shape) != len(stride) or not _congruent(shape, stride):
        raise SpecError(f"argument '{arg}': the shape and stride of {text!r} are not congruent")
    return shape, stride


def _congruent(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) != isinstance(b, tuple):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))
    return True
