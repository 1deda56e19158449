"""Every arith op, translated for the host and run on the CPU, against the arith dialect's
reference semantics (the folders' ``arith.semantics``) on edge-case and random inputs.

Inputs avoid what is undefined behaviour in LLVM (division by zero, ``INT_MIN / -1``, shifts
by the width or more, out-of-range float-to-int); those cases are not results anyone may rely
on, and x86 traps on some of them."""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import pytest
from layoutc.ir.core.floats import FLOAT_FORMATS
from layoutc.ir.dialects.arith import semantics
from layoutc.ir.dialects.arith.attributes import CmpFPredicate, CmpIPredicate
from test_translate_support import RUNNERS

N = 256
BLOCK = 64


@pytest.fixture(params=RUNNERS)
def make(request):
    """Builds a kernel for the CPU runtime, or for the GPU when present."""
    return request.param


INT_BINARY = [
    "addi", "subi", "muli", "divui", "divsi", "ceildivui", "ceildivsi", "floordivsi",
    "remui", "remsi", "minsi", "maxsi", "minui", "maxui", "andi", "ori", "xori",
]  # fmt: skip
SHIFTS = ["shli", "shrui", "shrsi"]
FLOAT_BINARY = [
    "addf",
    "subf",
    "mulf",
    "divf",
    "remf",
    "maximumf",
    "minimumf",
    "maxnumf",
    "minnumf",
]
NP = {
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f32": np.float32,
    "f64": np.float64,
}
NP["f16"] = np.float16


def _kernel(
    name: str, t: str, body: list[str], outputs: list[tuple[str, str]], via_index=False
) -> str:
    """A kernel: thread i loads a[i], b[i], s[i] (type t) and stores each output ``o<k>``."""
    mem_t = "i64" if via_index else t
    lines = [
        f"func.func @{name}(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %s: !llvm.ptr<1>, "
        f"%out: !llvm.ptr<1>, %flags: !llvm.ptr<1>) attributes {{gpu.kernel}} {{",
        "  %tid = nvvm.read.ptx.sreg.tid.x : i32",
        "  %bid = nvvm.read.ptx.sreg.ctaid.x : i32",
        "  %nt = nvvm.read.ptx.sreg.ntid.x : i32",
        "  %t0 = arith.muli %bid, %nt : i32",
        "  %i = arith.addi %t0, %tid : i32",
    ]
    for v in ("a", "b", "s"):
        loaded = f"%m{v}" if via_index else f"%{v}v"
        lines.append(
            f"  %p{v} = llvm.getelementptr %{v}[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {mem_t}"
        )
        lines.append(f"  {loaded} = llvm.load %p{v} : !llvm.ptr<1> -> {mem_t}")
        if via_index:
            lines.append(f"  %{v}v = arith.index_cast %m{v} : i64 to index")
    lines += body
    n_out = sum(1 for _, kind in outputs if kind == "value")
    n_flag = sum(1 for _, kind in outputs if kind == "flag")
    lines.append(f"  %nv = arith.constant {N} : i32")
    vi = fi = 0
    for k, (value, kind) in enumerate(outputs):
        lines.append(f"  %ok{k} = arith.constant {vi if kind == 'value' else fi} : i32")
        lines.append(f"  %ob{k} = arith.muli %ok{k}, %nv : i32")
        lines.append(f"  %oi{k} = arith.addi %ob{k}, %i : i32")
        if kind == "value":
            vi += 1
            v = value
            if via_index:
                lines.append(f"  %ov{k} = arith.index_cast {value} : index to i64")
                v = f"%ov{k}"
            lines.append(
                f"  %op{k} = llvm.getelementptr %out[%oi{k}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {mem_t}"
            )
            lines.append(f"  llvm.store {v}, %op{k} : {mem_t}, !llvm.ptr<1>")
        else:
            fi += 1
            lines.append(f"  %ow{k} = arith.extui {value} : i1 to i8")
            lines.append(
                f"  %op{k} = llvm.getelementptr %flags[%oi{k}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8"
            )
            lines.append(f"  llvm.store %ow{k}, %op{k} : i8, !llvm.ptr<1>")
    assert vi == n_out and fi == n_flag
    lines += ["  return", "}"]
    return "\n".join(lines)


def _run(
    make: Any,
    text: str,
    name: str,
    t: str,
    a,
    b,
    s,
    n_values: int,
    n_flags: int,
    mem_t: str | None = None,
):
    mem = mem_t or t
    params = [(v, "pointer", mem) for v in ("a", "b", "s")]
    params += [("out", "pointer", mem), ("flags", "pointer", "i8")]
    k = make(text, name, params)
    out = np.zeros(max(n_values, 1) * N, NP[mem])
    flags = np.zeros(max(n_flags, 1) * N, np.int8)
    k(a, b, s, out, flags, grid=N // BLOCK, block=BLOCK)
    return out.reshape(-1, N), flags.reshape(-1, N)


def _int_inputs(width: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    edges = [0, 1, -1, 2, -2, 7, -7, lo, hi, lo + 1, hi - 1, 1 << (width // 2)]
    a = np.array(
        edges * 2 + list(rng.integers(lo, hi, N - 2 * len(edges), endpoint=True)), np.int64
    )
    b = np.array(
        edges[::-1] * 2 + list(rng.integers(lo, hi, N - 2 * len(edges), endpoint=True)), np.int64
    )
    b[b == 0] = 3
    b[(a == lo) & (b == -1)] = 5
    s = rng.integers(0, width, N).astype(np.int64)
    return a, b, s


def _bits(values: np.ndarray, width: int) -> list[int]:
    return [int(v) & ((1 << width) - 1) for v in values]


def int_kernel(t: str) -> tuple[str, int]:
    """Every integer binary op, shift, compare and select on ``t``; (text, output count)."""
    via_index = t == "index"
    body = [f"  %r{k} = arith.{op} %av, %bv : {t}" for k, op in enumerate(INT_BINARY)]
    body += [f"  %h{k} = arith.{op} %av, %sv : {t}" for k, op in enumerate(SHIFTS)]
    preds = list(CmpIPredicate)
    body += [f"  %c{k} = arith.cmpi {p.name}, %av, %bv : {t}" for k, p in enumerate(preds)]
    body.append(f"  %sel = arith.select %c0, %av, %bv : {t}")
    outputs = [(f"%r{k}", "value") for k in range(len(INT_BINARY))]
    outputs += [(f"%h{k}", "value") for k in range(len(SHIFTS))]
    outputs.append(("%sel", "value"))
    outputs += [(f"%c{k}", "flag") for k in range(len(preds))]
    return _kernel("ints", t, body, outputs, via_index=via_index), len(outputs)


@pytest.mark.parametrize("t", ["i8", "i32", "i64", "index"])
def test_integer_ops(make, t):
    via_index = t == "index"
    width = 64 if via_index else int(t[1:])
    et = t
    rng = np.random.default_rng(width)
    a, b, s = _int_inputs(width, rng)
    preds = list(CmpIPredicate)
    text, n_outputs = int_kernel(t)
    outputs = [None] * n_outputs
    mem = "i64" if via_index else t
    values, flags = _run(
        make,
        text,
        "ints",
        et,
        a.astype(NP[mem]),
        b.astype(NP[mem]),
        s.astype(NP[mem]),
        len(outputs),
        len(preds),
        mem,
    )
    ab, bb, sb = _bits(a, width), _bits(b, width), _bits(s, width)
    for k, op in enumerate(INT_BINARY + SHIFTS):
        got = _bits(values[k], width)
        other = bb if op not in SHIFTS else sb
        for i in range(N):
            want = semantics.int_binary(op, ab[i], other[i], width)
            assert want is not None, (op, a[i], other[i])
            assert got[i] == want, f"{op}({a[i]}, {other[i]}) on {t}: got {got[i]}, want {want}"
    sel = _bits(values[len(INT_BINARY) + len(SHIFTS)], width)
    for k, p in enumerate(preds):
        for i in range(N):
            want = semantics.int_compare(p, ab[i], bb[i], width)
            assert bool(flags[k][i]) == want, (p.name, a[i], b[i])
            if k == 0:
                assert sel[i] == (ab[i] if want else bb[i])


_SPECIAL = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e-45, 3e38, -2.5, 0.1, 1e-30]


def _float_inputs(t: str, rng: np.random.Generator):
    specials = _SPECIAL
    a = specials * len(specials) + list(rng.standard_normal(N - len(specials) ** 2) * 100)
    b = [y for y in specials for _ in specials] + list(
        rng.standard_normal(N - len(specials) ** 2) * 10
    )
    return np.array(a, NP[t]), np.array(b, NP[t])


def _same_float(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def float_kernel(t: str) -> tuple[str, int]:
    """Every float binary op, negf and all 16 cmpf predicates on ``t``."""
    body = [f"  %r{k} = arith.{op} %av, %bv : {t}" for k, op in enumerate(FLOAT_BINARY)]
    body.append(f"  %neg = arith.negf %av : {t}")
    preds = list(CmpFPredicate)
    body += [f"  %c{k} = arith.cmpf {p.name}, %av, %bv : {t}" for k, p in enumerate(preds)]
    outputs = [(f"%r{k}", "value") for k in range(len(FLOAT_BINARY))] + [("%neg", "value")]
    outputs += [(f"%c{k}", "flag") for k in range(len(preds))]
    return _kernel("floats", t, body, outputs), len(outputs)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_float_ops(make, t):
    rng = np.random.default_rng(len(t))
    a, b = _float_inputs(t, rng)
    fmt = FLOAT_FORMATS[t]
    preds = list(CmpFPredicate)
    text, n_outputs = float_kernel(t)
    values, flags = _run(make, text, "floats", t, a, b, a, n_outputs, len(preds))
    for k, op in enumerate(FLOAT_BINARY):
        for i in range(N):
            x, y = float(a[i]), float(b[i])
            if op in ("maxnumf", "minnumf") and x == y == 0.0:
                continue  # LLVM's maxnum/minnum may return either zero
            want = semantics.float_binary(op, x, y, fmt)
            assert _same_float(float(values[k][i]), want), (
                f"{op}({x}, {y}): {values[k][i]} != {want}"
            )
    for i in range(N):
        assert _same_float(float(values[len(FLOAT_BINARY)][i]), -float(a[i]))
    for k, p in enumerate(preds):
        for i in range(N):
            assert bool(flags[k][i]) == semantics.float_compare(p, float(a[i]), float(b[i])), (
                p.name,
                a[i],
                b[i],
            )


def test_fastmath_flags_reach_llvm_ir():
    from layoutc.codegen.translate import translate_host
    from test_translate_support import module

    text = """
    func.func @f(%a: f32, %b: f32) -> f32 {
      %r = arith.addf %a, %b fastmath<fast> : f32
      %s = arith.mulf %r, %b fastmath<nnan,contract> : f32
      return %s : f32
    }
    """
    ir_text = str(translate_host(module(text)).module)
    fadd = next(line for line in ir_text.splitlines() if " fadd " in line)
    for flag in ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"):
        assert f" {flag} " in fadd  # `fast` is all seven
    assert "fmul nnan contract float" in ir_text


CASTS = """
func.func @casts(%a: !llvm.ptr<1>, %f: !llvm.ptr<1>, %o64: !llvm.ptr<1>, %o32: !llvm.ptr<1>, %of: !llvm.ptr<1>, %od: !llvm.ptr<1>)
    attributes {gpu.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %pa = llvm.getelementptr %a[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %x = llvm.load %pa : !llvm.ptr<1> -> i32
  %pf = llvm.getelementptr %f[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %y = llvm.load %pf : !llvm.ptr<1> -> f32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %i0 = arith.muli %tid, %c2 : i32
  %i1 = arith.addi %i0, %c2 : i32
  %sx = arith.extsi %x : i32 to i64
  %zx = arith.extui %x : i32 to i64
  %ix = arith.index_cast %x : i32 to index
  %iu = arith.index_castui %x : i32 to index
  %ix64 = arith.index_cast %ix : index to i64
  %iu64 = arith.index_castui %iu : index to i64
  %n4 = arith.muli %tid, %c4 : i32
  %n41 = arith.addi %n4, %c2 : i32
  %n42 = arith.addi %n4, %c3 : i32
  %n43 = arith.subi %n42, %c2 : i32
  %q0 = llvm.getelementptr %o64[%n4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  %q1 = llvm.getelementptr %o64[%n43] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  %q2 = llvm.getelementptr %o64[%n41] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  %q3 = llvm.getelementptr %o64[%n42] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
  llvm.store %sx, %q0 : i64, !llvm.ptr<1>
  llvm.store %zx, %q1 : i64, !llvm.ptr<1>
  llvm.store %ix64, %q2 : i64, !llvm.ptr<1>
  llvm.store %iu64, %q3 : i64, !llvm.ptr<1>
  %t = arith.trunci %sx : i64 to i32
  %tb = arith.bitcast %y : f32 to i32
  %ft = arith.fptosi %y : f32 to i32
  %fu = arith.fptoui %y : f32 to i32
  %m0 = llvm.getelementptr %o32[%n4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %m1 = llvm.getelementptr %o32[%n43] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %m2 = llvm.getelementptr %o32[%n41] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %m3 = llvm.getelementptr %o32[%n42] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %t, %m0 : i32, !llvm.ptr<1>
  llvm.store %tb, %m1 : i32, !llvm.ptr<1>
  llvm.store %ft, %m2 : i32, !llvm.ptr<1>
  llvm.store %fu, %m3 : i32, !llvm.ptr<1>
  %sf = arith.sitofp %x : i32 to f32
  %uf = arith.uitofp %x : i32 to f32
  %xd = arith.extf %y : f32 to f64
  %yd = arith.sitofp %sx : i64 to f64
  %back = arith.truncf %yd : f64 to f32
  %g0 = llvm.getelementptr %of[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %g1 = llvm.getelementptr %of[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %g2 = arith.subi %i1, %c2 : i32
  %g3 = arith.addi %g2, %c5 : i32
  %pg2 = llvm.getelementptr %g0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
  llvm.store %sf, %g0 : f32, !llvm.ptr<1>
  llvm.store %uf, %pg2 : f32, !llvm.ptr<1>
  %h0 = llvm.getelementptr %od[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f64
  %h1 = llvm.getelementptr %h0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f64
  llvm.store %xd, %h0 : f64, !llvm.ptr<1>
  %bd = arith.extf %back : f32 to f64
  llvm.store %bd, %h1 : f64, !llvm.ptr<1>
  return
}
"""


def test_casts(make):
    params = [("a", "pointer", "i32"), ("f", "pointer", "f32"), ("o64", "pointer", "i64")]
    params += [("o32", "pointer", "i32"), ("of", "pointer", "f32"), ("od", "pointer", "f64")]
    k = make(CASTS, "casts", params)
    rng = np.random.default_rng(7)
    n = 64
    a = np.array([0, 1, -1, 2**31 - 1, -(2**31), 16777217, -16777217, 255] * 8, np.int32)
    a[8:] = rng.integers(-(2**31), 2**31 - 1, n - 8)
    f = (rng.random(n) * 2e9).astype(np.float32)  # in range for both fptosi and fptoui
    f[:4] = [0.0, 1.5, 2.5, 2147483520.0]
    o64 = np.zeros(4 * n, np.int64)
    o32 = np.zeros(4 * n, np.int32)
    of = np.zeros(2 * n, np.float32)
    od = np.zeros(2 * n, np.float64)
    k(a, f, o64, o32, of, od, grid=1, block=n)
    f32 = FLOAT_FORMATS["f32"]
    for i in range(n):
        x, y = int(a[i]), float(f[i])
        ux = x & 0xFFFFFFFF
        assert list(o64[4 * i : 4 * i + 4]) == [x, ux, x, ux]
        bits = struct.unpack("<i", struct.pack("<f", y))[0]
        assert list(o32[4 * i : 4 * i + 4]) == [
            x,
            bits,
            semantics.float_to_int(y, 32, True)
            - (1 << 32) * (semantics.float_to_int(y, 32, True) >> 31),
            semantics.float_to_int(y, 32, False)
            - (1 << 32) * (semantics.float_to_int(y, 32, False) >> 31),
        ]
        assert float(of[2 * i]) == semantics.int_to_float(x, f32)
        assert float(of[2 * i + 1]) == semantics.int_to_float(ux, f32)
        assert float(od[2 * i]) == y
        assert float(od[2 * i + 1]) == f32.round(float(x))


def _bf16_bits_of(values: np.ndarray) -> np.ndarray:
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


HALF_OPS = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"]
HALF_PREDICATES = [CmpFPredicate.olt, CmpFPredicate.oeq, CmpFPredicate.une, CmpFPredicate.uge]


def half_kernel(t: str) -> tuple[str, int]:
    """f16/bf16 arithmetic, negf, extf/truncf and compares, values passed as i16 bits."""
    body = [f"  %av = arith.bitcast %ma : i16 to {t}", f"  %bv = arith.bitcast %mb : i16 to {t}"]
    body += [f"  %r{k} = arith.{op} %av, %bv : {t}" for k, op in enumerate(HALF_OPS)]
    body.append(f"  %neg = arith.negf %av : {t}")
    body.append(f"  %wide = arith.extf %av : {t} to f32")
    body.append("  %sum = arith.addf %wide, %wide : f32")
    body.append(f"  %back = arith.truncf %sum : f32 to {t}")
    body += [
        f"  %c{k} = arith.cmpf {p.name}, %av, %bv : {t}" for k, p in enumerate(HALF_PREDICATES)
    ]
    body += [f"  %o{k} = arith.bitcast %r{k} : {t} to i16" for k in range(len(HALF_OPS))]
    body.append(f"  %oneg = arith.bitcast %neg : {t} to i16")
    body.append(f"  %oback = arith.bitcast %back : {t} to i16")
    outputs = [(f"%o{k}", "value") for k in range(len(HALF_OPS))] + [
        ("%oneg", "value"),
        ("%oback", "value"),
    ]
    outputs += [(f"%c{k}", "flag") for k in range(len(HALF_PREDICATES))]
    text = _kernel("halves", "i16", body, outputs).replace("%av = llvm.load", "%ma = llvm.load")
    text = text.replace("%bv = llvm.load", "%mb = llvm.load")
    return text, len(outputs)


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_half_precision_ops(make, t):
    """bf16 is carried as i16 bits and computed through f32; f16 uses LLVM's half."""
    rng = np.random.default_rng(9)
    fmt = FLOAT_FORMATS[t]
    raw_a = np.array(_SPECIAL * 2 + list(rng.standard_normal(N - 2 * len(_SPECIAL)) * 50))
    raw_b = np.array(_SPECIAL[::-1] * 2 + list(rng.standard_normal(N - 2 * len(_SPECIAL)) * 5))
    if t == "f16":
        with np.errstate(over="ignore"):  # 3e38 is meant to become inf
            a, b = raw_a.astype(np.float16), raw_b.astype(np.float16)
        av, bv = a.astype(np.float64), b.astype(np.float64)
        mem = "i16"
        a_bits, b_bits = a.view(np.int16), b.view(np.int16)
    else:
        a_bits, b_bits = _bf16_bits_of(raw_a).view(np.int16), _bf16_bits_of(raw_b).view(np.int16)
        av = _bf16_values(a_bits.view(np.uint16)).astype(np.float64)
        bv = _bf16_values(b_bits.view(np.uint16)).astype(np.float64)
        mem = "i16"
    text, n_outputs = half_kernel(t)
    values, flags = _run(
        make, text, "halves", "i16", a_bits, b_bits, a_bits, n_outputs, len(HALF_PREDICATES), mem
    )

    def decode(bits: np.ndarray) -> list[float]:
        if t == "f16":
            return [float(x) for x in bits.astype(np.int16).view(np.float16)]
        return [float(x) for x in _bf16_values(bits.astype(np.int16).view(np.uint16))]

    for k, op in enumerate(HALF_OPS):
        got = decode(values[k])
        for i in range(N):
            want = semantics.float_binary(op, float(av[i]), float(bv[i]), fmt)
            assert _same_float(got[i], want), f"{t} {op}({av[i]}, {bv[i]}): {got[i]} != {want}"
    neg, back = decode(values[len(HALF_OPS)]), decode(values[len(HALF_OPS) + 1])
    for i in range(N):
        assert _same_float(neg[i], -float(av[i]))
        assert _same_float(back[i], fmt.round(2 * float(av[i])))
    for k, p in enumerate(HALF_PREDICATES):
        for i in range(N):
            assert bool(flags[k][i]) == semantics.float_compare(p, float(av[i]), float(bv[i]))


def test_bf16_compiles_with_libnvvm_and_llvm():
    from layoutc.codegen.cubin import nvjitlink_version
    from test_translate_support import gpu_binary

    if nvjitlink_version() is None:
        pytest.skip("nvJitLink not installed")
    text = """
func.func @k(%p: !llvm.ptr<1>, %x: f64) attributes {gpu.kernel} {
  %v = llvm.load %p : !llvm.ptr<1> -> bf16
  %w = arith.mulf %v, %v : bf16
  %y = arith.truncf %x : f64 to bf16
  %z = arith.addf %w, %y : bf16
  llvm.store %z, %p : bf16, !llvm.ptr<1>
  return
}
"""
    for backend in ("libnvvm", "llvm"):
        binary = gpu_binary(text, "sm_80", backend)
        assert binary.cubin
        # bf16 results are rounded by the hardware (one cvt.rn.bf16.f32 each: mulf, truncf,
        # addf), not by the host's integer rounding
        assert binary.ptx.count("cvt.rn.bf16.f32") == 3, backend


def test_f64_to_bf16_rounds_once(make):
    """A value just above a bf16 midpoint, whose f32 rounding lands exactly on the midpoint:
    rounding twice would go to even (down), once goes up."""
    text = """
func.func @k(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {gpu.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> f64
  %y = arith.truncf %x : f64 to bf16
  llvm.store %y, %q : bf16, !llvm.ptr<1>
  return
}
"""
    k = make(text, "k", [("p", "pointer", "f64"), ("q", "pointer", "i16")])
    x = np.array([1.0 + 2.0**-8 + 2.0**-30], np.float64)  # 1 + half an ulp of bf16 + a bit
    q = np.zeros(1, np.int16)
    k(x, q, grid=1, block=1)
    assert int(q[0]) == 0x3F81  # 1 + 2**-7, the next bf16 up


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_kernel_here_assembles(arch):
    from layoutc.codegen.cubin import nvjitlink_version
    from test_translate_support import gpu_binary

    if nvjitlink_version() is None:
        pytest.skip("nvJitLink not installed")
    texts = [int_kernel(t)[0] for t in ("i8", "i32", "i64", "index")]
    texts += [float_kernel(t)[0] for t in ("f32", "f64")]
    texts += [half_kernel(t)[0] for t in ("f16", "bf16")]
    texts.append(CASTS)
    for text in texts:
        assert gpu_binary(text, arch).cubin
