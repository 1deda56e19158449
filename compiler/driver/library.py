"""Kernel libraries: a manifest of kernels x specs x targets built into one artifact directory,
on the local cores (a process pool) or on a Ray cluster, byte-identical however it was built.

A build is a list of :class:`LibraryJob`s, one per kernel variant and target. A job is plain
data (the source file, the expression naming the kernel, the spec texts, the target): a worker
rebuilds the kernel from its source, traces and compiles it, and returns a :class:`JobResult`
of strings and bytes. The parent sorts the results and writes the artifact, so the files do not
depend on which worker built what, in which order, or on which host (IR is printed without
locations, the manifest has no paths, times or host names).

The manifest file (TOML or JSON; docs/driver.md, "Libraries of kernels") ::

    targets = ["sm_80", "sm_90"]           # default targets of every kernel
    [options]                              # compile options of every kernel (optional)
    opt_level = 3
    [[kernel]]
    source = "copy_1d.py::copy_1d"         # FILE.py::NAME or FILE.py::builder(args...)
    block = 128                            # optional: block, assume, targets, name
    [[kernel.spec]]                        # optional: one artifact kernel per entry
    name = "copy_1d_a16"
    args = { src = "f32[(N):(1)],align=16", dst = "f32[(N):(1)],align=16" }
    assume = ["N%1024==0"]
"""

from __future__ import annotations

import ast
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from layoutc.frontend.errors import CompileError

from .progress import Progress

#: Keys each level of a manifest may hold (anything else is a mistake worth reporting).
_TOP_KEYS = {"targets", "options", "kernel"}
_KERNEL_KEYS = {"source", "name", "block", "assume", "args", "targets", "spec"}
_SPEC_KEYS = {"name", "block", "assume", "args", "targets"}
_OPTION_KEYS = {"opt_level", "ptx_backend", "cubin", "index_bitwidth", "check_bounds", "pipeline"}


class LibraryError(Exception):
    """A library that cannot be built: a bad manifest, or kernels that failed (each listed)."""


class ManifestError(LibraryError):
    """A library manifest that cannot be read or says something inconsistent."""


@dataclass(frozen=True)
class LibraryJob:
    """One kernel variant for one target: everything a worker needs, as plain data."""

    root: str
    """The manifest's directory (absolute); ``source`` is relative to it."""
    source: str
    expr: str
    """The kernel in its file: a name (``copy_1d``) or a builder call (``make_gemm(Config())``)."""
    name: str
    """The kernel's name in the artifact ("" keeps the traced name)."""
    target: str
    args: tuple[tuple[str, str], ...] = ()
    assume: tuple[str, ...] = ()
    block: tuple[int, ...] | None = None
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def where(self) -> str:
        return f"{self.source}::{self.expr}"


@dataclass
class JobResult:
    """What a worker sends back: text and bytes only (no objects of the compiler)."""

    job: LibraryJob
    name: str = ""
    error: str = ""
    input_mlir: str = ""
    final_mlir: str = ""
    llvm_ir: str = ""
    ptx: str | None = None
    cubin: bytes | None = None
    ptx_isa: str | None = None
    runtime_spec: dict = field(default_factory=dict)
    vector_bits: list[int] | None = None
    facts: list[str] = field(default_factory=list)
    remarks: list[dict] = field(default_factory=list)
    seconds: float = 0.0


# -- the manifest ----------------------------------------------------------------------------------


def read_manifest(path: str | os.PathLike) -> dict:
    """The manifest's contents (``.toml`` or ``.json``), with a clear error for a bad file."""
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as e:
        raise ManifestError(f"{file}: cannot read the manifest: {e.strerror or e}") from None
    if file.suffix == ".json":
        try:
            value = json.loads(data)
        except ValueError as e:
            raise ManifestError(f"{file}: not valid JSON: {e}") from None
    elif file.suffix == ".toml":
        if sys.version_info < (3, 11):
            raise ManifestError(f"{file}: TOML manifests need Python 3.11 or later; use JSON")
        import tomllib

        try:
            value = tomllib.loads(data.decode())
        except (ValueError, UnicodeDecodeError) as e:
            raise ManifestError(f"{file}: not valid TOML: {e}") from None
    else:
        raise ManifestError(f"{file}: a manifest is a .toml or .json file")
    if not isinstance(value, dict):
        raise ManifestError(f"{file}: the manifest must be a table (object) at the top")
    return value


def _unknown(where: str, table: dict, allowed: set[str]) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise ManifestError(
            f"{where}: unknown key(s) {', '.join(extra)} (expected {', '.join(sorted(allowed))})"
        )


def _strings(where: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{where}: expected a string or a list of strings, got {value!r}")
    return tuple(value)


def _block(where: str, value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    dims = (value,) if isinstance(value, int) else value
    if (
        not isinstance(dims, list | tuple)
        or not 1 <= len(dims) <= 3
        or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims)
    ):
        raise ManifestError(f"{where}: block must be 1 to 3 positive integers, got {value!r}")
    return tuple(dims)


def _args(where: str, value: Any) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str | int | bool | float) for k, v in value.items()
    ):
        raise ManifestError(f"{where}: args must map parameter names to spec texts, got {value!r}")
    return tuple(sorted((k, v if isinstance(v, str) else repr(v)) for k, v in value.items()))


def jobs_from_manifest(
    manifest: dict,
    root: str | os.PathLike,
    where: str = "manifest",
    targets: Sequence[str] | None = None,
    options: dict[str, Any] | None = None,
) -> list[LibraryJob]:
    """The jobs a manifest asks for, in a canonical order (kernel name, then target order).

    ``targets`` (the command line's ``--target``) replaces the manifest's default targets;
    ``options`` are defaults the manifest's ``options`` table overrides.
    """
    _unknown(where, manifest, _TOP_KEYS)
    default_targets = (
        tuple(targets) if targets else _strings(f"{where}: targets", manifest.get("targets", []))
    )
    opts = dict(options or {})
    table = manifest.get("options", {})
    if not isinstance(table, dict):
        raise ManifestError(f"{where}: options must be a table")
    _unknown(f"{where}: options", table, _OPTION_KEYS)
    opts.update(table)
    option_items = tuple(sorted(opts.items()))
    kernels = manifest.get("kernel")
    if not isinstance(kernels, list) or not kernels:
        raise ManifestError(f"{where}: expected at least one [[kernel]] entry")
    root = str(Path(root).resolve())
    jobs: list[LibraryJob] = []
    for i, entry in enumerate(kernels):
        here = f"{where}: kernel {i + 1}"
        if not isinstance(entry, dict):
            raise ManifestError(f"{here}: expected a table")
        _unknown(here, entry, _KERNEL_KEYS)
        ref = entry.get("source")
        if not isinstance(ref, str) or "::" not in ref:
            raise ManifestError(f"{here}: source must be 'FILE.py::KERNEL', got {ref!r}")
        source, _, expr = ref.partition("::")
        _check_expression(f"{here}: source", expr)
        here = f"{where}: {ref}"
        variants = entry.get("spec", [{}])
        if not isinstance(variants, list) or not variants:
            raise ManifestError(f"{here}: spec must be a list of tables")
        if len(variants) > 1 and any(not isinstance(v, dict) or "name" not in v for v in variants):
            raise ManifestError(f"{here}: several specs need a name each (the artifact's names)")
        for v in variants:
            if not isinstance(v, dict):
                raise ManifestError(f"{here}: spec must be a list of tables")
            _unknown(f"{here}: spec", v, _SPEC_KEYS)
            merged = {**entry, **v}
            name = merged.get("name", "")
            if not isinstance(name, str):
                raise ManifestError(f"{here}: name must be a string")
            kernel_targets = (
                _strings(f"{here}: targets", merged["targets"])
                if "targets" in merged
                else default_targets
            )
            if not kernel_targets:
                raise ManifestError(f'{here}: no targets (set targets = ["sm_90"] or --target)')
            for target in kernel_targets:
                jobs.append(
                    LibraryJob(
                        root=root,
                        source=source,
                        expr=expr,
                        name=name,
                        target=target,
                        args=_args(here, merged.get("args")),
                        assume=_strings(f"{here}: assume", merged.get("assume", [])),
                        block=_block(here, merged.get("block")),
                        options=option_items,
                    )
                )
    return jobs


_ALLOWED_NODES = (
    ast.Expression,
    ast.Name,
    ast.Attribute,
    ast.Call,
    ast.keyword,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.UnaryOp,
    ast.USub,
    ast.Load,
)


def _check_expression(where: str, expr: str) -> None:
    """A kernel is named by an identifier or a builder call with literal arguments."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ManifestError(f"{where}: {expr!r} is not a Python expression") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ManifestError(
                f"{where}: {expr!r}: expected a kernel's name or a builder call such as "
                "make_gemm(GemmConfig(dtype='f16'))"
            )


# -- one job (runs in a worker) ----------------------------------------------------------------------


def resolve_kernel(root: str, source: str, expr: str) -> Any:
    """The ``@layoutc.kernel`` that ``source::expr`` names (loading the file once per process)."""
    from layoutc.frontend.kernel import Kernel

    from .loading import SourceError, load_source

    path = Path(root) / source
    if not path.is_file() and Path(source).is_file():  # a Ray worker in a shipped working_dir
        path = Path(source)
    module = load_source(path)
    _check_expression(source, expr)
    try:
        value = eval(compile(expr, f"{source}::{expr}", "eval"), vars(module))
    except Exception as e:
        raise SourceError(f"{type(e).__name__}: {e}") from None
    if not isinstance(value, Kernel):
        raise SourceError(f"{source}::{expr} is not a @layoutc.kernel (got {type(value).__name__})")
    return value


def build_job(job: LibraryJob) -> JobResult:
    """Compile one job; a failure becomes the result's ``error`` (the message a user reads)."""
    from layoutc.cli.compile_cmd import kernel_arguments
    from layoutc.cli.main import UsageError
    from layoutc.frontend.spec import SpecError

    from .argspecs import build_spec
    from .build import lower_module
    from .loading import SourceError
    from .options import CompileOptions, OutputOptions
    from .spec_facts import runtime_spec_with_facts
    from .targets import TargetError, resolve_target

    start = time.perf_counter()
    result = JobResult(job)
    try:
        target = resolve_target(job.target)
        if not target.is_gpu:
            raise CompileError(
                f"{job.where}: not supported: libraries for the CPU (artifacts hold PTX and "
                "cubin); use a GPU architecture such as sm_90"
            )
        kernel = resolve_kernel(job.root, job.source, job.expr)
        kwargs = kernel_arguments(kernel, dict(job.args))
        spec = build_spec(kernel, (), kwargs, job.block, list(job.assume))
        options = CompileOptions(**dict(job.options))
        module, name, abi = kernel.trace(spec, job.name or None)
        result.name = name
        result.input_mlir = module.to_text()
        products = lower_module(
            module,
            name,
            runtime_spec_with_facts(spec, abi),
            target,
            options,
            OutputOptions(),
            input_text=module.to_text(debug_info=True),
            keep_final_mlir=True,
        )
    except (SourceError, SpecError, TargetError, CompileError, UsageError, ValueError) as e:
        result.error = str(e).rstrip()
        return result
    result.final_mlir = products.final_mlir or ""
    result.llvm_ir = products.llvm_ir
    result.ptx = products.ptx
    result.cubin = products.cubin
    result.ptx_isa = products.ptx_isa
    result.runtime_spec = products.runtime_spec.to_json()
    result.vector_bits = products.vector_bits
    result.facts = list(products.runtime_spec.describe_facts())
    result.remarks = [r.to_json() for r in products.remarks]
    result.seconds = time.perf_counter() - start
    return result


# -- running the jobs --------------------------------------------------------------------------


def default_jobs() -> int:
    """The local cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_serial(jobs: Sequence[LibraryJob], progress: Callable[[], None]) -> list[JobResult]:
    out = []
    for job in jobs:
        out.append(build_job(job))
        progress()
    return out


def run_pool(
    jobs: Sequence[LibraryJob], workers: int, progress: Callable[[], None]
) -> list[JobResult]:
    """The jobs on ``workers`` fresh processes (compiler/driver/workers.py)."""
    from .workers import run_jobs

    out = []
    for job, (ok, value) in zip(jobs, run_jobs(build_job, jobs, workers, progress)):
        out.append(value if ok else JobResult(job, error=str(value)))
    return out


def ray_session(address: str, num_cpus: int | None = None) -> Any:
    """``ray.init`` for ``--ray ADDRESS`` (``local``: a Ray started for this run, stopped
    after it). Returns a function that shuts down what this call started."""
    try:
        import ray
    except ImportError:
        raise CompileError(
            "--ray needs Ray: pip install 'layoutc[ray]' (on every machine of the cluster)"
        ) from None
    if ray.is_initialized():
        return lambda: None
    if address == "local":
        # the workers import what this process can (kernels next to a script, tests' helpers)
        path = os.pathsep.join(p for p in sys.path if p)
        ray.init(
            num_cpus=num_cpus or default_jobs(),
            runtime_env={"env_vars": {"PYTHONPATH": path}},
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
    return ray.shutdown


def run_ray(
    jobs: Sequence[LibraryJob],
    address: str,
    progress: Callable[[], None],
    num_cpus: int | None = None,
) -> list[JobResult]:
    """The jobs as Ray tasks (one CPU each) on the cluster at ``address`` or a local one."""
    stop = ray_session(address, num_cpus)
    import ray

    try:
        task = ray.remote(num_cpus=1)(build_job)
        pending = {task.remote(job): i for i, job in enumerate(jobs)}
        out: list[JobResult | None] = [None] * len(jobs)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                out[pending.pop(ref)] = ray.get(ref)
                progress()
        return [r for r in out if r is not None]
    finally:
        stop()


# -- the artifact ------------------------------------------------------------------------------


@dataclass
class LibraryResult:
    directory: Path
    results: list[JobResult]
    files: list[Path]
    workers: int
    executor: str
    seconds: float


def build_library(
    directory: str | os.PathLike,
    jobs: Sequence[LibraryJob],
    workers: int | None = None,
    ray: str | None = None,
) -> LibraryResult:
    """Build every job and write one artifact directory.

    ``workers``: 1 builds in this process, more on worker processes (default: the local
    cores); ``ray``: an address (or ``local``) to build on Ray instead. Raises a
    :class:`CompileError` listing every job that failed (nothing is written then).
    """
    from .aot import _output_directory

    if not jobs:
        raise ManifestError("the library has no kernels")
    workers = max(1, workers or default_jobs())
    start = time.perf_counter()
    progress = Progress(len(jobs), "building")
    if ray is not None:
        results, executor = run_ray(jobs, ray, progress, num_cpus=workers), "ray"
    elif workers == 1 or len(jobs) == 1:
        results, executor = run_serial(jobs, progress), "serial"
    else:
        results, executor = run_pool(jobs, min(workers, len(jobs)), progress), "processes"
    failed = [r for r in results if r.error]
    if failed:
        lines = [f"{len(failed)} of {len(results)} builds failed:"]
        lines += [f"{r.job.where} [{r.job.target}]: {r.error}" for r in failed]
        raise LibraryError("\n".join(lines))
    out = _output_directory(directory)
    files = write_library(out, results)
    return LibraryResult(out, results, files, workers, executor, time.perf_counter() - start)


def write_library(out: Path, results: Iterable[JobResult]) -> list[Path]:
    """The artifact of ``results``: kernels sorted by name, each kernel's targets in the
    manifest's order; the same results give the same bytes."""
    from layoutc import __version__
    from layoutc.runtime.abi import KernelSpec as RuntimeKernelSpec
    from layoutc.runtime.artifact import MANIFEST, ArtifactKernel, Variant, write_artifact

    from .aot import _write

    by_name: dict[str, list[JobResult]] = {}
    for r in results:
        by_name.setdefault(r.name, []).append(r)
    files: list[Path] = []
    entries = []
    for name in sorted(by_name):
        group = by_name[name]
        sources = {r.job.where for r in group}
        targets = [r.job.target for r in group]
        if len(sources) > 1 or len(set(targets)) < len(targets):
            raise LibraryError(
                f"two kernels named '{name}' in one library ({', '.join(sorted(sources))}): "
                "give the variants names (name = ...)"
            )
        first = group[0]
        for r in group[1:]:
            if r.runtime_spec != first.runtime_spec:
                raise CompileError(
                    f"kernel '{name}': its ABI differs between targets ({first.job.target} and "
                    f"{r.job.target})"
                )
        files.append(_put(out / f"{name}.mlir", first.input_mlir.encode(), _write))
        variants = []
        for r in group:
            arch = resolve_arch(r.job.target)
            files.append(_put(out / f"{name}.{arch}.llvm.mlir", r.final_mlir.encode(), _write))
            files.append(_put(out / f"{name}.{arch}.ll", r.llvm_ir.encode(), _write))
            isa = tuple(int(x) for x in r.ptx_isa.split(".")) if r.ptx_isa else None
            variants.append(Variant(arch, ptx=r.ptx, cubin=r.cubin, ptx_isa=isa))
            for kind, data in (("ptx", r.ptx), ("cubin", r.cubin)):
                if data is not None:
                    files.append(out / f"{name}.{arch}.{kind}")
        spec = RuntimeKernelSpec.from_json(first.runtime_spec)
        entries.append(ArtifactKernel(spec, tuple(variants)))
    try:
        write_artifact(out, entries, producer=f"layoutc {__version__}")
    except OSError as e:
        raise CompileError(f"cannot write the artifact {out}: {e.strerror or e}") from None
    files.append(out / MANIFEST)
    return files


def resolve_arch(target: str) -> str:
    from .targets import resolve_target

    return resolve_target(target).name


def _put(path: Path, data: bytes, write: Callable[[Path, bytes], None]) -> Path:
    write(path, data)
    return path
