"""Op traits: properties an op declares in ``traits = (...)`` and that passes query.

A trait is an instance (``HasParent("scf.for")``) or a trait class (``Pure``); ``op.has_trait(T)``
is a set lookup that also matches base traits (``Pure`` implies ``NoMemoryEffect``). A trait may
verify the op it is attached to by overriding :meth:`Trait.verify` (raise ``VerifyError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import VerifyError
from .types import VectorType

if TYPE_CHECKING:
    from .operation import Operation


class Trait:
    """Base of traits. ``verify`` runs after the op's structural checks, before ``verify_``."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        return None

    def __repr__(self) -> str:
        return type(self).__name__


class NoMemoryEffect(Trait):
    """The op reads and writes no memory (it may still be undefined behaviour to execute)."""

    __slots__ = ()


class AlwaysSpeculatable(Trait):
    """The op may be executed speculatively (hoisted out of conditionals)."""

    __slots__ = ()


class Pure(NoMemoryEffect, AlwaysSpeculatable):
    """No memory effects and always speculatable: removable when unused, CSE-able."""

    __slots__ = ()


class RecursiveMemoryEffects(Trait):
    """The op's effects are those of the ops nested in its regions."""

    __slots__ = ()


class Terminator(Trait):
    """The op ends a block; it must be the block's last op."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        if op.parent is not None and op.next_op is not None:
            raise VerifyError("must be the last operation in the parent block")


class ReturnLike(Trait):
    """A terminator that returns control (and values) to the parent op."""

    __slots__ = ()


class NoTerminator(Trait):
    """Blocks in this op's regions need no terminator (``builtin.module``)."""

    __slots__ = ()


class GraphRegions(Trait):
    """This op's regions are graph regions: values need not dominate their uses."""

    __slots__ = ()


class IsolatedFromAbove(Trait):
    """Ops in this op's regions may not use values defined outside of it."""

    __slots__ = ()


class ConstantLike(Trait):
    """A constant materialiser: no operands, one result, and ``fold`` returns its value."""

    __slots__ = ()


class Commutative(Trait):
    """Binary op whose operands may be swapped (canonicalisation moves constants right)."""

    __slots__ = ()


class SameOperandsAndResultType(Trait):
    __slots__ = ()

    def verify(self, op: Operation) -> None:
        uses = op._operands
        results = op.results
        if uses:
            first = uses[0].value.type
        elif results:
            first = results[0].type
        else:
            return
        for u in uses:
            if u.value.type is not first:
                raise VerifyError("requires the same type for all operands and results")
        for r in results:
            if r.type is not first:
                raise VerifyError("requires the same type for all operands and results")


class SameTypeOperands(Trait):
    __slots__ = ()

    def verify(self, op: Operation) -> None:
        types = [v.type for v in op.operands]
        if types and any(t is not types[0] for t in types):
            raise VerifyError("requires all operands to have the same type")


class SameOperandsAndResultShape(Trait):
    """All operands and results are scalars, or all are vectors of one shape."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        shapes = {
            (v.type.shape, v.type.scalable) if isinstance(v.type, VectorType) else None
            for v in (*op.operands, *op.results)
        }
        if len(shapes) > 1:
            raise VerifyError("requires the same shape for all operands and results")


class SingleBlock(Trait):
    """Each region has at most one block."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        for i, region in enumerate(op.regions):
            if len(region.blocks) > 1:
                raise VerifyError(f"expects region #{i} to have 0 or 1 blocks")


class SingleBlockImplicitTerminator(SingleBlock):
    """Single-block regions ending with ``terminator``, which custom forms may omit."""

    __slots__ = ("terminator",)

    def __init__(self, terminator: str):
        self.terminator = terminator

    def verify(self, op: Operation) -> None:
        super().verify(op)
        for region in op.regions:
            if not region.blocks:
                continue
            last = region.blocks[0].last_op
            if last is None or last.name != self.terminator:
                found = f"'{last.name}'" if last is not None else "nothing"
                raise VerifyError(f"expects regions to end with '{self.terminator}', found {found}")

    def __repr__(self) -> str:
        return f"SingleBlockImplicitTerminator({self.terminator!r})"


class NoRegionArguments(Trait):
    """The op's regions have no block arguments in their entry blocks."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        for i, region in enumerate(op.regions):
            if region.blocks and region.blocks[0].args:
                raise VerifyError(f"region #{i} should have no arguments")


class HasParent(Trait):
    """The op must be directly nested in one of the named ops."""

    __slots__ = ("names",)

    def __init__(self, *names: str):
        self.names = names

    def verify(self, op: Operation) -> None:
        parent = op.parent_op
        if parent is None or parent.name not in self.names:
            if len(self.names) == 1:
                raise VerifyError(f"expects parent op '{self.names[0]}'")
            quoted = ", ".join(f"'{n}'" for n in self.names)
            raise VerifyError(f"expects parent op to be one of {quoted}")

    def __repr__(self) -> str:
        return f"HasParent{self.names!r}"


class Symbol(Trait):
    """The op defines a symbol named by its ``sym_name`` property (optional if ``optional``)."""

    __slots__ = ("optional",)

    def __init__(self, optional: bool = False):
        self.optional = optional

    def verify(self, op: Operation) -> None:
        from .attributes import StringAttr

        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is None:
            if not self.optional:
                raise VerifyError("requires string attribute 'sym_name'")
        elif not isinstance(name, StringAttr):
            raise VerifyError("requires attribute 'sym_name' to be a string")
        vis = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
        if vis is not None and (
            not isinstance(vis, StringAttr) or vis.value not in ("public", "private", "nested")
        ):
            raise VerifyError('visibility expected to be one of ["public", "private", "nested"]')


class SymbolTable(Trait):
    """The op's single region holds symbols with unique names (``builtin.module``)."""

    __slots__ = ()

    def verify(self, op: Operation) -> None:
        if len(op.regions) != 1:
            raise VerifyError("operations with a 'SymbolTable' must have exactly one region")
        seen: dict[str, Operation] = {}
        region = op.regions[0]
        if len(region.blocks) > 1:
            raise VerifyError("operations with a 'SymbolTable' must have exactly one block")
        for block in region.blocks:
            for nested in block.ops:
                name = symbol_name(nested)
                if name is None:
                    continue
                if name in seen:
                    raise VerifyError(
                        f"redefinition of symbol named '{name}'",
                        notes=[("see existing symbol definition here", seen[name].location)],
                        at=nested,
                    )
                seen[name] = nested


class AttrSizedOperandSegments(Trait):
    """Operand groups are sized by the ``operandSegmentSizes`` property (added automatically)."""

    __slots__ = ()


class AttrSizedResultSegments(Trait):
    """Result groups are sized by the ``resultSegmentSizes`` property (added automatically)."""

    __slots__ = ()


def symbol_name(op: Operation) -> str | None:
    """The symbol an op defines, if it is a symbol with a name."""
    if not op.has_trait(Symbol):
        return None
    attr: Any = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return attr.value if attr is not None and hasattr(attr, "value") else None


def is_memory_effect_free(op: Operation) -> bool:
    """True when executing ``op`` (and everything nested in it) touches no memory."""
    if op.has_trait(RecursiveMemoryEffects):
        return all(
            is_memory_effect_free(nested)
            for region in op.regions
            for block in region.blocks
            for nested in block.ops
        )
    return op.has_trait(NoMemoryEffect)


def would_be_trivially_dead(op: Operation) -> bool:
    """An op with unused results and no side effects that may be deleted (MLIR's rule)."""
    if op.has_trait(Terminator) or op.has_trait(Symbol):
        return False
    if any(r.uses for r in op.results):
        return False
    return is_memory_effect_free(op)


class TargetRequirement:
    """A GPU feature an op needs: ``arch`` is the oldest architecture that has it.

    ``sm_90`` means "sm_90 or newer" (sm_90a included): TMA, mbarrier transaction counts,
    clusters, elect.sync. ``sm_90a`` (an arch-specific ``a`` feature) means "exactly the
    sm_90 family compiled with its ``a`` features": wgmma, setmaxnreg; code that uses them
    runs only on that compute capability, so neither sm_90 nor sm_100 provides them.
    """

    __slots__ = ("arch", "capability", "feature", "specific")

    def __init__(self, arch: str, feature: str):
        parsed = _parse_arch(arch)
        if parsed is None:
            raise ValueError(f"not a GPU architecture name: {arch!r} (expected e.g. 'sm_90a')")
        self.arch = arch
        self.feature = feature
        self.capability = parsed[:2]
        self.specific = parsed[2]

    def satisfied_by(self, arch: str) -> bool:
        """Whether code compiled for ``arch`` (``sm_90``, ``sm_90a``...) may use the feature."""
        parsed = _parse_arch(arch)
        if parsed is None:
            return False
        if self.specific:
            return parsed[2] and parsed[:2] == self.capability
        return parsed[:2] >= self.capability

    def message(self, arch: str) -> str:
        """The diagnostic for an op with this requirement compiled for ``arch`` (printed after
        the op's ``'name' op`` prefix)."""
        if self.specific:
            need = f"needs target {self.arch} ({self.feature} is an arch-specific feature)"
        else:
            need = f"needs target {self.arch} or newer ({self.feature})"
        return f"{need}, but the kernel is compiled for {arch}; compile with target='{self.arch}'"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TargetRequirement) and (self.arch, self.feature) == (
            other.arch,
            other.feature,
        )

    def __hash__(self) -> int:
        return hash((self.arch, self.feature))

    def __repr__(self) -> str:
        return f"TargetRequirement({self.arch!r}, {self.feature!r})"


class RequiresTarget(Trait):
    """The op needs a GPU feature: ``RequiresTarget("sm_90a", "setmaxnreg")``.

    The one way an op declares an architecture requirement (docs/codegen.md, "Target
    features"). ``when`` makes the requirement depend on the op (e.g. on the atom a
    ``tile.gemm`` carries): a function of the op returning a :class:`TargetRequirement` or
    None. The check is ``layoutc.passes.target_features.check_target_features``, run by the
    driver's pipeline (pass ``verify-target``) and by the NVVM translation; the CPU runtime
    emulates every feature, so the host target has no requirement.
    """

    __slots__ = ("requirement", "when")

    def __init__(self, arch: str | None = None, feature: str = "", *, when: Any = None):
        if (arch is None) == (when is None):
            raise TypeError("RequiresTarget takes an architecture and feature, or when=")
        self.requirement = TargetRequirement(arch, feature) if arch is not None else None
        self.when = when

    def requirement_of(self, op: Operation) -> TargetRequirement | None:
        return self.requirement if self.when is None else self.when(op)

    def __repr__(self) -> str:
        if self.requirement is not None:
            return f"RequiresTarget({self.requirement.arch!r}, {self.requirement.feature!r})"
        return "RequiresTarget(when=...)"


def _parse_arch(arch: str) -> tuple[int, int, bool] | None:
    """``sm_90a`` -> (9, 0, True); None for anything else (the host, an empty string)."""
    if not arch.startswith("sm_") or len(arch) < 5:
        return None
    digits, specific = (arch[3:-1], True) if arch.endswith("a") else (arch[3:], False)
    if not digits.isdigit():
        return None
    return int(digits[:-1]), int(digits[-1]), specific
