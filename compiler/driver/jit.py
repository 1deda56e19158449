"""``layoutc.compile`` and direct kernel calls: the public entry points of the driver.

``compile`` derives the spec (argspecs.spec_of_call), looks it up in memory, and otherwise hands
it to flow.compile_kernel, which walks the stages down to a loadable kernel (trace, cache,
passes, codegen: flow.py). Two caches, from fastest to slowest:

1. in memory, per kernel: (spec key, target, options) -> CompiledKernel. A repeated
   ``compile`` with arguments of the same spec costs a spec derivation and a dictionary
   lookup; a repeated direct call only a call key (frontend/call_key.py) and a lookup;
2. on disk (compiler/driver/cache.py): keyed by the traced IR's text (with locations), the
   target, the compiler's version and the options. A new process pays the trace, then loads
   the code without running any pass or tool.

Asking for dumps (``dump_dir=``, ``LAYOUTC_DUMP_DIR``, ``LAYOUTC_PRINT_IR_AFTER_ALL``) bypasses
both caches' lookups, since dumps show the compilation itself.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any

from layoutc.frontend.spec import KernelSpec
from layoutc.frontend.tracebacks import api_boundary

from .argspecs import spec_of_call
from .compiled import CompiledKernel
from .flow import cache_key as _cache_key  # noqa: F401 (the library builder's import)
from .flow import compile_kernel
from .flow import driver_version as _driver_version  # noqa: F401 (ditto)
from .index_width import resolve_index_width
from .options import CompileOptions, OutputOptions
from .remarks import print_remarks
from .targets import BuildTarget, resolve_target

_memo: weakref.WeakKeyDictionary[Any, dict[tuple, CompiledKernel]] = weakref.WeakKeyDictionary()
_memo_lock = threading.Lock()


def _memo_get(kernel: Any, key: tuple) -> CompiledKernel | None:
    with _memo_lock:
        table = _memo.get(kernel)
        return table.get(key) if table is not None else None


def _memo_put(kernel: Any, key: tuple, ck: CompiledKernel) -> None:
    with _memo_lock:
        table = _memo.setdefault(kernel, {})
        replaced = key in table
        table[key] = ck
    if replaced:  # a direct call must find what a fresh lookup would
        kernel.call_memo.clear()


def clear_memory_cache() -> None:
    """Forget every compiled kernel held in memory (the disk cache is untouched)."""
    with _memo_lock:
        kernels = list(_memo.keys())
        _memo.clear()
    for kernel in kernels:  # only kernels in the memo have direct-call entries
        kernel.call_memo.clear()


def split_options(kernel: Any, kwargs: Mapping[str, Any]) -> tuple[CompileOptions, dict[str, Any]]:
    """Compile options and the kernel's own keyword arguments, from ``compile``'s keywords."""
    names = set(CompileOptions.names())
    params = set(kernel.signature.parameters)
    options = {k: v for k, v in kwargs.items() if k in names and k not in params}
    rest = {k: v for k, v in kwargs.items() if k not in options}
    unknown = [k for k in rest if k not in params]
    if unknown:
        raise TypeError(
            f"compile() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}: "
            f"kernel '{kernel.name}' has no such parameter and the compile options are "
            f"{', '.join(sorted(names))}"
        )
    if "index_bitwidth" not in options and getattr(kernel, "index_bitwidth", None) is not None:
        options["index_bitwidth"] = kernel.index_bitwidth  # the kernel's own default
    try:
        return CompileOptions(**options), rest
    except ValueError as e:
        raise TypeError(f"compile(): {e}") from None


@api_boundary
def compile(
    kernel: Any,
    *args: Any,
    target: Any = None,
    block: Any = None,
    dump_dir: Any = None,
    assume: Any = None,
    cache: bool = True,
    **kwargs: Any,
) -> CompiledKernel:
    """Compile ``kernel`` for ``args`` and return a callable :class:`CompiledKernel`.

    ``args`` are what the kernel would be called with (arrays, scalars, constants), or specs
    (``lc.spec("f32[(N):(1)],align=16")``) to compile without arrays; ``assume`` states facts
    of layout symbols then (``"N%16==0"``). ``target``: None (the GPU if present, else the
    CPU), ``"cuda"``, ``"sm_80"``..``"sm_90a"`` or ``"cpu"``. ``block``: the static block
    shape. ``dump_dir``: write the IR after every pass, the LLVM IR, the PTX and the remarks
    there. ``cache=False`` skips the on-disk cache. Other keywords are the kernel's own
    arguments or :class:`CompileOptions` (``opt_level``, ``ptx_backend``, ``cubin``,
    ``index_bitwidth``, ``pipeline``, ``verify_each``).
    """
    from layoutc.frontend.kernel import Kernel

    if not isinstance(kernel, Kernel):
        raise TypeError(f"layoutc.compile needs a @layoutc.kernel function, got {kernel!r}")
    options, kernel_kwargs = split_options(kernel, kwargs)
    build_target = resolve_target(target)
    start = time.perf_counter()
    spec = spec_of_call(kernel, args, kernel_kwargs, block, assume)
    spec_seconds = time.perf_counter() - start
    output = OutputOptions.from_environment(dump_dir)
    return compile_spec(
        kernel, spec, build_target, options, output, use_cache=cache, spec_seconds=spec_seconds
    )


def compile_spec(
    kernel: Any,
    spec: KernelSpec,
    target: BuildTarget,
    options: CompileOptions,
    output: OutputOptions,
    *,
    use_cache: bool = True,
    spec_seconds: float = 0.0,
) -> CompiledKernel:
    """Compile ``kernel`` for a ready spec (what ``compile`` and direct calls share): the
    in-memory table, then the stages of flow.py (trace, disk cache, passes, codegen)."""
    options = resolve_index_width(options, spec)
    memo_key = (spec.key, target.key(), options.memo_key())
    if not output.wants_ir:
        found = _memo_get(kernel, memo_key)
        if found is not None:
            return found
    ck = compile_kernel(kernel, spec, target, options, output, use_cache=use_cache)
    if spec_seconds:
        ck.timings = {"spec": spec_seconds, **ck.timings}
    if output.print_remarks:
        print_remarks(ck.remarks, ck.name)
    _memo_put(kernel, memo_key, ck)
    return ck


# ----------------------------------------------------------------------------------------------
# direct calls: kernel(*args, grid=..., block=...)
# ----------------------------------------------------------------------------------------------

_MISSING = object()
_default_targets: dict[Any, tuple[BuildTarget, str]] = {}
_DEFAULT_OPTIONS = CompileOptions()


def _default_target() -> tuple[BuildTarget, str]:
    """The target of direct calls (``LAYOUTC_TARGET``, else the GPU if present, else the CPU)
    and its key, resolved once per value of the variable."""
    raw = os.environ.get("LAYOUTC_TARGET")
    found = _default_targets.get(raw)
    if found is None:
        target = resolve_target(None)
        found = _default_targets[raw] = (target, target.key())
    return found


class DirectCall:
    """What a direct call resolved to: the compiled kernel and how to pass it the arguments."""

    __slots__ = ("ck", "default_block", "runtime", "runtime_positions")

    def __init__(self, ck: CompiledKernel) -> None:
        self.ck = ck
        self.runtime: Any = None  # the loaded code, once launched
        abi_args = ck.abi.args
        runtime = [i for i, (_, param) in enumerate(abi_args) if param is not None]
        # None: every argument is a run-time one, passed as given
        self.runtime_positions = None if len(runtime) == len(abi_args) else tuple(runtime)
        self.default_block = ck.spec.block if ck.spec is not None else None

    def launch(
        self, values: tuple, grid: Any, block: Any, smem: Any, stream: Any, cluster: Any = None
    ) -> None:
        """``CompiledKernel.launch_bound`` for the arguments in parameter order."""
        runtime = self.runtime
        if runtime is None:
            runtime = self.runtime = self.ck.load()
        if block is None:
            block = self.default_block
        positions = self.runtime_positions
        if positions is not None:
            values = tuple([values[i] for i in positions])
        runtime(*values, grid=grid, block=block, smem=smem, stream=stream, cluster=cluster)


def resolve_call(
    kernel: Any, args: tuple[Any, ...], kwargs: dict[str, Any], block: Any
) -> tuple[CompiledKernel, tuple | None, DirectCall | None, dict[str, Any] | None]:
    """What a direct call launches: ``(ck, values, direct, bound)``.

    A call whose key (frontend/call_key.py) was seen before skips the spec derivation and gets
    the kernel that derivation gave then (equal keys mean equal specs, and the memo is emptied
    whenever the compiled kernels in memory change). Any other call derives its spec (which
    refuses bad arguments with their error), looks the kernel up or compiles it, and records
    its key. ``values``: the arguments in parameter order for ``direct.launch``, or None when
    they bind only by ``inspect`` (then ``bound``, by name, for ``ck.launch_bound``).
    """
    target, target_key = _default_target()
    key, values = kernel.call_key(args, kwargs, block, target_key)
    if key is not None:
        hit = kernel.call_memo.get(key)
        if hit is not None:
            return hit.ck, values, hit, None
    spec, bound = kernel.bind(args, kwargs, block)
    options = _DEFAULT_OPTIONS
    if getattr(kernel, "index_bitwidth", None) is not None:  # the kernel's own default
        options = resolve_index_width(CompileOptions(index_bitwidth=kernel.index_bitwidth), spec)
    ck = _memo_get(kernel, (spec.key, target_key, options.memo_key()))
    if ck is None:
        output = OutputOptions.from_environment()
        ck = compile_spec(kernel, spec, target, options, output)
    if values is None:
        return ck, None, None, bound
    direct = DirectCall(ck)
    if key is not None:
        kernel.call_memo.put(key, direct)
    return ck, values, direct, bound


def launch(kernel: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``kernel(*args, grid=..., block=..., smem=..., stream=..., cluster=...)``: compile on
    first use for the call's spec (then reuse it), and launch."""
    grid = kwargs.pop("grid", _MISSING)
    block = kwargs.pop("block", None)
    smem = kwargs.pop("smem", None)
    stream = kwargs.pop("stream", None)
    cluster = kwargs.pop("cluster", None)
    if grid is _MISSING:
        raise TypeError(
            f"calling kernel '{kernel.name}' launches it: give grid= (and block= unless the "
            "kernel declares one)"
        )
    ck, values, direct, bound = resolve_call(kernel, args, kwargs, block)
    if direct is not None:
        direct.launch(values, grid, block, smem, stream, cluster)  # type: ignore[arg-type]
    else:
        ck.launch_bound(bound, grid, block, smem, stream, cluster)  # type: ignore[arg-type]
