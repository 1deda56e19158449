"""Marshalling call arguments into a kernel's parameter list, with the work done up front.

``ParamBuffer`` is the storage both runtimes hand to a kernel: one byte buffer holding every
parameter at its natural alignment and a ``void*`` table pointing into it (the layout
``cuLaunchKernel``'s ``kernelParams`` expects, and what the CPU launcher reads). ``ArgumentBinder``
compiles a ``KernelSpec`` into one small checker/writer per argument, so a launch only runs those
closures and one ``struct.pack_into``. The checks include the facts the code was compiled under
(alignment, divisibility, bounds, equal carriers: packing_facts.py).
"""

from __future__ import annotations

import ctypes
import operator
import struct
from collections.abc import Callable, Sequence
from typing import Any

from .abi import POINTER, TMA, KernelSpec, Param
from .array_probes import HOST, probe_for
from .arrays import CPU, CUDA, ArrayFacts, array_facts
from .dtypes import DTYPES, bf16_bits
from .errors import ArgumentError, NotSupportedError
from .layout_text import coalesce_static, leaves, modes, parse_layout
from .packing_facts import (
    alignment_mask,
    alignment_violation,
    integer_bounds,
    integer_violation,
    layout_entry,
    symbolic_layout,
)
from .packing_fast import (
    MEMOS_PER_ARGUMENT,
    FastArg,
    FastFloat,
    FastInt,
    FastPointer,
    FastTma,
    fast_binder,
)

#: Called by the GPU runtime for a host array: returns the device pointer standing in for it.
Stager = Callable[[ArrayFacts, Param], int]


class ParamBuffer:
    """Parameter storage plus the ``void**`` table that points at each parameter."""

    def __init__(self, params: Sequence[Param]) -> None:
        fmt = "<"
        offset = 0
        offsets = []
        for p in params:
            size, align = p.byte_size, p.byte_align
            if p.kind == TMA:
                code = f"{size}s"
            elif p.kind == POINTER:
                code = "Q"
            else:
                code = DTYPES[p.dtype].struct_format
            pad = (-offset) % align
            fmt += "x" * pad + code
            offset += pad
            offsets.append(offset)
            offset += size
        self.packer = struct.Struct(fmt)
        self.size = offset
        self.offsets = tuple(offsets)
        self.buffer = ctypes.create_string_buffer(max(offset, 8))
        base = ctypes.addressof(self.buffer)
        self.table = (ctypes.c_void_p * max(len(offsets), 1))(*[base + o for o in offsets])
        self.table_address = ctypes.addressof(self.table)

    def store(self, values: Sequence[Any]) -> None:
        """Write all parameter values (ints for pointers) into the buffer."""
        self.packer.pack_into(self.buffer, 0, *values)


#: Descriptors each TMA parameter remembers (its last tensors; rotating input sets fit).
TMA_MEMOS = 8


class ArgumentBinder:
    """Checks call arguments against a kernel's ABI and writes its parameter values.

    ``runs_on`` is ``"cpu"`` (arrays must live in host memory) or ``"cuda"`` (arrays must live
    on the kernel's device; host arrays are staged through ``stager``).
    """

    def __init__(self, spec: KernelSpec, runs_on: str, device_id: int = 0) -> None:
        self.spec = spec
        self.runs_on = runs_on
        self.device_id = device_id
        self.slots = {p.name: i for i, p in enumerate(spec.params)}
        self.buffer = ParamBuffer(spec.params)
        self._pack_into = self.buffer.packer.pack_into
        self._raw = self.buffer.buffer
        self.values: list[Any] = [b"" if p.kind == TMA else 0 for p in spec.params]
        arguments = spec.arguments
        self.argument_names = tuple(p.name for p in arguments)
        # carrier slot -> (argument index, tensor parameter, dimension, "extent" or "stride")
        self._origins: dict[int, tuple[int, Param, int, str]] = {}
        # What the fast path knows of each argument, and per array argument its memos (the
        # kinds of arrays accepted last, most recent first: a kernel called alternately on
        # tensors of a few shapes stays on the fast path).
        self._fast_args: list[FastArg] = []
        self._memos: list[tuple] = [()] * sum(p.kind == POINTER for p in arguments)
        # The memos a call in progress would teach; they replace the old ones once it succeeds.
        self._learned: list[Any] = [None] * len(self._memos)
        self._binders = [self._make_binder(i, p) for i, p in enumerate(arguments)]
        self._equal_pairs = tuple(
            (self.slots[group[0]], self.slots[other]) for group in spec.equal for other in group[1:]
        )
        self._tma = [self._tma_plan(i, p) for i, p in enumerate(spec.params) if p.kind == TMA]
        self._fast = fast_binder(
            self._fast_args,
            self._equal_pairs,
            self._memos,
            self.values,
            self._pack_into,
            self._raw,
            self._tma,
        )

    def _tma_plan(self, index: int, param: Param) -> FastTma:
        """What a launch needs to find parameter ``index``'s descriptor, worked out once: the
        slots (or constants) of its key, the source's pointer then each extent and byte stride
        in TMA's dimension order, and a memo of the descriptors of the last few keys seen
        (rotating input sets fit), filled by ``miss`` from the process-wide cache."""
        from .tma import TmaBox

        t = param.tma
        slots = self.slots
        src = self.spec.params[slots[t.source]]
        elem = DTYPES[src.dtype].itemsize
        if t.mode == "im2col":
            from .tma_im2col import Im2colBox

            box: Any = Im2colBox(
                src.dtype, t.box[0], t.pixels, t.lower, t.upper, t.swizzle, t.traversal
            )
        else:
            box = TmaBox(src.dtype, t.box, t.swizzle)

        def entry(e: Any, factor: int) -> tuple[int | None, int]:
            return (slots[e], factor) if isinstance(e, str) else (None, e * factor)

        extents = tuple(entry(t.extents[m], 1) for m in t.dims)
        strides = tuple(entry(t.strides[m], elem) for m in t.dims)
        rank = len(extents)
        name = t.source
        memo: dict[tuple, bytes] = {}

        def miss(key: tuple) -> bytes:
            """The descriptor of ``key`` (address, extents..., byte strides...): TMA's rules
            checked and encoded, or found in the process-wide cache; remembered."""
            from . import tma

            data = tma.DESCRIPTORS.get(name, box, key[0], key[1 : 1 + rank], key[1 + rank :])
            if len(memo) >= TMA_MEMOS:
                memo.clear()
            memo[key] = data
            return data

        return FastTma(index, slots[t.source], extents + strides, memo, miss)

    def _encode_descriptors(self) -> None:
        """The full path's descriptors: each TMA parameter's from its source tensor's
        address, extents and strides as bound (runtime/tma.py), through the same memo the
        fast path reads; then the buffer is packed again with them."""
        values = self.values
        for t in self._tma:
            key = (values[t.source], *(c if s is None else values[s] * c for s, c in t.entries))
            data = t.memo.get(key)
            values[t.slot] = t.miss(key) if data is None else data
        self._pack_into(self._raw, 0, *values)

    # -- errors ---------------------------------------------------------------------------
    def _where(self, index: int, param: Param) -> str:
        return f"kernel {self.spec.name!r}, argument {index} ({param.name!r})"

    def _fail(self, index: int, param: Param, message: str) -> ArgumentError:
        return ArgumentError(f"{self._where(index, param)}: {message}")

    # -- binders --------------------------------------------------------------------------
    def _make_binder(self, index: int, param: Param) -> Callable[..., None]:
        if param.kind == POINTER:
            return self._pointer_binder(index, param)
        return self._scalar_binder(index, param, self.slots[param.name])

    def _scalar_binder(self, index: int, param: Param, slot: int) -> Callable[..., None]:
        values = self.values
        kind = DTYPES[param.dtype].kind
        if kind in ("int", "uint"):
            lo, hi, div = integer_bounds(param)
            self._fast_args.append(FastInt(slot, lo, hi, div))

            def not_an_int(value: Any) -> ArgumentError:
                got = type(value).__name__
                return self._fail(index, param, f"expected an integer ({param.dtype}), got {got}")

            def bind_int(value: Any, stager: Stager | None, keep: list, stream: int | None) -> None:
                if value.__class__ is int:
                    v = value
                elif value.__class__ is bool:  # True is an int to Python, never a size or count
                    raise not_an_int(value)
                else:
                    try:
                        v = operator.index(value)
                    except TypeError:
                        raise not_an_int(value) from None
                if not lo <= v <= hi or v % div:
                    raise self._fail(index, param, integer_violation(param, v, str(v), False))
                values[slot] = v

            return bind_int
        is_bf16 = param.dtype == "bf16"
        self._fast_args.append(FastFloat(slot, is_bf16))

        def bind_float(value: Any, stager: Stager | None, keep: list, stream: int | None) -> None:
            if isinstance(value, (str, bytes)) or hasattr(value, "__len__"):
                raise self._fail(
                    index, param, f"expected a number ({param.dtype}), got {type(value).__name__}"
                )
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise self._fail(
                    index, param, f"expected a number ({param.dtype}), got {type(value).__name__}"
                ) from None
            except OverflowError:  # an int beyond any float
                raise self._fail(index, param, f"{value!r} does not fit in {param.dtype}") from None
            if not is_bf16:
                values[slot] = v  # a value beyond the type's range fails in packing (_overflow)
                return
            try:
                values[slot] = bf16_bits(v)
            except OverflowError:
                raise self._fail(index, param, f"{value!r} does not fit in bf16") from None

        return bind_float

    def _pointer_binder(self, index: int, param: Param) -> Callable[..., None]:
        """The full check of an array argument; an accepted array becomes the argument's memo.

        The memo (packing_fast.py) holds what the array's probe (array_probes.py) said about it
        and the carrier values the full check derived: an array of the same class whose probe
        agrees on shape, strides, dtype and device has the same facts, so the fast path only
        checks and stores its pointer. Staged arrays are never memoised (the kernel reads a
        copy whose address the probe does not know).
        """
        full = self._checked_pointer_binder(index, param)
        values = self.values
        learned = self._learned
        memo_index = sum(isinstance(a, FastPointer) for a in self._fast_args)
        carrier_slots = tuple(self.slots[name] for name in param.dynamic)
        self._fast_args.append(
            FastPointer(memo_index, self.slots[param.name], carrier_slots, alignment_mask(param))
        )
        learnable_device = HOST if self.runs_on == CPU else self.device_id

        def bind_pointer(value: Any, stager: Stager | None, keep: list, stream: int | None) -> None:
            facts = full(value, stager, keep, stream)
            probe = probe_for(value.__class__)
            if probe is None:
                return
            ptr, shape, strides, dtype, device = probe(value)
            if device != learnable_device or ptr != facts.ptr:
                return  # staged, or the probe reads something else: never take the shortcut
            carriers = tuple(values[c] for c in carrier_slots)
            nonempty = 0 not in facts.shape
            learned[memo_index] = (
                value.__class__,
                probe,
                dtype,
                device,
                shape,
                strides,
                carriers,
                nonempty,
            )

        return bind_pointer

    def _checked_pointer_binder(self, index: int, param: Param) -> Callable[..., ArrayFacts]:
        """Every check of an array argument, from its ``ArrayFacts``; stores pointer and carriers."""
        values = self.values
        slot = self.slots[param.name]
        check_layout = self._layout_checker(index, param) if param.layout is not None else None
        runs_on = self.runs_on
        device_id = self.device_id
        mask = alignment_mask(param)
        writes = param.writes is not False

        def bind_checked(
            value: Any, stager: Stager | None, keep: list, stream: int | None
        ) -> ArrayFacts:
            try:
                facts = array_facts(value, stream)
            except ValueError as e:
                raise self._fail(index, param, str(e)) from None
            if facts is None:
                raise self._fail(
                    index, param, f"expected an array of {param.dtype}, got {type(value).__name__}"
                )
            if facts.dtype != param.dtype:
                got = facts.dtype or "an element type with no ABI equivalent"
                raise self._fail(index, param, f"expected {param.dtype} elements, got {got}")
            if facts.readonly and writes:
                raise self._fail(
                    index,
                    param,
                    "the array is read-only (writeable=False, a view of bytes, a read-only "
                    "mapping), but the kernel "
                    + ("writes this tensor" if param.writes else "may write it")
                    + "; pass a writeable array (a copy)",
                )
            if check_layout is not None:
                check_layout(facts)
            elif not _is_c_contiguous(facts.shape, facts.strides):
                raise self._fail(
                    index,
                    param,
                    f"the kernel indexes this pointer as a contiguous buffer, but the array has "
                    f"shape {facts.shape} and element strides {facts.strides}",
                )
            keep.append(facts.keepalive)
            if facts.device_type not in (CPU, CUDA):
                raise self._fail(
                    index,
                    param,
                    f"array lives on {facts.where}, but this kernel runs on "
                    f"{'the CPU' if runs_on == CPU else f'cuda:{device_id}'}",
                )
            if runs_on == CPU:
                if facts.device_type != CPU:
                    raise self._fail(
                        index,
                        param,
                        f"array lives on {facts.where}, but this kernel runs on the CPU",
                    )
                ptr = facts.ptr
            elif facts.device_type == CUDA:
                if facts.device_id != device_id:
                    raise self._fail(
                        index,
                        param,
                        f"array lives on {facts.where}, but the kernel runs on cuda:{device_id}",
                    )
                ptr = facts.ptr
            else:
                assert stager is not None
                ptr = stager(facts, param)  # the device copy is what the kernel reads
            if ptr & mask and 0 not in facts.shape:  # an empty array is touched nowhere
                raise self._misaligned(index, param, ptr)
            values[slot] = ptr
            return facts

        return bind_checked

    def _misaligned(self, index: int, param: Param, ptr: int) -> ArgumentError:
        layout = None
        if param.layout is not None:
            carriers = [self.spec.params[self.slots[n]] for n in param.dynamic]
            layout = symbolic_layout(param, carriers)
        return self._fail(index, param, alignment_violation(param, ptr, layout))

    def _layout_checker(self, index: int, param: Param) -> Callable[[ArrayFacts], None]:
        """Precompute, per mode, the static checks and the carrier slots of dynamic entries."""
        assert param.layout is not None
        shape, stride = parse_layout(param.layout)
        carriers = iter(self.slots[name] for name in param.dynamic)
        carrier_params = {self.slots[n]: self.spec.params[self.slots[n]] for n in param.dynamic}
        # Carrier slots are assigned in printed order: all shape '?' first, then stride '?'.
        shape_slots: list[list[int | None]] = []
        for s, _ in modes(shape, stride):
            shape_slots.append([next(carriers) if e is None else None for e in leaves(s)])
        stride_slots: list[list[int | None]] = []
        for _, d in modes(shape, stride):
            stride_slots.append([next(carriers) if e is None else None for e in leaves(d)])

        for i in range(len(shape_slots)):
            for what, slots in (("extent", shape_slots[i]), ("stride", stride_slots[i])):
                if len(slots) == 1 and slots[0] is not None:
                    self._origins[slots[0]] = (index, param, i, what)

        plan = []  # (kind, data) per mode
        for i, (s, d) in enumerate(modes(shape, stride)):
            if isinstance(s, tuple):
                if any(e is None for e in leaves(s)) or any(e is None for e in leaves(d)):
                    raise NotSupportedError(
                        f"not supported: kernel {self.spec.name!r}, parameter {param.name!r}: "
                        f"mode {i} of layout {param.layout!r} is nested and has dynamic entries; "
                        "the runtime binds one array dimension to one flat mode"
                    )
                plan.append(("nested", coalesce_static(s, d)))
            else:
                plan.append(("flat", (s, d, shape_slots[i][0], stride_slots[i][0])))
        rank = len(plan)
        values = self.values
        bounds = {slot: integer_bounds(p) for slot, p in carrier_params.items()}
        layout = param.layout
        offset_limit = (1 << (self.spec.index_bits - 1)) - 1

        def check(facts: ArrayFacts) -> None:
            if len(facts.shape) != rank:
                raise self._fail(
                    index,
                    param,
                    f"layout {layout} has {rank} modes but the array has "
                    f"{len(facts.shape)} dimensions (shape {facts.shape})",
                )
            for i, (kind, data) in enumerate(plan):
                extent, step = facts.shape[i], facts.strides[i]
                if kind == "flat":
                    s, d, s_slot, d_slot = data
                    if s_slot is not None:
                        _store(s_slot, extent, i, "extent")
                    elif s != extent:
                        raise self._fail(
                            index,
                            param,
                            f"dimension {i} has extent {extent}, layout {layout} requires {s}",
                        )
                    if d_slot is not None:
                        _store(d_slot, step, i, "stride")
                    elif d != step and extent > 1:
                        raise self._fail(
                            index,
                            param,
                            f"dimension {i} has element stride {step}, layout "
                            f"{layout} requires {d}",
                        )
                else:
                    pairs = data
                    ok = (not pairs and extent == 1) or (
                        len(pairs) == 1
                        and pairs[0][0] == extent
                        and (pairs[0][1] == step or extent == 1)
                    )
                    if not ok:
                        raise self._fail(
                            index,
                            param,
                            f"dimension {i} (extent {extent}, element stride {step}) "
                            f"does not match mode {i} of layout {layout}",
                        )
            reach = sum(max(n - 1, 0) * abs(d) for n, d in zip(facts.shape, facts.strides))
            if reach > offset_limit:
                raise self._fail(
                    index,
                    param,
                    f"element offsets reach {reach}, past {offset_limit}: the kernel was "
                    f"compiled with {self.spec.index_bits}-bit indices (compile with "
                    "index_bitwidth=64)",
                )

        def _store(slot: int, value: int, dim: int, what: str) -> None:
            lo, hi, div = bounds[slot]
            if not lo <= value <= hi or value % div:
                carrier = carrier_params[slot]
                subject = layout_entry(carrier, dim, what, value)
                raise self._fail(index, param, integer_violation(carrier, value, subject, True))
            values[slot] = value

        return check

    # -- use ------------------------------------------------------------------------------
    def bind(
        self, args: Sequence[Any], stager: Stager | None = None, stream: int | None = None
    ) -> Sequence[object]:
        """Check ``args`` and store the parameter values; returns objects to keep alive.

        A call like an accepted one takes the generated fast path (packing_fast.py); any other
        runs every check, which refuses it with a message or teaches the fast path its kind.
        """
        if self._fast(args):
            return ()
        return self.bind_checked(args, stager, stream)

    def bind_fast(self, args: Sequence[Any]) -> bool:
        """Bind ``args`` if they are like an accepted call's (packing_fast.py); False leaves the
        decision to ``bind_checked``."""
        return self._fast(args)

    def bind_checked(
        self, args: Sequence[Any], stager: Stager | None = None, stream: int | None = None
    ) -> Sequence[object]:
        """Every check of ``args`` (the errors' path); an accepted call teaches the fast path."""
        if len(args) != len(self._binders):
            raise ArgumentError(
                f"kernel {self.spec.name!r} takes {len(self._binders)} arguments "
                f"({', '.join(self.argument_names)}), got {len(args)}"
            )
        learned = self._learned
        learned[:] = [None] * len(learned)
        keep: list = []
        for binder, value in zip(self._binders, args):
            binder(value, stager, keep, stream)
        values = self.values
        for first, other in self._equal_pairs:
            if values[first] != values[other]:
                raise self._unequal(first, other)
        try:
            self._pack_into(self._raw, 0, *values)
        except (OverflowError, struct.error):
            raise self._overflow() from None
        if self._tma:
            self._encode_descriptors()
        for i, memo in enumerate(learned):  # only an accepted call teaches the fast path
            if memo is not None:
                key = memo[:6]
                others = tuple(m for m in self._memos[i] if m[:6] != key)
                self._memos[i] = (memo, *others[: MEMOS_PER_ARGUMENT - 1])
        return keep

    def _unequal(self, first: int, other: int) -> ArgumentError:
        """Two carriers of one layout symbol got different values from their arrays."""
        i, p, dim, what = self._origins[other]
        j, q, qdim, qwhat = self._origins[first]
        mine = layout_entry(self.spec.params[other], dim, what, self.values[other])
        theirs = layout_entry(self.spec.params[first], qdim, qwhat, self.values[first])
        return self._fail(
            i,
            p,
            f"{mine}, but argument {j} ({q.name!r}) has {theirs}; the kernel was compiled "
            "assuming they are equal",
        )

    def _overflow(self) -> ArgumentError:
        """Name the parameter whose value does not fit its type (e.g. 1e40 for an f32)."""
        for p, v in zip(self.spec.params, self.values):
            if p.kind == TMA:
                continue
            fmt = "<Q" if p.kind == POINTER else "<" + DTYPES[p.dtype].struct_format
            try:
                struct.pack(fmt, v)
            except (OverflowError, struct.error):
                return ArgumentError(
                    f"kernel {self.spec.name!r}, parameter {p.name!r}: {v!r} does not fit in {p.dtype}"
                )
        return ArgumentError(f"kernel {self.spec.name!r}: a parameter value does not fit its type")


def _is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    if len(shape) == 1:
        return strides[0] == 1 or shape[0] <= 1
    if 0 in shape:
        return True  # an empty array is touched nowhere
    expected = 1
    for extent, step in zip(reversed(shape), reversed(strides)):
        if extent != 1 and step != expected:
            return False
        expected *= extent
    return True
