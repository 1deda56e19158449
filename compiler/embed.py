"""The embedding API: layoutc as a compiler backend for a host compiler (docs/embedding.md).

A host compiler builds layoutc IR itself (the IR builder, or MLIR text), without the Python
DSL, and hands it here::

    kernel = layoutc.embed.compile_module(module, "axpy", target="sm_90")
    kernel.cubin, kernel.ptx, kernel.metadata()      # bytes, text, plain data
    kernel.load()(x, y, out, n, grid=..., block=...)  # or launch with the host's own launcher

The kernel is a ``func.func`` with the ``gpu.kernel`` attribute whose arguments are
``!tile.ptr<...>`` (device pointers) and scalars (integers, floats); its ABI is those
arguments in order, one kernel parameter each (docs/runtime.md). The default pipeline is the
one ``layoutc.compile`` runs; ``pipeline=`` replaces it with any textual pipeline, passes from
plugins included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from layoutc.driver.build import BuildProducts, lower_module
from layoutc.driver.options import CompileOptions
from layoutc.driver.targets import BuildTarget, resolve_target
from layoutc.frontend.errors import CompileError
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param

__all__ = ["EmbeddedKernel", "compile_module", "kernel_abi", "parse_module"]

_SCALARS = {
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "f16": "f16",
    "bf16": "bf16",
    "f32": "f32",
    "f64": "f64",
}


def parse_module(text: str, filename: str = "<embedded>") -> Any:
    """Parse and verify MLIR text (layoutc's dialects, generic or custom form)."""
    from layoutc.ir.core import DiagnosticError, parse
    from layoutc.ir.core.errors import IRError

    try:
        module = parse(text, buffer_name=filename)
        module.verify()
    except (DiagnosticError, IRError) as e:
        raise CompileError(str(e)) from None
    return module


def _sym(func: Any) -> str:
    return func.sym_name.value


def _kernel_func(module: Any, kernel: str | None) -> Any:
    from layoutc.ir.dialects.func import FuncOp

    kernels = [
        op for op in module.body.ops if isinstance(op, FuncOp) and "gpu.kernel" in op.attributes
    ]
    if kernel is None:
        if len(kernels) != 1:
            names = ", ".join(_sym(k) for k in kernels) or "none"
            raise CompileError(f"name the kernel to compile (gpu.kernel functions: {names})")
        return kernels[0]
    for op in kernels:
        if _sym(op) == kernel:
            return op
    names = ", ".join(_sym(k) for k in kernels) or "none"
    raise CompileError(f"no gpu.kernel function @{kernel} in the module (kernels: {names})")


def kernel_abi(
    module: Any,
    kernel: str | None = None,
    *,
    arg_names: list[str] | None = None,
    block: tuple[int, int, int] | None = None,
) -> KernelSpec:
    """The runtime ABI of ``kernel``: one parameter per function argument, in order.

    Names are the arguments' names in the IR (``%x`` -> ``x``), ``arg<i>`` where the IR has
    none, or ``arg_names``. A ``!tile.ptr<T, gmem, A>`` argument is a pointer whose address
    the code may assume ``A``-byte aligned (the launch refuses others)."""
    from layoutc.ir.dialects.tile.types import PtrType

    func = _kernel_func(module, kernel)
    args = list(func.args)
    if arg_names is not None and len(arg_names) != len(args):
        raise CompileError(
            f"@{_sym(func)} has {len(args)} arguments, but {len(arg_names)} names were given"
        )
    arg_attrs = list(func.arg_attrs.elements) if func.arg_attrs is not None else []
    params = []
    for i, arg in enumerate(args):
        name = arg_names[i] if arg_names else (arg.name_hint or f"arg{i}")
        facts = _argument_facts(arg_attrs[i] if i < len(arg_attrs) else None)
        t = arg.type
        if isinstance(t, PtrType):
            if t.space != "gmem":
                raise CompileError(
                    f"@{_sym(func)} argument {name}: a kernel takes global-memory pointers, "
                    f"not {t.text}"
                )
            elem = _SCALARS.get(t.element.text)
            if elem is None:
                raise CompileError(f"@{_sym(func)} argument {name}: no ABI type for {t.text}")
            align = t.alignment
            declared = facts.get("align")
            if declared is not None and declared > align and declared & (declared - 1) == 0:
                align = declared  # the analysis takes the larger power of two (symbolic.py)
            params.append(Param(name, "pointer", elem, align=align))
            continue
        scalar = _SCALARS.get(t.text)
        if scalar is None:
            raise CompileError(
                f"@{_sym(func)} argument {name} has type {t.text}; kernel arguments are "
                "!tile.ptr<...> or integer/float scalars"
            )
        if scalar.startswith("i"):
            params.append(_integer_param(func, name, scalar, facts))
        else:
            params.append(Param(name, "scalar", scalar))
    bounds = (
        LaunchBounds(block=block, max_threads=block[0] * block[1] * block[2])
        if block
        else LaunchBounds()
    )
    return KernelSpec(_sym(func), tuple(params), bounds)


_FACT_ATTRS = {
    "layoutc.align": "align",
    "layoutc.divisible_by": "divisible_by",
    "layoutc.lower": "lower",
    "layoutc.upper": "upper",
}


def _argument_facts(attrs: Any) -> dict[str, int]:
    """The ``layoutc.*`` fact attributes of one kernel argument (the ones the analyses read:
    passes/analysis/facts.py), by ``Param`` field."""
    from layoutc.ir.core.attributes import IntegerAttr

    out: dict[str, int] = {}
    for attr, key in _FACT_ATTRS.items():
        a = attrs.get(attr) if attrs is not None else None
        if isinstance(a, IntegerAttr):
            out[key] = a.value
    return out


def _integer_param(func: Any, name: str, dtype: str, facts: dict[str, int]) -> Param:
    """An integer scalar with the facts the code may rely on, so that metadata states them
    and the launcher refuses arguments that break them."""
    div = facts.get("divisible_by", 1)
    try:
        return Param(
            name,
            "scalar",
            dtype,
            divisible_by=div if div > 0 else 1,  # the analysis ignores a non-positive one
            lower=facts.get("lower"),
            upper=facts.get("upper"),
        )
    except ValueError as e:
        raise CompileError(f"@{_sym(func)} argument {name}: {e}") from None


@dataclass
class EmbeddedKernel:
    """One compiled kernel: its code, its metadata as plain data, and a loader."""

    products: BuildProducts
    options: CompileOptions = field(default_factory=CompileOptions)
    _runtime: Any = None

    @property
    def name(self) -> str:
        return self.products.kernel

    @property
    def target(self) -> BuildTarget:
        return self.products.target

    @property
    def ptx(self) -> str | None:
        return self.products.ptx

    @property
    def cubin(self) -> bytes | None:
        return self.products.cubin

    @property
    def llvm_ir(self) -> str:
        """The NVVM IR (GPU) or host LLVM IR (CPU) that was compiled."""
        return self.products.llvm_ir

    @property
    def abi(self) -> KernelSpec:
        return self.products.runtime_spec

    def metadata(self) -> dict[str, Any]:
        """Everything a host launcher needs, as JSON-ready data: the ABI (parameters in
        order, kinds, element types, the facts the code assumes), shared memory, launch
        bounds, and for cubins the registers, stack bytes and parameter sizes the toolchain
        reports (runtime/cubin_info.py)."""
        spec = self.abi
        data: dict[str, Any] = {
            "name": spec.name,
            "target": self.target.name,
            **{k: v for k, v in spec.to_json().items() if k != "name"},
            "assumes": spec.describe_facts(),
            "cluster": None if spec.cluster is None else list(spec.cluster),
            "explicit_cluster": spec.explicit_cluster,
            "max_cluster_blocks": spec.max_cluster_blocks,
            "ptx_isa": self.products.ptx_isa,
            "ptx_backend": self.products.ptx_backend,
            "resources": None,
        }
        if self.cubin is not None:
            from layoutc.runtime.cubin_info import kernel_resources

            data["resources"] = kernel_resources(self.cubin, spec.name).to_json()
        return data

    def load(self) -> Any:
        """The runtime's launcher (CUDA or CPU): ``k(*args, grid=, block=, smem=, stream=)``."""
        if self._runtime is None:
            spec = self.abi
            if self.target.is_gpu:
                from layoutc.runtime.cuda_kernel import load_kernel

                kind, image = self.products.image
                self._runtime = load_kernel(image, kind, spec)
            else:
                from layoutc.runtime.cpu_kernel import CpuKernel

                self._runtime = CpuKernel(
                    self.llvm_ir,
                    spec,
                    opt_level=self.options.opt_level,
                    jit=self.options.cpu_jit,
                )
        return self._runtime

    def write_artifact(self, directory: Any) -> Any:
        """An AOT artifact directory that ``layoutc.runtime.load`` (and ``--emit-c``'s
        reader) accept, for a GPU target."""
        from layoutc.runtime.artifact import ArtifactKernel, Variant, write_artifact

        if not self.target.is_gpu:
            raise CompileError("AOT artifacts hold GPU code; compile for an sm_XX target")
        variant = Variant(self.target.name, ptx=self.ptx, cubin=self.cubin)
        return write_artifact(directory, [ArtifactKernel(self.abi, (variant,))], "layoutc.embed")


def compile_module(
    module: Any,
    kernel: str | None = None,
    *,
    target: Any = "cpu",
    pipeline: str | None = None,
    options: CompileOptions | None = None,
    arg_names: list[str] | None = None,
    block: tuple[int, int, int] | None = None,
) -> EmbeddedKernel:
    """Compile ``kernel`` of ``module`` (an IR module or MLIR text) for ``target`` (``cpu``,
    ``sm_80``, ``sm_90``, ...). The module is not modified: a copy is lowered. ``block`` fixes
    the block shape (the code may then rely on it). Errors in the IR are CompileErrors with
    the IR's ``file:line:col``."""
    if isinstance(module, str):
        module = parse_module(module)
    else:
        module = module.clone()
    build_target = resolve_target(target)
    options = options or CompileOptions()
    if pipeline is not None:
        from dataclasses import replace

        options = replace(options, pipeline=pipeline)
    spec = kernel_abi(module, kernel, arg_names=arg_names, block=block)
    if block is not None:
        func = _kernel_func(module, spec.name)
        from layoutc.ir.core.attributes import DenseArrayAttr
        from layoutc.ir.core.types import i32
        from layoutc.ir.dialects.gpu import KNOWN_BLOCK_SIZE_ATTR

        func.attributes[KNOWN_BLOCK_SIZE_ATTR] = DenseArrayAttr(i32, block)
    products = lower_module(module, spec.name, spec, build_target, options)
    return EmbeddedKernel(products, options)
