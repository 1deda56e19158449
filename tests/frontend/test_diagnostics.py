"""Every front-end diagnostic is a CompileError at the user's exact file:line:col, with the source
line and a caret, never a traceback from layoutc's internals."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text
from layoutc import _

HERE = __file__
X = np.zeros(1024, np.float32)


def diagnose(kernel, *args) -> lc.CompileError:
    with pytest.raises(lc.CompileError) as info:
        kernel.trace(kernel.specialize(*args, block=32))
    return info.value


def expect(err: lc.CompileError, marker: str, token: str, message: str) -> None:
    """The error is at the token on the marked line, says ``message``, and shows the line."""
    text = str(err)
    first, source, caret = text.split("\n")[:3]
    assert first.startswith(f"{loc_text(HERE, marker, token)}: error: "), text
    assert message in first, text
    assert source.strip().startswith(token.split("(")[0].strip()) or token in source, text
    assert caret.index("^") == source.index(token), text


@lc.kernel
def copy_mismatch(a: lc.Tensor):
    r = lc.make_fragment(8, lc.f32)
    s = lc.make_fragment(4, lc.f32)
    lc.copy(r, s)  # @copy-mismatch


def test_shape_mismatch_in_an_algorithm():
    err = diagnose(copy_mismatch, X)
    expect(err, "@copy-mismatch", "lc.copy(r, s)", "'tile.copy' op source has 8 elements")


@lc.kernel
def gemm_mismatch():
    a = lc.make_fragment((4, 2), lc.f32)
    b = lc.make_fragment((8, 3), lc.f32)
    c = lc.make_fragment((4, 8), lc.f32)
    lc.gemm(a, b, c)  # @gemm-mismatch


def test_gemm_extents_must_agree():
    err = diagnose(gemm_mismatch)
    expect(err, "@gemm-mismatch", "lc.gemm(a, b, c)", "K extents differ")


@lc.kernel
def python_range_of_dynamic(n: int):
    for _i in range(n):  # @range-dynamic
        pass


def test_dynamic_value_where_a_static_one_is_needed():
    err = diagnose(python_range_of_dynamic, 3)
    expect(err, "@range-dynamic", "range(n)", "a dynamic value is used where a static Python int")


@lc.kernel
def float_index(a: lc.Tensor):
    v = a[1.5]  # noqa: F841  # @float-index


def test_indexing_with_a_float():
    err = diagnose(float_index, X)
    expect(err, "@float-index", "a[1.5]", "a tensor coordinate must be an integer, got a float")


@lc.kernel
def one_branch(n: int):
    if lc.thread_idx.x < n:  # @one-branch
        y = 1
    z = y + 1  # noqa: F841


def test_variable_defined_in_one_branch_and_used_after():
    err = diagnose(one_branch, 3)
    expect(err, "@one-branch", "if", "variable 'y' is assigned only in the then-branch")


@lc.kernel
def break_in_dynamic_loop(n: int):
    for i in lc.range(n):  # @break
        if i == 3:
            break


def test_break_in_a_dynamic_loop_is_not_supported():
    err = diagnose(break_in_dynamic_loop, 3)
    expect(err, "@break", "lc.range(n)", "not supported: a loop containing `break` over lc.range")
    assert isinstance(err, lc.NotSupportedError)


@lc.kernel
def assert_dynamic(n: int):
    assert lc.thread_idx.x < n  # @assert


def test_dynamic_value_as_python_bool():
    err = diagnose(assert_dynamic, 3)
    expect(err, "@assert", "lc.thread_idx.x < n", "a dynamic value cannot be used as a Python bool")


@lc.kernel
def name_error(n: int):
    q = undefined_thing + 1  # noqa: F821, F841  # @name-error


def test_python_errors_in_the_kernel_point_at_their_line():
    err = diagnose(name_error, 3)
    expect(
        err, "@name-error", "undefined_thing", "NameError: name 'undefined_thing' is not defined"
    )


@lc.kernel
def misspelt_local(n: int):
    count = n + 1  # noqa: F841
    q = cuont * 2  # noqa: F821, F841  # @misspelt-local


def test_a_misspelt_name_gets_python_s_suggestion():
    err = diagnose(misspelt_local, 3)
    expect(
        err,
        "@misspelt-local",
        "cuont",
        "NameError: name 'cuont' is not defined. Did you mean: 'count'?",
    )


@lc.kernel
def misspelt_lc_name(a: lc.Tensor):
    a[lc.thread_idx.x] = lc.thredd_idx.x  # @misspelt-lc


@lc.kernel
def unknown_lc_name(a: lc.Tensor):
    a[0] = lc.zzzzzz  # @unknown-lc


def test_a_misspelt_lc_name_is_a_diagnostic_with_the_suggestion():
    err = diagnose(misspelt_lc_name, X)
    expect(
        err,
        "@misspelt-lc",
        "lc.thredd_idx",
        "AttributeError: module 'layoutc' has no attribute 'thredd_idx'. "
        "Did you mean: 'thread_idx'?",
    )
    err = diagnose(unknown_lc_name, X)
    expect(err, "@unknown-lc", "lc.zzzzzz", "module 'layoutc' has no attribute 'zzzzzz'")
    assert "Did you mean" not in str(err)


@lc.kernel
def layout_error(n: int):
    bad = lc.make_layout((4, 8), (1, 2, 3))  # noqa: F841  # @layout-error


def test_algebra_errors_point_at_the_call():
    err = diagnose(layout_error, 3)
    expect(err, "@layout-error", "lc.make_layout", "are not congruent")


@lc.kernel
def view_error():
    r = lc.make_fragment((4, 8), lc.f32)
    v = lc.partition_tv(r, lc.make_layout(32), lc.thread_idx.x)  # noqa: F841  # @view-error


def test_view_errors_from_type_inference_point_at_the_call():
    err = diagnose(view_error)
    expect(err, "@view-error", "lc.partition_tv", "'tile.partition_tv' op")
    assert "must have rank 2" in str(err)


@lc.kernel
def bad_element_type():
    a = lc.make_fragment(8, np.float32)  # noqa: F841  # @bad-dtype


@lc.kernel
def atom_element_type():
    atom = lc.make_copy_atom("ldmatrix.x4.trans", lc.f32)  # noqa: F841  # @atom-dtype


def test_unsupported_element_types():
    err = diagnose(bad_element_type)
    expect(err, "@bad-dtype", "lc.make_fragment", "expected an element type")
    err = diagnose(atom_element_type)
    expect(err, "@atom-dtype", "lc.make_copy_atom", "ldmatrix")


@lc.kernel
def returns_value(n: int):
    return n  # @return-value


def test_kernels_return_nothing():
    err = diagnose(returns_value, 3)
    expect(err, "@return-value", "return", "a kernel cannot return a value")


@lc.kernel
def carried_but_undefined(n: int):
    for i in lc.range(n):  # @undefined-carried
        acc = acc + i  # noqa: F821, F841


def test_loop_carried_variable_must_exist_before_the_loop():
    err = diagnose(carried_but_undefined, 3)
    expect(err, "@undefined-carried", "for", "variable 'acc' is assigned in the body")


@lc.kernel
def changes_type(n: int, x: float):
    acc = 0
    for _i in lc.range(n):  # @type-change
        acc = x
    y = acc + 1  # noqa: F841


def test_loop_carried_variable_keeps_its_type():
    err = diagnose(changes_type, 3, 1.0)
    expect(err, "@type-change", "for", "variable 'acc' changes type in the body of a dynamic loop")


@lc.kernel
def escapes(n: int):
    box = []
    if lc.thread_idx.x < n:
        box.append(lc.thread_idx.x * 2)
    z = box[0] + 1  # noqa: F841  # @escape


def test_values_escaping_a_region_are_reported_with_a_hint():
    err = diagnose(escapes, 3)
    expect(err, "@escape", "box[0] + 1", "does not dominate this use")
    assert "assign it to a variable in the body instead" in str(err)


@lc.kernel
def while_turns_dynamic(n: int):
    i = 0
    while i < 3:  # @while-flip
        i = i + n


def test_while_condition_that_turns_dynamic():
    err = diagnose(while_turns_dynamic, 2)
    expect(err, "@while-flip", "while", "was static for 1 iteration(s) and then became dynamic")


def test_dsl_outside_a_kernel():
    with pytest.raises(lc.CompileError, match="only be used inside a function decorated"):
        lc.syncthreads()


def test_errors_carry_no_internal_traceback_frames():
    err = diagnose(copy_mismatch, X)
    tb = err.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    # raised from the tracer's entry point, not from deep inside the DSL
    assert len(frames) <= 3, frames
    assert err.__cause__ is None and err.__suppress_context__


# ---------------------------------------------------------------------------------------------
# more constructs, each with its exact location
# ---------------------------------------------------------------------------------------------


@lc.kernel
def return_in_dynamic_if(n: int):
    for i in range(2):
        if lc.thread_idx.x < n + i:  # @return-in-if
            return
        n = n + 1


@lc.kernel
def zero_step(n: int):
    for _i in lc.range(n, 0, 0):  # @zero-step
        pass


@lc.kernel
def store_into_coordinates(a: lc.Tensor):
    c = lc.make_identity_tensor(a.shape)
    c[0] = 1  # @coord-store


@lc.kernel
def slice_assignment(a: lc.Tensor):
    r = lc.make_fragment((4, 4), lc.f32)
    r[_, 0] = 1.0  # @slice-assign


@lc.kernel
def loop_variable_after(n: int):
    for i in lc.range(n):  # noqa: B007  # @loop-var-after
        pass
    y = i + 1  # noqa: F841


@lc.kernel
def branch_types(n: int, x: float):
    if lc.thread_idx.x < n:  # @branch-types
        v = x
    else:
        v = lc.make_fragment(4, lc.f32)
    w = v  # noqa: F841


@lc.kernel
def range_outside_for(n: int):
    steps = list(lc.range(n))  # noqa: F841  # @range-list


@lc.kernel
def copy_arity(a: lc.Tensor):
    lc.copy(a)  # @copy-arity


@lc.kernel
def dynamic_smem(n: int):
    s = lc.smem_tensor(lc.f32, lc.make_layout((n, 4)))  # noqa: F841  # @dyn-smem


@lc.kernel
def fragment_of_dynamic(a: lc.Tensor):
    f = lc.make_fragment_like(a)  # noqa: F841  # @dyn-fragment


@lc.kernel
def tensor_truth(a: lc.Tensor):
    if a:  # @tensor-truth
        pass


@lc.kernel
def uses_global(n: int):
    global X  # @global
    X = n


CASES = [
    (return_in_dynamic_if, (3,), "@return-in-if", "lc.thread_idx.x < n + i", "not supported: an `if` containing `return` with a dynamic condition"),
    (zero_step, (3,), "@zero-step", "lc.range(n, 0, 0)", "lc.range() arg 3 must not be zero"),
    (store_into_coordinates, (X,), "@coord-store", "c[0] = 1", "cannot store into a coordinate tensor"),
    (slice_assignment, (X,), "@slice-assign", "r[_, 0] = 1.0", "assigning to a slice is not supported"),
    (loop_variable_after, (3,), "@loop-var-after", "for", "the loop variable 'i' of a dynamic loop (lc.range) is used after the loop"),
    (branch_types, (3, 1.0), "@branch-types", "if", "variable 'v' has different types in the branches"),
    (range_outside_for, (3,), "@range-list", "list(lc.range(n))", "lc.range can only be iterated by a `for` statement"),
    (copy_arity, (X,), "@copy-arity", "lc.copy(a)", "lc.copy takes (src, dst) or (atom, src, dst), got 1 arguments"),
    (dynamic_smem, (3,), "@dyn-smem", "lc.smem_tensor", "lc.smem_tensor needs a static layout"),
    (fragment_of_dynamic, (X,), "@dyn-fragment", "lc.make_fragment_like(a)", "make_fragment_like needs a static shape"),
    (tensor_truth, (X,), "@tensor-truth", "if", "a tensor has no truth value"),
    (uses_global, (3,), "@global", "global", "not supported: 'global' statements in a kernel"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[2] for c in CASES])
def test_each_construct_reports_at_its_location(case):
    kernel, args, marker, token, message = case
    expect(diagnose(kernel, *args), marker, token, message)


@lc.kernel
def coordinate_rank_mismatch(a: lc.Tensor):
    v = a[1, 2, 3]  # noqa: F841  # @coord-rank


def test_builder_errors_keep_their_notes():
    err = diagnose(coordinate_rank_mismatch, np.zeros((4, 4), np.float32))
    expect(
        err, "@coord-rank", "a[1, 2, 3]", "'tile.load' op layout (A0,A1):(A2,1): coordinate (1,2,3)"
    )
    assert "note: A0, A1, A2 stand for the '?' entries of operand #0" in str(err)
