"""A compiled kernel: its code, what the compiler said about it, and a callable launcher.

``ck(*args, grid=..., block=..., smem=..., stream=...)`` launches on the GPU (``CudaKernel``)
or the CPU (``CpuKernel``), loading the code on first call. Arguments are the kernel's own:
either only its run-time arguments (compile-time constants left out, as CuTe DSL's executors
take them) or all of them (constants must then equal the compiled values). Every call is
checked against the facts the code was specialised on: compile-time constants here
(requirements.py), everything else by the runtime's argument binder (spec_facts.py); a refused
call raises ``SpecError``.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Mapping
from typing import Any

from layoutc.frontend.spec import ConstexprSpec, KernelSpec, SpecError
from layoutc.runtime.errors import ArgumentError

from .build import BuildProducts
from .remarks import Remark
from .requirements import check_call


class CompiledKernel:
    """One kernel compiled for one spec, target and set of options."""

    def __init__(
        self,
        products: BuildProducts,
        *,
        kernel: Any = None,
        spec: KernelSpec | None = None,
        abi: Any = None,
        cache_hit: bool = False,
        timings: Mapping[str, float] | None = None,
        opt_level: int = 3,
        use_cache: bool = False,
        cpu_jit: str = "fast",
    ) -> None:
        self.products = products
        self.kernel = kernel
        self.spec = spec
        self.abi = abi
        self.cache_hit = cache_hit
        """Whether the code came from the on-disk compile cache (no passes or toolchain ran)."""
        self.timings: dict[str, float] = dict(timings or {})
        """Seconds per stage: trace, cache, passes, pass:<name>, translate, ptx, cubin, load."""
        self._opt_level = opt_level
        self._cpu_jit = cpu_jit  # the CPU JIT's tier
        self._use_cache = use_cache  # the CPU JIT's machine code in the compile cache
        self._runtime: Any = None
        self._lock = threading.Lock()
        self._runtime_signature: inspect.Signature | None = None
        self._positional: int | None = None

    # -- what was compiled ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.products.kernel

    @property
    def target(self) -> Any:
        """The :class:`~layoutc.driver.targets.BuildTarget` (``.name``: ``sm_90`` or ``cpu``)."""
        return self.products.target

    @property
    def remarks(self) -> list[Remark]:
        """Optimisation remarks and warnings (e.g. prove-vectorization's proof or reason)."""
        return list(self.products.remarks)

    @property
    def vector_bits(self) -> list[int] | None:
        """The access width prove-vectorization chose for each copy, in program order."""
        return self.products.vector_bits

    @property
    def llvm_ir(self) -> str:
        """The NVVM IR (GPU) or host LLVM IR (CPU) that was compiled."""
        return self.products.llvm_ir

    @property
    def ptx(self) -> str | None:
        return self.products.ptx

    @property
    def cubin(self) -> bytes | None:
        return self.products.cubin

    @property
    def runtime_spec(self) -> Any:
        """The kernel ABI (``layoutc.runtime.KernelSpec``), as an AOT manifest states it."""
        return self.products.runtime_spec

    @property
    def backend(self) -> str:
        """How the code runs: ``cuda (cubin)``/``cuda (ptx)`` or ``cpu (llvm jit)``."""
        if not self.target.is_gpu:
            return "cpu (llvmlite jit)"
        return f"cuda ({self.products.image[0]} via {self.products.ptx_backend})"

    def __repr__(self) -> str:
        return f"<layoutc.CompiledKernel {self.name} for {self.target.name}>"

    # -- loading ----------------------------------------------------------------------------------
    def load(self) -> Any:
        """Load the code (GPU module or CPU JIT) now; done on the first call otherwise."""
        if self._runtime is None:
            with self._lock:
                if self._runtime is None:
                    start = time.perf_counter()
                    self._runtime = self._make_runtime()
                    self.timings["load"] = time.perf_counter() - start
        return self._runtime

    def _make_runtime(self) -> Any:
        spec = self.products.runtime_spec
        if self.target.is_gpu:
            from layoutc.runtime.cuda_kernel import load_kernel

            kind, image = self.products.image
            return load_kernel(image, kind, spec)
        from layoutc.runtime.cpu_kernel import CpuKernel

        objects = None
        if self._use_cache:
            from .cache import HostObjectCache, default_cache

            cache = default_cache()
            objects = HostObjectCache(cache) if cache.enabled else None
        return CpuKernel(
            self.products.llvm_ir,
            spec,
            opt_level=min(self._opt_level, 3),
            object_cache=objects,
            jit=self._cpu_jit,
        )

    # -- calling ----------------------------------------------------------------------------------
    def __call__(
        self,
        *args: Any,
        grid: Any,
        block: Any = None,
        smem: int | None = None,
        stream: Any = None,
        cluster: Any = None,
        **kwargs: Any,
    ) -> None:
        """Launch; ``cluster=`` runs the grid in thread block clusters of that shape (sm_90;
        the grid must be a multiple of it): any shape for a kernel compiled without
        ``@lc.kernel(cluster=...)``, the compiled one otherwise."""
        if self.kernel is None:  # compiled from IR: arguments are the runtime ABI's
            if kwargs:
                raise TypeError(f"kernel '{self.name}' takes positional arguments only")
            self.load()(*args, grid=grid, block=block, smem=smem, stream=stream, cluster=cluster)
            return
        positional = self._positional
        if positional is None:
            positional = self._positional_count()
        if not kwargs and len(args) == positional:
            # Every run-time argument given by position, in the ABI's order: nothing to bind by
            # name, and the constants are this kernel's own. The runtime checks the rest
            # against the compiled facts (spec_facts.py).
            runtime = self._runtime or self.load()
            if block is None:
                block = self.spec.block  # type: ignore[union-attr]
            try:
                runtime(*args, grid=grid, block=block, smem=smem, stream=stream, cluster=cluster)
            except ArgumentError as e:
                raise SpecError(str(e)) from None
            return
        bound = self.bind(args, kwargs)
        assert self.spec is not None
        check_call(self.spec, bound, self.name)
        try:  # the runtime checks the arguments against the compiled facts (spec_facts.py)
            self.launch_bound(bound, grid, block, smem, stream, cluster)
        except ArgumentError as e:
            raise SpecError(str(e)) from None

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Arguments by parameter name: run-time arguments only, or all of them."""
        assert self.spec is not None and self.kernel is not None
        constants = {n: a.value for n, a in self.spec.args if isinstance(a, ConstexprSpec)}
        try:
            bound = self._signature().bind(*args, **kwargs)
            bound.apply_defaults()
            return {**bound.arguments, **constants}
        except TypeError:
            pass
        try:
            bound = self.kernel.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise SpecError(f"kernel '{self.name}': {e}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def _positional_count(self) -> int:
        """How many positional arguments (and no keywords) give exactly the run-time arguments,
        in the runtime ABI's order; -1 when no call can skip binding by name (variadic or
        keyword-only parameters, or an ABI order other than the signature's)."""
        params = list(self._signature().parameters.values())
        names = [p.name for p in params]
        abi_names = [arg for arg, param in self.abi.args if param is not None]
        positional = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self._positional = len(names) if positional and names == abi_names else -1
        return self._positional

    def _signature(self) -> inspect.Signature:
        """The kernel's signature without its compile-time constants."""
        if self._runtime_signature is None:
            assert self.spec is not None
            constants = {n for n, a in self.spec.args if isinstance(a, ConstexprSpec)}
            sig = self.kernel.signature
            params = [p for p in sig.parameters.values() if p.name not in constants]
            self._runtime_signature = sig.replace(parameters=params)
        return self._runtime_signature

    def launch_bound(
        self,
        bound: Mapping[str, Any],
        grid: Any,
        block: Any,
        smem: int | None,
        stream: Any,
        cluster: Any = None,
    ) -> None:
        """Launch with already-checked arguments by name (the direct-call fast path)."""
        runtime = self._runtime or self.load()
        if block is None and self.spec is not None and self.spec.block is not None:
            block = self.spec.block
        runtime(
            *self.abi.call_arguments(bound),
            grid=grid,
            block=block,
            smem=smem,
            stream=stream,
            cluster=cluster,
        )
