"""Typed pass options, declared on a Pass class and parsed from pipeline text.

A pass declares ``max_iterations = Option(int, 10, "help")``; the option is spelled
``max-iterations`` in pipelines (``canonicalize{max-iterations=5}``) unless ``name=`` says
otherwise. Values are parsed with MLIR's rules: ``key=value`` pairs separated by spaces, a bare
``key`` means true for a bool option, list options take comma-separated elements, and a value
may be quoted (``"a b"``) or wrapped in braces (``{...}``) to hold spaces and commas.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}
_SPECIAL = frozenset(",{}()[]\"'=\\")


class OptionError(Exception):
    """A bad option name or value; ``position`` is an offset into the text being parsed."""

    def __init__(self, message: str, position: int = 0):
        super().__init__(message)
        self.message = message
        self.position = position


def _parse_scalar(kind: type, text: str, what: str) -> Any:
    if kind is bool:
        low = text.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError(f"invalid value '{text}' for bool option {what}: expected true or false")
    if kind is int:
        try:
            return int(text, 0) if text.lower().startswith(("0x", "-0x")) else int(text, 10)
        except ValueError:
            raise ValueError(f"invalid value '{text}' for int option {what}") from None
    if kind is float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"invalid value '{text}' for float option {what}") from None
    return text


def _format_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if text == "" or any(c.isspace() or not c.isprintable() or c in _SPECIAL for c in text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


class Option(Generic[T]):
    """A typed pass option (``int``, ``bool``, ``str`` or ``float``) with a default and help.

    ``choices`` restricts the accepted values (an enum-like string option).
    """

    is_list = False

    def __init__(
        self,
        kind: type[T],
        default: T,
        help: str = "",
        *,
        name: str | None = None,
        choices: Sequence[T] | None = None,
    ):
        if kind not in (int, bool, str, float):
            raise TypeError(f"option type must be int, bool, str or float, not {kind!r}")
        self.kind = kind
        self.default = default
        self.help = help
        self.name = name or ""
        self.attr = ""
        self.choices = tuple(choices) if choices is not None else None

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr
        if not self.name:
            self.name = attr.replace("_", "-")

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._option_values[self.attr]

    def __set__(self, obj: Any, value: Any) -> None:
        obj._option_values[self.attr] = self.coerce(value)

    # -- values ----------------------------------------------------------------------------------
    def coerce(self, value: Any) -> Any:
        """Check a Python value given for this option (keyword argument of a pass)."""
        ok = isinstance(value, self.kind) and not (self.kind is int and isinstance(value, bool))
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise OptionError(f"option '{self.name}' expects a {self.kind.__name__}, got {value!r}")
        self._check_choice(value)
        return value

    def _check_choice(self, value: Any) -> None:
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(_format_scalar(c) for c in self.choices)
            raise OptionError(
                f"invalid value '{_format_scalar(value)}' for option '{self.name}': "
                f"expected one of {allowed}"
            )

    def parse(self, text: str | None) -> Any:
        """The value of ``text`` (None when the key was written without ``=value``)."""
        if text is None:
            if self.kind is bool:
                return True
            raise OptionError(f"option '{self.name}' needs a value ('{self.name}=...')")
        try:
            value = _parse_scalar(self.kind, text, f"'{self.name}'")
        except ValueError as e:
            raise OptionError(str(e)) from None
        self._check_choice(value)
        return value

    def format(self, value: Any) -> str:
        return _format_scalar(value)

    @property
    def type_name(self) -> str:
        if self.choices is not None:
            return "|".join(_format_scalar(c) for c in self.choices)
        return self.kind.__name__


class ListOption(Option[Any]):
    """A list option: ``disable-patterns=a,b,c`` (elements of ``int``, ``str``, ...)."""

    is_list = True

    def __init__(
        self,
        kind: type,
        default: Sequence[Any] = (),
        help: str = "",
        *,
        name: str | None = None,
        choices: Sequence[Any] | None = None,
    ):
        super().__init__(kind, tuple(default), help, name=name, choices=choices)

    def coerce(self, value: Any) -> Any:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise OptionError(f"option '{self.name}' expects a list, got {value!r}")
        scalar = Option(self.kind, None, name=self.name, choices=self.choices)  # type: ignore[arg-type]
        return tuple(scalar.coerce(v) for v in value)

    def parse(self, text: str | None) -> Any:
        if text is None or text == "":
            return ()
        out = []
        for item in split_top_level(text, ","):
            item = unquote(item.strip())
            try:
                value = _parse_scalar(self.kind, item, f"'{self.name}'")
            except ValueError as e:
                raise OptionError(str(e)) from None
            self._check_choice(value)
            out.append(value)
        return tuple(out)

    def format(self, value: Any) -> str:
        return ",".join(_format_scalar(v) for v in value)

    @property
    def type_name(self) -> str:
        return f"list of {super().type_name}"


class Statistic:
    """A counter a pass increments (``self.num_erased += 1``), reported by ``--pass-statistics``."""

    def __init__(self, description: str, *, name: str | None = None):
        self.description = description
        self.name = name or ""
        self.attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr
        if not self.name:
            self.name = attr.replace("_", "-")

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._statistic_values.get(self.attr, 0)

    def __set__(self, obj: Any, value: int) -> None:
        obj._statistic_values[self.attr] = value


# -- option text --------------------------------------------------------------------------------


def split_top_level(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside quotes, braces, brackets and parentheses."""
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def unquote(text: str) -> str:
    """Strip one level of quotes (with backslash escapes) or of braces around a value."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        body = text[1:-1]
        out = []
        i = 0
        while i < len(body):
            c = body[i]
            if c == "\\" and i + 1 < len(body):
                i += 1
                c = body[i]
            out.append(c)
            i += 1
        return "".join(out)
    if len(text) >= 2 and text[0] == "{" and text[-1] == "}":
        return text[1:-1]
    return text


def tokenize_options(text: str, base: int = 0) -> list[tuple[str, str | None, int]]:
    """``key=value key2 key3="a b"`` -> [(key, raw value or None, offset of key)].

    ``base`` is added to offsets so errors point into the enclosing pipeline string. Values
    keep their quotes/braces; :func:`unquote` strips them for scalar options.
    """
    out: list[tuple[str, str | None, int]] = []
    i = 0
    n = len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return out
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            if text[i] in "\"'{}":
                raise OptionError(f"unexpected '{text[i]}' in option name", base + i)
            i += 1
        key = text[start:i]
        if not key:
            raise OptionError("expected an option name before '='", base + i)
        if i < n and text[i] == "=":
            i += 1
            vstart = i
            depth = 0
            quote = ""
            while i < n:
                c = text[i]
                if quote:
                    if c == "\\":
                        i += 1
                    elif c == quote:
                        quote = ""
                elif c in "\"'":
                    quote = c
                elif c in "{[(":
                    depth += 1
                elif c in "}])":
                    depth -= 1
                    if depth < 0:
                        raise OptionError(f"unbalanced '{c}' in value of option '{key}'", base + i)
                elif c.isspace() and depth == 0:
                    break
                i += 1
            if quote:
                raise OptionError(f"unterminated string in value of option '{key}'", base + vstart)
            if depth:
                raise OptionError(f"unbalanced braces in value of option '{key}'", base + vstart)
            out.append((key, text[vstart:i], base + start))
        else:
            out.append((key, None, base + start))


def parse_option_values(
    options: dict[str, Option[Any]], text: str, owner: str, base: int = 0
) -> dict[str, Any]:
    """Parse ``text`` against declared ``options`` (by spelled name) -> {attr: value}."""
    values: dict[str, Any] = {}
    for key, raw, pos in tokenize_options(text, base):
        opt = options.get(key)
        if opt is None:
            close = difflib.get_close_matches(key, list(options), n=1)
            hint = f"did you mean '{close[0]}'?" if close else ""
            known = ", ".join(sorted(options)) or "none"
            raise OptionError(
                f"no such option '{key}' for {owner}; {hint or f'options: {known}'}", pos
            )
        if raw is not None:
            braced = raw.startswith("{") and raw.endswith("}")
            raw = raw[1:-1] if opt.is_list and braced else raw if opt.is_list else unquote(raw)
        try:
            values[opt.attr] = opt.parse(raw)
        except OptionError as e:
            raise OptionError(f"{e.message} (in {owner})", pos) from None
    return values


def collect_declared(cls: type, kind: type, name_of: Callable[[Any], str]) -> dict[str, Any]:
    """Descriptors of type ``kind`` declared on ``cls`` and its bases, keyed by spelled name."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for value in vars(klass).values():
            if isinstance(value, kind):
                found[name_of(value)] = value
    return found
