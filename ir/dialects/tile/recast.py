"""CuTe's upcast/downcast/recast_layout, as the atoms use them (the definitions are the
algebra's: ``layoutc.ir.algebra.recast``).

Atoms are defined over bits (``(thread, value) -> bit``); a copy atom used with an element
type sees them over elements: ``recast_layout(layout, 1, element_bits)``.
"""

from __future__ import annotations

from ...algebra.recast import downcast, recast_layout, upcast

__all__ = ["downcast", "recast_layout", "upcast"]
