"""``layoutc-opt``: parse MLIR text, run a pass pipeline, print the result (like ``mlir-opt``).

::

    layoutc-opt FILE|- [-p PIPELINE] [-o OUT] [--print-generic] [--print-debuginfo]
                [--print-ir-before=P] [--print-ir-after=P] [--print-ir-before-all]
                [--print-ir-after-all] [--print-ir-after-change] [--print-ir-after-failure]
                [--print-ir-module-scope] [--timing] [--pass-statistics] [--split-input-file]
                [--verify-diagnostics] [--no-verify] [--list-passes]
                [--allow-unregistered-dialect] [--run-reproducer] [--crash-reproducer=FILE]
                [--canonicalize --cse ...]

Exit status: 0 on success, 1 when the input, the pipeline or a pass fails (with
``file:line:col: error:`` diagnostics on stderr), 2 for a bad command line. Diagnostics,
IR dumps and reports go to stderr; the resulting IR to stdout (or ``-o``). Only the IR core and
the pass manager are imported: no SymPy, no llvmlite.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import traceback
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, TextIO

if TYPE_CHECKING:
    from layoutc.ir.core.context import Context
    from layoutc.passes.manager import PassManager
    from layoutc.passes.timing import Timer

PROG = "layoutc-opt"
SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^[ \t]*// -----")


class _UsageError(Exception):
    """A bad command line (exit status 2)."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that writes to the streams given to main() and raises on errors."""

    out: TextIO | None = None

    def _print_message(self, message: str, file: TextIO | None = None) -> None:
        if message:
            (self.out or sys.stdout).write(message)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def build_arg_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(
        prog=PROG,
        description="Run layoutc pass pipelines on MLIR text (like mlir-opt).",
        allow_abbrev=False,
        epilog="Every registered pass is also a flag: --canonicalize, --cse, "
        "--canonicalize='max-iterations=5' (see --list-passes).",
    )
    p.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    p.add_argument("-o", dest="output", default="-", help="output file ('-' for stdout)")
    p.add_argument(
        "-p", "--pass-pipeline", dest="pipeline", help="textual pipeline: builtin.module(...)"
    )
    # mlir-opt's spellings are accepted too, so scripts written for MLIR tools work unchanged.
    p.add_argument(
        "--print-generic",
        "--mlir-print-op-generic",
        action="store_true",
        help="print ops in the generic form",
    )
    p.add_argument(
        "--print-debuginfo",
        "--mlir-print-debuginfo",
        action="store_true",
        help="print locations (loc(...)) of ops",
    )
    p.add_argument(
        "--print-ir-before",
        action="append",
        default=[],
        metavar="PASSES",
        help="print the IR before these passes (comma-separated arguments)",
    )
    p.add_argument(
        "--print-ir-after",
        action="append",
        default=[],
        metavar="PASSES",
        help="print the IR after these passes (comma-separated arguments)",
    )
    p.add_argument("--print-ir-before-all", action="store_true")
    p.add_argument("--print-ir-after-all", action="store_true")
    p.add_argument(
        "--print-ir-after-change",
        action="store_true",
        help="print the IR after a pass only if it changed (implies "
        "--print-ir-after-all unless --print-ir-after is given)",
    )
    p.add_argument(
        "--print-ir-after-failure",
        action="store_true",
        help="print the IR after a pass that failed",
    )
    p.add_argument(
        "--print-ir-module-scope",
        action="store_true",
        help="print the whole top-level op, not only the op the pass ran on",
    )
    p.add_argument(
        "--timing",
        "--mlir-timing",
        action="store_true",
        help="report wall time per pass (stderr)",
    )
    p.add_argument(
        "--timing-display", "--mlir-timing-display", choices=("tree", "list"), default="tree"
    )
    p.add_argument(
        "--pass-statistics",
        "--mlir-pass-statistics",
        action="store_true",
        help="report pass statistics",
    )
    p.add_argument(
        "--split-input-file",
        action="store_true",
        help=f"process each '{SPLIT_MARKER}'-separated chunk on its own",
    )
    p.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check diagnostics against expected-* annotations in the input",
    )
    p.add_argument("--no-verify", action="store_true", help="do not verify after each pass")
    p.add_argument("--list-passes", action="store_true", help="list registered passes and exit")
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accept ops of unknown dialects (generic form)",
    )
    p.add_argument(
        "--run-reproducer",
        action="store_true",
        help="run the pipeline recorded in the input's {-# mlir_reproducer #-} block",
    )
    p.add_argument(
        "--crash-reproducer",
        "--mlir-pass-pipeline-crash-reproducer",
        metavar="FILE",
        help="write a reproducer here when a pass fails or crashes",
    )
    p.add_argument(
        "--dump-pass-pipeline",
        action="store_true",
        help="print the pipeline to stderr before running it",
    )
    return p


@dataclass
class _Options:
    args: argparse.Namespace
    pipeline: str | None
    buffer_name: str
    stdout: TextIO
    stderr: TextIO
    gc_enabled: bool = True  # the collector's state when main() was called


# -- per-pass flags ---------------------------------------------------------------------------------


def _pipeline_from_flags(flags: list[str]) -> str:
    """``--canonicalize --cse='x'`` -> ``canonicalize,cse{x}`` (op-specific passes nested)."""
    from layoutc.passes.registry import lookup_pass, lookup_pipeline

    elements = []
    for flag in flags:
        if not flag.startswith("--") or len(flag) < 3:
            raise _UsageError(f"unrecognized argument '{flag}'")
        name, eq, options = flag[2:].partition("=")
        cls = lookup_pass(name)
        if cls is None:
            if lookup_pipeline(name) is not None and not eq:
                elements.append(name)
                continue
            raise _UsageError(
                f"unrecognized argument '{flag}' (not an option nor a registered pass; "
                "see --list-passes)"
            )
        element = f"{name}{{{options}}}" if eq else name
        if cls.anchor is not None and cls.anchor != "builtin.module":
            element = f"{cls.anchor}({element})"
        elements.append(element)
    return ",".join(elements)


def _list_passes(out: TextIO) -> None:
    from layoutc.passes.registry import registered_passes, registered_pipelines

    out.write("Available passes:\n")
    for cls in registered_passes():
        anchor = f" (on {cls.anchor})" if cls.anchor else ""
        out.write(f"  --{cls.argument:<24} {cls.summary}{anchor}\n")
        for opt in cls.options():
            default = opt.format(opt.default)
            spelled = f"--{opt.name}=<{opt.type_name}>"
            out.write(f"      {spelled:<34} {opt.help} (default: {default or 'none'})\n")
    pipelines = registered_pipelines()
    if pipelines:
        out.write("Available pipelines:\n")
        for reg in pipelines:
            out.write(f"  --{reg.name:<24} {reg.summary} [{reg.text}]\n")


# -- input --------------------------------------------------------------------------------------------


def _read_input(path: str, stdin: TextIO | None) -> str:
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _InputError(f"could not open input file '{path}': {e.strerror or e}") from None
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise _InputError(
            f"input is not valid UTF-8: byte 0x{data[e.start]:02x} on line {line}"
        ) from None


class _InputError(Exception):
    """The input cannot be read (exit status 1)."""


def split_chunks(text: str) -> list[tuple[str, int]]:
    """``// -----``-separated chunks with the number of lines that precede each."""
    lines = text.split("\n")
    chunks: list[tuple[str, int]] = []
    start = 0
    for i, line in enumerate(lines):
        if _SPLIT_LINE.match(line):
            chunks.append(("\n".join(lines[start:i]), start))
            start = i + 1
    chunks.append(("\n".join(lines[start:]), start))
    return chunks


# -- one chunk ------------------------------------------------------------------------------------------


def _phase(timer: Timer | None, key: str, name: str) -> AbstractContextManager[object]:
    """Time a tool phase (Parser, Output) when --timing is on."""
    return timer.child(key, name) if timer is not None else nullcontext()


def _process_chunk(
    opts: _Options, text: str, line_offset: int, timer: Timer | None
) -> tuple[bool, str | None]:
    """Parse, verify, run the pipeline and print one buffer; (success, output text)."""
    from layoutc.ir.core.context import Context
    from layoutc.ir.core.diagnostics import DiagnosticEngine

    args = opts.args
    engine = DiagnosticEngine(stream=opts.stderr)
    ctx = Context(allow_unregistered=args.allow_unregistered_dialect, diagnostics=engine)
    if not args.verify_diagnostics:
        return _run_chunk(opts, ctx, text, line_offset, timer)
    from .expected_diagnostics import ExpectedDiagnostics

    expected = ExpectedDiagnostics(text, opts.buffer_name, line_offset)
    with engine.handler(expected.handle):
        _, output = _run_chunk(opts, ctx, text, line_offset, timer)
    problems = expected.finish()
    for d in problems:
        engine.emit(d)
    return not problems, output


def _run_chunk(
    opts: _Options, ctx: Context, text: str, line_offset: int, timer: Timer | None
) -> tuple[bool, str | None]:
    from layoutc.ir.core.parser import parse_source
    from layoutc.ir.core.verifier import verify_op

    args = opts.args
    with _phase(timer, "parser", "Parser"):
        module = parse_source(text, ctx, buffer_name=opts.buffer_name, line_offset=line_offset)
        problems = verify_op(module) if module is not None else []
    _freeze_heap(opts)
    for d in problems:
        ctx.diagnostics.emit(d)
    if module is None or problems:
        return False, None
    if opts.pipeline:
        pm = _make_pass_manager(opts, ctx, timer)
        if pm is None:
            return False, None
        pm.reproducer_input = _reproducer_text(text, line_offset)
        if not pm.run(module):
            return False, None
        if args.pass_statistics:
            from layoutc.passes.statistics import format_statistics_report

            opts.stderr.write(format_statistics_report(pm))
    with _phase(timer, "output", "Output"):
        output = module.to_text(generic=args.print_generic, debug_info=args.print_debuginfo)
    return True, output


def _freeze_heap(opts: _Options) -> None:
    """Move everything allocated so far (imported modules, the parsed IR) out of the cyclic
    garbage collector's reach, then let it run again.

    ``_run_main`` pauses the collector: start-up and parsing allocate long-lived reference
    cycles only (dialect and pass modules, op classes, the IR), and every collection would
    traverse them again, a tenth of a short run's time. Garbage that passes make is still
    collected; ``_run_main`` unfreezes the heap at the end of each input chunk.
    """
    gc.freeze()
    if opts.gc_enabled:
        gc.enable()


def _reproducer_text(text: str, line_offset: int) -> str:
    # Keep the original line numbers so that replayed diagnostics point at the same lines.
    return "\n" * line_offset + text


def _make_pass_manager(opts: _Options, ctx: Context, timer: Timer | None) -> PassManager | None:
    from layoutc.passes.manager import PassManager, PipelineError

    args = opts.args
    try:
        pm = PassManager.parse(opts.pipeline or "", ctx, verify=not args.no_verify)
    except PipelineError as e:
        e.emit(ctx.diagnostics)
        return None
    if args.dump_pass_pipeline:
        opts.stderr.write(pm.pipeline_text() + "\n")
    _add_ir_printing(opts, pm)
    if timer is not None:
        from layoutc.passes.timing import TimingInstrumentation

        pm.add_instrumentation(TimingInstrumentation(timer))
    pm.enable_crash_reproducer(args.crash_reproducer, on_failure=args.crash_reproducer is not None)
    return pm


def _add_ir_printing(opts: _Options, pm: PassManager) -> None:
    args = opts.args
    before_names = [n.strip() for v in args.print_ir_before for n in v.split(",") if n.strip()]
    after_names = [n.strip() for v in args.print_ir_after for n in v.split(",") if n.strip()]
    after_all = args.print_ir_after_all or (
        (args.print_ir_after_change or args.print_ir_after_failure) and not after_names
    )
    if not (before_names or after_names or args.print_ir_before_all or after_all):
        return
    from layoutc.passes.ir_printing import IRPrinting, select_passes

    pm.add_instrumentation(
        IRPrinting(
            select_passes(before_names, args.print_ir_before_all),
            select_passes(after_names, after_all),
            only_after_change=args.print_ir_after_change,
            only_after_failure=args.print_ir_after_failure
            and not (args.print_ir_after_all or after_names or args.print_ir_after_change),
            module_scope=args.print_ir_module_scope,
            generic=args.print_generic,
            debug_info=args.print_debuginfo,
            stream=opts.stderr,
        )
    )


# -- driver ----------------------------------------------------------------------------------------------


class _MetadataError(Exception):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


def _apply_reproducer(args: argparse.Namespace, text: str, pipeline: str) -> tuple[str, str]:
    """Strip the trailing ``{-# ... #-}`` block; with --run-reproducer, adopt its settings."""
    from layoutc.passes.reproducer import ReproducerError, reproducer_config, split_metadata

    try:
        ir, metadata, at = split_metadata(text)
        if metadata is None:
            if args.run_reproducer:
                raise ReproducerError("the input has no {-# ... #-} reproducer block", len(text))
            return text, pipeline
        config = reproducer_config(metadata, at)
    except ReproducerError as e:
        if not args.run_reproducer:
            return text, pipeline  # not a reproducer block: the parser decides
        raise _MetadataError(e.message, text[: e.offset].count("\n") + 1) from None
    if not args.run_reproducer:
        return ir, pipeline  # a reproducer read as plain input: run the given pipeline
    if pipeline:
        raise _UsageError("--run-reproducer takes its pipeline from the input file")
    args.no_verify = args.no_verify or not config.verify_each
    args.allow_unregistered_dialect = (
        args.allow_unregistered_dialect or config.allow_unregistered_dialect
    )
    return ir, config.pipeline


def _check_pipeline(opts: _Options) -> bool:
    """Report a bad pipeline once, before any input is processed."""
    from layoutc.ir.core.diagnostics import DiagnosticEngine
    from layoutc.passes.manager import PassManager, PipelineError

    if not opts.pipeline:
        return True
    engine = DiagnosticEngine(stream=opts.stderr)
    try:
        from layoutc.ir.core.context import Context

        PassManager.parse(opts.pipeline, Context(diagnostics=engine))
    except PipelineError as e:
        e.emit(engine)
        return False
    return True


def _run_main(
    argv: Sequence[str] | None, stdin: TextIO | None, stdout: TextIO, stderr: TextIO
) -> int:
    gc_enabled = gc.isenabled()
    gc.disable()  # start-up allocates long-lived objects only (see _freeze_heap)
    try:
        return _run_args(argv, stdin, stdout, stderr, gc_enabled)
    finally:
        if gc_enabled:
            gc.enable()


def _run_args(
    argv: Sequence[str] | None,
    stdin: TextIO | None,
    stdout: TextIO,
    stderr: TextIO,
    gc_enabled: bool,
) -> int:
    parser = build_arg_parser()
    parser.out = stdout  # type: ignore[attr-defined]
    args, extra = parser.parse_known_args(argv)
    if args.list_passes:
        _list_passes(stdout)
        return 0
    flag_pipeline = _pipeline_from_flags(extra) if extra else ""
    if args.pipeline is not None and flag_pipeline:
        raise _UsageError("'--pass-pipeline' cannot be combined with individual pass flags")
    pipeline = args.pipeline if args.pipeline is not None else flag_pipeline
    text = _read_input(args.input, stdin)
    buffer_name = "<stdin>" if args.input == "-" else args.input

    if args.run_reproducer or "{-#" in text:
        try:
            text, pipeline = _apply_reproducer(args, text, pipeline)
        except _MetadataError as e:
            stderr.write(f"{buffer_name}:{e.line}:1: error: {e}\n")
            return 1

    opts = _Options(args, pipeline or None, buffer_name, stdout, stderr, gc_enabled)
    if not _check_pipeline(opts):
        return 1

    from layoutc.passes.timing import Timer, format_timing_report

    root = Timer("root") if args.timing else None
    if root is not None:
        root.start()
    chunks = split_chunks(text) if args.split_input_file else [(text, 0)]
    ok = True
    outputs: list[str] = []
    for chunk, offset in chunks:
        gc.disable()  # until the chunk is parsed (_freeze_heap)
        try:
            chunk_ok, out = _process_chunk(opts, chunk, offset, root)
        finally:
            gc.unfreeze()
            if gc_enabled:
                gc.enable()
        ok = ok and chunk_ok
        outputs.append(out if out is not None else "")
    result = f"\n{SPLIT_MARKER}\n".join(o for o in outputs)
    if any(outputs):
        _write_output(args.output, result + "\n", stdout)
    if root is not None:
        root.stop()
        stderr.write(format_timing_report(root, display=args.timing_display))
    return 0 if ok else 1


def _write_output(path: str, text: str, stdout: TextIO) -> None:
    if path == "-":
        stdout.write(text)
        stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise _InputError(f"could not write output file '{path}': {e.strerror or e}") from None


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Entry point of the console script; returns the exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        from layoutc.ir.core.limits import with_deep_stack

        return with_deep_stack(_run_main, argv, stdin, out, err)
    except _UsageError as e:
        err.write(f"{PROG}: error: {e}\n")
        return 2
    except _InputError as e:
        err.write(f"{PROG}: error: {e}\n")
        return 1
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else 2
    except KeyboardInterrupt:
        err.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as e:  # a bug in layoutc: one line, the traceback only on request
        err.write(f"{PROG}: internal error: {type(e).__name__}: {e}\n")
        if os.environ.get("LAYOUTC_DEBUG"):
            traceback.print_exc(file=err)
        else:
            err.write(f"{PROG}: set LAYOUTC_DEBUG=1 to see the traceback\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
