"""The CPU JIT's two levels (runtime/cpu_jit.py): ``opt_level`` runs LLVM's passes, ``codegen``
chooses the code generation level, "fast" (LLVM's -O0) or "optimized" (at ``opt_level``). Each
choice reaches the target machine that makes the code, is part of the machine-code cache key,
and computes the same results."""

from __future__ import annotations

import handwritten as hw
import numpy as np
import pytest
from layoutc.runtime import cpu_jit
from layoutc.runtime.cpu_kernel import CpuKernel


def _spy_levels(monkeypatch) -> list[int]:
    """The code generation level of every target machine the JIT creates from now on."""
    seen: list[int] = []
    real = cpu_jit._target_machine

    def spy(llvm, level):
        seen.append(level)
        return real(llvm, level)

    monkeypatch.setattr(cpu_jit, "_target_machine", spy)
    return seen


def _warp_sums(kernel) -> np.ndarray:
    src = np.random.default_rng(3).standard_normal(8 * 96, dtype=np.float32)
    dst = np.full(8 * 96 // 32, np.nan, np.float32)
    kernel(src, dst, grid=8, block=96)
    np.testing.assert_allclose(dst, src.reshape(-1, 32).sum(axis=1), rtol=1e-5, atol=1e-5)
    return dst


@pytest.mark.parametrize(
    ("codegen", "opt_level", "level"),
    [("fast", 3, 0), ("fast", 1, 0), ("optimized", 3, 3), ("optimized", 1, 1)],
)
def test_the_codegen_choice_sets_the_level_of_the_code_generator(
    monkeypatch, codegen, opt_level, level
):
    cpu_jit.support_symbols()  # made once per process, at its own level
    seen = _spy_levels(monkeypatch)
    module, spec = hw.warp_sum_kernel(False)
    kernel = CpuKernel(str(module), spec, opt_level, codegen=codegen)
    assert seen == [level]
    _warp_sums(kernel)


def test_fast_and_optimized_code_compute_the_same_bits():
    module, spec = hw.warp_sum_kernel(False)
    fast = _warp_sums(CpuKernel(str(module), spec, 3, codegen="fast"))
    optimized = _warp_sums(CpuKernel(str(module), spec, 3, codegen="optimized"))
    assert fast.tobytes() == optimized.tobytes()


def test_an_unknown_codegen_choice_is_refused_before_any_work(monkeypatch):
    seen = _spy_levels(monkeypatch)
    module, spec = hw.warp_sum_kernel(False)
    with pytest.raises(ValueError, match="codegen must be one of"):
        CpuKernel(str(module), spec, 3, codegen="O2")
    assert seen == []


def test_the_machine_code_cache_key_covers_the_codegen_choice():
    args = ("define void @k() {\n  ret void\n}\n", "; launcher", 3)
    assert cpu_jit.object_key(*args, "fast") != cpu_jit.object_key(*args, "optimized")
    # at opt_level 0 both choices make the same code, and share it
    args0 = (*args[:2], 0)
    assert cpu_jit.object_key(*args0, "fast") == cpu_jit.object_key(*args0, "optimized")
