"""The layout passes: fold-static-strides, prove-vectorization, select-atoms,
lower-algorithms and lower-layouts (docs/layout-passes.md).

Importing this package registers every pass (one module per pass) and the
``layout-lowering`` pipeline with the pass registry.
"""

from __future__ import annotations

from . import (  # noqa: F401
    fold_static_strides,
    lower_algorithms,
    lower_layouts,
    prove_vectorization,
    select_atoms,
)
