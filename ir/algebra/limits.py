"""Bounds on what the algebra accepts from text, so that short input cannot ask for unbounded
work (docs/reliability.md, "Bounded work").

Each bound is far past what a CuTe program writes (CuTe's deepest layouts nest 4 or 5 levels,
its integers are 64-bit, its swizzles permute bits of a 64-bit offset) and each is enforced
where the value enters, with a message that names the bound. ``check_literal`` is the one
place integer literals of any text syntax (CuTe notation, symbolic expressions, the calculator)
become ints.
"""

from __future__ import annotations

from .errors import LayoutError

#: Nesting of parentheses, tuples, tilers and calls in one text.
MAX_NESTING = 64
#: Leaves in one integer tuple written in text.
MAX_LEAVES = 4096
#: The mode index of a basis stride `v@m` (a coordinate with more modes is not a layout's).
MAX_BASIS_MODE = 255
#: Integer literals: 64-bit, CuTe's widest integer type.
MAX_LITERAL_BITS = 64
#: Swizzle fields: bits of a 64-bit offset.
MAX_SWIZZLE_BITS = 64
#: Cells `layoutc show` prints (256 x 256).
MAX_SHOW_CELLS = 1 << 16
#: Digits Python converts without the 4,300-digit guard tripping.
_MAX_DIGITS = 40


def check_literal(text: str) -> int:
    """The int ``text`` spells (optional ``-``, digits), or ``LayoutError`` past 64 bits."""
    digits = text.lstrip("-+")
    if len(digits.lstrip("0")) > _MAX_DIGITS:
        raise LayoutError(
            f"integer literal {text[:24]}... ({len(digits)} digits) exceeds {MAX_LITERAL_BITS} bits"
        )
    value = int(text)
    if abs(value) >= 1 << MAX_LITERAL_BITS:
        raise LayoutError(f"integer literal {text} exceeds {MAX_LITERAL_BITS} bits")
    return value
