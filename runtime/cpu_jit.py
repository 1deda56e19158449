"""Compiling a CPU-flavour kernel module for the host and JIT-loading it (llvmlite, lazily).

The kernel module (from the IR translation, or hand-written with ``llvmlite.ir``) is linked
with the runtime's support module and a per-kernel launcher, optimised, and JIT-compiled with
MCJIT. The kernel's LLVM signature is checked against its ``KernelSpec`` first, so a mismatch
is an error message rather than a crash.

Two tiers (``jit``, :func:`jit_levels`): ``"fast"`` (the default) runs LLVM's -O1 pass
pipeline (at most ``opt_level``) and makes machine code at -O0 (FastISel, the fast register
allocator); ``"optimized"`` runs both at ``opt_level`` (-O3: SelectionDAG instruction
selection, the greedy register allocator, machine-level optimisation). The optimised tier's
JIT takes two to three times as long for kernels that mostly run as fast either way: CPU
kernels spend their time in the support module's helpers (always optimised) and fiber
switches (docs/runtime.md, "JIT tiers").
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .abi import POINTER, KernelSpec
from .cpu_context import COLLECTIVE_HELPERS
from .cpu_support_ir import (
    BF16_LIBCALLS,
    F16_LIBCALLS,
    grid_name,
    kernel_launcher_ir,
    main_name,
    support_ir,
)
from .errors import ArgumentError

_LLVM_TYPES = {
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "u8": "i8",
    "u16": "i16",
    "u32": "i32",
    "u64": "i64",
    "f16": "half",
    "bf16": "i16",  # its 16 bits, as code generation carries bf16 (translate_types.py)
    "f32": "float",
    "f64": "double",
}

_lock = threading.RLock()
_ready = False
POST_RA_SCHEDULER_OFF = "-post-RA-scheduler=false"


def _llvm() -> Any:
    global _ready
    import llvmlite.binding as llvm

    if not _ready:
        with _lock:
            if not _ready:
                llvm.initialize_native_target()
                llvm.initialize_native_asmprinter()
                # The post-RA list scheduler (on for znver3 and others) costs the JIT of a
                # checked GEMM seconds (its blocks are long) for code an out-of-order core
                # reorders anyway (docs/runtime.md, "The bounds check").
                llvm.set_option("", POST_RA_SCHEDULER_OFF)
                libc = ctypes.CDLL(None)
                for sym in ("swapcontext",):
                    fn = getattr(libc, sym, None)
                    if fn is not None:
                        llvm.add_symbol(sym, ctypes.cast(fn, ctypes.c_void_p).value)
                _ready = True
    return llvm


def llvm_param_types(spec: KernelSpec) -> list[str]:
    """The LLVM types of the kernel's parameters (without the trailing context pointer)."""
    return ["ptr" if p.kind == POINTER else _LLVM_TYPES[p.dtype] for p in spec.params]


@dataclass
class CpuProgram:
    """A JIT-compiled CPU kernel: the engine (kept alive) and the entry points' addresses."""

    engine: Any
    grid: int  # i32 (ptr params, ptr cfg): fast path over blocks [begin, end)
    main: int  # void (ptr params, ptr ctx): one thread (fiber path)
    run_fibers: int  # i32 (ptr sched, ptr cfg)
    fiber_entry: int  # void (i32, i32): makecontext entry
    uses_collectives: bool


_support: dict[str, int] = {}

JIT_TIERS = ("fast", "optimized")
"""How much the JIT optimises a kernel (:func:`jit_levels`)."""


def jit_levels(jit: str, opt_level: int) -> tuple[int, int]:
    """LLVM's pass pipeline level and code generation level (the target machine's) for the
    tier ``jit`` at ``opt_level`` (clamped to 0-3): ``"fast"``: at most -O1 passes, -O0 code
    generation; ``"optimized"``: both at ``opt_level``."""
    if jit not in JIT_TIERS:
        raise ValueError(f"jit must be one of {JIT_TIERS}, not {jit!r}")
    level = min(max(opt_level, 0), 3)
    return (min(level, 1), 0) if jit == "fast" else (level, level)


def _target_machine(llvm: Any, opt_level: int) -> Any:
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=min(max(opt_level, 0), 3),
        codemodel="jitdefault",
    )


def _optimize(llvm: Any, module: Any, tm: Any, opt_level: int) -> None:
    if opt_level > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=min(opt_level, 3))
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(module, pb)


def support_symbols(object_cache: ObjectCache | None = None) -> dict[str, int]:
    """Compile the support module once per process, in its own engine that is never freed.

    Fibers park inside its code between launches, so it must outlive every kernel: a fiber
    resumed into a freed kernel engine would execute garbage. Kernel modules call the helpers
    through the symbols registered here. Its JIT takes about a second; with ``object_cache``
    a process loads the machine code an earlier one made.
    """
    with _lock:
        if _support:
            return _support
        llvm = _llvm()
        text = support_ir()
        # optimised code generation for the helpers, where the kernels spend their time
        # (made once per process, or loaded from ``object_cache``)
        key = object_key(text, "", 2, "optimized") if object_cache is not None else None
        cached = object_cache.load(key) if object_cache is not None and key is not None else None
        names = [
            *COLLECTIVE_HELPERS,
            *BF16_LIBCALLS,
            *F16_LIBCALLS,
            "__layoutc_run_fibers",
            "__layoutc_fiber_entry",
        ]
        symbols: dict[str, int] = {}
        if cached is not None:
            engine = _engine_from_object(llvm, cached[0])
            symbols = {name: engine.get_function_address(name) for name in names}
        if not symbols or not all(symbols.values()):
            module = llvm.parse_assembly(text)
            tm = _target_machine(llvm, 2)
            module.triple = llvm.get_process_triple()
            module.data_layout = str(tm.target_data)
            _optimize(llvm, module, tm, 2)
            engine = llvm.create_mcjit_compiler(module, tm)
            made = _notify_into(engine, object_cache)
            engine.finalize_object()
            symbols = {name: engine.get_function_address(name) for name in names}
            if object_cache is not None and key is not None and made:
                object_cache.store(key, made[0], {})
        for name, address in symbols.items():
            llvm.add_symbol(name, address)
        _support["__engine__"] = engine  # type: ignore[assignment]  # keeps the code alive
        _support.update(symbols)
        return _support


def _notify_into(engine: Any, object_cache: ObjectCache | None) -> list[bytes]:
    """The list MCJIT's object code will be appended to once ``engine`` compiles (empty when
    there is no cache to store it in)."""
    made: list[bytes] = []
    if object_cache is not None:
        engine.set_object_cache(notify_func=lambda _module, code: made.append(code))
    return made


def _engine_from_object(llvm: Any, code: bytes) -> Any:
    """An engine holding object code the JIT made before: MCJIT loads the object instead of
    compiling the module it is given, an empty one (so the target machine's level is moot)."""
    tm = _target_machine(llvm, 0)
    module = llvm.parse_assembly("")
    module.triple = llvm.get_process_triple()
    module.data_layout = str(tm.target_data)
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.set_object_cache(getbuffer_func=lambda _module: code)
    engine.finalize_object()
    return engine


class ObjectCache(Protocol):
    """Where the JIT keeps the machine code it made (the compiler's compile cache, which signs
    and checks what it stores: compiler/driver/cache.py). ``key`` is :func:`object_key`'s."""

    def load(self, key: str) -> tuple[bytes, dict[str, Any]] | None:
        """The object code and its facts stored under ``key``, or None."""

    def store(self, key: str, code: bytes, facts: dict[str, Any]) -> None:
        """Keep ``code`` (an object file for this host) and its facts under ``key``."""


_JIT_SOURCE: list[str] = []


def object_key(ir_text: str, launcher_text: str, opt_level: int, jit: str = "fast") -> str:
    """What the host's machine code for a kernel depends on: its IR and launcher, the levels
    of LLVM's passes and code generation (``jit_levels``), LLVM (llvmlite's version and
    LLVM's), the host (triple, CPU and its features) and this module's source (its pass
    pipeline and target machine settings)."""
    import llvmlite

    llvm = _llvm()
    if not _JIT_SOURCE:
        _JIT_SOURCE.append(hashlib.sha256(Path(__file__).read_bytes()).hexdigest())
    parts = {
        "ir": hashlib.sha256(ir_text.encode()).hexdigest(),
        "launcher": hashlib.sha256(launcher_text.encode()).hexdigest(),
        "levels": jit_levels(jit, opt_level),
        "llvmlite": llvmlite.__version__,
        "llvm": list(llvm.llvm_version_info),
        "triple": llvm.get_process_triple(),
        "cpu": llvm.get_host_cpu_name(),
        "features": llvm.get_host_cpu_features().flatten(),
        "jit": _JIT_SOURCE[0],
    }
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def optimized_engine(
    llvm: Any, module: Any, launcher_text: str, opt_level: int, jit: str = "fast"
) -> Any:
    """``module`` for this host, linked with its launcher, optimised as the tier ``jit`` at
    ``opt_level`` says and given to a new MCJIT engine that makes machine code at the tier's
    level (not made yet: the caller may hook the object cache before ``finalize_object``)."""
    passes, codegen = jit_levels(jit, opt_level)
    tm = _target_machine(llvm, codegen)
    link_launcher(llvm, module, launcher_text, tm)
    _optimize(llvm, module, tm, passes)
    return llvm.create_mcjit_compiler(module, tm)


def link_launcher(llvm: Any, module: Any, launcher_text: str, tm: Any) -> None:
    """Give ``module`` this host's triple and ``tm``'s data layout and link its launcher in
    (benchmarks/cpu_jit.py times this step apart)."""
    module.triple = llvm.get_process_triple()
    module.data_layout = str(tm.target_data)
    launcher = llvm.parse_assembly(launcher_text)
    launcher.triple = module.triple
    launcher.data_layout = module.data_layout
    module.link_in(launcher)


def compile_cpu(
    ir_text: str,
    spec: KernelSpec,
    opt_level: int = 2,
    object_cache: ObjectCache | None = None,
    jit: str = "fast",
) -> CpuProgram:
    """Compile a CPU-flavour module containing kernel ``spec.name`` for this machine, as the
    tier ``jit`` at ``opt_level`` says (``"fast"`` or ``"optimized"``: the module docstring).

    With ``object_cache``, machine code made before for the same IR, launcher, levels, LLVM
    and host is loaded instead of optimising and generating it again (a GEMM's JIT: about
    0.2 s, loading its object: milliseconds); what is made is stored there.
    """
    jit_levels(jit, opt_level)  # a bad tier is an error before any work
    llvm = _llvm()
    support = support_symbols(object_cache)
    launcher_text = kernel_launcher_ir(spec.name, llvm_param_types(spec))
    key = object_key(ir_text, launcher_text, opt_level, jit) if object_cache is not None else None
    cached = object_cache.load(key) if object_cache is not None and key is not None else None
    if cached is not None:
        program = _load_object(llvm, support, spec, *cached)
        if program.grid and program.main:
            return program
        # (an object without the kernel's entry points: made again below, and replaced)
    try:
        module = llvm.parse_assembly(ir_text)
        module.verify()
    except RuntimeError as e:
        raise ArgumentError(f"CPU kernel {spec.name!r}: invalid LLVM IR: {e}") from None
    try:
        fn = module.get_function(spec.name)
    except NameError:
        raise ArgumentError(f"CPU kernel {spec.name!r}: the module has no such function") from None
    expected = [*llvm_param_types(spec), "ptr"]
    actual = [str(a.type) for a in fn.arguments]
    if actual != expected:
        raise ArgumentError(
            f"CPU kernel {spec.name!r}: its LLVM signature ({', '.join(actual)}) does not match "
            f"its ABI ({', '.join(expected)}: the parameters plus the thread-context pointer)"
        )
    uses_collectives = any(f.name in COLLECTIVE_HELPERS for f in module.functions)

    engine = optimized_engine(llvm, module, launcher_text, opt_level, jit)
    made = _notify_into(engine, object_cache)
    engine.finalize_object()
    if object_cache is not None and key is not None and made:
        object_cache.store(key, made[0], {"uses_collectives": uses_collectives})
    return _program(engine, spec, support, uses_collectives)


def _load_object(
    llvm: Any,
    support: dict[str, int],
    spec: KernelSpec,
    code: bytes,
    facts: dict[str, Any],
) -> CpuProgram:
    """A kernel from object code the JIT made before (its IR was checked against ``spec``
    then, and the key covers both)."""
    engine = _engine_from_object(llvm, code)
    return _program(engine, spec, support, bool(facts.get("uses_collectives")))


def _program(
    engine: Any, spec: KernelSpec, support: dict[str, int], collectives: bool
) -> CpuProgram:
    return CpuProgram(
        engine=engine,
        grid=engine.get_function_address(grid_name(spec.name)),
        main=engine.get_function_address(main_name(spec.name)),
        run_fibers=support["__layoutc_run_fibers"],
        fiber_entry=support["__layoutc_fiber_entry"],
        uses_collectives=collectives,
    )
