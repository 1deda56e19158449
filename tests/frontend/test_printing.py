"""Printing from kernels: lc.printf/lc.print/lc.print_tensor on the CPU runtime print what C's
printf prints (Python's % formatting is the oracle), print_tensor in a kernel prints what the
host's print_tensor prints for the same array, and the GPU module calls CUDA's vprintf and
assembles for sm_80 and sm_90."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.frontend.printing import format_tensor


def c_format(fmt: str, *args) -> str:
    """C's printf via Python's % (which has no length modifiers: drop them)."""
    return (
        re.sub(r"%([-+ #0]*\d*(?:\.\d+)?)(?:ll|l|hh|h|j|z|t)?([diouxXfFeEgG])", r"%\1\2", fmt)
        % args
    )


@lc.kernel
def greet(x: lc.Tensor, n: lc.i32):
    tid = lc.thread_idx.x
    if tid == 1:
        lc.printf("tid %d n=%5d x=%f %e big %lld %x%%\n", tid, n, x[2], x[3], lc.i64(n) * 10**9, n)
        lc.print("values:", x[1], n, lc.f64(0.5), "layout", lc.make_layout((2, 4)), sep=" | ")
        lc.printf("%f %f %d %lld\n", lc.f16(x[1]), lc.bf16(x[2]), x[0] > 0.0, n)


def test_printf_and_print_on_the_cpu(capfd):
    x = np.array([0.5, 1.25, -3.0, 1e-3], np.float32)
    ck = lc.compile(greet, x, 42, block=4, target="cpu", cache=False)
    capfd.readouterr()
    ck(x, 42, grid=1, block=4)
    out = capfd.readouterr().out
    want = c_format(
        "tid %d n=%5d x=%f %e big %lld %x%%\n", 1, 42, float(x[2]), float(x[3]), 42 * 10**9, 42
    )
    want += c_format("values: | %f | %d | %f | layout | (2,4):(1,2)\n", float(x[1]), 42, 0.5)
    # f16 and bf16 print their value (1.25 and -3.0 are exact in both); a predicate as 0/1;
    # a 32-bit int given to %lld is widened
    want += c_format("%f %f %d %lld\n", 1.25, -3.0, 1, 42)
    assert out == want


@lc.kernel
def tensors(x: lc.Tensor, y: lc.Tensor, p: lc.Tensor):
    if lc.thread_idx.x == 0:
        f = lc.make_fragment((3, 4), lc.f32)
        for i in range(12):
            f[i] = x[i]
        lc.print_tensor(f)
        lc.print_tensor(lc.local_tile(y, (2, 2, 2), (0, 0, 0)))
        lc.print_tensor(lc.local_tile(p, (5,), (0,)))
        pred = lc.make_fragment((4,), lc.i1)
        for i in range(4):
            pred[i] = x[i] > 0.0
        lc.print_tensor(pred)


def test_print_tensor_matches_the_host(capfd):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(12).astype(np.float32)
    y = np.arange(8, dtype=np.int32).reshape(2, 2, 2, order="F").copy(order="F")
    p = np.array([1, -2, 3, 100, 0], np.int8)
    ck = lc.compile(tensors, x, y, p, block=1, target="cpu", cache=False)
    capfd.readouterr()
    ck(x, y, p, grid=1, block=1)
    out = capfd.readouterr().out.split("\n")
    host_f = format_tensor(x.reshape(3, 4, order="F")).split("\n")
    host_y = format_tensor(y).split("\n")
    host_p = format_tensor(p).split("\n")
    assert out[0] == "rmem_ptr[32b] o (3,4):(1,3):" and host_f[0] == "host_ptr[32b] o (3,4):(1,3):"
    assert out[1:4] == host_f[1:4]
    assert out[4].startswith("gmem_ptr[32b] o ") and out[5:11] == host_y[1:7]
    assert out[11].startswith("gmem_ptr[8b] o ") and out[12:17] == host_p[1:6]
    host_pred = format_tensor(x[:4] > 0).split("\n")
    assert out[17] == "rmem_ptr[8b] o (4):(1):" and out[18:22] == host_pred[1:5]


def test_host_print_tensor_formats(capsys):
    lc.print_tensor(np.array([[1.5, -2.0]], np.float64))
    lc.print_tensor(np.array([3, -40000], np.int64))
    lc.print_tensor(np.array([1.5], np.float16))
    out = capsys.readouterr().out
    # CuTe's pretty_print widths, with C's (Python's) % formatting as the oracle
    want = "host_ptr[64b] o (1,2):(2,1):\n" + c_format("%11.3e%11.3e\n", 1.5, -2.0)
    want += "host_ptr[64b] o (2):(1):\n" + c_format("%5lld\n%5lld\n", 3, -40000)
    want += "host_ptr[16b] o (1):(1):\n" + c_format("  %f\n", 1.5)
    assert out == want


@pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_gpu_module_calls_vprintf(arch):
    x = np.zeros(4, np.float32)
    ck = lc.compile(greet, x, 42, block=4, target=arch, cache=False)
    ptx = ck.ptx
    assert re.search(r"\.extern \.func\s+\(\.param \.b32 func_retval0\) vprintf", ptx)
    assert len(re.findall(r"call\.uni \(retval0\),\s*vprintf,", ptx)) == 3
    assert ck.cubin
    # vprintf(format, buffer): each call packs its promoted arguments (floats as double, the
    # thread index as the int its %d asks for) in one stack struct
    ir = ck.llvm_ir
    assert "alloca {i32, i32, double, double, i64, i32}" in ir
    assert "alloca {double, i32, double}" in ir
    assert "alloca {double, double, i32, i64}" in ir  # f16, bf16 (its bits as f32), i1, i32


def test_printf_diagnostics():
    @lc.kernel
    def too_few(x: lc.Tensor):
        lc.printf("%d %d\n", 1)

    x = np.zeros(4, np.float32)
    with pytest.raises(lc.CompileError, match="the format has 2 conversions but 1 arguments"):
        too_few.trace(too_few.specialize(x, block=1))

    @lc.kernel
    def wrong_type(x: lc.Tensor):
        lc.printf("%d\n", x[0])

    with pytest.raises(lc.CompileError, match="argument #0 has type 'f32' but conversion #0"):
        wrong_type.trace(wrong_type.specialize(x, block=1))

    @lc.kernel
    def string(x: lc.Tensor):
        lc.printf("%s\n", 1)

    with pytest.raises(lc.CompileError, match="the conversion '%s' is not supported"):
        string.trace(string.specialize(x, block=1))

    @lc.kernel
    def dynamic_shape(x: lc.Tensor):
        lc.print_tensor(x)

    with pytest.raises(lc.CompileError, match="print_tensor needs a static shape"):
        dynamic_shape.trace(dynamic_shape.specialize(x, block=1))
