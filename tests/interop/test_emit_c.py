"""``layoutc compile --emit-c``: a C header and source that embed the cubins and launch the
kernels through the CUDA driver API. Compiled here with the system's C compiler against the
toolkit's cuda.h and run against a fake libcuda (tests/interop/fake_libcuda.c), which checks
image selection, argument marshalling and the refusals; on a GPU (marked) against the real one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from layoutc.cli.main import main

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
COPY_1D = ROOT / "examples" / "copy_1d.py"


def _cuda_include() -> Path | None:
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if base and (Path(base) / "include" / "cuda.h").is_file():
            return Path(base) / "include"
    return None


CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
INCLUDE = _cuda_include()
needs_c = pytest.mark.skipif(
    CC is None or INCLUDE is None, reason="needs a C compiler and the CUDA toolkit's cuda.h"
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The copy_1d artifact for sm_80 and sm_90 and its C launcher."""
    out = tmp_path_factory.mktemp("emit_c")
    code = main(
        [
            "compile",
            f"{COPY_1D}::copy_1d",
            "--target",
            "sm_80",
            "--target",
            "sm_90",
            "-o",
            str(out / "artifact"),
            "--emit-c",
            str(out / "c"),
        ]
    )
    assert code == 0
    return out


def test_header_declares_a_typed_launcher(generated):
    header = (generated / "c" / "layoutc_kernels.h").read_text()
    assert (
        "CUresult layoutc_copy_1d(float *src, int32_t src_shape0, float *dst, int32_t dst_shape0, "
        "layoutc_dim3 lc_grid, layoutc_dim3 lc_block, CUstream lc_stream);" in header
    )
    assert "assumes: src align=16, dst align=16, N>=0" in header


def test_output_is_deterministic(generated, tmp_path):
    from layoutc.driver.emit_c import c_kernels_from_artifact, emit_c

    emit_c(c_kernels_from_artifact(generated / "artifact"), tmp_path)
    for name in ("layoutc_kernels.h", "layoutc_kernels.c"):
        assert (tmp_path / name).read_bytes() == (generated / "c" / name).read_bytes()


@pytest.fixture(scope="module")
def host(generated):
    exe = generated / "c_host"
    subprocess.run(
        [
            CC,
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE}",
            f"-I{generated / 'c'}",
            str(HERE / "c_host.c"),
            str(generated / "c" / "layoutc_kernels.c"),
            str(HERE / "fake_libcuda.c"),
            "-lpthread",
            "-o",
            str(exe),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return exe


def _run(exe: Path, mode: str, tmp_path: Path, cc: str = "90", **env: str):
    image = tmp_path / f"image.{mode}.{cc}"
    environ = {**os.environ, "LC_FAKE_CC": cc, "LC_FAKE_IMAGE": str(image), **env}
    proc = subprocess.run([str(exe), mode], capture_output=True, text=True, env=environ)
    return proc, image


@needs_c
@pytest.mark.parametrize(("cc", "arch"), [("90", "sm_90"), ("80", "sm_80"), ("86", "sm_80")])
def test_launcher_picks_the_image_the_device_runs(host, generated, tmp_path, cc, arch):
    proc, image = _run(host, "ok", tmp_path, cc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "launch grid=(4,1,1) block=(128,1,1) smem=0 stream=(nil) n=4096 loads=1" in proc.stdout
    cubin = (generated / "artifact" / f"copy_1d.{arch}.cubin").read_bytes()
    assert image.read_bytes() == cubin


@needs_c
def test_module_is_loaded_once_per_context(host, tmp_path):
    proc, _ = _run(host, "twice", tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count("loads=1") == 2 and proc.stdout.count("function copy_1d") == 1


@needs_c
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("misaligned", "copy_1d: argument src (0x"),
        ("unequal", "src_shape0 = 4096 and dst_shape0 = 4092 must be equal (one layout symbol)"),
        ("block", "copy_1d: block (2048, 1, 1) must have 1 to 1024 threads"),
    ],
)
def test_arguments_that_break_the_facts_are_refused(host, tmp_path, mode, message):
    proc, _ = _run(host, mode, tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert "refused 1: " in proc.stdout and message in proc.stdout
    assert "launch" not in proc.stdout


@needs_c
def test_cluster_launcher_launches_in_clusters(host, generated):
    """A kernel compiled without a cluster shape gets a ``_cluster`` launcher that launches
    through cuLaunchKernelEx with the cluster dimension; the plain one does not."""
    header = (generated / "c" / "layoutc_kernels.h").read_text()
    assert (
        "CUresult layoutc_copy_1d_cluster(float *src, int32_t src_shape0, float *dst, "
        "int32_t dst_shape0, layoutc_dim3 lc_grid, layoutc_dim3 lc_block, layoutc_dim3 "
        "lc_cluster, CUstream lc_stream);" in header
    )
    proc, _ = _run(host, "cluster", generated)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cluster=(2,1,1) launch grid=(4,1,1) block=(128,1,1)" in proc.stdout
    proc, _ = _run(host, "ok", generated)
    assert "cluster=" not in proc.stdout


@needs_c
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("cluster-grid", "copy_1d: grid (3, 1, 1) is not divisible by the cluster shape (2, 1, 1)"),
        ("cluster-empty", "copy_1d: cluster (2, 0, 1) has an empty dimension"),
    ],
)
def test_cluster_launches_that_break_the_rules_are_refused(host, tmp_path, mode, message):
    proc, _ = _run(host, mode, tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert message in proc.stdout and "launch" not in proc.stdout


@needs_c
def test_no_image_for_the_device_and_no_context_are_errors(host, tmp_path):
    proc, _ = _run(host, "ok", tmp_path, "75")
    assert proc.returncode == 3
    assert "copy_1d: no code for compute capability 7.5 in this library" in proc.stdout
    proc, _ = _run(host, "ok", tmp_path, "90", LC_FAKE_NO_CONTEXT="1")
    assert proc.returncode == 3 and "copy_1d: no current CUDA context" in proc.stdout


def test_c_keywords_and_bad_prefixes(tmp_path):
    from layoutc.driver.emit_c import CKernel, EmitCError, emit_c
    from layoutc.runtime.abi import KernelSpec, Param

    spec = KernelSpec("k", (Param("default", "pointer", "f16"), Param("int", "scalar", "i64")))
    header, _ = emit_c([CKernel(spec, ())], tmp_path, prefix="mylib")
    assert "CUresult mylib_k(uint16_t *default_, int64_t int_, layoutc_dim3 lc_grid" in (
        header.read_text()
    )
    with pytest.raises(EmitCError, match="prefix 'my-lib' is not a C identifier"):
        emit_c([CKernel(spec, ())], tmp_path, prefix="my-lib")


@pytest.mark.gpu
@needs_c
def test_generated_launcher_runs_on_the_gpu(generated):
    exe = generated / "c_host_gpu"
    subprocess.run(
        [
            CC,
            "-std=c11",
            f"-I{INCLUDE}",
            f"-I{generated / 'c'}",
            str(HERE / "c_host_gpu.c"),
            str(generated / "c" / "layoutc_kernels.c"),
            "-l:libcuda.so.1",
            "-lpthread",
            "-o",
            str(exe),
        ],
        check=True,
    )
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr
