"""End-to-end differential fuzzing of the whole stack on the CPU: random CuTe layout programs
written with the public front end, compiled by the driver, run by the CPU runtime and compared
bit for bit with numpy (outputs poisoned first, so unwritten elements are seen).

What varies (fuzz_strategies.py): nested shapes, permuted and padded strides, broadcast
sources, static layouts and run-time extents/strides, base pointers at every element offset
(16-byte aligned or not), partitions by TV layouts, ``local_partition``, tiled copies and
``zipped_divide``, staging through registers or (swizzled) shared memory, ragged tails with
identity-tensor predicates, and f32/f16/i32/f64. Each access width the compiler claims is
checked against the pointers' alignment (fuzz_oracle.check_vector_claims); an unsound claim
would also fault on the CPU, whose aligned vector instructions trap on misaligned addresses.

A program the layout algebra rejects (CuTe's divisibility conditions of composition and the
divides) must be refused with a diagnostic at the user's line; any other error fails the test.
A few generated kernels are also assembled to cubin for sm_80 and sm_90 (no GPU needed).

``LAYOUTC_FUZZ_EXAMPLES=N`` runs N programs per test instead of the few CI runs;
``LAYOUTC_FUZZ_KNOWN_BUGS=1`` fails on programs that hit the open bugs too (otherwise rejected).
"""

from __future__ import annotations

import os
import re

import layoutc as lc
import numpy as np
import pytest
from fuzz_oracle import (
    NP_DTYPES,
    offsets,
    run_array_copy,
    run_array_update,
    run_scalar_layout_copy,
    run_static_copy,
    run_static_update,
    strided_view,
)
from fuzz_programs import array_copy, static_copy
from fuzz_settings import fuzz_settings
from fuzz_strategies import (
    array_programs,
    scalar_layout_programs,
    static_programs,
    with_axpby_scalars,
)
from hypothesis import given, reject
from hypothesis import strategies as st

# Refusals of programs CuTe refuses too: inadmissible divides/compositions (the algebra's
# static_asserts), and cp.async atoms wider than the accesses provable for the copy.
_ADMISSIBILITY = re.compile(
    r"(shape|stride) divisibility condition fails"
    r"|atom 'cp\.async\.\w+' moves \d+ bits per access, but only \d+-bit accesses are proven"
)
_DIAGNOSTIC = re.compile(r"^\S+\.py:\d+:\d+: error: ")
# Open bugs, each pinned by a strict xfail in test_fuzz_regressions.py: programs whose error
# matches one of these patterns are rejected (not failed) unless LAYOUTC_FUZZ_KNOWN_BUGS=1.
_KNOWN_BUGS: tuple[re.Pattern[str], ...] = ()
_SHOW_KNOWN_BUGS = os.environ.get("LAYOUTC_FUZZ_KNOWN_BUGS") == "1"


def _expect_only_admissibility_errors(run, *args, **kwargs):
    """Run; a refusal CuTe makes too (a clean diagnostic at a user line) rejects the example."""
    try:
        return run(*args, **kwargs)
    except lc.CompileError as e:
        text = str(e)
        if any(bug.search(text) for bug in _KNOWN_BUGS) and not _SHOW_KNOWN_BUGS:
            reject()
        if type(e).__name__ == "InternalCompilerError" or not _DIAGNOSTIC.match(text):
            raise
        if not _ADMISSIBILITY.search(text.splitlines()[0]):
            raise
        reject()


@fuzz_settings(24)
@given(static_programs(ops=("copy",)), st.integers(0, 2**16), st.sampled_from([0, 0, 1, 2, 4, 5]))
def test_static_layout_copies_match_numpy(case, seed, k):
    """Also at pointers moved by run-time element counts (``k``: a fact of the spec)."""
    prog, grid, off_s, off_d = case
    _expect_only_admissibility_errors(
        run_static_copy, prog, grid, off_s, off_d, seed, k, (k * 3) % 7
    )


@fuzz_settings(16)
@given(with_axpby_scalars(static_programs(ops=("axpby", "fill", "clear"))), st.integers(0, 2**16))
def test_static_layout_axpby_fill_clear_match_numpy(case, seed):
    """alpha and beta are of the tensor's kind (integers for i32), as CuTe's axpby takes them."""
    prog, grid, off_s, off_d, alpha, beta = case
    _expect_only_admissibility_errors(
        run_static_update, prog, grid, off_s, off_d, alpha, beta, seed
    )


@fuzz_settings(20)
@given(array_programs(), st.integers(0, 2**16))
def test_dynamic_extent_copies_and_ragged_copy_if_match_numpy(case, seed):
    prog, extents, s_strides, d_strides, off_s, off_d = case
    _expect_only_admissibility_errors(
        run_array_copy, prog, extents, s_strides, d_strides, off_s, off_d, seed=seed
    )


@fuzz_settings(10)
@given(with_axpby_scalars(array_programs(ops=("axpby", "fill", "clear"))), st.integers(0, 2**16))
def test_dynamic_extent_axpby_fill_clear_match_numpy(case, seed):
    prog, extents, x_strides, y_strides, off_x, off_y, alpha, beta = case
    _expect_only_admissibility_errors(
        run_array_update, prog, extents, x_strides, y_strides, off_x, off_y, alpha, beta, seed
    )


@fuzz_settings(12)
@given(scalar_layout_programs(), st.integers(0, 2**16))
def test_layouts_of_scalar_extents_and_leading_dimensions_match_numpy(case, seed):
    prog, extents, lds, off_s, off_d = case
    _expect_only_admissibility_errors(
        run_scalar_layout_copy, prog, extents, lds, off_s, off_d, seed
    )


@fuzz_settings(8)
@given(array_programs(ops=("copy_if",)), st.integers(0, 2**16))
def test_ragged_copy_if_with_i1_fragment_predicates_matches_numpy(case, seed):
    prog, extents, s_strides, d_strides, off_s, off_d = case
    _expect_only_admissibility_errors(
        run_array_copy,
        prog,
        extents,
        s_strides,
        d_strides,
        off_s,
        off_d,
        fragment_predicates=True,
        seed=seed,
    )


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@fuzz_settings(3)
@given(case=st.one_of(static_programs(), array_programs()))
def test_generated_kernels_assemble_to_cubin(arch, case):
    """The NVVM IR of generated kernels passes libNVVM/NVPTX and nvJitLink (PTX verifier
    problems: vector widths, address spaces, alignments, barriers)."""
    prog = case[0]
    dtype = NP_DTYPES[prog.dtype]
    if prog.src is not None:
        src = np.zeros(int(offsets(prog.src).max()) + 8, dtype)
        dst = np.zeros(int(offsets(prog.dst).max()) + 8, dtype)
        kernel, args = static_copy, (src, dst, 0, 0, prog)
    else:
        _, extents, s_strides, d_strides, _, _ = case

        def span(strides):
            return sum((n - 1) * s for n, s in zip(extents, strides)) + 1

        src = strided_view(np.zeros(span(s_strides), dtype), 0, extents, s_strides)
        dst = strided_view(np.zeros(span(d_strides), dtype), 0, extents, d_strides)
        kernel, args = array_copy, (src, dst, prog)

    def build():
        return lc.compile(kernel, *args, target=arch, block=prog.threads)

    ck = _expect_only_admissibility_errors(build)
    assert ck.cubin, f"no cubin for {arch}"
