"""cf and func ops -> LLVM IR: branches feed the target blocks' phis; returns and calls."""

from __future__ import annotations

from layoutc.ir.dialects import cf, func
from llvmlite import ir

from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import fail

CONTROL = HandlerTable("translate cf")


@CONTROL.register(cf.BranchOp)
def _br(ft: FunctionTranslator, op: cf.BranchOp) -> None:
    target = ft.branch_args(op, op.dest, op.operands)
    ft.builder.branch(target)


@CONTROL.register(cf.CondBranchOp)
def _cond_br(ft: FunctionTranslator, op: cf.CondBranchOp) -> None:
    cond = ft.get(op.condition)
    b = ft.builder
    if op.trueDest is op.falseDest:
        # One LLVM predecessor cannot feed a phi two different values: route the false edge
        # through its own block.
        here = b.block
        edge = ft.new_block(f"{here.name}.false")
        b.position_at_end(edge)
        false_target = ft.branch_args(op, op.falseDest, op.falseDestOperands)
        b.branch(false_target)
        b.position_at_end(here)
        true_target = ft.branch_args(op, op.trueDest, op.trueDestOperands)
        b.cbranch(cond, true_target, edge)
        return
    true_target = ft.branch_args(op, op.trueDest, op.trueDestOperands)
    false_target = ft.branch_args(op, op.falseDest, op.falseDestOperands)
    b.cbranch(cond, true_target, false_target)


@CONTROL.register(func.ReturnOp)
def _return(ft: FunctionTranslator, op: func.ReturnOp) -> None:
    values = ft.operands(op)
    b = ft.builder
    if not values:
        b.ret_void()
    elif len(values) == 1:
        b.ret(values[0])
    else:
        agg: ir.Value = ir.Constant(ft.fn.function_type.return_type, ir.Undefined)
        for i, v in enumerate(values):
            agg = b.insert_value(agg, v, i)
        b.ret(agg)


@CONTROL.register(func.CallOp)
def _call(ft: FunctionTranslator, op: func.CallOp) -> None:
    callee_name = op.callee.root
    callee = ft.module.function(callee_name)
    if callee is None:
        raise fail(op, f"'{callee_name}' does not reference a function of this module")
    args = ft.operands(op)
    if ft.module.takes_context(callee_name):
        args.append(ft.require_context(op))
    result = ft.builder.call(callee, args, name=ft.name(op) if len(op.results) == 1 else "")
    if len(op.results) == 1:
        ft.set_result(op, result)
    elif op.results:
        for i, r in enumerate(op.results):
            ft.set(r, ft.builder.extract_value(result, i))
