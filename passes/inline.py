"""``inline``: replace ``func.call`` by the body of the called ``func.func``.

Callees are inlined bottom-up over the call graph (a function's own calls are inlined before it
is inlined elsewhere). A call is inlined when its callee is a defined function of the same
symbol table, is not part of a recursive cycle, and neither the call nor the callee carries
``no_inline``. A single-block callee is spliced in place; a multi-block callee is inlined into
the caller's CFG (the caller's block is split after the call and ``func.return`` becomes
``cf.br`` to the continuation), which needs a region that may hold several blocks — elsewhere
(e.g. inside ``scf.for``) such calls are left alone. Inlined ops get call-site locations
(``callsite(callee-loc at call-loc)``), so diagnostics still point at the user's call. Each
function that received code is then simplified with the ``default-pipeline`` (canonicalize).
Callees are not erased: ``symbol-dce`` removes private functions nothing calls any more.
"""

from __future__ import annotations

from layoutc.ir.core.block import Block, Region
from layoutc.ir.core.location import CallSiteLoc
from layoutc.ir.core.operation import IRMapping, Operation, clone_region_into
from layoutc.ir.core.symbols import lookup_nearest_symbol_from, nearest_symbol_table
from layoutc.ir.core.traits import GraphRegions, SingleBlock
from layoutc.ir.dialects.cf import BranchOp
from layoutc.ir.dialects.func import CallOp, FuncOp, ReturnOp

from .base import Option, Pass, Statistic
from .registry import register_pass


def _callee(call: CallOp) -> FuncOp | None:
    target = lookup_nearest_symbol_from(call, call.callee)
    return target if isinstance(target, FuncOp) else None


def _call_graph(root: Operation) -> tuple[list[FuncOp], dict[FuncOp, list[CallOp]]]:
    funcs: list[FuncOp] = []
    calls: dict[FuncOp, list[CallOp]] = {}
    for op in root.walk_ops():
        if isinstance(op, FuncOp):
            funcs.append(op)
            calls[op] = [c for c in op.walk_ops() if isinstance(c, CallOp)]
    return funcs, calls


def _recursive(funcs: list[FuncOp], calls: dict[FuncOp, list[CallOp]]) -> set[FuncOp]:
    """Functions that can reach themselves through calls (they are never inlined)."""
    edges = {f: {t for c in calls[f] if (t := _callee(c)) is not None} for f in funcs}
    cyclic: set[FuncOp] = set()
    for f in funcs:
        seen: set[FuncOp] = set()
        stack = list(edges[f])
        while stack:
            g = stack.pop()
            if g is f:
                cyclic.add(f)
                break
            if g not in seen:
                seen.add(g)
                stack.extend(edges.get(g, ()))
    return cyclic


def _post_order(funcs: list[FuncOp], calls: dict[FuncOp, list[CallOp]]) -> list[FuncOp]:
    """Callees before callers (cycles broken arbitrarily)."""
    seen: set[FuncOp] = set()
    order: list[FuncOp] = []
    for start in funcs:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(calls[start]))]
        while stack:
            node, it = stack[-1]
            for c in it:
                t = _callee(c)
                if t is not None and t not in seen and t in calls:
                    seen.add(t)
                    stack.append((t, iter(calls[t])))
                    break
            else:
                order.append(node)
                stack.pop()
    return order


def _allows_blocks(block: Block) -> bool:
    parent = block.parent_op
    return (
        parent is not None
        and parent._def is not None
        and SingleBlock not in parent._trait_types
        and GraphRegions not in parent._trait_types
    )


def _relocate(op: Operation, call_loc: object) -> None:
    for nested in op.walk_ops():
        nested.location = CallSiteLoc(nested.location, call_loc)  # type: ignore[arg-type]


def inline_call(call: CallOp, callee: FuncOp) -> bool:
    """Inline ``callee``'s body at ``call``; False (nothing changed) when it cannot be done."""
    body = callee.body
    block = call.parent
    if block is None or not body.blocks:
        return False
    call_loc = call.location
    mapping = IRMapping()
    if len(body.blocks) == 1:
        entry = body.blocks[0]
        term = entry.last_op
        if not isinstance(term, ReturnOp):
            return False
        for arg, value in zip(entry.args, call.operands):
            mapping.values[arg] = value
        for op in entry.ops:
            if op is term:
                break
            clone = op.clone(mapping)
            _relocate(clone, call_loc)
            block.insert_before(clone, call)
        results = [mapping.lookup_or_self(v) for v in term.operands]
        call.replace_all_uses_with(results)
        call.erase()
        return True
    if not _allows_blocks(block) or call.next_op is None:
        return False
    region = block.parent
    assert region is not None
    after = block.split_before(call.next_op)
    for r in call.results:
        r.replace_all_uses_with(after.add_argument(r.type, call_loc))
    scratch = Region()
    clone_region_into(body, scratch, mapping)
    position = region.blocks.index(after)
    new_blocks = list(scratch.blocks)
    for b in new_blocks:
        b.detach()
        region.insert_block(position, b)
        position += 1
        for arg in b.args:
            if arg.loc is not None:
                arg.loc = CallSiteLoc(arg.loc, call_loc)  # type: ignore[arg-type]
        for op in b.ops:
            _relocate(op, call_loc)
        term = b.last_op
        if isinstance(term, ReturnOp):
            values = list(term.operands)
            br = BranchOp(after, values, loc=term.location)
            b.insert_before(br, term)
            term.erase()
    block.insert_before(BranchOp(new_blocks[0], list(call.operands), loc=call_loc), call)
    call.erase()
    return True


@register_pass
class Inline(Pass):
    argument = "inline"
    display_name = "Inliner"
    summary = "Inline func.call of functions defined in the same symbol table"
    anchor = None

    default_pipeline = Option(
        str, "canonicalize", "Pipeline run on each function that received code ('' for none)"
    )
    num_inlined = Statistic("Number of calls inlined")

    def run_on_operation(self, op: Operation) -> None:
        funcs, calls = _call_graph(op)
        recursive = _recursive(funcs, calls)
        changed: list[FuncOp] = []
        for caller in _post_order(funcs, calls):
            inlined = False
            for call in [c for c in caller.walk_ops() if isinstance(c, CallOp)]:
                if call.no_inline is not None:
                    continue
                callee = _callee(call)
                if (
                    callee is None
                    or callee is caller
                    or callee in recursive
                    or callee.no_inline is not None
                    or nearest_symbol_table(callee.parent_op or callee)
                    is not nearest_symbol_table(caller.parent_op or caller)
                ):
                    continue
                if inline_call(call, callee):
                    self.num_inlined += 1
                    inlined = True
            if inlined:
                changed.append(caller)
        if not changed:
            self.mark_all_analyses_preserved()
            return
        if self.default_pipeline:
            self._simplify(changed)

    def _simplify(self, funcs: list[FuncOp]) -> None:
        from .manager import PassManager, PipelineError

        assert self.context is not None
        for func in funcs:
            try:
                pm = PassManager.parse(self.default_pipeline, self.context, anchor="func.func")
            except PipelineError as e:
                self.emit_error(func, f"invalid default-pipeline: {e}")
                self.signal_failure()
                return
            if not pm.run(func):
                self.signal_failure()
                return
