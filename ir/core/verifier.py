"""The IR verifier: structure, SSA dominance, traits and each op's own rules.

It reports every problem it finds as a :class:`~.diagnostics.Diagnostic` (located at the
offending op, with notes) instead of stopping at the first one. Dominance is checked in one pass
per region: values are added to a "visible" set as their definitions are passed, in dominator
tree order for multi-block regions, so the cost is linear in the size of the IR.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from .attributes import Attribute
from .block import Block, Region
from .diagnostics import Diagnostic
from .dominance import immediate_dominators, reverse_post_order
from .errors import VerifyError
from .operation import Operation
from .traits import GraphRegions, IsolatedFromAbove, NoTerminator, Terminator
from .values import BlockArgument, Value

_T = TypeVar("_T")
_walk = threading.local()


def verify_op(op: Operation, *, checked: Collection[Operation] = ()) -> list[Diagnostic]:
    """All diagnostics for ``op`` and everything nested in it (empty when valid).

    ``checked`` are ops whose own rules (declared counts, types and properties, traits,
    ``verify_``) were checked when they were built and that have not changed since (a front
    end that verifies each op it emits): those rules are not run again; their structure,
    dominance, discardable attributes and nested ops still are.
    """
    v = _Verifier(checked)
    saved = getattr(_walk, "memo", None)
    _walk.memo = {}
    try:
        v.check_op(op, None)
    finally:
        _walk.memo = saved
    return v.diagnostics


def walk_memo(key: Any, make: Callable[[], _T]) -> _T:
    """A value the op verifiers of one :func:`verify_op` walk share, made by ``make`` on first
    use (outside a walk, a fresh one per call).

    The IR does not change while it is verified, so an analysis memoised per value (the tile
    dialect's layouts of tensor values, traced through their producers) can serve every op of
    the walk instead of being recomputed per op.
    """
    memo = getattr(_walk, "memo", None)
    if memo is None:
        return make()
    found = memo.get(key)
    if found is None:
        found = memo[key] = make()
    return found


_VERIFIED_SIGNATURES: set[tuple[Any, ...]] = set()
"""Signatures (class, operand types, result types, properties) whose own rules passed."""
_MAX_SIGNATURES = 1 << 16
_BY_SIGNATURE: dict[type, bool] = {}


def _by_signature(cls: type) -> bool:
    """Whether ``cls`` declares ``rules_by_signature``: its own rules (declared counts, types
    and properties, its traits' checks, ``verify_``) read nothing but its operand and result
    types and its properties. Types and attributes are interned and immutable, so ops of one
    signature pass or fail those rules alike: :func:`verify_op` checks a signature once per
    process (the 2,150 ops of the sm80 GEMM's final module have some 260 signatures) and
    still checks every op's structure, dominance and discardable attributes."""
    found = _BY_SIGNATURE.get(cls)
    if found is None:
        found = False
        # The declaration covers the rules of the class declaring it: a subclass with a
        # verify_ or verifying traits of its own declares it again.
        for k in cls.__mro__:
            if "rules_by_signature" in vars(k):
                found = bool(vars(k)["rules_by_signature"]) and (
                    cls._verifying_traits == k._verifying_traits  # type: ignore[attr-defined]
                )
                break
            if "verify_" in vars(k):
                break
        _BY_SIGNATURE[cls] = found
    return found


def _remember_signature(signature: tuple[Any, ...]) -> None:
    if len(_VERIFIED_SIGNATURES) >= _MAX_SIGNATURES:
        _VERIFIED_SIGNATURES.clear()
    _VERIFIED_SIGNATURES.add(signature)


class _Verifier:
    def __init__(self, checked: Collection[Operation] = ()) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.visible: set[Value] = set()
        self.checked = checked

    def error(self, op: Operation, message: str) -> Diagnostic:
        d = op.diagnostic(message)
        self.diagnostics.append(d)
        return d

    # -- one op -------------------------------------------------------------------------------
    def check_op(self, op: Operation, lenient: set[Value] | None) -> None:
        """Check ``op`` whose operands must be in ``self.visible`` (or ``lenient`` if given)."""
        visible = self.visible if lenient is None else lenient
        well_formed = True
        operands = op._operands
        for u in operands:
            if u.value not in visible:
                well_formed = False
                break
        if not well_formed:
            for i, u in enumerate(operands):
                if u.value not in visible:
                    self._dominance_error(op, i, u.value)
        successors = op.successors
        if successors:
            for i, s in enumerate(successors):
                if s.block.parent is None or s.block.parent is not op.parent_region:
                    self.error(op, f"successor #{i} is not a block of the op's region")
                    well_formed = False
        cls = type(op)
        op_def = cls._def
        # As MLIR's verifier: an op's own rules run only on well-formed SSA (they may follow
        # def chains, which a use before its definition turns into a cycle), and the ops nested
        # in an op that failed its own rules are not checked (their rules may read the parent's
        # attributes: a 'func.return' in a 'func.func' without 'function_type').
        if op_def is not None and well_formed:
            diagnostics = self.diagnostics
            count = len(diagnostics)
            try:
                if op not in self.checked:
                    signature = None
                    by_signature = _BY_SIGNATURE.get(cls)
                    if by_signature is None:
                        by_signature = _by_signature(cls)
                    if by_signature and not op.regions and not successors:
                        signature = (
                            cls,
                            tuple([u.value.type for u in operands]),
                            tuple([r.type for r in op.results]),
                            tuple(op.properties.items()),
                        )
                    if signature is None or signature not in _VERIFIED_SIGNATURES:
                        op_def.verify(op)
                        for trait in cls._verifying_traits:
                            trait.verify(op)
                        op.verify_()
                        if signature is not None:
                            _remember_signature(signature)
                if op.attributes:
                    _verify_dialect_attributes(op)
            except VerifyError as e:
                d = self.error(e.at if isinstance(e.at, Operation) else op, e.message)
                for message, loc in e.notes:
                    d.attach_note(message, loc)
            except Exception as e:  # a verifier bug must not hide the user's IR problem
                self.error(op, f"internal error in verifier: {type(e).__name__}: {e}")
            if successors and Terminator not in cls._trait_types:
                self.error(op, "has successors but is not a terminator")
            well_formed = len(diagnostics) == count
        if op.regions and well_formed:
            self.check_regions(op)

    def _dominance_error(self, op: Operation, index: int, value: Value) -> None:
        isolated = _isolating_ancestor(op, value)
        if isolated is not None:
            d = self.error(op, "using value defined outside the region")
            d.attach_note("required by region isolation constraints", isolated.location)
            return
        d = self.error(op, f"operand #{index} does not dominate this use")
        use_block = op.parent
        use_region = use_block.parent if use_block is not None else None
        if isinstance(value, BlockArgument):
            block = value.block
            region = block.parent
            parent = block.parent_op
            if region is None:
                d.attach_note("operand defined as an argument of a block without parent")
                return
            where = _relation(use_region, region)
            d.attach_note(
                f"operand defined as a block argument (block #{region.blocks.index(block)} {where})",
                parent.location if parent is not None else None,
            )
            return
        def_op = value.owner
        if not isinstance(def_op, Operation) or def_op.parent is None:
            d.attach_note("operand is defined by an op that is not in the IR (erased or detached)")
            return
        region = def_op.parent.parent
        if def_op.parent is use_block:
            where = "op in the same block"
        else:
            where = _relation(use_region, region).replace("in ", "op in ", 1)
        d.attach_note(f"operand defined here ({where})", def_op.location)

    # -- regions ------------------------------------------------------------------------------
    def check_regions(self, op: Operation) -> None:
        isolated = IsolatedFromAbove in op._trait_types
        saved = self.visible
        if isolated:
            self.visible = set()
        graph = GraphRegions in op._trait_types
        needs_terminator = op._def is not None and NoTerminator not in op._trait_types
        for i, region in enumerate(op.regions):
            for block in region.blocks:
                if block.parent is not region:
                    self.error(op, f"region #{i} contains a block owned by another region")
            if needs_terminator:
                self._check_terminators(op, region)
            if region.blocks and region.blocks[0].uses:
                self.error(op, f"entry block of region #{i} may not have predecessors")
            if graph:
                self._check_graph_region(region)
            elif len(region.blocks) == 1:
                for v in self._check_block(region.blocks[0]):
                    self.visible.discard(v)
            elif region.blocks:
                self._check_cfg_region(region)
        self.visible = saved

    def _check_terminators(self, op: Operation, region: Region) -> None:
        for block in region.blocks:
            last = block.last_op
            if last is None:
                self.error(op, "empty block: expect at least a terminator")
            elif last.is_registered and not last.has_trait(Terminator):
                self.error(last, f"block with no terminator, has '{last.name}'")

    def _check_block(self, block: Block) -> list[Value]:
        """Check the ops of ``block`` in order; return the values it made visible."""
        visible = self.visible
        added: list[Value] = list(block.args)
        visible.update(added)
        check_op = self.check_op
        checked = self.checked
        by_signature = _BY_SIGNATURE
        verified = _VERIFIED_SIGNATURES
        op = block._first
        while op is not None:
            if op.parent is not block:
                self.error(op, "op's parent block is inconsistent with its position")
            # What check_op would conclude without a word, at once: an op of a remembered
            # signature, all operands visible, and nothing else to check (no successors,
            # regions or discardable attributes).
            cls = type(op)
            if (
                by_signature.get(cls)
                and not op.regions
                and not op.successors
                and not op.attributes
                and op not in checked
            ):
                operands = op._operands
                for u in operands:
                    if u.value not in visible:
                        check_op(op, None)
                        break
                else:
                    signature = (
                        cls,
                        tuple([u.value.type for u in operands]),
                        tuple([r.type for r in op.results]),
                        tuple(op.properties.items()),
                    )
                    if signature not in verified:
                        check_op(op, None)
            else:
                check_op(op, None)
            results = op.results
            if results:
                visible.update(results)
                added.extend(results)
            op = op._next
        return added

    def _check_cfg_region(self, region: Region) -> None:
        idom = immediate_dominators(region)
        children: dict[Block, list[Block]] = {}
        for b, d in idom.items():
            if d is not None:
                children.setdefault(d, []).append(b)
        order = {b: i for i, b in enumerate(reverse_post_order(region))}
        visible = self.visible
        # Depth-first walk of the dominator tree: a block sees its dominators' values.
        stack: list[tuple[Block, list[Value] | None]] = [(region.blocks[0], None)]
        while stack:
            block, added = stack.pop()
            if added is not None:
                for v in added:
                    visible.discard(v)
                continue
            stack.append((block, self._check_block(block)))
            for child in sorted(children.get(block, ()), key=order.__getitem__, reverse=True):
                stack.append((child, None))
        unreachable = [b for b in region.blocks if b not in idom]
        if unreachable:
            # Dominance is meaningless in unreachable blocks: accept any value of the region.
            everything = set(visible)
            for b in region.blocks:
                everything.update(b.args)
                for op in b.ops:
                    everything.update(op.results)
            for b in unreachable:
                for op in b.ops:
                    self._check_nested_lenient(op, everything)

    def _check_graph_region(self, region: Region) -> None:
        visible = self.visible
        added: list[Value] = []
        for b in region.blocks:
            added.extend(b.args)
            for op in b.ops:
                added.extend(op.results)
        visible.update(added)
        for b in region.blocks:
            for op in b.ops:
                self.check_op(op, None)
        for v in added:
            visible.discard(v)

    def _check_nested_lenient(self, op: Operation, everything: set[Value]) -> None:
        saved = self.visible
        self.visible = everything
        self.check_op(op, everything)
        self.visible = saved


_ATTRIBUTE_VERIFIERS: dict[str, Callable[[Operation, str, Attribute], None] | None] = {}


def _attribute_verifier(dialect_name: str) -> Callable[[Operation, str, Attribute], None] | None:
    """The ``verify_operation_attribute`` hook of a shipped dialect (loaded on first use)."""
    try:
        return _ATTRIBUTE_VERIFIERS[dialect_name]
    except KeyError:
        pass
    from ..dialects import dialect_loader

    loader = dialect_loader(dialect_name)
    hook = loader().verify_operation_attribute if loader is not None else None
    _ATTRIBUTE_VERIFIERS[dialect_name] = hook
    return hook


def _verify_dialect_attributes(op: Operation) -> None:
    """Discardable attributes named ``dialect.xxx`` are checked by that dialect (MLIR)."""
    for name, value in op.attributes.items():
        dot = name.find(".")
        if dot > 0:
            hook = _attribute_verifier(name[:dot])
            if hook is not None:
                hook(op, name, value)


def _relation(use_region: Region | None, def_region: Region | None) -> str:
    if use_region is def_region:
        return "in the same region"
    if def_region is not None and use_region is not None and def_region.is_ancestor_of(use_region):
        return "in a parent region"
    if use_region is not None and def_region is not None and use_region.is_ancestor_of(def_region):
        return "in a child region"
    return "neither in a parent nor in a child region"


def _isolating_ancestor(op: Operation, value: Value) -> Operation | None:
    """The op isolated from above that ``value`` illegally crosses into, if any."""
    if isinstance(value, BlockArgument):
        def_region = value.block.parent
    else:
        owner = value.owner
        def_region = owner.parent_region if isinstance(owner, Operation) else None
    if def_region is None:
        return None
    cur = op.parent_op
    while cur is not None:
        if IsolatedFromAbove in cur._trait_types:
            inside = any(r.is_ancestor_of(def_region) for r in cur.regions)
            return None if inside else cur
        cur = cur.parent_op
    return None
