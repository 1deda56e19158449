"""AOT artifacts keep the facts their code was compiled under, and launches check them.

``layoutc compile`` assumes 16-byte aligned tensors and nothing about dynamic extents beyond
non-negativity unless ``--spec``/``--assume`` say otherwise; the manifest (version 2) states
these facts, the summary line prints them, and the runtime refuses calls that break them. The
1-D copy example compiled this way proves 128-bit accesses, as the JIT does for aligned arrays.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import sys
from pathlib import Path

import numpy as np
import pytest
from driver_kernels import tensor_params
from layoutc.cli.main import main
from layoutc.driver.argspecs import build_spec, spec
from layoutc.driver.spec_facts import runtime_spec_with_facts
from layoutc.runtime.artifact import read_manifest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

import fake_driver as fake  # noqa: E402
from layoutc.runtime import cuda_driver  # noqa: E402
from layoutc.runtime.cuda_memory import DeviceBuffer  # noqa: E402
from layoutc.runtime.errors import ArgumentError  # noqa: E402

COPY_1D = f"{ROOT / 'examples' / 'copy_1d.py'}::copy_1d"
I32_MAX = (1 << 31) - 1


def compile_copy(out: Path, *extra: str, target: str = "sm_90") -> tuple[str, str]:
    """``layoutc compile`` the 1-D copy (for sm_90); returns (stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["compile", COPY_1D, "--target", target, "--block", "128", "-o", str(out), *extra]
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(argv)
    assert status == 0, stderr.getvalue()
    return stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def default_build(tmp_path_factory) -> tuple[Path, str, str]:
    out = tmp_path_factory.mktemp("copy_1d")
    return (out, *compile_copy(out, "--remarks"))


def test_copy_1d_proves_128_bit_accesses_under_default_facts(default_build):
    out, stdout, stderr = default_build
    assert (
        "copy_1d [sm_90]: cubin+ptx" in stdout or "copy_1d [sm_90]: ptx" in stdout
    ) and "copies 128/128-bit; assumes src align=16, dst align=16, N>=0" in stdout
    assert stderr.count("remark: copy uses 128-bit accesses: 4 contiguous f32") == 2
    ptx = (out / "copy_1d.sm_90.ptx").read_text()
    assert "ld.global.v4.f32" in ptx and "st.global.v4.f32" in ptx


def test_the_manifest_states_the_default_facts(default_build):
    manifest = read_manifest(default_build[0])
    assert manifest["version"] == 2
    (kernel,) = manifest["kernels"]
    src, src_n, dst, dst_n = kernel["params"]
    assert src == {
        "name": "src",
        "kind": "pointer",
        "dtype": "f32",
        "align": 16,
        "writes": False,
        "layout": "(?):(1)",
        "dynamic": ["src_shape0"],
    }
    assert dst["writes"] is True  # a read-only array is refused for it
    extent = {"kind": "scalar", "dtype": "i32", "divisible_by": 1, "min": 0, "max": I32_MAX}
    assert src_n == {"name": "src_shape0", **extent, "symbol": "N"}
    assert dst["align"] == 16 and dst_n == {"name": "dst_shape0", **extent, "symbol": "N"}
    assert kernel["equal"] == [["src_shape0", "dst_shape0"]]


def test_spec_and_assume_override_the_defaults(tmp_path):
    stdout, _ = compile_copy(tmp_path / "a", "--spec", "src=align=4", "--spec", "dst=align=4")
    assert "copies 32/32-bit; assumes src align=4, dst align=4, N>=0" in stdout
    assert "ld.global.v4" not in (tmp_path / "a" / "copy_1d.sm_90.ptx").read_text()

    stdout, _ = compile_copy(tmp_path / "b", "--assume", "N%4096==0", "--assume", "N>=1")
    assert "assumes src align=16, dst align=16, N%4096==0, N>=1" in stdout
    params = read_manifest(tmp_path / "b")["kernels"][0]["params"]
    assert [(p["divisible_by"], p["min"]) for p in params if p["kind"] == "scalar"] == [
        (4096, 1),
        (4096, 1),
    ]


class DeviceView:
    """``n`` f32 of device memory starting ``offset`` bytes into an allocation."""

    def __init__(self, n: int, offset: int = 0) -> None:
        self.buffer = DeviceBuffer(4 * n + 64)
        self.ptr = self.buffer.ptr + offset
        self.__cuda_array_interface__ = {
            "shape": (n,),
            "typestr": "<f4",
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
        }


@pytest.fixture
def fake_gpu():
    previous = cuda_driver.use_driver(fake)

    def model(values, grid, block):
        src, n, dst, _ = values
        ctypes.memmove(dst, src, 4 * n)

    fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i"], model)
    fake.launches.clear()
    yield
    fake.KERNELS.pop("copy_1d", None)
    cuda_driver.use_driver(previous)


def test_the_loaded_artifact_refuses_calls_that_break_its_facts(default_build, fake_gpu):
    import layoutc.runtime

    lib = layoutc.runtime.load(default_build[0])
    lib.copy_1d(DeviceView(4096), DeviceView(4096), grid=1)
    assert len(fake.launches) == 1
    with pytest.raises(
        ArgumentError,
        match=r"kernel 'copy_1d', argument 1 \('dst'\): data pointer 0x[0-9a-f]*04 is not "
        r"16-byte aligned, but the kernel was compiled for align=16 \(layoutc compile --spec "
        r'"dst=f32\[\(N\):\(1\)\],align=4" to relax\)',
    ):
        lib.copy_1d(DeviceView(4096), DeviceView(4096, offset=4), grid=1)
    with pytest.raises(ArgumentError, match=r"extent N = 4096, but argument 0 .* N = 8192"):
        lib.copy_1d(DeviceView(8192), DeviceView(4096), grid=1)
    assert len(fake.launches) == 1


def test_runtime_spec_states_the_front_end_facts():
    """What the JIT and the AOT build hand to the runtime: every fact of the spec."""
    kspec = build_spec(
        tensor_params,
        (spec("f32[(N,?):(?,1)]"), spec("f32[(N,?):(?,1)],align=8"), spec("i32,div=8")),
        {},
        assume="N%4==0",
    )
    _, _, abi = tensor_params.trace(kspec)
    rt = runtime_spec_with_facts(kspec, abi)
    by_name = {p.name: p for p in rt.params}
    assert (by_name["src"].align, by_name["dst"].align) == (16, 8)
    n = by_name["src_shape0"]
    assert (n.symbol, n.divisible_by, n.lower, n.upper) == ("N", 4, 0, I32_MAX)
    cols = by_name["src_shape1"]  # an unnamed '?': no symbol, only non-negative
    assert (cols.symbol, cols.divisible_by, cols.lower) == (None, 1, 0)
    ld = by_name["src_stride0"]
    assert (ld.symbol, ld.divisible_by, ld.lower) == (None, 1, None)
    assert by_name["n"].divisible_by == 8
    assert rt.equal == (("src_shape0", "dst_shape0"),)
    assert rt.describe_facts() == [
        "src align=16",
        "dst align=8",
        "N%4==0",
        "N>=0",
        "src_shape1>=0",
        "dst_shape1>=0",
        "n%8==0",
    ]


@pytest.mark.gpu
def test_the_artifact_on_a_gpu_copies_and_refuses_misaligned_views(tmp_path):
    """On a real GPU (the lead runs ``pytest -m gpu``): default facts, 128-bit code, checks."""
    import layoutc.runtime
    from layoutc.runtime.cuda_memory import DeviceArray

    out = tmp_path / "copy"
    stdout, _ = compile_copy(out, target="cuda")  # the device's own architecture
    assert "128/128-bit" in stdout
    lib = layoutc.runtime.load(out)
    from layoutc.driver.loading import load_source

    tile = vars(load_source(ROOT / "examples" / "copy_1d.py"))["TILE"]  # elements per block
    x = np.random.default_rng(0).standard_normal(3 * tile, dtype=np.float32)
    src = DeviceArray.from_host(x)
    dst = DeviceArray.from_host(np.full_like(x, np.nan))
    lib.copy_1d(src, dst, grid=3)
    assert np.array_equal(dst.to_host(), x)
    with pytest.raises(ArgumentError, match=r"'src'\): data pointer .* not 16-byte aligned"):
        lib.copy_1d(DeviceView(4096, offset=4), DeviceView(4096), grid=1)
    with pytest.raises(ArgumentError, match="assuming they are equal"):
        lib.copy_1d(src, DeviceView(4096), grid=1)
