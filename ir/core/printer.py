"""Printer for MLIR text: the generic form and each op's custom form.

SSA names follow MLIR: values are numbered ``%0, %1`` (restarting inside ops isolated from
above), entry block arguments ``%arg0``; a value's ``name_hint`` (or the op's suggested name,
``%c4``) is used instead when present and de-duplicated as ``%name_0``, ``%name_1``. Multi-result
ops print ``%name:2`` and uses ``%name#1``. Blocks are ``^bb0, ^bb1`` per region.

The :class:`Printer` is also the API custom printers use (``OpAsmPrinter``). If a custom printer
fails, the op is printed in the generic form instead, so printing never loses information.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from .attributes import Attribute, dict_body_text, symbol_text
from .block import Block, Region
from .operation import Operation
from .traits import IsolatedFromAbove, Terminator
from .types import Type, result_list_text
from .values import BlockArgument, Value

if TYPE_CHECKING:
    from .location import Location

_VALID_NAME = re.compile(r"[A-Za-z$._\-][A-Za-z0-9$._\-]*\Z")
_INVALID_CHAR = re.compile(r"[^A-Za-z0-9$._\-]")


def _sanitize(hint: str) -> str | None:
    if _VALID_NAME.match(hint):
        return hint
    if not hint or hint.isdigit():
        return None
    hint = _INVALID_CHAR.sub("_", hint)
    return hint if not hint[0].isdigit() else "_" + hint


class Printer:
    """Turns ops into MLIR text; custom printers call its ``print_*`` methods."""

    def __init__(self, *, generic: bool = False, debug_info: bool = False):
        self.generic = generic
        self.debug_info = debug_info
        self.out: list[str] = []
        self._names: dict[Value, str] = {}
        self._used: set[str] = set()
        self._scopes: list[list[str]] = [[]]
        self._next_value = 0
        self._next_arg = 0
        self._next_conflict = 0
        self._block_names: dict[Block, str] = {}
        self._indent = 0
        # MLIR's printer starts with "builtin" as the default dialect (so `module` needs no prefix).
        self._default_dialects: list[str] = ["builtin"]

    def print_top(self, op: Operation) -> str:
        """Print ``op`` as the outermost op and return the text."""
        self.print_operation(op)
        return "".join(self.out)

    # -- ops ----------------------------------------------------------------------------------
    def print_operation(self, op: Operation) -> None:
        out = self.out
        if op.results:
            self._print_result_defs(op)
            out.append(" = ")
        if not self.generic and type(op).has_custom_assembly:
            mark = len(out)
            state = (self._indent, len(self._scopes), len(self._default_dialects))
            name = op.name
            default = self._default_dialects[-1]
            if (
                default
                and name.startswith(default)
                and name[len(default) : len(default) + 1] == "."
            ):
                name = name[len(default) + 1 :]
            out.append(name)
            try:
                op.print_custom(self)
            except Exception:
                del out[mark:]
                self._indent = state[0]
                for scope in self._scopes[state[1] :]:
                    self._used.difference_update(scope)
                del self._scopes[state[1] :]
                del self._default_dialects[state[2] :]
                self._print_generic(op)
        else:
            self._print_generic(op)
        if self.debug_info:
            out.append(" " + op.location.text)

    def _print_generic(self, op: Operation) -> None:
        out = self.out
        names = self._names
        operand_names = []
        for u in op._operands:
            v = u.value
            n = names.get(v)
            operand_names.append(n if n is not None else self._forward_name(v))
        out.append(f'"{op.name}"({", ".join(operand_names)})')
        if op.successors:
            out.append("[" + ", ".join(self._block_name(s.block) for s in op.successors) + "]")
        props = op.properties
        if props:
            items = sorted(props.items()) if len(props) > 1 else props.items()
            out.append(" <{" + dict_body_text(items) + "}>")
        if op.regions:
            out.append(" (")
            first = True
            for r in op.regions:
                if not first:
                    out.append(", ")
                first = False
                self.print_region(r, print_empty_block=True)
            out.append(")")
        attrs = op.attributes
        if attrs:
            items = sorted(attrs.items()) if len(attrs) > 1 else attrs.items()
            out.append(" {" + dict_body_text(items) + "}")
        operand_types = ", ".join([u.value.type.text for u in op._operands])
        out.append(f" : ({operand_types}) -> {result_list_text([r.type for r in op.results])}")

    # -- names --------------------------------------------------------------------------------
    def _unique(self, name: str) -> str:
        used = self._used
        if name in used:
            while True:
                probe = f"{name}_{self._next_conflict}"
                self._next_conflict += 1
                if probe not in used:
                    name = probe
                    break
        used.add(name)
        self._scopes[-1].append(name)
        return "%" + name

    def _fresh(self, hint: str | None) -> str:
        if hint is not None:
            clean = _sanitize(hint)
            if clean is not None:
                return self._unique(clean)
        name = f"%{self._next_value}"
        self._next_value += 1
        return name

    def _print_result_defs(self, op: Operation) -> None:
        results = op.results
        names = self._names
        hints: list[str | None] = [r.name_hint for r in results]
        if hints[0] is None:
            suggested = op.asm_result_names()
            if suggested:
                hints = [h if h is not None else s for h, s in zip(hints, suggested)]
        if len(results) == 1:
            r = results[0]
            existing = names.get(r)
            name = existing if existing is not None else self._fresh(hints[0])
            names[r] = name
            self.out.append(name)
            return
        if all(h is None for h in hints[1:]) and not any(r in names for r in results):
            base = self._fresh(hints[0])
            for i, r in enumerate(results):
                names[r] = f"{base}#{i}"
            self.out.append(f"{base}:{len(results)}")
            return
        parts = []
        for r, h in zip(results, hints):
            name = names.get(r)
            if name is None or "#" in name:
                name = self._fresh(h)
                names[r] = name
            parts.append(name)
        self.out.append(", ".join(parts))

    def _forward_name(self, v: Value) -> str:
        """Name a value used before its definition is printed (CFG and graph regions)."""
        if isinstance(v, BlockArgument):
            name = self._fresh(v.name_hint)
        elif v.owner is not None and len(v.owner.results) > 1:  # type: ignore[union-attr]
            # Name the whole group now; the definition will reuse these names.
            op = v.owner
            base = self._fresh(op.results[0].name_hint)  # type: ignore[union-attr]
            for i, r in enumerate(op.results):  # type: ignore[union-attr]
                self._names[r] = f"{base}#{i}"
            return self._names[v]
        else:
            name = self._fresh(v.name_hint)
        self._names[v] = name
        return name

    def value_name(self, v: Value) -> str:
        """The printed name of ``v`` (assigning one if it has none yet)."""
        n = self._names.get(v)
        return n if n is not None else self._forward_name(v)

    def _block_name(self, block: Block) -> str:
        name = self._block_names.get(block)
        if name is None:
            name = f"^bb{len(self._block_names)}_unknown"
            self._block_names[block] = name
        return name

    def _define_block_arg(self, arg: BlockArgument) -> str:
        existing = self._names.get(arg)
        if existing is not None:
            return existing
        hint = arg.name_hint
        if hint is not None and _sanitize(hint) is not None:
            name = self._unique(_sanitize(hint))  # type: ignore[arg-type]
        elif arg.block.is_entry:
            name = self._unique(f"arg{self._next_arg}")
            self._next_arg += 1
        else:
            name = f"%{self._next_value}"
            self._next_value += 1
        self._names[arg] = name
        return name

    # -- regions ------------------------------------------------------------------------------
    def print_region(
        self,
        region: Region,
        print_entry_block_args: bool = True,
        print_block_terminators: bool = True,
        print_empty_block: bool = False,
    ) -> None:
        """``{ blocks }`` at the current indentation."""
        out = self.out
        out.append("{\n")
        parent = region.parent
        isolated = parent is not None and IsolatedFromAbove in parent._trait_types
        if isolated:
            saved = (self._next_value, self._next_arg)
            self._next_value = self._next_arg = 0
        self._scopes.append([])
        self._default_dialects.append(parent.default_dialect if parent is not None else "")
        indent = self._indent
        blocks = region.blocks
        for i, b in enumerate(blocks):
            self._block_names[b] = f"^bb{i}"
        for i, b in enumerate(blocks):
            if i == 0:
                header = (print_empty_block and b._first is None) or (
                    print_entry_block_args and bool(b.args)
                )
                self._print_block(b, header, print_block_terminators, indent)
            else:
                self._print_block(b, True, True, indent)
        self._default_dialects.pop()
        for name in self._scopes.pop():
            self._used.discard(name)
        if isolated:
            self._next_value, self._next_arg = saved
        self._indent = indent
        out.append(" " * indent + "}")

    def _print_block(self, block: Block, header: bool, terminators: bool, indent: int) -> None:
        out = self.out
        if header:
            out.append(" " * indent + self._block_name(block))
            if block.args:
                out.append("(" + ", ".join(self._block_arg_text(a) for a in block.args) + ")")
            out.append(":\n")
        else:
            for a in block.args:
                self._define_block_arg(a)
        inner = indent + 2
        pad = " " * inner
        last = block._last
        skip = (
            not terminators
            and last is not None
            and last.has_trait(Terminator)
            and not last._operands
            and not last.attributes
            and not last.regions
            and not last.successors
        )
        op = block._first
        while op is not None:
            if skip and op is last:
                break
            self._indent = inner
            out.append(pad)
            self.print_operation(op)
            out.append("\n")
            op = op._next
        self._indent = indent

    def _block_arg_text(self, arg: BlockArgument) -> str:
        text = f"{self._define_block_arg(arg)}: {arg.type.text}"
        if self.debug_info and arg.loc is not None:
            text += " " + arg.loc.text
        return text

    # == OpAsmPrinter API (for custom printers) =================================================
    def write(self, text: str) -> None:
        self.out.append(text)

    def print_operand(self, v: Value) -> None:
        self.out.append(self.value_name(v))

    def print_operands(self, values: Iterable[Value]) -> None:
        self.out.append(", ".join(self.value_name(v) for v in values))

    def print_type(self, t: Type) -> None:
        self.out.append(t.text)

    def print_types(self, types: Iterable[Type]) -> None:
        self.out.append(", ".join(t.text for t in types))

    def print_attribute(self, a: Attribute) -> None:
        self.out.append(a.text)

    def print_symbol_name(self, name: str) -> None:
        self.out.append(symbol_text(name))

    def print_successor(self, block: Block) -> None:
        self.out.append(self._block_name(block))

    def print_successor_and_use_list(self, block: Block, values: Sequence[Value]) -> None:
        self.out.append(self._block_name(block))
        if values:
            self.out.append(
                f"({', '.join(self.value_name(v) for v in values)} : "
                f"{', '.join(v.type.text for v in values)})"
            )

    def print_block_argument(self, arg: BlockArgument, with_type: bool = True) -> None:
        """Define and print an entry argument printed in the op's syntax (``%i``, ``%a: i32``)."""
        name = self._define_block_arg(arg)
        if with_type:
            name += f": {arg.type.text}"
            if self.debug_info and arg.loc is not None:
                name += " " + arg.loc.text
        self.out.append(name)

    def print_optional_attr_dict(
        self, attrs: Mapping[str, Attribute], elided: Iterable[str] = ()
    ) -> None:
        """`` {a = 1 : i64}`` unless empty after eliding."""
        skip = set(elided)
        items = sorted((k, v) for k, v in attrs.items() if k not in skip)
        if items:
            self.out.append(" {" + dict_body_text(items) + "}")

    def print_optional_attr_dict_with_keyword(
        self, attrs: Mapping[str, Attribute], elided: Iterable[str] = ()
    ) -> None:
        skip = set(elided)
        items = sorted((k, v) for k, v in attrs.items() if k not in skip)
        if items:
            self.out.append(" attributes {" + dict_body_text(items) + "}")

    def print_attr_dict(self, op: Operation, elided: Iterable[str] = ()) -> None:
        """Properties and attributes not printed by the custom syntax, as `` {...}``."""
        merged = dict(op.attributes)
        merged.update(op.properties)
        self.print_optional_attr_dict(merged, elided)

    def print_optional_location(self, loc: Location | None) -> None:
        if self.debug_info and loc is not None:
            self.out.append(" " + loc.text)


def print_op(op: Operation, *, generic: bool = False, debug_info: bool = False) -> str:
    """The MLIR text of ``op``."""
    return Printer(generic=generic, debug_info=debug_info).print_top(op)
