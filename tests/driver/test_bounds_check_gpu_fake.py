"""The GPU side of the bounds check without a GPU: a kernel compiled with ``check_bounds=True``
for the (fake) device takes the bounds record as its last parameter; the launcher writes the
arguments' spans into the device record before the launch and reads it back after it. The fake
driver's model of the instrumented copy does what its code does (check every 16-byte access
against the spans it finds in the record, skip a bad one, the first bad one writes the record),
so these tests cover the launcher's upload, read-back and report. The PTX of checked kernels
is assembled for sm_80 and sm_90 in tests/runtime/test_bounds_check.py."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402
import layoutc as lc  # noqa: E402
from layoutc.driver import jit, targets  # noqa: E402
from layoutc.driver.loading import load_source  # noqa: E402
from layoutc.runtime import bounds as B  # noqa: E402
from layoutc.runtime import cuda_driver  # noqa: E402
from layoutc.runtime.errors import OutOfBoundsError  # noqa: E402

COPY_1D = ROOT / "examples" / "copy_1d.py"
MODULE = vars(load_source(COPY_1D))
TILE, THREADS = MODULE["TILE"], MODULE["THREADS"]
PER_THREAD = TILE // THREADS // 4  # 16-byte accesses per thread and tensor


def checked_copy_model(values, grid, block):
    """copy_1d with the bounds check, thread by thread, as the instrumented code runs."""
    src, _, dst, _, record = values
    words = (ctypes.c_int64 * (B.SPANS + 10)).from_address(record)
    spans = {p: (words[B.SPANS + 2 * p], words[B.SPANS + 2 * p + 1]) for p in (0, 2)}
    scratch = record + 8 * B.SCRATCH

    def access(site, param, addr, bid, tid):
        lo, hi = spans[param]
        if lo <= addr and addr + 16 <= hi:
            return addr
        words[B.COUNT] += 1
        if words[B.COUNT] == 1:
            words[B.SITE], words[B.PARAM], words[B.ADDRESS], words[B.BYTES] = site, param, addr, 16
            words[B.TID], words[B.TID + 1], words[B.TID + 2] = tid, 0, 0
            words[B.CTAID], words[B.CTAID + 1], words[B.CTAID + 2] = bid, 0, 0
        return scratch

    for bid in range(grid[0]):
        for tid in range(block[0]):
            for j in range(PER_THREAD):
                element = bid * TILE + j * (TILE // PER_THREAD) + 4 * tid
                s = access(2 * j, 0, src + 4 * element, bid, tid)
                d = access(2 * j + 1, 2, dst + 4 * element, bid, tid)
                ctypes.memmove(d, s, 16)


@pytest.fixture(autouse=True)
def fake_gpu(monkeypatch):
    previous = cuda_driver.use_driver(fake)
    monkeypatch.setattr(targets, "_gpu_present", None)
    monkeypatch.setattr(jit, "_default_targets", {})
    monkeypatch.delenv("LAYOUTC_TARGET", raising=False)
    fake.launches.clear()
    fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i", "Q"], checked_copy_model)
    yield
    fake.KERNELS.pop("copy_1d", None)
    cuda_driver.use_driver(previous)


def compiled(x, y, **kw):
    return lc.compile(MODULE["copy_1d"], x, y, block=THREADS, **kw)


def test_a_checked_gpu_kernel_copies_like_the_unchecked_one():
    x = np.arange(2 * TILE, dtype=np.float32)
    y = np.zeros_like(x)
    ck = compiled(x, y, check_bounds=True)
    assert ck.target.is_gpu and ck.runtime_spec.bounds_sites is not None
    assert [p.name for p in ck.runtime_spec.arguments] == ["src", "dst"]
    ck(x, y, grid=2)
    assert np.array_equal(x, y)


def test_a_bad_access_on_the_gpu_is_read_back_and_reported():
    x = np.arange(TILE, dtype=np.float32)
    y = np.zeros_like(x)
    ck = compiled(x, y, check_bounds=True)
    with pytest.raises(OutOfBoundsError) as info:
        ck(x, y, grid=3)  # blocks 1 and 2 are past the 1024 elements
    message = str(info.value)
    assert (
        "kernel 'copy_1d': out-of-bounds access by thread (0, 0, 0) of block (1, 0, 0)" in message
    )
    assert f"{COPY_1D}:" in message and "load of 16 bytes" in message
    assert (
        "tensor 'src' (argument 0, layout (1024,):(1,)) has elements at offsets 0..1023" in message
    )
    assert "element offset 1024 (coordinate (1024,))" in message
    assert f"({2 * 2 * TILE // 4 - 1} more bad accesses" in message  # every access of blocks 1, 2
    assert np.array_equal(x, y)  # block 0 copied; the bad accesses were skipped
    ck(x, y, grid=1)  # the record is cleared for the next launch


def test_the_environment_turns_the_check_on_for_gpu_code(monkeypatch):
    x = np.arange(TILE, dtype=np.float32)
    monkeypatch.setenv("LAYOUTC_CHECK_BOUNDS", "1")
    assert compiled(x, x.copy(), cache=False).runtime_spec.bounds_sites is not None
    monkeypatch.setenv("LAYOUTC_CHECK_BOUNDS", "0")
    assert compiled(x, x.copy(), cache=False).runtime_spec.bounds_sites is None
    monkeypatch.setenv("LAYOUTC_CHECK_BOUNDS", "maybe")
    with pytest.raises(ValueError, match=r"LAYOUTC_CHECK_BOUNDS='maybe' is not valid"):
        compiled(x, x.copy(), cache=False)


def test_an_aot_artifact_compiled_with_the_check_reports_through_the_runtime(tmp_path):
    import layoutc.runtime
    from layoutc.cli.main import main

    args = ["--spec", "src=align=16", "--spec", "dst=align=16", "--block", str(THREADS)]
    target = ["--target", "sm_90", "--check-bounds", "-o", str(tmp_path / "art")]
    assert main(["compile", f"{COPY_1D}::copy_1d", *args, *target]) == 0
    lib = layoutc.runtime.load(tmp_path / "art")
    x = np.arange(TILE, dtype=np.float32)
    y = np.zeros_like(x)
    lib.copy_1d(x, y, grid=1)
    assert np.array_equal(x, y)
    with pytest.raises(
        OutOfBoundsError, match=r"tensor 'dst' \(argument 1|tensor 'src' \(argument 0"
    ):
        lib.copy_1d(x, y, grid=2)
