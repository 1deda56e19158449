"""``index_bitwidth="auto"``: 32-bit index arithmetic exactly when the spec proves every element
offset fits (compiler/driver/index_width.py), chosen per spec, overridable by the caller."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from layoutc.driver.index_width import choose_index_width


@lc.kernel(index_bitwidth="auto")
def double(x: lc.Tensor[lc.f32]):
    i = lc.block_idx.x * 32 + lc.thread_idx.x
    x[i] = x[i] * 2.0


def _huge(x: np.ndarray) -> np.ndarray:
    """A view whose offsets reach 2^31 - 1 elements (never read: only its facts are)."""
    return np.lib.stride_tricks.as_strided(x, shape=(1 << 16, 1 << 15), strides=(4 << 15, 4))


def test_arrays_record_whether_their_offsets_fit():
    x = np.zeros(64, np.float32)
    assert double.specialize(x, block=32).args[0][1].index_bits == 32
    assert double.specialize(_huge(x), block=32).args[0][1].index_bits == 64
    # the fact is part of the key: the two arrays never share a kernel
    assert double.specialize(x, block=32).key != double.specialize(_huge(x), block=32).key
    assert choose_index_width(double.specialize(x, block=32)) == 32
    assert choose_index_width(double.specialize(_huge(x), block=32)) == 64


@pytest.mark.parametrize(
    ("spec", "bits"),
    [
        ("f32[(1024,1024):(1024,1)]", 32),  # static, reach 2^20 - 1
        ("f32[(65536,32768):(32768,1)]", 64),  # static, reach 2^31 - 1
        ("f32[(N):(1)]", 64),  # written by hand: nothing bounds N
    ],
)
def test_hand_written_specs_prove_only_static_layouts(spec, bits):
    from layoutc.driver.argspecs import build_spec

    assert choose_index_width(build_spec(double, (lc.spec(spec),), {}, 32, None)) == bits


def test_the_kernel_default_and_the_callers_override():
    x = np.arange(64, dtype=np.float32)
    auto = lc.compile(double, x, block=32, target="cpu")
    assert auto.runtime_spec.index_bits == 32
    forced = lc.compile(double, x, block=32, target="cpu", index_bitwidth=64)
    assert forced.runtime_spec.index_bits == 64
    auto(x, grid=2, block=32)
    assert (x == 2 * np.arange(64)).all()
    with pytest.raises(TypeError, match="must be 32, 64 or 'auto'"):
        lc.kernel(index_bitwidth=16)(lambda x: None)
