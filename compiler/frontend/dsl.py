"""The kernel DSL as users import it: ``import layoutc as lc`` then ``lc.kernel``, ``lc.range``,
``lc.thread_idx``, ``lc.copy``... (``layoutc/__init__.py`` re-exports these names lazily)."""

from __future__ import annotations

from .annotations import Constexpr, Tensor
from .control_flow import DynamicRange as range
from .dtypes import bf16, f16, f32, f64, i1, i8, i16, i32, i64, tf32
from .errors import CompileError, NotSupportedError
from .gpu import block_dim, block_idx, grid_dim, lane_idx, syncthreads, thread_idx
from .kernel import Kernel, kernel
from .scalars import maximum as max
from .scalars import minimum as min
from .scalars import select as where
from .spec import KernelSpec, SpecError
from .trace import trace

__all__ = [
    "CompileError",
    "Constexpr",
    "Kernel",
    "KernelSpec",
    "NotSupportedError",
    "SpecError",
    "Tensor",
    "bf16",
    "block_dim",
    "block_idx",
    "f16",
    "f32",
    "f64",
    "grid_dim",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "kernel",
    "lane_idx",
    "max",
    "min",
    "range",
    "syncthreads",
    "tf32",
    "thread_idx",
    "trace",
    "where",
]
