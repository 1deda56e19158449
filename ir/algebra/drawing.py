"""A tiny drawing model for layout pictures: coloured cells and centred labels, written as SVG
text or rasterised to PNG with the standard library only (zlib + struct, a built-in 5x7 pixel
font), so pictures for docs and slides need no dependency.

``show.py`` builds a :class:`Drawing` per picture (a layout's index table, a TV layout, a tiled
copy's S/D pair, a tiled MMA's A/B/C); ``svg()`` and ``png()`` write the same drawing.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from html import escape

# 5x7 glyphs, one string of 7 rows of 5 pixels each ('#' on): digits, the letters the
# pictures use, and the punctuation of layout values ("(1,2)", "2@1", "-3").
_FONT_ROWS = {
    "0": (" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "),
    "1": ("  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "),
    "2": (" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"),
    "3": ("#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "),
    "4": ("   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "),
    "5": ("#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "),
    "6": ("  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "),
    "7": ("#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "),
    "8": (" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "),
    "9": (" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "),
    "T": ("#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "),
    "V": ("#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "),
    "A": (" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"),
    "B": ("#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "),
    "C": (" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "),
    "D": ("#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "),
    "S": (" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "),
    "M": ("#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"),
    "N": ("#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"),
    "K": ("#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"),
    "(": ("   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "),
    ")": (" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "),
    ",": ("     ", "     ", "     ", "     ", "  ## ", "   # ", "  #  "),
    ":": ("     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "),
    "@": (" ### ", "#   #", "# ###", "# # #", "# ###", "#    ", " ####"),
    "-": ("     ", "     ", "     ", "#####", "     ", "     ", "     "),
    "_": ("     ", "     ", "     ", "     ", "     ", "     ", "#####"),
    "?": (" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "),
    " ": ("     ",) * 7,
}
_UNKNOWN = ("#####", "#   #", "#   #", "#   #", "#   #", "#   #", "#####")


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int
    fill: tuple[int, int, int]


@dataclass(frozen=True)
class Text:
    x: int  # centre
    y: int  # centre
    size: int  # font size in SVG units
    text: str


@dataclass
class Drawing:
    """Cells (filled, black outline) and labels (centred) on a white ``width`` x ``height``
    canvas; ``comment`` is the SVG's title comment (the layout it shows)."""

    width: int
    height: int
    comment: str
    rects: list[Rect] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)

    def cell(self, x: int, y: int, size: int, fill: tuple[int, int, int]) -> None:
        self.rects.append(Rect(x, y, size, size, fill))

    def label(self, x: int, y: int, size: int, text: str) -> None:
        self.texts.append(Text(x, y, size, text))

    # -- SVG --------------------------------------------------------------------------------------
    def svg(self) -> str:
        w, h = self.width, self.height
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
            f"<!-- {escape(self.comment)} -->",
            '<g font-family="monospace" text-anchor="middle" dominant-baseline="central">',
        ]
        for r in self.rects:
            fill = "rgb({:03d},{:03d},{:03d})".format(*r.fill)
            out.append(
                f'<rect x="{r.x}" y="{r.y}" width="{r.w}" height="{r.h}" fill="{fill}" '
                'stroke="black"/>'
            )
        for t in self.texts:
            out.append(f'<text x="{t.x}" y="{t.y}" font-size="{t.size}">{escape(t.text)}</text>')
        out += ["</g>", "</svg>"]
        return "\n".join(out) + "\n"

    # -- PNG --------------------------------------------------------------------------------------
    def png(self, scale: int = 2) -> bytes:
        """The drawing as an RGB PNG, ``scale`` pixels per SVG unit."""
        if type(scale) is not int or scale < 1:
            raise ValueError(f"png: scale must be a positive int, got {scale!r}")
        # one more pixel each way: the outline of the last row and column
        w, h = self.width * scale + 1, self.height * scale + 1
        pixels = bytearray(b"\xff" * (w * h * 3))

        def fill_rect(x0: int, y0: int, x1: int, y1: int, rgb: tuple[int, int, int]) -> None:
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if x0 >= x1:
                return
            row = bytes(rgb) * (x1 - x0)
            for y in range(y0, y1):
                start = (y * w + x0) * 3
                pixels[start : start + len(row)] = row

        black = (0, 0, 0)
        for r in self.rects:
            x0, y0, x1, y1 = r.x * scale, r.y * scale, (r.x + r.w) * scale, (r.y + r.h) * scale
            fill_rect(x0, y0, x1, y1, r.fill)
            fill_rect(x0, y0, x1 + 1, y0 + 1, black)
            fill_rect(x0, y1, x1 + 1, y1 + 1, black)
            fill_rect(x0, y0, x0 + 1, y1 + 1, black)
            fill_rect(x1, y0, x1 + 1, y1 + 1, black)
        for t in self.texts:
            px = max(1, round(scale * t.size / 10))  # a glyph pixel: font size 10 -> 1 unit
            gw, gh = 6 * px, 7 * px  # 5 columns + 1 of spacing
            x = t.x * scale - (gw * len(t.text) - px) // 2
            y = t.y * scale - gh // 2
            for ch in t.text:
                rows = _FONT_ROWS.get(ch, _UNKNOWN)
                for gy, bits in enumerate(rows):
                    for gx, bit in enumerate(bits):
                        if bit == "#":
                            fill_rect(
                                x + gx * px,
                                y + gy * px,
                                x + (gx + 1) * px,
                                y + (gy + 1) * px,
                                black,
                            )
                x += gw
        return _png_bytes(w, h, bytes(pixels))


def _png_bytes(w: int, h: int, rgb: bytes) -> bytes:
    """A PNG file: signature, IHDR (8-bit RGB), one zlib IDAT of filter-0 rows, IEND."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    stride = w * 3
    raw = b"".join(b"\x00" + rgb[y * stride : (y + 1) * stride] for y in range(h))
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
