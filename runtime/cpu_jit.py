"""Compiling a CPU-flavour kernel module for the host and JIT-loading it (llvmlite, lazily).

The kernel module (from the IR translation, or hand-written with ``llvmlite.ir``) is linked
with the runtime's support module and a per-kernel launcher, optimised, and JIT-compiled with
MCJIT. The kernel's LLVM signature is checked against its ``KernelSpec`` first, so a mismatch
is an error message rather than a crash.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from typing import Any

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


def _llvm() -> Any:
    global _ready
    import llvmlite.binding as llvm

    if not _ready:
        with _lock:
            if not _ready:
                llvm.initialize_native_target()
                llvm.initialize_native_asmprinter()
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


def support_symbols() -> dict[str, int]:
    """Compile the support module once per process, in its own engine that is never freed.

    Fibers park inside its code between launches, so it must outlive every kernel: a fiber
    resumed into a freed kernel engine would execute garbage. Kernel modules call the helpers
    through the symbols registered here.
    """
    with _lock:
        if _support:
            return _support
        llvm = _llvm()
        module = llvm.parse_assembly(support_ir())
        tm = _target_machine(llvm, 2)
        module.triple = llvm.get_process_triple()
        module.data_layout = str(tm.target_data)
        _optimize(llvm, module, tm, 2)
        engine = llvm.create_mcjit_compiler(module, tm)
        engine.finalize_object()
        names = [
            *COLLECTIVE_HELPERS,
            *BF16_LIBCALLS,
            *F16_LIBCALLS,
            "__layoutc_run_fibers",
            "__layoutc_fiber_entry",
        ]
        symbols = {name: engine.get_function_address(name) for name in names}
        for name, address in symbols.items():
            llvm.add_symbol(name, address)
        _support["__engine__"] = engine  # type: ignore[assignment]  # keeps the code alive
        _support.update(symbols)
        return _support


def compile_cpu(ir_text: str, spec: KernelSpec, opt_level: int = 2) -> CpuProgram:
    """Compile a CPU-flavour module containing kernel ``spec.name`` for this machine."""
    llvm = _llvm()
    support = support_symbols()
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

    tm = _target_machine(llvm, opt_level)
    module.triple = llvm.get_process_triple()
    module.data_layout = str(tm.target_data)
    launcher = llvm.parse_assembly(kernel_launcher_ir(spec.name, llvm_param_types(spec)))
    launcher.triple = module.triple
    launcher.data_layout = module.data_layout
    module.link_in(launcher)
    _optimize(llvm, module, tm, opt_level)
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.finalize_object()
    return CpuProgram(
        engine=engine,
        grid=engine.get_function_address(grid_name(spec.name)),
        main=engine.get_function_address(main_name(spec.name)),
        run_fibers=support["__layoutc_run_fibers"],
        fiber_entry=support["__layoutc_fiber_entry"],
        uses_collectives=uses_collectives,
    )
