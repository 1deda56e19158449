"""Pictures: layouts, TV layouts, tiled copies and tiled MMAs draw themselves (``_repr_svg_``, the
drawing ``layoutc show --svg`` writes) with thread/value labels and a colour per thread, as
CuTe's print_latex figures; the PNG is the same drawing rasterised (decoded here with zlib)."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
import zlib

import layoutc as lc
import pytest
from layoutc.cli.main import main
from layoutc.ir.algebra import Layout, make_layout_tv
from layoutc.ir.algebra.show import (
    layout_drawing,
    layout_svg,
    tiled_mma_drawing,
    tv_layout_drawing,
    tv_layout_svg,
)
from layoutc.ir.algebra.symbolic import Symbol
from layoutc.ir.dialects.tile import tiled

SVG = "{http://www.w3.org/2000/svg}"


def decode_png(data: bytes) -> tuple[int, int, list[list[tuple[int, int, int]]]]:
    """(width, height, rows of RGB pixels); checks the signature, chunk CRCs and IHDR."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])
        assert crc == zlib.crc32(tag + body), tag
        if tag == b"IHDR":
            w, h, depth, colour, _c, _f, _i = struct.unpack(">IIBBBBB", body)
            assert (depth, colour) == (8, 2)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + 3 * w)
    rows = []
    for y in range(h):
        line = raw[y * (1 + 3 * w) : (y + 1) * (1 + 3 * w)]
        assert line[0] == 0  # filter type None
        rows.append([tuple(line[1 + 3 * x : 4 + 3 * x]) for x in range(w)])
    return w, h, rows


def _fill(text: str) -> tuple[int, int, int]:
    return tuple(int(c) for c in text[4:-1].split(","))  # "rgb(r,g,b)"


@pytest.mark.parametrize(
    "drawing",
    [
        layout_drawing(Layout((4, 8), (8, 1))),
        tv_layout_drawing(Layout(((2, 4), (2, 2)), ((8, 1), (4, 16))), (4, 8)),
    ],
)
def test_png_is_the_svg_rasterised(drawing):
    scale = 2
    w, h, px = decode_png(drawing.png(scale))
    assert (w, h) == (drawing.width * scale + 1, drawing.height * scale + 1)
    svg = ET.fromstring(drawing.svg())
    rects = list(svg.iter(SVG + "rect"))
    assert rects
    for r in rects:
        x, y = int(r.get("x")) * scale, int(r.get("y")) * scale
        size = int(r.get("width")) * scale
        assert px[y + 2][x + 2] == _fill(r.get("fill"))  # the cell's colour inside its border
        assert px[y][x + size // 2] == (0, 0, 0)  # its outline
    # every label is drawn: black pixels around each text's centre
    for t in svg.iter(SVG + "text"):
        cx, cy = int(t.get("x")) * scale, int(t.get("y")) * scale
        window = [px[y][x] for y in range(cy - 7, cy + 8) for x in range(cx - 12, cx + 13)]
        assert (0, 0, 0) in window, t.text


def test_layout_repr_svg_is_the_show_drawing():
    lay = Layout((4, 8), (8, 1))
    assert lay._repr_svg_() == layout_svg(lay)
    assert lc.make_layout((4, 8), (8, 1))._repr_svg_() == layout_svg(lay)
    # no picture (Jupyter falls back to the text repr) for what print_layout cannot show
    assert Layout((2, 2, 2))._repr_svg_() is None
    assert Layout((Symbol("n"), 2))._repr_svg_() is None


def test_tv_layout_picture_labels_threads_and_values():
    tiler, tv = make_layout_tv(Layout((4, 2)), Layout((1, 2)))  # unpacks as CuTe's tuple
    pair = make_layout_tv(Layout((4, 2)), Layout((1, 2)))
    assert pair._repr_svg_() == tv_layout_svg(tv, tiler)
    svg = ET.fromstring(pair._repr_svg_())
    texts = [t.text for t in svg.iter(SVG + "text")]
    for t in range(8):
        assert texts.count(f"T{t}") == 2  # two values per thread
    assert texts.count("V0") == 8 and texts.count("V1") == 8
    assert len({r.get("fill") for r in svg.iter(SVG + "rect")}) == 8  # a colour per thread


def _cell_labels(drawing, x0: int, y0: int, m: int, n: int) -> tuple[str, str]:
    cx, cy = x0 + (n + 1) * 32 + 16, y0 + (m + 1) * 32
    found = [t.text for t in drawing.texts if t.x == cx and cy < t.y < cy + 32]
    return tuple(found)


def test_tiled_mma_picture_matches_the_ptx_fragments():
    """m16n8k8 TF32 (PTX ISA: C row g = lane/4, columns 2*(lane%4)+{0,1}; rows g+8 for c2,c3)."""
    mma = tiled.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", Layout((1, 1, 1)))
    d = tiled_mma_drawing(
        mma.get_layoutA_TV(), mma.get_layoutB_TV(), mma.get_layoutC_TV(), (16, 8, 8)
    )
    off = 9 * 32 + 16
    for lane in (0, 5, 31):
        g, c = lane // 4, 2 * (lane % 4)
        assert _cell_labels(d, off, off, g, c) == (f"T{lane}", "V0")
        assert _cell_labels(d, off, off, g, c + 1) == (f"T{lane}", "V1")
        assert _cell_labels(d, off, off, g + 8, c) == (f"T{lane}", "V2")
        # A: a0 at (g, lane%4), a1 at (g+8, lane%4); B (drawn K x N): b0 at (k=lane%4, n=g)
        assert _cell_labels(d, 0, off, g, lane % 4) == (f"T{lane}", "V0")
        assert _cell_labels(d, 0, off, g + 8, lane % 4) == (f"T{lane}", "V1")
        assert _cell_labels(d, off, 0, lane % 4, g) == (f"T{lane}", "V0")
    svg = lc.make_tiled_mma("SM80_16x8x8_F32TF32TF32F32_TN", lc.make_layout((1, 1, 1)))._repr_svg_()
    assert svg == d.svg()
    assert [t for t in ("A", "B", "C") if f">{t}</text>" in svg] == ["A", "B", "C"]


def test_tiled_copy_picture_has_source_and_destination():
    atom = lc.make_copy_atom("universal", lc.f32)
    tc = lc.make_tiled_copy(atom, lc.make_layout((4, 2)), lc.make_layout((1, 2)))
    svg = ET.fromstring(tc._repr_svg_())
    texts = [t.text for t in svg.iter(SVG + "text")]
    assert "S" in texts and "D" in texts
    assert texts.count("T7") == 4  # two values, in S and in D
    ldsm = tiled.make_tiled_copy_A(
        tiled.make_copy_atom("ldmatrix.x4", None, "f16"),
        tiled.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", Layout((1, 1, 1))),
    )
    assert ldsm._repr_svg_() is not None


def test_cli_show_png(tmp_path, capsys):
    out = tmp_path / "tv.png"
    argv = ["show", "--tv", "(4,8)", "((2,4),(2,2)):((8,1),(4,16))", "--png", str(out)]
    assert main([*argv, "--scale", "3"]) == 0
    assert "T0V0" in capsys.readouterr().out
    w, h, _px = decode_png(out.read_bytes())
    d = tv_layout_drawing(Layout(((2, 4), (2, 2)), ((8, 1), (4, 16))), (4, 8))
    assert (w, h) == (3 * d.width + 1, 3 * d.height + 1)
    assert out.read_bytes() == d.png(3)


def test_huge_layouts_fall_back_to_text():
    assert Layout((128, 64))._repr_svg_() is None  # past REPR_MAX_CELLS
    assert layout_svg(Layout((128, 64))).count("<rect") == 128 * 64  # the CLI draws any size


def test_cli_show_draws_tiled_mmas_and_copies(tmp_path, capsys):
    """`layoutc show --mma/--copy --svg` writes the drawing the objects show in Jupyter."""
    svg = tmp_path / "mma.svg"
    argv = ["show", "--mma", "SM80_16x8x16_F32F16F16F32_TN", "(2,2,1)", "--svg", str(svg)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("TiledMMA SM80_16x8x16_F32F16F16F32_TN") and "T127V3" in out
    mma = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", lc.make_layout((2, 2, 1)))
    assert svg.read_text() == mma._repr_svg_()
    svg = tmp_path / "copy.svg"
    argv = ["show", "--copy", "UniversalCopy<uint128_t>:f32", "(4,2):(2,1)", "--val", "(1,4)"]
    assert main([*argv, "--svg", str(svg)]) == 0
    atom = lc.make_copy_atom("UniversalCopy<uint128_t>", lc.f32)
    tc = lc.make_tiled_copy(atom, lc.make_layout((4, 2), (2, 1)), lc.make_layout((1, 4)))
    assert svg.read_text() == tc._repr_svg_()
    assert "T7V3" in capsys.readouterr().out
    assert main(["show", "--copy", "nope:f32", "4"]) == 1
    assert "unknown copy atom 'nope'" in capsys.readouterr().err
