"""layoutc: a symbolic CuTe-style layout compiler.

The public API is re-exported lazily (PEP 562 module `__getattr__`) so that `import layoutc`
stays light: nothing below is imported until it is first used. To add a public name, add it to
`_LAZY` with the module that defines it.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__version__ = "0.1.0"

_ALGEBRA = "layoutc.ir.algebra"

_LAZY: dict[str, str] = {
    name: _ALGEBRA
    for name in (
        "ArithmeticTuple",
        "ComposedLayout",
        "CustomStride",
        "E",
        "GenColMajor",
        "GenRowMajor",
        "IndexedGather",
        "Layout",
        "LayoutError",
        "LayoutLeft",
        "LayoutParseError",
        "LayoutRight",
        "ScaledBasis",
        "StridedGather",
        "Swizzle",
        "Underscore",
        "_",
        "append",
        "as_arithmetic_tuple",
        "basis_get",
        "basis_value",
        "blocked_product",
        "ceil_div",
        "coalesce",
        "compact_col_major",
        "compact_order",
        "compact_row_major",
        "compatible",
        "complement",
        "composition",
        "congruent",
        "cosize",
        "crd2crd",
        "crd2idx",
        "depth",
        "dice",
        "domain_offset",
        "elem_scale",
        "filter",
        "filter_zeros",
        "flat_divide",
        "flat_product",
        "flatten",
        "flatten_to_tuple",
        "format_tuple",
        "get",
        "group",
        "idx2crd",
        "inner_product",
        "is_layout",
        "layout_svg",
        "left_inverse",
        "logical_divide",
        "logical_product",
        "make_arithmetic_tuple",
        "make_basis_like",
        "make_composed_layout",
        "make_custom_stride_layout",
        "make_gather_layout",
        "make_identity_layout",
        "make_layout",
        "make_layout_like",
        "make_ordered_layout",
        "make_swizzle",
        "max_common_layout",
        "max_common_vector",
        "mode",
        "modes",
        "nullspace",
        "parse_int_tuple",
        "parse_layout",
        "parse_tiler",
        "prefix_product",
        "prepend",
        "print_layout",
        "print_tv_layout",
        "product",
        "product_each",
        "raked_product",
        "rank",
        "replace",
        "right_inverse",
        "select",
        "shape",
        "shape_div",
        "size",
        "slice_",
        "slice_and_offset",
        "stride",
        "take",
        "tile_to_shape",
        "tile_unzip",
        "tiled_divide",
        "tiled_product",
        "transform_layout",
        "tv_layout_svg",
        "unflatten",
        "weakly_congruent",
        "zip_layouts",
        "zipped_divide",
        "zipped_product",
    )
}


# --- the kernel DSL (owner: front end); entries here override same-named ones above ------------
_FRONTEND = "layoutc.frontend.dsl"
_LAZY.update(
    {
        name: _FRONTEND
        for name in (
            "Bool",
            "CompileError",
            "Constexpr",
            "CopyAtom",
            "Float",
            "Func",
            "Int",
            "Kernel",
            "KernelSpec",
            "NotSupportedError",
            "SpecError",
            "Tensor",
            "ThrCopy",
            "ThrMMA",
            "TiledCopy",
            "TiledMMA",
            "alloc_smem",
            "assume",
            "atomic_add",
            "atomic_and",
            "atomic_cas",
            "atomic_exch",
            "atomic_max",
            "atomic_min",
            "atomic_or",
            "atomic_sub",
            "atomic_xor",
            "axpby",
            "bf16",
            "block_dim",
            "block_idx",
            "clear",
            "copy",
            "copy_if",
            "cp_async_commit",
            "cp_async_wait",
            "dynamic_smem_tensor",
            "elem_less",
            "f8e4m3",
            "f8e5m2",
            "f16",
            "f32",
            "f64",
            "fill",
            "fma",
            "for_each",
            "func",
            "inner_partition",
            "outer_partition",
            "print",
            "print_tensor",
            "printf",
            "recast",
            "transform",
            "gemm",
            "gmem",
            "gmma_layout_atom",
            "grid_dim",
            "i1",
            "i8",
            "i16",
            "i32",
            "i64",
            "kernel",
            "lane_idx",
            "local_partition",
            "local_tile",
            "make_copy_atom",
            "make_fragment",
            "make_fragment_like",
            "make_identity_tensor",
            "make_tensor",
            "make_tensor_like",
            "make_tiled_copy",
            "make_tiled_copy_A",
            "make_tiled_copy_B",
            "make_tiled_copy_C",
            "make_tiled_copy_tv",
            "make_tiled_mma",
            "max",
            "min",
            "partition_tv",
            "range",
            "rmem",
            "shuffle_down",
            "shuffle_idx",
            "shuffle_up",
            "shuffle_xor",
            "smem",
            "smem_tensor",
            "syncthreads",
            "tanh",
            "tf32",
            "thread_idx",
            "threadfence",
            "trace",
            "warpgroup_arrive",
            "warpgroup_commit_batch",
            "warpgroup_fence_operand",
            "warpgroup_wait",
            "where",
        )
    }
)
# Hopper: warp specialization, fences, clusters (layoutc/frontend/hopper.py).
_LAZY.update(
    {
        name: "layoutc.frontend.hopper"
        for name in (
            "block_rank_in_cluster",
            "cluster_arrive",
            "cluster_size",
            "cluster_sync",
            "cluster_wait",
            "elect_one_sync",
            "fence_barrier_init",
            "fence_proxy_async",
            "mbarrier_init",
            "mbarrier_init_fence",
            "mbarrier_arrive",
            "mbarrier_arrive_and_expect_tx",
            "mbarrier_wait",
            "named_barrier_sync",
            "warpgroup_reg_alloc",
            "warpgroup_reg_dealloc",
        )
    }
)
# TMA (layoutc/frontend/tma.py).
_LAZY.update(
    {
        name: "layoutc.frontend.tma"
        for name in (
            "make_tma_copy",
            "tma_copy",
            "tma_store_arrive",
            "tma_store_wait",
            "prefetch_tma_descriptor",
        )
    }
)
# TMA in im2col mode (layoutc/frontend/tma_im2col.py).
_LAZY.update({"make_im2col_tma_copy": "layoutc.frontend.tma_im2col"})
# The TMA pipeline library (layoutc/frontend/pipelines.py).
_LAZY.update({name: "layoutc.frontend.pipelines" for name in ("PipelineState", "PipelineTmaAsync")})
# The algebra functions below also take tensors (views) and dynamic values inside kernels;
# with static layouts they are exactly the algebra's (layoutc/frontend/layouts.py).
_LAZY.update(
    {
        name: "layoutc.frontend.layouts"
        for name in (
            "blocked_product",
            "coalesce",
            "complement",
            "composition",
            "cosize",
            "crd2idx",
            "depth",
            "downcast",
            "flat_divide",
            "flatten",
            "group_modes",
            "idx2crd",
            "left_inverse",
            "logical_divide",
            "logical_product",
            "make_identity_layout",
            "make_layout",
            "make_layout_tv",
            "raked_product",
            "rank",
            "recast_layout",
            "right_inverse",
            "shape",
            "size",
            "stride",
            "tile_to_shape",
            "tiled_divide",
            "upcast",
            "zipped_divide",
        )
    }
)

# --- the driver (owner: driver): compile, compiled kernels, argument specs, examples ------------
_LAZY.update(
    {
        "compile": "layoutc.driver",
        "CompiledKernel": "layoutc.driver",
        "InternalCompilerError": "layoutc.driver",
        "spec": "layoutc.driver",
        "Example": "layoutc.driver.example",
        "autotune": "layoutc.driver.autotune",
        "Config": "layoutc.driver.autotune",
    }
)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # name/obj let the tracer recognise a misspelt ``lc.<name>`` in a kernel (a user error).
        raise AttributeError(
            f"module 'layoutc' has no attribute {name!r}", name=name, obj=sys.modules[__name__]
        )
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
