"""``layoutc run FILE.py``: run an example program on the GPU if there is one, else on the CPU,
check it against numpy and report what ran where and how fast.

The file follows the example convention (``EXAMPLE = layoutc.Example(...)``; docs/driver.md).
Exit status: 0 when every example matched numpy, 1 when one did not or could not run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .compile_cmd import report_error
from .main import UsageError


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run an example program (GPU if present, else CPU), check it against numpy, time it",
        description="Run the examples of FILE.py (EXAMPLE = layoutc.Example(...)) on the GPU if "
        "there is one, else on the CPU; check the results against numpy and report the target, "
        "backend, proven vector width, compile time, run time and bandwidth.",
    )
    p.add_argument("file", metavar="FILE.py", help="an example program")
    p.add_argument(
        "--target", metavar="TARGET", help="cpu, cuda or a GPU architecture (default: GPU if any)"
    )
    p.add_argument("--size", type=int, metavar="N", help="problem size (default: the example's)")
    p.add_argument("--repeat", type=int, metavar="R", help="timed launches after the checked one")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--no-check", action="store_true", help="skip the comparison with numpy")
    p.add_argument("--example", metavar="NAME", help="run only the example with this name")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import SourceError, load_source
    from layoutc.driver.run_example import format_result, run_example
    from layoutc.driver.targets import TargetError
    from layoutc.frontend.errors import CompileError
    from layoutc.frontend.spec import SpecError
    from layoutc.runtime.errors import RuntimeErrorBase

    if args.size is not None and args.size <= 0:
        raise UsageError(f"--size must be positive, got {args.size}")
    if args.repeat is not None and args.repeat < 0:
        raise UsageError(f"--repeat must be 0 or more, got {args.repeat}")
    try:
        module = load_source(args.file)
        examples = find_examples(vars(module), args.file)
    except (SourceError, LookupError, TypeError) as e:
        return report_error(e)
    if args.example is not None:
        examples = [e for e in examples if e.title == args.example]
        if not examples:
            raise UsageError(f"{args.file} has no example named {args.example!r}")
    status = 0
    for i, example in enumerate(examples):
        if i:
            print()
        try:
            result = run_example(
                example,
                target=args.target,
                size=args.size,
                repeat=args.repeat,
                seed=args.seed,
                check=not args.no_check,
            )
        except (CompileError, SpecError, TargetError, RuntimeErrorBase) as e:
            print(f"example   {example.title}: could not run", file=sys.stdout)
            report_error(e)
            status = 1
            continue
        print(format_result(result))
        sys.stdout.flush()
        if not result.ok:
            status = 1
    return status
