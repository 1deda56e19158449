"""The CPU JIT's object cache: machine code made once is loaded, not made again, by a later
kernel of the same IR (and by a later process, through the compile cache)."""

from __future__ import annotations

import handwritten as hw
import numpy as np
import pytest
from layoutc.runtime import cpu_jit
from layoutc.runtime.cpu_jit import object_key
from layoutc.runtime.cpu_kernel import CpuKernel


class DictCache:
    """An ObjectCache in memory that counts what it is asked."""

    def __init__(self):
        self.entries = {}
        self.loads = self.hits = self.stores = 0

    def load(self, key):
        self.loads += 1
        found = self.entries.get(key)
        self.hits += found is not None
        return found

    def store(self, key, code, facts):
        self.stores += 1
        self.entries[key] = (code, dict(facts))


def _warp_sum(kernel):
    src = np.random.default_rng(1).random(4 * 96, dtype=np.float32)
    dst = np.zeros(4 * 96 // 32, np.float32)
    kernel(src, dst, grid=4, block=96)
    np.testing.assert_allclose(dst, src.reshape(-1, 32).sum(axis=1), rtol=1e-5)


def test_a_second_kernel_of_the_same_ir_loads_the_stored_object(monkeypatch):
    cache = DictCache()
    module, spec = hw.warp_sum_kernel(False)
    first = CpuKernel(str(module), spec, object_cache=cache)
    assert cache.stores >= 1 and cache.hits == 0
    _warp_sum(first)

    def no_jit(*args, **kwargs):
        raise AssertionError("the object was made again")

    monkeypatch.setattr(cpu_jit, "_optimize", no_jit)
    second = CpuKernel(str(module), spec, object_cache=cache)
    assert cache.hits == 1
    assert second.uses_collectives == first.uses_collectives is True  # a stored fact
    _warp_sum(second)


def test_an_object_without_the_kernel_is_made_again():
    cache = DictCache()
    module, spec = hw.warp_sum_kernel(False)
    launcher = cpu_jit.kernel_launcher_ir(spec.name, cpu_jit.llvm_param_types(spec))
    key = object_key(str(module), launcher, 2)
    other, other_spec = hw.copy_kernel(False)
    CpuKernel(str(other), other_spec, object_cache=cache)  # another kernel's object ...
    (copy_key,) = [k for k in cache.entries if k != key and cache.entries[k][1]]  # not support
    cache.entries[key] = cache.entries[copy_key]  # ... stored under this one's key
    _warp_sum(CpuKernel(str(module), spec, object_cache=cache))
    assert cache.entries[key] != cache.entries[copy_key]


@pytest.mark.parametrize("change", ["ir", "launcher", "opt"])
def test_the_key_covers_the_ir_the_launcher_and_the_level(change):
    base = ("define void @k() {\n  ret void\n}\n", "; launcher", 2)
    changed = {
        "ir": (base[0].replace("@k", "@k2"), base[1], base[2]),
        "launcher": (base[0], "; launcher 2", base[2]),
        "opt": (base[0], base[1], 0),  # (the fast tier runs -O2 and -O3 alike: one key)
    }[change]
    assert object_key(*base) == object_key(*base)
    assert object_key(*changed) != object_key(*base)
