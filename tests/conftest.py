"""Shared pytest configuration: GPU tests run only where a CUDA device is present."""

from __future__ import annotations

import functools
import os

import pytest


def pytest_configure(config):
    # The driver verifies the IR once after the pass pipeline by default (compile time); the
    # tests verify after every pass, so a pass that breaks the IR fails at that pass.
    os.environ.setdefault("LAYOUTC_VERIFY_EACH", "1")


@functools.cache
def gpu_available() -> bool:
    """True when the CUDA driver loads and reports at least one device."""
    try:
        from cuda.bindings import driver
    except Exception:
        return False
    try:
        (err,) = driver.cuInit(0)
        if int(err) != 0:
            return False
        err, count = driver.cuDeviceGetCount()
        return int(err) == 0 and count > 0
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if gpu_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU on this machine")
    for item in items:
        # The marker, not `"gpu" in item.keywords`: keywords also hold folder names
        # (tests/dialects/gpu/ tests the gpu dialect and needs no GPU).
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def private_compile_cache(tmp_path_factory):
    """A session's own compile cache: never the user's ~/.cache/layoutc, and none of the
    variables that add dumps, remarks or another target to every compile. Folders whose tests
    compile many kernels make it autouse in their conftest. One per pytest-xdist worker (a
    shared one would share autotuning choices too: the docs' autotune example expects to tune);
    the worker's compiles and the subprocesses the docs tests run reuse its kernels and the CPU
    JIT's machine code."""
    from layoutc.driver import cache

    mp = pytest.MonkeyPatch()
    directory = tmp_path_factory.mktemp("layoutc-cache")
    mp.setenv("LAYOUTC_CACHE_DIR", str(directory))
    for name in (
        "LAYOUTC_DUMP_DIR",
        "LAYOUTC_PRINT_IR_AFTER_ALL",
        "LAYOUTC_REMARKS",
        "LAYOUTC_TARGET",
    ):
        mp.delenv(name, raising=False)
    mp.setattr(cache, "_default", cache.CompileCache(directory))
    yield directory
    mp.undo()


@pytest.fixture(autouse=True)
def _no_leaked_gpu_answer():
    """Each test starts with the process's real answer to "is there a GPU?": a test that runs
    on the fake CUDA driver must not leave that driver, or the GPU it reported, to the tests
    that run after it in the same worker (pytest-xdist runs many files in one process)."""
    from layoutc.driver import jit, targets
    from layoutc.runtime import cuda_driver

    present, defaults, driver = (
        targets._gpu_present,
        dict(jit._default_targets),
        cuda_driver._driver,
    )
    yield
    if cuda_driver._driver is not driver:
        cuda_driver.use_driver(driver)
    if targets._gpu_present != present:
        targets._gpu_present = present
        jit._default_targets.clear()
        jit._default_targets.update(defaults)
