"""Attributes of the arith dialect: overflow flags, fast-math flags and comparison predicates."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import ClassVar

from ...core.attr_parser import AttrParser
from ...core.attributes import DialectAttribute


class _FlagsAttr(DialectAttribute):
    """A set of named flags printed ``<a, b>`` (``<none>`` when empty)."""

    __slots__ = ("flags",)
    flags: tuple[str, ...]
    ORDER: ClassVar[tuple[str, ...]] = ()
    SEPARATOR: ClassVar[str] = ", "
    ALIASES: ClassVar[dict[str, tuple[str, ...]]] = {}
    _by_spelling: ClassVar[dict[tuple[str, ...], _FlagsAttr]]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._by_spelling = {}

    def __new__(cls, flags: Iterable[str] = ()):
        if isinstance(flags, str):
            flags = (flags,)
        spelled = tuple(flags)
        cached = cls._by_spelling.get(spelled)
        if cached is not None:
            return cached
        inst = cls._from_names(spelled)
        cls._by_spelling[spelled] = inst
        return inst

    @classmethod
    def _from_names(cls, flags: tuple[str, ...]) -> _FlagsAttr:
        wanted: set[str] = set()
        for f in flags:
            if f == "none":
                continue
            if f in cls.ALIASES:
                wanted.update(cls.ALIASES[f])
            elif f in cls.ORDER:
                wanted.add(f)
            else:
                raise ValueError(
                    f"unknown {cls.name} flag '{f}'; expected one of {', '.join(cls.ORDER)}"
                )
        key = tuple(f for f in cls.ORDER if f in wanted)
        return cls._instances.get(key) or cls._unique(key, flags=key)

    def __reduce__(self):
        return (type(self), (self.flags,))

    def __contains__(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def is_none(self) -> bool:
        return not self.flags

    def keyword_text(self) -> str:
        for alias, members in self.ALIASES.items():
            if set(members) == set(self.flags):
                return alias
        return self.SEPARATOR.join(self.flags) if self.flags else "none"

    def print_parameters(self) -> str:
        return f"<{self.keyword_text()}>"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> _FlagsAttr:
        parser.expect("<", f"after '{cls.name}'")
        return cls.parse_body(parser)

    @classmethod
    def parse_body(cls, parser: AttrParser) -> _FlagsAttr:
        """Parse ``a, b>`` (the part after ``<``)."""
        toks = parser.toks
        pos = parser.pos
        if toks[pos + 1] == ">":
            cached = cls._by_spelling.get((toks[pos],))
            if cached is not None:
                parser.pos = pos + 2
                return cached
        names = []
        while True:
            at = parser.pos
            word = parser.parse_keyword()
            if word != "none" and word not in cls.ORDER and word not in cls.ALIASES:
                raise parser.error(
                    f"unknown {cls.name} flag '{word}'; expected one of "
                    f"{', '.join(('none', *cls.ORDER, *cls.ALIASES))}",
                    at,
                )
            names.append(word)
            if not parser.accept(","):
                break
        parser.expect(">", f"to close '{cls.name}' flags")
        return cls(names)


class IntegerOverflowFlagsAttr(_FlagsAttr):
    """``#arith.overflow<nsw, nuw>``: no signed / unsigned wrap is promised."""

    __slots__ = ()
    name = "arith.overflow"
    ORDER = ("nsw", "nuw")
    SEPARATOR = ", "


class FastMathFlagsAttr(_FlagsAttr):
    """``#arith.fastmath<nnan,ninf>``; ``fast`` stands for all flags."""

    __slots__ = ()
    name = "arith.fastmath"
    ORDER = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn")
    SEPARATOR = ","
    ALIASES = {"fast": ORDER}


OVERFLOW_NONE = IntegerOverflowFlagsAttr()
FASTMATH_NONE = FastMathFlagsAttr()


class CmpIPredicate(IntEnum):
    """``arith.cmpi`` predicates, with MLIR's numbering (stored as an i64 property)."""

    eq = 0
    ne = 1
    slt = 2
    sle = 3
    sgt = 4
    sge = 5
    ult = 6
    ule = 7
    ugt = 8
    uge = 9

    def swapped(self) -> CmpIPredicate:
        """The predicate that holds for (b, a) when self holds for (a, b)."""
        return _SWAP_I.get(self, self)


_SWAP_I = {
    CmpIPredicate.slt: CmpIPredicate.sgt,
    CmpIPredicate.sgt: CmpIPredicate.slt,
    CmpIPredicate.sle: CmpIPredicate.sge,
    CmpIPredicate.sge: CmpIPredicate.sle,
    CmpIPredicate.ult: CmpIPredicate.ugt,
    CmpIPredicate.ugt: CmpIPredicate.ult,
    CmpIPredicate.ule: CmpIPredicate.uge,
    CmpIPredicate.uge: CmpIPredicate.ule,
}


class CmpFPredicate(IntEnum):
    """``arith.cmpf`` predicates (o = ordered, u = unordered), MLIR's numbering."""

    false = 0
    oeq = 1
    ogt = 2
    oge = 3
    olt = 4
    ole = 5
    one = 6
    ord = 7
    ueq = 8
    ugt = 9
    uge = 10
    ult = 11
    ule = 12
    une = 13
    uno = 14
    true = 15
