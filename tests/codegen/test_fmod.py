"""layoutc's float remainder is C ``fmod`` on every target (passes/conversion/fmod.py):
``arith.remf`` (through convert-arith-to-llvm's helper function) and ``llvm.frem`` (layoutc's
translation), on the CPU runtime and on the GPU with both PTX back ends, against
``numpy.fmod`` bit for bit over the cases where NVPTX's ``frem`` lowering differs: signed
zeros, infinite divisors and quotients too large for ``x - trunc(x / y) * y``."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_translate_support import cpu_kernel, gpu_kernel

NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def _edges(t: str) -> list[float]:
    info = np.finfo(NP[t])
    tiny, big = float(info.smallest_subnormal), float(info.max)
    return [
        0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 5.5, -5.5, 0.1, -0.7, 1e4, -3e4, big, -big,
        big / 3, tiny, -tiny, 7 * tiny, float(info.tiny), math.inf, -math.inf, math.nan,
    ]  # fmt: skip


def _inputs(t: str) -> tuple[np.ndarray, np.ndarray]:
    pairs = list(itertools.product(_edges(t), repeat=2))
    rng = np.random.default_rng(7)
    scale = 1e30 if t == "f64" else 1e4 if t == "f16" else 1e20
    x = rng.standard_normal(256) * scale  # large quotients
    y = rng.standard_normal(256) / 7
    pairs += list(zip(x.tolist(), y.tolist(), strict=True))
    a = np.array([p[0] for p in pairs], NP[t])
    b = np.array([p[1] for p in pairs], NP[t])
    return a, b


def _kernel(t: str, op: str) -> str:
    """Thread i stores ``a[i] op b[i]``."""
    return f"""
llvm.func @rem(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32)
    attributes {{gpu.kernel}} {{
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %bid = nvvm.read.ptx.sreg.ctaid.x : i32
  %nt = nvvm.read.ptx.sreg.ntid.x : i32
  %t0 = llvm.mul %bid, %nt : i32
  %i = llvm.add %t0, %tid : i32
  %in = llvm.icmp "slt" %i, %n : i32
  llvm.cond_br %in, ^body, ^done
^body:
  %pa = llvm.getelementptr %a[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {t}
  %pb = llvm.getelementptr %b[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {t}
  %po = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {t}
  %x = llvm.load %pa : !llvm.ptr<1> -> {t}
  %y = llvm.load %pb : !llvm.ptr<1> -> {t}
  %r = {op} %x, %y : {t}
  llvm.store %r, %po : {t}, !llvm.ptr<1>
  llvm.br ^done
^done:
  llvm.return
}}
"""


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Equal bits, or both NaN (the NaN's payload is not part of fmod's definition)."""
    bits = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
    return bits | (np.isnan(got) & np.isnan(want))


RUNNERS = [
    pytest.param(cpu_kernel, "auto", id="cpu"),
    pytest.param(gpu_kernel, "libnvvm", id="gpu-libnvvm", marks=pytest.mark.gpu),
    pytest.param(gpu_kernel, "llvm", id="gpu-llvm", marks=pytest.mark.gpu),
]


@pytest.mark.parametrize("make,backend", RUNNERS)
@pytest.mark.parametrize("op", ["arith.remf", "llvm.frem"])
@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
def test_remainder_is_c_fmod(make, backend, op, t):
    a, b = _inputs(t)
    n = len(a)
    params = [
        ("a", "pointer", t),
        ("b", "pointer", t),
        ("out", "pointer", t),
        ("n", "scalar", "i32"),
    ]
    k = make(_kernel(t, op), "rem", params, backend)
    out = np.zeros(n, NP[t])
    block = 128
    k(a, b, out, np.int32(n), grid=(n + block - 1) // block, block=block)
    with np.errstate(invalid="ignore"):
        want = np.fmod(a, b)
    bad = ~_same(out, want)
    assert not bad.any(), [(a[i], b[i], out[i], want[i]) for i in np.flatnonzero(bad)[:10]]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("backend", ["libnvvm", "llvm"])
def test_fmod_kernels_assemble(arch, backend):
    """Both forms, every type, both PTX back ends: cubins, and no PTX ``frem`` lowering
    (``cvt.rzi`` of a quotient) anywhere."""
    from layoutc.codegen.cubin import nvjitlink_version
    from layoutc.codegen.ptx import libnvvm_available
    from test_translate_support import gpu_binary

    if nvjitlink_version() is None:
        pytest.skip("nvJitLink not installed")
    if backend == "libnvvm" and not libnvvm_available():
        pytest.skip("libNVVM not installed")
    for t in NP:
        for op in ("arith.remf", "llvm.frem"):
            binary = gpu_binary(_kernel(t, op), arch, backend)
            assert binary.cubin[:4] == b"\x7fELF"
            assert "cvt.rzi" not in binary.ptx, (t, op)
