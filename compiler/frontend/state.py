"""The state of the trace in progress: where ops go and how they are located and checked.

Every DSL function builds IR through :func:`emit`, which stamps the op with the user's
``file:line:col`` (see :mod:`.locations`), inserts it at the current insertion point and runs the
op's own verifier at once, so a shape mismatch is reported at the line that caused it rather than
after the whole kernel was traced.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, TypeVar

from ..ir.core.block import Block
from ..ir.core.builder import Builder, InsertionPoint
from ..ir.core.errors import VerifyError
from ..ir.core.location import Location, UnknownLoc
from ..ir.core.operation import Operation
from ..ir.core.traits import Terminator
from .errors import CompileError
from .locations import CodeSet, user_location

_Op = TypeVar("_Op", bound=Operation)


class TraceState:
    """One kernel being traced: its builder, its code objects and its launch facts."""

    __slots__ = (
        "block_size",
        "builder",
        "checked",
        "constants",
        "default_loc",
        "dynamic_smem_bytes",
        "dynamic_smem_min",
        "extras",
        "kernel_codes",
        "kernel_name",
        "loc_override",
        "module",
        "smem_bytes",
    )

    def __init__(
        self,
        builder: Builder,
        kernel_codes: CodeSet,
        block_size: tuple[int, int, int] | None,
        kernel_name: str,
        default_loc: Location | None = None,
    ):
        self.builder = builder
        self.kernel_codes = kernel_codes
        self.block_size = block_size
        self.kernel_name = kernel_name
        self.smem_bytes = 0
        # dynamic shared memory: where the next tensor starts (None: after one of dynamic
        # size) and the bytes the tensors of static size need (the launch default)
        self.dynamic_smem_bytes: int | None = 0
        self.dynamic_smem_min = 0
        # where ops go when no kernel frame is on the stack (the tracer building the arguments)
        self.default_loc = default_loc
        self.loc_override: Location | None = None
        # (block, type, value, python type) -> constant defined at the end of that block so far
        self.constants: dict[tuple, Any] = {}
        # per-trace tables of other modules (e.g. symbols bound to dynamic values)
        self.extras: dict[str, Any] = {}
        # ops whose own rules verify_local checked in place (the end of the trace does not
        # repeat them), and the module being traced (set by the tracer)
        self.checked: set[Operation] = set()
        self.module: Operation | None = None

    def location(self) -> Location:
        if self.loc_override is not None:
            return self.loc_override
        loc = user_location(self.kernel_codes)
        if isinstance(loc, UnknownLoc) and self.default_loc is not None:
            return self.default_loc
        return loc


_LOCAL = threading.local()


def current() -> TraceState:
    """The trace in progress, or a CompileError saying the DSL is used outside a kernel."""
    st = getattr(_LOCAL, "state", None)
    if st is None:
        raise CompileError(
            "layoutc DSL functions build kernel IR and can only be used inside a function "
            "decorated with @layoutc.kernel while it is being compiled"
        )
    return st


def active() -> TraceState | None:
    return getattr(_LOCAL, "state", None)


@contextlib.contextmanager
def tracing(state: TraceState) -> Iterator[TraceState]:
    saved = getattr(_LOCAL, "state", None)
    _LOCAL.state = state
    try:
        yield state
    finally:
        _LOCAL.state = saved


def location() -> Location:
    """The user location of the construct being traced now."""
    return current().location()


def error(message: str, loc: Location | None = None) -> CompileError:
    """A CompileError at ``loc`` (default: the user's current line)."""
    st = active()
    if loc is None and st is not None:
        loc = st.location()
    return CompileError(message, loc)


def emit(op: _Op, loc: Location | None = None) -> _Op:
    """Locate, insert and verify ``op``.

    Ops with regions are verified by their builder once complete, terminators with their parent.
    """
    st = current()
    op.location = loc if loc is not None else st.location()
    st.builder.insert(op)
    if not op.regions and not op.has_trait(Terminator):
        verify_local(op)
    return op


def verify_local(op: Operation) -> None:
    """The op's own invariants (counts, types, traits, ``verify_``) as a CompileError.

    The trace's ops are not changed once built, so the verification of the whole kernel at the
    end of the trace does not run these rules again for an op built where it stays, in the
    module (``TraceState.checked``)."""
    cls = type(op)
    op_def = cls._def
    if op_def is None:
        return
    try:
        op_def.verify(op)
        for trait in cls._verifying_traits:
            trait.verify(op)
        op.verify_()
    except VerifyError as e:
        raise CompileError(f"'{op.name}' op {e.message}", op.location, e.notes) from None
    st = active()
    if st is not None and st.module is not None and _inside(op, st.module):
        st.checked.add(op)


def _inside(op: Operation, root: Operation) -> bool:
    """Whether ``op`` sits in ``root`` now. Only such ops are trusted at the end of the trace: a
    body built in a detached block (a dynamic ``if``'s branches) is checked again where it ends
    up, since a rule may depend on where the op sits (a call is checked against the symbol
    table it can see)."""
    block = op.parent
    while block is not None:
        region = block.parent
        owner = region.parent if region is not None else None
        if owner is None:
            return False
        if owner is root:
            return True
        block = owner.parent
    return False


@contextlib.contextmanager
def located(loc: Location | None) -> Iterator[None]:
    """Ops built inside the ``with`` get ``loc`` (e.g. a kernel parameter's position)."""
    st = current()
    saved = st.loc_override
    st.loc_override = loc
    try:
        yield
    finally:
        st.loc_override = saved


@contextlib.contextmanager
def inserting_at_end(block: Block) -> Iterator[None]:
    """Build into ``block`` (appending) for the duration of the ``with``."""
    b = current().builder
    with b.at(InsertionPoint.at_end(block)):
        yield


@contextlib.contextmanager
def inserting_before(op: Operation) -> Iterator[None]:
    b = current().builder
    with b.at(InsertionPoint.before_op(op)):
        yield
