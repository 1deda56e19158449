"""The CPU JIT's tiers (runtime/cpu_jit.py, ``jit_levels``): "fast" runs LLVM's passes at -O1
at most and makes machine code at -O0; "optimized" runs both at ``opt_level``. Each tier's
levels reach LLVM, are part of the machine-code cache key, and compute the same results."""

from __future__ import annotations

import handwritten as hw
import numpy as np
import pytest
from layoutc.runtime import cpu_jit
from layoutc.runtime.cpu_kernel import CpuKernel


def _spy_levels(monkeypatch) -> list[tuple[str, int]]:
    """The level of every pass pipeline and target machine the JIT runs or makes from now on."""
    seen: list[tuple[str, int]] = []
    machine, optimize = cpu_jit._target_machine, cpu_jit._optimize

    def spy_machine(llvm, level):
        seen.append(("codegen", level))
        return machine(llvm, level)

    def spy_optimize(llvm, module, tm, level):
        seen.append(("passes", level))
        return optimize(llvm, module, tm, level)

    monkeypatch.setattr(cpu_jit, "_target_machine", spy_machine)
    monkeypatch.setattr(cpu_jit, "_optimize", spy_optimize)
    return seen


def _warp_sums(kernel) -> np.ndarray:
    src = np.random.default_rng(3).standard_normal(8 * 96, dtype=np.float32)
    dst = np.full(8 * 96 // 32, np.nan, np.float32)
    kernel(src, dst, grid=8, block=96)
    np.testing.assert_allclose(dst, src.reshape(-1, 32).sum(axis=1), rtol=1e-5, atol=1e-5)
    return dst


@pytest.mark.parametrize(
    ("jit", "opt_level", "passes", "codegen"),
    [("fast", 3, 1, 0), ("fast", 0, 0, 0), ("optimized", 3, 3, 3), ("optimized", 1, 1, 1)],
)
def test_the_tier_sets_the_levels_of_the_passes_and_the_code_generator(
    monkeypatch, jit, opt_level, passes, codegen
):
    assert cpu_jit.jit_levels(jit, opt_level) == (passes, codegen)
    cpu_jit.support_symbols()  # made once per process, at its own levels
    seen = _spy_levels(monkeypatch)
    module, spec = hw.warp_sum_kernel(False)
    kernel = CpuKernel(str(module), spec, opt_level, jit=jit)
    assert sorted(seen) == [("codegen", codegen), ("passes", passes)]
    _warp_sums(kernel)


def test_fast_and_optimized_code_compute_the_same_bits():
    module, spec = hw.warp_sum_kernel(False)
    fast = _warp_sums(CpuKernel(str(module), spec, 3, jit="fast"))
    optimized = _warp_sums(CpuKernel(str(module), spec, 3, jit="optimized"))
    assert fast.tobytes() == optimized.tobytes()


def test_an_unknown_tier_is_refused_before_any_work(monkeypatch):
    seen = _spy_levels(monkeypatch)
    module, spec = hw.warp_sum_kernel(False)
    with pytest.raises(ValueError, match="jit must be one of"):
        CpuKernel(str(module), spec, 3, jit="O2")
    assert seen == []


def test_the_machine_code_cache_key_covers_the_levels_of_the_tier():
    ir = ("define void @k() {\n  ret void\n}\n", "; launcher")
    assert cpu_jit.object_key(*ir, 3, "fast") != cpu_jit.object_key(*ir, 3, "optimized")
    # the same levels make the same code, and share it
    assert cpu_jit.object_key(*ir, 3, "fast") == cpu_jit.object_key(*ir, 1, "fast")
    assert cpu_jit.object_key(*ir, 0, "fast") == cpu_jit.object_key(*ir, 0, "optimized")
