"""The driver's GPU path without a GPU: real PTX/cubin, launched on the runtime's fake CUDA
driver (tests/runtime/fake_driver.py), whose "device" memory is host memory and whose launches
run a Python model of the kernel. Covers target resolution from the device, loading, argument
marshalling of compiled kernels, device copies that keep strides, CUDA-event timing,
``layoutc run`` on a GPU, and an AOT artifact loaded by ``layoutc.runtime.load``."""

from __future__ import annotations

import ctypes
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402
import layoutc as lc  # noqa: E402
from layoutc.cli.main import main  # noqa: E402
from layoutc.driver import jit, targets  # noqa: E402
from layoutc.driver.example import find_examples  # noqa: E402
from layoutc.driver.loading import load_source  # noqa: E402
from layoutc.driver.run_example import DeviceCopy, format_result, run_example  # noqa: E402
from layoutc.runtime import cuda_driver  # noqa: E402

COPY_1D = ROOT / "examples" / "copy_1d.py"
_COPY_1D_MODULE = vars(load_source(COPY_1D))
TILE, THREADS = _COPY_1D_MODULE["TILE"], _COPY_1D_MODULE["THREADS"]  # the example's own shape


class Event:
    def __init__(self) -> None:
        self.time = 0.0


def _driver_with_events() -> SimpleNamespace:
    """The fake driver plus CUDA events (wall-clock stand-ins)."""

    def record(ev, stream):
        ev.time = time.perf_counter()
        return (fake.SUCCESS,)

    return SimpleNamespace(
        **{k: getattr(fake, k) for k in dir(fake) if k.startswith(("cu", "CU"))},
        cuEventCreate=lambda flags: (fake.SUCCESS, Event()),
        cuEventRecord=record,
        cuEventSynchronize=lambda ev: (fake.SUCCESS,),
        cuEventElapsedTime=lambda a, b: (fake.SUCCESS, (b.time - a.time) * 1e3),
        cuEventDestroy=lambda ev: (fake.SUCCESS,),
    )


def copy_1d_model(values, grid, block):
    """What copy_1d does: one TILE-element tile per block (the grid must cover N exactly)."""
    src, n_src, dst, n_dst = values
    assert n_src == n_dst and grid[0] * TILE == n_src and block == (THREADS, 1, 1)
    ctypes.memmove(dst, src, 4 * n_src)


@pytest.fixture(autouse=True)
def fake_gpu(monkeypatch):
    previous = cuda_driver.use_driver(_driver_with_events())
    monkeypatch.setattr(targets, "_gpu_present", None)
    monkeypatch.setattr(jit, "_default_targets", {})
    monkeypatch.delenv("LAYOUTC_TARGET", raising=False)
    fake.launches.clear()
    fake.loaded.clear()
    fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i"], copy_1d_model)
    yield
    fake.KERNELS.pop("copy_1d", None)
    cuda_driver.use_driver(previous)


def copy_example():
    return find_examples(vars(load_source(COPY_1D)), str(COPY_1D))[0]


def test_default_target_is_the_device_and_calls_launch_there():
    example = copy_example()
    x = np.random.default_rng(0).standard_normal(2 * TILE, dtype=np.float32)
    y = np.full_like(x, np.nan)
    ck = lc.compile(example.kernel, x, y, block=THREADS)
    assert ck.target.name == "sm_90a" and ck.backend.startswith("cuda (")
    ck(x, y, grid=2)  # numpy arrays: staged to the "device" and back by the runtime
    assert np.array_equal(x, y)
    (launch,) = fake.launches
    assert launch["grid"] == (2, 1, 1) and launch["block"] == (THREADS, 1, 1)
    assert fake.loaded[0][0] == ("cubin" if ck.cubin is not None else "ptx")


def test_direct_call_compiles_for_the_device():
    example = copy_example()
    x = np.arange(TILE, dtype=np.float32)
    y = np.zeros_like(x)
    example.kernel(x, y, grid=1, block=THREADS)
    assert np.array_equal(x, y)
    assert fake.launches[-1]["name"] == "copy_1d"


def test_device_copies_keep_shapes_and_strides():
    out = np.arange(12, dtype=np.float32).reshape(3, 4)
    for view in (out, out.T, out[::2, 1::2]):
        d = DeviceCopy(view)
        cai = d.__cuda_array_interface__
        assert cai["shape"] == view.shape and cai["strides"] == view.strides
        assert np.array_equal(d.to_host(), view)


def test_run_example_on_the_gpu_path():
    result = run_example(copy_example(), size=1 << 14, repeat=3)
    assert result.target.is_gpu and result.check is not None and result.check.ok
    assert "Fake GPU" in result.device and len(result.times) == 3
    report = format_result(result)
    assert "ran on    GPU 0: Fake GPU" in report and "128-bit" in report


def test_layoutc_run_on_the_gpu_path(capsys):
    assert main(["run", str(COPY_1D), "--size", "8192", "--repeat", "2"]) == 0
    out = capsys.readouterr().out
    assert "ran on    GPU 0: Fake GPU" in out and "check     passed" in out
    assert "median of 2" in out


def test_aot_artifact_loads_with_the_runtime(tmp_path):
    status = main(
        [
            "compile",
            f"{COPY_1D}::copy_1d",
            "--target",
            "sm_90",
            "--spec",
            "src=align=16",
            "--spec",
            "dst=align=16",
            "--block",
            str(THREADS),
            "-o",
            str(tmp_path / "art"),
        ]
    )
    assert status == 0
    import layoutc.runtime

    lib = layoutc.runtime.load(tmp_path / "art")
    x = np.random.default_rng(1).standard_normal(2 * TILE, dtype=np.float32)
    y = np.zeros_like(x)
    lib.copy_1d(x, y, grid=2)
    assert np.array_equal(x, y)


def test_aot_loading_imports_only_the_runtime(tmp_path):
    """A production process: load the artifact and launch, with no compiler layer imported."""
    import subprocess

    art = tmp_path / "art"
    args = ["--spec", "src=align=16", "--spec", "dst=align=16", "--block", str(THREADS)]
    assert main(["compile", f"{COPY_1D}::copy_1d", "--target", "sm_90", *args, "-o", str(art)]) == 0
    script = f"""
import ctypes, sys
sys.path.insert(0, {str(ROOT / "tests" / "runtime")!r})
import fake_driver as fake
import numpy as np
import layoutc.runtime
from layoutc.runtime import cuda_driver

def model(values, grid, block):
    src, n, dst, _ = values
    ctypes.memmove(dst, src, 4 * n)

fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i"], model)
cuda_driver.use_driver(fake)
lib = layoutc.runtime.load({str(art)!r})
x = np.arange({TILE}, dtype=np.float32)
y = np.zeros_like(x)
lib.copy_1d(x, y, grid=1)
assert (x == y).all()
heavy = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("sympy", "llvmlite")
    or m.startswith(("layoutc.ir", "layoutc.passes", "layoutc.frontend", "layoutc.driver",
                     "layoutc.codegen"))
)
print("heavy:", heavy)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert "heavy: []" in out, out
