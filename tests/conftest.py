"""Shared pytest configuration: GPU tests run only where a CUDA device is present."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

#: Whether LAYOUTC_VERIFY_EACH came from the caller's environment (then it is never overridden).
_VERIFY_EACH_FROM_CALLER = "LAYOUTC_VERIFY_EACH" in os.environ


def pytest_configure(config):
    # The driver verifies the IR once after the pass pipeline by default (compile time); the
    # tests verify after every pass, so a pass that breaks the IR fails at that pass. Tests
    # marked verify_at_end (below) go back to the driver's default.
    os.environ.setdefault("LAYOUTC_VERIFY_EACH", "1")
    config.addinivalue_line(
        "markers",
        "verify_at_end: compile with the driver's default verification (once, after the pass "
        "pipeline) rather than after every pass (tests/conftest.py says which tests and why)",
    )


@pytest.fixture(scope="session")
def verify_each_from_caller() -> bool:
    """Whether the caller set LAYOUTC_VERIFY_EACH (then no mark changes it)."""
    return _VERIFY_EACH_FROM_CALLER


@pytest.fixture(scope="session")
def _verify_at_end_cache(tmp_path_factory):
    """The compile cache of the tests marked ``verify_at_end`` (shared by the run's workers)."""
    from layoutc.driver import cache

    directory = run_cache_dir(tmp_path_factory, "layoutc-cache-verify-at-end")
    return directory, cache.CompileCache(directory)


@pytest.fixture(autouse=True)
def _verify_at_end(request):
    """Tests marked ``verify_at_end`` verify the IR once after the pass pipeline, as users'
    compiles do, not after every pass (LAYOUTC_VERIFY_EACH=1 costs a third of a large
    kernel's passes: docs/driver.md, "Compile time"). The mark is for the many variants of a
    large whole-pipeline kernel (GEMM and convolution configurations, majors, sizes and
    targets in tests/examples and tests/hopper): an invalid IR still fails them, at the end,
    with the note to set LAYOUTC_VERIFY_EACH=1 to find the pass. Every example's own kernel
    is still compiled with verification after every pass, for the CPU, sm_80 and sm_90
    (tests/examples/test_examples.py is unmarked), as are the passes' own tests (tests/passes,
    tests/lit, tests/ir). The marked tests keep a compile cache of their own: the cache key
    ignores the verification mode, so sharing one would let a marked test's compile stand in
    for an unmarked test's. A caller's own LAYOUTC_VERIFY_EACH always wins."""
    if _VERIFY_EACH_FROM_CALLER or request.node.get_closest_marker("verify_at_end") is None:
        yield
        return
    from layoutc.driver import cache

    directory, store = request.getfixturevalue("_verify_at_end_cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("LAYOUTC_VERIFY_EACH", "0")
    mp.setenv("LAYOUTC_CACHE_DIR", str(directory))
    mp.setattr(cache, "_default", store)
    yield
    mp.undo()


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


def run_cache_dir(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A directory shared by every pytest-xdist worker of this run (their base temporary
    directories are children of the run's), or this process's own without xdist."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    directory = base / name
    directory.mkdir(exist_ok=True)
    return directory


@pytest.fixture(scope="session", autouse=True)
def private_compile_cache(tmp_path_factory):
    """The run's own compile cache, for every test: never the user's ~/.cache/layoutc, and
    none of the variables that add dumps, remarks or another target to every compile. Shared
    by the run's pytest-xdist workers (the cache is safe for concurrent processes:
    tests/codegen/test_toolchain_cache.py), so a kernel that tests in two files build, or a
    CPU JIT's machine code, is made once per run, not once per worker. The docs' commands get
    a cache of their worker's own (tests/docs/conftest.py): their autotune example expects to
    tune."""
    from layoutc.driver import cache

    mp = pytest.MonkeyPatch()
    directory = run_cache_dir(tmp_path_factory, "layoutc-cache")
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
