"""Attributes and enums of the LLVM dialect, with MLIR's spellings and numbering.

Dialect attributes: ``#llvm.linkage<internal>``, ``#llvm.fastmath<none>``,
``#llvm.tailcallkind<none>``. Enums stored as ``i64`` integer properties (as MLIR's generic
form prints them): atomic orderings, atomic read-modify-write operations, inline-asm dialects;
GEP no-wrap flags are an ``i32`` bit set.
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar

from ...core.attr_parser import AttrParser
from ...core.attributes import DialectAttribute
from ..arith.attributes import _FlagsAttr


class _KeywordAttr(DialectAttribute):
    """An attribute holding one keyword out of a fixed set: ``#llvm.<name><keyword>``."""

    __slots__ = ("value",)
    value: str
    KEYWORDS: ClassVar[tuple[str, ...]] = ()

    def __new__(cls, value: str):
        inst = cls._instances.get(value)
        if inst is not None:
            return inst
        if value not in cls.KEYWORDS:
            raise ValueError(
                f"unknown {cls.name} '{value}'; expected one of {', '.join(cls.KEYWORDS)}"
            )
        return cls._unique(value, value=value)

    def __reduce__(self):
        return (type(self), (self.value,))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.expect("<", f"after '#{cls.name}'")
        at = parser.pos
        word = parser.parse_optional_string() or parser.parse_keyword()
        if word not in cls.KEYWORDS:
            raise parser.error(
                f"unknown {cls.name} '{word}'; expected one of {', '.join(cls.KEYWORDS)}", at
            )
        parser.expect(">", f"to close '#{cls.name}'")
        return cls(word)

    def print_parameters(self) -> str:
        return f"<{self.value}>"


class LinkageAttr(_KeywordAttr):
    """``#llvm.linkage<internal>``: the linkage of a global or function."""

    __slots__ = ()
    name = "llvm.linkage"
    KEYWORDS = (
        "private",
        "internal",
        "available_externally",
        "linkonce",
        "weak",
        "common",
        "appending",
        "extern_weak",
        "linkonce_odr",
        "weak_odr",
        "external",
    )


class TailCallKindAttr(_KeywordAttr):
    """``#llvm.tailcallkind<none>``: the tail-call marker of a call or inline asm."""

    __slots__ = ()
    name = "llvm.tailcallkind"
    KEYWORDS = ("none", "tail", "musttail", "notail")


class CConvAttr(_KeywordAttr):
    """``#llvm.cconv<ccc>``: the calling convention of a function or call."""

    __slots__ = ()
    name = "llvm.cconv"
    KEYWORDS = (
        "ccc",
        "fastcc",
        "coldcc",
        "tailcc",
        "swiftcc",
        "ptx_kernel",
        "ptx_device",
        "spir_func",
        "spir_kernel",
        "amdgpu_kernel",
    )


class LLVMFastmathFlagsAttr(_FlagsAttr):
    """``#llvm.fastmath<nnan, ninf>`` (``fast`` stands for all flags)."""

    __slots__ = ()
    name = "llvm.fastmath"
    ORDER = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")
    SEPARATOR = ", "
    ALIASES = {"fast": ORDER}


FASTMATH_NONE = LLVMFastmathFlagsAttr()


class AtomicOrdering(IntEnum):
    """LLVM's atomic orderings with MLIR's numbering (``consume`` = 3 does not exist)."""

    not_atomic = 0
    unordered = 1
    monotonic = 2
    acquire = 4
    release = 5
    acq_rel = 6
    seq_cst = 7


class AtomicBinOp(IntEnum):
    """``llvm.atomicrmw`` operations, MLIR's numbering and spelling (``_and``, ``_or``,
    ``_xor`` in the custom form, as upstream prints them; LLVM IR says ``and``, ``or``, ``xor``)."""

    xchg = 0
    add = 1
    sub = 2
    and_ = 3
    nand = 4
    or_ = 5
    xor_ = 6
    max = 7
    min = 8
    umax = 9
    umin = 10
    fadd = 11
    fsub = 12
    fmax = 13
    fmin = 14
    uinc_wrap = 15
    udec_wrap = 16

    @property
    def llvm_keyword(self) -> str:
        """The spelling in LLVM IR (``and``, ``or``, ``xor``)."""
        return self.name.rstrip("_")

    @property
    def keyword(self) -> str:
        """The spelling in MLIR's custom form (``_and``, ``_or``, ``_xor``)."""
        word = self.llvm_keyword
        return f"_{word}" if self.name.endswith("_") else word

    @classmethod
    def from_keyword(cls, word: str) -> AtomicBinOp | None:
        """The operation spelled ``word``: MLIR's spelling, or LLVM IR's (read as well)."""
        for op in cls:
            if word in (op.keyword, op.llvm_keyword):
                return op
        return None

    @property
    def is_float(self) -> bool:
        return self in (AtomicBinOp.fadd, AtomicBinOp.fsub, AtomicBinOp.fmax, AtomicBinOp.fmin)


class AsmDialect(IntEnum):
    """``asm_dialect`` of ``llvm.inline_asm``."""

    att = 0
    intel = 1


#: GEP no-wrap flags (an i32 bit set): ``inbounds`` = inbounds_flag | nusw.
GEP_INBOUNDS_FLAG, GEP_NUSW, GEP_NUW = 1, 2, 4
GEP_INBOUNDS = GEP_INBOUNDS_FLAG | GEP_NUSW
GEP_ALL_FLAGS = GEP_INBOUNDS | GEP_NUW


def gep_flags_keywords(flags: int) -> list[str]:
    """The custom-form keywords of a GEP flag set (``inbounds``, ``nusw``, ``nuw``)."""
    words = []
    if flags & GEP_INBOUNDS == GEP_INBOUNDS:
        words.append("inbounds")
    else:
        if flags & GEP_INBOUNDS_FLAG:
            words.append("inbounds_flag")
        if flags & GEP_NUSW:
            words.append("nusw")
    if flags & GEP_NUW:
        words.append("nuw")
    return words


GEP_KEYWORDS = {"inbounds": GEP_INBOUNDS, "inbounds_flag": GEP_INBOUNDS_FLAG, "nusw": GEP_NUSW}
GEP_KEYWORDS["nuw"] = GEP_NUW
