"""The `layoutc` command line.

Subcommands are registered in `SUBCOMMANDS` (name -> function that adds its parser); each
parser sets `handler`, a function taking the parsed arguments and returning the exit status.
Other commands (`compile`, `run`) add themselves there. Imports of the compiler are done inside
the handlers so that `layoutc --help` starts instantly.

Exit status: 0 success, 1 an error in what was asked (e.g. an inadmissible layout operation),
2 a usage or syntax error. Errors are one line: `layoutc: error: ...`, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

PROG = "layoutc"


class UsageError(Exception):
    """A bad command line or a syntax error in an argument (exit status 2)."""


class CommandError(Exception):
    """A well-formed request that cannot be carried out (exit status 1)."""


def error(message: str, status: int) -> int:
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    print(f"{PROG}: error: {first}", file=sys.stderr)
    return status


# ----------------------------------------------------------------------------------------------
# Symbols and assumptions (--assume)
# ----------------------------------------------------------------------------------------------


def parse_assumptions(items: Sequence[str]) -> dict[str, dict[str, int]]:
    """`N%4==0`, `N>=8`, `N<=1024`, `N>8`, `N<9` or `N:div=4,min=8,max=1024` -> per-name options."""
    import math
    import re

    out: dict[str, dict[str, int]] = {}
    for item in items:
        for part in (p.strip() for p in item.split(";")):
            if not part:
                continue
            text = part.replace(" ", "")
            m = re.fullmatch(r"([A-Za-z_]\w*)%(\d+)==0", text)
            if m:
                name, k = m.group(1), int(m.group(2))
                opts = out.setdefault(name, {})
                if k <= 0:
                    raise UsageError(f"--assume {part!r}: the divisor must be positive")
                opts["divisible_by"] = math.lcm(opts.get("divisible_by", 1), k)
                continue
            m = re.fullmatch(r"([A-Za-z_]\w*)(>=|<=|>|<|==)(-?\d+)", text)
            if m:
                name, op, v = m.group(1), m.group(2), int(m.group(3))
                opts = out.setdefault(name, {})
                if op in (">=", ">"):
                    lo = v if op == ">=" else v + 1
                    opts["lower"] = max(opts.get("lower", lo), lo)
                elif op in ("<=", "<"):
                    hi = v if op == "<=" else v - 1
                    opts["upper"] = min(opts.get("upper", hi), hi)
                else:
                    opts["lower"] = opts["upper"] = v
                continue
            m = re.fullmatch(r"([A-Za-z_]\w*):(.+)", text)
            if m:
                name = m.group(1)
                opts = out.setdefault(name, {})
                for kv in m.group(2).split(","):
                    key, _, val = kv.partition("=")
                    key = {
                        "div": "divisible_by",
                        "divisible_by": "divisible_by",
                        "min": "lower",
                        "lower": "lower",
                        "max": "upper",
                        "upper": "upper",
                    }.get(key)
                    if key is None or not re.fullmatch(r"-?\d+", val):
                        raise UsageError(f"--assume {part!r}: expected NAME:div=K,min=L,max=U")
                    value = int(val)
                    if key == "divisible_by":
                        if value <= 0:
                            raise UsageError(f"--assume {part!r}: the divisor must be positive")
                        opts[key] = math.lcm(opts.get(key, 1), value)
                    else:
                        opts[key] = value
                continue
            raise UsageError(
                f"--assume {part!r}: expected e.g. 'N%4==0', 'N>=8', 'N<=1024' or 'N:div=4,min=8'"
            )
    for name, opts in out.items():
        lo, hi = opts.get("lower"), opts.get("upper")
        if lo is not None and hi is not None and lo > hi:
            raise UsageError(f"--assume: the assumptions on {name} are contradictory ({lo} > {hi})")
    return out


def describe_assumptions(name: str, symbol: Any) -> str:
    """`N>=4, N%4==0`: the assumptions of a symbol as the symbolic engine normalized them."""
    lo = getattr(symbol, "lower", None)
    hi = getattr(symbol, "upper", None)
    div = getattr(symbol, "divisible_by", 1)
    parts = []
    if lo is not None and lo == hi:
        parts.append(f"{name}=={lo}")
    else:
        if lo is not None:
            parts.append(f"{name}>={lo}")
        if hi is not None:
            parts.append(f"{name}<={hi}")
    if div > 1:
        parts.append(f"{name}%{div}==0")
    return ", ".join(parts) if parts else f"{name} any integer"


def symbol_factory(assumptions: dict[str, dict[str, int]]) -> Callable[[str], Any]:
    def make(name: str) -> Any:
        try:
            from layoutc.ir.algebra.symbolic import Symbol
        except ImportError:
            raise CommandError(
                f"the symbol {name!r} needs the symbolic engine, which is not available"
            ) from None
        opts = dict(assumptions.get(name, {}))
        try:
            return Symbol(name, **opts)
        except (TypeError, ValueError) as e:
            raise UsageError(f"--assume for {name}: {e}") from None

    return make


def _calculator(args: argparse.Namespace) -> Any:
    from layoutc.ir.algebra.calc import Calculator

    return Calculator(symbol_factory(parse_assumptions(args.assume or [])))


def _evaluate(calc: Any, text: str) -> Any:
    from layoutc.ir.algebra.calc import CalcError
    from layoutc.ir.algebra.errors import LayoutError, LayoutParseError

    try:
        return calc.evaluate(text)
    except CalcError as e:
        msg = f"at position {e.pos}: {e}"
        raise (UsageError(msg) if e.syntax else CommandError(msg)) from None
    except LayoutParseError as e:
        raise UsageError(
            f"at position {e.pos}: {e.args[0].splitlines()[0].rsplit(' at position', 1)[0]}"
        ) from None
    except LayoutError as e:
        raise CommandError(str(e)) from None


# ----------------------------------------------------------------------------------------------
# layoutc algebra
# ----------------------------------------------------------------------------------------------


def _add_algebra(sub: Any) -> None:
    p = sub.add_parser(
        "algebra",
        help="evaluate layout-algebra expressions in CuTe notation",
        description="Evaluate layout-algebra expressions written in CuTe notation, e.g. "
        "'logical_divide((9,(4,8)):(59,(13,1)), <3:3,(2,4):(1,8)>)', 'complement(4:2, 24)', "
        "'size((2,(3,4)):(1,(2,6)))', '(N,8):(8,1)' with N a symbol.",
    )
    p.add_argument("expressions", nargs="*", metavar="EXPR", help="expression(s) to evaluate")
    p.add_argument(
        "--assume",
        action="append",
        metavar="COND",
        help="assumption on a symbol: 'N%%4==0', 'N>=8', 'N<=1024' or 'N:div=4,min=8,max=1024' (repeatable)",
    )
    p.add_argument(
        "--static-markers", action="store_true", help="print static integers as CuTe does (_4)"
    )
    p.add_argument("--functions", action="store_true", help="list the functions and exit")
    p.set_defaults(handler=_run_algebra)


def _run_algebra(args: argparse.Namespace) -> int:
    from layoutc.ir.algebra.calc import format_value, free_symbol_names, functions
    from layoutc.ir.algebra.inttuple import format_tuple

    if args.functions:
        print(" ".join(sorted(functions())))
        return 0
    if not args.expressions:
        raise UsageError("algebra: give at least one expression, e.g. 'complement(4:2, 24)'")
    calc = _calculator(args)
    for text in args.expressions:
        value = _evaluate(calc, text)
        if args.static_markers:
            fmt = getattr(type(value), "cute_format", None)
            out = (
                fmt(value, True)
                if fmt
                else format_tuple(value, True)
                if not isinstance(value, bool)
                else format_value(value)
            )
        else:
            out = format_value(value)
        print(out)
        names = free_symbol_names(value, calc.symbols)
        if names:
            print("  where " + "; ".join(describe_assumptions(n, calc.symbols[n]) for n in names))
    return 0


# ----------------------------------------------------------------------------------------------
# layoutc show
# ----------------------------------------------------------------------------------------------


def _add_show(sub: Any) -> None:
    p = sub.add_parser(
        "show",
        help="print a layout as a table of indices (CuTe's print_layout), or draw it (SVG, PNG)",
        description="Print a rank-1 or rank-2 layout (any algebra expression) as CuTe's print_layout "
        "table; with --tv, a thread-value layout over its tile as T<thread>V<value> cells.",
    )
    p.add_argument(
        "layout", metavar="LAYOUT", help="a layout in CuTe notation or an algebra expression"
    )
    p.add_argument(
        "--tv",
        nargs="?",
        const="",
        default=None,
        metavar="TILE",
        help="treat LAYOUT as a (thread, value) -> tile layout; TILE is the tile shape, e.g. '(4,8)'",
    )
    p.add_argument(
        "--mma",
        metavar="ATOM",
        help="show the tiled MMA of ATOM (e.g. SM80_16x8x16_F32F16F16F32_TN) with LAYOUT as its "
        "atom layout, e.g. '(2,2,1)': C's threads and values; --svg/--png draw A, B and C",
    )
    p.add_argument(
        "--copy",
        metavar="ATOM:ELEM",
        help="show the tiled copy of ATOM (a registry or CuTe name) on ELEM elements, e.g. "
        "'UniversalCopy<uint128_t>:f32', with LAYOUT as its thread layout and --val as its value "
        "layout (make_tiled_copy); --svg/--png draw its source and destination",
    )
    p.add_argument("--val", metavar="LAYOUT", default="1", help="the value layout of --copy")
    p.add_argument("--svg", metavar="FILE", help="also draw the table into an SVG file")
    p.add_argument(
        "--png",
        metavar="FILE",
        help="also draw the table into a PNG file (the SVG's drawing, rasterised; no dependency)",
    )
    p.add_argument(
        "--scale", type=int, default=2, metavar="N", help="PNG pixels per SVG unit (default 2)"
    )
    p.add_argument(
        "--assume", action="append", metavar="COND", help="assumption on a symbol (see `algebra`)"
    )
    p.set_defaults(handler=_run_show)


def _run_show(args: argparse.Namespace) -> int:
    from layoutc.ir.algebra import show
    from layoutc.ir.algebra.errors import LayoutError
    from layoutc.ir.algebra.layout import is_layout

    calc = _calculator(args)
    value = _evaluate(calc, args.layout)
    try:
        if _is_shape(value):  # a bare shape is its column-major layout, as in parse_layout
            from layoutc.ir.algebra.layout import Layout

            value = Layout(value)
        if not is_layout(value):
            raise CommandError(f"show needs a layout, got {value}")
        if args.mma is not None or args.copy is not None:
            text, drawing = _tiled_picture(calc, args, value)
        elif args.tv is not None:
            tile = _tv_tile(calc, args.tv, value)
            text = show.print_tv_layout(value, tile)
            drawing = show.tv_layout_drawing(value, tile) if args.svg or args.png else None
        else:
            text = show.print_layout(value)
            drawing = show.layout_drawing(value) if args.svg or args.png else None
    except LayoutError as e:
        raise CommandError(str(e)) from None
    if args.scale < 1:
        raise CommandError(f"--scale must be a positive number of pixels, got {args.scale}")
    sys.stdout.write(text)
    if drawing is not None and args.svg:
        _write(args.svg, drawing.svg().encode())
    if drawing is not None and args.png:
        _write(args.png, drawing.png(args.scale))
    return 0


def _tiled_picture(calc: Any, args: argparse.Namespace, layout: Any) -> tuple[str, Any]:
    """(text, drawing) of a tiled MMA or tiled copy: the drawing its ``_repr_svg_`` shows."""
    from layoutc.ir.algebra import format_tuple, show
    from layoutc.ir.algebra.layout import Layout, is_layout
    from layoutc.ir.dialects.tile import tiled
    from layoutc.ir.dialects.tile.atoms import AtomError

    try:
        if args.mma is not None:
            mma = tiled.make_tiled_mma(args.mma, layout)
            mnk = tuple(mma.tile_size_mnk(i) for i in range(3))
            c_tv = mma.get_layoutC_TV()
            text = f"TiledMMA {args.mma} {mma.thr_layout_vmnk}\n"
            text += show.print_tv_layout(c_tv, mnk[:2])
            return text, show.tiled_mma_drawing(
                mma.get_layoutA_TV(), mma.get_layoutB_TV(), c_tv, mnk
            )
        name, _, rest = args.copy.rpartition(":")
        elem, bits = rest, None
        if not name:
            raise UsageError(f"--copy: expected ATOM:ELEM, e.g. universal:f32, got {args.copy!r}")
        if name.count(":") and name.rsplit(":", 1)[1].isdigit():  # ATOM:BITS:ELEM
            name, bits_text = name.rsplit(":", 1)
            bits = int(bits_text)
        if bits is None and name == "universal":
            from layoutc.ir.dialects.tile.spaces import element_bits

            bits = element_bits(elem)
        val = _evaluate(calc, args.val)
        val = val if is_layout(val) else Layout(val)
        tc = tiled.make_tiled_copy(tiled.make_copy_atom(name, bits, elem), layout, val)
        tile = tiled._tiler_shape(tc.tiler_mn)
        text = f"TiledCopy {name} {elem} layout_tv {tc.layout_tv} tile {format_tuple(tile)}\n"
        text += show.print_tv_layout(tc.layout_tv, tile)
        return text, show.tiled_copy_drawing(tc.get_layoutS_TV(), tc.get_layoutD_TV(), tile)
    except (AtomError, ValueError) as e:
        raise CommandError(str(e)) from None


def _write(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise CommandError(f"cannot write {path}: {e.strerror}") from None


def _is_shape(value: Any) -> bool:
    from layoutc.ir.algebra.inttuple import flatten_to_tuple, is_symbolic

    if not (type(value) is int or isinstance(value, tuple)):
        return False
    return all(type(x) is int or is_symbolic(x) for x in flatten_to_tuple(value))


def _tv_tile(calc: Any, text: str, tv: Any) -> Any:
    if text:
        tile = _evaluate(calc, text)
        if not (type(tile) is int or isinstance(tile, tuple)):
            raise UsageError(f"--tv: expected a tile shape such as (4,8), got {text!r}")
        return tile
    from layoutc.ir.algebra.layout import size
    from layoutc.ir.algebra.show import check_cells

    check_cells(size(tv), "show --tv", tv)
    extents = [0, 0]
    for t in range(size(tv, 0)):
        for v in range(size(tv, 1)):
            value = tv(t, v)
            if not isinstance(value, tuple) or len(value) != 2:
                raise UsageError(
                    "--tv: give the tile shape, e.g. --tv '(4,8)' (the layout maps to indices)"
                )
            extents = [max(extents[0], value[0] + 1), max(extents[1], value[1] + 1)]
    return tuple(extents)


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------


def _add_compile(sub: Any) -> None:
    from .compile_cmd import add_parser

    add_parser(sub)


def _add_run(sub: Any) -> None:
    from .run_cmd import add_parser

    add_parser(sub)


SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "algebra": _add_algebra,
    "show": _add_show,
    "compile": _add_compile,
    "run": _add_run,
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, status 2, as for our own errors
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="layoutc: a symbolic CuTe-style layout compiler")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in SUBCOMMANDS.values():
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(sys.stderr)
            return 2
        return handler(args)
    except UsageError as e:
        return error(str(e), 2)
    except CommandError as e:
        return error(str(e), 1)
    except KeyboardInterrupt:
        return error("interrupted", 130)
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug in layoutc: one line unless asked for the traceback
        import os

        if os.environ.get("LAYOUTC_TRACEBACK"):
            raise
        return error(
            f"internal error: {type(e).__name__}: {e} (set LAYOUTC_TRACEBACK=1 for details)", 70
        )


if __name__ == "__main__":
    sys.exit(main())
