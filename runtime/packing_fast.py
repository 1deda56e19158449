"""One straight-line function per kernel that accepts a repeated kind of call, or declines it.

Most launches repeat the previous one's kinds of arguments: tensors of the same class, dtype,
device, shape and strides, at new addresses, and plain ints and floats. For such a call the
full checks of the argument binder (packing.py) would derive the same facts again. The binder
remembers, per array argument, the few kinds of arrays it accepted last (*memos*: the probe's
answer, array_probes.py, and the carrier values the array's layout yielded); this module
generates, once per kernel, a function that checks a call against those memos and the scalar facts in one frame,
with every constant (slots, masks, bounds) written into its code, stores the values and packs
the parameter buffer.

The generated function never refuses anything: any doubt (no memo yet, another class, shape,
dtype or device, a misaligned pointer, an int out of range, unequal carriers, a value that does
not pack) makes it return False, and the binder's full path then decides the call and words
the error. So it can only accept calls that the full path accepts with the same values.

TMA descriptor parameters are part of the same function: after the checks it reads each
descriptor's key (the source's pointer, extents and byte strides) from the values just bound
and takes the bytes from the parameter's memo, so that one ``pack_into`` writes everything.

Code generation (as ``dataclasses`` and ``namedtuple`` do) is what makes this cheap: a closure
per argument costs a call, a tuple and a loop per parameter; the generated code costs none.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .array_probes import HOST, OTHER, known_probe, torch_probe
from .dtypes import bf16_bits


@dataclass(frozen=True)
class FastPointer:
    """An array argument: its memo index, pointer slot, carrier slots and alignment mask."""

    memo: int
    slot: int
    carriers: tuple[int, ...]
    mask: int


@dataclass(frozen=True)
class FastInt:
    """An integer scalar argument: acceptable iff ``lo <= v <= hi and v % divisor == 0``."""

    slot: int
    lo: int
    hi: int
    divisor: int


@dataclass(frozen=True)
class FastFloat:
    """A floating-point scalar argument (stored as a Python float, or bf16 bits)."""

    slot: int
    bf16: bool


FastArg = FastPointer | FastInt | FastFloat


@dataclass(frozen=True)
class FastTma:
    """A TMA descriptor parameter: its slot, and how its key is read from the bound values.

    The key is flat: the source's pointer slot, then per extent and per byte stride (TMA's
    dimension order) ``(slot, factor)`` for a value read from a slot (times ``factor``) or
    ``(None, constant)``. ``memo`` maps keys to descriptor bytes (the binder fills it);
    ``miss(key)`` returns the bytes of a key not in it (checking TMA's rules, encoding or
    finding them in the process-wide cache, and remembering them in ``memo``)."""

    slot: int
    source: int
    entries: tuple[tuple[int | None, int], ...]
    memo: dict = field(compare=False)
    miss: Callable[[tuple], bytes] = field(compare=False)


_F32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]  # the largest finite f32

#: Memo layout (packing.py writes it): (class, probe, dtype, device, shape, strides,
#: carrier values in the order of ``FastPointer.carriers``, whether the array is non-empty).
#: ``memos[i]`` is a tuple of them for array argument ``i``, most recent first.
MEMO_FIELDS = ("cls", "probe", "dtype", "device", "shape", "strides", "carriers", "nonempty")
MEMOS_PER_ARGUMENT = 4


def _pointer_lines(a: str, arg: FastPointer) -> list[str]:
    lines = [
        f"cls = {a}.__class__",
        "probe = known_probe(cls)",  # None: no probe, or a class never accepted yet
        "if probe is None:",
        "    return False",
        # torch's probe inlined (array_probes.torch_probe, the same reads): no frame or tuple
        "if probe is torch_probe:",
        f"    if {a}.is_cuda:",
        f"        device = {a}.get_device()",
        "    else:",
        f"        device = {HOST} if {a}.is_cpu else {OTHER}",
        f"    p, shape, strides, dtype = {a}.data_ptr(), {a}.shape, {a}.stride(), {a}.dtype",
        "else:",
        f"    p, shape, strides, dtype, device = probe({a})",
        f"for m in memos[{arg.memo}]:",
        "    if (",
        "        cls is m[0]",
        "        and dtype is m[2]",
        "        and device == m[3]",
        "        and shape == m[4]",
        "        and strides == m[5]",
        "    ):",
        "        break",
        "else:",
        "    return False",
    ]
    if arg.mask:
        lines += [f"if p & {arg.mask} and m[7]:", "    return False"]
    lines.append(f"values[{arg.slot}] = p")
    if arg.carriers:
        lines.append("c = m[6]")
        lines += [f"values[{slot}] = c[{i}]" for i, slot in enumerate(arg.carriers)]
    return lines


def _int_lines(a: str, arg: FastInt) -> list[str]:
    test = f"{a}.__class__ is not int or not {arg.lo} <= {a} <= {arg.hi}"
    if arg.divisor != 1:
        test += f" or {a} % {arg.divisor}"
    return [f"if {test}:", "    return False", f"values[{arg.slot}] = {a}"]


def _float_lines(a: str, arg: FastFloat) -> list[str]:
    """Floats as they are; ints that a double holds exactly as floats (as ``float()`` would).
    bf16 values are converted here, so only those that an f32 holds (what ``bf16_bits`` takes)."""
    if arg.bf16:
        return [
            f"if {a}.__class__ is float and {-_F32_MAX!r} <= {a} <= {_F32_MAX!r}:",
            f"    values[{arg.slot}] = bf16_bits({a})",
            f"elif {a}.__class__ is int and {-(1 << 53)} <= {a} <= {1 << 53}:",
            f"    values[{arg.slot}] = bf16_bits(float({a}))",
            "else:",
            "    return False",
        ]
    return [
        f"if {a}.__class__ is float:",
        f"    values[{arg.slot}] = {a}",
        f"elif {a}.__class__ is int and {-(1 << 53)} <= {a} <= {1 << 53}:",
        f"    values[{arg.slot}] = float({a})",
        "else:",
        "    return False",
    ]


def _tma_lines(j: int, t: FastTma) -> list[str]:
    """The descriptor of a TMA parameter: its key from the values just bound, the bytes from
    the parameter's memo (a dict lookup) or its ``miss`` function. The descriptor is a
    function of exactly that key (the box is the parameter's own), so a memo hit is the
    encoding the full path would make."""
    parts = [f"values[{t.source}]"]
    for slot, k in t.entries:
        if slot is None:
            parts.append(str(k))
        else:
            parts.append(f"values[{slot}]" if k == 1 else f"values[{slot}] * {k}")
    return [
        f"k = ({', '.join(parts)})",
        f"d = tma_get{j}(k)",
        "if d is None:",
        f"    d = tma_miss{j}(k)",
        f"values[{t.slot}] = d",
    ]


def fast_binder(
    arguments: Sequence[FastArg],
    equal_pairs: Sequence[tuple[int, int]],
    memos: list[Any],
    values: list[Any],
    pack_into: Callable[..., None],
    raw: Any,
    descriptors: Sequence[FastTma] = (),
) -> Callable[[Sequence[Any]], bool]:
    """``fast(args) -> bool``: True when the call was bound and packed without the full path.

    ``memos`` is read at every call (the binder replaces its entries as it learns); ``values``
    is the binder's list of parameter values and ``pack_into(raw, 0, *values)`` packs them,
    the TMA ``descriptors`` included: their bytes are looked up after the checks and packed
    with the rest (one ``pack_into``, no copy of 128 bytes per descriptor). Only a
    descriptor's ``miss`` may raise (a tensor that breaks TMA's rules, an encoding error).
    """
    names = [f"a{i}" for i in range(len(arguments))]
    body = [f"if len(args) != {len(arguments)}:", "    return False"]
    if names:
        body.append(f"{', '.join(names)}{',' if len(names) == 1 else ''} = args")
    for a, arg in zip(names, arguments):
        if isinstance(arg, FastPointer):
            body += _pointer_lines(a, arg)
        elif isinstance(arg, FastInt):
            body += _int_lines(a, arg)
        else:
            body += _float_lines(a, arg)
    for first, other in equal_pairs:
        body += [f"if values[{first}] != values[{other}]:", "    return False"]
    for j, t in enumerate(descriptors):
        body += _tma_lines(j, t)
    body += [
        "try:",
        "    pack_into(raw, 0, *values)",
        "except (OverflowError, struct_error):",
        "    return False",
        "return True",
    ]
    source = "def fast(args):\n" + "".join(f"    {line}\n" for line in body)
    namespace = {
        "memos": memos,
        "values": values,
        "pack_into": pack_into,
        "raw": raw,
        "bf16_bits": bf16_bits,
        "known_probe": known_probe,
        "torch_probe": torch_probe,
        "struct_error": struct.error,
    }
    for j, t in enumerate(descriptors):
        namespace[f"tma_get{j}"] = t.memo.get  # the memo is cleared, never replaced
        namespace[f"tma_miss{j}"] = t.miss
    exec(compile(source, "<layoutc fast argument binder>", "exec"), namespace)
    return namespace["fast"]
