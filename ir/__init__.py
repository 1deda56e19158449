"""layoutc.ir: the layout algebra and the IR.

The algebra (pure Python, no SymPy at import) is re-exported here; see ir/algebra/.
"""

# --- layout algebra re-exports (owner: algebra) -------------------------------------------------
from .algebra import *  # noqa: F403
from .algebra import __all__ as _algebra_all

__all__ = list(_algebra_all)


# --- IR core re-exports (owner: IR core) --------------------------------------------------------
# `layoutc.ir.Operation`, `layoutc.ir.parse`, ... resolve lazily to `layoutc.ir.core`, so that
# importing the algebra does not load the IR.
def __getattr__(name: str):
    if not name.startswith("_") and name not in ("core", "dialects", "algebra"):
        import importlib

        core = importlib.import_module(__name__ + ".core")
        if name in core.__all__:
            return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
