"""Pictures of layouts: CuTe's `print_layout` table, thread-value (TV) tables, and SVG drawings.

`print_layout(L)` returns the text CuTe prints for a rank-2 layout (a rank-1 layout is shown as
one column, as CuTe's print_latex pads it with a 1:0 mode). `print_tv_layout(tv, (M,N))` shows
which thread/value (`T3V1`) owns each element of an MxN tile, for a TV layout mapping
(thread, value) to the tile's column-major index or to (m,n) coordinates. The SVG functions draw
the same tables for learners (coloured by value, or by thread for TV layouts), like CuTe's
print_latex/print_svg, with no dependency.
"""

from __future__ import annotations

from html import escape
from typing import Any

from . import inttuple as it
from .errors import LayoutError
from .layout import _inner, append, cosize, rank, size

# CuTe's colour maps: TSVGColor_BWx8 (by value) and SVGColor_TV (by thread).
_BW8 = (
    "255,255,255",
    "230,230,230",
    "205,205,205",
    "180,180,180",
    "155,155,155",
    "130,130,130",
    "105,105,105",
    "080,080,080",
)
_TV8 = (
    "175,175,255",
    "175,255,175",
    "255,255,175",
    "255,175,175",
    "210,210,255",
    "210,255,210",
    "255,255,210",
    "255,210,210",
)


def _num_digits(x: int) -> int:
    return len(str(x)) if x >= 10 else 1


def _as_rank2(layout: Any, what: str) -> Any:
    if _inner(layout) is None:
        raise LayoutError(f"{what}: expected a layout, got {layout!r}")
    r = rank(layout)
    if r == 1:
        return append(layout, n=2)
    if r != 2:
        raise LayoutError(f"{what}: needs a rank-1 or rank-2 layout, {layout} has rank {r}")
    return layout


def _static_extent(x: Any, what: str, layout: Any) -> int:
    if type(x) is not int:
        raise LayoutError(f"{what}: needs static shapes, {layout} has the symbolic extent {x}")
    return x


def _values(layout: Any, what: str) -> tuple[int, int, list[list[Any]]]:
    lay = _as_rank2(layout, what)
    m_count = _static_extent(size(lay, 0), what, layout)
    n_count = _static_extent(size(lay, 1), what, layout)
    rows = []
    for m in range(m_count):
        row = []
        for n in range(n_count):
            v = lay(m, n)
            if type(v) is not int and not isinstance(v, tuple):
                raise LayoutError(f"{what}: {layout} has the non-static value {v} at ({m},{n})")
            row.append(v)
        rows.append(row)
    return m_count, n_count, rows


def _table(title: list[str], cells: list[list[str]], width: int) -> str:
    n_count = len(cells[0]) if cells else 0
    lines = list(title)
    lines.append("    " + "".join(f"  {n:>{width - 2}} " for n in range(n_count)))
    border = "    " + "+" + "+".join("-" * width for _ in range(n_count)) + "+"
    for m, row in enumerate(cells):
        lines.append(border)
        lines.append(f"{m:2d}  " + "".join(f"| {c:>{width - 2}} " for c in row) + "|")
    lines.append(border)
    return "\n".join(lines) + "\n"


def print_layout(layout: Any) -> str:
    """CuTe's print_layout: the layout, then an MxN table of its indices."""
    _m, _n, rows = _values(layout, "print_layout")
    cells = [[it.format_tuple(v) for v in row] for row in rows]
    widest = max((len(c) for row in cells for c in row), default=1)
    co = cosize(layout)
    digits = _num_digits(co) if type(co) is int else widest
    width = max(digits, widest) + 2
    return _table([str(layout)], cells, width)


def _tv_cells(
    tv: Any, tile_shape: Any, what: str
) -> tuple[int, int, list[list[tuple[int, int] | None]]]:
    if _inner(tv) is None or rank(tv) != 2:
        raise LayoutError(f"{what}: expected a rank-2 (thread, value) layout, got {tv}")
    tile = it.to_int_tuple(tile_shape, f"{what} tile shape")
    extents = it.product_each(tile)
    if len(extents) == 1:
        extents = (extents[0], 1)
    if len(extents) != 2:
        raise LayoutError(f"{what}: the tile shape {it.format_tuple(tile)} must have rank 1 or 2")
    m_count = _static_extent(extents[0], what, tile)
    n_count = _static_extent(extents[1], what, tile)
    t_count = _static_extent(size(tv, 0), what, tv)
    v_count = _static_extent(size(tv, 1), what, tv)
    grid: list[list[tuple[int, int] | None]] = [[None] * n_count for _ in range(m_count)]
    for t in range(t_count):
        for v in range(v_count):
            value = tv(t, v)
            if isinstance(value, tuple):
                mn = tuple(it.product(x) if isinstance(x, tuple) else x for x in value)
                if len(mn) == 1:
                    mn = (mn[0], 0)
                m, n = mn[0], mn[1]
            elif type(value) is int:
                if not 0 <= value < m_count * n_count:
                    raise LayoutError(
                        f"{what}: {tv} maps (T{t},V{v}) to {value}, outside the {m_count}x{n_count} tile"
                    )
                m, n = value % m_count, value // m_count
            else:
                raise LayoutError(f"{what}: {tv} has the non-static value {value} at (T{t},V{v})")
            if not (0 <= m < m_count and 0 <= n < n_count):
                raise LayoutError(
                    f"{what}: {tv} maps (T{t},V{v}) to ({m},{n}), outside the {m_count}x{n_count} tile"
                )
            if grid[m][n] is None:
                grid[m][n] = (t, v)
    return m_count, n_count, grid


def print_tv_layout(tv: Any, tile_shape: Any) -> str:
    """Which thread and value own each element of the tile: cells `T<thread>V<value>`."""
    _m, _n, grid = _tv_cells(tv, tile_shape, "print_tv_layout")
    cells = [["" if c is None else f"T{c[0]}V{c[1]}" for c in row] for row in grid]
    width = max((len(c) for row in cells for c in row), default=1) + 2
    title = [str(tv), "tile " + it.format_tuple(it.to_int_tuple(tile_shape))]
    return _table(title, cells, width)


_CELL = 32


def _svg(width: int, height: int, body: list[str], comment: str) -> str:
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f"<!-- {escape(comment)} -->",
        '<g font-family="monospace" text-anchor="middle" dominant-baseline="central">',
    ]
    return "\n".join([*head, *body, "</g>", "</svg>"]) + "\n"


def _labels(m_count: int, n_count: int) -> list[str]:
    out = []
    for m in range(m_count):
        out.append(
            f'<text x="{_CELL // 2}" y="{(m + 1) * _CELL + _CELL // 2}" font-size="12">{m}</text>'
        )
    for n in range(n_count):
        out.append(
            f'<text x="{(n + 1) * _CELL + _CELL // 2}" y="{_CELL // 2}" font-size="12">{n}</text>'
        )
    return out


def layout_svg(layout: Any) -> str:
    """An SVG picture of the print_layout table, each cell shaded by its index (mod 8)."""
    m_count, n_count, rows = _values(layout, "layout_svg")
    body = _labels(m_count, n_count)
    for m, row in enumerate(rows):
        for n, v in enumerate(row):
            x, y = (n + 1) * _CELL, (m + 1) * _CELL
            colour = _BW8[v % 8] if type(v) is int else _BW8[0]
            body.append(
                f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" fill="rgb({colour})" stroke="black"/>'
            )
            body.append(
                f'<text x="{x + _CELL // 2}" y="{y + _CELL // 2}" font-size="10">{escape(it.format_tuple(v))}</text>'
            )
    return _svg((n_count + 1) * _CELL, (m_count + 1) * _CELL, body, f"Layout: {layout}")


def tv_layout_svg(tv: Any, tile_shape: Any) -> str:
    """An SVG picture of a TV layout over its tile, each cell coloured by its thread."""
    m_count, n_count, grid = _tv_cells(tv, tile_shape, "tv_layout_svg")
    body = _labels(m_count, n_count)
    for m, row in enumerate(grid):
        for n, c in enumerate(row):
            x, y = (n + 1) * _CELL, (m + 1) * _CELL
            colour = "255,255,255" if c is None else _TV8[c[0] % 8]
            body.append(
                f'<rect x="{x}" y="{y}" width="{_CELL}" height="{_CELL}" fill="rgb({colour})" stroke="black"/>'
            )
            if c is not None:
                body.append(
                    f'<text x="{x + _CELL // 2}" y="{y + _CELL // 4 + 2}" font-size="9">T{c[0]}</text>'
                )
                body.append(
                    f'<text x="{x + _CELL // 2}" y="{y + 3 * _CELL // 4 - 2}" font-size="9">V{c[1]}</text>'
                )
    tile = it.format_tuple(it.to_int_tuple(tile_shape))
    return _svg((n_count + 1) * _CELL, (m_count + 1) * _CELL, body, f"Layout TV: {tv}  tile {tile}")
