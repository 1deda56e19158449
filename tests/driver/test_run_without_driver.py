"""``layoutc run --target sm_XX`` on a machine without the NVIDIA driver: one clear error line
naming what is missing and what to do, exit status 1 (never an "internal error")."""

from __future__ import annotations

import types

import pytest
from layoutc.cli.main import main
from layoutc.runtime import cuda_driver

EXAMPLE = """
import layoutc as lc
import numpy as np


@lc.kernel
def double(x: lc.Tensor[lc.f32, "(N):(1)"], y: lc.Tensor[lc.f32, "(N):(1)"]):  # noqa: F722
    i = lc.block_idx.x * 64 + lc.thread_idx.x
    y[i] = x[i] * 2.0


EXAMPLE = lc.Example(
    kernel=double,
    inputs=lambda n, rng: {"x": rng.standard_normal(64 * n, dtype=np.float32),
                           "y": np.zeros(64 * n, np.float32)},
    launch=lambda a: {"grid": a["x"].size // 64, "block": 64},
    reference=lambda a: {"y": a["x"] * 2},
    size=2,
)
"""


def driver_without_library() -> types.ModuleType:
    """Driver bindings whose first call fails as cuda-pathfinder's does without libcuda."""

    class DynamicLibNotFoundError(RuntimeError):
        pass

    def cuInit(flags):
        raise DynamicLibNotFoundError(
            '"cuda" is an NVIDIA driver library and can only be found via system search.'
        )

    return types.SimpleNamespace(cuInit=cuInit)


@pytest.fixture
def no_driver():
    previous = cuda_driver.use_driver(driver_without_library())
    yield
    cuda_driver.use_driver(previous)


def test_run_on_a_gpu_target_without_a_driver_is_one_clear_error(tmp_path, capsys, no_driver):
    program = tmp_path / "double.py"
    program.write_text(EXAMPLE)
    assert main(["run", str(program), "--target", "sm_90"]) == 1
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("layoutc: error: CUDA unavailable: the NVIDIA driver library")
    assert "DynamicLibNotFoundError" in lines[0]
    assert "install the NVIDIA driver" in lines[0] and "--target cpu" in lines[0]
    assert "internal error" not in err
