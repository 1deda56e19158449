"""``symbol-dce``: erase private symbols (functions, globals) that nothing live references.

Public and nested-visibility symbols are live, as is every op that is not a private symbol;
a private symbol becomes live when a live op references it. References are found in every
property and attribute (inside arrays and dictionaries too); attributes of unknown structure
are searched for ``@name`` text. Names are matched without regard to which symbol table they
resolve in, which can only keep a symbol alive, never erase a used one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from layoutc.ir.core.attributes import (
    ArrayAttr,
    Attribute,
    DialectAttribute,
    DictionaryAttr,
    OpaqueAttr,
    StringAttr,
    SymbolRefAttr,
)
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.traits import SymbolTable, symbol_name

from .base import Pass, Statistic
from .registry import register_pass

_SYMBOL_TEXT = re.compile(r'@(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_$.\-]*))')


def referenced_names(attr: Attribute) -> Iterator[str]:
    """Every symbol name an attribute mentions (all components of nested references)."""
    if isinstance(attr, SymbolRefAttr):
        yield attr.root
        yield from attr.nested
    elif isinstance(attr, ArrayAttr):
        for e in attr:
            yield from referenced_names(e)
    elif isinstance(attr, DictionaryAttr):
        for _, v in attr.entries:
            yield from referenced_names(v)
    elif isinstance(attr, (OpaqueAttr, DialectAttribute)):
        for m in _SYMBOL_TEXT.finditer(attr.text):
            yield m.group(1) if m.group(1) is not None else m.group(2)


def _visibility(op: Operation) -> str:
    attr = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return attr.value if isinstance(attr, StringAttr) else "public"


def private_symbols(root: Operation) -> dict[Operation, str]:
    """Private symbols directly inside every symbol table nested in (or equal to) ``root``."""
    found: dict[Operation, str] = {}
    for table in root.walk_ops():
        if not table.has_trait(SymbolTable):
            continue
        for region in table.regions:
            for block in region.blocks:
                for op in block.ops:
                    name = symbol_name(op)
                    if name is not None and _visibility(op) == "private":
                        found[op] = name
    return found


def erase_dead_symbols(root: Operation) -> int:
    """Erase unreferenced private symbols nested in ``root``; return how many were erased."""
    candidates = private_symbols(root)
    if not candidates:
        return 0
    refs_of: dict[Operation | None, set[str]] = {None: set()}

    def scan(op: Operation, owner: Operation | None) -> None:
        if op in candidates:
            owner = op
            refs_of.setdefault(op, set())
        names = refs_of[owner]
        for attrs in (op.properties, op.attributes):
            for key, value in attrs.items():
                if key == "sym_name":
                    continue
                names.update(referenced_names(value))
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    scan(nested, owner)

    scan(root, None)
    by_name: dict[str, list[Operation]] = {}
    for op, name in candidates.items():
        by_name.setdefault(name, []).append(op)
    live: set[Operation] = set()
    pending = list(refs_of[None])
    seen_names: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen_names:
            continue
        seen_names.add(name)
        for op in by_name.get(name, ()):
            if op not in live:
                live.add(op)
                pending.extend(refs_of.get(op, ()))
    dead = [op for op in candidates if op not in live]
    erased = 0
    gone: set[Operation] = set()
    for op in dead:
        if op in gone:
            continue
        gone.update(op.walk_ops())
        op.erase(check_uses=False)
        erased += 1
    return erased


@register_pass
class SymbolDCE(Pass):
    argument = "symbol-dce"
    summary = "Eliminate dead private symbols"
    description = "Erases private symbols that no live operation references."

    num_dce = Statistic("Number of symbols DCE'd", name="num-dce'd")

    def run_on_operation(self, op: Operation) -> None:
        erased = erase_dead_symbols(op)
        self.num_dce += erased
        if not erased:
            self.mark_all_analyses_preserved()
