"""The ``verify_at_end`` mark (tests/conftest.py): marked tests compile with the driver's
default verification (once, after the pass pipeline) and a compile cache of their own; the
others verify after every pass and share the run's cache."""

from __future__ import annotations

import os

import pytest
from layoutc.driver import cache
from layoutc.driver.options import CompileOptions


@pytest.mark.verify_at_end
def test_a_marked_test_verifies_once_with_a_cache_of_its_own(verify_each_from_caller):
    if verify_each_from_caller:
        pytest.skip("LAYOUTC_VERIFY_EACH is set by the caller: it wins")
    assert not CompileOptions().verifies_each()
    assert cache.default_cache().directory.name == "layoutc-cache-verify-at-end"
    assert os.environ["LAYOUTC_CACHE_DIR"].endswith("layoutc-cache-verify-at-end")


def test_an_unmarked_test_verifies_after_every_pass_in_the_runs_cache(verify_each_from_caller):
    if verify_each_from_caller:
        pytest.skip("LAYOUTC_VERIFY_EACH is set by the caller: it wins")
    assert CompileOptions().verifies_each()
    assert cache.default_cache().directory.name == "layoutc-cache"
