"""``lc.compile(..., cpu_jit=...)``: the CPU JIT's tier (docs/runtime.md, "JIT tiers") is a
compile option: checked, part of the kernel's identity, passed to the JIT, and the code of both
tiers computes the same results."""

from __future__ import annotations

from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.driver import CompileOptions
from layoutc.driver.loading import load_source
from layoutc.runtime import cpu_jit

# the example's kernel (examples/axpby.py: 2048 elements a block, 256 threads)
_EXAMPLE = load_source(Path(__file__).resolve().parents[2] / "examples" / "axpby.py")
axpby, TILE = _EXAMPLE.axpby, _EXAMPLE.TILE


def test_the_default_is_fast_and_a_bad_choice_is_refused():
    assert CompileOptions().cpu_jit == "fast"
    with pytest.raises(ValueError, match="cpu_jit must be one of"):
        CompileOptions(cpu_jit="O3")


@pytest.mark.parametrize("jit", ["fast", "optimized"])
def test_the_tier_reaches_the_jit_and_both_compute_the_same(monkeypatch, jit):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4 * TILE, dtype=np.float32)
    y0 = rng.standard_normal(4 * TILE, dtype=np.float32)
    cpu_jit.support_symbols()  # made once per process, at its own levels
    seen = []
    real = cpu_jit._target_machine
    monkeypatch.setattr(
        cpu_jit, "_target_machine", lambda llvm, level: seen.append(level) or real(llvm, level)
    )
    ck = lc.compile(axpby, 1.5, x, -0.25, y0, block=256, target="cpu", cache=False, cpu_jit=jit)
    y = y0.copy()
    ck(1.5, x, -0.25, y, grid=x.size // TILE)
    assert seen == [cpu_jit.jit_levels(jit, 3)[1]] == [0 if jit == "fast" else 3]
    expected = np.float32(1.5) * x + np.float32(-0.25) * y0
    assert y.tobytes() == expected.tobytes()


def test_each_choice_is_its_own_compiled_kernel():
    x = np.zeros(TILE, np.float32)
    fast = lc.compile(axpby, 1.0, x, 1.0, x, block=256, target="cpu")
    assert lc.compile(axpby, 1.0, x, 1.0, x, block=256, target="cpu") is fast
    optimized = lc.compile(axpby, 1.0, x, 1.0, x, block=256, target="cpu", cpu_jit="optimized")
    assert optimized is not fast
