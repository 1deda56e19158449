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


CXX = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")


@needs_c
@pytest.mark.skipif(CXX is None, reason="needs a C++ compiler")
def test_a_cxx_host_links_the_c_launcher(generated, tmp_path):
    """The header declares the launchers inside ``extern "C"``: a C++ program compiles against
    it (warnings as errors) and links the C object the system's C compiler made."""
    objects = []
    for source in (generated / "c" / "layoutc_kernels.c", HERE / "fake_libcuda.c"):
        obj = tmp_path / f"{source.stem}.o"
        subprocess.run(
            [CC, "-std=c11", "-c", f"-I{INCLUDE}", str(source), "-o", str(obj)],
            check=True,
            capture_output=True,
            text=True,
        )
        objects.append(str(obj))
    exe = tmp_path / "cxx_host"
    proc = subprocess.run(
        [
            CXX,
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE}",
            f"-I{generated / 'c'}",
            str(HERE / "cxx_host.cpp"),
            *objects,
            "-lpthread",
            "-o",
            str(exe),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    proc, _ = _run(exe, "", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "misaligned refused: 1 copy_1d: argument src (0x" in proc.stdout
    assert proc.stdout.endswith("ok\n")


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
    assert "cluster=" not in proc.stdout and "non-portable" not in proc.stdout


@needs_c
def test_cluster_launcher_opts_into_non_portable_cluster_sizes(host, generated):
    """Clusters of more than 8 blocks (up to 16): the launcher allows non-portable sizes on the
    function before cuLaunchKernelEx (the fake libcuda, like the driver, refuses otherwise)."""
    proc, _ = _run(host, "cluster16", generated)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "non-portable=1 cluster=(16,1,1) launch grid=(16,1,1)" in proc.stdout
    proc, _ = _run(host, "cluster", generated)
    assert "non-portable" not in proc.stdout


@needs_c
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("cluster-grid", "copy_1d: grid (3, 1, 1) is not divisible by the cluster shape (2, 1, 1)"),
        ("cluster-empty", "copy_1d: cluster (2, 0, 1) has an empty dimension"),
        ("cluster17", "copy_1d: cluster (17, 1, 1) has more than 16 blocks"),
    ],
)
def test_cluster_launches_that_break_the_rules_are_refused(host, tmp_path, mode, message):
    proc, _ = _run(host, mode, tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert message in proc.stdout and "launch" not in proc.stdout


def _explicit_host(generated: Path, out: Path, most: int) -> Path:
    """c_host.c against copy_1d re-emitted as ``cluster="explicit"``, ``max_cluster_size=most``."""
    from dataclasses import replace

    from layoutc.driver.emit_c import c_kernels_from_artifact, emit_c

    kernels = c_kernels_from_artifact(generated / "artifact")
    spec = replace(kernels[0].spec, explicit_cluster=True, max_cluster_blocks=most)
    _, source = emit_c([replace(kernels[0], spec=spec)], out)
    exe = out / "c_host"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", f"-I{out}"]
    files = [str(HERE / "c_host.c"), str(source), str(HERE / "fake_libcuda.c")]
    subprocess.run(
        [CC, *flags, *files, "-lpthread", "-o", str(exe)],
        check=True,
        capture_output=True,
        text=True,
    )
    return exe


@needs_c
def test_explicit_cluster_kernels_refuse_what_the_gpu_would(generated, tmp_path):
    """``.explicitcluster``: the plain launcher refuses (the kernel needs a cluster shape);
    ``.maxclusterrank``: the _cluster launcher refuses a larger cluster; neither launches."""
    exe = _explicit_host(generated, tmp_path / "two", 2)
    header = (tmp_path / "two" / "layoutc_kernels.h").read_text()
    assert "clusters of at most 2 blocks (.maxclusterrank)" in header
    proc, _ = _run(exe, "ok", tmp_path)
    assert proc.returncode == 3 and "launch grid" not in proc.stdout, proc.stdout
    assert (
        "copy_1d: must be launched in clusters (.explicitcluster): call layoutc_copy_1d_cluster"
        in proc.stdout
    )
    proc, _ = _run(exe, "cluster", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cluster=(2,1,1) launch grid=(4,1,1)" in proc.stdout
    proc, _ = _run(_explicit_host(generated, tmp_path / "one", 1), "cluster", tmp_path)
    assert proc.returncode == 3 and "launch grid" not in proc.stdout, proc.stdout
    assert "copy_1d: cluster (2, 1, 1) has more than 1 blocks (.maxclusterrank)" in proc.stdout


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


def _tma_spec():
    """A kernel taking A (rows, cols) with row pitch ``ld`` and a descriptor of it (box 32 x 8,
    128B swizzle), without facts, so that the launcher's own TMA checks are what refuses."""
    from layoutc.runtime.abi import KernelSpec, Param, TmaSource

    carriers = ("A_shape0", "A_shape1", "A_stride0")
    tma = TmaSource("A", (32, 8), (1, 0), 128, ("A_shape0", "A_shape1"), ("A_stride0", 1))
    params = (
        Param("A", "pointer", "f32", "(?,?):(?,1)", carriers),
        *(Param(c, "scalar", "i32") for c in carriers),
        Param("A_tma0", "tma", "f32", tma=tma),
    )
    return KernelSpec("tmak", params)


def test_im2col_rules_the_compiler_fixed_are_checked_when_the_launcher_is_generated(tmp_path):
    """A manifest's im2col descriptor that breaks the static rules (here traversal strides
    past 8, which the schema bounds, bypassed by building the spec directly) is refused."""
    from layoutc.driver.emit_c import CKernel, EmitCError, emit_c
    from layoutc.runtime.abi import KernelSpec, Param, TmaSource

    tma = TmaSource("A", (32, 1, 1), (2, 1, 0), 128, ("A_shape0", 8, 32), (256, 32, 1),
                    mode="im2col", pixels=16, lower=(0,), upper=(-2,), traversal=(9,))  # fmt: skip
    params = (
        Param("A", "pointer", "f32", "(?,8,32):(256,32,1)", ("A_shape0",)),
        Param("A_shape0", "scalar", "i32"),
        Param("A_tma0", "tma", "f32", tma=tma),
    )
    with pytest.raises(EmitCError, match=r"traversal strides \(elementStrides\) must be in "
                                         r"\[1, 8\], one per spatial dimension \(1\); got "
                                         r"\(9,\)"):  # fmt: skip
        emit_c([CKernel(KernelSpec("conv", params), ())], tmp_path, prefix="mylib")


IM2COL_KERNEL = """\
import sys
sys.path.insert(0, {hopper!r})
from im2col_kernels import make_im2col_conv

conv = make_im2col_conv((2, 5, 6, 7, 8), 8, (2, 3, 3), (1, 2, 2), (2, 1, 1), ((1, 1, 0), (1, 2, 0)))
"""

IM2COL_HOST = """\
/* Launches the im2col convolution through the generated launcher. argv[1]: "ok" (two launches
   with one activation, then one with another), "misaligned" or "empty" (no images). */
#include "layoutc_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    float *act = aligned_alloc(64, 4 * 1680 * sizeof(float));
    float *flt = aligned_alloc(64, 8 * 144 * sizeof(float));
    float *out = aligned_alloc(64, 256 * 8 * sizeof(float));
    float *a = !strcmp(mode, "misaligned") ? act + 1 : act;
    int32_t n = !strcmp(mode, "empty") ? 0 : 2;
    layoutc_dim3 grid = {3, 1, 1}, block = {32, 1, 1};
    printf("act=%llx\\n", (unsigned long long)(uintptr_t)a);
    CUresult rc = layoutc_im2col_conv(a, n, flt, out, 90, grid, block, (CUstream)0);
    if (rc == CUDA_SUCCESS) rc = layoutc_im2col_conv(a, 2, flt, out, 90, grid, block, (CUstream)0);
    if (rc == CUDA_SUCCESS) rc = layoutc_im2col_conv(a + 16, 3, flt, out, 135, grid, block, (CUstream)0);
    if (rc != CUDA_SUCCESS) {
        printf("refused %d: %s\\n", (int)rc, layoutc_last_error());
        return 3;
    }
    printf("encodes=%llu\\n", layoutc_tma_encodes());
    return 0;
}
"""


@pytest.fixture(scope="module")
def im2col_host(tmp_path_factory):
    """``layoutc compile --emit-c`` of a strided, dilated, padded im2col convolution
    (tests/hopper/im2col_kernels.py), through the artifact, linked with the fake libcuda."""
    out = tmp_path_factory.mktemp("emit_c_im2col")
    src = out / "convk.py"
    src.write_text(IM2COL_KERNEL.format(hopper=str(ROOT / "tests" / "hopper")))
    code = main(["compile", f"{src}::conv", "--target", "sm_90a", "-o", str(out / "artifact"),
                 "--emit-c", str(out)])  # fmt: skip
    assert code == 0
    (out / "host.c").write_text(IM2COL_HOST)
    exe = out / "c_host_im2col"
    subprocess.run(
        [CC, "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", f"-I{out}",
         str(out / "host.c"), str(out / "layoutc_kernels.c"), str(HERE / "fake_libcuda.c"),
         "-lpthread", "-o", str(exe)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return out, exe


class _RecordingDriver:
    """The Python runtime's driver, recording cuTensorMapEncodeIm2col's arguments."""

    def __init__(self):
        import cuda.bindings.driver as real  # the enums' values, as the C header's

        self.calls = []
        names = ("CUtensorMapDataType", "CUtensorMapInterleave", "CUtensorMapSwizzle",
                 "CUtensorMapL2promotion", "CUtensorMapFloatOOBfill")  # fmt: skip
        for n in names:
            setattr(self, n, getattr(real, n))
        self.cuuint32_t = self.cuuint64_t = int

    def cuTensorMapEncodeIm2col(self, *args):
        import types

        self.calls.append(args)
        return (0, types.SimpleNamespace(opaque=[0] * 16))


@needs_c
def test_im2col_descriptors_are_encoded_by_the_c_launcher_as_the_python_runtime_does(
    im2col_host, tmp_path
):
    """The launcher encodes the activation's im2col descriptor with cuTensorMapEncodeIm2col:
    the same dims, strides, corners, channels, pixels, traversal strides (the convolution's
    stride, W first: 2, 2, 1), swizzle, L2 promotion and zero fill as the Python runtime's
    binder for the same tensor, once per (pointer, extents, strides)."""
    pytest.importorskip("cuda.bindings")
    from layoutc.runtime import cuda_driver, tma
    from layoutc.runtime.abi import KernelSpec
    from layoutc.runtime.artifact import read_manifest
    from layoutc.runtime.tma_im2col import Im2colBox

    out, exe = im2col_host
    proc, _ = _run(exe, "ok", tmp_path, LC_FAKE_TMA_PARAM="5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    act = int(lines[0].removeprefix("act="), 16)
    encodes = [x for x in lines if x.startswith("encode-im2col")]
    assert len(encodes) == 2 and lines[-1] == "encodes=2"
    # the Python runtime's encode of the same descriptors (runtime/packing.py's box)
    (entry,) = read_manifest(out / "artifact")["kernels"]
    spec = KernelSpec.from_json(entry)
    (p,) = [q for q in spec.params if q.kind == "tma"]
    t = p.tma
    assert t.traversal == (2, 2, 1)
    box = Im2colBox("f32", t.box[0], t.pixels, t.lower, t.upper, t.swizzle, t.traversal)
    drv = _RecordingDriver()
    previous = cuda_driver.use_driver(drv)
    try:
        for address, n in ((act, 2), (act + 64, 3)):
            ext = tuple(n if isinstance(e, str) else e for e in (t.extents[m] for m in t.dims))
            st = tuple(
                (1680 if isinstance(s, str) else s) * 4 for s in (t.strides[m] for m in t.dims)
            )
            tma.TmaDescriptorCache().get("act", box, address, ext, st)
    finally:
        cuda_driver.use_driver(previous)

    def text(c):
        dtype, rank, address, dims, strides, lower, upper, channels, pixels, walk = c[:10]
        interleave, swizzle, l2, fill = c[10:]

        def tup(xs):
            return ",".join(str(int(x)) for x in xs)

        return (f"encode-im2col dtype={int(dtype)} rank={rank} address={address:x} "
                f"dims=({tup(dims)}) strides=({tup(strides)}) lower=({tup(lower)}) "
                f"upper=({tup(upper)}) channels={channels} pixels={pixels} "
                f"elementstrides=({tup(walk)}) swizzle={int(swizzle)} "
                f"interleave={int(interleave)} l2={int(l2)} fill={int(fill)}")  # fmt: skip

    assert encodes == [text(c) for c in drv.calls]
    assert (
        "lower=(0,-1,-1) upper=(-2,0,-1) channels=8 pixels=32 elementstrides=(1,2,2,1,1)"
        in (encodes[0])
    )
    launches = [x for x in lines if x.startswith("launch")]
    assert [x.split(" tma=")[1].split(",")[0] for x in launches] == [f"{act:x}"] * 2 + [
        f"{act + 64:x}"
    ]


@needs_c
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("misaligned", r"im2col_conv: argument act \(0x[0-9a-f]+\) is not 16-byte aligned"),
        ("empty", r"im2col_conv: TMA descriptor of 'act': extents must be in \[1, 2\^32\]; "
                  r"dimension 4 is 0"),
    ],
)  # fmt: skip
def test_the_c_launcher_refuses_what_the_im2col_descriptor_cannot_take(
    im2col_host, tmp_path, mode, message
):
    import re

    _, exe = im2col_host
    proc, _ = _run(exe, mode, tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert re.search(message, proc.stdout), proc.stdout
    assert "encode" not in proc.stdout and "launch" not in proc.stdout


@pytest.fixture(scope="module")
def tma_host(tmp_path_factory):
    from layoutc.driver.emit_c import c_kernels_from_artifact, emit_c
    from layoutc.runtime.artifact import ArtifactKernel, Variant, write_artifact

    out = tmp_path_factory.mktemp("emit_c_tma")  # through a manifest, as --emit-c goes
    kernel = ArtifactKernel(_tma_spec(), (Variant("sm_90", cubin=b"fake cubin"),))
    write_artifact(out / "artifact", [kernel])
    emit_c(c_kernels_from_artifact(out / "artifact"), out, "tmalib")
    exe = out / "c_host_tma"
    subprocess.run(
        [
            CC,
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{INCLUDE}",
            f"-I{out}",
            str(HERE / "c_host_tma.c"),
            str(out / "tmalib_kernels.c"),
            str(HERE / "fake_libcuda.c"),
            "-lpthread",
            "-o",
            str(exe),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return out, exe


@needs_c
def test_tma_descriptors_are_encoded_by_the_c_launcher_and_cached(tma_host, tmp_path):
    """The launcher encodes A's descriptor with the Python runtime's conventions (TMA
    dimension order innermost first, strides in bytes of dimensions 1.., the box, the 128B
    swizzle, zero fill), passes it in its parameter slot, and encodes once per (pointer,
    extents, strides)."""
    out, exe = tma_host
    header = (out / "tmalib_kernels.h").read_text()
    assert (
        "CUresult tmalib_tmak(float *A, int32_t A_shape0, int32_t A_shape1, int32_t A_stride0, "
        "layoutc_dim3 lc_grid, layoutc_dim3 lc_block, CUstream lc_stream);" in header
    )
    proc, _ = _run(exe, "ok", tmp_path, LC_FAKE_TMA_PARAM="4")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    a = int(lines[0].removeprefix("a="), 16)
    encode = (
        "encode f32=1 rank=2 dims=(128,64) strides=(512) box=(32,8) elementstrides=1 "
        "swizzle128=1 interleave=0 l2=1 zerofill=1"
    )
    assert lines.count(encode) == 2  # the first tensor once, the second once
    launches = [x for x in lines if x.startswith("launch")]
    words = [x.split(" tma=")[1] for x in launches]
    assert words == [f"{a:x},{64 << 32 | 128:x}"] * 2 + [f"{a + 64:x},{64 << 32 | 128:x}"]
    assert "launch grid=(8,4,1) block=(32,1,1) smem=0 kernel=tmak" in launches[0]
    assert lines[-1] == "encodes=2"


@needs_c
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("misaligned", "tmak: TMA descriptor of 'A': the global address must be 16-byte aligned"),
        (
            "stride",
            "tmak: TMA descriptor of 'A': byte strides must be positive multiples of 16 below "
            "2^40; dimension 1 has 516 bytes",
        ),
        ("extent", "tmak: TMA descriptor of 'A': extents must be in [1, 2^32]; dimension 1 is 0"),
    ],
)
def test_tma_rules_are_refused_by_the_c_launcher(tma_host, tmp_path, mode, message):
    _, exe = tma_host
    proc, _ = _run(exe, mode, tmp_path)
    assert proc.returncode == 3, proc.stdout
    assert message in proc.stdout and "encode" not in proc.stdout and "launch" not in proc.stdout


def test_fixed_cluster_kernels_launch_in_their_clusters(tmp_path):
    """A kernel compiled with a cluster shape: its launcher passes it, and has no _cluster
    form (the shape is not the caller's to choose)."""
    from dataclasses import replace

    from layoutc.driver.emit_c import CKernel, emit_c

    header, source = emit_c([CKernel(replace(_tma_spec(), cluster=(2, 1, 1)), ())], tmp_path)
    assert "launched in clusters of (2, 1, 1) blocks" in header.read_text()
    assert "_cluster(" not in header.read_text()
    assert (
        "lc_launch_k0(A, A_shape0, A_shape1, A_stride0, lc_grid, lc_block, " in (source.read_text())
        and "(layoutc_dim3){2, 1, 1}, lc_stream);" in source.read_text()
    )


_TMA_GPU_HOST = r"""
#include "tmagpu_kernels.h"
#include <stdio.h>
#include <stdlib.h>

#define M 20
#define K 100
#define BLOCKS 12
#define N 256

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx)) {
        printf("no GPU\n");
        return 2;
    }
    static float a[M * K], logical[BLOCKS * N];
    for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 977) * 0.25f;
    CUdeviceptr A, L, P;
    cuMemAlloc(&A, sizeof a);
    cuMemAlloc(&L, sizeof logical);
    cuMemAlloc(&P, sizeof logical);
    cuMemcpyHtoD(A, a, sizeof a);
    layoutc_dim3 grid = {3, 4, 1};
    for (int rep = 0; rep < 2; ++rep) {
        CUresult rc = CALL;
        if (rc != CUDA_SUCCESS) {
            printf("failed: %s\n", tmagpu_last_error());
            return 3;
        }
    }
    cuCtxSynchronize();
    cuMemcpyDtoH(logical, L, sizeof logical);
    for (int bm = 0; bm < 3; ++bm)
        for (int bk = 0; bk < 4; ++bk)
            for (int e = 0; e < N; ++e) {
                int m = bm * 8 + e / 32, k = bk * 32 + e % 32;
                float want = m < M && k < K ? a[m * K + k] : 0.0f;
                if (logical[(bm * 4 + bk) * N + e] != want) {
                    printf("wrong at block (%d, %d) element %d\n", bm, bk, e);
                    return 4;
                }
            }
    printf("ok encodes=%llu\n", tmagpu_tma_encodes());
    return 0;
}
"""


@pytest.mark.gpu
@needs_c
def test_generated_tma_launcher_runs_on_the_gpu(tmp_path):
    """The box loader of tests/hopper (a 128B-swizzled TMA load per block, boxes over the
    edges) launched from C: the launcher encodes A's descriptor with the driver and the boxes
    are A's, zero outside it; the second launch reuses the descriptor."""
    import sys

    import layoutc as lc
    import numpy as np
    from layoutc.driver.emit_c import CImage, CKernel, emit_c

    sys.path.insert(0, str(ROOT / "tests" / "hopper"))
    import tma_kernels

    kernel = tma_kernels.make_box_loader(8, 32, lc.f32, 3, 2)
    a = np.zeros((20, 100), np.float32)
    out = np.zeros((12, 256), np.float32)
    ck = lc.compile(kernel, a, out, out, block=32, target="sm_90a")
    spec = ck.products.runtime_spec
    kind, image = ck.products.image
    emit_c([CKernel(spec, (CImage("sm_90a", kind, image),))], tmp_path, "tmagpu")
    values = {"A": "(float *)A", "logical": "(float *)L", "physical": "(float *)P"}
    values |= {f"{t}_shape0": str(s[0]) for t, s in (("A", a.shape), ("logical", out.shape))}
    values |= {f"{t}_shape1": str(s[1]) for t, s in (("A", a.shape), ("logical", out.shape))}
    values |= {"A_stride0": "100", "logical_stride0": "256", "physical_shape0": "12"}
    values |= {"physical_shape1": "256", "physical_stride0": "256"}
    args = [values[p.name] for p in spec.params if p.kind != "tma"] + ["grid"]
    if spec.launch_bounds.block is None:
        args.append("(layoutc_dim3){32, 1, 1}")
    call = f"tmagpu_{spec.name}({', '.join([*args, '(CUstream)0'])})"
    host = tmp_path / "host.c"
    host.write_text(_TMA_GPU_HOST.replace("CALL", call))
    exe = tmp_path / "host"
    subprocess.run(
        [
            CC,
            "-std=c11",
            f"-I{INCLUDE}",
            f"-I{tmp_path}",
            str(host),
            str(tmp_path / "tmagpu_kernels.c"),
            "-l:libcuda.so.1",
            "-lpthread",
            "-o",
            str(exe),
        ],
        check=True,
    )
    proc = subprocess.run([str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok encodes=1", proc.stdout


_IM2COL_GPU_HOST = r"""
#include "im2colgpu_kernels.h"
#include <stdio.h>
#include <stdlib.h>

static void *slurp(const char *path, size_t bytes)
{
    void *p = malloc(bytes);
    FILE *f = fopen(path, "rb");
    if (!f || fread(p, 1, bytes, f) != bytes) exit(5);
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    (void)argc;
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx)) {
        printf("no GPU\n");
        return 2;
    }
    float *act = slurp(argv[1], ACT_BYTES), *flt = slurp(argv[2], FLT_BYTES);
    float *out = calloc(1, OUT_BYTES);
    CUdeviceptr A, F, O;
    cuMemAlloc(&A, ACT_BYTES);
    cuMemAlloc(&F, FLT_BYTES);
    cuMemAlloc(&O, OUT_BYTES);
    cuMemcpyHtoD(A, act, ACT_BYTES);
    cuMemcpyHtoD(F, flt, FLT_BYTES);
    cuMemcpyHtoD(O, out, OUT_BYTES);
    layoutc_dim3 grid = {GRID, 1, 1};
    CUresult rc = CALL;
    if (rc != CUDA_SUCCESS) {
        printf("failed: %s\n", im2colgpu_last_error());
        return 3;
    }
    cuCtxSynchronize();
    cuMemcpyDtoH(out, O, OUT_BYTES);
    FILE *f = fopen(argv[3], "wb");
    fwrite(out, 1, OUT_BYTES, f);
    fclose(f);
    printf("ok encodes=%llu\n", im2colgpu_tma_encodes());
    return 0;
}
"""


@pytest.mark.gpu
@needs_c
def test_generated_im2col_launcher_runs_on_the_gpu(tmp_path):
    """The strided, dilated, padded im2col convolution of tests/hopper launched from C: the
    launcher encodes the activation's im2col descriptor with the driver (traversal strides
    and corners as the Python runtime's) and the result is the numpy convolution's."""
    import sys

    import layoutc as lc
    import numpy as np
    from layoutc.driver.emit_c import CImage, CKernel, emit_c

    sys.path.insert(0, str(ROOT / "tests" / "hopper"))
    from im2col_kernels import make_im2col_conv
    from test_tma_im2col_conv import CASES, numpy_conv

    _, shape, k_out, filt, stride, dilation, (pad_lo, pad_hi) = CASES[0]
    rng = np.random.default_rng(5)
    act = rng.integers(-4, 5, shape).astype(np.float32)
    w = rng.integers(-3, 4, (k_out, *filt, shape[-1])).astype(np.float32)
    want = numpy_conv(act, w, stride, dilation, pad_lo, pad_hi)
    m = int(np.prod(want.shape[:-1]))
    flt = np.ascontiguousarray(w.reshape(k_out, -1))
    out = np.zeros((m, k_out), np.float32)
    kernel = make_im2col_conv(shape, k_out, filt, stride, dilation, (pad_lo, pad_hi))
    ck = lc.compile(kernel, act, flt, out, block=32, target="sm_90a")
    spec = ck.products.runtime_spec
    kind, image = ck.products.image
    emit_c([CKernel(spec, (CImage("sm_90a", kind, image),))], tmp_path, "im2colgpu")
    values = {"act": "(float *)A", "flt": "(float *)F", "out": "(float *)O"}
    values |= {"act_shape0": str(shape[0]), "out_shape0": str(m)}
    args = [values[p.name] for p in spec.params if p.kind != "tma"] + ["grid"]
    if spec.launch_bounds.block is None:
        args.append("(layoutc_dim3){32, 1, 1}")
    call = f"im2colgpu_{spec.name}({', '.join([*args, '(CUstream)0'])})"
    host = tmp_path / "host.c"
    source = _IM2COL_GPU_HOST.replace("CALL", call).replace("GRID", str(-(-m // 32)))
    source = source.replace("ACT_BYTES", str(act.nbytes)).replace("FLT_BYTES", str(flt.nbytes))
    host.write_text(source.replace("OUT_BYTES", str(out.nbytes)))
    act.tofile(tmp_path / "act.bin")
    flt.tofile(tmp_path / "flt.bin")
    exe = tmp_path / "host"
    subprocess.run(
        [CC, "-std=c11", f"-I{INCLUDE}", f"-I{tmp_path}", str(host),
         str(tmp_path / "im2colgpu_kernels.c"), "-l:libcuda.so.1", "-lpthread", "-o", str(exe)],
        check=True,
    )  # fmt: skip
    proc = subprocess.run(
        [str(exe), str(tmp_path / "act.bin"), str(tmp_path / "flt.bin"), str(tmp_path / "o.bin")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == "ok encodes=1", proc.stdout
    got = np.fromfile(tmp_path / "o.bin", np.float32).reshape(want.shape)
    np.testing.assert_array_equal(got, want)
