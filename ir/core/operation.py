"""Operations: the nodes of the IR.

Registered ops are Python classes deriving from :class:`Operation` that declare their fields
(see :mod:`.opdef`) and traits (see :mod:`.traits`); unregistered ops are
:class:`UnregisteredOp` instances that carry their name. Every op has operands (use-list
slots), results, properties (inherent attributes, printed ``<{...}>``), discardable attributes
(``{...}``), regions, successors and a location.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, TextIO, TypeVar

from .attributes import Attribute, DenseArrayAttr
from .block import Block, Region
from .diagnostics import Diagnostic, Severity
from .disposal import record_erased
from .errors import IRError
from .location import Location, UnknownLoc
from .opdef import OpDef, collect_fields, make_accessors
from .traits import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IsolatedFromAbove,
    Trait,
)
from .types import Type, i32
from .values import BlockOperand, OpOperand, OpResult, Value

if TYPE_CHECKING:
    from .asm import OpAsmParser, OpAsmPrinter
    from .context import Dialect
    from .diagnostics import DiagnosticEngine
    from .rewrite import RewritePattern

_Op = TypeVar("_Op", bound="Operation")


class WalkResult(Enum):
    """What a walk callback asks for next (returning None means ADVANCE)."""

    ADVANCE = 0
    SKIP = 1  # pre-order only: do not visit this op's regions
    INTERRUPT = 2


class IRMapping:
    """Value/block/op correspondence used by cloning and inlining."""

    __slots__ = ("blocks", "ops", "values")

    def __init__(self) -> None:
        self.values: dict[Value, Value] = {}
        self.blocks: dict[Block, Block] = {}
        self.ops: dict[Operation, Operation] = {}

    def map(self, src: Any, dst: Any) -> None:
        if isinstance(src, Value):
            self.values[src] = dst
        elif isinstance(src, Block):
            self.blocks[src] = dst
        elif isinstance(src, Operation):
            self.ops[src] = dst
        else:
            raise TypeError(f"cannot map {src!r}")

    def lookup(self, v: Value) -> Value:
        return self.values[v]

    def lookup_or_self(self, v: Value) -> Value:
        return self.values.get(v, v)


class Operation:
    """Base of all ops. Subclasses set ``name`` and declare fields and ``traits``."""

    __slots__ = (
        "_loc",
        "_next",
        "_operands",
        "_order",
        "_prev",
        "attributes",
        "parent",
        "properties",
        "regions",
        "results",
        "successors",
    )

    name: ClassVar[str] = ""
    dialect: ClassVar[Dialect | None] = None
    traits: ClassVar[tuple[Any, ...]] = ()
    default_dialect: ClassVar[str] = ""
    """Dialect whose ops may be written without prefix inside this op's regions (custom form)."""
    canonicalization_patterns: ClassVar[tuple[RewritePattern, ...]] = ()
    """Patterns the canonicalizer applies to ops of this class."""
    assembly_format: ClassVar[str | None] = None
    """A declarative custom form (see :mod:`.asm_format`), instead of print/parse_custom."""
    _def: ClassVar[OpDef | None] = None
    _trait_types: ClassVar[frozenset[type]] = frozenset()
    _verifying_traits: ClassVar[tuple[Trait, ...]] = ()
    has_custom_assembly: ClassVar[bool] = False

    _operands: list[OpOperand]
    results: tuple[OpResult, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    regions: tuple[Region, ...]
    successors: tuple[BlockOperand, ...]
    parent: Block | None

    def __init_subclass__(cls, *, unregistered: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if unregistered:
            return
        op_def = OpDef(collect_fields(cls))
        traits = [t() if isinstance(t, type) else t for t in cls.traits]
        if op_def.operands.segment_attr and not any(
            isinstance(t, AttrSizedOperandSegments) for t in traits
        ):
            traits.append(AttrSizedOperandSegments())
        if op_def.results.segment_attr and not any(
            isinstance(t, AttrSizedResultSegments) for t in traits
        ):
            traits.append(AttrSizedResultSegments())
        for t in traits:
            if not isinstance(t, Trait):
                raise TypeError(f"{cls.__name__}.traits: {t!r} is not a Trait")
        cls.traits = tuple(traits)
        cls._trait_types = frozenset(
            k
            for t in traits
            for k in type(t).__mro__
            if isinstance(k, type) and issubclass(k, Trait)
        )
        cls._verifying_traits = tuple(t for t in traits if type(t).verify is not Trait.verify)
        cls._def = op_def
        make_accessors(cls, op_def)
        if cls.name and isinstance(cls.assembly_format, str):
            from .asm_format import install

            install(cls)
        cls.has_custom_assembly = (
            cls.print_custom is not Operation.print_custom
            and cls.parse_custom.__func__ is not Operation.parse_custom.__func__  # type: ignore[attr-defined]
        )

    # -- construction ------------------------------------------------------------------------
    def __init__(
        self,
        operands: Sequence[Any] = (),
        result_types: Sequence[Any] = (),
        properties: dict[str, Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence[Region | Sequence[Block] | None] = (),
        successors: Sequence[Block] = (),
        loc: Location | None = None,
    ):
        """Generic constructor; nested lists in ``operands``/``result_types`` form groups.

        For ops with several variable operand (result) groups, pass one list per group and the
        ``operandSegmentSizes`` (``resultSegmentSizes``) property is derived from them.
        """
        # The common case (about 7,000 ops per GEMM compile): flat lists of values and types,
        # no groups, so no group sizes to build, and no regions.
        # _flat_or_none, inlined (a call per list costs as much as its loop)
        operand_sizes = result_sizes = None
        t = type(operands)
        if t is list or t is tuple:
            for item in operands:
                if not isinstance(item, Value):
                    flat_operands, operand_sizes = _flatten_groups(operands, is_type=False)
                    break
            else:
                flat_operands = operands if t is list else list(operands)
        else:
            flat_operands, operand_sizes = _flatten_groups(operands, is_type=False)
        t = type(result_types)
        if t is list or t is tuple:
            for item in result_types:
                if not isinstance(item, Type):
                    flat_types, result_sizes = _flatten_groups(result_types, is_type=True)
                    break
            else:
                flat_types = result_types if t is list else list(result_types)
        else:
            flat_types, result_sizes = _flatten_groups(result_types, is_type=True)
        props = dict(properties) if properties else {}
        d = self._def
        region_objs = [_as_region(r) for r in regions] if regions else []
        if d is not None:
            if d.operands.segment_attr:
                _derive_segments(props, d.operands, operand_sizes, len(flat_operands))
            if d.results.segment_attr:
                _derive_segments(props, d.results, result_sizes, len(flat_types))
            fixed = d.fixed_regions
            while len(region_objs) < fixed:
                region_objs.append(Region())
        self._init_fields(
            flat_operands,
            flat_types,
            props,
            dict(attributes) if attributes else {},
            region_objs,
            successors,
            loc,
        )

    def _init_fields(
        self,
        operands: Sequence[Value],
        result_types: Sequence[Type],
        properties: dict[str, Attribute],
        attributes: dict[str, Attribute],
        regions: list[Region],
        successors: Sequence[Block],
        loc: Any,
    ) -> None:
        self.parent = self._prev = self._next = None
        self._order = 0
        # One pass per list (an op is built ~12,000 times per GEMM compile): each slot is
        # checked as it is made; a bad operand unregisters the uses made before it.
        slots = []
        for i, v in enumerate(operands):
            if not isinstance(v, Value):
                for u in slots:
                    u.drop()
                raise IRError(f"'{self.name}' operand #{i} is not an SSA value: {v!r}")
            slots.append(OpOperand(self, i, v))
        self._operands = slots
        if result_types:
            results = []
            for i, t in enumerate(result_types):
                if not isinstance(t, Type):
                    for u in slots:
                        u.drop()
                    raise IRError(f"'{self.name}' result #{i} type is not a type: {t!r}")
                results.append(OpResult(t, self, i))
            self.results = tuple(results)
        else:
            self.results = ()
        d = self._def
        if d is not None:
            if attributes:
                for k in [k for k in attributes if k in d.props and k not in properties]:
                    properties[k] = attributes.pop(k)
            defaults = d.prop_defaults
            if defaults:
                for k, v in defaults.items():
                    if k not in properties:
                        properties[k] = v
        self.properties = properties
        self.attributes = attributes
        # tuples: the empty ones (most ops) are the shared ``()``, no list per op to allocate
        # and for the cyclic collector to walk
        if regions:
            for r in regions:
                if r.parent is not None:
                    raise IRError(f"'{self.name}': region already belongs to '{r.parent.name}'")
                r.parent = self
            self.regions = tuple(regions)
        else:
            self.regions = ()
        if successors:
            self.successors = tuple([BlockOperand(self, i, b) for i, b in enumerate(successors)])
        else:
            self.successors = ()
        self._loc = loc if loc is not None else _UNKNOWN_LOC

    @classmethod
    def create(
        cls: type[_Op],
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        properties: dict[str, Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
        successors: Sequence[Block] = (),
        loc: Any = None,
    ) -> _Op:
        """Build an op from flat lists without running its friendly ``__init__``."""
        op = object.__new__(cls)
        op._init_fields(
            operands,
            result_types,
            dict(properties) if properties else {},
            dict(attributes) if attributes else {},
            list(regions),
            successors,
            loc,
        )
        return op

    # -- operands and results ----------------------------------------------------------------
    @property
    def operands(self) -> tuple[Value, ...]:
        return tuple([u.value for u in self._operands])

    @property
    def operand_uses(self) -> list[OpOperand]:
        """The operand slots (``OpOperand``), in order."""
        return self._operands

    @property
    def num_operands(self) -> int:
        return len(self._operands)

    def operand(self, i: int) -> Value:
        return self._operands[i].value

    def set_operand(self, i: int, value: Value) -> None:
        self._operands[i].set(value)

    def set_operands(self, values: Iterable[Value]) -> None:
        """Replace all operands (the operand count may change)."""
        for u in self._operands:
            u.drop()
        self._operands = [OpOperand(self, i, v) for i, v in enumerate(values)]

    def insert_operand(self, i: int, value: Value) -> None:
        vals = list(self.operands)
        vals.insert(i, value)
        self.set_operands(vals)

    def erase_operand(self, i: int) -> None:
        vals = list(self.operands)
        del vals[i]
        self.set_operands(vals)

    @property
    def num_results(self) -> int:
        return len(self.results)

    @property
    def result_types(self) -> list[Type]:
        return [r.type for r in self.results]

    @property
    def operand_types(self) -> list[Type]:
        return [u.value.type for u in self._operands]

    def operand_group_ranges(self) -> list[tuple[int, int]]:
        """(start, size) of each declared operand group."""
        d = self._def
        if d is None:
            return [(0, len(self._operands))]
        return d.operands.ranges(self, len(self._operands))

    def set_successor(self, i: int, block: Block) -> None:
        self.successors[i].set(block)

    @property
    def successor_blocks(self) -> list[Block]:
        return [s.block for s in self.successors]

    # -- location and diagnostics -------------------------------------------------------------
    @property
    def location(self) -> Location:
        loc = self._loc
        if not isinstance(loc, Location):
            loc = loc.resolve()
            self._loc = loc
        return loc

    @location.setter
    def location(self, loc: Location) -> None:
        self._loc = loc

    def diagnostic(self, message: str, severity: Severity = Severity.ERROR) -> Diagnostic:
        """A diagnostic about this op: ``'arith.addi' op <message>`` at its location."""
        return Diagnostic(severity, f"'{self.name}' op {message}", self.location)

    # -- traits ---------------------------------------------------------------------------------
    @classmethod
    def has_trait(cls, trait: type[Trait]) -> bool:
        return trait in cls._trait_types

    @classmethod
    def get_trait(cls, trait: type[Trait]) -> Trait | None:
        for t in cls.traits:
            if isinstance(t, trait):
                return t
        return None

    @property
    def is_registered(self) -> bool:
        return self._def is not None

    # -- hooks for subclasses -----------------------------------------------------------------
    def verify_(self) -> None:
        """Op-specific invariants; raise ``VerifyError``. Runs after structure and traits."""

    def fold(self, operands: Sequence[Attribute | None]) -> Sequence[Attribute | Value] | None:
        """Fold with the constant values of the operands (None where not constant).

        Return None when nothing folds, or one entry per result: an Attribute (the result is
        that constant) or an existing Value. Returning this op's own results means it was
        updated in place. Folders never create ops.
        """
        return None

    def print_custom(self, p: OpAsmPrinter) -> None:
        """Print the custom form after the op name (include leading spaces)."""
        raise NotImplementedError

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> Operation:
        """Parse the custom form after the op name and return the op."""
        raise NotImplementedError

    def asm_result_names(self) -> Sequence[str | None] | None:
        """Suggested printed names for results (``%c4`` for a constant), or None."""
        return None

    # -- structure ----------------------------------------------------------------------------
    @property
    def parent_block(self) -> Block | None:
        return self.parent

    @property
    def parent_region(self) -> Region | None:
        b = self.parent
        return b.parent if b is not None else None

    @property
    def parent_op(self) -> Operation | None:
        b = self.parent
        if b is None or b.parent is None:
            return None
        return b.parent.parent

    @property
    def next_op(self) -> Operation | None:
        return self._next

    @property
    def prev_op(self) -> Operation | None:
        return self._prev

    def get_parent_of_type(self, cls: type[_Op]) -> _Op | None:
        p = self.parent_op
        while p is not None and not isinstance(p, cls):
            p = p.parent_op
        return p

    def get_parent_with_trait(self, trait: type[Trait]) -> Operation | None:
        p = self.parent_op
        while p is not None and not p.has_trait(trait):
            p = p.parent_op
        return p

    def is_ancestor(self, other: Operation) -> bool:
        """True if ``other`` is this op or nested (at any depth) inside it."""
        cur: Operation | None = other
        while cur is not None:
            if cur is self:
                return True
            cur = cur.parent_op
        return False

    def is_proper_ancestor(self, other: Operation) -> bool:
        return other is not self and self.is_ancestor(other)

    def is_before_in_block(self, other: Operation) -> bool:
        """Whether this op comes before ``other`` in the same block."""
        block = self.parent
        if block is None or other.parent is not block:
            raise IRError("is_before_in_block needs two ops of the same block")
        if not block._order_valid:
            block._renumber()
        return self._order < other._order

    @property
    def is_isolated_from_above(self) -> bool:
        return IsolatedFromAbove in self._trait_types

    # -- mutation -----------------------------------------------------------------------------
    def detach(self: _Op) -> _Op:
        """Remove the op from its block, keeping its operands and regions."""
        if self.parent is not None:
            self.parent._unlink(self)
        return self

    def erase(self, *, check_uses: bool = True) -> None:
        """Detach and destroy the op; its results must be unused (unless check_uses=False)."""
        if check_uses:
            for r in self.results:
                if r.uses:
                    users = ", ".join(sorted({f"'{u.owner.name}'" for u in r.uses}))
                    raise IRError(
                        f"cannot erase '{self.name}': result #{r.index} is still used by {users}"
                    )
        # detach and drop_all_references, inlined: about 4,000 ops are erased per GEMM compile
        parent = self.parent
        if parent is not None:
            parent._unlink(self)
        for u in self._operands:
            u.value.uses.pop(u, None)
        if self.successors:
            for s in self.successors:
                s.drop()
        if self.regions:
            for r in self.regions:
                r.drop_all_references()
        record_erased(self)  # disposal.py: a compile breaks up its erased ops at its end

    def drop_all_references(self) -> None:
        """Unregister all uses held by this op and the ops nested in it."""
        for u in self._operands:
            u.drop()
        for s in self.successors:
            s.drop()
        for r in self.regions:
            r.drop_all_references()

    def move_before(self, other: Operation) -> None:
        if other.parent is None:
            raise IRError("cannot move before an op that is not in a block")
        self.detach()
        other.parent.insert_before(self, other)

    def move_after(self, other: Operation) -> None:
        if other.parent is None:
            raise IRError("cannot move after an op that is not in a block")
        self.detach()
        other.parent.insert_after(self, other)

    def move_to_end(self, block: Block) -> None:
        self.detach()
        block.append(self)

    def replace_all_uses_with(self, values: Sequence[Value] | Operation) -> None:
        """Replace uses of every result with the matching value (or the other op's results)."""
        new = values.results if isinstance(values, Operation) else values
        if len(new) != len(self.results):
            raise IRError(
                f"cannot replace '{self.name}' ({len(self.results)} results) with {len(new)} values"
            )
        for old, v in zip(self.results, new):
            old.replace_all_uses_with(v)

    def clone(self: _Op, mapping: IRMapping | None = None, *, regions: bool = True) -> _Op:
        """Deep copy (regions included unless regions=False); operands remapped by ``mapping``."""
        mapping = mapping if mapping is not None else IRMapping()
        vals = mapping.values
        op = object.__new__(type(self))
        if self._def is None:
            op.name = self.name  # type: ignore[misc]
        op._init_fields(
            [vals.get(u.value, u.value) for u in self._operands],
            [r.type for r in self.results],
            dict(self.properties),
            dict(self.attributes),
            [Region() for _ in self.regions],
            [mapping.blocks.get(s.block, s.block) for s in self.successors],
            self._loc,
        )
        for old, new in zip(self.results, op.results):
            new.name_hint = old.name_hint
            vals[old] = new
        mapping.ops[self] = op
        if regions:
            for src, dst in zip(self.regions, op.regions):
                clone_region_into(src, dst, mapping)
        return op

    # -- traversal ----------------------------------------------------------------------------
    def walk(
        self,
        fn: Callable[[Operation], WalkResult | None],
        *,
        pre_order: bool = False,
        reverse: bool = False,
    ) -> WalkResult:
        """Visit this op and every nested op (post-order unless ``pre_order``).

        The callback may erase the visited op (in pre-order, return SKIP after erasing). It
        returns INTERRUPT to stop; the walk then returns INTERRUPT.
        """
        return _walk(self, fn, pre_order, reverse)

    def walk_ops(self, *, include_self: bool = True) -> Iterator[Operation]:
        """Pre-order generator over nested ops (do not erase ops while iterating)."""
        if include_self:
            yield self
        if self.regions:
            yield from _walk_regions(self.regions)

    # -- printing and verification -----------------------------------------------------------
    def to_text(self, *, generic: bool = False, debug_info: bool = False) -> str:
        """The op as MLIR text (custom forms unless ``generic``; ``loc(...)`` if debug_info)."""
        from .printer import Printer

        return Printer(generic=generic, debug_info=debug_info).print_top(self)

    def print(
        self, file: TextIO | None = None, *, generic: bool = False, debug_info: bool = False
    ) -> None:
        """Write the op's text to ``file`` (stdout by default)."""
        (file or sys.stdout).write(self.to_text(generic=generic, debug_info=debug_info) + "\n")

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}' at {id(self):#x}>"

    def verify(self, diagnostics: DiagnosticEngine | None = None) -> None:
        """Verify this op and everything nested; raise DiagnosticError listing every problem.

        With ``diagnostics`` the errors are also emitted there.
        """
        from .diagnostics import DiagnosticError
        from .verifier import verify_op

        found = verify_op(self)
        if diagnostics is not None:
            for d in found:
                diagnostics.emit(d)
        if found:
            raise DiagnosticError(found)


class UnregisteredOp(Operation, unregistered=True):
    """An op of an unknown (or unloaded) dialect; round-trips in the generic form."""

    __slots__ = ("name",)

    def __init__(self, name: str, *args: Any, **kwargs: Any):
        self.name = name  # type: ignore[misc]
        super().__init__(*args, **kwargs)

    @classmethod
    def create_named(
        cls,
        name: str,
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        properties: dict[str, Attribute] | None = None,
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
        successors: Sequence[Block] = (),
        loc: Any = None,
    ) -> UnregisteredOp:
        op = object.__new__(cls)
        op.name = name  # type: ignore[misc]
        op._init_fields(
            operands,
            result_types,
            dict(properties) if properties else {},
            dict(attributes) if attributes else {},
            list(regions),
            successors,
            loc,
        )
        return op

    def __repr__(self) -> str:
        return f"<UnregisteredOp '{self.name}' at {id(self):#x}>"


def clone_region_into(src: Region, dst: Region, mapping: IRMapping) -> None:
    """Append clones of ``src``'s blocks to ``dst``, recording the mapping."""
    new_blocks = []
    for block in src.blocks:
        nb = Block()
        for a in block.args:
            na = nb.add_argument(a.type, a.loc)
            na.name_hint = a.name_hint
            mapping.values[a] = na
        mapping.blocks[block] = nb
        new_blocks.append((block, nb))
    for block, nb in new_blocks:
        dst.add_block(nb)
        for op in block.ops:
            nb.append(op.clone(mapping))
    # Uses that precede their definition (other blocks, graph regions) are remapped now.
    vals = mapping.values
    for _, nb in new_blocks:
        for op in nb.ops:
            for nested in op.walk_ops():
                for u in nested._operands:
                    new = vals.get(u.value)
                    if new is not None and new is not u.value:
                        u.set(new)
                for s in nested.successors:
                    nbk = mapping.blocks.get(s.block)
                    if nbk is not None and nbk is not s.block:
                        s.set(nbk)


def _walk(
    op: Operation, fn: Callable[[Operation], WalkResult | None], pre: bool, reverse: bool
) -> WalkResult:
    if pre:
        r = fn(op)
        if r is WalkResult.INTERRUPT:
            return r
        if r is WalkResult.SKIP:
            return WalkResult.ADVANCE
    regions = reversed(op.regions) if reverse else op.regions
    for region in list(regions):
        blocks = list(reversed(region.blocks)) if reverse else list(region.blocks)
        for block in blocks:
            cur = block._last if reverse else block._first
            while cur is not None:
                nxt = cur._prev if reverse else cur._next
                if _walk(cur, fn, pre, reverse) is WalkResult.INTERRUPT:
                    return WalkResult.INTERRUPT
                cur = nxt
    if not pre and fn(op) is WalkResult.INTERRUPT:
        return WalkResult.INTERRUPT
    return WalkResult.ADVANCE


def _walk_regions(regions: Sequence[Region]) -> Iterator[Operation]:
    """The ops of ``regions`` in pre-order: a generator per nesting level, not per op. The
    next op is read before an op is yielded, its regions after."""
    for region in regions:
        for block in region.blocks:
            op = block._first
            while op is not None:
                nxt = op._next
                yield op
                if op.regions:
                    yield from _walk_regions(op.regions)
                op = nxt


_UNKNOWN_LOC = UnknownLoc()  # uniqued: the one instance


def _flat_or_none(items: Sequence[Any], kind: type) -> list[Any] | None:
    """``items`` (a list or tuple) as a list when every item is a ``kind`` (one value or type
    per slot), else None (groups, None or ops among them, other iterables: ``_flatten_groups``)."""
    t = type(items)
    if t is not list and t is not tuple:
        return None
    for item in items:
        if not isinstance(item, kind):
            return None
    return items if t is list else list(items)


def _derive_segments(
    props: dict[str, Attribute], groups: Any, sizes: list[int] | None, count: int
) -> None:
    """Set ``groups``' segment-sizes property (``operandSegmentSizes`` or
    ``resultSegmentSizes``) from the group sizes given to the constructor (one per value for
    flat lists), unless the caller set it or gave another number of groups."""
    if sizes is None:
        sizes = [1] * count
    if len(sizes) == len(groups.names):
        props.setdefault(groups.segment_attr, DenseArrayAttr(i32, sizes))


def _flatten_groups(items: Sequence[Any], is_type: bool) -> tuple[list[Any], list[int]]:
    if type(items) is list:  # the common case, one value or type per slot: no group to build
        for item in items:
            if not isinstance(item, (Value, Type)):
                break
        else:
            return items, [1] * len(items)
    flat: list[Any] = []
    sizes: list[int] = []
    for item in items:
        if isinstance(item, (Value, Type)):  # the common case: one value or type per slot
            flat.append(item)
            sizes.append(1)
        elif item is None:
            sizes.append(0)
        elif isinstance(item, (list, tuple)):
            start = len(flat)
            for x in item:  # _single inlined: a call per value of every group costs more
                if not is_type and isinstance(x, Operation):
                    x = _single(x, is_type)
                flat.append(x)
            sizes.append(len(flat) - start)
        else:
            flat.append(_single(item, is_type))
            sizes.append(1)
    return flat, sizes


def _single(x: Any, is_type: bool) -> Any:
    if not is_type and isinstance(x, Operation):
        if len(x.results) != 1:
            raise IRError(f"'{x.name}' has {len(x.results)} results; pass one of them as operand")
        return x.results[0]
    return x


def _as_region(r: Region | Sequence[Block] | None) -> Region:
    if r is None:
        return Region()
    if isinstance(r, Region):
        return r
    return Region(r)
