"""Pictures of layouts: CuTe's `print_layout` table, thread-value (TV) tables, and SVG drawings.

`print_layout(L)` returns the text CuTe prints for a rank-2 layout (a rank-1 layout is shown as
one column, as CuTe's print_latex pads it with a 1:0 mode). `print_tv_layout(tv, (M,N))` shows
which thread/value (`T3V1`) owns each element of an MxN tile, for a TV layout mapping
(thread, value) to the tile's column-major index or to (m,n) coordinates. The SVG functions draw
the same tables for learners (coloured by value, or by thread for TV layouts), like CuTe's
print_latex/print_svg, with no dependency.
"""

from __future__ import annotations

from typing import Any

from . import inttuple as it
from .drawing import Drawing
from .errors import LayoutError
from .layout import _inner, append, cosize, rank, size
from .limits import MAX_SHOW_CELLS

# CuTe's colour maps: TSVGColor_BWx8 (by value) and SVGColor_TV (by thread).
_BW8 = ((255, 255, 255), (230, 230, 230), (205, 205, 205), (180, 180, 180))
_BW8 += ((155, 155, 155), (130, 130, 130), (105, 105, 105), (80, 80, 80))
_TV8 = ((175, 175, 255), (175, 255, 175), (255, 255, 175), (255, 175, 175))
_TV8 += ((210, 210, 255), (210, 255, 210), (255, 255, 210), (255, 210, 210))
_WHITE = (255, 255, 255)


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


def check_cells(count: int, what: str, layout: Any) -> None:
    """Refuse tables past ``MAX_SHOW_CELLS``: a 100000x100000 layout is 10^10 cells."""
    if count > MAX_SHOW_CELLS:
        raise LayoutError(
            f"{what}: {layout} has {count} cells, more than the {MAX_SHOW_CELLS} shown at most; "
            "show a tile of it (e.g. with local_tile or a slice)"
        )


def _values(layout: Any, what: str) -> tuple[int, int, list[list[Any]]]:
    lay = _as_rank2(layout, what)
    m_count = _static_extent(size(lay, 0), what, layout)
    n_count = _static_extent(size(lay, 1), what, layout)
    check_cells(m_count * n_count, what, layout)
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
    check_cells(m_count * n_count, what, tile)
    check_cells(t_count * v_count, what, tv)
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


def _labels(d: Drawing, m_count: int, n_count: int, x0: int = 0, y0: int = 0) -> None:
    """Row indices left of and column indices above a table whose corner cell is at (x0, y0)."""
    for m in range(m_count):
        d.label(x0 + _CELL // 2, y0 + (m + 1) * _CELL + _CELL // 2, 12, str(m))
    for n in range(n_count):
        d.label(x0 + (n + 1) * _CELL + _CELL // 2, y0 + _CELL // 2, 12, str(n))


def layout_drawing(layout: Any) -> Drawing:
    """The print_layout table, each cell shaded by its index (mod 8, CuTe's TSVGColor_BWx8)."""
    m_count, n_count, rows = _values(layout, "layout_svg")
    d = Drawing((n_count + 1) * _CELL, (m_count + 1) * _CELL, f"Layout: {layout}")
    _labels(d, m_count, n_count)
    for m, row in enumerate(rows):
        for n, v in enumerate(row):
            x, y = (n + 1) * _CELL, (m + 1) * _CELL
            d.cell(x, y, _CELL, _BW8[v % 8] if type(v) is int else _BW8[0])
            d.label(x + _CELL // 2, y + _CELL // 2, 10, it.format_tuple(v))
    return d


def _tv_panel(
    d: Drawing, grid: list[list[Any]], x0: int, y0: int, transpose: bool = False, title: str = ""
) -> None:
    """A TV table at (x0, y0): cells coloured by thread (CuTe's SVGColor_TV) with their thread
    and value; ``transpose`` draws the grid's columns as rows (B of a tiled MMA, as (K, N))."""
    rows = [list(r) for r in zip(*grid)] if transpose else grid
    m_count, n_count = len(rows), len(rows[0]) if rows else 0
    _labels(d, m_count, n_count, x0, y0)
    if title:
        d.label(x0 + _CELL // 2, y0 + _CELL // 2, 12, title)
    for m, row in enumerate(rows):
        for n, c in enumerate(row):
            x, y = x0 + (n + 1) * _CELL, y0 + (m + 1) * _CELL
            d.cell(x, y, _CELL, _WHITE if c is None else _TV8[c[0] % 8])
            if c is not None:
                d.label(x + _CELL // 2, y + _CELL // 4 + 2, 9, f"T{c[0]}")
                d.label(x + _CELL // 2, y + 3 * _CELL // 4 - 2, 9, f"V{c[1]}")


def tv_layout_drawing(tv: Any, tile_shape: Any) -> Drawing:
    """A TV layout over its tile, each cell coloured by its thread and labelled T<t> V<v>."""
    m_count, n_count, grid = _tv_cells(tv, tile_shape, "tv_layout_svg")
    tile = it.format_tuple(it.to_int_tuple(tile_shape))
    d = Drawing((n_count + 1) * _CELL, (m_count + 1) * _CELL, f"Layout TV: {tv}  tile {tile}")
    _tv_panel(d, grid, 0, 0)
    return d


def tiled_copy_drawing(layout_s_tv: Any, layout_d_tv: Any, tile_shape: Any) -> Drawing:
    """CuTe's print_latex of a TiledCopy: the source (S) and destination (D) TV layouts over
    the tile, side by side."""
    m_count, n_count, src = _tv_cells(layout_s_tv, tile_shape, "tiled_copy_svg")
    _m, _n, dst = _tv_cells(layout_d_tv, tile_shape, "tiled_copy_svg")
    panel = (n_count + 1) * _CELL
    d = Drawing(
        2 * panel + _CELL,
        (m_count + 1) * _CELL,
        f"TiledCopy: LayoutS_TV {layout_s_tv}  LayoutD_TV {layout_d_tv}  tile "
        f"{it.format_tuple(it.to_int_tuple(tile_shape))}",
    )
    _tv_panel(d, src, 0, 0, title="S")
    _tv_panel(d, dst, panel + _CELL, 0, title="D")
    return d


def tiled_mma_drawing(layout_a_tv: Any, layout_b_tv: Any, layout_c_tv: Any, mnk: Any) -> Drawing:
    """CuTe's print_latex of a TiledMMA: C (M x N) with A (M x K) to its left and B (drawn as
    K x N) above it, every cell coloured by the thread that holds it."""
    m, n, k = mnk
    _m, _k, a = _tv_cells(layout_a_tv, (m, k), "tiled_mma_svg")
    _n, _k2, b = _tv_cells(layout_b_tv, (n, k), "tiled_mma_svg")
    _m2, _n2, c = _tv_cells(layout_c_tv, (m, n), "tiled_mma_svg")
    off = (k + 1) * _CELL + _CELL // 2  # where C's table starts, right of A and below B
    d = Drawing(
        off + (n + 1) * _CELL,
        off + (m + 1) * _CELL,
        f"TiledMMA: LayoutA_TV {layout_a_tv}  LayoutB_TV {layout_b_tv}  LayoutC_TV "
        f"{layout_c_tv}  tile ({m},{n},{k})",
    )
    _tv_panel(d, a, 0, off, title="A")
    _tv_panel(d, b, off, 0, transpose=True, title="B")
    _tv_panel(d, c, off, off, title="C")
    return d


def layout_svg(layout: Any) -> str:
    """An SVG picture of the print_layout table, each cell shaded by its index (mod 8)."""
    return layout_drawing(layout).svg()


def tv_layout_svg(tv: Any, tile_shape: Any) -> str:
    """An SVG picture of a TV layout over its tile, each cell coloured by its thread."""
    return tv_layout_drawing(tv, tile_shape).svg()


# Jupyter pictures up to this many cells (a bigger SVG is slow to render and to read); past it
# ``_repr_svg_`` returns None and the text repr is shown (``layoutc show --svg`` draws any size).
REPR_MAX_CELLS = 64 * 64


def repr_svg(layout: Any) -> str | None:
    """``_repr_svg_`` of a layout: its picture when it has one (static, rank 1 or 2, at most
    ``REPR_MAX_CELLS`` cells), else None, so that Jupyter falls back to the text repr."""
    try:
        n = size(layout)
        if type(n) is not int or n > REPR_MAX_CELLS:
            return None
        return layout_svg(layout)
    except (LayoutError, TypeError, ValueError):
        return None
