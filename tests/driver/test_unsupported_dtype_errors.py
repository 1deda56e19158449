"""Compiling for, or calling with, an array of an unsupported element type names the type."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest


@lc.kernel
def fill_one(x: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    x[0] = 1.0


@pytest.mark.parametrize(("dtype", "name"), [(np.complex64, "complex64"), (bool, "bool")])
def test_compiling_for_an_unsupported_array_names_its_element_type(dtype, name):
    with pytest.raises(lc.SpecError, match=f"arrays of element type {name} are not supported"):
        lc.compile(fill_one, np.zeros(4, dtype), block=1)


def test_calling_with_a_complex_array_names_complex64():
    compiled = lc.compile(fill_one, np.zeros(4, np.float32), block=1, target="cpu")
    with pytest.raises(TypeError, match="expected f32 elements, got complex64"):
        compiled(np.zeros(4, np.complex64), grid=1)
