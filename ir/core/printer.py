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
from .traits import Terminator
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


class _Scope:
    """Names in use in a region and (through ``parent``) in the regions enclosing it."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: _Scope | None):
        self.parent = parent
        self.names: set[str] = set()

    def __contains__(self, name: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


class Printer:
    """Turns ops into MLIR text; custom printers call its ``print_*`` methods."""

    def __init__(self, *, generic: bool = False, debug_info: bool = False):
        self.generic = generic
        self.debug_info = debug_info
        self.out: list[str] = []
        self._names: dict[Value, str] = {}
        self._next_value = 0
        self._next_arg = 0
        self._next_conflict = 0
        self._root_scope = _Scope(None)
        self._block_names: dict[Block, str] = {}
        self._indent = 0
        # MLIR's printer starts with "builtin" as the default dialect (so `module` needs no prefix).
        self._default_dialects: list[str] = ["builtin"]

    def print_top(self, op: Operation) -> str:
        """Print ``op`` as the outermost op and return the text."""
        self._number_tree(op)
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
            state = (self._indent, len(self._default_dialects))
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
                del self._default_dialects[state[1] :]
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

    # -- naming (MLIR's scheme) -----------------------------------------------------------------
    def _number_tree(self, top: Operation) -> None:
        """Name every value and block under ``top`` before printing, as MLIR does.

        A region's block arguments and op results are numbered in order; every region nested in
        it then starts from the counters reached at the end of the enclosing region, so sibling
        regions reuse numbers (``%arg1`` in two sibling loops). Names from hints are unique
        within a region and the regions enclosing it.
        """
        self._name_results(top, self._root_scope)
        stack = [
            (r, self._next_value, self._next_arg, self._next_conflict, self._root_scope)
            for r in top.regions
        ]
        while stack:
            region, nv, na, nc, parent = stack.pop()
            self._next_value, self._next_arg, self._next_conflict = nv, na, nc
            scope = _Scope(parent)
            for i, block in enumerate(region.blocks):
                self._block_names[block] = f"^bb{i}"
                entry = i == 0
                for arg in block.args:
                    self._name_block_arg(arg, entry, scope)
                op = block._first
                while op is not None:
                    if op.results:
                        self._name_results(op, scope)
                    op = op._next
            counters = (self._next_value, self._next_arg, self._next_conflict)
            for block in region.blocks:
                op = block._first
                while op is not None:
                    for r in op.regions:
                        stack.append((r, *counters, scope))
                    op = op._next

    def _unique(self, name: str, scope: _Scope) -> str:
        if name in scope:
            while True:
                probe = f"{name}_{self._next_conflict}"
                self._next_conflict += 1
                if probe not in scope:
                    name = probe
                    break
        scope.names.add(name)
        return "%" + name

    def _fresh(self, hint: str | None, scope: _Scope) -> str:
        if hint is not None:
            clean = _sanitize(hint)
            if clean is not None:
                return self._unique(clean, scope)
        name = f"%{self._next_value}"
        self._next_value += 1
        return name

    def _name_results(self, op: Operation, scope: _Scope) -> None:
        results = op.results
        if not results:
            return
        names = self._names
        hints: list[str | None] = [r.name_hint for r in results]
        if hints[0] is None:
            suggested = op.asm_result_names()
            if suggested:
                hints = [h if h is not None else s for h, s in zip(hints, suggested)]
        if len(results) == 1:
            names[results[0]] = self._fresh(hints[0], scope)
        elif all(h is None for h in hints[1:]):
            base = self._fresh(hints[0], scope)
            for i, r in enumerate(results):
                names[r] = f"{base}#{i}"
        else:
            for r, h in zip(results, hints):
                names[r] = self._fresh(h, scope)

    def _name_block_arg(self, arg: BlockArgument, entry: bool, scope: _Scope) -> str:
        hint = arg.name_hint
        clean = _sanitize(hint) if hint is not None else None
        if clean is not None:
            name = self._unique(clean, scope)
        elif entry:
            name = self._unique(f"arg{self._next_arg}", scope)
            self._next_arg += 1
        else:
            name = f"%{self._next_value}"
            self._next_value += 1
        self._names[arg] = name
        return name

    def _print_result_defs(self, op: Operation) -> None:
        results = op.results
        names = self._names
        first = names.get(results[0])
        if first is None:  # an op outside the printed tree (custom printer misuse)
            self._name_results(op, self._root_scope)
            first = names[results[0]]
        if len(results) > 1 and first.endswith("#0"):
            self.out.append(f"{first[:-2]}:{len(results)}")
        else:
            self.out.append(", ".join(names[r] for r in results))

    def _forward_name(self, v: Value) -> str:
        """Name a value defined outside the printed op."""
        if isinstance(v, BlockArgument):
            return self._name_block_arg(
                v, v.block.is_entry or v.block.parent is None, self._root_scope
            )
        owner = v.owner
        if isinstance(owner, Operation) and owner.results:
            self._name_results(owner, self._root_scope)
        else:
            self._names[v] = self._fresh(v.name_hint, self._root_scope)
        return self._names[v]

    def value_name(self, v: Value) -> str:
        """The printed name of ``v``."""
        n = self._names.get(v)
        return n if n is not None else self._forward_name(v)

    def _block_name(self, block: Block) -> str:
        name = self._block_names.get(block)
        if name is None:
            name = f"^bb{len(self._block_names)}_unknown"
            self._block_names[block] = name
        return name

    def _define_block_arg(self, arg: BlockArgument) -> str:
        name = self._names.get(arg)
        if name is None:
            name = self._name_block_arg(arg, arg.block.is_entry, self._root_scope)
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
        self._default_dialects.append(parent.default_dialect if parent is not None else "")
        indent = self._indent
        for i, b in enumerate(region.blocks):
            if i == 0:
                header = (print_empty_block and b._first is None) or (
                    print_entry_block_args and bool(b.args)
                )
                self._print_block(b, header, print_block_terminators, indent)
            else:
                self._print_block(b, True, True, indent)
        self._default_dialects.pop()
        self._indent = indent
        out.append(" " * indent + "}")

    def _print_block(self, block: Block, header: bool, terminators: bool, indent: int) -> None:
        out = self.out
        if header:
            out.append(" " * indent + self._block_name(block))
            if block.args:
                out.append("(" + ", ".join(self._block_arg_text(a) for a in block.args) + ")")
            out.append(":\n")
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
