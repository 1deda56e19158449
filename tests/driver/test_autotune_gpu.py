"""lc.autotune on a GPU (marked gpu): each configuration compiled, checked on the device and
timed with CUDA events (rotating input copies); the fastest kept, the failing ones skipped."""

from __future__ import annotations

import layoutc as lc
import pytest
from autotune_kernels import THREADS, knob_copy
from layoutc.driver.autotune import AutotuneWarning

pytestmark = pytest.mark.gpu

#: elements copied: large enough that 64 repeats take far longer than a launch
N = 1 << 20


def configs() -> list:
    return [
        lc.Config(tile=256, reps=64, block=THREADS),  # 64 times the work
        lc.Config(tile=256, reps=1, block=THREADS),
        lc.Config(tile=256, wrong=True, block=THREADS),  # compiles, fails the check
        lc.Config(tile=256, broken=True, block=THREADS),  # does not compile
    ]


def gpu_arrays():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    src = torch.randn(N, device="cuda")
    return torch, src, torch.full_like(src, float("nan"))


def tune(torch, src, dst, **kw):
    """The four configurations tuned on ``src``/``dst``'s device; returns the tuner."""
    tuned = lc.autotune(
        configs=configs(),
        key=["src"],
        prepare=lambda meta: meta["dst"].fill_(float("nan")),
        check=lambda meta: bool(torch.equal(meta["dst"], meta["src"])),
        **kw,
    )(knob_copy)
    with pytest.warns(AutotuneWarning):
        tuned(src, dst, grid=lambda meta: N // meta["tile"])
    torch.cuda.synchronize()
    return tuned


def assert_tuned(tuned, torch, src, dst) -> None:
    assert torch.equal(dst, src)  # the call launched the choice
    rows = tuned.tunings[tuned.last_key].rows
    assert [r.status for r in rows] == ["ok", "ok", "check failed", "compile failed"]
    assert "no_such_function" in rows[3].reason
    assert rows[0].seconds > 4 * rows[1].seconds, (rows[0].seconds, rows[1].seconds)
    assert tuned.best_config(src, dst) is tuned.configs[1]


def test_tunes_on_the_gpu_with_device_timing():
    torch, src, dst = gpu_arrays()
    tuned = tune(torch, src, dst, workers=1)
    assert_tuned(tuned, torch, src, dst)
