"""Rewrite patterns and the PatternRewriter API used by pattern drivers.

A :class:`RewritePattern` matches ops (by name, class, or any op) and rewrites them through a
:class:`PatternRewriter`, never by mutating the IR directly: every change goes through the
rewriter so a driver (``layoutc.passes``) hears about it via :class:`RewriterListener` and can
update its worklist. The greedy driver itself lives in ``passes/``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Union

from .block import Block, Region
from .builder import Builder, BuilderListener, InsertionPoint
from .errors import IRError
from .operation import Operation
from .values import OpOperand, Value

if TYPE_CHECKING:
    from .location import Location


class RewriterListener(BuilderListener):
    """Notifications a driver receives about changes made through a PatternRewriter."""

    def notify_op_erased(self, op: Operation) -> None:
        """``op`` is about to be erased (called for nested ops first)."""

    def notify_op_modified(self, op: Operation) -> None:
        """``op`` was changed in place (operands, attributes, successors, regions)."""

    def notify_op_replaced(self, op: Operation, new_values: Sequence[Value]) -> None:
        """All uses of ``op``'s results are about to be replaced by ``new_values``."""

    def notify_block_erased(self, block: Block) -> None:
        pass

    def notify_match_failure(self, op: Operation, reason: str) -> None:
        pass


class PatternRewriter(Builder):
    """A Builder whose every IR change is reported to its listener."""

    listener: RewriterListener | None

    def __init__(
        self,
        listener: RewriterListener | None = None,
        insertion_point: InsertionPoint | None = None,
        loc: Location | None = None,
    ):
        super().__init__(insertion_point, loc, listener)
        self.listener = listener

    # -- replacing and erasing ----------------------------------------------------------------
    def replace_op(self, op: Operation, new: Sequence[Value] | Operation) -> None:
        """Replace all uses of ``op``'s results by ``new`` and erase ``op``."""
        values = list(new.results) if isinstance(new, Operation) else list(new)
        if len(values) != len(op.results):
            raise IRError(
                f"replace_op: '{op.name}' has {len(op.results)} results, got {len(values)} values"
            )
        if self.listener is not None:
            self.listener.notify_op_replaced(op, values)
        for old, v in zip(op.results, values):
            self.replace_all_uses_with(old, v)
        self.erase_op(op)

    def replace_op_with_new(
        self, op: Operation, cls: type[Operation], *args: Any, **kwargs: Any
    ) -> Operation:
        """Create ``cls(*args, **kwargs)`` before ``op`` and replace ``op`` with it."""
        with self.at(InsertionPoint.before_op(op), loc=op.location):
            new = self.create(cls, *args, **kwargs)
        self.replace_op(op, new)
        return new

    def erase_op(self, op: Operation) -> None:
        """Erase ``op`` (its results must be unused), notifying for nested ops first."""
        for r in op.results:
            if r.uses:
                raise IRError(
                    f"cannot erase '{op.name}': result #{r.index} still has {len(r.uses)} uses"
                )
        if self.listener is not None:
            listener = self.listener

            def notify(nested: Operation) -> None:
                listener.notify_op_erased(nested)

            op.walk(notify)
        op.erase(check_uses=False)

    def erase_block(self, block: Block) -> None:
        for op in list(block.ops)[::-1]:
            for r in op.results:
                if any(u.owner.parent is not block and not _inside(u.owner, block) for u in r.uses):
                    raise IRError(f"cannot erase block: '{op.name}' result is used outside it")
        if self.listener is not None:
            for op in list(block.ops)[::-1]:
                op.walk(self.listener.notify_op_erased)
            self.listener.notify_block_erased(block)
        block.erase()

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        """Replace every use of ``old`` by ``new``, notifying each modified user."""
        self.replace_uses_with_if(old, new, lambda _u: True)

    def replace_uses_with_if(
        self, old: Value, new: Value, predicate: Callable[[OpOperand], bool]
    ) -> None:
        users = []
        for use in [u for u in old.uses if predicate(u)]:
            use.set(new)
            users.append(use.owner)
        if self.listener is not None:
            for user in dict.fromkeys(users):
                self.listener.notify_op_modified(user)

    def replace_all_uses_except(
        self, old: Value, new: Value, exceptions: Iterable[Operation]
    ) -> None:
        keep = set(map(id, exceptions))
        self.replace_uses_with_if(old, new, lambda u: id(u.owner) not in keep)

    # -- in-place modification ----------------------------------------------------------------
    def modify_op_in_place(self, op: Operation, fn: Callable[[], Any] | None = None) -> None:
        """Run ``fn`` (which mutates ``op``) and notify; without ``fn`` just notify."""
        if fn is not None:
            fn()
        if self.listener is not None:
            self.listener.notify_op_modified(op)

    # -- moving and inlining ------------------------------------------------------------------
    def move_op_before(self, op: Operation, anchor: Operation) -> None:
        op.move_before(anchor)
        if self.listener is not None:
            self.listener.notify_op_inserted(op)

    def move_op_after(self, op: Operation, anchor: Operation) -> None:
        op.move_after(anchor)
        if self.listener is not None:
            self.listener.notify_op_inserted(op)

    def inline_block_before(
        self, source: Block, dest: Block, before: Operation | None, args: Sequence[Value] = ()
    ) -> None:
        """Move ``source``'s ops before ``before`` in ``dest``, substituting its arguments."""
        if len(args) != len(source.args):
            raise IRError(
                f"inline_block_before: block has {len(source.args)} arguments, got {len(args)} values"
            )
        for arg, v in zip(source.args, args):
            self.replace_all_uses_with(arg, v)
        for op in list(source.ops):
            op.detach()
            dest.insert_before(op, before)
            if self.listener is not None:
                self.listener.notify_op_inserted(op)
        if source.parent is not None:
            if self.listener is not None:
                self.listener.notify_block_erased(source)
            source.detach()

    def merge_blocks(self, source: Block, dest: Block, args: Sequence[Value] = ()) -> None:
        """Append ``source``'s ops to ``dest`` (``source`` must have no predecessors)."""
        if source.uses:
            raise IRError("merge_blocks: source block still has predecessors")
        self.inline_block_before(source, dest, None, args)

    def inline_region_before(self, region: Region, dest: Region, index: int | None = None) -> None:
        """Move every block of ``region`` into ``dest`` at block position ``index``."""
        pos = len(dest.blocks) if index is None else index
        for block in list(region.blocks):
            block.detach()
            dest.insert_block(pos, block)
            pos += 1
            if self.listener is not None:
                self.listener.notify_block_inserted(block)
                for op in block.ops:
                    self.listener.notify_op_inserted(op)

    def split_block(self, block: Block, before: Operation) -> Block:
        new = block.split_before(before)
        if self.listener is not None:
            self.listener.notify_block_inserted(new)
        return new

    def notify_match_failure(self, op: Operation, reason: str | Callable[[], str]) -> bool:
        """Record why a pattern did not apply; returns False for ``return rewriter.notify...``."""
        if self.listener is not None:
            self.listener.notify_match_failure(op, reason() if callable(reason) else reason)
        return False


def _inside(op: Operation, block: Block) -> bool:
    cur: Operation | None = op
    while cur is not None:
        if cur.parent is block:
            return True
        cur = cur.parent_op
    return False


def annotated_op_type(fn: Any) -> type[Operation] | tuple[type[Operation], ...] | None:
    """The op class (or tuple of classes, for a union) that ``fn``'s ``op`` parameter is
    annotated with; None when it has no such annotation (or ``Operation``: any op)."""
    if fn is None:
        return None
    ann = getattr(fn, "__annotations__", {}).get("op")
    if isinstance(ann, str):
        try:
            ann = eval(ann, fn.__globals__)
        except NameError:
            return None
    if ann is Operation:
        return None  # any op
    if isinstance(ann, type) and issubclass(ann, Operation):
        return ann
    if isinstance(ann, types.UnionType) or typing.get_origin(ann) is Union:
        args = typing.get_args(ann)
        if args and all(isinstance(a, type) and issubclass(a, Operation) for a in args):
            return tuple(args)
    return None


Root = str | type[Operation] | tuple[type[Operation], ...] | None


class RewritePattern:
    """Base of rewrite patterns.

    A pattern names the op type it rewrites, as xDSL's ``op_type_rewrite_pattern`` does: the
    annotation of ``match_and_rewrite``'s ``op`` parameter (an op class, or a union of them)
    becomes ``root``::

        class FoldDoubleNegation(RewritePattern):
            def match_and_rewrite(self, op: NegFOp, rewriter: PatternRewriter) -> bool: ...

    A pattern may instead set ``root`` (an op class, a tuple of them, an op name for
    unregistered ops, or None: any op). ``benefit`` orders patterns (higher first).
    ``match_and_rewrite`` returns True iff it changed the IR (through the rewriter only).
    """

    root: ClassVar[Root] = None
    benefit: ClassVar[int] = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "root" not in cls.__dict__:
            annotated = annotated_op_type(cls.__dict__.get("match_and_rewrite"))
            if annotated is not None:
                cls.root = annotated

    def matches_root(self, op: Operation) -> bool:
        root = self.root
        if root is None:
            return True
        if isinstance(root, str):
            return op.name == root
        return isinstance(op, root)

    @property
    def root_name(self) -> str | None:
        root = self.root
        if root is None or isinstance(root, str):
            return root
        if isinstance(root, tuple):
            return "|".join(r.name for r in root)
        return root.name

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} on {self.root_name or 'any op'}>"


class FunctionPattern(RewritePattern):
    """A pattern built from a function (see :func:`rewrite_pattern`)."""

    def __init__(
        self,
        fn: Callable[[Any, PatternRewriter], bool],
        root: Root,
        benefit: int,
    ):
        self.fn = fn
        self.root = root  # type: ignore[misc]
        self.benefit = benefit  # type: ignore[misc]
        self.__name__ = fn.__name__

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        return bool(self.fn(op, rewriter))

    def __repr__(self) -> str:
        return f"<pattern {self.__name__} on {self.root_name or 'any op'}>"


def rewrite_pattern(
    root: Root = None, benefit: int = 1
) -> Callable[[Callable[[Any, PatternRewriter], bool]], FunctionPattern]:
    """Decorator turning ``def f(op, rewriter) -> bool`` into a RewritePattern (rooted at
    ``root``, else at the class ``op`` is annotated with, else at any op)."""

    def wrap(fn: Callable[[Any, PatternRewriter], bool]) -> FunctionPattern:
        return FunctionPattern(fn, root if root is not None else annotated_op_type(fn), benefit)

    return wrap


class lazy_patterns:
    """An op class's ``canonicalization_patterns``, declared with the op and built on first
    use (as xDSL's ``get_canonicalization_patterns``), so that the patterns may live in a
    module that imports the op::

        class AddIOp(...):
            @lazy_patterns
            def canonicalization_patterns() -> tuple[RewritePattern, ...]:
                from .canonicalize import AddIAddConstant, AddISubConstant

                return AddIAddConstant(), AddISubConstant()
    """

    __slots__ = ("make", "patterns")

    def __init__(self, make: Callable[[], Iterable[RewritePattern]]):
        self.make = make
        self.patterns: tuple[RewritePattern, ...] | None = None

    def __get__(self, obj: object, owner: type | None = None) -> tuple[RewritePattern, ...]:
        if self.patterns is None:
            self.patterns = tuple(self.make())
        return self.patterns
