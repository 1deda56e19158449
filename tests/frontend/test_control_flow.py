"""Control flow in kernels: dynamic if/elif/else -> scf.if with results, lc.range -> scf.for with
carried values, dynamic while -> scf.while, static if/for run as Python (unrolled), and the
expression forms (and/or/not, chained comparisons, conditional expressions, min/max)."""

from __future__ import annotations

import layoutc as lc
from frontend_helpers import filecheck, loc_text, mlir_loc, trace_ir

HERE = __file__


@lc.kernel
def dyn_if(n: int):
    tid = lc.thread_idx.x
    if tid < n:  # @if-dyn
        x = tid * 2
        unused = tid + 5  # noqa: F841
    elif tid > 100:  # @elif-dyn
        x = 5
    else:
        x = n
    y = x + 1  # noqa: F841  # @after-if


def test_dynamic_if_yields_only_live_variables():
    ir = trace_ir(dyn_if, 10, debug_info=True)
    filecheck(
        ir,
        """
CHECK: func.func @dyn_if(%n: i32
CHECK: %[[TID:.*]] = gpu.thread_id x
CHECK: %[[C:.*]] = arith.cmpi slt, %[[TID]], %{{.*}} : index
CHECK: %[[X:.*]] = scf.if %[[C]] -> (index) {
CHECK:   %[[T:.*]] = arith.muli %[[TID]], %{{.*}} : index
CHECK:   arith.addi %[[TID]]
CHECK:   scf.yield %[[T]] : index
CHECK: } else {
CHECK:   arith.cmpi sgt, %[[TID]]
CHECK:   %[[E:.*]] = scf.if %{{.*}} -> (i32) {
CHECK:     arith.constant 5 : i32
CHECK:   } else {
CHECK:     scf.yield %n : i32
CHECK:   } <<0>>
CHECK:   %[[EI:.*]] = arith.index_cast %[[E]] : i32 to index
CHECK:   scf.yield %[[EI]] : index
CHECK: } <<1>>
CHECK: arith.addi %[[X]], %{{.*}} : index <<2>>
""",
        {
            "<<0>>": mlir_loc(HERE, "@elif-dyn", "elif"),
            "<<1>>": mlir_loc(HERE, "@if-dyn", "if"),
            "<<2>>": mlir_loc(HERE, "@after-if", "x + 1"),
        },
    )


@lc.kernel
def static_if(n: int, relu: lc.Constexpr[bool]):
    x = lc.f32(n)
    if relu:
        x = lc.max(x, 0.0)
    else:
        x = x * 2.0
    if n > 0:  # dynamic: both branches traced
        x = x + 1.0


def test_static_if_runs_one_branch_as_python():
    on = trace_ir(static_if, 3, True)
    off = trace_ir(static_if, 3, False)
    assert "arith.maximumf" in on and "arith.mulf" not in on
    assert "arith.mulf" in off and "arith.maximumf" not in off
    # the dynamic `if` assigns x but nothing reads it afterwards: no results
    filecheck(on, "CHECK: scf.if %{{.*}} {\nCHECK: arith.addf\nCHECK-NEXT: }\nCHECK-NEXT: return")


@lc.kernel
def carried(n: int):
    tid = lc.thread_idx.x
    acc = 0
    total = lc.f32(0)
    for i in lc.range(n):  # @for-outer
        for j in lc.range(i, n, 4):  # @for-inner
            acc = acc + i * j
        total = total + lc.f32(acc)
    scratch = acc  # noqa: F841
    for k in range(3):  # static: unrolled
        acc = acc + tid * k  # @unrolled


def test_lc_range_carries_live_values_and_static_range_unrolls():
    ir = trace_ir(carried, 64, debug_info=True)
    filecheck(
        ir,
        """
CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
CHECK-DAG: %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[ZERO]], %[[T:.*]] = %[[FZ]]) -> (index, f32) {
CHECK:   %[[IN:.*]] = scf.for %[[J:.*]] = %[[I]] to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (index) {
CHECK:     %[[P:.*]] = arith.muli %[[I]], %[[J]] : index
CHECK:     %[[S:.*]] = arith.addi %[[B]], %[[P]] : index
CHECK:     scf.yield %[[S]] : index
CHECK:   } <<0>>
CHECK:   arith.sitofp
CHECK:   %[[NT:.*]] = arith.addf %[[T]]
CHECK:   scf.yield %[[IN]], %[[NT]] : index, f32
CHECK: } <<1>>
CHECK-NOT: scf.for
CHECK: arith.muli %{{.*}}, %c2 : index <<2>>
CHECK: return
""",
        {
            "<<0>>": mlir_loc(HERE, "@for-inner", "for"),
            "<<1>>": mlir_loc(HERE, "@for-outer", "for"),
            "<<2>>": mlir_loc(HERE, "@unrolled", "tid * k"),
        },
    )
    # k = 0 folds away (acc + tid * 0), k = 1 is a plain add: two adds, one multiply by 2
    tail = ir[ir.rindex(mlir_loc(HERE, "@for-outer", "for")) :]
    assert tail.count("arith.addi") == 2 and tail.count("arith.muli") == 1


@lc.kernel
def dyn_while(n: int):
    x = n
    steps = 0
    while x > 1:  # @while
        x = x // 2
        steps = steps + 1
    y = steps + x  # noqa: F841


def test_dynamic_while_becomes_scf_while():
    ir = trace_ir(dyn_while, 1000, debug_info=True)
    filecheck(
        ir,
        """
CHECK: %[[W:.*]]:2 = scf.while (%[[S:.*]] = %{{.*}}, %[[X:.*]] = %n) : (index, i32) -> (index, i32) {
CHECK:   %[[C:.*]] = arith.cmpi sgt, %[[X]], %{{.*}} : i32
CHECK:   scf.condition(%[[C]]) %[[S]], %[[X]] : index, i32
CHECK: } do {
CHECK: ^bb0(%[[S2:[^:]*]]: index {{.*}}, %[[X2:[^:]*]]: i32 {{.*}}):
CHECK:   arith.floordivsi %[[X2]]
CHECK:   scf.yield
CHECK: } <<0>>
CHECK: arith.index_cast %[[W]]#1 : i32 to index
CHECK: arith.addi %[[W]]#0
""",
        {"<<0>>": mlir_loc(HERE, "@while", "while")},
    )


@lc.kernel
def static_while(n: int):
    k = 1
    out = n
    while k < 8:
        out = out * 2
        k = k * 2


def test_static_while_unrolls():
    ir = trace_ir(static_while, 5)
    assert "scf.while" not in ir and ir.count("arith.muli") == 3


@lc.kernel
def guard(n: int):
    tid = lc.thread_idx.x
    if tid >= n:  # @guard
        return
    x = tid + 1  # noqa: F841


def test_guard_return_puts_the_rest_under_the_negated_condition():
    ir = trace_ir(guard, 7, debug_info=True)
    filecheck(
        ir,
        """
CHECK: %[[C:.*]] = arith.cmpi sge
CHECK: %[[N:.*]] = arith.xori %[[C]], %true
CHECK: scf.if %[[N]] {
CHECK:   arith.addi
CHECK: } <<0>>
CHECK-NEXT: return
""",
        {"<<0>>": mlir_loc(HERE, "@guard", "if")},
    )


@lc.kernel
def expressions(n: int, m: int):
    tid = lc.thread_idx.x
    a = tid < n and tid % 4 == 0  # noqa: F841
    b = not (tid < n or m > 3)  # noqa: F841
    c = 0 < tid <= n  # noqa: F841
    d = tid * 2 if tid < m else n  # noqa: F841
    e = min(tid, n, 7)  # noqa: F841
    f = max(tid, 3)  # noqa: F841
    g = 1 < 2 < 3 and 4  # static: Python semantics
    assert g == 4


def test_expressions_on_dynamic_values():
    ir = trace_ir(expressions, 4, 5)
    filecheck(
        ir,
        """
CHECK: arith.andi
CHECK: arith.ori
CHECK: arith.xori
CHECK: arith.cmpi sgt
CHECK: arith.cmpi sle
CHECK: arith.andi
CHECK: arith.select
CHECK: arith.minsi
CHECK: arith.minsi
CHECK: arith.maxsi
""",
    )


@lc.kernel
def floor_semantics(n: int):
    tid = lc.thread_idx.x
    a = tid // 4  # noqa: F841  non-negative operands: truncating ops are exact
    b = tid % 4  # noqa: F841
    c = n // 4  # noqa: F841  n may be negative: Python's floor semantics
    d = n % 4  # noqa: F841


def test_division_and_modulo_have_python_semantics():
    ir = trace_ir(floor_semantics, 12)
    filecheck(
        ir,
        """
CHECK: arith.divsi %{{.*}}, %c4 : index
CHECK: arith.remsi %{{.*}}, %c4 : index
CHECK: %[[Q:.*]] = arith.floordivsi %n, %{{.*}} : i32
CHECK: %[[Q2:.*]] = arith.floordivsi %n, %{{.*}} : i32
CHECK: %[[M:.*]] = arith.muli %[[Q2]], %{{.*}} : i32
CHECK: arith.subi %n, %[[M]] : i32
""",
    )


@lc.kernel
def tuple_carried(n: int):
    pos = (0, 1)
    for _ in lc.range(n):
        pos = (pos[1], pos[0] + pos[1])
    last = pos[0]  # noqa: F841


def test_tuples_of_values_are_carried_elementwise():
    ir = trace_ir(tuple_carried, 10)
    filecheck(ir, "CHECK: scf.for {{.*}} iter_args({{.*}}, {{.*}}) -> (index, index)")


@lc.kernel
def nested_helper(n: int):
    def clamp(v):
        if v > n:
            v = n
        return v

    x = clamp(lc.thread_idx.x)  # noqa: F841


def test_functions_defined_in_the_kernel_get_dynamic_control_flow_too():
    ir = trace_ir(nested_helper, 3)
    filecheck(ir, "CHECK: scf.if %{{.*}} -> (index)")


@lc.func
def clamp_to(v, n):
    if v > n:  # @helper-if
        v = n
    return v


def plain_clamp(v, n):
    if v > n:  # @plain-helper-if
        v = n
    return v


@lc.kernel
def uses_helper(n: int):
    x = clamp_to(lc.thread_idx.x, n)  # @helper-call
    y = x + 1  # noqa: F841


@lc.kernel
def uses_plain_helper(n: int):
    x = plain_clamp(lc.thread_idx.x, n)  # noqa: F841  # @plain-call


def test_lc_func_helpers_get_dynamic_control_flow_and_call_site_locations():
    ir = trace_ir(uses_helper, 5, debug_info=True)
    helper = mlir_loc(HERE, "@helper-if", "if")[4:-1]
    call = mlir_loc(HERE, "@helper-call", "clamp_to(")[4:-1]
    filecheck(
        ir,
        "CHECK: %[[R:.*]] = scf.if %{{.*}} -> (index) {\nCHECK: } <<0>>\nCHECK: arith.addi %[[R]]",
        {"<<0>>": f"loc(callsite({helper} at {call}))"},
    )
    assert clamp_to(3, 2) == 2  # outside kernels it is the plain function


def test_plain_helpers_run_as_python_and_errors_name_the_call_site():
    import pytest

    with pytest.raises(lc.CompileError) as info:
        trace_ir(uses_plain_helper, 5)
    text = str(info.value)
    assert text.startswith(f"{loc_text(HERE, '@plain-helper-if', 'v > n')}: error: a dynamic value")
    assert f"{loc_text(HERE, '@plain-call', 'plain_clamp(')}: note: called from here" in text


@lc.func
def clamp_returns(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@lc.kernel
def uses_returning_helper(n: int):
    x = clamp_returns(lc.thread_idx.x, 2, n)
    y = x * 2  # noqa: F841


def test_helpers_may_return_from_dynamic_branches():
    ir = trace_ir(uses_returning_helper, 9)
    filecheck(
        ir,
        """
CHECK: %[[T:.*]] = gpu.thread_id x
CHECK: %[[R:.*]] = scf.if %{{.*}} -> (index) {
CHECK:   %[[LO:.*]] = arith.constant 2 : index
CHECK:   scf.yield %[[LO]] : index
CHECK: } else {
CHECK:   %[[IN:.*]] = scf.if %{{.*}} -> (index) {
CHECK:     arith.index_cast %n
CHECK:   } else {
CHECK:     scf.yield %[[T]] : index
CHECK:   }
CHECK:   scf.yield %[[IN]] : index
CHECK: }
CHECK: arith.muli %[[R]], %{{.*}} : index
""",
    )
    assert clamp_returns(5, 0, 3) == 3 and clamp_returns(-1, 0, 3) == 0
