"""A compile, one walk down: the stages from a kernel's spec to a loadable kernel.

::

    spec  (KernelSpec: frontend/spec.py, argspecs.py)      what the kernel is specialised on
     -> trace     trace_kernel    -> Traced               the IR, its text, the ABI with facts
     -> cache     look_up         -> CacheSlot            products of an earlier compile, or none
     -> passes    build.run_passes    -> Lowered          LLVM-level IR, remarks, timings
     -> codegen   build.generate_code -> BuildProducts    LLVM IR, PTX, cubin
     -> cache     CacheSlot.store
     -> loaded    CompiledKernel                          loads the code on its first call

:func:`compile_kernel` is that list, in that order; each stage takes what the previous one
handed it and returns a value for the next, never calling back up. ``layoutc.compile`` (jit.py)
derives the spec and keeps the in-memory table in front of it; AOT builds (aot.py) walk the
same trace, passes and codegen stages without the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from layoutc.frontend.spec import KernelSpec
from layoutc.ir.core.disposal import dispose, recording_erased
from layoutc.runtime.abi import KernelSpec as RuntimeKernelSpec

from .build import BuildProducts, generate_code, run_passes
from .compiled import CompiledKernel
from .dumps import DumpSink
from .gc_pause import gc_paused
from .options import CompileOptions, OutputOptions
from .spec_facts import runtime_spec_with_facts
from .stored import from_entry, to_entry
from .targets import BuildTarget

__all__ = ["CacheSlot", "Traced", "cache_key", "compile_kernel", "driver_version", "trace_kernel"]


def compile_kernel(
    kernel: Any,
    spec: KernelSpec,
    target: BuildTarget,
    options: CompileOptions,
    output: OutputOptions,
    *,
    use_cache: bool = True,
) -> CompiledKernel:
    """``kernel`` compiled for ``spec`` on ``target``: trace, cache, passes, codegen, cache."""
    # gc_pause.py: a fifth of a GEMM's compile time otherwise; the IR the compile erased and
    # its module are broken up at the end (ir/core/disposal.py), so that reference counting
    # frees them rather than the collection that follows the compile
    with gc_paused(), recording_erased() as erased:
        traced = trace_kernel(kernel, spec)
        slot = look_up(traced, target, options, output, use_cache)
        products = slot.products
        if products is None:
            sink = dump_sink(traced, target, output, slot.key)
            lowered = run_passes(
                traced.module,
                traced.name,
                traced.runtime_spec,
                target,
                options,
                output,
                input_text=traced.input_text,
                sink=sink,
            )
            products = generate_code(
                lowered, target, options, sink=sink, driver_version=slot.driver
            )
            slot.store(products)
        erased.append(traced.module)  # lowered in place; the products are text and bytes
        dispose(erased)
    return CompiledKernel(
        products,
        kernel=kernel,
        spec=spec,
        abi=traced.abi,
        cache_hit=slot.hit,
        timings={**traced.timings, **slot.timings, **products.timings, **slot.store_timings},
        opt_level=options.opt_level,
        use_cache=use_cache,
        cpu_jit=options.cpu_jit,
    )


# -- stage: trace ------------------------------------------------------------------------------
@dataclass
class Traced:
    """What tracing hands the later stages."""

    module: Any
    """The traced ``builtin.module`` (the passes lower it in place)."""
    name: str
    abi: Any
    """The front end's ``KernelABI``: how the kernel's arguments become parameters."""
    spec: KernelSpec
    runtime_spec: RuntimeKernelSpec
    """The runtime's ABI with the facts of ``spec`` (spec_facts.py)."""
    input_text: str
    """The module's text with locations: the cache key and the crash reproducer's input."""
    timings: dict[str, float] = field(default_factory=dict)


def trace_kernel(kernel: Any, spec: KernelSpec) -> Traced:
    """Stage *trace*: the kernel's IR for ``spec`` (verified by the front end)."""
    start = time.perf_counter()
    module, name, abi = kernel.trace(spec)
    traced_at = time.perf_counter()
    input_text = module.to_text(debug_info=True)
    timings = {"trace": traced_at - start, "print_ir": time.perf_counter() - traced_at}
    runtime_spec = runtime_spec_with_facts(spec, abi)
    return Traced(module, name, abi, spec, runtime_spec, input_text, timings)


# -- stage: cache ------------------------------------------------------------------------------
@dataclass
class CacheSlot:
    """Where a compile's products live in the on-disk cache: found there (``products``), or
    to be stored there (``store``) once built. ``key`` is None when the cache is not used."""

    key: str | None
    cache: Any
    driver: int | None
    """The CUDA driver version the code is chosen for (None: no GPU, or the CPU)."""
    products: BuildProducts | None = None
    timings: dict[str, float] = field(default_factory=dict)
    store_timings: dict[str, float] = field(default_factory=dict)

    @property
    def hit(self) -> bool:
        return self.products is not None

    def store(self, products: BuildProducts) -> None:
        """Stage *cache* (after codegen): keep ``products`` for the next process."""
        if self.key is None:
            return
        start = time.perf_counter()
        self.cache.put(self.key, to_entry(products))
        self.store_timings["cache_store"] = time.perf_counter() - start


def look_up(
    traced: Traced,
    target: BuildTarget,
    options: CompileOptions,
    output: OutputOptions,
    use_cache: bool,
) -> CacheSlot:
    """Stage *cache*: the products an earlier compile of the same IR stored, if any. Asking for
    dumps skips the lookup (a dump shows a compilation) but not the store."""
    from .cache import default_cache

    driver = driver_version(target)
    cache = default_cache() if use_cache else None
    if cache is None or not cache.enabled:
        return CacheSlot(None, None, driver)
    start = time.perf_counter()
    key = cache_key(traced.input_text, target, options, driver)
    entry = None if output.wants_ir else cache.get(key)
    products = from_entry(entry, target) if entry is not None else None
    slot = CacheSlot(key, cache, driver, products)
    slot.timings["cache_lookup"] = time.perf_counter() - start
    return slot


def driver_version(target: BuildTarget) -> int | None:
    """The CUDA driver version code for ``target`` will be loaded by (None: no GPU here)."""
    if not target.is_gpu:
        return None
    from .targets import gpu_available

    if not gpu_available():
        return None
    from layoutc.runtime.cuda_driver import driver_version as installed

    return installed()


def cache_key(
    input_text: str, target: BuildTarget, options: CompileOptions, driver: int | None
) -> str:
    """The on-disk cache key of a compile (cache.py: IR text, target, options, versions)."""
    from .cache import cache_key as key_of
    from .versioning import compiler_version

    return key_of(input_text, target.key(), {**options.key(), "driver": driver}, compiler_version())


# -- dumps -------------------------------------------------------------------------------------
def dump_sink(
    traced: Traced, target: BuildTarget, output: OutputOptions, key: str | None
) -> DumpSink | None:
    """Where the passes and codegen write their dumps (None: no dumps asked for); it starts
    with the traced IR."""
    if not output.wants_ir:
        return None
    sink = DumpSink(
        output, f"{traced.name}.{target.name}.{(key or traced.spec.fingerprint())[:10]}"
    )
    sink.ir("traced", "Trace (layoutc-trace)", traced.module.to_text(debug_info=output.debug_info))
    return sink
