"""The driver's pass pipeline: docs/dialects.md's default, specialised for the target.

The pipeline is built as text (what ``layoutc-opt -p`` takes), so a dump or a crash reproducer
states exactly what ran and anyone can replay it. Target-dependent options are given only to
passes that declare them, so the pipeline stays valid as passes gain options.
"""

from __future__ import annotations

from typing import Any

from .targets import BuildTarget

DEFAULT_PASSES: tuple[str, ...] = (
    "canonicalize",
    "fold-static-strides",
    "prove-vectorization",
    "select-atoms",
    "lower-algorithms",
    "fragment-scalrep",
    "lower-layouts",
    "canonicalize",
    "cse",
    "verify-target",
    "convert-to-llvm",
    "canonicalize",
    "cse",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
)
"""docs/dialects.md: the driver's default pipeline, in order."""


class PipelineUnavailableError(Exception):
    """A pass of the pipeline is not registered in this build."""


def target_options(target: BuildTarget, index_bitwidth: int) -> dict[str, dict[str, Any]]:
    """Options each pass gets when it declares them (by option name)."""
    arch = target.gpu.arch if target.is_gpu else "host"
    return {
        "verify-target": {"arch": arch},
        "convert-to-llvm": {"target": target.flavour, "index-bitwidth": index_bitwidth},
        "convert-arith-to-llvm": {"index-bitwidth": index_bitwidth},
        "convert-func-to-llvm": {"index-bitwidth": index_bitwidth},
        "select-atoms": {"arch": arch, "target": target.flavour},
        "prove-vectorization": {"arch": arch, "target": target.flavour},
        "lower-algorithms": {"arch": arch, "target": target.flavour},
    }


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def pass_text(name: str, wanted: dict[str, Any]) -> str:
    """``name{opt=value ...}`` with the options of ``wanted`` that the pass declares."""
    from layoutc.passes.registry import lookup_pass

    cls = lookup_pass(name)
    if cls is None:
        raise PipelineUnavailableError(name)
    declared = {o.name for o in cls.options()}
    given = [f"{k}={_format_value(v)}" for k, v in wanted.items() if k in declared]
    return f"{name}{{{' '.join(given)}}}" if given else name


def default_pipeline(
    target: BuildTarget, index_bitwidth: int = 64, check_bounds: bool = False
) -> str:
    """The textual default pipeline for ``target`` (raises PipelineUnavailableError naming the
    passes this build lacks). ``check_bounds`` adds ``insert-bounds-checks`` after
    ``convert-to-llvm`` (docs/runtime.md, "The bounds check")."""
    from layoutc.passes.registry import lookup_pass

    passes = list(DEFAULT_PASSES)
    if check_bounds:
        passes.insert(passes.index("convert-to-llvm") + 1, "insert-bounds-checks")
    missing = sorted({p for p in passes if lookup_pass(p) is None})
    if missing:
        raise PipelineUnavailableError(", ".join(missing))
    options = target_options(target, index_bitwidth)
    parts = [pass_text(p, options.get(p, {})) for p in passes]
    return f"builtin.module({','.join(parts)})"
