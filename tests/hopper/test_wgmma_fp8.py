"""FP8 warpgroup MMAs (e4m3/e5m2 in, f32 accumulate, K = 32, both operands K-major): the IR's
FP8 formats and the CPU runtime's decoding against a decoder written from the OCP definition,
single-warpgroup tiles (A from shared memory and from registers) on the CPU against numpy,
and their sm_90a code."""

import math
import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.ir.core.floats import FLOAT_FORMATS
from layoutc.ir.dialects.tile.atoms import mma_operation
from narrow_floats import FP8_DLPACK, Bits, fp8, fp8_values
from test_wgmma_rs import ptx_a_fragment
from wgmma_rs_kernels import make_fp8_tile_gemm

IR_NAMES = {"f8e4m3": "f8E4M3FN", "f8e5m2": "f8E5M2"}
ONE = {"f8e4m3": 0x38, "f8e5m2": 0x3C}  # 1.0


@pytest.mark.parametrize("name", ["f8e4m3", "f8e5m2"])
def test_ir_formats_decode_and_encode_every_byte(name):
    fmt = FLOAT_FORMATS[IR_NAMES[name]]
    want = fp8_values(np.arange(256, dtype=np.uint8), name)
    assert want[ONE[name]] == 1.0
    for byte in range(256):
        got = fmt.from_bits(byte)
        if math.isnan(want[byte]):
            assert math.isnan(got)
            continue
        assert got == want[byte] and math.copysign(1, got) == math.copysign(1, want[byte])
        assert fmt.to_bits(got) == byte and fmt.round(got) == got
    assert fmt.max_finite == np.nanmax(want[np.isfinite(want)])


def test_fp8_a_fragment_is_the_ptx_isa_layout():
    atom = mma_operation("SM90_64x32x32_F32E4M3E4M3_RS_TN")
    assert (atom.frag_a.count, atom.frag_a.per_register) == (4, 4)
    for t in range(128):
        for i in range(16):
            index = atom.layout_a(t, i)
            assert (index % 64, index // 64) == ptx_a_fragment(t, i, 8), (t, i)


@pytest.mark.parametrize(
    ("n", "a", "b", "kind", "sw"),
    [
        (16, "f8e4m3", "f8e4m3", "SS", "SW128"),
        (32, "f8e5m2", "f8e4m3", "RS", "SW64"),
        (24, "f8e5m2", "f8e5m2", "SS", "SW32"),
        (8, "f8e4m3", "f8e5m2", "RS", "SW128"),
    ],
)
def test_fp8_tile_matches_numpy(n, a, b, kind, sw):
    kernel, bk = make_fp8_tile_gemm(n, getattr(lc, a), getattr(lc, b), kind, sw)
    rng = np.random.default_rng(n)
    da, a64 = fp8(rng, (64, bk), a)
    db, b64 = fp8(rng, (n, bk), b)
    c = np.full((64, n), np.nan, np.float32)
    kernel(da, db, c, grid=1, block=128)
    ref = a64 @ b64.T
    # products of FP8 values are exact in f32; only the f32 sums round
    bound = 2.0**-22 * (np.abs(a64) @ np.abs(b64).T)
    assert (np.abs(c - ref) <= bound).all(), np.abs(c - ref).max()


@pytest.mark.parametrize(("name", "kind"), [("f8e4m3", "SS"), ("f8e5m2", "RS")])
def test_every_finite_fp8_value_reaches_the_product_exactly(name, kind):
    # A holds every finite byte (subnormals, the largest values, both zeros); B is the
    # identity, so C is A's decoded values: the runtime's decoder against the OCP definition
    kernel, bk = make_fp8_tile_gemm(128, getattr(lc, name), getattr(lc, name), kind)
    codes = np.arange(256, dtype=np.uint8)
    finite = codes[np.isfinite(fp8_values(codes, name))]
    a = np.resize(finite, 64 * bk).reshape(64, bk)
    b = np.where(np.eye(128, dtype=bool), ONE[name], 0).astype(np.uint8)
    c = np.full((64, 128), np.nan, np.float32)
    code = FP8_DLPACK[name]
    kernel(Bits(a, code), Bits(b, code), c, grid=1, block=128)
    np.testing.assert_array_equal(c, fp8_values(a, name).astype(np.float32))


@pytest.mark.parametrize(("n", "kind", "b"), [(256, "SS", "f8e5m2"), (128, "RS", "f8e4m3")])
def test_fp8_assembles_for_sm90a(n, kind, b):
    pytest.importorskip("cuda.bindings.nvjitlink")
    from layoutc.codegen.cubin import ptx_to_cubin

    kernel, bk = make_fp8_tile_gemm(n, lc.f8e4m3, getattr(lc, b), kind)
    rng = np.random.default_rng(0)
    da, _ = fp8(rng, (64, bk), "f8e4m3")
    db, _ = fp8(rng, (n, bk), b)
    c = np.zeros((64, n), np.float32)
    ck = lc.compile(kernel, da, db, c, block=128, target="sm_90a")
    instruction = f"wgmma.mma_async.sync.aligned.m64n{n}k32.f32.e4m3.{b[2:]}"
    a_operand = r"\{%r\d+, %r\d+, %r\d+, %r\d+\}" if kind == "RS" else r"%rd\d+"
    pattern = rf"{re.escape(instruction)}\s+\{{[^}}]*\}}, {a_operand}, %rd\d+, p, 1, 1;"
    assert len(re.findall(pattern, ck.ptx)) == bk // 32
    log = ptx_to_cubin(ck.ptx, "sm_90a", verbose=True).log
    assert re.search(r"\b0 bytes lmem\b", log), log
    assert re.search(r"0 bytes spill stores, 0 bytes spill loads", log), log


def test_fp8_arithmetic_is_refused():
    @lc.kernel
    def scale(x: lc.Tensor[lc.f8e4m3, "(N):(1)"], y: lc.Tensor[lc.f8e4m3, "(N):(1)"]):  # noqa: F722
        i = lc.thread_idx.x
        y[i] = x[i] * 2.0

    x = Bits(np.zeros(64, np.uint8), FP8_DLPACK["f8e4m3"])
    with pytest.raises(lc.CompileError, match=r"error: not supported: '\*' on an FP8 value"):
        scale(x, x, grid=1, block=64)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("n", "a", "b", "kind"), [(64, "f8e4m3", "f8e4m3", "SS"), (32, "f8e5m2", "f8e4m3", "RS")]
)
def test_fp8_tile_on_the_gpu_matches_torch(n, a, b, kind):
    torch = pytest.importorskip("torch")
    kernel, bk = make_fp8_tile_gemm(n, getattr(lc, a), getattr(lc, b), kind)
    t = {"f8e4m3": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}
    g = torch.Generator(device="cuda").manual_seed(n)
    da = torch.randn((64, bk), generator=g, device="cuda").to(t[a])
    db = torch.randn((n, bk), generator=g, device="cuda").to(t[b])
    c = torch.full((64, n), float("nan"), device="cuda")
    kernel(da, db, c, grid=1, block=128)
    torch.cuda.synchronize()
    ref = da.double() @ db.double().T
    # the FP8 tensor cores add with fewer than f32's bits (about 14 are reported)
    err = ((c.double() - ref).norm() / ref.norm()).item()
    assert err < 1e-3, err


@pytest.mark.parametrize(
    ("name", "value", "byte"),
    [
        ("f8e4m3", 1.0, 0x38),
        ("f8e4m3", -0.3, 0xAA),
        ("f8e4m3", 1000.0, 0x7F),
        ("f8e5m2", 1000.0, 0x64),
    ],
)
def test_fp8_fill_stores_the_rounded_bits(name, value, byte):
    # a constant is rounded to the format (to nearest even; E4M3 has no infinity: NaN)
    dtype = getattr(lc, name)

    @lc.kernel
    def fill(y: lc.Tensor[dtype, "(64):(1)"]):  # noqa: F722
        lc.fill(y, value)

    out = np.zeros(64, np.uint8)
    fill(Bits(out, FP8_DLPACK[name]), grid=1, block=1)
    assert (out == byte).all(), hex(out[0])
