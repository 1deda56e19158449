"""NVVM IR -> PTX, through libNVVM or through LLVM's NVPTX back end inside llvmlite.

libNVVM (``cuda.bindings.nvvm``, pip ``nvidia-nvvm``) is NVIDIA's own optimiser and accepts the
typed-pointer IR ``llvmlite.ir`` prints for every supported arch; it always writes its own PTX
ISA version (9.5 for libNVVM 13.5). LLVM's NVPTX needs no CUDA library at all and emits the ISA
we ask for. ``toolchain.compile_gpu`` chooses between them; this module only runs them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from layoutc.runtime.compat import PtxIsa, ptx_isa_of

from .errors import ToolchainError
from .llvm_setup import llvm, optimize
from .nvvm_module import NVPTX_TRIPLE
from .target import Target

LIBNVVM = "libnvvm"
LLVM = "llvm"

_PTR_WORD = re.compile(r"ptr\b")
_NAME_CHAR = re.compile(r"[%@\w.\"]")
_TYPED_BYVAL = re.compile(r"\bbyval\((?:\[[^\]]*\]|%[\w.\"]+|\{[^}]*\})\)")


@dataclass(frozen=True)
class PtxResult:
    """PTX text, which back end made it, its ISA version, the back end's log and time taken."""

    ptx: str
    backend: str
    isa: PtxIsa
    log: str
    seconds: float


def libnvvm_available() -> bool:
    """Whether libNVVM can be loaded (``cuda-bindings`` plus ``nvidia-nvvm`` or a toolkit)."""
    try:
        from cuda.bindings import nvvm

        nvvm.version()
        return True
    except Exception:
        return False


def uses_opaque_pointers(ir_text: str) -> bool:
    """True for modern ``ptr`` IR, which libNVVM accepts only in its ``-nvvm-latest`` mode."""
    # ``ptr`` not preceded by a name character: a search for the literal word, then a look at
    # the character before each hit (a look-behind regex tried every position of the text:
    # 15 ms on a GEMM's 340 kB of NVVM IR, the literal search well under 1 ms).
    for m in _PTR_WORD.finditer(ir_text):
        i = m.start()
        if i == 0 or _NAME_CHAR.match(ir_text, i - 1) is None:
            return True
    return False


def _nvvm_log(nvvm, program) -> str:
    size = nvvm.get_program_log_size(program)
    if size <= 1:
        return ""
    buf = bytearray(size)
    nvvm.get_program_log(program, buf)
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def compile_ptx_libnvvm(ir_text: str, target: Target, opt_level: int = 3) -> PtxResult:
    """Compile NVVM IR text (typed pointers, ``!nvvmir.version`` present) with libNVVM."""
    try:
        from cuda.bindings import nvvm
    except ImportError as e:
        raise ToolchainError("libNVVM", "cuda-bindings is not installed") from e
    if uses_opaque_pointers(ir_text):
        raise ToolchainError(
            "libNVVM",
            "the module uses opaque pointers ('ptr'), which libNVVM accepts only for newer "
            f"architectures than {target.arch}; print it with llvmlite.ir (typed pointers) or use "
            "the LLVM back end",
        )
    if "!nvvmir.version" not in ir_text:
        raise ToolchainError(
            "libNVVM", "the module has no !nvvmir.version; finish it with prepare_nvvm_module"
        )
    # libNVVM's IR predates typed ``byval(<type>)``: the pointee type says it. The regular
    # expression tries every position of the text (about 5 ms on a GEMM's 250 kB): only when
    # the word is there at all.
    if "byval(" in ir_text:
        ir_text = _TYPED_BYVAL.sub("byval", ir_text)
    options = [f"-arch={target.compute_name}", f"-opt={max(0, min(opt_level, 3))}"]
    start = time.perf_counter()
    try:
        program = nvvm.create_program()
    except Exception as e:
        raise ToolchainError("libNVVM", f"cannot load libNVVM: {e}") from e
    try:
        data = ir_text.encode()
        nvvm.add_module_to_program(program, data, len(data), "layoutc")
        try:
            nvvm.compile_program(program, len(options), [o.encode() for o in options])
        except nvvm.nvvmError as e:
            raise ToolchainError(
                "libNVVM", f"compiling for {target.arch} failed ({e})", _nvvm_log(nvvm, program)
            ) from None
        size = nvvm.get_compiled_result_size(program)
        buf = bytearray(size)
        nvvm.get_compiled_result(program, buf)
        log = _nvvm_log(nvvm, program)
    finally:
        nvvm.destroy_program(program)
    ptx = bytes(buf).rstrip(b"\0").decode()
    return PtxResult(ptx, LIBNVVM, ptx_isa_of(ptx), log, time.perf_counter() - start)


def compile_ptx_llvm(ir_text: str, target: Target, opt_level: int = 3) -> PtxResult:
    """Compile NVVM IR text with LLVM's NVPTX back end, emitting ``target.ptx_isa``."""
    binding = llvm()
    start = time.perf_counter()
    features = target.llvm_features
    try:
        module = binding.parse_assembly(ir_text)
        module.verify()
    except RuntimeError as e:
        raise ToolchainError("LLVM NVPTX", f"invalid LLVM IR: {e}") from None
    module.triple = NVPTX_TRIPLE
    tm = binding.Target.from_triple(NVPTX_TRIPLE).create_target_machine(
        cpu=target.llvm_cpu, features=features, opt=max(0, min(opt_level, 3))
    )
    module.data_layout = str(tm.target_data)
    optimize(module, tm, opt_level)
    try:
        ptx = tm.emit_assembly(module)
    except RuntimeError as e:
        raise ToolchainError("LLVM NVPTX", f"code generation for {target} failed: {e}") from None
    isa = ptx_isa_of(ptx)
    if isa != target.ptx_isa:
        raise ToolchainError("LLVM NVPTX", f"asked for PTX ISA {target.ptx_isa}, LLVM wrote {isa}")
    return PtxResult(ptx, LLVM, isa, "", time.perf_counter() - start)
