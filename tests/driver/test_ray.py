"""The Ray paths on a local Ray with two CPU workers: a library built on Ray is byte-identical
to the serial build; lc.autotune(ray=...) compiles, checks and times each configuration on a
Ray task. Skipped without Ray (pip install 'layoutc[ray]')."""

from __future__ import annotations

import layoutc as lc
import numpy as np
import pytest
from autotune_kernels import THREADS, knob_copy
from layoutc.driver.autotune import AutotuneWarning
from layoutc.driver.library import build_library
from test_autotune import N, arrays
from test_library import contents, jobs

pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray with two CPUs for this file (starting one costs seconds; one file, so
    that parallel test workers never start two at once)."""
    pytest.importorskip("ray")
    from layoutc.driver.library import ray_session

    stop = ray_session("local", num_cpus=2)
    yield
    stop()


@pytest.fixture
def manifest(tmp_path):
    from test_library import MANIFEST

    path = tmp_path / "lib.toml"
    path.write_text(MANIFEST)
    return path


def test_a_local_ray_with_two_workers_gives_the_same_bytes(manifest, tmp_path, local_ray):
    serial = build_library(tmp_path / "serial", jobs(manifest), workers=1)
    on_ray = build_library(tmp_path / "ray", jobs(manifest), workers=2, ray="local")
    assert on_ray.executor == "ray"
    assert contents(on_ray.directory) == contents(serial.directory)


def test_tuning_on_ray_times_each_configuration_on_a_worker(local_ray):
    """With ray=, every configuration is compiled, checked and timed by a Ray task (one CPU
    here, one GPU each on a GPU target); the caller adopts the winner's code."""
    slow = lc.Config(tile=256, reps=64, block=THREADS)
    fast = lc.Config(tile=256, reps=1, block=THREADS)
    wrong = lc.Config(tile=256, wrong=True, block=THREADS)
    broken = lc.Config(tile=256, broken=True, block=THREADS)
    tuned = lc.autotune(
        configs=[slow, fast, wrong, broken],
        key=["src"],
        prepare=lambda meta: meta["dst"].fill(np.nan),
        check=lambda meta: bool((meta["dst"] == meta["src"]).all()),
        ray="local",
    )(knob_copy)
    src, dst = arrays()
    with pytest.warns(AutotuneWarning):
        tuned(src, dst, grid=lambda meta: N // meta["tile"], target="cpu")
    assert (dst == src).all()
    assert tuned.best_config(src, dst, target="cpu") is fast
    rows = tuned.tunings[tuned.last_key].rows
    assert [r.status for r in rows] == ["ok", "ok", "check failed", "compile failed"]
    assert "no_such_function" in rows[3].reason
    assert rows[0].seconds > rows[1].seconds


@pytest.mark.gpu
def test_tuning_on_ray_gives_each_task_one_gpu(local_ray):
    """On a GPU target each Ray task holds one GPU (Ray sets its CUDA_VISIBLE_DEVICES): the
    machine's GPUs tune configurations in parallel, and the choice is the serial one's."""
    import ray
    from test_autotune_gpu import assert_tuned, gpu_arrays, tune

    torch, src, dst = gpu_arrays()
    gpus = ray.cluster_resources().get("GPU", 0)
    assert gpus == torch.cuda.device_count(), ray.cluster_resources()
    tuned = tune(torch, src, dst, ray="local")
    assert_tuned(tuned, torch, src, dst)
