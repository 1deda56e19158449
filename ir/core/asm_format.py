"""Declarative custom assembly: MLIR's ``assemblyFormat`` for Python op classes.

An op class may set, instead of writing ``print_custom``/``parse_custom``::

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

Directives (a subset of MLIR's, with its meaning and spacing rules):

- `` `kw` `` / `` `,` ``: a keyword or punctuation literal; `` `` `` (empty) removes the space
  before the next element.
- ``$name``: an operand group (single, optional or variadic: comma separated), a property
  (printed in its short form when its declaration fixes what it is stored as: a dialect
  attribute without its ``#dialect.mnemonic`` prefix, ``<nsw>`` for ``#arith.overflow<nsw>``,
  ``x`` for ``#gpu<dim x>``; an :func:`~.constraints.integer_attr` without its type, ``4`` for
  ``4 : i32``; any other attribute in full), a region (printed with its entry block header) or
  a successor.
- ``type($x)``: the type(s) of an operand or result group; ``functional-type($args, $res)``.
- ``attr-dict`` / ``attr-dict-with-keyword``: the properties and attributes the format does not
  print (defaulted properties at their default value are left out, as MLIR does).
- ``( ... $x^ ... )?``: an optional group printed when its anchor ``$x`` is present (non-empty
  group, a property that is set and not at its default); its first element must be a literal or
  an operand.

A property read by a format must satisfy its declared constraint where it is read (a parse
error at its token), since result types may be inferred from it.

Types that the format does not spell are inferred from ``SameOperandsAndResultType`` /
``SameTypeOperands`` or from the class's ``infer_result_types(operand_types, properties)``.
The format is checked when the class is created; a mistake raises ``TypeError`` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .attributes import Attribute, DialectAttribute
from .opdef import Arity, OpDef
from .traits import SameOperandsAndResultType, SameTypeOperands
from .types import DialectType, FunctionType, Type


def _short_form(constraint: Any) -> Any:
    """What a property is stored as when its format may print it short (see module doc)."""
    storage = getattr(constraint, "storage", None)
    if isinstance(storage, Type) or (
        isinstance(storage, type) and issubclass(storage, DialectAttribute)
    ):
        return storage
    return None


if TYPE_CHECKING:
    from .operation import Operation
    from .parser import Parser, UnresolvedOperand
    from .printer import Printer

_TOKEN = re.compile(
    r"\s*(?:(`[^`]*`)|(\$[A-Za-z_][A-Za-z0-9_]*\^?)|(attr-dict-with-keyword|attr-dict)"
    r"|(functional-type|type)\s*\(|(\))(\?)?|(\()|(,))"
)


def _parse_short_integer(p: Parser, t: Type) -> Attribute:
    """``4`` (``true``/``false``) as an ``IntegerAttr`` of the declared type ``t``."""
    from .attributes import IntegerAttr

    at = p.pos
    word = p.parse_optional_keyword("true", "false")
    value = int(word == "true") if word is not None else p.parse_integer()
    try:
        return IntegerAttr(value, t)
    except (TypeError, ValueError) as e:
        raise p.error(str(e), at) from None


class _Literal:
    def __init__(self, text: str):
        self.text = text


class _Var:
    def __init__(self, name: str, kind: str, index: int, anchor: bool):
        self.name, self.kind, self.index, self.anchor = name, kind, index, anchor


class _TypeOf:
    def __init__(self, var: _Var):
        self.var = var


class _FunctionalType:
    def __init__(self, inputs: _Var, results: _Var):
        self.inputs, self.results = inputs, results


class _AttrDict:
    def __init__(self, keyword: bool):
        self.keyword = keyword


class _Optional:
    def __init__(self, elements: list[Any], anchor: _Var):
        self.elements, self.anchor = elements, anchor


class AssemblyFormat:
    """A compiled assembly format for one op class."""

    def __init__(self, cls: type[Operation], text: str):
        self.cls = cls
        self.text = text
        op_def = cls._def
        if op_def is None:
            raise TypeError(f"{cls.__name__}: assembly_format needs a registered op class")
        self.op_def: OpDef = op_def
        self.elements = self._parse_format(text)
        self.printed_props = {
            v.name
            for v in self._all_vars(self.elements)
            if v.kind == "prop" and not isinstance(v, _TypeOf)
        }
        self._check()

    # -- reading the format ---------------------------------------------------------------------
    def _error(self, message: str) -> TypeError:
        return TypeError(f"{self.cls.__name__}.assembly_format {self.text!r}: {message}")

    def _var(self, token: str) -> _Var:
        anchor = token.endswith("^")
        name = token[1:].rstrip("^")
        d = self.op_def
        if name in d.operands.names:
            return _Var(name, "operand", d.operands.names.index(name), anchor)
        if name in d.results.names:
            return _Var(name, "result", d.results.names.index(name), anchor)
        if name in d.props:
            return _Var(name, "prop", -1, anchor)
        if name in d.region_names:
            return _Var(name, "region", d.region_names.index(name), anchor)
        if name in d.successor_names:
            return _Var(name, "successor", d.successor_names.index(name), anchor)
        raise self._error(f"'${name}' is not an operand, result, property, region or successor")

    def _parse_format(self, text: str) -> list[Any]:
        pos = 0
        stack: list[list[Any]] = [[]]
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise self._error(f"cannot read the format at {text[pos:]!r}")
            pos = m.end()
            literal, var, attr_dict, directive, close, question, open_, comma = m.groups()
            if literal is not None:
                stack[-1].append(_Literal(literal[1:-1]))
            elif var is not None:
                stack[-1].append(self._var(var))
            elif attr_dict is not None:
                stack[-1].append(_AttrDict(attr_dict == "attr-dict-with-keyword"))
            elif directive is not None:
                args = []
                while True:
                    m2 = re.compile(r"\s*(\$[A-Za-z_][A-Za-z0-9_]*)\s*([,)])").match(text, pos)
                    if m2 is None:
                        raise self._error(f"bad arguments to {directive}(...)")
                    args.append(self._var(m2.group(1)))
                    pos = m2.end()
                    if m2.group(2) == ")":
                        break
                if directive == "type":
                    if len(args) != 1 or args[0].kind not in ("operand", "result"):
                        raise self._error("type(...) takes one operand or result group")
                    if text[pos : pos + 1] == "^":  # type($x)^ anchors an optional group
                        pos += 1
                        args[0].anchor = True
                    stack[-1].append(_TypeOf(args[0]))
                else:
                    if len(args) != 2:
                        raise self._error("functional-type(...) takes two groups")
                    stack[-1].append(_FunctionalType(args[0], args[1]))
            elif open_ is not None:
                stack.append([])
            elif close is not None:
                if len(stack) == 1 or question is None:
                    raise self._error("groups must be written ( ... )?")
                elements = stack.pop()
                anchors = [v for v in self._all_vars(elements) if v.anchor]
                if len(anchors) != 1:
                    raise self._error("an optional group needs exactly one anchor ($x^)")
                first = elements[0] if elements else None
                if not isinstance(first, (_Literal, _Var)) or (
                    isinstance(first, _Var) and first.kind != "operand"
                ):
                    raise self._error("an optional group must start with a literal or an operand")
                stack[-1].append(_Optional(elements, anchors[0]))
            elif comma is not None:
                raise self._error("stray ',' (write `,` for a literal comma)")
        if len(stack) != 1:
            raise self._error("unclosed optional group")
        return stack[0]

    def _all_vars(self, elements: Sequence[Any]) -> list[_Var]:
        out: list[_Var] = []
        for e in elements:
            if isinstance(e, _Var):
                out.append(e)
            elif isinstance(e, _TypeOf) and e.var.anchor:
                out.append(e.var)
            elif isinstance(e, _Optional):
                out.extend(self._all_vars(e.elements))
        return out

    def _all_elements(self, elements: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for e in elements:
            out.append(e)
            if isinstance(e, _Optional):
                out.extend(self._all_elements(e.elements))
        return out

    def _check(self) -> None:
        d = self.op_def
        everything = self._all_elements(self.elements)
        if not any(isinstance(e, _AttrDict) for e in everything):
            raise self._error("the format must contain attr-dict or attr-dict-with-keyword")
        vars_ = [e for e in everything if isinstance(e, _Var)]
        for kind, names in (
            ("operand", d.operands.names),
            ("region", d.region_names),
            ("successor", d.successor_names),
        ):
            for name in names:
                if not any(v.kind == kind and v.name == name for v in vars_):
                    raise self._error(f"{kind} '${name}' does not appear in the format")
        typed_operands = set()
        typed_results = set()
        for e in everything:
            if isinstance(e, _TypeOf):
                (typed_operands if e.var.kind == "operand" else typed_results).add(e.var.name)
            elif isinstance(e, _FunctionalType):
                typed_operands.add(e.inputs.name)
                typed_results.add(e.results.name)
        same_all = SameOperandsAndResultType in self.cls._trait_types
        same_operands = SameTypeOperands in self.cls._trait_types
        self.infer = getattr(self.cls, "infer_result_types", None)
        for name, c in zip(d.operands.names, d.operands.constraints):
            if c is not None and c.exact is not None:
                typed_operands.add(name)  # the constraint admits a single type
        if set(d.operands.names) - typed_operands and not (
            (same_all and (typed_operands or typed_results)) or (same_operands and typed_operands)
        ):
            missing = sorted(set(d.operands.names) - typed_operands)
            raise self._error(f"the type of operand(s) {missing} cannot be inferred")
        self.spelled_operand_types = set(typed_operands)
        self.spelled_result_types = set(typed_results)
        for name, c in zip(d.results.names, d.results.constraints):
            if c is not None and c.exact is not None:
                typed_results.add(name)
        if set(d.results.names) - typed_results and not (same_all or self.infer is not None):
            missing = sorted(set(d.results.names) - typed_results)
            raise self._error(
                f"the type of result(s) {missing} cannot be inferred "
                "(spell it with type(...) or define infer_result_types)"
            )

    # -- printing -------------------------------------------------------------------------------
    def print(self, op: Operation, p: Printer) -> None:
        self._space = True
        self._last_punct = False
        self._print_elements(op, p, self.elements)

    def _group(self, op: Operation, var: _Var) -> Sequence[Any]:
        if var.kind == "operand":
            start, n = op.operand_group_ranges()[var.index]
            return op.operands[start : start + n]
        start, n = self.op_def.results.ranges(op, len(op.results))[var.index]
        return op.results[start : start + n]

    def _present(self, op: Operation, var: _Var) -> bool:
        if var.kind in ("operand", "result"):
            return bool(self._group(op, var))
        if var.kind == "prop":
            value = op.properties.get(var.name)
            return value is not None and value is not self.op_def.props[var.name].default
        if var.kind == "region":
            return bool(op.regions[var.index].blocks)
        return True

    def _emit(self, p: Printer, text: str, literal: bool = False) -> None:
        """Write ``text`` with MLIR's spacing rules for formats."""
        if literal:
            if self._space:
                if len(text) != 1 and text != "->":
                    p.write(" ")
                elif self._last_punct:
                    if text[0] not in ">)}],":
                        p.write(" ")
                elif text[0] not in "<>(){}[],":
                    p.write(" ")
            p.write(text)
            self._space = not (len(text) == 1 and text in "<({[")
            self._last_punct = text[0] != "_" and not text[0].isalpha()
            return
        if self._space:
            p.write(" ")
        p.write(text)
        self._space = True
        self._last_punct = False

    def _print_elements(self, op: Operation, p: Printer, elements: Sequence[Any]) -> None:
        for e in elements:
            if isinstance(e, _Literal):
                if e.text == "":
                    self._space = False
                    continue
                self._emit(p, e.text, literal=True)
            elif isinstance(e, _Optional):
                if self._present(op, e.anchor):
                    self._print_elements(op, p, e.elements)
            elif isinstance(e, _AttrDict):
                self._print_attr_dict(op, p, e.keyword)
            elif isinstance(e, _TypeOf):
                items = self._group(op, e.var)
                if items:
                    self._emit(p, ", ".join(v.type.text for v in items))
            elif isinstance(e, _FunctionalType):
                ins = [v.type for v in self._group(op, e.inputs)]
                outs = [v.type for v in self._group(op, e.results)]
                self._emit(p, FunctionType(ins, outs).text)
            elif e.kind == "operand":
                items = self._group(op, e)
                if items:
                    self._emit(p, ", ".join(p.value_name(v) for v in items))
            elif e.kind == "prop":
                attr = op.properties.get(e.name)
                if attr is not None:
                    self._emit(p, self._prop_text(e.name, attr))
            elif e.kind == "region":
                if self._space:
                    p.write(" ")
                p.print_region(op.regions[e.index])
                self._space = True
                self._last_punct = False
            elif e.kind == "successor":
                blocks = (
                    [s.block for s in op.successors[e.index :]]
                    if self.op_def.successors_variadic
                    and e.index == len(self.op_def.successor_names) - 1
                    else [op.successors[e.index].block]
                )
                self._emit(p, ", ".join(p._block_name(b) for b in blocks))

    def _prop_text(self, name: str, attr: Attribute) -> str:
        storage = _short_form(self.op_def.props[name].constraint)
        if isinstance(storage, Type) and getattr(attr, "type", None) is storage:
            return attr.text.removesuffix(f" : {storage.text}")
        if storage is not None and isinstance(attr, storage):
            return attr.print_parameters().lstrip()
        return attr.text

    def _print_attr_dict(self, op: Operation, p: Printer, keyword: bool) -> None:
        elided = set(self.printed_props)
        for name, spec in self.op_def.props.items():
            value = op.properties.get(name)
            if value is not None and spec.default is not None and value is spec.default:
                elided.add(name)
        if self.op_def.operands.segment_attr:
            elided.add(self.op_def.operands.segment_attr)
        if self.op_def.results.segment_attr:
            elided.add(self.op_def.results.segment_attr)
        merged = {**op.attributes, **op.properties}
        if keyword:
            p.print_optional_attr_dict_with_keyword(merged, elided)
        else:
            p.print_optional_attr_dict(merged, elided)
        self._space = True
        self._last_punct = False

    # -- parsing --------------------------------------------------------------------------------
    def parse(self, p: Parser) -> Operation:
        state: dict[str, Any] = {
            "operands": {},
            "types": {},
            "result_types": {},
            "props": {},
            "attrs": {},
            "regions": {},
            "successors": {},
        }
        self._parse_elements(p, self.elements, state)
        return self._build(p, state)

    def _starts(self, p: Parser, first: Any) -> bool:
        if isinstance(first, _Literal):
            return p.peek() == first.text
        return p.peek()[:1] == "%"

    def _parse_elements(self, p: Parser, elements: Sequence[Any], state: dict[str, Any]) -> None:
        d = self.op_def
        for e in elements:
            if isinstance(e, _Literal):
                if e.text == "":
                    continue
                if e.text[:1].isalpha() or e.text[:1] == "_":
                    p.parse_keyword(e.text)
                else:
                    p.expect(e.text)
            elif isinstance(e, _Optional):
                if self._starts(p, e.elements[0]):
                    self._parse_elements(p, e.elements, state)
            elif isinstance(e, _AttrDict):
                attrs = (
                    p.parse_optional_attr_dict_with_keyword()
                    if e.keyword
                    else p.parse_optional_attr_dict()
                )
                state["attrs"].update(attrs)
            elif isinstance(e, _TypeOf):
                key = "types" if e.var.kind == "operand" else "result_types"
                layout = d.operands if e.var.kind == "operand" else d.results
                arity = layout.arities[e.var.index]
                storage = getattr(layout.constraints[e.var.index], "storage", None)
                state[key][e.var.name] = self._parse_types(p, arity, storage)
            elif isinstance(e, _FunctionalType):
                at = p.pos
                ftype = p.parse_type()
                if not isinstance(ftype, FunctionType):
                    raise p.error("expected a function type", at)
                state["types"][e.inputs.name] = list(ftype.inputs)
                state["result_types"][e.results.name] = list(ftype.results)
            elif e.kind == "operand":
                arity = d.operands.arities[e.index]
                if arity is Arity.SINGLE:
                    state["operands"][e.name] = [p.parse_operand()]
                elif arity is Arity.OPTIONAL:
                    u = p.parse_optional_operand()
                    state["operands"][e.name] = [u] if u is not None else []
                else:
                    state["operands"][e.name] = p.parse_operand_list()
            elif e.kind == "prop":
                constraint = d.props[e.name].constraint
                storage = _short_form(constraint)
                at = p.pos
                if isinstance(storage, Type):
                    attr = _parse_short_integer(p, storage)
                elif storage is not None:
                    attr = storage.parse_parameters(p)
                else:
                    attr = p.parse_attribute()
                if constraint is not None and not constraint(attr):
                    # Here rather than in the verifier: result types may be inferred from it.
                    raise p.error(
                        f"'{self.cls.name}' expects {constraint.description} for '{e.name}', "
                        f"got {attr.text}",
                        at,
                    )
                state["props"][e.name] = attr
            elif e.kind == "region":
                state["regions"][e.name] = p.parse_region()
            elif e.kind == "successor":
                if d.successors_variadic and e.index == len(d.successor_names) - 1:
                    blocks = [p.parse_successor()] if p.peek()[:1] == "^" else []
                    while blocks and p.accept(","):
                        blocks.append(p.parse_successor())
                    state["successors"][e.name] = blocks
                else:
                    state["successors"][e.name] = [p.parse_successor()]

    def _parse_types(self, p: Parser, arity: Arity, storage: Any = None) -> list[Type]:
        if arity is Arity.SINGLE:
            if isinstance(storage, type) and issubclass(storage, DialectType) and p.peek() == "<":
                # MLIR prints a type its constraint fixes the class of stripped (``<3>`` for
                # ``!llvm.ptr<3>``): read that too.
                return [storage.parse_parameters(p)]
            return [p.parse_type()]
        first = p.parse_optional_type()
        if first is None:
            return []
        types = [first]
        if arity is Arity.VARIADIC:
            while p.accept(","):
                types.append(p.parse_type())
        return types

    def _build(self, p: Parser, state: dict[str, Any]) -> Operation:
        d = self.op_def
        operands: dict[str, list[UnresolvedOperand]] = state["operands"]
        types: dict[str, list[Type]] = state["types"]
        result_types: dict[str, list[Type]] = state["result_types"]
        known = next((t[0] for t in [*types.values(), *result_types.values()] if t), None)
        same_all = SameOperandsAndResultType in self.cls._trait_types
        values: list[Any] = []
        sizes: list[int] = []
        for name, c in zip(d.operands.names, d.operands.constraints):
            group = operands.get(name, [])
            group_types = types.get(name)
            if group_types is None and not group:
                group_types = []
            if group_types is None and c is not None and c.exact is not None:
                group_types = [c.exact] * len(group)
            if group_types is None:
                if known is None:
                    raise p.error(f"cannot infer the type of operand group '{name}'")
                group_types = [known] * len(group)
            values.extend(p.resolve_operands(group, group_types))
            sizes.append(len(group))
        out_types: list[Type] = []
        result_sizes: list[int] = []
        operand_types = [v.type for v in values]
        inferred: list[Type] | None = None
        for k, name in enumerate(d.results.names):
            group = result_types.get(name)
            c = d.results.constraints[k]
            if (
                group is None
                and name in self.spelled_result_types
                and d.results.arities[k] is not Arity.SINGLE
            ):
                group = []  # its optional group was absent
            if group is None and c is not None and c.exact is not None:
                group = [c.exact]
            if group is None:
                if same_all and operand_types and d.results.arities[k] is Arity.SINGLE:
                    group = [operand_types[0]]
                elif self.infer is not None:
                    if inferred is None:
                        inferred = list(self.infer(operand_types, state["props"]))
                    group = [inferred[k]]
                else:
                    raise p.error(f"cannot infer the type of result '{name}'")
            out_types.extend(group)
            result_sizes.append(len(group))
        props: dict[str, Attribute] = dict(state["props"])
        if d.operands.segment_attr:
            from .attributes import DenseArrayAttr
            from .types import i32

            props[d.operands.segment_attr] = DenseArrayAttr(i32, sizes)
        if d.results.segment_attr:
            from .attributes import DenseArrayAttr
            from .types import i32

            props[d.results.segment_attr] = DenseArrayAttr(i32, result_sizes)
        regions = [state["regions"][n] for n in d.region_names if n in state["regions"]]
        successors = [b for n in d.successor_names for b in state["successors"].get(n, [])]
        return self.cls.create(
            values, out_types, props, state["attrs"], regions, successors, loc=p.loc
        )


def install(cls: type[Operation]) -> None:
    """Give ``cls`` print_custom/parse_custom from its ``assembly_format`` string."""
    fmt = AssemblyFormat(cls, cls.assembly_format)  # type: ignore[arg-type]
    cls._assembly = fmt  # type: ignore[attr-defined]
    if "print_custom" not in cls.__dict__:
        cls.print_custom = lambda self, p: fmt.print(self, p)  # type: ignore[method-assign]
    if "parse_custom" not in cls.__dict__:
        cls.parse_custom = classmethod(lambda c, p: fmt.parse(p))  # type: ignore[method-assign,assignment]
