"""layoutc.ir: the layout algebra and the IR.

The algebra (pure Python, no SymPy at import) is re-exported here; see ir/algebra/.
"""

# --- layout algebra re-exports (owner: algebra) -------------------------------------------------
from .algebra import *  # noqa: F403
from .algebra import __all__ as _algebra_all

__all__ = list(_algebra_all)
