"""A kernel whose dynamic shared-memory tensor has a run-time size: every launch knows the bytes
it needs from its arguments (a formula over the parameters, in the spec and the manifest). The
default covers them; too little is refused with the number needed, on the CPU, on the GPU
(the runtime's fake CUDA driver) and for an AOT-loaded kernel."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.cli.main import main
from layoutc.driver import jit, targets
from layoutc.runtime import cuda_driver
from layoutc.runtime.errors import ArgumentError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402

HERE = Path(__file__)


@lc.kernel
def reverse(src: lc.Tensor, dst: lc.Tensor, n: int):
    """dst = src reversed, staged through n floats of shared memory after 8 static ones."""
    tid = lc.thread_idx.x
    flags = lc.dynamic_smem_tensor(lc.i32, lc.make_layout(8))  # bytes 0..32
    s = lc.dynamic_smem_tensor(lc.f32, lc.make_layout((n,)))  # bytes 32..32 + 4n
    if tid < 8:
        flags[tid] = tid
    i = tid
    while i < n:
        s[i] = src[i]
        i = i + lc.block_dim.x
    lc.syncthreads()
    i = tid
    while i < n:
        dst[i] = s[n - 1 - i]
        i = i + lc.block_dim.x


@lc.kernel
def by_extent(src: lc.Tensor, dst: lc.Tensor):
    """The size comes from the array's extent (a layout carrier), in f64 elements."""
    s = lc.dynamic_smem_tensor(lc.f64, lc.make_layout((src.shape[0], 2)))
    tid = lc.thread_idx.x
    if tid < src.shape[0]:
        s[tid, 1] = src[tid]
        dst[tid] = s[tid, 1]


def test_the_spec_states_the_bytes_over_the_parameters():
    x = np.zeros(100, np.float32)
    ck = lc.compile(reverse, x, x.copy(), 100, block=32, target="cpu")
    assert ck.runtime_spec.dynamic_smem == 32  # the static part alone
    assert ck.runtime_spec.dynamic_smem_formula == ("add", ("mul", "n", 4), 32)
    ck = lc.compile(by_extent, np.zeros(7), np.zeros(7), block=32, target="cpu")
    assert ck.runtime_spec.dynamic_smem_formula == ("mul", "src_shape0", 16)


@pytest.mark.parametrize("n", [1, 100, 3000])
def test_the_default_covers_the_need_on_the_cpu(n):
    x = np.arange(n, dtype=np.float32)
    y = np.zeros_like(x)
    reverse(x, y, n, grid=1, block=32)  # no smem=
    np.testing.assert_array_equal(y, x[::-1])
    y[:] = 0
    reverse(x, y, n, grid=1, block=32, smem=32 + 4 * n)  # exactly enough
    np.testing.assert_array_equal(y, x[::-1])


def test_too_little_is_refused_with_the_number_needed_on_the_cpu():
    x = np.arange(3000, dtype=np.float32)
    with pytest.raises(ArgumentError, match=r"smem=12031 bytes is too little: .* need 12032 bytes"):
        reverse(x, x.copy(), 3000, grid=1, block=32, smem=12031)
    y = np.zeros(5)
    with pytest.raises(ArgumentError, match=r"smem=8 bytes is too little: .* need 80 bytes"):
        by_extent(np.ones(5), y, grid=1, block=32, smem=8)
    by_extent(np.arange(5.0), y, grid=1, block=32)
    np.testing.assert_array_equal(y, np.arange(5.0))


@pytest.fixture
def fake_gpu(monkeypatch):
    previous = cuda_driver.use_driver(fake)
    monkeypatch.setattr(targets, "_gpu_present", None)
    monkeypatch.setattr(jit, "_default_targets", {})
    monkeypatch.delenv("LAYOUTC_TARGET", raising=False)
    fake.launches.clear()
    yield fake.launches
    cuda_driver.use_driver(previous)


def test_the_gpu_launch_gets_the_bytes_and_refuses_too_little(fake_gpu):
    from layoutc.runtime.cuda_memory import DeviceArray

    x = DeviceArray.from_host(np.zeros(1000, np.float32))
    y = DeviceArray.from_host(np.zeros(1000, np.float32))
    reverse(x, y, 1000, grid=1, block=32)
    reverse(x, y, 10, grid=1, block=32)
    reverse(x, y, 10, grid=1, block=32, smem=9000)
    assert [launch["smem"] for launch in fake_gpu] == [4032, 72, 9000]
    with pytest.raises(ArgumentError, match="need 4032 bytes"):
        reverse(x, y, 1000, grid=1, block=32, smem=4000)
    assert len(fake_gpu) == 3  # nothing launched


def test_an_aot_artifact_carries_the_formula(tmp_path, fake_gpu):
    argv = ["compile", f"{HERE}::reverse", "--target", "sm_90", "--block", "32"]
    specs = ["--spec", "src=f32[(N):(1)]", "--spec", "dst=f32[(N):(1)]", "--spec", "n=i32"]
    assert main([*argv, *specs, "-o", str(tmp_path / "art")]) == 0
    manifest = json.loads((tmp_path / "art" / "manifest.json").read_text())
    (kernel,) = manifest["kernels"]
    assert kernel["shared_memory"]["dynamic_formula"] == ["add", ["mul", "n", 4], 32]
    import layoutc.runtime
    from layoutc.runtime.cuda_memory import DeviceArray

    lib = layoutc.runtime.load(tmp_path / "art")
    x = DeviceArray.from_host(np.zeros(64, np.float32))
    lib.reverse(x, x, 64, grid=1)
    assert fake_gpu[-1]["smem"] == 32 + 4 * 64
    with pytest.raises(ArgumentError, match="need 288 bytes"):
        lib.reverse(x, x, 64, grid=1, smem=100)


def test_a_formula_that_names_no_integer_parameter_is_refused():
    from layoutc.runtime.abi import simple_spec

    params = [("x", "pointer", "f32"), ("n", "scalar", "i32"), ("a", "scalar", "f32")]
    with pytest.raises(ValueError, match="names no parameter 'a'"):
        simple_spec("k", params, dynamic_smem_formula=("mul", "a", 4))
    with pytest.raises(ValueError, match="bad dynamic shared-memory formula entry"):
        simple_spec("k", params, dynamic_smem_formula=("pow", "n", 2))
    spec = simple_spec("k", params, dynamic_smem_formula=["ceildiv", ["sub", "n", 1], 3])
    assert spec.dynamic_smem_formula == ("ceildiv", ("sub", "n", 1), 3)
