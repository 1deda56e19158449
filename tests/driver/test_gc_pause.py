"""The collector pause around compiles: restored exactly, shared by nested and threaded compiles."""

from __future__ import annotations

import gc
import threading

import pytest
from layoutc.driver.gc_pause import gc_paused


@pytest.fixture
def collector_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pause_restores_the_collector(collector_enabled) -> None:
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer compile still runs
    assert gc.isenabled()


def test_pause_restores_after_an_error(collector_enabled) -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("a failing compile")
    assert gc.isenabled()


def test_pause_leaves_a_disabled_collector_disabled(collector_enabled) -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_compiles_in_threads(collector_enabled) -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(10)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the other thread's compile has not finished
    release.set()
    t.join()
    assert gc.isenabled()
