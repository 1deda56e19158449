"""The sm80 tensor-core GEMMs (examples/gemm_tf32_sm80.py, gemm_f16_sm80.py): tilings the
benchmark sweeps compute C = A @ B.T exactly on the CPU runtime; the PTX of the examples has the
fully unrolled main loop (one mma.sync per atom, ldmatrix.x4, 128-bit cp.async, no local
memory) with little integer work per MMA; the SASS (where cuobjdump is installed) has HMMA and
LDSM and no local loads or stores; bf16 goes through the same code. (test_examples.py runs both
examples on the CPU and assembles them for sm_80 and sm_90.)"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLES_DIR
from layoutc.codegen.cubin import find_cuda_tool

sys.path.insert(0, str(EXAMPLES_DIR))
import gemm_tf32_sm80 as sm80

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
NUMPY_TYPES = {"tf32": np.float32, "f16": np.float16}


def _operands(cfg, k_tiles: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    m, n, k = cfg.bm, 2 * cfg.bn, k_tiles * cfg.bk
    a = rng.integers(-4, 5, (m, k)).astype(NUMPY_TYPES[cfg.dtype])  # exact in every sum
    b = rng.integers(-4, 5, (n, k)).astype(NUMPY_TYPES[cfg.dtype])
    return a, b, np.full((m, n), np.nan, np.float32)


@pytest.mark.verify_at_end  # configurations of the example's kernel (tests/conftest.py)
@pytest.mark.parametrize(
    "name",
    [
        "tf32-128x128x16-s4-w2x4-direct-r1",  # 8 warps, 64-byte rows (Sw<2,2,3>), 4 stages
        "f16-128x128x32-s3-w2x2-smem",  # 64-byte f16 rows (Sw<2,3,3>), two k-blocks per tile
    ],
)
def test_tilings_compute_the_product_on_the_cpu(name):
    bench = _benchmark()
    cfg = bench.config_from_name(name)
    a, b, c = _operands(cfg, k_tiles=5)  # the pipeline wraps around its stages
    ck = lc.compile(sm80.make_gemm(cfg), a, b, c, block=cfg.threads, target="cpu")
    ck(a, b, c, grid=cfg.grid(*c.shape), block=cfg.threads)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64).T)


# A single K-block with more stages than K-blocks (the prologue's clamped loads read block 0
# again) is checked on the CPU with the small tiles, in the full tiles' pipeline and the
# residue's: tests/examples/test_gemm_general.py's test_full_and_residue_tiles_in_one_launch_
# share_a_kernel (K = BK); K = BK + 1 with 4 stages is tests/examples/test_gemm_k_peeling.py's
# test_two_k_blocks_with_more_stages_than_k_blocks.


def _compiled(module_name: str, arch: str):
    from example_files import load_examples

    (example,) = load_examples(EXAMPLES_DIR / f"{module_name}.py")
    args = example.inputs(example.size, np.random.default_rng(0))
    block = example.launch(args)["block"]
    return lc.compile(
        example.kernel, *example.ordered_arguments(args), target=arch, block=block,
        index_bitwidth=32,
    )  # fmt: skip


def loops(ptx: str) -> list[list[str]]:
    """The instructions of every loop (a label to the branch back to it) that holds mma.sync."""
    lines = [x.strip() for x in ptx.splitlines()]
    labels = {x[:-1]: i for i, x in enumerate(lines) if re.match(r"^\$L__\w+:$", x)}
    found = []
    for i, x in enumerate(lines):
        m = re.match(r"^@%p\d+ bra\s+(\$L__\w+);$", x)
        if m and labels.get(m.group(1), i) < i:
            body = lines[labels[m.group(1)] : i + 1]
            if any("mma.sync" in y for y in body):
                found.append(body)
    return found


ZFILL = re.compile(r"^cp\.async\.\w+\.shared\.global \[%rd\d+\], \[%rd\d+\], \d+, %r\d+;$")


def main_loops(ptx: str) -> tuple[list[str], list[str], list[str]]:
    """(the full tiles' main loop, the K-peeled tiles' one, the residue tiles' one). The
    residue's cp.async carry a src-size operand (zero fill), the others do not; the full tiles'
    loop comes first in the PTX (the kernel's first branch), the peeled one second."""
    unguarded = [x for x in loops(ptx) if not any(ZFILL.match(y) for y in x)]
    residue = [x for x in loops(ptx) if any(ZFILL.match(y) for y in x)]
    assert len(unguarded) == 2 and len(residue) == 1, (len(unguarded), len(residue))
    return unguarded[0], unguarded[1], residue[0]


def main_loop(ptx: str) -> list[str]:
    """The full tiles' main loop (the one the benchmark's sizes run)."""
    return main_loops(ptx)[0]


def assert_unpredicated(loop: list[str]) -> None:
    """No zero-filling copy, no guarded instruction but the branch back, and no comparison but
    the stage counters' wrap-around (``setp.eq`` with a constant) and the loop's own test: no
    bound on K (or M, N) is checked in the loop."""
    assert not [x for x in loop if ZFILL.match(x)]
    assert [x for x in loop if x.startswith("@")] == [loop[-1]]
    compares = [x for x in loop if x.startswith("setp.")]
    wraps = [x for x in compares if re.match(r"^setp\.eq\.s32\s+%p\d+, %r\d+, \d+;$", x)]
    assert len(compares) == len(wraps) + 1, "\n".join(compares)
    selects = [x for x in loop if x.startswith("selp.")]
    assert len(selects) == len(wraps), "\n".join(selects)  # the wraps' own selects


INTEGER_OPS = re.compile(r"^(add|sub|mul|mad|shl|shr|and|or|xor|selp|setp|min|max|cvt|neg)\.")
IMMEDIATE = re.compile(r"^add\.s64\s+%rd\d+, %rd\d+, -?\d+;$")  # ptxas folds it into the address


@pytest.mark.parametrize(
    ("module_name", "mma"),
    [
        ("gemm_tf32_sm80", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
        ("gemm_f16_sm80", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    ],
)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_ptx_is_a_pipelined_tensor_core_loop(module_name, mma, arch):
    ck = _compiled(module_name, arch)
    ptx = ck.ptx
    # three copies of the pipeline (full tiles, tiles inside C with a ragged K, residue tiles:
    # the specs prove K a multiple of 16, not of BK); 128x128 tile, 2x2 warps: a warp's 64x64
    # is 4x8 atoms per k-step, 4 k-steps per K-block
    assert ptx.count(mma) == 3 * 128
    assert ".local" not in ptx and "ld.local" not in ptx and "st.local" not in ptx
    assert ".maxntid 128, 1, 1" in ptx
    loads = ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16")
    assert loads == 3 * 40  # 8 per k-step: 4 in the loop, 1 ahead of it
    copies = ptx.count("cp.async.cg.shared.global")
    assert copies == 3 * 48  # 16 per K-block: 2 ahead of the loop, 1 in it
    # zero fill: every copy of the residue's pipeline, the first K-block of the peeled one
    assert sum(bool(ZFILL.match(x.strip())) for x in ptx.splitlines()) == 48 + 16
    assert "cp.async.wait_group 1" in ptx and "cp.async.commit_group" in ptx
    # the epilogues' 128-bit stores: 128*128/128/4 each (the residue's predicated per vector:
    # these specs prove N a multiple of 4)
    assert ptx.count("st.global.v4") == 3 * 32
    assert "ld.global.nc" not in ptx
    loop, peeled, residue = main_loops(ptx)
    for x in (loop, peeled):
        assert sum(mma in y for y in x) == 128
        assert sum("ldmatrix" in y for y in x) == 32
        assert sum("cp.async.cg" in y for y in x) == 16
        # no predicates: no zero-filling copy, no guarded instruction but the branch back, no
        # bound checked
        assert_unpredicated(x)
    # the residue's loop: every copy zero-fills by its coordinates' predicate
    assert sum(bool(ZFILL.match(x)) for x in residue) == 16
    # 16-bit pairs stay in their 32-bit registers (no unpacking into %h halves and repacking)
    assert not [x for x in loop if "%h" in x]
    integer = [x for x in loop if INTEGER_OPS.match(x) and not IMMEDIATE.match(x)]
    # the swizzles are hoisted out of the loop; what is left (stage offsets, 64-bit global
    # addresses, the loop's counters) is about one integer instruction per two MMAs
    assert len(integer) < 0.6 * 128, "\n".join(integer)


def test_the_sass_has_hmma_and_ldsm_and_no_local_memory(tmp_path):
    cuobjdump = find_cuda_tool("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump is not installed (pip install nvidia-cuda-cuobjdump)")
    nvdisasm = find_cuda_tool("nvdisasm")  # cuobjdump -sass runs it
    if nvdisasm is None:
        pytest.skip("nvdisasm is not installed (pip install nvidia-cuda-nvdisasm)")
    ck = _compiled("gemm_tf32_sm80", "sm_80")
    cubin = tmp_path / "gemm.cubin"
    cubin.write_bytes(ck.cubin)
    env = {**os.environ, "NVDISASM_PATH": str(Path(nvdisasm).parent)}
    sass = subprocess.run(
        [cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, env=env
    ).stdout
    ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*)", sass)
    assert ops.count("HMMA") == 3 * 128  # the full, K-peeled and residue tiles' pipelines
    assert ops.count("LDSM") == 3 * 40
    assert ops.count("LDGSTS") == 3 * 48
    assert "LDL" not in ops and "STL" not in ops
    usage = subprocess.run([cuobjdump, "-res-usage", str(cubin)], capture_output=True, text=True)
    registers = int(re.search(r"REG:(\d+)", usage.stdout).group(1))
    assert registers <= 255 and "LOCAL:0" in usage.stdout


@pytest.mark.verify_at_end
def test_bf16_goes_through_the_same_kernel():
    cfg = sm80.GemmConfig("bf16", bk=64)
    specs = (lc.spec("bf16[(M,K):(K,1)]"), lc.spec("bf16[(N,K):(K,1)]"))
    ck = lc.compile(
        sm80.make_gemm(cfg), *specs, lc.spec("f32[(M,N):(N,1)]"), target="sm_90",
        block=cfg.threads, assume=["M%128==0", "N%128==0", "K%64==0"],
    )  # fmt: skip
    # the spec proves every tile full: one pipeline, no residue copy of it
    assert ck.ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 128
    assert ck.ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 40
    assert not [x for x in ck.ptx.splitlines() if ZFILL.match(x.strip())]


def test_bad_tilings_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="64- and 128-byte rows"):
        sm80.make_gemm(sm80.GemmConfig("tf32", bk=64))
    with pytest.raises(ValueError, match="must be a multiple of it"):
        sm80.make_gemm(sm80.GemmConfig("f16", bm=96, warps_m=4))
    assert sm80.CONFIG.grid(100, 129) == (1, 2, 1)  # the ragged tiles get CTAs too
    assert sm80.GemmConfig(raster=2).grid(256, 256, 3) == (8, 1, 3)  # a group past N idles
    assert sm80.GemmConfig(raster=2).grid(256, 1024) == (8, 2, 1)


def test_the_benchmark_names_its_configurations():
    bench = _benchmark()
    for name in bench.SWEEP:
        assert bench.config_from_name(name).name == name
    with pytest.raises(ValueError, match="expected DTYPE-BMxBNxBK"):
        bench.config_from_name("tf32-128x128")
    assert bench.config_from_name("f16-128x128x64-s3-w2x2-smem-r3").raster == 3


def _benchmark():
    name = "layoutc_benchmarks_gemm"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "gemm.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
