"""Call keys: a cheap summary of a kernel call that determines its compile spec.

Deriving a spec (spec.py) binds the signature, introspects every array and builds a symbol
table; doing that on every direct call ``k(x, y, grid=...)`` costs tens of microseconds, most of
a repeated call. A *call key* reads only what :func:`~.spec.derive_spec` depends on, so that two
calls with equal keys have equal specs (the law tests/frontend/test_call_fast_path.py checks):

- an array: its Python type, shape, strides and dtype as its library states them, its device,
  and the alignment class of its data pointer (the largest power of two up to 16 dividing it,
  exactly what the spec records);
- an integer scalar: its type, divisibility class (the spec's ``pow2_divisor``) and range class
  (which of the i32/i64 boundaries it lies between: the spec's carrier type and overflow errors);
- a float scalar: its type (the spec never reads a float's value);
- a compile-time constant (``lc.Constexpr``, bools, strings, tuples...): its value with the
  type of every part, so ``1``, ``1.0`` and ``True`` never share a kernel;
- the block shape as given.

Anything the key cannot summarise (0-d arrays, unhashable constants, unknown numpy scalar kinds,
variadic parameters, arguments that do not bind) makes the key ``None``: the caller then takes
the full derivation, which also produces the error message when the call is refused. Keys are
only ever recorded for calls whose spec derivation succeeded.
"""

from __future__ import annotations

import inspect
import itertools
import threading
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .annotations import ConstexprAnnotation, normalize

#: Every integer comparison the spec makes (i32 and i64 ranges, the 64-bit overflow checks,
#: a symbol's lower bound) flips only at these points; the range class of ``v`` is the
#: interval between two of them that holds it.
_RANGE_POINTS = (
    -(1 << 63),
    -(1 << 63) + 1,
    -(1 << 31),
    0,
    1,
    1 << 31,
    1 << 63,
    (1 << 63) + 1,
)

_EMPTY = inspect.Parameter.empty


def divisibility_class(v: int) -> int:
    """``spec.pow2_divisor(v)`` (largest power of two up to 16 dividing ``v``), without a loop."""
    low = v & 15
    return low & -low if low else 16


def range_class(v: int) -> int:
    """Which interval between the spec's integer comparison points holds ``v``."""
    return bisect_right(_RANGE_POINTS, v)


def typed_value(v: Any) -> Any:
    """``v`` with the type of every part: equal results mean equal values of equal types
    (``1 == 1.0 == True`` in Python, but a kernel traced with one need not suit the others)."""
    t = type(v)
    if t is tuple:
        return (tuple, *[typed_value(x) for x in v])
    if t is frozenset:
        return (frozenset, frozenset(typed_value(x) for x in v))
    return (t, v)


# -------------------------------------------------------------------------------------------
# per value type: what the spec reads
# -------------------------------------------------------------------------------------------

KeyOf = Callable[[Any], Any]


class _Unkeyable(Exception):
    """The call cannot be summarised; take the full derivation."""


def _int_key(v: int) -> tuple:
    return (int, divisibility_class(v), range_class(v))


def _float_key(v: float) -> tuple:
    return (float,)


def _constant_key(v: Any) -> Any:
    return typed_value(v)


def _numpy_int_key(v: Any) -> tuple:
    i = int(v)
    return (type(v), divisibility_class(i), range_class(i))


def _numpy_float_key(v: Any) -> tuple:
    return (type(v),)


def _unkeyable(v: Any) -> Any:
    raise _Unkeyable


def _probe_key(probe: Callable[[Any], tuple]) -> KeyOf:
    def key(a: Any) -> tuple:
        ptr, shape, strides, dtype, device = probe(a)
        if not shape:
            raise _Unkeyable  # 0-d: a numpy scalar, or an error the full path words
        low = ptr & 15
        return (type(a), shape, strides, dtype, device, low & -low if low else 16)

    return key


def _facts_key(v: Any) -> Any:
    """Arrays the runtime reads without a probe (DLPack, ``__cuda_array_interface__``...), and
    objects that are not arrays at all (then constants: their typed value)."""
    from ..runtime.arrays import array_facts

    try:
        facts = array_facts(v)
    except ValueError:
        raise _Unkeyable from None
    if facts is None:
        return typed_value(v)
    shape = tuple(facts.shape)
    if not shape:
        raise _Unkeyable
    ptr = facts.ptr
    low = ptr & 15
    return (
        type(v),
        shape,
        tuple(facts.strides),
        facts.dtype,
        facts.device_type,
        facts.device_id,
        low & -low if low else 16,
    )


def _key_for_type(cls: type) -> KeyOf:
    if cls is int:
        return _int_key
    if cls is float:
        return _float_key
    if cls in (bool, str, bytes, tuple, type(None)):
        return _constant_key
    if cls.__module__ == "numpy" and cls.__name__ not in ("ndarray", "memmap"):
        return _numpy_scalar_key(cls)
    from ..runtime.array_probes import probe_for

    probe = probe_for(cls)
    if probe is not None:
        return _probe_key(probe)
    return _facts_key


def _numpy_scalar_key(cls: type) -> KeyOf:
    import numpy as np

    if not issubclass(cls, np.generic):
        return _unkeyable
    kind = np.dtype(cls).kind
    if kind in "iu":
        return _numpy_int_key
    if kind == "f":
        return _numpy_float_key
    return _unkeyable


_KEY_OF: dict[type, KeyOf] = {}


def _learn_key(cls: type) -> KeyOf:
    key_of = _KEY_OF[cls] = _key_for_type(cls)
    return key_of


def value_key(v: Any) -> Any:
    """The part of a call key for one argument of a parameter that is not ``lc.Constexpr``."""
    cls = type(v)
    return (_KEY_OF.get(cls) or _learn_key(cls))(v)


# -------------------------------------------------------------------------------------------
# per kernel: binding without inspect, and the key
# -------------------------------------------------------------------------------------------


class CallPlan:
    """What a kernel's calls are keyed on, prepared once per kernel.

    :meth:`key` returns ``(key, values)``: the call key (None when the call cannot be keyed) and
    the arguments in parameter order with defaults applied (as ``derive_spec`` binds them).
    """

    def __init__(self, signature: inspect.Signature, annotations: Mapping[str, Any]) -> None:
        params = list(signature.parameters.values())
        self.names = tuple(p.name for p in params)
        self.index = {p.name: i for i, p in enumerate(params)}
        self.keyword_ok = tuple(p.kind != p.POSITIONAL_ONLY for p in params)
        self.defaults = tuple(p.default for p in params)
        positional = [p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params]
        self.max_positional = positional.index(False) if False in positional else len(params)
        self.supported = not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
        self.summarise = _summariser(
            [
                isinstance(normalize(annotations.get(p.name, _EMPTY)), ConstexprAnnotation)
                for p in params
            ]
        )
        self.count = len(params)
        # calls giving every argument by position need no binding at all
        self.plain = self.supported and self.max_positional == self.count

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple | None:
        """The arguments in parameter order, or None where ``Signature.bind`` might disagree
        (too many, unknown, duplicate or missing arguments: the full path words the error)."""
        n = len(args)
        count = len(self.names)
        if not self.supported or n > self.max_positional:
            return None
        if not kwargs:
            if n == count:
                return tuple(args)
            values = list(args)
        else:
            values = list(args)
            index = self.index
            for name in kwargs:
                i = index.get(name)
                if i is None or i < n or not self.keyword_ok[i]:
                    return None
        for i in range(n, count):
            name = self.names[i]
            if kwargs and name in kwargs:
                values.append(kwargs[name])
            else:
                default = self.defaults[i]
                if default is _EMPTY:
                    return None
                values.append(default)
        return tuple(values)

    def key(
        self, args: Sequence[Any], kwargs: Mapping[str, Any], block: Any, salt: Any = None
    ) -> tuple[tuple | None, tuple | None]:
        """``(key, values)``; ``salt`` is one more hashable for the key (the caller's target)."""
        if self.plain and not kwargs and len(args) == self.count:
            values = args if type(args) is tuple else tuple(args)
        else:
            values = self.bind(args, kwargs)
            if values is None:
                return None, None
        try:
            # (unhashable with unhashable constants: CallMemo finds and stores no such key)
            return self.summarise(values, block, salt), values
        except _Unkeyable:
            return None, values


def _summariser(constexpr: Sequence[bool]) -> Callable[[tuple, Any, Any], tuple]:
    """``summarise(values, block, salt)`` for one kernel's parameters, unrolled: a call key
    costs one Python frame plus one per array probe (a loop over keyer functions cost half
    as much again as the whole key)."""
    names = [f"v{i}" for i in range(len(constexpr))]
    parts = [
        f"typed({v})" if const else f"(get(type({v})) or learn(type({v})))({v})"
        for v, const in zip(names, constexpr)
    ]
    lines = ["def summarise(values, block, salt):"]
    if names:
        lines.append(f"    {', '.join(names)}, = values")
    lines.append(
        "    return (salt, block if type(block) is int else typed(block), "
        + "".join(f"{p}, " for p in parts)
        + ")"
    )
    scope = {"typed": typed_value, "get": _KEY_OF.get, "learn": _learn_key}
    exec(compile("\n".join(lines), "<layoutc call key>", "exec"), scope)
    return scope["summarise"]


class CallMemo:
    """A small LRU map from call keys to what the driver resolved them to, per kernel.

    Lookups take no lock: one dict lookup and a use stamp from a shared counter, each atomic
    under the GIL (the stamps order eviction). An unhashable key (a list among the constants)
    is never found and never stored."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._entries: dict[Any, list] = {}  # key -> [value, last use]
        self._lock = threading.Lock()
        self._clock = itertools.count()

    def get(self, key: Any) -> Any:
        try:
            entry = self._entries.get(key)
        except TypeError:
            return None
        if entry is None:
            return None
        entry[1] = next(self._clock)
        return entry[0]

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            entries = dict(self._entries)  # readers keep the old dict while this one changes
            try:
                entries[key] = [value, next(self._clock)]
            except TypeError:
                return
            while len(entries) > self.capacity:
                del entries[min(entries, key=lambda k: entries[k][1])]
            self._entries = entries

    def clear(self) -> None:
        with self._lock:
            self._entries = {}

    def __len__(self) -> int:
        return len(self._entries)
