"""``verify-target{arch=sm_90}``: refuse ops whose GPU feature the target does not have.

An op declares what it needs with the ``RequiresTarget`` trait (ir/core/traits.py); this is
the one place that checks it, so every kernel that uses TMA, wgmma, setmaxnreg... on an older
(or not arch-specific) target gets ``file:line:col: error: 'op' (feature) needs target
sm_90a ...`` at the user's line instead of a ptxas failure. The driver runs the pass right
before ``convert-to-llvm`` (every op still carries its requirement and location there) and the
NVVM translation calls :func:`check_target_features` again for modules that skipped it.
"""

from __future__ import annotations

from collections.abc import Iterator

from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import RequiresTarget, TargetRequirement

from .base import Option, Pass, Statistic
from .registry import register_pass

__all__ = ["VerifyTarget", "check_target_features", "target_requirements"]


_REQUIRING_TRAITS: dict[type, tuple[RequiresTarget, ...]] = {}
"""Per op class, its RequiresTarget traits (none for most: the walks skip those ops at once)."""


def _requiring_traits(cls: type) -> tuple[RequiresTarget, ...]:
    found = _REQUIRING_TRAITS.get(cls)
    if found is None:
        found = tuple(t for t in cls.traits if isinstance(t, RequiresTarget))
        _REQUIRING_TRAITS[cls] = found
    return found


def target_requirements(op: Operation) -> Iterator[TargetRequirement]:
    """The requirements ``op`` declares (none for most ops)."""
    for trait in _requiring_traits(type(op)):
        req = trait.requirement_of(op)
        if req is not None:
            yield req


def check_target_features(root: Operation, arch: str) -> list[tuple[Operation, str]]:
    """Every (op, message) under ``root`` whose requirement ``arch`` does not meet.

    ``arch`` is a GPU architecture (``sm_80`` ... ``sm_90a``); anything else (``host``, empty)
    has no restrictions: the CPU runtime emulates every feature.
    """
    if not arch.startswith("sm_"):
        return []
    failures = []
    for op in root.walk_ops():
        if not _requiring_traits(type(op)):
            continue
        for req in target_requirements(op):
            if not req.satisfied_by(arch):
                failures.append((op, req.message(arch)))
    return failures


@register_pass
class VerifyTarget(Pass):
    argument = "verify-target"
    summary = "Refuse ops that need a GPU feature the target architecture lacks"
    description = (
        "Ops carrying the RequiresTarget trait (TMA, mbarrier transaction counts, clusters, "
        "wgmma, setmaxnreg, ...) are errors at their location when the target architecture "
        "does not provide the feature; the host target accepts everything (the CPU runtime "
        "emulates it)."
    )

    arch = Option(str, "", "Target architecture (sm_80 ... sm_90a, or host); empty checks nothing")
    num_checked = Statistic("Ops with a target requirement")

    def run_on_operation(self, op: Operation) -> None:
        self.num_checked += sum(
            1 for o in op.walk_ops() if _requiring_traits(type(o)) for _ in target_requirements(o)
        )
        failures = check_target_features(op, self.arch)
        for bad, message in failures:
            self.emit_error(bad, message)
        if failures:
            self.signal_failure()
        self.mark_all_analyses_preserved()
