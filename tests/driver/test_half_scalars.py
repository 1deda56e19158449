"""f16 and bf16 scalar arguments (numpy ``float16``, ``lc.f16``/``lc.bf16`` annotations) end to
end: the spec and its call key, the CPU launch, the GPU launch's parameter packing (on the
runtime's fake CUDA driver), and an AOT artifact's manifest."""

from __future__ import annotations

import json
import re
import struct
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.cli.main import main
from layoutc.driver import jit, targets
from layoutc.runtime import cuda_driver

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402

HERE = Path(__file__)


@lc.kernel
def store_f16(a: lc.f16, dst: lc.Tensor):
    dst[lc.thread_idx.x] = a


@lc.kernel
def store_bf16(a: lc.bf16, dst: lc.Tensor):
    dst[lc.thread_idx.x] = a


@lc.kernel
def store_any(a, dst: lc.Tensor):
    dst[lc.thread_idx.x] = lc.f32(a) * 2.0


def _bf16(x: float) -> float:
    """x rounded to bf16 (nearest even), as an exact float."""
    bits = np.array([x], np.float32).view(np.uint32)[0]
    bits = (int(bits) + 0x7FFF + ((int(bits) >> 16) & 1)) >> 16 << 16
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def test_f16_annotation_rounds_the_value_to_f16():
    out = np.zeros(4, np.float32)
    store_f16(1 / 3, out, grid=1, block=4)
    np.testing.assert_array_equal(out, np.float32(np.float16(1 / 3)))


@pytest.mark.parametrize("x", [1 + 2.0**-8, 1 + 3 * 2.0**-9, -3.14159, 65504.0])
def test_bf16_annotation_rounds_to_nearest_even(x):
    out = np.zeros(4, np.float32)
    store_bf16(x, out, grid=1, block=4)
    np.testing.assert_array_equal(out, np.float32(_bf16(x)))


def test_numpy_float16_scalars_keep_their_type_and_get_their_own_kernel():
    spec = store_any.specialize(np.float16(0.5), np.zeros(4, np.float32), block=4)
    assert dict(spec.args)["a"].dtype == "f16"
    out = np.zeros(4, np.float32)
    store_any(np.float16(0.1), out, grid=1, block=4)  # 0.1 as f16, then doubled in f32
    np.testing.assert_array_equal(out, np.float32(np.float16(0.1)) * np.float32(2))
    store_any(np.float32(0.1), out, grid=1, block=4)  # another key: f32 keeps all of 0.1
    np.testing.assert_array_equal(out, np.float32(0.1) * np.float32(2))
    store_any(np.float16(0.1), out, grid=1, block=4)  # and back (the fast path's key)
    np.testing.assert_array_equal(out, np.float32(np.float16(0.1)) * np.float32(2))


def test_narrow_integer_scalars_are_still_refused():
    @lc.kernel
    def k(a: lc.i16, dst: lc.Tensor):
        dst[0] = a

    with pytest.raises(lc.SpecError, match="scalar parameters are i32, i64, f16, bf16, f32"):
        k.specialize(3, np.zeros(4, np.float32), block=1)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_half_scalar_kernels_assemble(arch):
    for kernel in (store_f16, store_bf16):
        ck = lc.compile(kernel, 1.5, np.zeros(4, np.float32), block=4, target=arch)
        assert ck.cubin is not None
        assert re.search(rf"\.param \.[bfu]16 {kernel.name}_param_0\b", ck.ptx), ck.ptx


@pytest.fixture
def fake_gpu(monkeypatch):
    previous = cuda_driver.use_driver(fake)
    monkeypatch.setattr(targets, "_gpu_present", None)
    monkeypatch.setattr(jit, "_default_targets", {})
    monkeypatch.delenv("LAYOUTC_TARGET", raising=False)
    fake.launches.clear()
    seen: list = []
    fake.KERNELS["store_f16"] = (["e", "Q", "i"], lambda v, g, b: seen.append(v[0]))
    fake.KERNELS["store_bf16"] = (["H", "Q", "i"], lambda v, g, b: seen.append(v[0]))
    yield seen
    fake.KERNELS.pop("store_f16", None)
    fake.KERNELS.pop("store_bf16", None)
    cuda_driver.use_driver(previous)


def test_the_gpu_launch_packs_f16_and_bf16_parameters(fake_gpu):
    from layoutc.runtime.cuda_memory import DeviceArray

    out = DeviceArray.from_host(np.zeros(4, np.float32))
    store_f16(1 / 3, out, grid=1, block=4)
    store_bf16(1 + 3 * 2.0**-9, out, grid=1, block=4)
    f16_value, bf16_bits = fake_gpu
    assert f16_value == float(np.float16(1 / 3))
    assert struct.unpack("<f", struct.pack("<I", bf16_bits << 16))[0] == _bf16(1 + 3 * 2.0**-9)


def test_an_aot_artifact_states_and_packs_half_scalars(tmp_path, fake_gpu):
    ref = f"{HERE}::store_bf16"
    argv = ["compile", ref, "--target", "sm_90", "--spec", "a=bf16", "--spec", "dst=f32[(N):(1)]"]
    assert main([*argv, "--block", "4", "-o", str(tmp_path / "art")]) == 0
    manifest = json.loads((tmp_path / "art" / "manifest.json").read_text())
    text = json.dumps(manifest)
    assert '"bf16"' in text
    import layoutc.runtime
    from layoutc.runtime.cuda_memory import DeviceArray

    lib = layoutc.runtime.load(tmp_path / "art")
    lib.store_bf16(-3.14159, DeviceArray.from_host(np.zeros(4, np.float32)), grid=1)
    (bits,) = fake_gpu
    assert struct.unpack("<f", struct.pack("<I", bits << 16))[0] == _bf16(-3.14159)
