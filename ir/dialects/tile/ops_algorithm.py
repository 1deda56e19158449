"""The algorithms: tile.copy, tile.copy_if, tile.gemm, tile.axpby, tile.fill, tile.clear, and
the cp.async group ops (tile.cp_async_commit, tile.cp_async_wait).

Each verifier applies CuTe's rules (cute-docs/04_algorithms.md, include/cute/algorithm/*.hpp)
to the operand types and reports a violation at the op, naming the mismatch. Algorithms
dispatch nothing themselves: select-atoms and lower-algorithms do.

Element conversion: a copy without an atom (or with the universal atom) may change the element
type; each element converts as C++'s ``static_cast`` does (CuTe's copy): float to float rounds
to nearest even, integer to float rounds to nearest, float to integer truncates toward zero
(saturating is not promised), integer narrowing keeps the low bits and widening sign-extends.
``i1`` converts only to ``i1``. Atoms that move bits (cp.async, ldmatrix) need equal types.
"""

from __future__ import annotations

from typing import Any

from ...algebra import rank, size
from ...algebra.errors import LayoutError
from ...core.asm import OpAsmParser, OpAsmPrinter
from ...core.attributes import IntegerAttr
from ...core.constraints import Constraint
from ...core.errors import VerifyError
from ...core.location import Location
from ...core.opdef import operand, opt_operand, opt_prop, prop
from ...core.operation import Operation
from ...core.types import FloatType, i1, i64
from ...core.values import Value
from ..layout.types import IntTupleType
from .agreement import axpby_problem, copy_if_problem, copy_problem, gemm_problem
from .attributes import CopyAtomAttr, MMAAtomAttr
from .base import parse_signature, require_memory_tensor
from .checks import atom_value_mode_fits, provably_equal
from .effects import MemoryEffects
from .inference import diagnostic_message, operand_arg, operand_origin
from .origins import element_at
from .spaces import COORD, RMEM
from .tiled import CopyAtom
from .types import TensorType

__all__ = [
    "ALGORITHM_OPS",
    "ASYNC_GROUP_OPS",
    "COPY_OPS",
    "FILL_OPS",
    "AxpbyOp",
    "ClearOp",
    "CopyIfOp",
    "CopyOp",
    "CpAsyncCommitOp",
    "CpAsyncWaitOp",
    "FillOp",
    "GemmOp",
]

_VECTOR_BITS = (8, 16, 32, 64, 128)


def _layout(t: TensorType, slot: int) -> Any:
    return operand_arg(t, slot)


def _check_conversion(src: TensorType, dst: TensorType, atom: CopyAtomAttr | None) -> None:
    if src.element is dst.element:
        return
    if atom is not None and atom.atom_name != "universal":
        raise VerifyError(
            f"atom '{atom.atom_name}' moves bits: source and destination element types must be "
            f"equal, got {src.element_name} and {dst.element_name}"
        )
    if src.element_name == "i1" or dst.element_name == "i1":
        raise VerifyError(
            f"cannot convert {src.element_name} to {dst.element_name} in a copy (i1 converts only "
            "to i1)"
        )


def _check_vector_bits(op: Operation, src: TensorType, dst: TensorType) -> None:
    attr = op.properties.get("vector_bits")
    if attr is None:
        return
    bits = attr.value  # type: ignore[attr-defined]
    if bits not in _VECTOR_BITS:
        raise VerifyError(f"'vector_bits' must be one of 8, 16, 32, 64, 128, got {bits}")
    if src.element is not dst.element:
        raise VerifyError("'vector_bits' needs equal source and destination element types")
    eb = src.element_bits
    if bits % eb:
        raise VerifyError(f"'vector_bits' = {bits} is not a whole number of {eb}-bit elements")


def _check_copy_atom(atom: CopyAtomAttr, src: TensorType, dst: TensorType, s: Any, d: Any) -> None:
    op = atom.op
    why = op.check_spaces(src.space, dst.space)
    if why is not None:
        raise VerifyError(why)
    why = op.check_element_bits(src.element_bits)
    if why is not None:
        raise VerifyError(why)
    try:
        typed = CopyAtom(op, src.element_name)
    except ValueError as e:
        raise VerifyError(str(e)) from None
    if rank(s) != rank(d):
        raise VerifyError(
            f"with atom '{op.name}' source and destination must have equal ranks (CuTe), got "
            f"{rank(s)} and {rank(d)}"
        )
    fits_src = atom_value_mode_fits(s, typed.num_values_src)
    fits_dst = atom_value_mode_fits(d, typed.num_values_dst)
    if not (fits_src or fits_dst):
        raise VerifyError(
            f"atom '{op.name}' ({op.bits} bits) moves {typed.num_values_src} {src.element_name} "
            f"per thread, but the source's value mode (mode 0) is {_mode0(s)} and the "
            f"destination's is {_mode0(d)}: partition with a tiled copy of this atom"
        )
    # Both sides make the same number of instructions (CuTe's copy iterates them together):
    # equal sizes when the atom moves as many values per thread on both sides, else (ldmatrix
    # and stmatrix .x1/.x2: a whole 16-byte row on the shared-memory side) in proportion.
    ns, nd = size(s), size(d)
    vs, vd = typed.num_values_src, typed.num_values_dst
    if vs != vd and not provably_equal(ns * vd, nd * vs):
        raise VerifyError(
            f"atom '{op.name}' moves {vs} values per thread and instruction from the source "
            f"and {vd} to the destination, but the source has {ns} elements and the "
            f"destination {nd}: they make different numbers of instructions"
        )


def _sides_differ(atom: CopyAtomAttr | None, src: TensorType) -> bool:
    """Does ``atom`` move different numbers of values per thread on its two sides?"""
    if atom is None:
        return False
    try:
        typed = CopyAtom(atom.op, src.element_name)
    except ValueError:
        return False  # _check_copy_atom reports it
    return typed.num_values_src != typed.num_values_dst


def _mode0(layout: Any) -> str:
    from ...algebra.inttuple import format_tuple
    from ...algebra.layout import get

    m = get(layout, 0) if rank(layout) > 1 else layout
    return format_tuple(m.shape)


def _raise_if(problem: str | None) -> None:
    if problem is not None:
        raise VerifyError(problem)


def _print_algorithm(op: Operation, p: OpAsmPrinter, elided: tuple[str, ...] = ()) -> None:
    p.write(" ")
    p.print_operands(op.operands)
    p.print_attr_dict(op, elided)
    p.write(" : ")
    p.print_types(op.operand_types)


def _parse_algorithm(cls: type[Operation], p: OpAsmParser) -> Operation:
    operands = p.parse_operand_list()
    attrs = p.parse_optional_attr_dict()
    types, _ = parse_signature(p, len(operands), False)
    if len(types) != len(operands):
        raise p.error(f"expected {len(operands)} types, got {len(types)}")
    values = p.resolve_operands(operands, types)
    return cls.create(values, attributes=attrs, loc=p.loc)


class _AlgorithmOp(Operation):
    """Algorithms print ``name %a, %b {attrs} : Ta, Tb``."""

    def print_custom(self, p: OpAsmPrinter) -> None:
        _print_algorithm(self, p)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        return _parse_algorithm(cls, p)


def _props(atom: Any = None, vector_bits: int | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {}
    if atom is not None:
        props["atom"] = atom
    if vector_bits is not None:
        props["vector_bits"] = IntegerAttr(vector_bits, i64)
    return props


_MemoryTensor = Constraint(
    lambda t: isinstance(t, TensorType) and t.space != COORD, "a !tile.tensor in memory"
)


class CopyOp(_AlgorithmOp):
    """``tile.copy %src, %dst {atom = #tile.copy_atom<"universal", 128>, vector_bits = 128} :
    !tile.tensor<...>, !tile.tensor<...>``: dst(i) = src(i) for every i (CuTe's copy)."""

    name = "tile.copy"
    traits = (MemoryEffects(reads=("src",), writes=("dst",)),)
    src = operand(_MemoryTensor)
    dst = operand(_MemoryTensor)
    atom = opt_prop(CopyAtomAttr)
    vector_bits = opt_prop(IntegerAttr)

    def __init__(
        self,
        src: Value,
        dst: Value,
        atom: CopyAtomAttr | None = None,
        vector_bits: int | None = None,
        loc: Location | None = None,
    ):
        super().__init__(operands=[src, dst], properties=_props(atom, vector_bits), loc=loc)

    def verify_(self) -> None:
        st = require_memory_tensor(self.src.type, "source")
        dt = require_memory_tensor(self.dst.type, "destination")
        try:
            s, d = _layout(st, 0), _layout(dt, 1)
            _check_conversion(st, dt, self.atom)
            if not _sides_differ(self.atom, st):  # else _check_copy_atom counts instructions
                _raise_if(copy_problem(self.src, self.dst))
            if self.atom is not None:
                _check_copy_atom(self.atom, st, dt, s, d)
            _check_vector_bits(self, st, dt)
        except LayoutError as e:
            raise VerifyError(diagnostic_message(e)) from None


def _coordinate_rank(pred: TensorType) -> Any:
    """The rank of the predicate's coordinates (its origin plus the layout's values)."""
    layout = _layout(pred, 0)
    value = element_at(operand_origin(pred, 0, layout), layout(0))
    return len(value) if isinstance(value, tuple) else 1


class CopyIfOp(_AlgorithmOp):
    """``tile.copy_if %pred, %src, %dst[, %bounds] : ...``: dst(i) = src(i) where pred(i).

    ``%pred`` is an i1 tensor, or a coordinate tensor whose element at i is compared with
    ``%bounds`` (a ``!layout.int_tuple``, e.g. the residue of a partial tile): pred(i) is
    ``elem_less(pred(i), bounds)``. ``%pred`` is shaped like ``%src`` (with an atom it may
    omit the value mode, as in CuTe).
    """

    name = "tile.copy_if"
    traits = (MemoryEffects(reads=("pred", "src"), writes=("dst",)),)
    pred = operand(TensorType)
    src = operand(_MemoryTensor)
    dst = operand(_MemoryTensor)
    bounds = opt_operand(IntTupleType)
    atom = opt_prop(CopyAtomAttr)
    vector_bits = opt_prop(IntegerAttr)

    def __init__(
        self,
        pred: Value,
        src: Value,
        dst: Value,
        bounds: Value | None = None,
        atom: CopyAtomAttr | None = None,
        vector_bits: int | None = None,
        loc: Location | None = None,
    ):
        operands: list[Any] = [pred, src, dst, [bounds] if bounds is not None else []]
        super().__init__(operands=operands, properties=_props(atom, vector_bits), loc=loc)

    def verify_(self) -> None:
        pt = self.pred.type
        st = require_memory_tensor(self.src.type, "source")
        dt = require_memory_tensor(self.dst.type, "destination")
        try:
            s, d = _layout(st, 1), _layout(dt, 2)
            if pt.space == COORD:
                if self.bounds is None:
                    raise VerifyError(
                        "a coordinate-tensor predicate needs the bounds operand (an "
                        "!layout.int_tuple) to compare coordinates with"
                    )
                crank = _coordinate_rank(pt)
                brank = rank(self.bounds.type.parsed.template)
                if brank < crank:
                    raise VerifyError(
                        f"predicate coordinates have rank {crank} but the bounds have rank {brank}"
                    )
            else:
                if pt.element is not i1:
                    raise VerifyError(
                        f"the predicate must hold i1 elements (or coordinates), got "
                        f"{pt.element_name}"
                    )
                if self.bounds is not None:
                    raise VerifyError("bounds are only used with a coordinate-tensor predicate")
            _check_conversion(st, dt, self.atom)
            _raise_if(copy_if_problem(self.pred, self.src, self.dst, self.atom is not None))
            if self.atom is not None:
                _check_copy_atom(self.atom, st, dt, s, d)
            _check_vector_bits(self, st, dt)
        except LayoutError as e:
            raise VerifyError(diagnostic_message(e)) from None

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        operands = p.parse_operand_list()
        attrs = p.parse_optional_attr_dict()
        types, _ = parse_signature(p, len(operands), False)
        if len(operands) not in (3, 4) or len(types) != len(operands):
            raise p.error(
                f"'tile.copy_if' takes 3 or 4 operands with their types, got {len(operands)}"
            )
        values = p.resolve_operands(operands, types)
        return cls.create(values, attributes=attrs, loc=p.loc)


class GemmOp(_AlgorithmOp):
    """``tile.gemm %a, %b, %c {atom = #tile.mma_atom<"...">} : Ta, Tb, Tc``: C += A * B in place,
    in one of the five mode forms of CuTe's gemm (cute-docs/04_algorithms.md)."""

    name = "tile.gemm"
    traits = (MemoryEffects(reads=("a", "b", "c"), writes=("c",)),)
    a = operand(_MemoryTensor)
    b = operand(_MemoryTensor)
    c = operand(_MemoryTensor)
    atom = opt_prop(MMAAtomAttr)
    # 0: C's values before the op are ignored, C = A * B (a warpgroup MMA's scale-d operand
    # 0 on its first K-step: no accumulator cleared first); absent (1): C += A * B
    scale_d = opt_prop(IntegerAttr)

    def __init__(
        self,
        a: Value,
        b: Value,
        c: Value,
        atom: MMAAtomAttr | None = None,
        loc: Location | None = None,
        scale_d: int | None = None,
    ):
        props = _props(atom)
        if scale_d is not None:
            props["scale_d"] = IntegerAttr(scale_d, i64)
        super().__init__(operands=[a, b, c], properties=props, loc=loc)

    def verify_(self) -> None:
        at = require_memory_tensor(self.a.type, "A")
        bt = require_memory_tensor(self.b.type, "B")
        ct = require_memory_tensor(self.c.type, "C")
        op = self.atom.op if self.atom is not None else None
        try:
            why = gemm_problem(self.a, self.b, self.c, op)
        except LayoutError as e:
            raise VerifyError(diagnostic_message(e)) from None
        if why is not None:
            raise VerifyError(why)
        if op is None:
            from .atoms import mma_operation

            op = mma_operation("FMA")
        why = op.check_types(at.element_name, bt.element_name, ct.element_name)
        if why is not None:
            raise VerifyError(why)
        if self.scale_d is not None and (
            self.scale_d.value not in (0, 1) or (self.scale_d.value == 0 and op.wgmma is None)
        ):
            raise VerifyError(
                f"scale_d = {self.scale_d.value}: 1 (accumulate), or 0 (C = A * B) with a "
                f"warpgroup MMA atom, got atom '{op.name}'"
            )
        if op.wgmma is not None:
            a_space = RMEM if op.wgmma.a_from_registers else "smem"
            for what, t, space in (("A", at, a_space), ("B", bt, "smem"), ("C", ct, RMEM)):
                if t.space != space:
                    raise VerifyError(
                        f"warpgroup MMA atom '{op.name}' reads {what} from {space}, but {what} "
                        f"is in {t.space}"
                    )
        elif not op.is_fma:
            for what, t in (("A", at), ("B", bt), ("C", ct)):
                if t.space != RMEM:
                    raise VerifyError(
                        f"MMA atom '{op.name}' reads {what} from registers (rmem), but {what} is "
                        f"in {t.space}: copy it into a fragment first"
                    )


class AxpbyOp(_AlgorithmOp):
    """``tile.axpby %alpha, %x, %beta, %y : f32, Tx, f32, Ty``: y = alpha * x + beta * y."""

    name = "tile.axpby"
    traits = (MemoryEffects(reads=("x", "y"), writes=("y",)),)
    alpha = operand()
    x = operand(_MemoryTensor)
    beta = operand()
    y = operand(_MemoryTensor)

    def __init__(self, alpha: Value, x: Value, beta: Value, y: Value, loc: Location | None = None):
        super().__init__(operands=[alpha, x, beta, y], loc=loc)

    def verify_(self) -> None:
        xt = require_memory_tensor(self.x.type, "x")
        yt = require_memory_tensor(self.y.type, "y")
        if xt.element is not yt.element:
            raise VerifyError(
                f"x and y must have one element type, got {xt.element_name} and {yt.element_name}"
            )
        if yt.element_name == "i1":
            raise VerifyError("axpby does not compute on i1 elements")
        if self.alpha.type is not self.beta.type:
            raise VerifyError(
                f"alpha and beta must have one type, got '{self.alpha.type.text}' and "
                f"'{self.beta.type.text}'"
            )
        c, elem = self.alpha.type, yt.element
        if c is not elem and (
            not isinstance(c, FloatType) or (isinstance(elem, FloatType) and c.width < elem.width)
        ):
            raise VerifyError(
                f"alpha has type '{c.text}' but the tensors hold '{yt.element_name}' (the "
                "scalars have the element type, or a float type at least as wide that the op "
                "computes in)"
            )
        try:
            _raise_if(axpby_problem(self.x, self.y))
        except LayoutError as e:
            raise VerifyError(diagnostic_message(e)) from None


def _check_store_bits(op: Operation, t: TensorType) -> None:
    """``vector_bits`` of a fill/clear: a width of 8..128 bits holding whole elements."""
    attr = op.properties.get("vector_bits")
    if attr is None:
        return
    bits = attr.value  # type: ignore[attr-defined]
    if bits not in _VECTOR_BITS:
        raise VerifyError(f"'vector_bits' must be one of 8, 16, 32, 64, 128, got {bits}")
    eb = t.element_bits
    if bits % eb:
        raise VerifyError(f"'vector_bits' = {bits} is not a whole number of {eb}-bit elements")


class FillOp(_AlgorithmOp):
    """``tile.fill %t, %v {vector_bits?} : T, f32``: every element of ``%t`` becomes ``%v``
    (``vector_bits``, written by prove-vectorization, is the proven store width)."""

    name = "tile.fill"
    traits = (MemoryEffects(writes=("tensor",)),)
    tensor = operand(_MemoryTensor)
    value = operand()
    vector_bits = opt_prop(IntegerAttr)

    def __init__(
        self,
        tensor: Value,
        value: Value,
        vector_bits: int | None = None,
        loc: Location | None = None,
    ):
        super().__init__(
            operands=[tensor, value], properties=_props(vector_bits=vector_bits), loc=loc
        )

    def verify_(self) -> None:
        t = require_memory_tensor(self.tensor.type, "the filled tensor")
        if self.value.type is not t.element:
            raise VerifyError(
                f"fill value has type '{self.value.type.text}' but the tensor holds "
                f"'{t.element_name}'"
            )
        _check_store_bits(self, t)


class ClearOp(_AlgorithmOp):
    """``tile.clear %t {vector_bits?} : T``: every element of ``%t`` becomes zero."""

    name = "tile.clear"
    traits = (MemoryEffects(writes=("tensor",)),)
    tensor = operand(_MemoryTensor)
    vector_bits = opt_prop(IntegerAttr)

    def __init__(self, tensor: Value, vector_bits: int | None = None, loc: Location | None = None):
        super().__init__(operands=[tensor], properties=_props(vector_bits=vector_bits), loc=loc)

    def verify_(self) -> None:
        t = require_memory_tensor(self.tensor.type, "the cleared tensor")
        _check_store_bits(self, t)


class CpAsyncCommitOp(Operation):
    """``tile.cp_async_commit``: close the current group of cp.async copies (PTX
    ``cp.async.commit_group``)."""

    name = "tile.cp_async_commit"
    assembly_format = "attr-dict"
    traits = (MemoryEffects(synchronizes=True),)

    def __init__(self, loc: Location | None = None):
        super().__init__(loc=loc)


class CpAsyncWaitOp(Operation):
    """``tile.cp_async_wait {pending = 1}``: wait until at most ``pending`` committed groups
    are still in flight (PTX ``cp.async.wait_group``; 0 waits for all)."""

    name = "tile.cp_async_wait"
    traits = (MemoryEffects(synchronizes=True),)
    pending = prop(IntegerAttr, default=IntegerAttr(0, i64))

    def __init__(self, pending: int = 0, loc: Location | None = None):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)}, loc=loc)

    def verify_(self) -> None:
        n = self.pending.value
        if not 0 <= n < 1 << 31:  # nvvm.cp.async.wait.group's n is an i32
            raise VerifyError(f"'pending' must be in [0, 2^31), got {n}")

    # Hand-written: the generic attr-dict prints ``pending`` even at its default (0), which an
    # assembly format would elide.
    def print_custom(self, p: OpAsmPrinter) -> None:
        p.print_attr_dict(self)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> CpAsyncWaitOp:
        return cls.create(attributes=p.parse_optional_attr_dict(), loc=p.loc)


COPY_OPS: tuple[type[Operation], ...] = (CopyOp, CopyIfOp)
FILL_OPS: tuple[type[Operation], ...] = (FillOp, ClearOp)
ALGORITHM_OPS: tuple[type[Operation], ...] = (*COPY_OPS, GemmOp, AxpbyOp, *FILL_OPS)
"""The algorithms lower-algorithms expands (``isinstance(op, ALGORITHM_OPS)``)."""
ASYNC_GROUP_OPS: tuple[type[Operation], ...] = (CpAsyncCommitOp, CpAsyncWaitOp)
