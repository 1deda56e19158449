"""Parser for MLIR text: generic and custom op forms, regions, blocks, aliases, locations.

Entry points: :func:`parse_source` (reports diagnostics, returns None on failure) and
:func:`parse` (raises DiagnosticError). Both take a buffer name and a line offset so tools can
parse ``// -----`` split files with exact ``file:line:col`` positions.

The :class:`Parser` is also the API custom op parsers use (``OpAsmParser``): operands are read
as unresolved names and resolved once their types are known, exactly as in MLIR.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .attr_parser import AttrParser, ParseError
from .attributes import Attribute
from .block import Block, Region
from .diagnostics import Diagnostic, DiagnosticError, Severity
from .lexer import EOF_TOKEN, SourceBuffer
from .limits import MAX_REGION_NESTING
from .location import FileLineColLoc, Location
from .operation import Operation, UnregisteredOp
from .traits import IsolatedFromAbove
from .types import Type
from .values import Value

if TYPE_CHECKING:
    from .context import Context

_AUTO_ARG_NAME = re.compile(r"arg[0-9]+\Z")


class SourceLoc:
    """A not-yet-computed ``file:line:col`` of token ``index`` (resolved on first use)."""

    __slots__ = ("index", "src")

    def __init__(self, src: SourceBuffer, index: int):
        self.src = src
        self.index = index

    def resolve(self) -> FileLineColLoc:
        line, col = self.src.token_line_col(self.index)
        return FileLineColLoc(self.src.name, line, col)


class _ForwardRef(Value):
    """Placeholder for a value used before its definition."""

    __slots__ = ("tok",)

    def __init__(self, type: Type, tok: int):
        self.type = type
        self.tok = tok
        self.uses = {}
        self.name_hint = None

    @property
    def owner(self) -> Any:
        return None

    @property
    def parent_block(self) -> None:
        return None


class UnresolvedOperand(NamedTuple):
    """An SSA use read by a custom parser before its type is known."""

    name: str  # "%x" without the result number
    number: int
    index: int  # token index, for diagnostics


class Argument(NamedTuple):
    """A region entry argument read by a custom parser (``%x: i32 {attrs} loc(...)``)."""

    operand: UnresolvedOperand
    type: Type | None
    attrs: dict[str, Attribute] | None
    loc: Location | None


class Parser(AttrParser):
    """Parses ops into blocks; also the API for custom op parsers."""

    def __init__(self, ctx: Context, src: SourceBuffer):
        super().__init__(ctx, src)
        self.values: dict[str, tuple[Value, ...]] = {}
        self.def_pos: dict[str, int] = {}
        self.forward: dict[str, dict[int, _ForwardRef]] = {}
        self._undo: list[list[str]] = []
        self._isolated: list[tuple[Any, ...]] = []
        self._blocks: list[dict[str, list[Any]]] = [{}]
        self._default_dialects: list[str] = ["builtin"]
        self._op_classes: list[type[Operation] | None] = [None]
        self._deferred_locs: list[tuple[Any, str, int]] = []
        self.op_start = 0
        self.result_count: int | None = None

    # -- top level ------------------------------------------------------------------------------
    def parse_top_level(self) -> Operation:
        """Parse a whole buffer; wrap the ops in a module unless it is a single module."""
        top = Block()
        toks = self.toks
        while True:
            tok = toks[self.pos]
            if tok == EOF_TOKEN:
                break
            c = tok[0]
            if (c == "#" or c == "!") and toks[self.pos + 1] == "=":
                self._parse_alias_definition()
            elif tok == "{-#":
                raise self.error("not supported: file metadata dictionary ({-# ... #-})")
            else:
                self.parse_operation(top)
        self._check_forward_refs()
        self._resolve_deferred_locations()
        from ..dialects.builtin import ModuleOp

        first = top.first_op
        if first is not None and first is top.last_op and isinstance(first, ModuleOp):
            first.detach()
            return first
        module = ModuleOp(loc=FileLineColLoc(self.src.name, self.src.line_offset, 0))
        body = module.body.block
        for op in list(top.ops):
            op.detach()
            body.append(op)
        return module

    def _parse_alias_definition(self) -> None:
        at = self.pos
        tok = self.advance()
        name = tok[1:]
        self.expect("=")
        if tok[0] == "!":
            if name in self.type_aliases:
                raise self.error(f"redefinition of type alias id '{name}'", at)
            if "." in name and self.ctx.get_dialect(name.split(".")[0]) is not None:
                raise self.error(f"type alias '{name}' clashes with a dialect type name", at)
            self.type_aliases[name] = self.parse_type()
        else:
            if name in self.attr_aliases:
                raise self.error(f"redefinition of attribute alias id '{name}'", at)
            self.attr_aliases[name] = self.parse_attribute()

    def _resolve_deferred_locations(self) -> None:
        for target, name, at in self._deferred_locs:
            loc = self.attr_aliases.get(name)
            if loc is None:
                raise self.error(f"operation location alias was never defined: '#{name}'", at)
            if not isinstance(loc, Location):
                raise self.error(f"expected location, but '#{name}' is not a location", at)
            if isinstance(target, Operation):
                target._loc = loc
            else:
                target.loc = loc

    # -- operations -----------------------------------------------------------------------------
    def parse_operation(self, block: Block) -> Operation:
        """Parse one op (with its results and trailing location) and append it to ``block``."""
        toks = self.toks
        start = self.pos
        tok = toks[start]
        names: list[tuple[str, int, int]] | None = None
        expected: int | None = None
        if tok[:1] == "%":
            names = self._parse_result_names()
            expected = 0
            for _, count, _ in names:
                expected += count
            if toks[self.pos] != "=":
                raise self.error(
                    f"expected '=' after SSA name, found {self.describe(toks[self.pos])}"
                )
            self.pos += 1
            tok = toks[self.pos]
        c = tok[:1]
        if c == '"':
            op = self._parse_generic_op()
        elif c.isalpha() or c == "_":
            op = self._parse_custom_op(start, expected)
        elif tok == EOF_TOKEN:
            raise self.error("expected operation, found end of file")
        else:
            raise self.error(f"expected operation name in quotes, found {self.describe(tok)}")
        if toks[self.pos] == "loc" and toks[self.pos + 1] == "(":
            self._parse_trailing_location(op)
            if op.regions:
                self._locate_implicit_parts(op, start)
        else:
            op._loc = SourceLoc(self.src, start)
        if names is not None:
            results = op.results
            if expected != len(results):
                raise self.error(
                    f"operation defines {len(results)} results but was provided {expected} to bind",
                    start,
                )
            self._define_results(names, results)
        block.append(op)
        return op

    def _parse_result_names(self) -> list[tuple[str, int, int]]:
        toks = self.toks
        names = []
        while True:
            at = self.pos
            tok = toks[at]
            if tok[:1] != "%" or "#" in tok:
                raise self.error(f"expected SSA result name, found {self.describe(tok)}")
            self.pos += 1
            count = 1
            if toks[self.pos] == ":":
                self.pos += 1
                n = toks[self.pos]
                if not n.isdigit() or int(n) < 1:
                    raise self.error("expected positive integer result count after ':'")
                count = int(n)
                self.pos += 1
            names.append((tok, count, at))
            if toks[self.pos] != ",":
                return names
            self.pos += 1

    def _define_results(self, names: list[tuple[str, int, int]], results: Sequence[Value]) -> None:
        pos = 0
        for key, count, at in names:
            group = tuple(results[pos : pos + count])
            hint = key[1:]
            if not hint.isdigit():
                group[0].name_hint = hint
            self.define(key, group, at)
            pos += count

    def define(self, key: str, values: tuple[Value, ...], at: int) -> None:
        """Bind ``%name`` to a group of values in the current scope."""
        if key in self.values:
            raise ParseError(
                f"redefinition of SSA value '{key}'",
                at,
                [("previously defined here", self.def_pos[key])],
            )
        self.values[key] = values
        self.def_pos[key] = at
        if self._undo:
            self._undo[-1].append(key)
        if self.forward:
            pending = self.forward.pop(key, None)
            if pending:
                for number, ref in pending.items():
                    if number >= len(values):
                        raise self.error(f"reference to invalid result number {number}", ref.tok)
                    real = values[number]
                    if real.type is not ref.type:
                        raise ParseError(
                            f"definition of SSA value '{key}#{number}' has type '{real.type.text}'",
                            at,
                            [(f"previously used here with type '{ref.type.text}'", ref.tok)],
                        )
                    ref.replace_all_uses_with(real)

    def _parse_generic_op(self) -> Operation:
        toks = self.toks
        at = self.pos
        tok = toks[at]
        name = (
            tok[1:-1]
            if "\\" not in tok and len(tok) > 1 and tok[-1] == '"'
            else self.parse_string()
        )
        self.pos = at + 1
        cls = self._lookup_generic(name, at)
        if toks[self.pos] != "(":
            raise self.error(
                f"expected '(' to start operand list, found {self.describe(toks[self.pos])}"
            )
        self.pos += 1
        uses: list[tuple[str, int]] = []
        if toks[self.pos] != ")":
            while True:
                t = toks[self.pos]
                if t[:1] != "%":
                    raise self.error(f"expected SSA operand, found {self.describe(t)}")
                uses.append((t, self.pos))
                self.pos += 1
                if toks[self.pos] != ",":
                    break
                self.pos += 1
        self.expect(")", "to end operand list")
        successors: list[Block] = []
        if toks[self.pos] == "[":
            successors = self.parse_comma_separated("[", self.parse_successor, "in successor list")
        properties = None
        if toks[self.pos] == "<" and toks[self.pos + 1] == "{":
            self.pos += 1
            properties = self.parse_attr_dict()
            self.expect(">", "to close properties")
        regions: list[Region] = []
        if toks[self.pos] == "(":
            self.pos += 1
            self._op_classes.append(cls)
            try:
                while True:
                    region = Region()
                    self._parse_region_into(region, None)
                    regions.append(region)
                    if toks[self.pos] != ",":
                        break
                    self.pos += 1
            finally:
                self._op_classes.pop()
            self.expect(")", "to end region list")
        attributes = None
        if toks[self.pos] == "{":
            attributes = self.parse_attr_dict()
        if toks[self.pos] != ":":
            raise self.error(
                f"expected ':' followed by operation type, found {self.describe(toks[self.pos])}"
            )
        self.pos += 1
        type_at = self.pos
        if toks[self.pos] != "(":
            raise self.error("expected function type for the operation")
        fn_type = self.parse_function_type()
        inputs = fn_type.inputs
        if len(inputs) != len(uses):
            raise self.error(f"expected {len(uses)} operand types but had {len(inputs)}", type_at)
        operands = [self._resolve(t, ty, i) for (t, i), ty in zip(uses, inputs)]
        if cls is None:
            return UnregisteredOp.create_named(
                name, operands, fn_type.results, properties, attributes, regions, successors
            )
        try:
            return cls.create(
                operands, fn_type.results, properties, attributes, regions, successors
            )
        except (ValueError, TypeError, ArithmeticError) as e:
            raise self.error(f"'{name}' op: {e}", at) from None

    def _lookup_generic(self, name: str, at: int) -> type[Operation] | None:
        cls = self.ctx.lookup_op(name)
        if cls is not None:
            return cls
        dot = name.find(".")
        dialect = self.ctx.get_dialect(name[:dot]) if dot > 0 else None
        if dialect is not None:
            raise self.error(
                f"unregistered operation '{name}' found in dialect '{dialect.name}'", at
            )
        if not self.ctx.allow_unregistered:
            raise self.error(
                f"operation '{name}' belongs to an unregistered dialect; "
                "allow unregistered dialects to accept it",
                at,
            )
        return None

    def _parse_custom_op(self, start: int, expected: int | None) -> Operation:
        at = self.pos
        name = self.toks[at]
        self.pos += 1
        cls = self.ctx.lookup_op(name)
        tried = [name]
        if cls is None and "." not in name:
            default = self._default_dialects[-1]
            if default:
                tried.append(f"{default}.{name}")
                cls = self.ctx.lookup_op(tried[-1])
            if cls is None and default != "builtin":
                tried.append(f"builtin.{name}")
                cls = self.ctx.lookup_op(tried[-1])
        if cls is None:
            also = (
                f" (tried {', '.join(repr(t) for t in tried[1:])} as well)"
                if len(tried) > 1
                else ""
            )
            raise self.error(f"custom op '{name}' is unknown{also}", at)
        if not cls.has_custom_assembly:
            raise self.error(f"'{cls.name}' has no custom assembly form; use the generic form", at)
        saved = (self.op_start, self.result_count)
        self.op_start, self.result_count = start, expected
        self._op_classes.append(cls)
        try:
            op = cls.parse_custom(self)
        except (ValueError, TypeError, ArithmeticError) as e:
            # An attribute or property the op's parser built from valid tokens is out of range
            # (an index that does not fit in i32, a dynamic layout where a static one is
            # needed): a diagnostic at the op, not an internal error at a later token.
            raise self.error(f"'{cls.name}' op: {e}", at) from None
        finally:
            self._op_classes.pop()
            self.op_start, self.result_count = saved
        if not isinstance(op, Operation):
            raise self.error(f"custom parser of '{cls.name}' did not return an operation", at)
        return op

    def _parse_trailing_location(self, target: Any) -> None:
        toks = self.toks
        at = self.pos
        if toks[at + 2][:1] == "#" and toks[at + 3] == ")":
            name = toks[at + 2][1:]
            loc = self.attr_aliases.get(name)
            if loc is None:
                self.pos = at + 4
                self._deferred_locs.append((target, name, at + 2))
                return
        loc = self.parse_location()
        if isinstance(target, Operation):
            target._loc = loc
        else:
            target.loc = loc

    def _locate_implicit_parts(self, op: Operation, start: int) -> None:
        """Give what ``op``'s text left without a location ``op``'s written location: block
        arguments without ``loc(...)`` and the implicit terminators its custom parser added.

        MLIR's parser gives an argument its own position in the text and an implicit terminator
        the op's position; both are kept when the op has no written location either. But text
        printed with debug info lacks locations only where the syntax has no room for one
        (``scf.for %i = ...``, an omitted ``scf.yield``), and those were built with their op's
        location (MLIR's builders; our printer's rule for arguments without one), so this keeps
        ``parse(print(x))`` equal to ``x``.
        """
        deferred = self._deferred_locs
        pending = deferred[-1] if deferred and deferred[-1][0] is op else None
        implicit = self.location_of(start)
        for region in op.regions:
            for block in region.blocks:
                parts: list[Any] = [a for a in block.args if isinstance(a._loc, SourceLoc)]
                last = block.last_op
                if last is not None and last._loc is implicit:
                    parts.append(last)
                for part in parts:
                    if pending is not None:
                        deferred.append((part, pending[1], pending[2]))
                    else:
                        part._loc = op._loc

    # -- values -------------------------------------------------------------------------------
    def _resolve(self, tok: str, type: Type, at: int) -> Value:
        if "#" in tok:
            key, _, num = tok.partition("#")
            number = int(num)
        else:
            key, number = tok, 0
        group = self.values.get(key)
        if group is not None:
            if number >= len(group):
                raise self.error(f"reference to invalid result number {number}", at)
            v = group[number]
            if v.type is not type:
                raise ParseError(
                    f"use of value '{tok}' expects different type than prior uses: "
                    f"'{type.text}' vs '{v.type.text}'",
                    at,
                    [("prior use here", self.def_pos[key])],
                )
            return v
        refs = self.forward.get(key)
        if refs is None:
            refs = self.forward[key] = {}
        ref = refs.get(number)
        if ref is None:
            ref = refs[number] = _ForwardRef(type, at)
        elif ref.type is not type:
            raise ParseError(
                f"use of value '{tok}' expects different type than prior uses: "
                f"'{type.text}' vs '{ref.type.text}'",
                at,
                [("prior use here", ref.tok)],
            )
        return ref

    def _check_forward_refs(self) -> None:
        for key, refs in self.forward.items():
            for number, ref in refs.items():
                name = key if number == 0 else f"{key}#{number}"
                raise self.error(f"use of undeclared SSA value name '{name}'", ref.tok)

    # -- regions and blocks -------------------------------------------------------------------
    def _parse_region_into(self, region: Region, entry_args: Sequence[Argument] | None) -> None:
        toks = self.toks
        if len(self._undo) >= MAX_REGION_NESTING:
            raise self.error(f"regions nest deeper than {MAX_REGION_NESTING} levels")
        self.expect("{", "to begin a region")
        cls = self._op_classes[-1]
        isolated = cls is not None and IsolatedFromAbove in cls._trait_types
        if isolated:
            self._isolated.append((self.values, self.forward, self.def_pos))
            self.values, self.forward, self.def_pos = {}, {}, {}
        self._undo.append([])
        self._blocks.append({})
        self._default_dialects.append(cls.default_dialect if cls is not None else "")
        try:
            if entry_args is not None:
                block = Block()
                region.add_block(block)
                for a in entry_args:
                    self._define_block_arg(block, a.operand, a.type, a.loc)
                if toks[self.pos][:1] == "^":
                    raise self.error("invalid block name in region with named arguments")
                self._parse_block_body(block)
            elif toks[self.pos] != "}":
                if toks[self.pos][:1] == "^":
                    block = self._parse_block_header(region)
                else:
                    block = Block()
                    region.add_block(block)
                self._parse_block_body(block)
            while toks[self.pos][:1] == "^":
                block = self._parse_block_header(region)
                self._parse_block_body(block)
            self.expect("}", "to end region")
            for name, (_, defined, ref_at) in self._blocks[-1].items():
                if not defined:
                    raise self.error(f"reference to an undefined block '{name}'", ref_at)
        finally:
            self._default_dialects.pop()
            self._blocks.pop()
            values = self.values
            for key in self._undo.pop():
                values.pop(key, None)
        if isolated:
            self._check_forward_refs()
            self.values, self.forward, self.def_pos = self._isolated.pop()

    def _parse_block_body(self, block: Block) -> None:
        toks = self.toks
        parse = self.parse_operation
        while True:
            c = toks[self.pos][:1]
            if c == "}" or c == "^":
                return
            if c == "":
                raise self.error("expected '}' to end region, found end of file")
            parse(block)

    def _block_entry(self, name: str, at: int) -> list[Any]:
        table = self._blocks[-1]
        entry = table.get(name)
        if entry is None:
            entry = table[name] = [Block(), False, at]
        return entry

    def _parse_block_header(self, region: Region) -> Block:
        at = self.pos
        name = self.advance()
        entry = self._block_entry(name, at)
        if entry[1]:
            raise self.error(f"redefinition of block '{name}'", at)
        entry[1] = True
        block: Block = entry[0]
        region.add_block(block)
        if self.accept("(") and not self.accept(")"):
            while True:
                t = self.toks[self.pos]
                if t[:1] != "%" or "#" in t:
                    raise self.error(f"expected block argument name, found {self.describe(t)}")
                operand = UnresolvedOperand(t, 0, self.pos)
                self.pos += 1
                self.expect(":", "after block argument name")
                ty = self.parse_type()
                loc = None
                arg = self._define_block_arg(block, operand, ty, loc)
                if self.toks[self.pos] == "loc" and self.toks[self.pos + 1] == "(":
                    self._parse_trailing_location(arg)
                if not self.accept(","):
                    break
            self.expect(")", "to end block argument list")
        self.expect(":", "after block name")
        return block

    def _define_block_arg(
        self, block: Block, operand: UnresolvedOperand, type: Type | None, loc: Location | None
    ) -> Value:
        if type is None:
            raise self.error("block argument needs a type", operand.index)
        arg = block.add_argument(
            type, loc if loc is not None else SourceLoc(self.src, operand.index)
        )  # type: ignore[arg-type]
        hint = operand.name[1:]
        if not hint.isdigit() and not _AUTO_ARG_NAME.match(hint):
            arg.name_hint = hint
        self.define(operand.name, (arg,), operand.index)
        return arg

    # == OpAsmParser API (for custom parsers) ===================================================
    @property
    def loc(self) -> Location:
        """Location of the op being parsed (its first token)."""
        return self.location_of(self.op_start)

    def parse_operand(self) -> UnresolvedOperand:
        u = self.parse_optional_operand()
        if u is None:
            raise self.error(f"expected SSA operand, found {self.describe(self.toks[self.pos])}")
        return u

    def parse_optional_operand(self) -> UnresolvedOperand | None:
        tok = self.toks[self.pos]
        if tok[:1] != "%":
            return None
        at = self.pos
        self.pos += 1
        if "#" in tok:
            key, _, num = tok.partition("#")
            return UnresolvedOperand(key, int(num), at)
        return UnresolvedOperand(tok, 0, at)

    def parse_operand_list(self, delimiter: str | None = None) -> list[UnresolvedOperand]:
        """``%a, %b`` (possibly empty), optionally wrapped in ``(``/``[``."""
        if delimiter is not None:
            return self.parse_comma_separated(delimiter, self.parse_operand, "in operand list")
        if self.toks[self.pos][:1] != "%":
            return []
        return self.parse_comma_separated(None, self.parse_operand)

    def resolve_operand(self, operand: UnresolvedOperand, type: Type) -> Value:
        tok = operand.name if operand.number == 0 else f"{operand.name}#{operand.number}"
        return self._resolve(tok, type, operand.index)

    def resolve_operands(
        self, operands: Sequence[UnresolvedOperand], types: Sequence[Type], at: int | None = None
    ) -> list[Value]:
        if len(operands) != len(types):
            raise self.error(
                f"{len(operands)} operands present, but expected {len(types)}",
                operands[0].index if operands and at is None else at,
            )
        return [self.resolve_operand(u, t) for u, t in zip(operands, types)]

    def parse_colon_type(self) -> Type:
        self.expect(":")
        return self.parse_type()

    def parse_type_list(self) -> list[Type]:
        """``t1, t2`` (at least one)."""
        return self.parse_comma_separated(None, self.parse_type)

    def parse_colon_type_list(self) -> list[Type]:
        self.expect(":")
        return self.parse_type_list()

    def parse_optional_colon_type_list(self) -> list[Type]:
        if self.accept(":"):
            return self.parse_type_list()
        return []

    def parse_arrow_type_list(self) -> list[Type]:
        self.expect("->")
        return self.parse_function_result_types()

    def parse_optional_arrow_type_list(self) -> list[Type]:
        if self.accept("->"):
            return self.parse_function_result_types()
        return []

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        if self.toks[self.pos] == "{":
            return self.parse_attr_dict()
        return {}

    def parse_optional_attr_dict_with_keyword(self) -> dict[str, Attribute]:
        if self.accept("attributes"):
            return self.parse_attr_dict()
        return {}

    def parse_argument(self, with_type: bool = True, with_attrs: bool = False) -> Argument:
        """``%x`` / ``%x: type`` / ``%x: type {attrs} loc(...)`` for region entry arguments."""
        t = self.toks[self.pos]
        if t[:1] != "%" or "#" in t:
            raise self.error(f"expected argument name, found {self.describe(t)}")
        operand = UnresolvedOperand(t, 0, self.pos)
        self.pos += 1
        ty = None
        attrs = None
        loc = None
        if with_type:
            self.expect(":", "after argument name")
            ty = self.parse_type()
            if with_attrs and self.toks[self.pos] == "{":
                attrs = self.parse_attr_dict()
            if self.toks[self.pos] == "loc" and self.toks[self.pos + 1] == "(":
                loc = self.parse_location()
        return Argument(operand, ty, attrs, loc)

    def parse_region(self, arguments: Sequence[Argument] | None = None) -> Region:
        """``{ ... }``; ``arguments`` become the entry block's arguments."""
        region = Region()
        self._parse_region_into(region, arguments)
        return region

    def parse_optional_region(self, arguments: Sequence[Argument] | None = None) -> Region | None:
        if self.toks[self.pos] != "{":
            return None
        return self.parse_region(arguments)

    def parse_successor(self) -> Block:
        at = self.pos
        tok = self.toks[at]
        if tok[:1] != "^":
            raise self.error(f"expected block name, found {self.describe(tok)}")
        self.pos += 1
        if len(self._blocks) <= 1:
            raise self.error("branch to a block outside of any region", at)
        return self._block_entry(tok, at)[0]

    def parse_successor_and_use_list(self) -> tuple[Block, list[Value]]:
        """``^bb(%a, %b : t1, t2)`` or ``^bb``."""
        block = self.parse_successor()
        values: list[Value] = []
        if self.accept("("):
            operands = self.parse_operand_list()
            types = self.parse_colon_type_list() if operands else []
            self.expect(")", "to end successor operands")
            values = self.resolve_operands(operands, types)
        return block, values

    def parse_optional_location(self) -> Location | None:
        if self.toks[self.pos] == "loc" and self.toks[self.pos + 1] == "(":
            return self.parse_location()
        return None

    def deferred_location(self, name: str, at: int) -> Location:
        raise self.error(
            f"undefined location alias '#{name}' (only whole locations may be forward references)",
            at,
        )


def _emit_parse_error(ctx: Context, p: Parser, e: ParseError) -> Diagnostic:
    diag = Diagnostic(Severity.ERROR, e.message, p.location_of(e.index))
    for message, index in e.notes:
        diag.attach_note(message, p.location_of(index))
    return ctx.diagnostics.emit(diag)


def parse_source(
    text: str,
    ctx: Context | None = None,
    *,
    buffer_name: str = "<string>",
    line_offset: int = 0,
) -> Operation | None:
    """Parse MLIR text into a ``builtin.module``; on error emit a diagnostic, return None.

    ``line_offset`` is added to every reported line (for split files).
    """
    if ctx is None:
        from .context import Context

        ctx = Context()
    ctx.diagnostics.sources.add(buffer_name, text, line_offset)
    src = SourceBuffer(text, buffer_name, line_offset)
    p = Parser(ctx, src)
    # Parsing allocates many small objects and frees none: pausing the cyclic garbage
    # collector avoids repeated full-heap scans (several times faster on large inputs).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return p.parse_top_level()
    except ParseError as e:
        _emit_parse_error(ctx, p, e)
    except RecursionError:
        ctx.diagnostics.emit(
            Diagnostic(Severity.ERROR, "nesting too deep to parse", p.location_of(p.pos))
        )
    except DiagnosticError as e:
        for d in e.diagnostics:
            ctx.diagnostics.emit(d)
    except Exception as e:  # a dialect hook misbehaved: still report, never a traceback
        ctx.diagnostics.emit(
            Diagnostic(
                Severity.ERROR,
                f"internal error while parsing: {type(e).__name__}: {e}",
                p.location_of(min(p.pos, len(p.toks) - 1)),
            )
        )
    finally:
        src.release_tokens()
        if gc_was_enabled:
            gc.enable()
    return None


def parse(
    text: str,
    ctx: Context | None = None,
    *,
    buffer_name: str = "<string>",
    line_offset: int = 0,
) -> Operation:
    """Parse MLIR text into a ``builtin.module``; raise DiagnosticError on failure."""
    if ctx is None:
        from .context import Context

        ctx = Context()
    with ctx.diagnostics.collect() as found:
        op = parse_source(text, ctx, buffer_name=buffer_name, line_offset=line_offset)
    if op is None:
        raise DiagnosticError(found)
    return op


def _parse_fragment(
    text: str, ctx: Context | None, fn: Callable[[AttrParser], Any], what: str
) -> Any:
    if ctx is None:
        from .context import Context

        ctx = Context()
    p = AttrParser(ctx, SourceBuffer(text, "<string>"))
    try:
        value = fn(p)
        if p.peek() != EOF_TOKEN:
            raise p.error(f"unexpected {p.describe(p.peek())} after {what}")
        return value
    except ParseError as e:
        diag = Diagnostic(Severity.ERROR, e.message, p.location_of(e.index))
        raise DiagnosticError([diag]) from None
    except (ValueError, TypeError, RecursionError) as e:
        raise DiagnosticError([Diagnostic(Severity.ERROR, f"invalid {what}: {e}")]) from None


def parse_type(text: str, ctx: Context | None = None) -> Type:
    """Parse a type such as ``vector<4xf32>`` (raise DiagnosticError on failure)."""
    return _parse_fragment(text, ctx, lambda p: p.parse_type(), "type")


def parse_attribute(text: str, ctx: Context | None = None) -> Attribute:
    """Parse an attribute such as ``array<i32: 1, 2>`` (raise DiagnosticError on failure)."""
    return _parse_fragment(text, ctx, lambda p: p.parse_attribute(), "attribute")
