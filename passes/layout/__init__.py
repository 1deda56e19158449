"""The layout passes: fold-static-strides, prove-vectorization, select-atoms,
lower-algorithms, fragment-scalrep and lower-layouts (docs/layout-passes.md).

Importing this package registers every pass (one module per pass) and the
``layout-lowering`` pipeline with the pass registry.
"""

from __future__ import annotations

from ..registry import register_pipeline
from . import (  # noqa: F401
    fold_static_strides,
    fragment_scalrep,
    lower_algorithms,
    lower_layouts,
    prove_vectorization,
    select_atoms,
)

register_pipeline(
    "layout-lowering",
    "canonicalize,fold-static-strides,prove-vectorization,select-atoms,lower-algorithms,"
    "fragment-scalrep,lower-layouts,canonicalize,cse",
    "docs/dialects.md's default pipeline up to convert-to-llvm: tile algorithms and layouts "
    "to loops of pointer + offset accesses",
)
