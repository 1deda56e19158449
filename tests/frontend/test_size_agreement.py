"""Copies, predicated copies, gemms and axpbys need sizes that are *provably* equal: a dynamic
size that might differ at run time is a diagnostic at the user's line (in the user's names, with
a hint), never a kernel that reads or writes out of bounds. Specs derived from arrays unify the
anonymous entries that are equal at the first call, so the common case just works."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from frontend_helpers import loc_text
from layoutc import _

HERE = __file__
HINT = "dynamic sizes agree only when they are the same value"


def diagnose(kernel, *args, block=1) -> lc.CompileError:
    with pytest.raises(lc.CompileError) as info:
        kernel.trace(kernel.specialize(*args, block=block))
    return info.value


def run(kernel, *args, grid=1, block=1):
    lc.compile(kernel, *args, target="cpu", block=block, cache=False)(*args, grid=grid, block=block)


def f32(n, start=0):
    return np.arange(start, start + n, dtype=np.float32)


# -- the reviewer's reproductions -----------------------------------------------------------------


@lc.kernel
def different_names(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(M):(1)"]):  # noqa: F722
    lc.copy(src, dst)  # @names


def test_sizes_with_different_names_are_not_provably_equal():
    """16 elements into 64 used to read 48 elements past the source."""
    err = diagnose(different_names, f32(16), f32(64))
    assert err.location is not None
    text = str(err)
    assert text.startswith(
        f"{loc_text(HERE, '@names', 'lc.copy')}: error: cannot prove that the source size N "
        "equals the destination size M"
    ), text
    assert HINT in text
    with pytest.raises(lc.CompileError, match="cannot prove"):
        different_names(f32(16), np.zeros(64, np.float32), grid=1, block=1)


@lc.kernel
def into_a_static_tile(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.copy(src, lc.local_tile(dst, (16,), (0,)))  # @tile


def test_a_dynamic_source_into_a_static_tile():
    """64 elements through a 16-element view used to write 48 elements past it."""
    err = diagnose(into_a_static_tile, f32(64), f32(64))
    assert str(err).startswith(
        f"{loc_text(HERE, '@tile', 'lc.copy')}: error: cannot prove that the source size N "
        "equals the destination size 16"
    )


@lc.kernel
def into_a_fragment(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    f = lc.make_fragment((4,), lc.f32)
    lc.copy(src, f)  # @fragment
    lc.copy(f, dst)


def test_a_dynamic_source_into_a_fragment_is_one_clear_error():
    err = diagnose(into_a_fragment, f32(64), f32(64))
    text = str(err)
    assert text.startswith(f"{loc_text(HERE, '@fragment', 'lc.copy')}: error: cannot prove")
    assert "destination size 4" in text
    assert "not static" not in text and text.count("error:") == 1


# -- what makes sizes provably equal --------------------------------------------------------------


@lc.kernel
def same_name(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.copy(src, dst)


def test_one_name_in_both_annotations():
    y = np.zeros(48, np.float32)
    run(same_name, f32(48, 1), y)
    np.testing.assert_array_equal(y, f32(48, 1))


@lc.kernel
def unannotated(src, dst):
    lc.copy(src, dst)


def test_arrays_of_one_shape_need_no_annotation():
    y = np.zeros(40, np.float32)
    run(unannotated, f32(40, 3), y)
    np.testing.assert_array_equal(y, f32(40, 3))


def test_the_equality_of_extents_is_part_of_the_spec():
    equal = unannotated.specialize(f32(64), f32(64), block=1)
    other = unannotated.specialize(f32(128), f32(128), block=1)
    unequal = unannotated.specialize(f32(16), f32(64), block=1)
    assert equal.key == other.key  # one kernel for every pair of equal sizes
    assert unequal.key != equal.key
    src, dst = dict(equal.args)["src"], dict(equal.args)["dst"]
    assert src.shape == dst.shape  # one symbol
    with pytest.raises(lc.CompileError, match="cannot prove that the source size"):
        unannotated.trace(unequal)


def test_matrices_unify_extents_and_strides_of_equal_value():
    a = np.zeros((8, 8), np.float32)
    spec = unannotated.specialize(a, a.T, block=1)
    src, dst = dict(spec.args)["src"], dict(spec.args)["dst"]
    n = "?src.shape0"
    assert (src.shape, src.stride) == ((n, n), (n, 1))
    assert (dst.shape, dst.stride) == ((n, n), (1, n))


@lc.kernel
def rows(src: lc.Tensor[lc.f32, "(M,N):(N,1)"], dst: lc.Tensor[lc.f32, "(K,N):(N,1)"]):  # noqa: F722
    lc.copy(src[lc.block_idx.x, _], dst[lc.block_idx.x, _])


def test_views_keep_the_values_of_their_sources():
    """A row of each matrix has N elements: the views' sizes are built from one value."""
    a = f32(24).reshape(4, 6)
    b = np.zeros((5, 6), np.float32)
    run(rows, a, b, grid=4)
    np.testing.assert_array_equal(b[:4], a)


@lc.kernel
def assumed_copies(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(M):(1)"]):  # noqa: F722
    lc.copy(src, lc.assume(dst, shape=src.shape))


@lc.kernel
def assumed_fragment(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(M):(1)"]):  # noqa: F722
    f = lc.make_fragment((4,), lc.f32)
    lc.copy(lc.assume(src, shape=(4,)), f)
    lc.copy(f, lc.assume(dst, shape=4))


def test_assume_states_a_tensors_shape():
    y = np.zeros(32, np.float32)
    run(assumed_copies, f32(32, 5), y)
    np.testing.assert_array_equal(y, f32(32, 5))
    y = np.zeros(32, np.float32)
    run(assumed_fragment, f32(32, 5), y)
    np.testing.assert_array_equal(y[:4], f32(4, 5))
    assert not y[4:].any()


@lc.kernel
def assume_wrong_extent(src: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.assume(lc.local_tile(src, (8,), (0,)), shape=(4,))  # @assume-extent


@lc.kernel
def assume_wrong_rank(src: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    lc.assume(src, shape=(4, 2))  # @assume-rank


def test_assume_checks_what_is_known_of_the_shape():
    err = diagnose(assume_wrong_extent, f32(8))
    assert str(err).startswith(
        f"{loc_text(HERE, '@assume-extent', 'lc.assume')}: error: lc.assume(t, shape=...): the "
        "tensor's extent"
    )
    err = diagnose(assume_wrong_rank, f32(8))
    assert "does not have the modes of the tensor's shape" in str(err)


# -- the other algorithms -------------------------------------------------------------------------


@lc.kernel
def gemm_k_mismatch(
    a: lc.Tensor[lc.f32, "(M,K):(1,M)"],  # noqa: F722
    b: lc.Tensor[lc.f32, "(N,L):(1,N)"],  # noqa: F722
    c: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722
):
    lc.gemm(a, b, c)  # @gemm


@lc.kernel
def gemm_shared_k(
    a: lc.Tensor[lc.f32, "(M,K):(1,M)"],  # noqa: F722
    b: lc.Tensor[lc.f32, "(N,K):(1,N)"],  # noqa: F722
    c: lc.Tensor[lc.f32, "(M,N):(1,M)"],  # noqa: F722
):
    lc.gemm(a, b, c)


def test_gemm_extents_must_be_provably_equal():
    a = np.zeros((4, 3), np.float32, order="F")
    b = np.zeros((5, 3), np.float32, order="F")
    c = np.zeros((4, 5), np.float32, order="F")
    err = diagnose(gemm_k_mismatch, a, b, c)
    assert str(err).startswith(
        f"{loc_text(HERE, '@gemm', 'lc.gemm')}: error: cannot prove that the K extents agree: "
        "A mode 1 has K but B mode 1 has L"
    )
    a[:] = np.arange(12).reshape(4, 3)
    b[:] = np.arange(15).reshape(5, 3)
    run(gemm_shared_k, a, b, c)
    np.testing.assert_array_equal(c, a @ b.T)


@lc.kernel
def axpby_mismatch(x: lc.Tensor[lc.f32, "(N):(1)"], y: lc.Tensor[lc.f32, "(M):(1)"]):  # noqa: F722
    lc.axpby(2.0, x, 1.0, y)  # @axpby


@lc.kernel
def copy_if_mismatch(src: lc.Tensor[lc.f32, "(N):(1)"], dst: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    c = lc.make_identity_tensor((16,))
    lc.copy_if(c, src, dst, bounds=src.shape)  # @copy-if


def test_axpby_and_copy_if_sizes():
    err = diagnose(axpby_mismatch, f32(8), f32(8))
    assert str(err).startswith(
        f"{loc_text(HERE, '@axpby', 'lc.axpby')}: error: cannot prove that the x size N equals "
        "the y size M"
    )
    err = diagnose(copy_if_mismatch, f32(16), f32(16))
    assert str(err).startswith(
        f"{loc_text(HERE, '@copy-if', 'lc.copy_if')}: error: cannot prove that the predicate "
        "size 16 equals the source size N"
    )
