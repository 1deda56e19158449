"""Reading the layout text of a tensor parameter (``"(4,?):(1,?)"``) in the runtime.

The runtime cannot use the layout algebra (it imports nothing of ``layoutc.ir``), yet it must
know which entries are dynamic (``?``) and check the static ones against the arrays it is given.
The text is CuTe's notation: ``shape:stride`` with nested parenthesised tuples of integers.
"""

from __future__ import annotations

from collections.abc import Iterator

Entry = int | None  # None stands for '?'
Nested = Entry | tuple["Nested", ...]


class LayoutTextError(ValueError):
    """The layout text is not CuTe notation the runtime understands."""


def _parse_tuple(text: str, pos: int) -> tuple[Nested, int]:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    if pos >= len(text):
        raise LayoutTextError("unexpected end")
    ch = text[pos]
    if ch == "(":
        items: list[Nested] = []
        pos += 1
        while True:
            item, pos = _parse_tuple(text, pos)
            items.append(item)
            while pos < len(text) and text[pos] == " ":
                pos += 1
            if pos < len(text) and text[pos] == ",":
                pos += 1
                continue
            if pos < len(text) and text[pos] == ")":
                return tuple(items), pos + 1
            raise LayoutTextError(f"expected ',' or ')' at offset {pos}")
    if ch == "?":
        return None, pos + 1
    end = pos + 1 if ch == "-" else pos
    while end < len(text) and text[end].isdigit():
        end += 1
    if end == pos or text[pos:end] == "-":
        raise LayoutTextError(f"expected an integer, '?' or '(' at offset {pos}")
    return int(text[pos:end]), end


def parse_layout(text: str) -> tuple[Nested, Nested]:
    """``"(4,?):(1,?)"`` -> ``((4, None), (1, None))``; congruence of shape and stride checked."""
    if text.count(":") != 1:
        raise LayoutTextError(f"layout {text!r} must be 'shape:stride'")
    shape_text, stride_text = text.split(":")
    try:
        shape, end = _parse_tuple(shape_text, 0)
        if shape_text[end:].strip():
            raise LayoutTextError(f"trailing text {shape_text[end:]!r}")
        stride, end = _parse_tuple(stride_text, 0)
        if stride_text[end:].strip():
            raise LayoutTextError(f"trailing text {stride_text[end:]!r}")
    except LayoutTextError as e:
        raise LayoutTextError(f"cannot read layout {text!r}: {e}") from None
    if not _congruent(shape, stride):
        raise LayoutTextError(f"layout {text!r}: shape and stride are not congruent")
    return shape, stride


def _congruent(a: Nested, b: Nested) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def leaves(x: Nested) -> Iterator[Entry]:
    """Entries in printed (left-to-right) order."""
    if isinstance(x, tuple):
        for item in x:
            yield from leaves(item)
    else:
        yield x


def count_dynamic(text: str) -> int:
    """Number of ``?`` entries, shape first then stride (the order their parameters follow)."""
    shape, stride = parse_layout(text)
    return sum(e is None for e in leaves(shape)) + sum(e is None for e in leaves(stride))


def modes(shape: Nested, stride: Nested) -> list[tuple[Nested, Nested]]:
    """Top-level modes; a rank-1 layout written without parentheses is one mode."""
    if isinstance(shape, tuple):
        return list(zip(shape, stride))  # type: ignore[arg-type]
    return [(shape, stride)]


def coalesce_static(shape: Nested, stride: Nested) -> list[tuple[int, int]]:
    """A static nested mode as the fewest (size, stride) pairs computing the same function."""
    pairs = [(s, d) for s, d in zip(leaves(shape), leaves(stride))]
    out: list[tuple[int, int]] = []
    for s, d in pairs:
        assert s is not None and d is not None
        if s == 1:
            continue
        if out and out[-1][0] * out[-1][1] == d:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out
