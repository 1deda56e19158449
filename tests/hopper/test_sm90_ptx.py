"""Every Hopper nvvm op, translated for the GPU, assembles with ptxas for sm_90a on both PTX
back ends (the frontend's TMA descriptor parameter is not wired yet, so the TMA instructions
are checked here on an LLVM-level kernel that takes the descriptor's address)."""

from __future__ import annotations

from pathlib import Path

import pytest
from layoutc.codegen import ptx as ptxmod
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.codegen.target import Target
from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
from layoutc.codegen.translate import translate_nvvm
from layoutc.ir.core import parse

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
KERNEL = (Path(__file__).parent / "sm90_ops.mlir").read_text()


@needs_nvjitlink
@pytest.mark.parametrize("backend", ["libnvvm", "llvm"])
def test_hopper_ops_assemble_for_sm90a(backend):
    if backend == "libnvvm" and not ptxmod.libnvvm_available():
        pytest.skip("libNVVM not installed")
    target = Target.parse("sm_90a")
    tr = translate_nvvm(parse(KERNEL), target)
    binary = compile_gpu(tr.module, target, ToolchainOptions(ptx_backend=backend))
    ptx = binary.ptx
    for instr in (
        "setmaxnreg.inc.sync.aligned.u32 232",
        "elect.sync",
        "bar.sync",
        "fence.mbarrier_init.release.cluster",
        "fence.proxy.async.shared::cta",
        "barrier.cluster.arrive.aligned",
        "barrier.cluster.wait.aligned",
        "%cluster_ctarank",
        "mapa.shared::cluster.u64",
        "mbarrier.arrive.shared::cluster.b64 _,",
        "mbarrier.arrive.release.cluster.shared::cluster.b64 _,",
        "mbarrier.arrive.shared.b64",
        "mbarrier.init.shared.b64",
        "mbarrier.arrive.expect_tx.shared.b64",
        "mbarrier.try_wait.parity.shared.b64",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        ".multicast::cluster",
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".multicast::cluster",
        "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group.read 0",
        "prefetch.tensormap",
    ):
        assert instr in ptx, instr
    assert binary.cubin[:4] == b"\x7fELF"


def test_the_gpu_translation_refuses_hopper_ops_on_sm90_for_sm90a_features():
    from layoutc.codegen.translate import TranslationError

    with pytest.raises(TranslationError, match=r"'nvvm.setmaxregister' op needs target sm_90a"):
        translate_nvvm(parse(KERNEL), Target.parse("sm_90"))
