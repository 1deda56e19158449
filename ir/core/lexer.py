"""Tokenizer for MLIR text.

The whole buffer is split into token strings by one compiled regular expression (``findall``
runs in C, which keeps parsing fast); token offsets are recomputed lazily, only when a
location or raw source text is needed (diagnostics, debug locations, opaque dialect bodies).
Tokens are classified by their first character; an unknown character becomes a one-character
token the parser reports.
"""

from __future__ import annotations

import bisect
import re

_TOKEN_BODY = r"""
  %[A-Za-z0-9_$.\-]+(?:\#[0-9]+)?          # value id, optionally with #result
| "(?:[^"\\\n]|\\.)*"                      # string literal
| [A-Za-z_][A-Za-z0-9_$.]*                 # bare identifier / keyword
| \{-\#|\#-\}                              # file metadata delimiters
| ->|::|\.\.\.                             # multi-character punctuation
| [(){}\[\]<>,=:*?+|]                      # punctuation
| [0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?       # float literal
| 0x[0-9A-Fa-f]+                           # hexadecimal integer
| [0-9]+                                   # decimal integer
| -                                        # minus
| \^[A-Za-z0-9_$.\-]+                      # block id
| @(?:[A-Za-z_$.\-][A-Za-z0-9_$.\-]*|"(?:[^"\\\n]|\\.)*")  # symbol reference
| [\#!][A-Za-z_$.\-][A-Za-z0-9_$.\-]*      # attribute / type alias or dialect name
| "[^\n]*                                  # unterminated string (reported by the parser)
| \S                                       # anything else (reported by the parser)
| \Z                                       # end of text after trailing comments (dropped)
"""

TOKEN_RE = re.compile(r"(?:\s+|//[^\n]*)*(" + _TOKEN_BODY + ")", re.VERBOSE)

EOF_TOKEN = ""


class SourceBuffer:
    """A named buffer of MLIR text, its tokens, and lazy token offsets / line numbers."""

    __slots__ = ("_line_starts", "_offsets", "line_offset", "name", "text", "tokens")

    def __init__(self, text: str, name: str = "<string>", line_offset: int = 0):
        self.text = text
        self.name = name
        self.line_offset = line_offset
        self.tokens: list[str] = TOKEN_RE.findall(text)
        # The final empty match (end of text) becomes the EOF token; without it, trailing
        # comments would be re-scanned from their second character on and turn into tokens.
        while self.tokens and self.tokens[-1] == EOF_TOKEN:
            self.tokens.pop()
        self.tokens.append(EOF_TOKEN)
        self._offsets: list[int] | None = None
        self._line_starts: list[int] | None = None

    def release_tokens(self) -> None:
        """Drop the token list once parsing is over (locations only need the text)."""
        self.tokens = []

    def offset(self, index: int) -> int:
        """Character offset of token ``index`` (the end of text for EOF)."""
        offsets = self._offsets
        if offsets is None:
            offsets = [m.start(1) for m in TOKEN_RE.finditer(self.text)]
            while offsets and offsets[-1] == len(self.text):
                offsets.pop()  # empty end-of-text matches (no real token starts there)
            offsets.append(len(self.text.rstrip()))
            self._offsets = offsets
        return offsets[min(index, len(offsets) - 1)]

    def end_offset(self, index: int) -> int:
        return self.offset(index) + len(self.tokens[index])

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset, including the line offset."""
        starts = self._line_starts
        if starts is None:
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        row = bisect.bisect_right(starts, offset) - 1
        return row + 1 + self.line_offset, offset - starts[row] + 1

    def token_line_col(self, index: int) -> tuple[int, int]:
        return self.line_col(self.offset(index))


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
_HEX = set("0123456789abcdefABCDEF")


def unescape_string(token: str) -> str | None:
    """The value of a string literal token, or None if it has a bad escape."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.extend(c.encode("utf-8"))
            i += 1
            continue
        if i + 1 >= n:
            return None
        e = body[i + 1]
        if e in _ESCAPES:
            out.extend(_ESCAPES[e].encode())
            i += 2
        elif i + 2 < n and e in _HEX and body[i + 2] in _HEX:
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
        else:
            return None
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return out.decode("latin-1")
