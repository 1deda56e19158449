"""Translating one function body: blocks, block arguments as phis, and op dispatch.

Blocks are visited in reverse post-order from the entry, so every value is translated before
its uses (MLIR's dominance rule); block arguments become phi nodes filled by the branches.
Each op is handed to the handler registered for its class (``translate_arith``, ``_cf``,
``_llvm``, ``_nvvm``, ``_host``); an op without one is an error at its location.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from layoutc.ir.core.block import Block
from layoutc.ir.core.dispatch import OpTable
from layoutc.ir.core.operation import Operation
from layoutc.ir.core.values import Value
from llvmlite import ir

from .llvm_builder import CastInstr, IRBuilder, PhiInstr
from .translate_types import I8, TranslationError, TypeConverter, fail

if TYPE_CHECKING:
    from .translate import ModuleTranslator

Handler = Callable[["FunctionTranslator", Any], None]


class HandlerTable(OpTable[Handler]):
    """Op class -> translation handler; modules fill one each with :meth:`register`
    (``@ARITH.register(arith.AddIOp)``; lookup follows the op class's MRO)."""

    __slots__ = ()


_HINT_CHARS = str.maketrans({c: "_" for c in ' "\\'})


def _reverse_post_order(entry: Block) -> list[Block]:
    order: list[Block] = []
    seen = {entry}
    stack: list[tuple[Block, Iterable[Block]]] = [(entry, iter(_successors(entry)))]
    while stack:
        block, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(block)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(_successors(nxt))))
    order.reverse()
    return order


def _successors(block: Block) -> list[Block]:
    term = block.last_op
    return term.successor_blocks if term is not None else []


class FunctionTranslator:
    """State for one ``func.func``: value and block maps, the builder, the thread context."""

    def __init__(
        self,
        module: ModuleTranslator,
        func: Any,
        fn: ir.Function,
        handlers: HandlerTable,
        context: ir.Value | None,
    ):
        self.module = module
        self.types: TypeConverter = module.types
        self.func = func
        self.fn = fn
        self.handlers = handlers
        self.context = context
        self.values: dict[Value, ir.Value] = {}
        self.blocks: dict[Block, ir.Block] = {}
        self.phis: dict[Block, list[PhiInstr]] = {}
        self.builder = IRBuilder()
        self._casts: dict[tuple[int, int, str], ir.Value] = {}
        self.context_struct: ir.Value | None = None

    # -- driver -------------------------------------------------------------------------------
    def translate(self, params: Sequence[ir.Argument]) -> None:
        region = self.func.body
        entry = region.blocks[0]
        order = _reverse_post_order(entry)
        numbers = {b: i for i, b in enumerate(region.blocks)}
        for block in order:
            self.blocks[block] = self.fn.append_basic_block(
                "entry" if block is entry else f"bb{numbers[block]}"
            )
        if self.context is not None:
            from layoutc.runtime.cpu_context import context_pointer_type

            self.builder.position_at_end(self.blocks[entry])
            self.context_struct = self.builder.bitcast(
                self.context, context_pointer_type(), "ctx.fields"
            )
        for arg, param in zip(entry.args, params):
            if arg.name_hint:
                param.name = arg.name_hint.translate(_HINT_CHARS)
            want = self.convert(arg.type, arg.loc)
            if param.type != want:  # a by-value parameter: its pointer as the argument's type
                self.builder.position_at_end(self.blocks[entry])
                self.values[arg] = self.builder.bitcast(param, want)
                continue
            self.values[arg] = param
        for block in order[1:]:
            self.builder.position_at_end(self.blocks[block])
            phis = []
            for arg in block.args:
                phi = self.builder.phi(self.convert(arg.type, arg.loc), name=self._hint(arg))
                self.values[arg] = phi
                phis.append(phi)
            self.phis[block] = phis
        lookup = self.handlers.lookup_type
        found: dict[type, Any] = {}  # the table's answers, per op class
        position = self.builder.position_at_end
        for block in order:
            position(self.blocks[block])
            op = block._first
            while op is not None:
                cls = type(op)
                handler = found.get(cls)
                if handler is None:
                    handler = found[cls] = lookup(cls)
                    if handler is None:
                        raise fail(op, self.module.unsupported_message(op))
                handler(self, op)
                op = op._next

    # -- values -------------------------------------------------------------------------------
    def get(self, v: Value) -> ir.Value:
        try:
            return self.values[v]
        except KeyError:
            raise self._untranslated(v) from None

    def _untranslated(self, v: Value) -> TranslationError:
        owner = v.defining_op
        where = f"'{owner.name}'" if owner is not None else "a block argument"
        return TranslationError(
            [
                self.func.diagnostic(
                    f"internal error: a value of {where} used before it was translated"
                )
            ]
        )

    def operands(self, op: Operation) -> list[ir.Value]:
        values = self.values
        try:
            return [values[v] for v in op.operands]
        except KeyError as e:
            raise self._untranslated(e.args[0]) from None

    def set(self, v: Value, value: ir.Value) -> None:
        self.values[v] = value

    def set_result(self, op: Operation, value: ir.Value) -> None:
        self.values[op.results[0]] = value

    def convert(self, t: Any, where: Any = None) -> ir.Type:
        return self.types.convert(t, where)

    def result_type(self, op: Operation, i: int = 0) -> ir.Type:
        return self.types.convert(op.results[i].type, op)

    @staticmethod
    def _hint(v: Value) -> str:
        return v.name_hint.translate(_HINT_CHARS) if v.name_hint else ""

    def name(self, op: Operation, i: int = 0) -> str:
        return self._hint(op.results[i]) if op.results else ""

    # -- pointers -----------------------------------------------------------------------------
    def typed_pointer(self, ptr: ir.Value, elem: ir.Type) -> ir.Value:
        """``ptr`` (an ``i8*``) as a pointer to ``elem`` in the same address space."""
        pt = ptr.type
        pointee = pt.pointee
        if pointee is elem or pointee == elem:
            return ptr
        if isinstance(ptr, CastInstr) and ptr.opname == "bitcast":
            # ``ptr`` is a typed pointer made canonical (a GEP's result, say): that pointer
            # itself when it has the wanted type, not a second cast back to it.
            source = ptr.operands[0]
            st = source.type
            if (
                isinstance(st, ir.PointerType)
                and st.pointee == elem
                and st.addrspace == pt.addrspace
            ):
                return source
        key = (id(self.builder.block), id(ptr), str(elem))
        got = self._casts.get(key)
        if got is None:
            got = self.builder.bitcast(ptr, self.types.pointer_to(elem, pt.addrspace))
            self._casts[key] = got
        return got

    def byte_pointer(self, ptr: ir.Value) -> ir.Value:
        """Any pointer back to the canonical ``i8*`` of its address space."""
        pt = ptr.type
        pointee = pt.pointee
        if pointee is I8 or pointee == I8:
            return ptr
        return self.builder.bitcast(ptr, self.types.pointer_to(I8, pt.addrspace))

    # -- control flow -------------------------------------------------------------------------
    def branch_args(self, op: Operation, dest: Block, values: Sequence[Value]) -> ir.Block:
        """Feed ``values`` to ``dest``'s phis from the current block; return its LLVM block."""
        target = self.blocks.get(dest)
        if target is None:
            raise fail(op, "internal error: branch to a block outside the function")
        here = self.builder.block
        for phi, v in zip(self.phis.get(dest, ()), values):
            phi.add_incoming(self.get(v), here)
        return target

    def new_block(self, name: str) -> ir.Block:
        """A fresh LLVM block after the current one (for expansions that need control flow)."""
        return self.fn.append_basic_block(name)

    def require_context(self, op: Operation) -> ir.Value:
        """The thread-context pointer (host flavour only)."""
        if self.context is None:
            raise fail(op, "internal error: no thread context in this function")
        return self.context
