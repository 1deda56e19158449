"""``layoutc compile FILE.py::kernel --target sm_90 [--spec ARG=SPEC ...] -o DIR``: AOT builds.

Writes an artifact directory (compiler/driver/aot.py): ``manifest.json``, PTX and cubin per
architecture, the input and final IR and the NVVM IR. Specs give what the kernel may assume
about each argument (compiler/driver/argspecs.py, docs/driver.md)::

    --spec "src=f32[(N):(1)],align=16"   --spec "n=i32,div=4"   --spec "tile=128"
    --assume "N%16==0"

A parameter without ``--spec`` takes its annotation (``lc.Tensor[lc.f32, "(N):(1)"]``, a scalar
element type) or its default value. Tensors are assumed 16-byte aligned unless ``align=`` says
otherwise, layout symbols only non-negative unless ``--assume`` says more; the manifest states
these facts, the summary line prints them, and the runtime refuses launches that break them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .main import PROG, UsageError


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compile",
        help="compile kernels ahead of time into an artifact directory (PTX, cubin, manifest)",
        description="Compile @layoutc.kernel functions for one or more GPU architectures into a "
        "directory that layoutc.runtime.load() reads with only cuda-bindings installed.",
    )
    p.add_argument("kernels", nargs="*", metavar="FILE.py::KERNEL", help="kernel(s) to compile")
    p.add_argument(
        "--manifest",
        metavar="FILE",
        help="build the library a manifest lists (kernels x specs x targets; .toml or .json, "
        "docs/driver.md) instead of FILE.py::KERNEL references",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="with --manifest: build on N local processes (default: the local cores; 1: in "
        "this process)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="with --manifest: build on the Ray cluster at ADDRESS ('auto', 'ray://host:10001') "
        "or on a Ray started for this run ('local'); needs pip install 'layoutc[ray]'",
    )
    p.add_argument(
        "--target",
        action="append",
        metavar="ARCH",
        help="GPU architecture (sm_80, sm_86, sm_89, sm_90, sm_90a); repeat for several "
        "(default: the current GPU's)",
    )
    p.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="ARG=SPEC",
        help="what argument ARG is: 'src=f32[(N):(1)],align=16', 'n=i32,div=4', 'tile=128'",
    )
    p.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="COND",
        help="a fact about a layout symbol: 'N%%16==0', 'N>=1' or 'N:div=16,min=1'",
    )
    p.add_argument("--block", metavar="X[,Y[,Z]]", help="the static block shape, e.g. 128 or 16,16")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="artifact directory")
    p.add_argument(
        "--emit-c",
        metavar="DIR",
        help="also write a C header and source into DIR that embed the cubins and launch the "
        "kernels through the CUDA driver API (docs/embedding.md)",
    )
    p.add_argument(
        "--c-prefix",
        default="layoutc",
        metavar="NAME",
        help="prefix of the C file and function names (default: layoutc)",
    )
    _add_codegen_options(p)
    p.set_defaults(handler=run)


def _add_codegen_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--opt-level", type=int, default=3, choices=range(4), metavar="N")
    p.add_argument("--ptx-backend", default="auto", choices=("auto", "libnvvm", "llvm"))
    p.add_argument("--cubin", default="auto", choices=("auto", "always", "never"))
    p.add_argument("--pipeline", metavar="PIPELINE", help="replace the default pass pipeline")
    p.add_argument(
        "--check-bounds",
        action="store_true",
        default=None,
        help="compile the bounds check into the kernels (docs/runtime.md); default: "
        "LAYOUTC_CHECK_BOUNDS",
    )
    p.add_argument("--dump-dir", metavar="DIR", help="write the IR after every pass here")
    p.add_argument(
        "--print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)"
    )
    p.add_argument("--remarks", action="store_true", help="print optimisation remarks (stderr)")


def parse_block(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    parts = text.replace("x", ",").split(",")
    try:
        dims = tuple(int(p) for p in parts if p.strip())
    except ValueError:
        raise UsageError(f"--block {text!r}: expected 1 to 3 integers, e.g. 128 or 16,16") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise UsageError(f"--block {text!r}: expected 1 to 3 positive integers")
    return dims


def parse_spec_items(items: list[str]) -> dict[str, str]:
    """``["src=f32[(N):(1)]", ...]`` -> ``{"src": "f32[(N):(1)]"}``."""
    out: dict[str, str] = {}
    for item in items:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier():
            raise UsageError(f"--spec {item!r}: expected ARG=SPEC, e.g. 'src=f32[(N):(1)]'")
        if name in out:
            raise UsageError(f"--spec: argument '{name}' is given twice")
        out[name] = text.strip()
    return out


def kernel_arguments(kernel: Any, specs: dict[str, str]) -> dict[str, Any]:
    """The argument (an ArgSpec or a default value) of every parameter of ``kernel``."""
    import inspect

    from layoutc.driver.argspecs import ArgSpec, parse_arg_spec
    from layoutc.frontend.annotations import ConstexprAnnotation, TensorAnnotation, normalize
    from layoutc.frontend.dtypes import ElementType

    params = kernel.signature.parameters
    unknown = sorted(set(specs) - set(params))
    if unknown:
        raise UsageError(
            f"--spec names {', '.join(unknown)}, which kernel '{kernel.name}' does not take "
            f"(its parameters: {', '.join(params)})"
        )
    out: dict[str, Any] = {}
    for name, param in params.items():
        if name in specs:
            out[name] = parse_arg_spec(specs[name])
            continue
        ann = normalize(kernel.annotations.get(name, inspect.Parameter.empty))
        if isinstance(ann, TensorAnnotation) and ann.layout is not None and ann.dtype is not None:
            out[name] = ArgSpec("tensor")
        elif isinstance(ann, ElementType):
            out[name] = ArgSpec("scalar", dtype=ann.name)
        elif param.default is not inspect.Parameter.empty:
            out[name] = param.default
        else:
            hint = "f32[(N):(1)]" if isinstance(ann, TensorAnnotation) else "i32"
            if isinstance(ann, ConstexprAnnotation):
                hint = "VALUE"
            raise UsageError(
                f"kernel '{kernel.name}': give argument '{name}' with --spec {name}={hint}"
            )
    return out


def _options(args: argparse.Namespace) -> Any:
    from layoutc.driver.options import CompileOptions

    try:
        return CompileOptions(
            opt_level=args.opt_level,
            ptx_backend=args.ptx_backend,
            cubin=args.cubin,
            pipeline=args.pipeline,
            check_bounds=args.check_bounds,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def _output(args: argparse.Namespace) -> Any:
    from layoutc.driver.options import OutputOptions

    return OutputOptions.from_environment(
        args.dump_dir,
        print_ir_after_all=True if args.print_ir_after_all else None,
        print_remarks=True if args.remarks else None,
    )


def report_error(e: Exception) -> int:
    """Print a failure in full (diagnostics keep their source excerpt); exit status 1.

    A CompileError is printed as the diagnostic it is (``file:line:col: error: ...``); other
    errors get the ``layoutc: error:`` prefix on their first line.
    """
    from layoutc.frontend.errors import CompileError

    text = str(e).rstrip()
    if not isinstance(e, CompileError) and not getattr(e, "diagnostic", False):
        text = f"{PROG}: error: {text}"
    print(text, file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    from layoutc.driver.aot import build_artifact
    from layoutc.driver.argspecs import build_spec
    from layoutc.driver.loading import SourceError, find_kernel, load_source, split_reference
    from layoutc.driver.remarks import print_remarks
    from layoutc.driver.targets import TargetError, resolve_target
    from layoutc.frontend.errors import CompileError
    from layoutc.frontend.spec import SpecError

    if args.manifest is not None:
        return run_library(args)
    if args.jobs is not None or args.ray is not None:
        raise UsageError("-j and --ray build a library: give them with --manifest FILE")
    if not args.kernels:
        raise UsageError("give FILE.py::KERNEL reference(s) or --manifest FILE")
    specs = parse_spec_items(args.spec)
    block = parse_block(args.block)
    options = _options(args)
    output = _output(args)
    try:
        targets = [resolve_target(t) for t in (args.target or ["cuda"])]
        kernels = []
        for ref in args.kernels:
            path, name = split_reference(ref)
            if name is None:
                raise UsageError(f"{ref!r}: name the kernel, e.g. {ref}::my_kernel")
            kernel = find_kernel(load_source(path), name, path)
            kwargs = kernel_arguments(kernel, specs)
            kernels.append((kernel, build_spec(kernel, (), kwargs, block, args.assume)))
        result = build_artifact(args.output, kernels, targets, options, output)
    except (SourceError, SpecError, TargetError, CompileError) as e:
        return report_error(e)
    for item in result.kernels:
        for arch, products in item.products.items():
            widths = products.vector_bits
            vec = f", copies {'/'.join(map(str, widths))}-bit" if widths else ""
            payload = "cubin+ptx" if products.cubin is not None else "ptx"
            facts = products.runtime_spec.describe_facts()
            assumes = f"; assumes {', '.join(facts)}" if facts else "; assumes nothing"
            print(f"{item.name} [{arch}]: {payload} (PTX ISA {products.ptx_isa}){vec}{assumes}")
            if output.print_remarks:
                print_remarks(products.remarks, f"{item.name} [{arch}]")
    print(f"wrote {len(result.files)} files to {result.directory}")
    if args.emit_c is not None:
        from layoutc.driver.emit_c import EmitCError, c_kernels_from_artifact, emit_c

        try:
            header, source = emit_c(
                c_kernels_from_artifact(result.directory), args.emit_c, args.c_prefix
            )
        except EmitCError as e:
            return report_error(e)
        print(f"wrote {header} and {source}")
    return 0


def run_library(args: argparse.Namespace) -> int:
    """``layoutc compile --manifest FILE -o DIR [-j N | --ray ADDRESS]``."""
    from pathlib import Path

    from layoutc.driver.library import (
        LibraryError,
        build_library,
        jobs_from_manifest,
        read_manifest,
        resolve_arch,
    )
    from layoutc.frontend.errors import CompileError

    if args.kernels or args.spec or args.assume or args.block:
        raise UsageError(
            "--manifest names the kernels, their specs and blocks: leave out FILE.py::KERNEL, "
            "--spec, --assume and --block"
        )
    if args.emit_c or args.dump_dir or args.print_ir_after_all:
        raise UsageError("--emit-c, --dump-dir and --print-ir-after-all apply to FILE.py::KERNEL")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j {args.jobs}: expected a positive number of processes")
    defaults = {
        "opt_level": args.opt_level,
        "ptx_backend": args.ptx_backend,
        "cubin": args.cubin,
    }
    if args.pipeline is not None:
        defaults["pipeline"] = args.pipeline
    if args.check_bounds is not None:
        defaults["check_bounds"] = args.check_bounds
    try:
        manifest = read_manifest(args.manifest)
        jobs = jobs_from_manifest(
            manifest, Path(args.manifest).parent, args.manifest, args.target, defaults
        )
        result = build_library(args.output, jobs, workers=args.jobs, ray=args.ray)
    except (CompileError, LibraryError) as e:
        return report_error(e)
    from layoutc.driver.remarks import Remark, print_remarks

    for r in sorted(result.results, key=lambda r: (r.name, r.job.target)):
        widths = r.vector_bits
        vec = f", copies {'/'.join(map(str, widths))}-bit" if widths else ""
        payload = "cubin+ptx" if r.cubin is not None else "ptx"
        assumes = f"; assumes {', '.join(r.facts)}" if r.facts else "; assumes nothing"
        arch = resolve_arch(r.job.target)
        print(f"{r.name} [{arch}]: {payload} (PTX ISA {r.ptx_isa}){vec}{assumes}")
        if args.remarks:
            print_remarks([Remark.from_json(m) for m in r.remarks], f"{r.name} [{arch}]")
    kernels = len({r.name for r in result.results})
    print(f"wrote {len(result.files)} files ({kernels} kernels) to {result.directory}")
    return 0
