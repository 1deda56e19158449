"""Arrays of an element type with no ABI equivalent: every error names the type the user passed
(``complex64``, ``bool``), whichever array protocol it came through."""

from __future__ import annotations

import numpy as np
import pytest
from layoutc.runtime.arrays import array_facts
from layoutc.runtime.dtypes import (
    DTYPES,
    dlpack_element_name,
    torch_element_name,
    typestr_element_name,
)


class ArrayInterfaceOnly:
    """An object exposing only ``__array_interface__`` (the generic adapter's path)."""

    def __init__(self, a: np.ndarray) -> None:
        self.__array_interface__ = a.__array_interface__
        self._a = a


class DLPackOnly:
    """An object exposing only the DLPack protocol (numpy exports complex and bool)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


@pytest.mark.parametrize(
    ("dtype", "name"), [(np.complex64, "complex64"), (np.complex128, "complex128"), (bool, "bool")]
)
@pytest.mark.parametrize("wrap", [lambda a: a, ArrayInterfaceOnly, DLPackOnly])
def test_array_facts_name_unsupported_element_types(dtype, name, wrap):
    facts = array_facts(wrap(np.zeros(4, dtype)))
    assert facts.dtype == name
    assert facts.dtype not in DTYPES


def test_supported_element_types_keep_their_abi_names():
    for dtype, abi in ((np.float32, "f32"), (np.int8, "i8"), (np.uint16, "u16")):
        a = np.zeros(3, dtype)
        assert array_facts(a).dtype == array_facts(ArrayInterfaceOnly(a)).dtype == abi
        assert array_facts(DLPackOnly(a)).dtype == abi


def test_foreign_names_never_equal_an_abi_name():
    assert torch_element_name("torch.complex64") == "complex64"
    assert torch_element_name("torch.float16") == "f16"
    assert dlpack_element_name(2, 32, 4) == "float32x4"
    assert dlpack_element_name(5, 64, 1) == "complex64"
    assert typestr_element_name("<M8[ns]") == "typestr '<M8[ns]'"
    assert typestr_element_name("|b1") == "bool"
    for text in ("f32", "u8", "bf16"):
        assert typestr_element_name(f"<x{text}") not in DTYPES
