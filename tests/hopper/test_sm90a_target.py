"""The sm_90a target and the one mechanism by which ops declare an architecture requirement.

An op carrying ``RequiresTarget`` compiled for a target without its feature is a
``file:line:col: error:`` naming the op and the target (docs/codegen.md, "Target features");
sm_90a builds assemble with ptxas (nvJitLink) on both PTX back ends; a GPU of compute
capability 9.0 gets sm_90a; AOT artifacts carry sm_90a variants the loader picks on sm_90.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.cli.main import main
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.ir.core.traits import TargetRequirement
from layoutc.runtime.artifact import read_manifest, select_variant
from layoutc.runtime.compat import ptx_target_of
from ws_kernels import warp_specialized

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
KERNELS = Path(__file__).with_name("ws_kernels.py")


@pytest.mark.parametrize(
    ("need", "arch", "ok"),
    [
        ("sm_90", "sm_80", False),
        ("sm_90", "sm_89", False),
        ("sm_90", "sm_90", True),
        ("sm_90", "sm_90a", True),
        ("sm_90a", "sm_90", False),
        ("sm_90a", "sm_90a", True),
        ("sm_90a", "sm_80", False),
        ("sm_90a", "sm_100a", False),  # arch-specific: exactly the 9.0 family
        ("sm_80", "sm_90", True),
        ("sm_90", "host", False),
    ],
)
def test_requirement_rules(need, arch, ok):
    assert TargetRequirement(need, "x").satisfied_by(arch) is ok


def test_an_sm90_device_gets_sm90a():
    assert Target.from_capability(9, 0).arch == "sm_90a"
    assert Target.from_capability(9, 0, arch_specific=False).arch == "sm_90"
    assert Target.from_capability(8, 0).arch == "sm_80"  # no sm_80a


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_setmaxnreg_on_an_older_target_is_an_error_at_the_users_line(arch):
    x = np.zeros(256, np.float32)
    with pytest.raises(lc.CompileError) as e:
        lc.compile(warp_specialized, x, block=256, target=arch, cache=False)
    text = str(e.value)
    line = next(
        i + 1
        for i, s in enumerate(KERNELS.read_text().splitlines())
        if "warpgroup_reg_dealloc" in s
    )
    assert re.search(
        rf"ws_kernels\.py:{line}:\d+: error: 'nvvm.setmaxregister' op needs target sm_90a "
        rf"\(setmaxnreg is an arch-specific feature\), but the kernel is compiled for {arch}",
        text,
    ), text


@needs_nvjitlink
@pytest.mark.parametrize("backend", ["libnvvm", "llvm"])
def test_sm90a_builds_assemble_with_ptxas(backend):
    from layoutc.codegen import ptx as ptxmod

    if backend == "libnvvm" and not ptxmod.libnvvm_available():
        pytest.skip("libNVVM not installed")
    x = np.zeros(256, np.float32)
    ck = lc.compile(
        warp_specialized, x, block=256, target="sm_90a", ptx_backend=backend, cache=False
    )
    ptx = ck.products.ptx
    assert ptx_target_of(ptx) == "sm_90a"
    for instr in (
        "setmaxnreg.dec.sync.aligned.u32 40",
        "setmaxnreg.inc.sync.aligned.u32 232",
        "elect.sync",
        "fence.proxy.async.shared::cta",
    ):
        assert instr in ptx, instr
    assert re.search(r"bar\.sync\s+%r\d+, %r\d+|bar\.sync\s+1, 256", ptx), ptx
    assert ck.products.cubin[:4] == b"\x7fELF"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@needs_nvjitlink
def test_aot_sm90a_variant_is_what_an_sm90_device_loads(tmp_path):
    spec = "f32[(N):(1)],align=16"
    status, _, err = _cli(
        "compile",
        f"{KERNELS}::warp_specialized",
        "--target",
        "sm_90a",
        "--block",
        "256",
        "--spec",
        f"x={spec}",
        "-o",
        str(tmp_path / "a"),
    )
    assert status == 0, err
    manifest = read_manifest(tmp_path / "a")
    kernel = manifest["kernels"][0]
    assert [v["arch"] for v in kernel["variants"]] == ["sm_90a"]
    variant, kind = select_variant(kernel, (9, 0), (9, 0))
    assert (variant["arch"], kind) == ("sm_90a", "cubin")
    status, _, err = _cli(
        "compile",
        f"{KERNELS}::warp_specialized",
        "--target",
        "sm_90",
        "--block",
        "256",
        "--spec",
        f"x={spec}",
        "-o",
        str(tmp_path / "b"),
    )
    assert status != 0 and "needs target sm_90a" in err and "ws_kernels.py:" in err


@pytest.mark.gpu
def test_warp_specialized_kernel_on_an_sm90_gpu():
    import torch

    x = torch.zeros(256, device="cuda")
    ck = lc.compile(warp_specialized, x, block=256)  # target "cuda": sm_90a on an H100/H200
    assert ck.target.name == "sm_90a"
    ck(x, grid=1)
    torch.cuda.synchronize()
    want = torch.zeros(256)
    want[::32] = 1.0
    assert torch.equal(x.cpu(), want)
