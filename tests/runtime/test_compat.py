"""Driver version -> PTX ISA, architecture compatibility, and artifact variant selection."""

from __future__ import annotations

import pytest
from layoutc.runtime.artifact import select_variant
from layoutc.runtime.compat import (
    cubin_runs_on,
    max_ptx_isa_for_cuda,
    max_ptx_isa_for_driver,
    ptx_isa_of,
    ptx_runs_on,
)
from layoutc.runtime.errors import IncompatibleDriverError


@pytest.mark.parametrize(
    ("driver", "isa"),
    [
        (11080, (7, 8)),
        (12000, (8, 0)),
        (12040, (8, 4)),
        (12060, (8, 5)),
        (12080, (8, 7)),
        (12090, (8, 8)),
        (13000, (9, 0)),
        (13050, (9, 5)),
    ],
)
def test_driver_version_to_max_isa(driver, isa):
    assert max_ptx_isa_for_driver(driver) == isa


def test_unknown_releases_are_answered_conservatively():
    assert max_ptx_isa_for_cuda(13, 9) == (9, 9)
    assert max_ptx_isa_for_cuda(14, 0) == (9, 0)
    with pytest.raises(IncompatibleDriverError, match="older than any release"):
        max_ptx_isa_for_cuda(10, 2)


def test_the_ptx_version_trap():
    # libNVVM 13.5 writes 9.5; a CUDA 13.0 driver accepts up to 9.0.
    assert ptx_isa_of(".version 9.5\n.target sm_90\n") > max_ptx_isa_for_driver(13000)


def test_arch_compatibility():
    assert cubin_runs_on("sm_80", (8, 6)) and not cubin_runs_on("sm_86", (8, 0))
    assert not cubin_runs_on("sm_80", (9, 0))
    assert cubin_runs_on("sm_90a", (9, 0)) and not cubin_runs_on("sm_90a", (9, 1))
    assert ptx_runs_on("sm_80", (9, 0)) and not ptx_runs_on("sm_90", (8, 9))
    assert not ptx_runs_on("sm_90a", (10, 0))


def _kernel(*variants):
    return {"name": "k", "variants": list(variants)}


def _v(arch, ptx_isa=None, cubin=False):
    files = {}
    if ptx_isa:
        files["ptx"] = {"path": f"k.{arch}.ptx"}
    if cubin:
        files["cubin"] = {"path": f"k.{arch}.cubin"}
    return {"arch": arch, "ptx_isa": ptx_isa, "files": files}


def test_select_prefers_exact_cubin_then_compatible_cubin_then_ptx():
    k = _kernel(_v("sm_80", "7.0", True), _v("sm_90", "7.8", True), _v("sm_90a", "8.0", True))
    assert select_variant(k, (9, 0), (9, 0))[0]["arch"] == "sm_90a"
    assert select_variant(k, (8, 6), (9, 0)) == (k["variants"][0], "cubin")
    k = _kernel(_v("sm_80", "7.0"), _v("sm_90", "9.5"))
    assert select_variant(k, (9, 0), (9, 5))[0]["arch"] == "sm_90"
    assert select_variant(k, (9, 0), (9, 0))[0]["arch"] == "sm_80"


def test_select_explains_why_nothing_runs():
    k = _kernel(_v("sm_90", "9.5"), _v("sm_86", None, True))
    with pytest.raises(IncompatibleDriverError) as info:
        select_variant(k, (9, 0), (9, 0))
    text = str(info.value)
    assert "device sm_90, driver accepts PTX ISA up to 9.0" in text
    assert "PTX ISA 9.5 for sm_90 (needs a driver for CUDA 13.5 or newer)" in text
    with pytest.raises(IncompatibleDriverError, match=r"cubin for sm_86 \(does not run on sm_80\)"):
        select_variant(k, (8, 0), (9, 5))
