"""LLVM-level IR -> ``llvmlite.ir.Module``, in the NVVM (GPU) or the host (CPU) flavour.

Input: a ``builtin.module`` of ``llvm.func`` (kernels carry ``gpu.kernel`` or ``nvvm.kernel``)
and ``llvm.mlir.global`` ops whose bodies hold ``llvm`` and ``nvvm`` ops (the end of the
driver's pipeline: ``convert-to-llvm`` then ``convert-arith-to-llvm``, ``convert-cf-to-llvm``,
``convert-func-to-llvm``; docs/codegen.md). A module still holding ``arith``, ``cf`` or
``func`` ops is lowered by those three conversions first, in place. Output: a
:class:`Translation` with the LLVM module and, per kernel, its launch bounds and shared-memory
use.

- :func:`translate_nvvm`: triple ``nvptx64-nvidia-cuda``, NVVM data layout, kernel
  annotations and launch bounds (``prepare_nvvm_module``); nvvm ops become NVVM intrinsics or
  exact inline PTX. The module then goes through ``toolchain.compile_gpu``.
- :func:`translate_host`: the machine's triple and data layout; every function gets the
  trailing thread-context pointer of the CPU kernel ABI (docs/runtime.md), nvvm ops read the
  context and call the runtime's helpers, shared-memory globals live at fixed offsets of the
  block's shared memory. The module then runs on ``runtime.cpu_kernel.CpuKernel``.

Anything that cannot be translated raises :class:`TranslationError` with a diagnostic at the
offending op.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from layoutc.ir.core.attributes import (
    ArrayAttr,
    DenseArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from layoutc.ir.core.operation import Operation
from layoutc.ir.dialects import builtin, llvm
from layoutc.ir.dialects.llvm.types import LLVMArrayType
from layoutc.runtime.abi import LaunchBounds
from llvmlite import ir

from .llvm_builder import module_text
from .target import Target
from .translate_arith import ARITH
from .translate_cf import CONTROL
from .translate_function import FunctionTranslator, HandlerTable
from .translate_llvm import LLVM_OPS
from .translate_types import (
    I8,
    VOID,
    TranslationError,
    TypeConverter,
    fail,
    size_and_alignment,
)

__all__ = [
    "CONTEXT_ARG_ATTR",
    "KernelInfo",
    "Translation",
    "TranslationError",
    "translate_host",
    "translate_nvvm",
]

NVVM = "nvvm"
HOST = "host"

#: Argument attribute marking a function's thread-context parameter (host flavour). Functions
#: without one get the context appended as their last parameter.
CONTEXT_ARG_ATTR = "layoutc.thread_context"

_KERNEL_ATTR = "gpu.kernel"
_NVVM_KERNEL_ATTR = "nvvm.kernel"
_SHARED = 3


@dataclass(frozen=True)
class KernelInfo:
    """What the runtimes need to know about one translated kernel."""

    name: str
    launch_bounds: LaunchBounds
    static_smem: int
    """Bytes of static shared memory the kernel (and what it calls) uses."""
    uses_dynamic_smem: bool
    cluster: tuple[int, int, int] | None = None
    """The compiled cluster shape (``nvvm.cluster_dim``), launched in clusters of it."""
    explicit_cluster: bool = False
    """Launched in clusters only (PTX ``.explicitcluster``): a fixed shape, or ``nvvm.cluster_dim
    = 0, 0, 0`` (the shape chosen at launch)."""
    max_cluster_blocks: int | None = None
    """``nvvm.cluster_max_blocks`` (PTX ``.maxclusterrank``): blocks a launch's cluster may
    have at most."""


@dataclass
class Translation:
    """The translated module and its kernels."""

    module: ir.Module
    flavour: str
    kernels: dict[str, KernelInfo] = field(default_factory=dict)

    def __str__(self) -> str:
        """The module's LLVM IR: ``str(self.module)``, printed faster (``module_text``)."""
        return module_text(self.module)

    def dispose(self) -> None:
        """Break the llvmlite module's reference cycles (a function and its blocks, a block and
        its instructions point at each other) once its text is taken, so that reference
        counting frees it rather than the cyclic collector (about 18,000 objects for a GEMM;
        ir/core/disposal.py). The module is empty afterwards."""
        module = self.module
        for fn in module.functions:
            for block in fn.blocks:  # an instruction's parent is then referenced by nothing
                for instruction in block.instructions:
                    # a loop's phis and the values they take from its body (which use the
                    # phis) are cycles of their own
                    if getattr(instruction, "incomings", None):
                        instruction.incomings = []
                block.instructions = []
                block.terminator = None
                block.parent = None
            fn.blocks = []
            fn.parent = None
        module.globals.clear()


def translate_nvvm(
    module_op: Operation, target: Target, *, index_bitwidth: int = 64
) -> Translation:
    """Translate for the GPU: a finished NVVM IR module for ``target``.

    Ops needing a feature ``target`` lacks (the ``RequiresTarget`` trait) are refused first,
    with the same check as the pipeline's ``verify-target``."""
    needs_conversion, printf, failures = _scan(module_op, target.arch)
    if failures:
        raise TranslationError([op.diagnostic(message) for op, message in failures])
    _lower(module_op, index_bitwidth, needs_conversion, printf)
    return ModuleTranslator(module_op, NVVM, index_bitwidth, target).run()


def translate_host(module_op: Operation, *, index_bitwidth: int = 64) -> Translation:
    """Translate for this machine's CPU (the CPU kernel ABI of docs/runtime.md)."""
    lower_to_llvm_dialect(module_op, index_bitwidth)
    return ModuleTranslator(module_op, HOST, index_bitwidth, None).run()


def lower_to_llvm_dialect(module_op: Operation, index_bitwidth: int, gpu: bool = False) -> None:
    """Run convert-arith/cf/func-to-llvm in place when ``module_op`` still holds such ops (and
    for the GPU, lower ``gpu.printf`` to ``vprintf`` as convert-to-llvm does)."""
    needs_conversion, printf, _ = _scan(module_op, "")
    _lower(module_op, index_bitwidth, needs_conversion, gpu and printf)


def _scan(module_op: Operation, arch: str) -> tuple[bool, bool, list[tuple[Operation, str]]]:
    """One walk: whether arith, cf or func ops remain, whether a gpu.printf does, and the ops
    whose target requirement ``arch`` does not meet (check_target_features; none unless
    ``arch`` is a GPU architecture)."""
    from layoutc.ir.dialects import arith, cf, func
    from layoutc.ir.dialects import gpu as gpu_dialect
    from layoutc.passes.target_features import _requiring_traits as requiring_traits
    from layoutc.passes.target_features import target_requirements

    a, c, f = arith.DIALECT, cf.DIALECT, func.DIALECT
    printf_op = gpu_dialect.PrintfOp
    checked = arch.startswith("sm_")
    needs_conversion = printf = False
    failures = []
    for op in module_op.walk_ops():
        if not needs_conversion:
            d = op.dialect
            needs_conversion = d is a or d is c or d is f
        if not printf:
            printf = isinstance(op, printf_op)
        if checked and requiring_traits(type(op)):
            for req in target_requirements(op):
                if not req.satisfied_by(arch):
                    failures.append((op, req.message(arch)))
    return needs_conversion, printf, failures


def _lower(module_op: Operation, index_bitwidth: int, needs_conversion: bool, printf: bool) -> None:
    if needs_conversion:
        from layoutc.passes.conversion.arith_to_llvm import (
            ArithToLLVMError,
            convert_arith_to_llvm,
        )
        from layoutc.passes.conversion.cf_to_llvm import convert_cf_to_llvm
        from layoutc.passes.conversion.func_to_llvm import FuncToLLVMError, convert_func_to_llvm

        try:
            convert_arith_to_llvm(module_op, index_bitwidth)
            convert_cf_to_llvm(module_op)
            convert_func_to_llvm(module_op, index_bitwidth)
        except (ArithToLLVMError, FuncToLLVMError) as e:
            raise fail(e.op, e.message) from None
    if printf:
        from layoutc.passes.conversion.printf_to_llvm import lower_printf_to_vprintf

        lower_printf_to_vprintf(module_op)


_PASS_HINTS = {
    "scf": "lower structured control flow first (convert-scf-to-cf)",
    "gpu": "lower gpu ops first (convert-gpu-to-nvvm)",
    "tile": "lower tile ops first (convert-to-llvm)",
    "layout": "lower layout ops first (lower-layouts)",
}

_LINKAGES = {
    "private": "private",
    "internal": "internal",
    "available_externally": "available_externally",
    "linkonce": "linkonce",
    "weak": "weak",
    "common": "common",
    "appending": "appending",
    "extern_weak": "extern_weak",
    "linkonce_odr": "linkonce_odr",
    "weak_odr": "weak_odr",
    "external": "external",
}


class SharedMemoryLayout:
    """Static shared-memory globals at fixed, aligned offsets (host flavour), and which
    globals are dynamic shared memory (zero-sized arrays, MLIR's ``__dynamic_shmem__``)."""

    def __init__(self) -> None:
        self.offsets: dict[str, tuple[int, int]] = {}  # name -> (offset, size)
        self.dynamic: set[str] = set()
        self.end = 0

    def add(self, g: Any) -> None:
        name = g.sym_name.value
        t = g.type
        if isinstance(t, LLVMArrayType) and t.size == 0:
            self.dynamic.add(name)
            return
        size, natural = size_and_alignment(t)
        align = max(natural, g.alignment.value if g.alignment is not None else 1)
        offset = (self.end + align - 1) // align * align
        self.offsets[name] = (offset, size)
        self.end = offset + size


_TABLES: dict[str, HandlerTable] = {}
"""The merged handler table of each flavour (built on first use)."""


class ModuleTranslator:
    """Translates one module; handlers reach module-level state through ``ft.module``."""

    def __init__(
        self, module_op: Operation, flavour: str, index_bitwidth: int, target: Target | None
    ):
        self.op = module_op
        self.flavour = flavour
        self.target = target
        self.types = TypeConverter(index_bitwidth, host=flavour == HOST)
        name = module_op.properties.get("sym_name")
        self.llvm = ir.Module(name=name.value if isinstance(name, StringAttr) else "layoutc")
        self.functions: dict[str, ir.Function] = {}
        self.func_ops: dict[str, Any] = {}
        self.context_index: dict[str, int] = {}  # function -> index of its context parameter
        self.appended_context: set[str] = set()
        self.globals: dict[str, Any] = {}
        self.llvm_globals: dict[str, ir.GlobalVariable] = {}
        self.shared = SharedMemoryLayout()
        self.handlers = self._handlers()
        self.helpers: dict[str, Any] = {}  # per-module generated helpers (host emulation)
        # llvmlite objects derived from others and asked for again and again (inline asm
        # callees, result structs): one each per translation; keys may hold ids of llvmlite
        # types that the memoised value references (so the ids stay unique)
        self.memo: dict[tuple[Any, ...], Any] = {}

    def _handlers(self) -> HandlerTable:
        table = _TABLES.get(self.flavour)
        if table is not None:
            return table
        from . import translate_printf  # noqa: F401 (registers gpu.printf for the host)

        table = HandlerTable(f"translation ({self.flavour})")
        for part in (ARITH, CONTROL, LLVM_OPS):
            table.update(part)
        from . import translate_wgmma  # noqa: F401 (registers the wgmma/stmatrix handlers)

        if self.flavour == NVVM:
            from .translate_nvvm import NVVM_GPU

            table.update(NVVM_GPU)
        else:
            from .translate_host import NVVM_HOST

            table.update(NVVM_HOST)
        _TABLES[self.flavour] = table
        return table

    # -- driver -------------------------------------------------------------------------------
    def run(self) -> Translation:
        body = self._top_level_ops()
        funcs = [op for op in body if isinstance(op, llvm.LLVMFuncOp)]
        for op in body:
            if isinstance(op, llvm.GlobalOp):
                self._declare_global(op)
        for f in funcs:
            self._declare_function(f)
        for f in funcs:
            if f.body.blocks:
                self._translate_body(f)
        kernels = self._kernels(funcs)
        if self.flavour == NVVM:
            from .nvvm_module import prepare_nvvm_module

            assert self.target is not None
            prepare_nvvm_module(
                self.llvm,
                list(kernels),
                self.target,
                {k: _ptx_bounds(info.launch_bounds) for k, info in kernels.items()},
                {k: _grid_constant_args(self.func_ops[k]) for k in kernels},
                {k: _cluster_dims(self.func_ops[k]) for k in kernels},
                {k: info.max_cluster_blocks for k, info in kernels.items()},
            )
        else:
            self._set_host_target()
        return Translation(self.llvm, self.flavour, kernels)

    def _top_level_ops(self) -> list[Operation]:
        if not isinstance(self.op, builtin.ModuleOp):
            raise fail(self.op, "expected a 'builtin.module' to translate")
        ops = list(self.op.regions[0].blocks[0].ops) if self.op.regions[0].blocks else []
        for op in ops:
            if not isinstance(op, (llvm.LLVMFuncOp, llvm.GlobalOp)):
                raise fail(op, self.unsupported_message(op, top_level=True))
        return ops

    def unsupported_message(self, op: Operation, top_level: bool = False) -> str:
        dialect = op.name.split(".", 1)[0]
        hint = _PASS_HINTS.get(dialect)
        if hint is not None:
            return f"cannot be translated to LLVM IR: {hint}"
        if top_level:
            return "cannot be translated to LLVM IR at module level (expected llvm.func or llvm.mlir.global)"
        if dialect == "nvvm" or dialect == "llvm":
            return f"not supported: no LLVM IR translation for '{op.name}' in the {self.flavour} flavour"
        return f"not supported: no LLVM IR translation for '{op.name}'"

    def _set_host_target(self) -> None:
        from .llvm_setup import llvm

        binding = llvm()
        triple = binding.get_process_triple()
        tm = binding.Target.from_triple(triple).create_target_machine()
        self.llvm.triple = triple
        self.llvm.data_layout = str(tm.target_data)

    # -- globals ------------------------------------------------------------------------------
    def _declare_global(self, g: Any) -> None:
        name = g.sym_name.value
        self.globals[name] = g
        if self.types.host and g.address_space == _SHARED:
            self.shared.add(g)
            return
        if g.thread_local_ is not None:
            raise fail(g, "not supported: thread-local globals")
        t = self.types.convert(g.type, g)
        gv = ir.GlobalVariable(
            self.llvm, t, name, addrspace=self.types.address_space(g.address_space)
        )
        linkage = g.linkage.value
        value = g.value
        if value is not None:
            if isinstance(value, StringAttr):
                data = bytearray(value.value.encode("utf-8"))
                gv.initializer = ir.Constant(t, data)
            else:
                gv.initializer = ir.Constant(t, value.value)
        elif linkage not in ("external", "extern_weak"):
            gv.initializer = ir.Constant(t, ir.Undefined)
        if linkage != "external":
            gv.linkage = _LINKAGES[linkage]
        if g.constant is not None:
            gv.global_constant = True
        if g.alignment is not None:
            gv.align = g.alignment.value
        if g.section is not None:
            gv.section = g.section.value
        self.llvm_globals[name] = gv

    def global_address(self, ft: FunctionTranslator, op: Operation, name: str) -> ir.Value:
        """The address of global ``name`` as the canonical ``i8*`` of its address space."""
        g = self.globals.get(name)
        if g is None:
            raise fail(op, f"'{name}' does not reference an llvm.mlir.global of this module")
        if self.types.host and g.address_space == _SHARED:
            from .translate_host import shared_memory_address

            return shared_memory_address(ft, op, name)
        gv = self.llvm_globals[name]
        return gv.bitcast(self.types.pointer_to(I8, gv.type.addrspace))

    # -- functions ----------------------------------------------------------------------------
    def _declare_function(self, f: Any) -> None:
        name = f.sym_name.value
        ftype = f.type
        params = [self.types.convert(t, f) for t in ftype.inputs]
        ret: ir.Type = VOID if ftype.result is None else self.types.convert(ftype.result, f)
        defined = bool(f.body.blocks)
        if self.types.host and defined:
            marked = _marked_context_arg(f)
            if marked is None:
                params.append(self.types.pointer(0))
                self.appended_context.add(name)
                marked = len(params) - 1
            self.context_index[name] = marked
        if name in self.functions:
            raise fail(f, f"redefinition of function '{name}'")
        byval = _byval_args(f) if not self.types.host else {}
        for i, t in byval.items():
            params[i] = ir.PointerType(self.types.convert(t, f))
        fn = ir.Function(self.llvm, ir.FunctionType(ret, params), name)
        for i in byval:
            fn.args[i].add_attribute("byval")
            align = _arg_attr(f, i, "llvm.align")
            if align is not None:
                fn.args[i].attributes.align = int(align.value)
        linkage = f.linkage.value
        if linkage != "external":
            fn.linkage = _LINKAGES[linkage]
        _function_attributes(f, fn)
        if _is_kernel(f) and ftype.result is not None:
            raise fail(f, "a kernel (gpu.kernel) must not return values")
        self.functions[name] = fn
        self.func_ops[name] = f

    def function(self, name: str) -> ir.Function | None:
        return self.functions.get(name)

    def takes_context(self, name: str) -> bool:
        """Whether calls of ``name`` must pass the caller's context (it was appended)."""
        return name in self.appended_context

    def intrinsic(self, name: str, ret: ir.Type, args: Iterable[ir.Type]) -> ir.Function:
        """Declare (once) and return a function named ``name``."""
        existing = self.llvm.globals.get(name)
        if existing is not None:
            return existing
        return ir.Function(self.llvm, ir.FunctionType(ret, list(args)), name)

    def _translate_body(self, f: Any) -> None:
        name = f.sym_name.value
        fn = self.functions[name]
        ctx_index = self.context_index.get(name)
        context = fn.args[ctx_index] if ctx_index is not None else None
        if context is not None:
            context.name = "ctx"
        params = [
            a for i, a in enumerate(fn.args) if i != ctx_index or name not in self.appended_context
        ]
        ft = FunctionTranslator(self, f, fn, self.handlers, context)
        ft.translate(params)

    # -- kernels ------------------------------------------------------------------------------
    def _kernels(self, funcs: list[Any]) -> dict[str, KernelInfo]:
        out: dict[str, KernelInfo] = {}
        for f in funcs:
            if not _is_kernel(f):
                continue
            if not f.body.blocks:
                raise fail(f, "a kernel (gpu.kernel) needs a body")
            name = f.sym_name.value
            static, dynamic = self._shared_memory_use(f)
            dims = _cluster_dims(f)
            out[name] = KernelInfo(
                name,
                launch_bounds(f),
                static,
                dynamic,
                cluster=dims if dims and dims[0] else None,  # type: ignore[arg-type]
                explicit_cluster=dims is not None,
                max_cluster_blocks=_cluster_max_blocks(f, dims),
            )
        return out

    def _shared_memory_use(self, kernel: Any) -> tuple[int, bool]:
        """Static shared bytes and dynamic-shared use of ``kernel`` and its callees."""
        seen: set[str] = set()
        used: set[str] = set()
        todo = [kernel]
        while todo:
            f = todo.pop()
            for op in f.walk_ops():
                if isinstance(op, llvm.AddressOfOp):
                    used.add(op.global_name.root)
                elif isinstance(op, llvm.LLVMCallOp):
                    callee = self.func_ops.get(op.callee.root)
                    if callee is not None and callee.sym_name.value not in seen:
                        seen.add(callee.sym_name.value)
                        todo.append(callee)
        shared = [self.globals[n] for n in used if n in self.globals]
        shared = [g for g in shared if g.address_space == _SHARED]
        dynamic = any(_is_dynamic_shared(g) for g in shared)
        static_globals = [g for g in shared if not _is_dynamic_shared(g)]
        if self.types.host:
            ends = [sum(self.shared.offsets[g.sym_name.value]) for g in static_globals]
            return (max(ends) if ends else 0), dynamic
        total = 0
        for g in sorted(static_globals, key=lambda g: g.sym_name.value):
            size, natural = size_and_alignment(g.type)
            align = max(natural, g.alignment.value if g.alignment is not None else 1)
            total = (total + align - 1) // align * align + size
        return total, dynamic


def _function_attributes(f: Any, fn: ir.Function) -> None:
    """LLVM function attributes from ``llvm.func``'s ``no_inline`` and ``passthrough`` (an
    array of attribute names, as upstream MLIR spells them)."""
    attrs = f.attributes
    if isinstance(attrs.get("no_inline"), UnitAttr):
        fn.attributes.add("noinline")
    passthrough = attrs.get("passthrough")
    if passthrough is None:
        return
    if not isinstance(passthrough, ArrayAttr) or not all(
        isinstance(a, StringAttr) for a in passthrough
    ):
        raise fail(f, "'passthrough' must be an array of strings (LLVM function attributes)")
    for a in passthrough:
        try:
            fn.attributes.add(a.value)
        except ValueError:
            raise fail(f, f"'passthrough': unknown LLVM function attribute '{a.value}'") from None


def _is_kernel(f: Any) -> bool:
    return _KERNEL_ATTR in f.attributes or _NVVM_KERNEL_ATTR in f.attributes


def _ptx_bounds(bounds: LaunchBounds) -> LaunchBounds:
    """What the PTX states: ``.maxntid`` (the thread count of ``gpu.known_block_size``, as
    MLIR lowers it) and ``.minnctapersm``; never ``.reqntid`` too, which ptxas refuses next to
    ``.maxntid``. The exact block stays in :class:`KernelInfo` for the runtimes to enforce."""
    return LaunchBounds(max_threads=bounds.max_threads, min_blocks=bounds.min_blocks)


def _arg_attr(f: Any, i: int, name: str) -> Any:
    attrs = f.arg_attrs
    if attrs is None or i >= len(attrs.elements):
        return None
    return attrs.elements[i].get(name)


def _byval_args(f: Any) -> dict[int, Any]:
    """Arguments passed by value (``llvm.byval = <type>``): index -> the value's type."""
    out = {}
    for i in range(len(f.type.inputs)):
        t = _arg_attr(f, i, "llvm.byval")
        if t is not None:
            out[i] = t.type
    return out


def _cluster_dims(f: Any) -> tuple[int, ...] | None:
    """``nvvm.cluster_dim`` (upstream's kernel attribute): the required cluster shape, or
    ``0, 0, 0`` (LLVM's reading: ``.explicitcluster`` without ``.reqnctapercluster``)."""
    attr = f.attributes.get("nvvm.cluster_dim")
    if attr is None:
        return None
    dims = tuple(int(x) for x in attr.values)
    if len(dims) != 3 or not (min(dims) >= 1 or dims == (0, 0, 0)):
        raise fail(f, f"'nvvm.cluster_dim' must be three positive integers or 0, 0, 0, got {dims}")
    return dims


def _cluster_max_blocks(f: Any, dims: tuple[int, ...] | None) -> int | None:
    """``nvvm.cluster_max_blocks`` (upstream's kernel attribute, PTX ``.maxclusterrank``);
    ptxas refuses it next to ``.reqnctapercluster``, so not with a fixed shape."""
    attr = f.attributes.get("nvvm.cluster_max_blocks")
    if attr is None:
        return None
    n = getattr(attr, "value", None)
    if not isinstance(n, int) or n < 1:
        raise fail(f, f"'nvvm.cluster_max_blocks' must be a positive integer, got {attr}")
    if dims is not None and dims[0]:
        raise fail(
            f,
            "'nvvm.cluster_max_blocks' next to a fixed 'nvvm.cluster_dim': PTX forbids "
            ".maxclusterrank with .reqnctapercluster",
        )
    return n


def _grid_constant_args(f: Any) -> list[int]:
    """Indices of the ``nvvm.grid_constant`` arguments (read-only by-value parameters whose
    address the kernel takes in the parameter space, e.g. TMA descriptors)."""
    return [i for i in range(len(f.type.inputs)) if _arg_attr(f, i, "nvvm.grid_constant")]


def _is_dynamic_shared(g: Any) -> bool:
    return isinstance(g.type, LLVMArrayType) and g.type.size == 0


def _marked_context_arg(f: Any) -> int | None:
    attrs = f.arg_attrs
    if not isinstance(attrs, ArrayAttr):
        return None
    for i, d in enumerate(attrs):
        if isinstance(d, DictionaryAttr) and isinstance(d.get(CONTEXT_ARG_ATTR), UnitAttr):
            return i
    return None


def _triple(attr: Any, f: Any, what: str) -> tuple[int, int, int] | None:
    if attr is None:
        return None
    if (
        not isinstance(attr, DenseArrayAttr)
        or len(attr) != 3
        or any(not isinstance(v, int) or v <= 0 for v in attr.values)
    ):
        raise fail(f, f"'{what}' must be three positive integers (array<i32: x, y, z>)")
    return tuple(attr.values)  # type: ignore[return-value]


def launch_bounds(f: Any) -> LaunchBounds:
    """From ``gpu.known_block_size`` (an exact block, also the thread bound), ``nvvm.reqntid``,
    ``nvvm.maxntid`` and ``nvvm.minctasm``."""
    attrs = f.attributes
    block = _triple(attrs.get("gpu.known_block_size"), f, "gpu.known_block_size")
    block = block or _triple(attrs.get("nvvm.reqntid"), f, "nvvm.reqntid")
    maxntid = _triple(attrs.get("nvvm.maxntid"), f, "nvvm.maxntid")
    max_threads = None
    if maxntid is not None:
        max_threads = maxntid[0] * maxntid[1] * maxntid[2]
    elif block is not None:
        max_threads = block[0] * block[1] * block[2]
    min_blocks = attrs.get("nvvm.minctasm")
    if min_blocks is not None and (
        not isinstance(min_blocks, IntegerAttr) or min_blocks.value <= 0
    ):
        raise fail(f, "'nvvm.minctasm' must be a positive integer")
    return LaunchBounds(
        max_threads=max_threads,
        min_blocks=min_blocks.value if min_blocks is not None else None,
        block=block,
    )
