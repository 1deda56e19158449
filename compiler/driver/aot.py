"""Ahead-of-time builds: kernels compiled for several GPU architectures into one artifact
directory that ``layoutc.runtime.load`` reads with nothing but cuda-bindings.

For every kernel the directory holds, next to the runtime's ``manifest.json`` and the
``<kernel>.<arch>.ptx``/``.cubin`` files it names::

    <kernel>.mlir             the traced input IR
    <kernel>.<arch>.llvm.mlir the LLVM-level IR after the pass pipeline
    <kernel>.<arch>.ll        the NVVM IR handed to the PTX back end

Output is deterministic: the same kernels, specs, targets and options give byte-identical
files (no timestamps, no absolute paths: IR is printed without locations).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from layoutc.frontend.errors import CompileError
from layoutc.frontend.spec import KernelSpec
from layoutc.runtime.fileio import atomic_write
from layoutc.runtime.manifest_schema import KERNEL_NAME

from .build import BuildProducts, lower_module
from .dumps import DumpSink
from .flow import trace_kernel
from .gc_pause import gc_paused
from .index_width import resolve_index_width
from .options import CompileOptions, OutputOptions
from .targets import BuildTarget


@dataclass
class AotKernel:
    """One kernel of a build and its products per target."""

    kernel: Any
    spec: KernelSpec
    name: str = ""
    products: dict[str, BuildProducts] = field(default_factory=dict)


@dataclass
class AotResult:
    directory: Path
    kernels: list[AotKernel]
    files: list[Path]


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and a rename (honouring the umask), as the runtime's
    artifact writer does."""
    try:
        atomic_write(path, data)
    except OSError as e:
        raise CompileError(f"cannot write {path}: {e.strerror or e}") from None


def _output_directory(directory: str | os.PathLike) -> Path:
    """The artifact directory, created; a clear error when it cannot be."""
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise CompileError(f"the output {out} exists and is not a directory (-o names a directory)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CompileError(f"cannot create the output directory {out}: {e.strerror or e}") from None
    return out


def build_artifact(
    directory: str | os.PathLike,
    kernels: Sequence[tuple[Any, KernelSpec]],
    targets: Sequence[BuildTarget],
    options: CompileOptions | None = None,
    output: OutputOptions | None = None,
) -> AotResult:
    """Compile every ``(kernel, spec)`` for every GPU target and write the artifact."""
    from layoutc import __version__
    from layoutc.runtime.artifact import MANIFEST, ArtifactKernel, Variant, write_artifact

    options = options or CompileOptions()
    output = output or OutputOptions()
    if output.dump_dir is not None:  # several builds: one sub-directory each
        output = replace(output, dump_subdir=True)
    if not targets:
        raise CompileError("an AOT build needs at least one GPU target (e.g. sm_90)")
    for t in targets:
        if not t.is_gpu:
            raise CompileError(
                "not supported: AOT artifacts for the CPU (the artifact format holds PTX and "
                "cubin); use a GPU architecture such as sm_90"
            )
    out = _output_directory(directory)
    files: list[Path] = []
    built: list[AotKernel] = []
    entries = []
    names: set[str] = set()
    for kernel, spec in kernels:
        item = AotKernel(kernel, spec)
        variants = []
        runtime_spec = None
        for target in targets:
            with gc_paused():
                traced = trace_kernel(kernel, spec)
            module, name = traced.module, traced.name
            item.name = name
            if not KERNEL_NAME.fullmatch(name):
                raise CompileError(
                    f"kernel name {name!r} cannot name files in an artifact (expected letters, "
                    "digits, '_', '$' and '.', not starting with a digit or '.')"
                )
            if name in names and target is targets[0]:
                raise CompileError(f"two kernels named '{name}' in one artifact")
            input_text = module.to_text()
            sink = None
            if output.wants_ir:
                sink = DumpSink(output, f"{name}.{target.name}.aot")
                sink.ir(
                    "traced", "Trace (layoutc-trace)", module.to_text(debug_info=output.debug_info)
                )
            with gc_paused():
                products = lower_module(
                    module,
                    name,
                    traced.runtime_spec,
                    target,
                    resolve_index_width(options, spec),
                    output,
                    input_text=traced.input_text,
                    sink=sink,
                    keep_final_mlir=True,
                )
            item.products[target.name] = products
            if runtime_spec is None:
                runtime_spec = products.runtime_spec
                path = out / f"{name}.mlir"
                _write(path, input_text.encode())
                files.append(path)
            elif products.runtime_spec != runtime_spec:
                raise CompileError(
                    f"kernel '{name}': its ABI differs between targets ({targets[0].name}: "
                    f"{runtime_spec}; {target.name}: {products.runtime_spec})"
                )
            for suffix, text in (
                ("llvm.mlir", products.final_mlir or ""),
                ("ll", products.llvm_ir),
            ):
                path = out / f"{name}.{target.name}.{suffix}"
                _write(path, text.encode())
                files.append(path)
            isa = tuple(int(x) for x in products.ptx_isa.split(".")) if products.ptx_isa else None
            variants.append(
                Variant(target.name, ptx=products.ptx, cubin=products.cubin, ptx_isa=isa)
            )
        names.add(item.name)
        assert runtime_spec is not None
        entries.append(ArtifactKernel(runtime_spec, tuple(variants)))
        built.append(item)
    try:
        write_artifact(out, entries, producer=f"layoutc {__version__}")
    except OSError as e:
        raise CompileError(f"cannot write the artifact {out}: {e.strerror or e}") from None
    for entry in entries:
        for v in entry.variants:
            for kind, present in (("ptx", v.ptx is not None), ("cubin", v.cubin is not None)):
                if present:
                    files.append(out / f"{entry.spec.name}.{v.arch}.{kind}")
    files.append(out / MANIFEST)
    return AotResult(out, built, files)
