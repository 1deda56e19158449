"""Symbol tables: looking up ops by ``sym_name`` in the nearest op with the SymbolTable trait."""

from __future__ import annotations

from .attributes import StringAttr, SymbolRefAttr
from .operation import Operation
from .traits import SymbolTable, symbol_name


def nearest_symbol_table(op: Operation) -> Operation | None:
    """``op`` itself if it is a symbol table, else its closest symbol-table ancestor."""
    cur: Operation | None = op
    while cur is not None and not cur.has_trait(SymbolTable):
        cur = cur.parent_op
    return cur


def lookup_symbol_in(table: Operation, name: str | SymbolRefAttr) -> Operation | None:
    """The op named ``name`` directly inside ``table`` (nested references are followed)."""
    if isinstance(name, SymbolRefAttr):
        found = lookup_symbol_in(table, name.root)
        for part in name.nested:
            if found is None or not found.has_trait(SymbolTable):
                return None
            found = lookup_symbol_in(found, part)
        return found
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                if symbol_name(op) == name:
                    return op
    return None


def lookup_nearest_symbol_from(op: Operation, name: str | SymbolRefAttr) -> Operation | None:
    """Resolve ``name`` from ``op``, trying each enclosing symbol table outwards."""
    table = nearest_symbol_table(op.parent_op) if op.parent_op is not None else None
    while table is not None:
        found = lookup_symbol_in(table, name)
        if found is not None:
            return found
        parent = table.parent_op
        table = nearest_symbol_table(parent) if parent is not None else None
    return None


def unique_symbol_name(table: Operation, base: str) -> str:
    """``base`` or ``base_N``, whichever is not yet used inside ``table``."""
    used = {symbol_name(op) for region in table.regions for b in region.blocks for op in b.ops}
    if base not in used:
        return base
    n = 0
    while f"{base}_{n}" in used:
        n += 1
    return f"{base}_{n}"


def set_symbol_name(op: Operation, name: str) -> None:
    op.properties["sym_name"] = StringAttr(name)
