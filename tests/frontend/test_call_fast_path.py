"""Call keys (compiler/frontend/call_key.py): equal keys mean equal specs.

A direct call ``k(x, y, grid=...)`` whose key was seen before reuses the kernel compiled for
that earlier call without deriving its spec again, so the key must capture everything
``derive_spec`` reads. These tests walk sequences of calls that change one property at a time
(pointer alignment, shape, stride, dtype, scalar divisibility and range, constant values and
types, block, keyword vs positional arguments, defaults) and check, against a fresh
``derive_spec`` for every call, that any two calls with equal keys got equal specs, and that the
arguments the key path binds are exactly what ``inspect`` binds. No kernel is compiled here;
tests/driver/test_direct_call_fast_path.py runs the launch path on the CPU.
"""

from __future__ import annotations

import os

import layoutc as lc
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layoutc.frontend.call_key import (
    CallMemo,
    divisibility_class,
    range_class,
    typed_value,
)
from layoutc.frontend.spec import ConstexprSpec, SpecError, pow2_divisor

CI = os.environ.get("CI") == "true"


@lc.kernel
def copy_1d(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    pass


@lc.kernel
def untyped(a, b, c):
    pass


@lc.kernel
def mixed(x: lc.Tensor, n: int, tile: lc.Constexpr[int] = 4, *, alpha: float = 1.0):
    pass


@lc.kernel
def typed(
    x: lc.Tensor[lc.f32, "(M,?):(?,1)"],  # noqa: F722
    n: lc.i32,
    m: lc.i64,
    s: lc.f32,
    c: lc.Constexpr = None,
):
    pass


@lc.kernel
def nested(x: lc.Tensor[lc.f32, "((2,4),N):((1,2),8)"], y: lc.Tensor[lc.f32, "(N):(?)"]):  # noqa: F722
    pass


@lc.kernel(block=64)
def with_block(x, n):
    pass


KERNELS = [copy_1d, untyped, mixed, typed, nested, with_block]

# -- values -----------------------------------------------------------------------------------

_BUFFER = np.zeros(1 << 16, np.uint8)
_BASE = (-_BUFFER.ctypes.data) % 64  # a 64-byte aligned start inside the buffer


_DTYPES = ["f4", "f8", "i4", "f2", "c8", ">f4", "u1"]
_EXTENTS = [1, 2, 3, 4, 8, 12, 16]
_OFFSETS = [0, 1, 2, 4, 6, 8, 12, 16, 24, 32]


def build_array(dtype: str, shape: tuple, step: int, offset: int, transposed: bool) -> np.ndarray:
    """A numpy view at a byte ``offset`` from a 64-byte boundary (alignment 1..16+)."""
    dt = np.dtype(dtype)
    count = int(np.prod(shape or (1,))) * step
    raw = _BUFFER[_BASE + offset : _BASE + offset + count * dt.itemsize]
    flat = raw.view(dt)[::step]
    a = flat.reshape(shape) if shape else flat[:1].reshape(())
    return a.T if transposed else a


@st.composite
def array_recipes(draw):
    rank = draw(st.sampled_from([0, 1, 1, 1, 2, 2]))
    return (
        "array",
        draw(st.sampled_from(_DTYPES)),
        tuple(draw(st.sampled_from(_EXTENTS)) for _ in range(rank)),
        draw(st.sampled_from([1, 1, 2, 3])),
        draw(st.sampled_from(_OFFSETS)),
        rank == 2 and draw(st.booleans()),
    )


@st.composite
def changed_array(draw, recipe):
    """``recipe`` with one property changed: dtype, one extent, stride, offset or order."""
    _, dtype, shape, step, offset, transposed = recipe
    field = draw(st.sampled_from(["dtype", "extent", "step", "offset", "order"]))
    if field == "dtype":
        dtype = draw(st.sampled_from(_DTYPES))
    elif field == "extent" and shape:
        i = draw(st.integers(0, len(shape) - 1))
        shape = (*shape[:i], draw(st.sampled_from(_EXTENTS)), *shape[i + 1 :])
    elif field == "step":
        step = draw(st.sampled_from([1, 2, 3]))
    elif field == "offset":
        offset = draw(st.sampled_from(_OFFSETS))
    else:
        transposed = len(shape) == 2 and not transposed
    return ("array", dtype, shape, step, offset, transposed)


def build(recipe):
    return build_array(*recipe[1:]) if recipe[0] == "array" else recipe[1]


_INTS = [
    0,
    1,
    2,
    3,
    4,
    6,
    8,
    12,
    16,
    48,
    -4,
    -16,
    (1 << 31) - 1,
    1 << 31,
    -(1 << 31),
    -(1 << 31) - 1,
    (1 << 63) - 1,
    1 << 63,
    -(1 << 63),
    -(1 << 63) + 1,
    (1 << 63) + 1,
    -(1 << 63) - 1,
    1 << 64,
]

scalars = st.one_of(
    st.sampled_from(_INTS),
    st.sampled_from([0.0, 1.0, 2.5, -0.0]),
    st.booleans(),
    st.sampled_from([np.int32(8), np.int32(3), np.int64(16), np.int64(-(1 << 40))]),
    st.sampled_from([np.float32(1.5), np.float64(2.0), np.uint32(4), np.int8(2), np.bool_(True)]),
)
constants = st.sampled_from(
    [None, 1, 1.0, True, 2, "a", (1, 2), (1.0, 2), (True, 2), ((1,), "x"), b"k", [1, 2]]
)
recipes = st.one_of(
    array_recipes(),
    scalars.map(lambda v: ("value", v)),
    constants.map(lambda v: ("value", v)),
)
blocks = st.sampled_from([None, 128, 64, (128,), (16, 8), (16, 8, 1), [128], True, 0, 2000])


@st.composite
def changed(draw, recipe):
    """The next argument of a walk: ``recipe`` with one property changed, or a new value of
    the same kind (an int for an int, a constant for a constant), or anything."""
    how = draw(st.integers(0, 9))
    if how == 0:
        return draw(recipes)
    if recipe[0] == "array":
        return draw(changed_array(recipe))
    v = recipe[1]
    if type(v) is int:
        return ("value", draw(st.sampled_from(_INTS)))
    if how < 5:
        return ("value", draw(scalars))
    return ("value", draw(constants))


@st.composite
def walks(draw, kernel, steps=10):
    """Calls of ``kernel``, each differing from the one before in one argument, the block or
    the way the arguments are passed: ``[(args, kwargs, block)]``."""
    names = list(kernel.signature.parameters)
    params = kernel.signature.parameters
    current = [draw(recipes) for _ in names]
    if len(current) > 1 and draw(st.booleans()):
        current[1] = current[0]  # one array twice: unified symbols
    block = draw(blocks)
    out = []
    for _ in range(draw(st.integers(2, steps))):
        what = draw(st.integers(0, len(names) + 1))
        if what < len(names):
            current[what] = draw(changed(current[what]))
        elif what == len(names):
            block = draw(blocks)
        chosen = [build(r) for r in current]
        n = draw(st.sampled_from([len(names)] * 3 + list(range(len(names) + 2))))
        args = list(chosen[:n])
        if n > len(names):
            args.append(chosen[0])  # too many
        kwargs = {}
        for name, value in zip(names[n:], chosen[n:]):
            if params[name].default is not params[name].empty and draw(st.booleans()):
                continue  # the default
            kwargs[name] = value
        if draw(st.integers(0, 14)) == 0:
            kwargs["unknown"] = 1
        if draw(st.integers(0, 14)) == 0 and names:
            kwargs[names[0]] = chosen[0]  # given twice when also positional
        out.append((tuple(args), kwargs, block))
    return out


def fresh(kernel, args, kwargs, block):
    """``(spec key, bound arguments)`` from a fresh derivation, or the error it raised."""
    try:
        spec, bound = kernel.bind(args, kwargs, block)
    except (SpecError, TypeError) as e:
        return ("error", type(e).__name__, str(e)), None
    return spec.key, bound


def check_sequence(kernel, sequence) -> None:
    seen: dict = {}
    for args, kwargs, block in sequence:
        key, values = kernel.call_key(args, dict(kwargs), block, "salt")
        spec_key, bound = fresh(kernel, args, kwargs, block)
        if values is not None and bound is not None:
            # the key path binds exactly what inspect binds (same objects, parameter order)
            assert len(values) == len(bound)
            assert all(v is b for v, b in zip(values, bound.values()))
        if key is None:
            continue
        try:
            hash(key)
        except TypeError:
            continue  # never stored (CallMemo), so never found
        if key in seen:
            assert spec_key == seen[key], (args, kwargs, block)
        elif bound is not None:  # only successful derivations are recorded
            seen[key] = spec_key


_SETTINGS = settings(
    max_examples=80 if CI else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
@_SETTINGS
@given(data=st.data())
def test_equal_call_keys_mean_equal_specs(kernel, data):
    sequence = data.draw(walks(kernel))
    check_sequence(kernel, sequence + sequence[::2])  # and again: recorded keys are found


def _aligned_f32(count: int, offset_bytes: int, step: int = 1) -> np.ndarray:
    raw = _BUFFER[_BASE + offset_bytes : _BASE + offset_bytes + 4 * count * step]
    return raw.view(np.float32)[::step]


@settings(max_examples=60 if CI else 150, deadline=None)
@given(
    offsets=st.lists(st.sampled_from([0, 4, 8, 12, 16, 20, 32, 48]), min_size=2, max_size=8),
    sizes=st.lists(st.sampled_from([4, 8, 12, 16, 24, 32]), min_size=2, max_size=8),
)
def test_copy_1d_walk_alignment_and_size(offsets, sizes):
    """copy_1d as the examples call it: one property at a time changes between calls."""
    sequence = []
    for off, n in zip(offsets, sizes):
        src, dst = _aligned_f32(n, off), _aligned_f32(n, 48 - off % 48)
        sequence.append(((src, dst), {}, 128))
        sequence.append(((src, _aligned_f32(n + 4, 0)), {}, 128))  # N differs: refused
        sequence.append(((src, dst), {}, (128,)))
        sequence.append(((src,), {"dst": dst}, 128))
    check_sequence(copy_1d, sequence)


def test_keys_differ_exactly_where_the_pointer_alignment_does():
    keys, aligns = [], []
    for offset in range(0, 64, 2):
        a = _BUFFER[_BASE + offset : _BASE + offset + 64].view(np.float32)
        keys.append(copy_1d.call_key((a, a), {}, 128)[0])
        aligns.append(dict(copy_1d.specialize(a, a, block=128).args)["src"].align)
    assert sorted(set(aligns)) == [2, 4, 8, 16]
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (keys[i] == keys[j]) == (aligns[i] == aligns[j])


def test_divisibility_and_range_classes_agree_with_the_spec():
    for v in [*_INTS, *range(-40, 40)]:
        assert divisibility_class(v) == pow2_divisor(v)
    # every int of one range class gets the same scalar spec (dtype) or error
    by_class: dict = {}
    for v in [*_INTS, *range(-40, 40)]:
        spec, _ = fresh(mixed, (_aligned_f32(4, 0), v), {}, None)
        dtype = spec[0] if spec[0] == "error" else dict(spec[0])["n"].dtype
        by_class.setdefault((range_class(v), v >= 0), set()).add(dtype)
    assert all(len(d) == 1 for d in by_class.values()), by_class


def test_constants_of_different_types_get_different_specs_and_keys():
    """``1``, ``1.0`` and ``True`` are equal in Python; as constants they trace differently."""
    x = _aligned_f32(4, 0)
    keys, specs = set(), set()
    for c in (1, 1.0, True, (1, 2), (1.0, 2)):
        keys.add(mixed.call_key((x, 8, c), {}, None)[0])
        specs.add(mixed.specialize(x, 8, c).key)
    assert len(keys) == len(specs) == 5
    assert ConstexprSpec(1) != ConstexprSpec(1.0) and ConstexprSpec((1,)) != ConstexprSpec((True,))
    assert ConstexprSpec((1, "a")) == ConstexprSpec((1, "a"))
    assert typed_value((1, (2.0,))) != typed_value((1, (2,)))


def test_calls_that_cannot_be_keyed_take_the_full_path():
    x = _aligned_f32(4, 0)
    # 0-d arrays, unhashable constants, unknown numpy scalar kinds, arguments that do not bind
    assert untyped.call_key((np.array(1.0, np.float32), 1, 2), {}, None)[0] is None
    assert mixed.call_key((x, 8, [1]), {}, None)[1] is not None
    assert untyped.call_key((x, np.bool_(True), 2), {}, None)[0] is None
    assert untyped.call_key((x, 1), {}, None) == (None, None)
    assert untyped.call_key((x, 1, 2), {"c": 3}, None) == (None, None)
    assert mixed.call_key((x,), {"n": 1, "zzz": 2}, None) == (None, None)


def test_call_memo_is_a_bounded_lru():
    memo = CallMemo(capacity=3)
    for k in "abc":
        memo.put(k, k.upper())
    assert memo.get("a") == "A"  # a is now the most recent
    memo.put("d", "D")  # evicts b, the least recently used
    assert memo.get("b") is None and len(memo) == 3
    assert [memo.get(k) for k in "acd"] == ["A", "C", "D"]
    memo.put(("x", [1]), "unhashable")  # never stored
    assert memo.get(("x", [1])) is None and len(memo) == 3
    memo.clear()
    assert memo.get("a") is None and len(memo) == 0
