"""C launchers for an AOT artifact (``layoutc compile ... --emit-c DIR``).

From an artifact's manifest and code files this writes ``<prefix>_kernels.h``, declaring one
launch function per kernel with typed parameters (element-typed device pointers, the scalars
that carry dynamic layout entries, grid, block when the kernel does not fix it, stream), and
``<prefix>_kernels.c``, which embeds every architecture's cubin (and PTX) and launches through
the CUDA driver API. A C or C++ host links it with ``-lcuda`` and calls layoutc kernels without
Python, as CuTe DSL's export to C lets CUTLASS users do.

The launcher keeps the runtime's promises: it refuses, with ``CUDA_ERROR_INVALID_VALUE`` and a
message from ``<prefix>_last_error()``, every argument that breaks a fact the code was
compiled under (pointer alignment, divisibility and bounds of integers, carriers that must be
equal, the block shape, and for TMA descriptors, which the launcher encodes from the source
tensor's pointer, extents and strides with ``cuTensorMapEncodeTiled`` (an im2col descriptor
with ``cuTensorMapEncodeIm2col``, its corners, pixels and traversal strides as the Python
runtime encodes them) and caches per (pointer, extents, strides), TMA's rules; a grid that is
no multiple of the cluster shape), so
C callers cannot run code on arguments it was not built for. Kernels compiled with a cluster
shape launch in clusters of it (``cuLaunchKernelEx``); the others also get a ``_cluster``
launcher that takes the shape. The
code image is chosen per device as the driver would (a cubin for the same major architecture
and no newer minor one, an arch-specific ``sm_XYa`` cubin only on exactly that chip, else PTX
for an older or equal architecture), loaded once per CUDA context and kept until
``<prefix>_unload()``. Output is deterministic: the same artifact gives the same files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from layoutc.runtime.abi import POINTER, TMA, KernelSpec, Param
from layoutc.runtime.compat import parse_arch
from layoutc.runtime.tma import DATA_TYPES, ELEMENT_BYTES, SWIZZLES

#: ABI element type -> the C type of a scalar of it and of a pointer's element (f16/bf16 have
#: no C type: their bit patterns travel as uint16_t).
C_TYPES: dict[str, str] = {
    "i8": "int8_t",
    "i16": "int16_t",
    "i32": "int32_t",
    "i64": "int64_t",
    "u8": "uint8_t",
    "u16": "uint16_t",
    "u32": "uint32_t",
    "u64": "uint64_t",
    "f16": "uint16_t",
    "bf16": "uint16_t",
    "f32": "float",
    "f64": "double",
}

_C_KEYWORDS = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "bool",
        "true",
        "false",
    ]
)

#: Blocks in one cluster at most (Hopper's non-portable size; more than ``PORTABLE_CLUSTER``
#: opts the function into non-portable sizes before the launch).
MAX_CLUSTER = 16
#: CUDA's portable cluster size.
PORTABLE_CLUSTER = 8

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class EmitCError(ValueError):
    """The artifact cannot be expressed as C launchers (a name, a type)."""


@dataclass(frozen=True)
class CImage:
    """One code image of a kernel: a cubin or a PTX text for one architecture."""

    arch: str
    kind: str  # "cubin" or "ptx"
    data: bytes


@dataclass(frozen=True)
class CKernel:
    spec: KernelSpec
    images: tuple[CImage, ...]


def _c_name(name: str, what: str) -> str:
    if not _IDENT.match(name):
        raise EmitCError(f"{what} {name!r} is not a C identifier")
    return f"{name}_" if name in _C_KEYWORDS else name


def _c_type(param: Param) -> str:
    try:
        base = C_TYPES[param.dtype]
    except KeyError:
        raise EmitCError(f"parameter {param.name!r}: no C type for {param.dtype}") from None
    return f"{base} *" if param.kind == POINTER else base


def _c_range(dtype: str) -> tuple[int, int]:
    """The values a C integer of ABI type ``dtype`` can hold."""
    bits = int(dtype[1:])
    if dtype.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _dim3_literal(dims: Sequence[int]) -> str:
    return "(layoutc_dim3){" + ", ".join(str(d) for d in dims) + "}"


def _bytes_literal(data: bytes) -> str:
    """``data`` as the body of a C array initialiser, 16 bytes a line."""
    lines = []
    for i in range(0, len(data), 16):
        lines.append("    " + ", ".join(f"0x{b:02x}" for b in data[i : i + 16]) + ",")
    return "\n".join(lines)


def _order(images: Sequence[CImage]) -> list[CImage]:
    """Cubins before PTX, newest architecture first: the first that runs is the best."""
    return sorted(images, key=lambda im: (im.kind != "cubin", [-v for v in parse_arch(im.arch)]))


class _Writer:
    def __init__(self, prefix: str, kernels: Sequence[CKernel]) -> None:
        self.prefix = _c_name(prefix, "prefix")
        self.kernels = kernels
        self.guard = f"{self.prefix.upper()}_KERNELS_H"

    # -- the header ---------------------------------------------------------------------------
    def c_params(self, k: CKernel) -> list[str]:
        """The kernel's parameters as C declarations (the caller's arguments)."""
        return [
            f"{_c_type(p)}{_c_name(p.name, 'parameter')}"
            if p.kind == POINTER
            else f"{_c_type(p)} {_c_name(p.name, 'parameter')}"
            for p in k.spec.params
            if p.kind != TMA  # encoded by the launcher from its source tensor
        ]

    def signature(self, k: CKernel, clustered: bool = False) -> str:
        """The public launcher; ``clustered``: the one of a kernel without a compiled cluster
        shape that launches in clusters of ``lc_cluster`` (``<name>_cluster``)."""
        params = self.c_params(k)
        params.append("layoutc_dim3 lc_grid")
        if k.spec.launch_bounds.block is None:
            params.append("layoutc_dim3 lc_block")
        if clustered:
            params.append("layoutc_dim3 lc_cluster")
        params.append("CUstream lc_stream")
        name = f"{self.prefix}_{_c_name(k.spec.name, 'kernel')}" + ("_cluster" if clustered else "")
        return f"CUresult {name}({', '.join(params)})"

    def facts_comment(self, k: CKernel) -> str:
        spec = k.spec
        archs = ", ".join(dict.fromkeys(im.arch for im in _order(k.images)))
        lines = [f"/* {spec.name} [{archs}]"]
        block = spec.launch_bounds.block
        if block is not None:
            lines.append(f" * block: fixed at ({block[0]}, {block[1]}, {block[2]})")
        elif spec.launch_bounds.max_threads is not None:
            lines.append(f" * block: at most {spec.launch_bounds.max_threads} threads")
        facts = spec.describe_facts()
        lines.append(f" * assumes: {', '.join(facts) if facts else 'nothing'}")
        if spec.dynamic_smem:
            lines.append(f" * dynamic shared memory: {spec.dynamic_smem} bytes")
        for p in spec.params:
            if p.kind == TMA:
                assert p.tma is not None
                lines.append(
                    f" * TMA descriptor of {p.tma.source}: encoded by the launcher (box "
                    f"{p.tma.box}, swizzle {p.tma.swizzle}B), cached per pointer, extents, strides"
                )
        if spec.cluster is not None:
            x, y, z = spec.cluster
            lines.append(
                f" * launched in clusters of ({x}, {y}, {z}) blocks: the grid must be a multiple"
            )
        elif spec.explicit_cluster:
            lines.append(
                " * launched in clusters only (.explicitcluster): the plain launcher refuses, the"
            )
            lines.append(" * _cluster launcher runs it in thread block clusters of lc_cluster")
        else:
            lines.append(
                " * the _cluster launcher runs it in thread block clusters of lc_cluster (sm_90)"
            )
        if spec.max_cluster_blocks is not None:
            lines.append(
                f" * clusters of at most {spec.max_cluster_blocks} blocks (.maxclusterrank)"
            )
        lines.append(" * Pointers are device pointers. */")
        return "\n".join(lines)

    def header(self) -> str:
        out = [
            f"/* Generated by layoutc compile --emit-c: launchers for {len(self.kernels)} "
            "kernel(s). Do not edit. */",
            f"#ifndef {self.guard}",
            f"#define {self.guard}",
            "",
            "#include <stdint.h>",
            "#include <cuda.h>",
            "",
            "#ifdef __cplusplus",
            'extern "C" {',
            "#endif",
            "",
            "#ifndef LAYOUTC_DIM3_DEFINED",
            "#define LAYOUTC_DIM3_DEFINED",
            "typedef struct layoutc_dim3 { unsigned int x, y, z; } layoutc_dim3;",
            "#endif",
            "",
            '/* The message of the last refused or failed call on this thread ("" if none). */',
            f"const char *{self.prefix}_last_error(void);",
            "/* Unload the modules this library loaded into the current context. */",
            f"CUresult {self.prefix}_unload(void);",
            "/* TMA descriptors encoded so far (cuTensorMapEncodeTiled/Im2col calls; launches with a",
            "   tensor seen before reuse its descriptor). */",
            f"unsigned long long {self.prefix}_tma_encodes(void);",
            "",
        ]
        for k in self.kernels:
            out += [self.facts_comment(k), self.signature(k) + ";"]
            if k.spec.cluster is None:
                out.append(self.signature(k, clustered=True) + ";")
            out.append("")
        out += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {self.guard} */", ""]
        return "\n".join(out)

    # -- the source ---------------------------------------------------------------------------
    def images(self, k: CKernel, index: int) -> list[str]:
        out = []
        rows = []
        for j, im in enumerate(_order(k.images)):
            var = f"lc_k{index}_img{j}"
            data = im.data + b"\0" if im.kind == "ptx" else im.data
            out += [f"static const unsigned char {var}[] = {{", _bytes_literal(data), "};"]
            major, minor, specific = parse_arch(im.arch)
            rows.append(
                f'    {{"{im.arch}", {major}, {minor}, {int(specific)}, '
                f"{int(im.kind == 'ptx')}, {var}, sizeof({var})}},"
            )
        out += [f"static const lc_image lc_k{index}_images[] = {{", *rows, "};"]
        return out

    def checks(self, k: CKernel) -> list[str]:
        spec = k.spec
        out = []
        for p in spec.params:
            c = _c_name(p.name, "parameter")
            if p.kind == POINTER:
                if p.align and p.align > 1:
                    out += [
                        f"    if (((uintptr_t){c}) % {p.align}u != 0)",
                        f'        return lc_refuse("{spec.name}: argument {p.name} (%p) is not '
                        f'{p.align}-byte aligned, which the code assumes", (const void *){c});',
                    ]
                continue
            if not p.is_integer:
                continue
            what = f"{p.name} ({p.symbol})" if p.symbol else p.name
            if p.divisible_by != 1:
                out += [
                    f"    if (((int64_t){c}) % {p.divisible_by} != 0)",
                    f'        return lc_refuse("{spec.name}: argument {what} = %lld is not a '
                    f'multiple of {p.divisible_by}, which the code assumes", (long long){c});',
                ]
            lo, hi = _c_range(p.dtype)
            for bound, op in ((p.lower, "<"), (p.upper, ">")):
                if bound is None or (op == "<" and bound <= lo) or (op == ">" and bound >= hi):
                    continue  # the C type cannot hold a value past it
                word = "below" if op == "<" else "above"
                out += [
                    f"    if (((int64_t){c}) {op} {bound}LL)",
                    f'        return lc_refuse("{spec.name}: argument {what} = %lld is {word} '
                    f'{bound}, which the code assumes", (long long){c});',
                ]
        for group in spec.equal:
            first = _c_name(group[0], "parameter")
            for other in group[1:]:
                o = _c_name(other, "parameter")
                out += [
                    f"    if ((int64_t){first} != (int64_t){o})",
                    f'        return lc_refuse("{spec.name}: {group[0]} = %lld and {other} = '
                    f'%lld must be equal (one layout symbol)", (long long){first}, '
                    f"(long long){o});",
                ]
        bounds = spec.launch_bounds
        if bounds.block is None:
            limit = bounds.max_threads or 1024
            out += [
                "    if (lc_block.x == 0 || lc_block.y == 0 || lc_block.z == 0 ||",
                f"        (uint64_t)lc_block.x * lc_block.y * lc_block.z > {limit}u)",
                f'        return lc_refuse("{spec.name}: block (%u, %u, %u) must have 1 to '
                f'{limit} threads", lc_block.x, lc_block.y, lc_block.z);',
            ]
        return out

    def launcher(self, k: CKernel, index: int) -> list[str]:
        spec = k.spec
        block = spec.launch_bounds.block
        names = [_c_name(p.name, "parameter") for p in spec.params if p.kind != TMA]
        impl = f"lc_launch_k{index}"
        lc_block = "lc_block" if block is None else _dim3_literal(block)
        fixed = spec.cluster
        cluster = _dim3_literal((0, 0, 0) if fixed is None else fixed)
        args = ", ".join([*names, "lc_grid", lc_block])
        out = self.implementation(k, index)
        if fixed is None and spec.explicit_cluster:
            plain = [
                f'    return lc_refuse("{spec.name}: must be launched in clusters '
                f'(.explicitcluster): call {self.prefix}_{_c_name(spec.name, "kernel")}_cluster");'
            ]
            unused = [*names, "lc_grid", *(["lc_block"] if block is None else []), "lc_stream"]
            out += [self.signature(k), "{", *(f"    (void){n};" for n in unused), *plain, "}", ""]
        else:
            out += [
                self.signature(k),
                "{",
                f"    return {impl}({args}, {cluster}, lc_stream);",
                "}",
                "",
            ]
        if fixed is None:
            out += [
                self.signature(k, clustered=True),
                "{",
                "    if (lc_cluster.x == 0 || lc_cluster.y == 0 || lc_cluster.z == 0)",
                f'        return lc_refuse("{spec.name}: cluster (%u, %u, %u) has an empty '
                'dimension", lc_cluster.x, lc_cluster.y, lc_cluster.z);',
                f"    return {impl}({args}, lc_cluster, lc_stream);",
                "}",
                "",
            ]
        return out

    def implementation(self, k: CKernel, index: int) -> list[str]:
        """``lc_launch_k<index>``: the checks and the launch; ``lc_cluster`` (0, 0, 0) launches
        without clusters (``cuLaunchKernel``), anything else in clusters of that shape
        (``cuLaunchKernelEx`` with the cluster-dimension attribute)."""
        spec = k.spec
        values = [f"(void *)&{_c_name(p.name, 'parameter')}" for p in spec.params]
        # Device pointers travel as CUdeviceptr values, 8 bytes, as the kernel's ABI wants.
        locals_ = []
        for j, p in enumerate(spec.params):
            if p.kind == POINTER:
                c = _c_name(p.name, "parameter")
                locals_.append(f"    CUdeviceptr lc_p{j} = (CUdeviceptr)(uintptr_t){c};")
                values[j] = f"(void *)&lc_p{j}"
        tma = []
        for j, p in enumerate(spec.params):
            if p.kind == TMA:
                tma += self.tma_descriptor(k, index, j, p)
                values[j] = f"(void *)&lc_tmap{j}"
        n = max(len(values), 1)
        params = [*self.c_params(k), "layoutc_dim3 lc_grid", "layoutc_dim3 lc_block"]
        params += ["layoutc_dim3 lc_cluster", "CUstream lc_stream"]
        smem = f"{spec.dynamic_smem}u"
        most, why = MAX_CLUSTER, ""
        if spec.max_cluster_blocks is not None and spec.max_cluster_blocks < MAX_CLUSTER:
            most, why = spec.max_cluster_blocks, " (.maxclusterrank)"
        return [
            f"static CUresult lc_launch_k{index}({', '.join(params)})",
            "{",
            *self.checks(k),
            "    if (lc_grid.x == 0 || lc_grid.y == 0 || lc_grid.z == 0)",
            f'        return lc_refuse("{spec.name}: grid (%u, %u, %u) has an empty dimension", '
            "lc_grid.x, lc_grid.y, lc_grid.z);",
            "    if (lc_cluster.x != 0) {",
            f"        if ((uint64_t)lc_cluster.x * lc_cluster.y * lc_cluster.z > {most}u)",
            f'            return lc_refuse("{spec.name}: cluster (%u, %u, %u) has more than '
            f'{most} blocks{why}", lc_cluster.x, lc_cluster.y, lc_cluster.z);',
            "        if (lc_grid.x % lc_cluster.x || lc_grid.y % lc_cluster.y || "
            "lc_grid.z % lc_cluster.z)",
            f'            return lc_refuse("{spec.name}: grid (%u, %u, %u) is not divisible by '
            'the cluster shape (%u, %u, %u)", lc_grid.x, lc_grid.y, lc_grid.z, lc_cluster.x, '
            "lc_cluster.y, lc_cluster.z);",
            "    }",
            *tma,
            "    CUfunction lc_fn;",
            f"    CUresult lc_rc = lc_function(&lc_kernels[{index}], &lc_fn);",
            "    if (lc_rc != CUDA_SUCCESS) return lc_rc;",
            *locals_,
            f"    void *lc_args[{n}] = {{{', '.join(values) or '0'}}};",
            "    if (lc_cluster.x != 0) {",
            "        CUlaunchAttribute lc_attr;",
            "        memset(&lc_attr, 0, sizeof lc_attr);",
            "        lc_attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;",
            "        lc_attr.value.clusterDim.x = lc_cluster.x;",
            "        lc_attr.value.clusterDim.y = lc_cluster.y;",
            "        lc_attr.value.clusterDim.z = lc_cluster.z;",
            "        CUlaunchConfig lc_cfg;",
            "        memset(&lc_cfg, 0, sizeof lc_cfg);",
            "        lc_cfg.gridDimX = lc_grid.x;",
            "        lc_cfg.gridDimY = lc_grid.y;",
            "        lc_cfg.gridDimZ = lc_grid.z;",
            "        lc_cfg.blockDimX = lc_block.x;",
            "        lc_cfg.blockDimY = lc_block.y;",
            "        lc_cfg.blockDimZ = lc_block.z;",
            f"        lc_cfg.sharedMemBytes = {smem};",
            "        lc_cfg.hStream = lc_stream;",
            "        lc_cfg.attrs = &lc_attr;",
            "        lc_cfg.numAttrs = 1;",
            f"        if ((uint64_t)lc_cluster.x * lc_cluster.y * lc_cluster.z > {PORTABLE_CLUSTER}u) {{",
            "            lc_rc = cuFuncSetAttribute(lc_fn, "
            "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);",
            "            if (lc_rc != CUDA_SUCCESS)",
            f'                return lc_fail(lc_rc, "{spec.name}: allowing non-portable cluster '
            'sizes (more than 8 blocks)");',
            "        }",
            "        lc_rc = cuLaunchKernelEx(&lc_cfg, lc_fn, lc_args, 0);",
            "        if (lc_rc != CUDA_SUCCESS)",
            f'            return lc_fail(lc_rc, "{spec.name}: cuLaunchKernelEx");',
            "        return CUDA_SUCCESS;",
            "    }",
            "    lc_rc = cuLaunchKernel(lc_fn, lc_grid.x, lc_grid.y, lc_grid.z, lc_block.x, "
            "lc_block.y,",
            f"                           lc_block.z, {smem}, lc_stream, lc_args, 0);",
            "    if (lc_rc != CUDA_SUCCESS)",
            f'        return lc_fail(lc_rc, "{spec.name}: cuLaunchKernel");',
            "    return CUDA_SUCCESS;",
            "}",
            "",
        ]

    def tma_descriptor(self, k: CKernel, index: int, j: int, p: Param) -> list[str]:
        """Encode parameter ``j``'s descriptor into ``lc_tmap<j>`` (or take it from its cache),
        as the Python runtime does (runtime/packing.py, runtime/tma.py): TMA dimension order,
        extents in elements and strides in bytes from the source tensor's carriers."""
        spec = k.spec
        t = p.tma
        assert t is not None
        by_name = {q.name: q for q in spec.params}
        src = by_name[t.source]
        if src.dtype not in DATA_TYPES:
            raise EmitCError(f"parameter {p.name!r}: TMA does not move {src.dtype} elements")
        if t.mode == "im2col":  # the static rules now, the rest at launch (lc_tma_im2col)
            from layoutc.runtime.errors import ArgumentError
            from layoutc.runtime.tma_im2col import Im2colBox, check_im2col_box

            im2col = Im2colBox(
                src.dtype, t.box[0], t.pixels, t.lower, t.upper, t.swizzle, t.traversal
            )
            try:
                check_im2col_box(t.source, im2col)
            except ArgumentError as e:
                raise EmitCError(f"parameter {p.name!r}: {e}") from None
        elem = ELEMENT_BYTES[src.dtype]

        def entry(e: int | str) -> str:
            return (
                f"(int64_t){e}LL" if isinstance(e, int) else f"(int64_t){_c_name(e, 'parameter')}"
            )

        rank = len(t.dims)
        extents = ", ".join(entry(t.extents[m]) for m in t.dims)
        strides = ", ".join(f"{entry(t.strides[m])} * {elem}" for m in t.dims)
        box = ", ".join(f"{b}u" for b in t.box)
        what = f"{spec.name}: TMA descriptor of '{t.source}'"
        if t.mode == "im2col":
            spatial = rank - 2

            def ints(xs: tuple[int, ...]) -> str:
                return ", ".join(str(x) for x in xs)

            return [
                f"    CUtensorMap lc_tmap{j};",
                "    {",
                f"        const int64_t lc_ext[{rank}] = {{{extents}}};",
                f"        const int64_t lc_str[{rank}] = {{{strides}}};",
                f"        const int lc_lower[{spatial}] = {{{ints(im2col.lower)}}};",
                f"        const int lc_upper[{spatial}] = {{{ints(im2col.upper)}}};",
                f"        const cuuint32_t lc_walk[{rank}] = {{1, {ints(im2col.strides)}, 1}};",
                f'        CUresult lc_trc = lc_tma_im2col(&lc_tma_k{index}_{j}, "{what}", '
                f"{DATA_TYPES[src.dtype]}, {elem}u, {rank}u,",
                f"                                 (CUdeviceptr)(uintptr_t)"
                f"{_c_name(t.source, 'parameter')}, lc_ext, lc_str, lc_lower, lc_upper, "
                f"{im2col.channels}u, {im2col.pixels}u, lc_walk, {SWIZZLES[t.swizzle]}, "
                f"&lc_tmap{j});",
                "        if (lc_trc != CUDA_SUCCESS) return lc_trc;",
                "    }",
            ]
        return [
            f"    CUtensorMap lc_tmap{j};",
            "    {",
            f"        const int64_t lc_ext[{rank}] = {{{extents}}};",
            f"        const int64_t lc_str[{rank}] = {{{strides}}};",
            f"        const cuuint32_t lc_box[{rank}] = {{{box}}};",
            f'        CUresult lc_trc = lc_tma(&lc_tma_k{index}_{j}, "{what}", '
            f"{DATA_TYPES[src.dtype]}, {elem}u, {rank}u,",
            f"                                 (CUdeviceptr)(uintptr_t){_c_name(t.source, 'parameter')}, "
            f"lc_ext, lc_str, lc_box, {SWIZZLES[t.swizzle]}, &lc_tmap{j});",
            "        if (lc_trc != CUDA_SUCCESS) return lc_trc;",
            "    }",
        ]

    def source(self, header_name: str) -> str:
        p = self.prefix
        out = [
            "/* Generated by layoutc compile --emit-c. Do not edit. */",
            f'#include "{header_name}"',
            "",
            "#include <pthread.h>",
            "#include <stdarg.h>",
            "#include <stddef.h>",
            "#include <stdio.h>",
            "#include <string.h>",
            "",
            "typedef struct lc_image {",
            "    const char *arch;",
            "    int major, minor, arch_specific, is_ptx;",
            "    const unsigned char *data;",
            "    size_t size;",
            "} lc_image;",
            "",
            "#define LC_MAX_CONTEXTS 16",
            "typedef struct lc_loaded { CUcontext ctx; CUmodule module; CUfunction fn; } lc_loaded;",
            "typedef struct lc_kernel {",
            "    const char *name;",
            "    const lc_image *images;",
            "    int n_images;",
            "    unsigned int dynamic_smem;",
            "    lc_loaded loaded[LC_MAX_CONTEXTS];",
            "} lc_kernel;",
            "",
            "static _Thread_local char lc_error[512];",
            "static pthread_mutex_t lc_lock = PTHREAD_MUTEX_INITIALIZER;",
            "",
            f"const char *{p}_last_error(void) {{ return lc_error; }}",
            "",
            "static CUresult lc_refuse(const char *fmt, ...)",
            "{",
            "    va_list ap;",
            "    va_start(ap, fmt);",
            "    vsnprintf(lc_error, sizeof lc_error, fmt, ap);",
            "    va_end(ap);",
            "    return CUDA_ERROR_INVALID_VALUE;",
            "}",
            "",
            "static CUresult lc_fail(CUresult rc, const char *what)",
            "{",
            "    const char *name = 0;",
            '    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name) name = "?";',
            '    snprintf(lc_error, sizeof lc_error, "%s failed: %s (%d)", what, name, (int)rc);',
            "    return rc;",
            "}",
            "",
        ]
        for i, k in enumerate(self.kernels):
            out += self.images(k, i)
            out.append("")
        rows = [
            f'    {{"{k.spec.name}", lc_k{i}_images, {len(k.images)}, {k.spec.dynamic_smem}u, '
            "{{0, 0, 0}}},"
            for i, k in enumerate(self.kernels)
        ]
        out += [f"static lc_kernel lc_kernels[{len(self.kernels)}] = {{", *rows, "};", ""]
        out += _LOADER.format(prefix=p, n=len(self.kernels)).splitlines()
        out.append("")
        out += _TMA_COUNT.format(prefix=p).splitlines()
        caches = [
            f"static lc_tma_cache lc_tma_k{i}_{j};"
            for i, k in enumerate(self.kernels)
            for j, q in enumerate(k.spec.params)
            if q.kind == TMA
        ]
        if caches:
            modes = {q.tma.mode for k in self.kernels for q in k.spec.params if q.tma is not None}
            out += _TMA.splitlines()
            if "tile" in modes:
                out += _TMA_TILED.splitlines()
            if "im2col" in modes:
                out += _TMA_IM2COL.splitlines()
            out += [*caches, ""]
        for i, k in enumerate(self.kernels):
            out += self.launcher(k, i)
        return "\n".join(out)


_LOADER = """\
/* The first image the current context's device runs: a cubin of the same major architecture
   and no newer minor one (an arch-specific one only on exactly its chip), else PTX for an
   older or equal architecture, which the driver compiles. */
static CUresult lc_load(lc_kernel *k, CUmodule *module)
{{
    CUdevice dev;
    int major, minor;
    CUresult rc = cuCtxGetDevice(&dev);
    if (rc != CUDA_SUCCESS) return lc_fail(rc, "cuCtxGetDevice (no current CUDA context?)");
    if ((rc = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
        != CUDA_SUCCESS ||
        (rc = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
        != CUDA_SUCCESS)
        return lc_fail(rc, "cuDeviceGetAttribute");
    for (int i = 0; i < k->n_images; ++i) {{
        const lc_image *im = &k->images[i];
        int exact = im->major == major && im->minor == minor;
        int runs = im->arch_specific ? exact
                 : im->is_ptx ? (im->major < major || (im->major == major && im->minor <= minor))
                 : (im->major == major && im->minor <= minor);
        if (!runs) continue;
        rc = cuModuleLoadData(module, im->data);
        if (rc == CUDA_SUCCESS) return CUDA_SUCCESS;
        if (!im->is_ptx) return lc_fail(rc, "cuModuleLoadData");
    }}
    snprintf(lc_error, sizeof lc_error,
             "%s: no code for compute capability %d.%d in this library", k->name, major, minor);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}}

/* The kernel's function in the current context, loading its module on first use. */
static CUresult lc_function(lc_kernel *k, CUfunction *fn)
{{
    CUcontext ctx;
    CUresult rc = cuCtxGetCurrent(&ctx);
    if (rc != CUDA_SUCCESS) return lc_fail(rc, "cuCtxGetCurrent");
    if (!ctx) {{
        snprintf(lc_error, sizeof lc_error, "%s: no current CUDA context", k->name);
        return CUDA_ERROR_INVALID_CONTEXT;
    }}
    pthread_mutex_lock(&lc_lock);
    lc_loaded *slot = 0;
    for (int i = 0; i < LC_MAX_CONTEXTS; ++i) {{
        if (k->loaded[i].ctx == ctx) {{
            *fn = k->loaded[i].fn;
            pthread_mutex_unlock(&lc_lock);
            return CUDA_SUCCESS;
        }}
        if (!slot && !k->loaded[i].ctx) slot = &k->loaded[i];
    }}
    if (!slot) {{
        pthread_mutex_unlock(&lc_lock);
        snprintf(lc_error, sizeof lc_error, "%s: loaded into more than %d contexts", k->name,
                 LC_MAX_CONTEXTS);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }}
    CUmodule module;
    rc = lc_load(k, &module);
    if (rc == CUDA_SUCCESS) {{
        rc = cuModuleGetFunction(fn, module, k->name);
        if (rc != CUDA_SUCCESS) {{
            cuModuleUnload(module);
            lc_fail(rc, "cuModuleGetFunction");
        }}
    }}
    if (rc == CUDA_SUCCESS && k->dynamic_smem > 48u * 1024u) {{
        rc = cuFuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                (int)k->dynamic_smem);
        if (rc != CUDA_SUCCESS) {{
            cuModuleUnload(module);
            lc_fail(rc, "cuFuncSetAttribute");
        }}
    }}
    if (rc == CUDA_SUCCESS) {{
        slot->ctx = ctx;
        slot->module = module;
        slot->fn = *fn;
    }}
    pthread_mutex_unlock(&lc_lock);
    return rc;
}}

CUresult {prefix}_unload(void)
{{
    CUcontext ctx;
    CUresult rc = cuCtxGetCurrent(&ctx);
    if (rc != CUDA_SUCCESS) return lc_fail(rc, "cuCtxGetCurrent");
    CUresult first = CUDA_SUCCESS;
    pthread_mutex_lock(&lc_lock);
    for (int i = 0; i < {n}; ++i)
        for (int j = 0; j < LC_MAX_CONTEXTS; ++j) {{
            lc_loaded *l = &lc_kernels[i].loaded[j];
            if (ctx && l->ctx == ctx) {{
                CUresult r = cuModuleUnload(l->module);
                if (r != CUDA_SUCCESS && first == CUDA_SUCCESS) first = r;
                l->ctx = 0;
            }}
        }}
    pthread_mutex_unlock(&lc_lock);
    return first;
}}
"""


_TMA_COUNT = """\
static unsigned long long lc_tma_encodes;

unsigned long long {prefix}_tma_encodes(void)
{{
    pthread_mutex_lock(&lc_lock);
    unsigned long long n = lc_tma_encodes;
    pthread_mutex_unlock(&lc_lock);
    return n;
}}
"""

_TMA = """\
/* TMA descriptors: checked with TMA's rules (the Python runtime's, runtime/tma.py and
   runtime/tma_im2col.py), encoded with cuTensorMapEncodeTiled or cuTensorMapEncodeIm2col and
   cached per (pointer, extents, strides), per parameter. */
#define LC_TMA_CACHE 8
typedef struct lc_tma_entry {
    int used;
    CUdeviceptr ptr;
    int64_t extents[5], strides[5];
    CUtensorMap map;
} lc_tma_entry;
typedef struct lc_tma_cache { lc_tma_entry entries[LC_TMA_CACHE]; int next; } lc_tma_cache;

/* The tensor's rules, common to both modes. */
static CUresult lc_tma_check(const char *what, cuuint32_t elem, cuuint32_t rank, CUdeviceptr ptr,
                             const int64_t *extents, const int64_t *strides)
{
    if (ptr % 16)
        return lc_refuse("%s: the global address must be 16-byte aligned, got %p (%u bytes "
                         "past a 16-byte boundary)", what, (void *)(uintptr_t)ptr,
                         (unsigned)(ptr % 16));
    if (strides[0] != (int64_t)elem)
        return lc_refuse("%s: TMA's dimension 0 must be contiguous (stride %u bytes), got %lld",
                         what, elem, (long long)strides[0]);
    for (cuuint32_t k = 1; k < rank; ++k)
        if (strides[k] % 16 || strides[k] <= 0 || strides[k] >= (1LL << 40))
            return lc_refuse("%s: byte strides must be positive multiples of 16 below 2^40; "
                             "dimension %u has %lld bytes", what, k, (long long)strides[k]);
    for (cuuint32_t k = 0; k < rank; ++k)
        if (extents[k] < 1 || extents[k] > (1LL << 32))
            return lc_refuse("%s: extents must be in [1, 2^32]; dimension %u is %lld", what, k,
                             (long long)extents[k]);
    return CUDA_SUCCESS;
}

/* The cached descriptor of (ptr, extents, strides), if any. */
static int lc_tma_find(lc_tma_cache *cache, cuuint32_t rank, CUdeviceptr ptr,
                       const int64_t *extents, const int64_t *strides, CUtensorMap *out)
{
    int found = 0;
    pthread_mutex_lock(&lc_lock);
    for (int i = 0; i < LC_TMA_CACHE && !found; ++i) {
        lc_tma_entry *e = &cache->entries[i];
        if (e->used && e->ptr == ptr && !memcmp(e->extents, extents, rank * sizeof(int64_t)) &&
            !memcmp(e->strides, strides, rank * sizeof(int64_t))) {
            *out = e->map;
            found = 1;
        }
    }
    pthread_mutex_unlock(&lc_lock);
    return found;
}

static void lc_tma_keep(lc_tma_cache *cache, cuuint32_t rank, CUdeviceptr ptr,
                        const int64_t *extents, const int64_t *strides, const CUtensorMap *map)
{
    pthread_mutex_lock(&lc_lock);
    lc_tma_entry *e = &cache->entries[cache->next];
    cache->next = (cache->next + 1) % LC_TMA_CACHE;
    e->used = 1;
    e->ptr = ptr;
    memset(e->extents, 0, sizeof e->extents);
    memset(e->strides, 0, sizeof e->strides);
    memcpy(e->extents, extents, rank * sizeof(int64_t));
    memcpy(e->strides, strides, rank * sizeof(int64_t));
    e->map = *map;
    ++lc_tma_encodes;
    pthread_mutex_unlock(&lc_lock);
}
"""

_TMA_TILED = """\
static CUresult lc_tma(lc_tma_cache *cache, const char *what, CUtensorMapDataType dtype,
                       cuuint32_t elem, cuuint32_t rank, CUdeviceptr ptr, const int64_t *extents,
                       const int64_t *strides, const cuuint32_t *box, CUtensorMapSwizzle swizzle,
                       CUtensorMap *out)
{
    CUresult rc = lc_tma_check(what, elem, rank, ptr, extents, strides);
    if (rc != CUDA_SUCCESS) return rc;
    if (lc_tma_find(cache, rank, ptr, extents, strides, out)) return CUDA_SUCCESS;
    cuuint64_t dims[5], pitches[5];
    cuuint32_t ones[5] = {1, 1, 1, 1, 1};
    for (cuuint32_t k = 0; k < rank; ++k) {
        dims[k] = (cuuint64_t)extents[k];
        pitches[k] = (cuuint64_t)strides[k];
    }
    /* the driver takes the strides of dimensions 1..rank-1; out-of-bounds elements read 0 */
    rc = cuTensorMapEncodeTiled(out, dtype, rank, (void *)(uintptr_t)ptr, dims, pitches + 1, box,
                                ones, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS) return lc_fail(rc, what);
    lc_tma_keep(cache, rank, ptr, extents, strides, out);
    return CUDA_SUCCESS;
}
"""

_TMA_IM2COL = """\
/* An im2col descriptor (runtime/tma_im2col.py's encode_im2col): the corners, channels, pixels
   and traversal strides are the compiler's (checked when this file was generated); the
   bounding box [lower, extent - 1 + upper] of each spatial dimension must not be empty. */
static CUresult lc_tma_im2col(lc_tma_cache *cache, const char *what, CUtensorMapDataType dtype,
                              cuuint32_t elem, cuuint32_t rank, CUdeviceptr ptr,
                              const int64_t *extents, const int64_t *strides, const int *lower,
                              const int *upper, cuuint32_t channels, cuuint32_t pixels,
                              const cuuint32_t *walk, CUtensorMapSwizzle swizzle, CUtensorMap *out)
{
    CUresult rc = lc_tma_check(what, elem, rank, ptr, extents, strides);
    if (rc != CUDA_SUCCESS) return rc;
    for (cuuint32_t k = 1; k + 1 < rank; ++k)
        if (extents[k] - 1 + upper[k - 1] < lower[k - 1])
            return lc_refuse("%s: spatial dimension %u (extent %lld) has an empty bounding box "
                             "[%d, %lld]", what, k, (long long)extents[k], lower[k - 1],
                             (long long)(extents[k] - 1 + upper[k - 1]));
    if (lc_tma_find(cache, rank, ptr, extents, strides, out)) return CUDA_SUCCESS;
    cuuint64_t dims[5], pitches[5];
    for (cuuint32_t k = 0; k < rank; ++k) {
        dims[k] = (cuuint64_t)extents[k];
        pitches[k] = (cuuint64_t)strides[k];
    }
    /* the driver takes the strides of dimensions 1..rank-1; out-of-bounds elements read 0 */
    rc = cuTensorMapEncodeIm2col(out, dtype, rank, (void *)(uintptr_t)ptr, dims, pitches + 1,
                                 lower, upper, channels, pixels, walk,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS) return lc_fail(rc, what);
    lc_tma_keep(cache, rank, ptr, extents, strides, out);
    return CUDA_SUCCESS;
}
"""


def c_kernels_from_artifact(directory: str | Path) -> list[CKernel]:
    """The kernels and code images of an artifact directory, checked by the runtime's reader."""
    from layoutc.runtime.artifact import read_manifest, read_variant_file

    root = Path(directory)
    manifest = read_manifest(root)
    kernels = []
    for entry in manifest["kernels"]:
        spec = KernelSpec.from_json(entry)
        images = []
        for variant in entry["variants"]:
            for kind in ("cubin", "ptx"):
                file_entry = variant["files"].get(kind)
                if file_entry is not None:
                    data = read_variant_file(root, spec.name, file_entry)
                    images.append(CImage(variant["arch"], kind, data))
        kernels.append(CKernel(spec, tuple(images)))
    return kernels


def emit_c(
    kernels: Sequence[CKernel], directory: str | Path, prefix: str = "layoutc"
) -> tuple[Path, Path]:
    """Write ``<prefix>_kernels.h`` and ``<prefix>_kernels.c`` into ``directory``."""
    writer = _Writer(prefix, kernels)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    header = out / f"{writer.prefix}_kernels.h"
    source = out / f"{writer.prefix}_kernels.c"
    header.write_text(writer.header())
    source.write_text(writer.source(header.name))
    return header, source
