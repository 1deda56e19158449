"""A cheap structural fingerprint of an op tree, to tell whether a pass changed the IR.

Like MLIR's OperationFingerPrint it combines, for the op and everything nested in it, the
identity of each op, block and value with the op's name, properties, attributes, location,
operands, result types, successors and block arguments. Equal fingerprints mean "unchanged"
(up to an astronomically unlikely hash collision); it never prints the IR.
"""

from __future__ import annotations

from layoutc.ir.core.operation import Operation


def fingerprint(op: Operation) -> int:
    parts: list[object] = []
    append = parts.append
    for o in op.walk_ops():
        append(
            (
                id(o),
                o.name,
                tuple(o.properties.items()),
                tuple(o.attributes.items()),
                o.location,
                tuple(id(u.value) for u in o.operand_uses),
                tuple(r.type for r in o.results),
                tuple(id(s.block) for s in o.successors),
            )
        )
        for region in o.regions:
            append(len(region.blocks))
            for block in region.blocks:
                append((id(block), tuple(a.type for a in block.args)))
    return hash(tuple(parts))
