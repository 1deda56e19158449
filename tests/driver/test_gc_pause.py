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


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_background_collection_frees_the_garbage_of_the_one_compile(collector_enabled) -> None:
    import weakref

    from layoutc.driver.gc_pause import collect_in_background

    assert collect_in_background() is None  # no compile in flight
    with gc_paused():
        garbage = _Cycle()
        alive = weakref.ref(garbage)
        del garbage
        done = collect_in_background()
        assert done is not None
        done()
        assert alive() is None  # collected on the helper thread, the collector still paused
        assert not gc.isenabled()
        with gc_paused():  # a nested compile: not the only one in flight
            assert collect_in_background() is None
    gc.disable()
    try:
        with gc_paused():  # a collector the user turned off stays off
            assert collect_in_background() is None
    finally:
        gc.enable()
