"""From a traced module to code, the two middle stages of a compile (flow.py chains them all):

- *passes* (:func:`run_passes` -> :class:`Lowered`): the pass pipeline, its remarks and timings,
  the ABI completed with what the lowered kernel writes;
- *codegen* (:func:`generate_code` -> :class:`BuildProducts`): the LLVM IR translation, then PTX
  and cubin (GPU) or LLVM IR for the host JIT (CPU).

Each times itself, writes its dumps, and turns every failure into a :class:`CompileError` (a
user's mistake at their line) or an :class:`InternalCompilerError` (a layoutc bug, with a
reproducer file). :func:`lower_module` is both in one call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from layoutc.frontend.errors import CompileError
from layoutc.ir.dialects import func, llvm
from layoutc.runtime.abi import KernelSpec as RuntimeKernelSpec
from layoutc.runtime.abi import with_bounds_record

from .dumps import DumpSink
from .errors import InternalCompilerError, from_diagnostics, internal
from .index_width import require_index_width
from .options import CompileOptions, OutputOptions
from .pipeline import PipelineUnavailableError, default_pipeline
from .recorder import PassRecorder
from .remarks import Remark, format_remarks, from_diagnostic
from .targets import BuildTarget


@dataclass
class BuildProducts:
    """Everything a compilation produced for one kernel (what the cache stores, plus IR)."""

    kernel: str
    target: BuildTarget
    runtime_spec: RuntimeKernelSpec
    llvm_ir: str
    ptx: str | None = None
    cubin: bytes | None = None
    ptx_backend: str | None = None
    ptx_isa: str | None = None
    notes: list[str] = field(default_factory=list)
    remarks: list[Remark] = field(default_factory=list)
    vector_bits: list[int] | None = None
    pipeline: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    final_mlir: str | None = None
    """The LLVM-level IR after the pipeline (kept when asked for: AOT writes it)."""

    @property
    def image(self) -> tuple[str, bytes]:
        """What a GPU driver loads: ``("cubin", bytes)`` or ``("ptx", bytes)``."""
        if self.cubin is not None:
            return "cubin", self.cubin
        if self.ptx is None:
            raise ValueError(f"kernel '{self.kernel}' was compiled for the CPU, not a GPU")
        return "ptx", self.ptx.encode()


def run_pipeline(
    module: Any,
    pipeline: str,
    options: CompileOptions,
    recorder: PassRecorder,
    input_text: str | None,
) -> list[Remark]:
    """Run ``pipeline`` on ``module`` in place; the remarks and warnings it emitted."""
    from layoutc.ir.core.context import Context
    from layoutc.passes.manager import PassManager, PipelineError

    context = Context()
    try:
        # verify after each pass when asked, else once at the end (docs/driver.md)
        pm = PassManager.parse(
            pipeline, context, verify=options.verifies_each(), verify_at_end=True
        )
    except PipelineError as e:
        raise CompileError(f"invalid pass pipeline: {e}") from None
    pm.enable_crash_reproducer(on_failure=False)
    pm.reproducer_input = input_text
    pm.add_instrumentation(recorder)
    with context.diagnostics.collect() as diagnostics:
        ok = pm.run(module)
    if not ok:
        raise from_diagnostics(diagnostics, "the pass pipeline")
    return [from_diagnostic(d) for d in diagnostics if d.severity.label in ("remark", "warning")]


#: Function ops a kernel may be at the end of the pipeline (llvm.func) or in a partial one.
_FUNCTIONS = (llvm.LLVMFuncOp, func.FuncOp)


def with_written_parameters(spec: RuntimeKernelSpec, module: Any, kernel: str) -> RuntimeKernelSpec:
    """``spec`` stating, per pointer, whether ``kernel`` (at the LLVM level) may write it: the
    runtime refuses read-only arrays for those."""
    from layoutc.passes.conversion.bounds_checks import written_parameters

    for op in module.walk_ops(include_self=False):
        if isinstance(op, _FUNCTIONS) and op.sym_name.value == kernel and op.body.blocks:
            written = written_parameters(op)
            params = tuple(
                replace(p, writes=i in written) if p.kind == "pointer" else p
                for i, p in enumerate(spec.params)
            )
            return replace(spec, params=params)
    return spec


def with_tma_parameters(spec: RuntimeKernelSpec, module: Any, kernel: str) -> RuntimeKernelSpec:
    """``spec`` with the TMA descriptor parameters that convert-to-llvm appended to ``kernel``
    for a GPU target (passes/conversion/tma_descriptor.py): the runtime encodes them at launch
    from the source tensor's parameters."""
    from layoutc.passes.conversion.tma_descriptor import TMA_ATTR
    from layoutc.runtime.abi import TMA, Param, TmaSource

    for op in module.walk_ops(include_self=False):
        if not isinstance(op, _FUNCTIONS) or op.sym_name.value != kernel or op.arg_attrs is None:
            continue
        added: list[Param] = []
        names = [p.name for p in spec.params]
        for i, attrs in enumerate(op.arg_attrs.elements):
            t = attrs.get(TMA_ATTR)
            if t is None:
                continue
            if i != len(spec.params) + len(added):
                raise internal(f"TMA descriptor argument {i} of '{kernel}' is not after the ABI's")

            def entry(e: int, names: list[str] = names) -> int | str:
                return e if e >= 0 else names[-1 - e]

            src = spec.params[t["source"].value]
            tma = TmaSource(
                src.name,
                tuple(int(x) for x in t["box"].values),
                tuple(int(x) for x in t["dims"].values),
                int(t["swizzle"].value),
                tuple(entry(int(x)) for x in t["extents"].values),
                tuple(entry(int(x)) for x in t["strides"].values),
                **_im2col_fields(t),
            )
            name = f"{src.name}_tma{len(added)}"
            while name in names:
                name += "_"
            added.append(Param(name, TMA, src.dtype, tma=tma))
        if added:
            return replace(spec, params=(*spec.params, *added))
    return spec


def _im2col_fields(t: Any) -> dict[str, Any]:
    """An im2col descriptor's mode, pixels and corners (none for a tiled one)."""
    if t.get("mode") is None:
        return {}
    return {
        "mode": t["mode"].value,
        "pixels": int(t["pixels"].value),
        "lower": tuple(int(x) for x in t["lower"].values),
        "upper": tuple(int(x) for x in t["upper"].values),
    } | ({"traversal": tuple(int(x) for x in t["traversal"].values)} if "traversal" in t else {})


def bounds_sites(module: Any, kernel: str) -> list[str] | None:
    """The access sites of ``kernel`` if insert-bounds-checks instrumented it (then its last
    parameter before the CPU context is the bounds record), else None."""
    from layoutc.passes.conversion.bounds_checks import SITES_ATTR

    for op in module.walk_ops(include_self=False):
        if isinstance(op, _FUNCTIONS) and op.sym_name.value == kernel:
            sites = op.attributes.get(SITES_ATTR)
            return None if sites is None else [a.value for a in sites.elements]
    return None


def save_failed_input(text: str, suffix: str) -> str | None:
    """Write the input of a stage that crashed to a temporary file (None if that fails)."""
    import tempfile

    try:
        fd, path = tempfile.mkstemp(prefix="layoutc-failed-", suffix=suffix)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    except OSError:
        return None


def crash(stage: str, error: Exception, saved: str | None) -> InternalCompilerError:
    """An internal error for an exception escaping ``stage``, naming the saved input."""
    where = f"; its input is saved in '{saved}'" if saved else ""
    return InternalCompilerError(
        f"internal error in {stage}: {type(error).__name__}: {error}{where} "
        "(a bug in layoutc: please report it with that file)",
        reproducer=saved,
    )


def translate(module: Any, target: BuildTarget, options: CompileOptions) -> Any:
    """The ``codegen.translate.Translation`` of the LLVM-level ``module`` for ``target``."""
    from layoutc.codegen.translate import TranslationError, translate_host, translate_nvvm

    try:
        if target.is_gpu:
            return translate_nvvm(module, target.gpu, index_bitwidth=options.index_bitwidth)
        return translate_host(module, index_bitwidth=options.index_bitwidth)
    except TranslationError as e:
        raise from_diagnostics(e.diagnostics, "translation to LLVM IR") from None
    except Exception as e:  # a bug in the translation: keep its input for the report
        path = save_failed_input(module.to_text(debug_info=True), ".mlir")
        raise crash("the translation to LLVM IR", e, path) from e


@dataclass
class Lowered:
    """What the passes stage hands code generation: the LLVM-level module and what the passes
    said about it."""

    module: Any
    """The module after the pipeline (llvm/nvvm dialects), mutated in place from the trace."""
    kernel: str
    runtime_spec: RuntimeKernelSpec
    """The ABI with the facts, written parameters and bounds record (launch bounds and static
    shared memory are completed by the translation)."""
    pipeline: str
    remarks: list[Remark]
    vector_bits: list[int] | None
    timings: dict[str, float]
    final_mlir: str | None = None


def run_passes(
    module: Any,
    kernel: str,
    spec: RuntimeKernelSpec,
    target: BuildTarget,
    options: CompileOptions,
    output: OutputOptions | None = None,
    *,
    input_text: str | None = None,
    sink: DumpSink | None = None,
    keep_final_mlir: bool = False,
) -> Lowered:
    """Stage *passes*: the pass pipeline on the traced ``module`` (mutated in place).

    ``spec`` is the kernel's ABI from the front end (with its facts). ``input_text`` is the
    module's text, when the caller has it (it becomes the crash reproducer's input).
    """
    output = output or OutputOptions()
    if options.index_bitwidth == "auto":  # no front-end spec here to choose from
        options = replace(options, index_bitwidth=64)
    timings: dict[str, float] = {}
    try:
        pipeline = options.pipeline or default_pipeline(
            target, options.index_bitwidth, options.checks_bounds(target.is_gpu)
        )
    except PipelineUnavailableError as e:
        raise CompileError(
            f"not supported yet: this build of layoutc lacks the pass(es) {e} of the default "
            "pipeline (docs/dialects.md), so kernels cannot be compiled to code yet"
        ) from None
    if sink is not None:
        sink.file("pipeline.txt", "Pass pipeline", pipeline, echo=False)
    if options.index_bitwidth < 64:
        spec = require_index_width(spec, options.index_bitwidth)
    recorder = PassRecorder(sink, output.debug_info)
    start = time.perf_counter()
    remarks = run_pipeline(module, pipeline, options, recorder, input_text)
    timings["passes"] = time.perf_counter() - start
    for name, seconds in recorder.pass_seconds().items():
        timings[f"pass:{name}"] = seconds
    final_mlir = module.to_text() if keep_final_mlir else None
    spec = with_written_parameters(spec, module, kernel)
    spec = with_tma_parameters(spec, module, kernel)
    sites = bounds_sites(module, kernel)
    if sites is not None:
        spec = with_bounds_record(spec, sites)
    return Lowered(
        module, kernel, spec, pipeline, remarks, recorder.vector_bits, timings, final_mlir
    )


def generate_code(
    lowered: Lowered,
    target: BuildTarget,
    options: CompileOptions,
    *,
    sink: DumpSink | None = None,
    driver_version: int | None = None,
) -> BuildProducts:
    """Stage *codegen*: LLVM IR from the lowered module, then PTX and cubin (GPU) or the host
    LLVM IR as it is (CPU). ``driver_version`` is the CUDA driver that will load the code (None
    for AOT builds): it decides whether PTX alone would do."""
    from layoutc.codegen.errors import ToolchainError

    kernel, spec = lowered.kernel, lowered.runtime_spec
    timings = dict(lowered.timings)
    start = time.perf_counter()
    translation = translate(lowered.module, target, options)
    info = translation.kernels.get(kernel)
    if info is None:
        raise internal(
            f"the translated module has no kernel '{kernel}' (kernels: "
            f"{', '.join(sorted(translation.kernels)) or 'none'})"
        )
    llvm_ir = str(translation)
    translation.dispose()  # only its text and kernel records are kept
    timings["translate"] = time.perf_counter() - start

    bounds = info.launch_bounds
    if bounds.block is None and spec.launch_bounds.block is not None:
        bounds = spec.launch_bounds
    runtime_spec = replace(
        spec,
        launch_bounds=bounds,
        static_smem=info.static_smem,
        cluster=info.cluster,
        explicit_cluster=info.explicit_cluster,
        max_cluster_blocks=info.max_cluster_blocks,
    )
    products = BuildProducts(
        kernel=kernel,
        target=target,
        runtime_spec=runtime_spec,
        llvm_ir=llvm_ir,
        remarks=lowered.remarks,
        vector_bits=lowered.vector_bits,
        pipeline=lowered.pipeline,
        timings=timings,
        final_mlir=lowered.final_mlir,
    )
    if target.is_gpu:
        from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu

        tool = ToolchainOptions(
            ptx_backend=options.ptx_backend,
            cubin=options.cubin,
            opt_level=options.opt_level,
            driver_version=driver_version,
        )
        try:
            binary = compile_gpu(llvm_ir, target.gpu, tool)
        except ToolchainError as e:
            raise CompileError(f"GPU toolchain ({target.name}): {e}") from None
        except Exception as e:  # a bug on our side of the toolchain: keep the NVVM IR
            raise crash("PTX/cubin generation", e, save_failed_input(llvm_ir, ".ll")) from e
        products.ptx = binary.ptx
        products.cubin = binary.cubin
        products.ptx_backend = binary.ptx_backend
        products.ptx_isa = f"{binary.ptx_isa[0]}.{binary.ptx_isa[1]}"
        products.notes = list(binary.notes)
        timings["ptx"] = binary.timings.get("ptx", 0.0) + binary.timings.get("ptx_llvm", 0.0)
        if "cubin" in binary.timings:
            timings["cubin"] = binary.timings["cubin"]
    if sink is not None:
        write_products(sink, products)
    return products


def lower_module(
    module: Any,
    kernel: str,
    spec: RuntimeKernelSpec,
    target: BuildTarget,
    options: CompileOptions,
    output: OutputOptions | None = None,
    *,
    input_text: str | None = None,
    sink: DumpSink | None = None,
    driver_version: int | None = None,
    keep_final_mlir: bool = False,
) -> BuildProducts:
    """The stages *passes* and *codegen* in one call, for a traced ``module`` (mutated in place)
    whose kernel is ``kernel`` (what AOT builds and embedding use; ``layoutc.compile`` walks
    the stages in flow.py)."""
    lowered = run_passes(
        module,
        kernel,
        spec,
        target,
        options,
        output,
        input_text=input_text,
        sink=sink,
        keep_final_mlir=keep_final_mlir,
    )
    return generate_code(lowered, target, options, sink=sink, driver_version=driver_version)


def write_products(sink: DumpSink, products: BuildProducts) -> None:
    """The LLVM IR, PTX and remarks of a compilation, into the dump sink."""
    flavour = "NVVM IR" if products.target.is_gpu else "LLVM IR (host)"
    sink.file(f"{products.kernel}.ll", f"{flavour} ({products.kernel}.ll)", products.llvm_ir)
    if products.ptx is not None:
        sink.file(f"{products.kernel}.ptx", f"PTX ({products.kernel}.ptx)", products.ptx)
    sink.file("remarks.txt", "Remarks", format_remarks(products.remarks), echo=False)
