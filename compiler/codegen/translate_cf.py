"""The llvm dialect's control flow -> LLVM IR: branches feed the target blocks' phis;
returns, calls, unreachable (what convert-cf-to-llvm and convert-func-to-llvm produce)."""

from __future__ import annotations

from typing import Any

from layoutc.ir.dialects.llvm import (
    LLVMBrOp,
    LLVMCallOp,
    LLVMCondBrOp,
    LLVMReturnOp,
    UnreachableOp,
)

from .translate_arith import fastmath
from .translate_function import FunctionTranslator, HandlerTable
from .translate_types import fail

CONTROL = HandlerTable("translate cf")


@CONTROL.register(LLVMBrOp)
def _br(ft: FunctionTranslator, op: Any) -> None:
    target = ft.branch_args(op, op.dest, op.operands)
    ft.builder.branch(target)


@CONTROL.register(LLVMCondBrOp)
def _cond_br(ft: FunctionTranslator, op: Any) -> None:
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


@CONTROL.register(LLVMReturnOp)
def _return(ft: FunctionTranslator, op: Any) -> None:
    values = ft.operands(op)
    if values:
        ft.builder.ret(values[0])
    else:
        ft.builder.ret_void()


@CONTROL.register(UnreachableOp)
def _unreachable(ft: FunctionTranslator, op: Any) -> None:
    ft.builder.unreachable()


@CONTROL.register(LLVMCallOp)
def _call(ft: FunctionTranslator, op: Any) -> None:
    callee_name = op.callee.root
    callee = ft.module.function(callee_name)
    if callee is None:
        raise fail(op, f"'{callee_name}' does not reference a function of this module")
    args = ft.operands(op)
    if ft.module.takes_context(callee_name):
        args.append(ft.require_context(op))
    result = ft.builder.call(callee, args, name=ft.name(op), fastmath=fastmath(op))
    if op.results:
        ft.set_result(op, result)
