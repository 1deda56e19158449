"""The pass statistics report (``--pass-statistics``), in MLIR's pipeline display format::

===-------------------------------------------------------------------------===
                         ... Pass statistics report ...
===-------------------------------------------------------------------------===
'func.func' Pipeline
  CSE
    (S) 3 num-cse'd - Number of operations CSE'd
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Pass

if TYPE_CHECKING:
    from .manager import OpPassManager

_RULE = "===" + "-" * 73 + "==="


def format_statistics_report(pm: OpPassManager) -> str:
    lines = [_RULE, " " * 25 + "... Pass statistics report ...", _RULE]

    def emit(manager: OpPassManager, depth: int) -> None:
        pad = "  " * depth
        for element in manager.elements:
            if isinstance(element, Pass):
                lines.append(f"{pad}{element.name}")
                stats = element.statistics()
                width = max((len(str(v)) for _, v in stats), default=1)
                for stat, value in stats:
                    lines.append(f"{pad}  (S) {value:>{width}} {stat.name} - {stat.description}")
            else:
                lines.append(f"{pad}'{element.anchor}' Pipeline")
                emit(element, depth + 1)

    emit(pm, 0)
    return "\n".join(lines) + "\n"
