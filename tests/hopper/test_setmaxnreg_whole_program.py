"""``setmaxnreg`` survives assembly: nvJitLink compiles PTX as relocatable code, where ptxas
drops it (C7504), so the toolchain assembles such PTX as a whole program with a ``ptxas``
executable. Checked on the warp-specialized GEMM: no C7504, and the cubin's register count is
the one the warpgroups' limits add up to (producer 40 x 128 + consumers 232 x 256 threads)."""

from __future__ import annotations

import re
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen import cubin as cubin_mod
from layoutc.codegen.cubin import (
    find_ptxas,
    nvjitlink_version,
    ptx_to_cubin,
    ptxas_to_cubin,
    whole_program_reason,
)
from layoutc.driver.loading import load_source

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"

GEMM = vars(load_source(EXAMPLES_DIR / "gemm_sm90.py"))
C7504 = "C7504"


def test_whole_program_reason_finds_setmaxnreg_instructions_only():
    assert whole_program_reason("\tsetmaxnreg.dec.sync.aligned.u32 40;\n") == "setmaxnreg"
    assert whole_program_reason("\t@%p1 setmaxnreg.inc.sync.aligned.u32 232;") == "setmaxnreg"
    assert whole_program_reason("// setmaxnreg.inc in a comment\n\tadd.s32 %r1, %r2, 1;") is None


def _compile_ws(cfg):
    a = np.zeros((cfg.bm, cfg.bk), np.float16)
    b = np.zeros((cfg.bn, cfg.bk), np.float16)
    c = np.zeros((cfg.bm, cfg.bn), np.float16)
    return lc.compile(
        GEMM["make_gemm"](cfg), a, b, c, block=cfg.threads, target="sm_90a", index_bitwidth=32
    )


CFG = GEMM["GemmConfig"](bm=128, bn=128, stages=3, loads="tma", c_dtype="f16")


def _registers(log: str) -> int:
    found = re.findall(r"Used (\d+) registers", log)
    assert len(found) == 1, log
    return int(found[0])


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas executable on this machine")
def test_setmaxnreg_kernels_get_a_whole_program_cubin():
    ck = _compile_ws(CFG)
    assert any("cubin from" in n and "setmaxnreg" in n for n in ck.products.notes), (
        ck.products.notes
    )
    producer, consumer = CFG.registers
    assert f"setmaxnreg.dec.sync.aligned.u32 {producer}" in ck.ptx
    assert f"setmaxnreg.inc.sync.aligned.u32 {consumer}" in ck.ptx
    log = ptxas_to_cubin(ck.ptx, "sm_90a", find_ptxas(), verbose=True).log
    assert C7504 not in log, log
    assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", log), log
    # the launch allocates the entry's count for every thread; the warpgroups then trade
    # registers within that pool: 128 * 40 + 256 * 232 = 384 * 168
    total = 128 * producer + (CFG.threads - 128) * consumer
    assert _registers(log) * CFG.threads == total, log
    if nvjitlink_version() is not None:  # why: nvJitLink's relocatable code drops setmaxnreg
        relocatable = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
        assert C7504 in relocatable, relocatable


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
def test_without_ptxas_the_loss_is_reported(monkeypatch):
    monkeypatch.setenv("LAYOUTC_PTXAS", "none")
    find_ptxas.cache_clear()
    try:
        assert cubin_mod.find_ptxas() is None
        ck = lc.compile(
            GEMM["make_gemm"](CFG),
            np.zeros((CFG.bm, CFG.bk), np.float16),
            np.zeros((CFG.bn, CFG.bk), np.float16),
            np.zeros((CFG.bm, CFG.bn), np.float16),
            block=CFG.threads,
            target="sm_90a",
            index_bitwidth=32,
            cache=False,
        )
        assert any("C7504" in n for n in ck.products.notes), ck.products.notes
    finally:
        find_ptxas.cache_clear()


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas executable on this machine")
def test_libnvvm_ptx_newer_than_ptxas_is_assembled_declared_at_its_isa():
    """libNVVM's PTX of a setmaxnreg module that ptxas takes only at an older ISA (libNVVM 13.5
    writes 9.5, CUDA 13.0's ptxas takes 9.0) is assembled declared at ptxas's ISA: libNVVM's
    code, not LLVM's re-emission (on which ptxas serializes the ping-pong GEMM's wgmmas,
    C7514). With ``cubin="never"`` the PTX keeps the ISA libNVVM wrote."""
    from layoutc.codegen import ptx as ptx_mod
    from layoutc.codegen import toolchain
    from layoutc.codegen.target import Target

    if not ptx_mod.libnvvm_available():
        pytest.skip("libNVVM not installed")
    target = Target.parse("sm_90a")
    ck = _compile_ws(CFG)  # (the compile cache may hold it: the toolchain runs below)
    only_ptx = toolchain.compile_gpu(
        ck.products.llvm_ir, target, toolchain.ToolchainOptions(cubin="never")
    )
    assert only_ptx.ptx_backend == ptx_mod.LIBNVVM
    ptxas = find_ptxas()
    if only_ptx.ptx_isa <= ptxas.max_isa:
        pytest.skip("libNVVM's PTX is not newer than this ptxas takes")
    binary = toolchain.compile_gpu(ck.products.llvm_ir, target)
    assert binary.ptx_backend == ptx_mod.LIBNVVM and binary.ptx_isa == ptxas.max_isa
    assert any("declared at ISA" in n for n in binary.notes), binary.notes
    assert not any("re-emitted" in n for n in binary.notes), binary.notes
    major, minor = ptxas.max_isa
    assert binary.ptx == re.sub(
        r"\.version \d+\.\d+", f".version {major}.{minor}", only_ptx.ptx, count=1
    )
    assert binary.cubin[:4] == b"\x7fELF"
