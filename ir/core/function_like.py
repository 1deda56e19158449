"""What every function op shares, as MLIR's FunctionOpInterface: a ``function_type``
property, optional per-argument and per-result attribute arrays, and a ``body`` region whose
entry block takes the parameters (a declaration has no body). ``func.func`` and ``llvm.func``
derive from it instead of each writing the accessors and the attribute-array check."""

from __future__ import annotations

from typing import Any

from .attributes import ArrayAttr, DictionaryAttr, SymbolRefAttr
from .block import Block
from .constraints import Constraint
from .errors import VerifyError
from .values import BlockArgument

__all__ = ["DICT_ARRAY", "FLAT_SYMBOL_REF", "FunctionLike"]

#: ``arg_attrs``/``res_attrs``: one dictionary per parameter or result.
DICT_ARRAY = Constraint(
    lambda a: isinstance(a, ArrayAttr) and all(isinstance(e, DictionaryAttr) for e in a),
    "array of dictionaries",
)
#: A callee: ``@name``, no nested references.
FLAT_SYMBOL_REF = Constraint(
    lambda a: isinstance(a, SymbolRefAttr) and a.is_flat, "flat symbol reference"
)


class FunctionLike:
    """Mixin for function ops (put it before ``Operation`` in the bases). The op declares
    ``function_type``, ``arg_attrs``, ``res_attrs`` and ``body``."""

    __slots__ = ()
    function_type: Any
    arg_attrs: Any
    res_attrs: Any
    body: Any

    @property
    def type(self) -> Any:
        """The signature (a FunctionType or an LLVMFunctionType)."""
        return self.function_type.type

    @property
    def is_declaration(self) -> bool:
        return not self.body.blocks

    @property
    def entry_block(self) -> Block:
        return self.body.blocks[0]

    @property
    def args(self) -> list[BlockArgument]:
        return self.entry_block.args

    def verify_attribute_arrays(self) -> None:
        """``arg_attrs``/``res_attrs``, when present, have one entry per parameter/result."""
        ftype = self.type
        for what, attr, count in (
            ("argument", self.arg_attrs, len(ftype.inputs)),
            ("result", self.res_attrs, len(ftype.results)),
        ):
            if attr is not None and len(attr) != count:
                raise VerifyError(
                    f"expects {what} attribute array to have the same number of elements as "
                    f"the number of function {what}s, got {len(attr)}, but expected {count}"
                )
