"""Warp collectives and asynchronous copies: nvvm.mma.sync, nvvm.ldmatrix, shfl.sync's
predicate, cp.async, dynamic shared memory. The CPU emulation is checked against the PTX
ISA's fragment tables written out here (independently of the atoms' TV layouts it uses) and
numpy; the NVVM flavour against the exact PTX instructions, assembled to cubin."""

from __future__ import annotations

import numpy as np
import pytest
from test_translate_support import ARCHS, RUNNERS, gpu_binary, needs_nvjitlink, ptx_lines


@pytest.fixture(params=RUNNERS)
def make(request):
    """Builds a kernel from LLVM-level text for the CPU runtime, or for the GPU when present."""
    return request.param


# -- mma.sync ------------------------------------------------------------------------------------


def mma_kernel(shape, ab: str, regs: tuple[int, int, int], reg_ab: str, reg_c: str) -> str:
    """One nvvm.mma.sync per warp on per-lane fragments read from / written to global memory."""
    ra, rb, rc = regs
    lines = [
        "func.func @mma(%a: !llvm.ptr<1>, %b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %d: !llvm.ptr<1>) "
        "attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {",
        "  %lane = nvvm.read.ptx.sreg.laneid : i32",
    ]

    def load(ptr: str, n: int, t: str) -> list[str]:
        lines.append(f"  %{ptr}n = arith.constant {n} : i32")
        lines.append(f"  %{ptr}base = arith.muli %lane, %{ptr}n : i32")
        out = []
        for r in range(n):
            lines.append(f"  %{ptr}c{r} = arith.constant {r} : i32")
            lines.append(f"  %{ptr}i{r} = arith.addi %{ptr}base, %{ptr}c{r} : i32")
            lines.append(
                f"  %{ptr}p{r} = llvm.getelementptr %{ptr}[%{ptr}i{r}] : (!llvm.ptr<1>, i32) "
                f"-> !llvm.ptr<1>, {t}"
            )
            lines.append(f"  %{ptr}{r} = llvm.load %{ptr}p{r} : !llvm.ptr<1> -> {t}")
            out.append(f"%{ptr}{r}")
        return out

    a, b, c = load("a", ra, reg_ab), load("b", rb, reg_ab), load("c", rc, reg_c)
    res = f"!llvm.struct<({', '.join([reg_c] * rc)})>"
    attrs = (
        "layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, "
        f"shape = #nvvm.shape<m = {shape[0]}, n = {shape[1]}, k = {shape[2]}>"
    )
    if reg_ab == "i32":
        attrs += f", multiplicandAPtxType = #nvvm.mma_type<{ab}>"
        attrs += f", multiplicandBPtxType = #nvvm.mma_type<{ab}>"
    lines.append(
        f"  %D = nvvm.mma.sync A[{', '.join(a)}] B[{', '.join(b)}] C[{', '.join(c)}] {{{attrs}}} "
        f": ({reg_ab}, {reg_ab}, {reg_c}) -> {res}"
    )
    lines.append(f"  %dn = arith.constant {rc} : i32")
    lines.append("  %dbase = arith.muli %lane, %dn : i32")
    for r in range(rc):
        lines.append(f"  %dv{r} = llvm.extractvalue %D[{r}] : {res}")
        lines.append(f"  %dc{r} = arith.constant {r} : i32")
        lines.append(f"  %di{r} = arith.addi %dbase, %dc{r} : i32")
        lines.append(
            f"  %dp{r} = llvm.getelementptr %d[%di{r}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, {reg_c}"
        )
        lines.append(f"  llvm.store %dv{r}, %dp{r} : {reg_c}, !llvm.ptr<1>")
    lines += ["  return", "}"]
    return "\n".join(lines)


# PTX ISA, "Matrix Fragments for mma.m16n8k8" / "mma.m16n8k16": groupID g = lane / 4,
# threadID_in_group t = lane % 4.
def _c_entries(lane: int) -> list[tuple[int, int]]:
    g, t = divmod(lane, 4)
    return [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)]


def _a_entries_k8_tf32(lane: int) -> list[tuple[int, int]]:
    g, t = divmod(lane, 4)
    return [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]


def _b_entries_k8_tf32(lane: int) -> list[tuple[int, int]]:  # (k, n)
    g, t = divmod(lane, 4)
    return [(t, g), (t + 4, g)]


def _a_entries_k16(lane: int) -> list[tuple[int, int]]:
    g, t = divmod(lane, 4)
    return [
        (g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1),
        (g, 2 * t + 8), (g, 2 * t + 9), (g + 8, 2 * t + 8), (g + 8, 2 * t + 9),
    ]  # fmt: skip


def _b_entries_k16(lane: int) -> list[tuple[int, int]]:  # (k, n)
    g, t = divmod(lane, 4)
    return [(2 * t, g), (2 * t + 1, g), (2 * t + 8, g), (2 * t + 9, g)]


def _fragments(matrix: np.ndarray, entries) -> np.ndarray:
    return np.array([[matrix[i, j] for i, j in entries(lane)] for lane in range(32)])


def _gather_c(d: np.ndarray) -> np.ndarray:
    out = np.zeros((16, 8), np.float64)
    for lane in range(32):
        for (i, j), v in zip(_c_entries(lane), d[lane]):
            out[i, j] = v
    return out


def _tf32(x: np.ndarray) -> np.ndarray:
    """The 19 bits a tf32 multiplicand keeps (what the tensor cores read from the register)."""
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


TF32_K8 = mma_kernel((16, 8, 8), "tf32", (4, 2, 4), "i32", "f32")
F16_K16 = mma_kernel((16, 8, 16), "f16", (4, 2, 4), "vector<2xf16>", "f32")
BF16_K16 = mma_kernel((16, 8, 16), "bf16", (4, 2, 4), "i32", "f32")
F16_K16_F16ACC = mma_kernel((16, 8, 16), "f16", (4, 2, 2), "vector<2xf16>", "vector<2xf16>")

_MMA_PARAMS = [
    ("a", "pointer", "i32"),
    ("b", "pointer", "i32"),
    ("c", "pointer", "f32"),
    ("d", "pointer", "f32"),
]


def test_mma_m16n8k8_tf32(make):
    rng = np.random.default_rng(10)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)  # (K, N)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = np.zeros((32, 4), np.float32)
    k = make(TF32_K8, "mma", _MMA_PARAMS)
    k(
        _fragments(a, _a_entries_k8_tf32).astype(np.float32).view(np.int32),
        _fragments(b, _b_entries_k8_tf32).astype(np.float32).view(np.int32),
        _fragments(c, _c_entries).astype(np.float32),
        d,
        grid=1,
        block=32,
    )
    expected = _tf32(a).astype(np.float64) @ _tf32(b).astype(np.float64) + c
    np.testing.assert_allclose(_gather_c(d), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_mma_m16n8k16(make, kind):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 16))
    b = rng.standard_normal((16, 8))  # (K, N)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    if kind == "f16":
        a16, b16 = a.astype(np.float16), b.astype(np.float16)
        av, bv = a16.astype(np.float64), b16.astype(np.float64)
        text = F16_K16
    else:
        a16, b16 = _bf16_bits(a), _bf16_bits(b)
        av, bv = _bf16_value(a16).astype(np.float64), _bf16_value(b16).astype(np.float64)
        text = BF16_K16
    fa = np.ascontiguousarray(_fragments(a16, _a_entries_k16)).view(np.int32)
    fb = np.ascontiguousarray(_fragments(b16, _b_entries_k16)).view(np.int32)
    d = np.zeros((32, 4), np.float32)
    k = make(text, "mma", _MMA_PARAMS)
    k(fa, fb, _fragments(c, _c_entries).astype(np.float32), d, grid=1, block=32)
    np.testing.assert_allclose(_gather_c(d), av @ bv + c, rtol=1e-5, atol=1e-5)


def test_mma_m16n8k16_f16_accumulator(make):
    rng = np.random.default_rng(12)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float16)
    d = np.zeros((32, 4), np.float16)
    params = [
        ("a", "pointer", "i32"),
        ("b", "pointer", "i32"),
        ("c", "pointer", "f16"),
        ("d", "pointer", "f16"),
    ]
    k = make(F16_K16_F16ACC, "mma", params)
    fa = np.ascontiguousarray(_fragments(a, _a_entries_k16)).view(np.int32)
    fb = np.ascontiguousarray(_fragments(b, _b_entries_k16)).view(np.int32)
    k(fa, fb, np.ascontiguousarray(_fragments(c, _c_entries)), d, grid=1, block=32)
    expected = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
    # One f16 rounding of an exactly accumulated f32 result.
    np.testing.assert_allclose(_gather_c(d.astype(np.float64)), expected, rtol=1e-3, atol=1e-2)


_MMA_PTX = {
    "tf32": (TF32_K8, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
    "f16": (F16_K16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
    "bf16": (BF16_K16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    "f16acc": (F16_K16_F16ACC, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
}


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("variant", sorted(_MMA_PTX))
def test_mma_is_exact_ptx(variant, arch):
    text, instruction = _MMA_PTX[variant]
    binary = gpu_binary(text, arch)
    assert binary.cubin
    assert ptx_lines(binary, instruction + " {")


def test_mma_instructions_match_the_atoms():
    from layoutc.ir.dialects.nvvm import mma_config
    from layoutc.ir.dialects.tile.atoms import MMA_OPERATIONS

    for atom in MMA_OPERATIONS.values():
        if atom.is_fma:
            continue
        cfg = mma_config(atom.shape_mnk, atom.type_a, atom.type_b, atom.type_c)
        assert cfg is not None, atom.name
        assert cfg.instruction == atom.instruction


# -- ldmatrix ------------------------------------------------------------------------------------


def ldmatrix_kernel(num: int, trans: bool) -> str:
    rows = 8 * num
    res = "i32" if num == 1 else "!llvm.struct<(" + ", ".join(["i32"] * num) + ")>"
    layout = "col" if trans else "row"
    lines = [
        f"llvm.mlir.global internal @mats() {{addr_space = 3 : i32, alignment = 16 : i64}} "
        f": !llvm.array<{rows * 8} x i16>",
        "func.func @ldm(%src: !llvm.ptr<1>, %out: !llvm.ptr<1>) "
        "attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {",
        "  %lane = nvvm.read.ptx.sreg.laneid : i32",
        "  %s = llvm.mlir.addressof @mats : !llvm.ptr<3>",
        f"  %rows = arith.constant {rows} : i32",
        "  %row = arith.remui %lane, %rows : i32",
        "  %c8 = arith.constant 8 : i32",
        "  %e = arith.muli %row, %c8 : i32",
        "  %pg = llvm.getelementptr %src[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i16",
        "  %v = llvm.load %pg {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xi16>",
        "  %ps = llvm.getelementptr %s[%e] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i16",
        "  llvm.store %v, %ps {alignment = 16 : i64} : vector<8xi16>, !llvm.ptr<3>",
        "  nvvm.barrier0",
        f"  %r = nvvm.ldmatrix %ps {{eltType = #nvvm.ld_st_matrix_elt_type<b16>, "
        f"layout = #nvvm.mma_layout<{layout}>, num = {num} : i32, "
        f"shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}} "
        f": (!llvm.ptr<3>) -> {res}",
        f"  %n = arith.constant {num} : i32",
        "  %ob = arith.muli %lane, %n : i32",
    ]
    for i in range(num):
        value = "%r" if num == 1 else f"%v{i}"
        if num > 1:
            lines.append(f"  %v{i} = llvm.extractvalue %r[{i}] : {res}")
        lines.append(f"  %c{i} = arith.constant {i} : i32")
        lines.append(f"  %o{i} = arith.addi %ob, %c{i} : i32")
        lines.append(
            f"  %p{i} = llvm.getelementptr %out[%o{i}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32"
        )
        lines.append(f"  llvm.store {value}, %p{i} : i32, !llvm.ptr<1>")
    lines += ["  return", "}"]
    return "\n".join(lines)


def _ldmatrix_expected(mats: np.ndarray, trans: bool) -> np.ndarray:
    """PTX ISA: thread t gets row t/4, elements 2*(t%4) and 2*(t%4)+1 of each matrix (of the
    transposed matrix with .trans), the first in the low half of the register."""
    num = mats.shape[0]
    out = np.zeros((32, num), np.uint32)
    for t in range(32):
        for i in range(num):
            m = mats[i].T if trans else mats[i]
            lo, hi = int(m[t // 4, 2 * (t % 4)]), int(m[t // 4, 2 * (t % 4) + 1])
            out[t, i] = lo | hi << 16
    return out


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("num", [1, 2, 4])
def test_ldmatrix(make, num, trans):
    k = make(
        ldmatrix_kernel(num, trans), "ldm", [("src", "pointer", "u16"), ("out", "pointer", "u32")]
    )
    mats = np.random.default_rng(num).integers(0, 1 << 16, (num, 8, 8)).astype(np.uint16)
    out = np.zeros((32, num), np.uint32)
    k(mats.reshape(-1), out, grid=1, block=32)
    assert np.array_equal(out, _ldmatrix_expected(mats, trans))


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize(("num", "trans"), [(4, False), (2, True)])
def test_ldmatrix_is_exact_ptx(num, trans, arch):
    binary = gpu_binary(ldmatrix_kernel(num, trans), arch)
    instr = f"ldmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"
    assert binary.cubin and ptx_lines(binary, instr + " {")


# -- shfl.sync predicate ------------------------------------------------------------------------

SHUFFLE_PREDICATES = """
func.func @shuffles(%b: !llvm.ptr<1>, %c: !llvm.ptr<1>, %vals: !llvm.ptr<1>, %preds: !llvm.ptr<1>)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {
  %lane = nvvm.read.ptx.sreg.laneid : i32
  %all = arith.constant -1 : i32
  %pb = llvm.getelementptr %b[%lane] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %bv = llvm.load %pb : !llvm.ptr<1> -> i32
  %pc = llvm.getelementptr %c[%lane] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %cv = llvm.load %pc : !llvm.ptr<1> -> i32
  %c100 = arith.constant 100 : i32
  %a = arith.addi %lane, %c100 : i32
  %up = nvvm.shfl.sync up %all, %a, %bv, %cv {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  %down = nvvm.shfl.sync down %all, %a, %bv, %cv {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  %bfly = nvvm.shfl.sync bfly %all, %a, %bv, %cv {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  %idx = nvvm.shfl.sync idx %all, %a, %bv, %cv {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  %c4 = arith.constant 4 : i32
  %base = arith.muli %lane, %c4 : i32
  %k0 = arith.constant 0 : i32
  %k1 = arith.constant 1 : i32
  %k2 = arith.constant 2 : i32
  %k3 = arith.constant 3 : i32
  %i0 = arith.addi %base, %k0 : i32
  %i1 = arith.addi %base, %k1 : i32
  %i2 = arith.addi %base, %k2 : i32
  %i3 = arith.addi %base, %k3 : i32
  %v0 = llvm.extractvalue %up[0] : !llvm.struct<(i32, i1)>
  %v1 = llvm.extractvalue %down[0] : !llvm.struct<(i32, i1)>
  %v2 = llvm.extractvalue %bfly[0] : !llvm.struct<(i32, i1)>
  %v3 = llvm.extractvalue %idx[0] : !llvm.struct<(i32, i1)>
  %p0 = llvm.extractvalue %up[1] : !llvm.struct<(i32, i1)>
  %p1 = llvm.extractvalue %down[1] : !llvm.struct<(i32, i1)>
  %p2 = llvm.extractvalue %bfly[1] : !llvm.struct<(i32, i1)>
  %p3 = llvm.extractvalue %idx[1] : !llvm.struct<(i32, i1)>
  %q0 = llvm.getelementptr %vals[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %q1 = llvm.getelementptr %vals[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %q2 = llvm.getelementptr %vals[%i2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %q3 = llvm.getelementptr %vals[%i3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %v0, %q0 : i32, !llvm.ptr<1>
  llvm.store %v1, %q1 : i32, !llvm.ptr<1>
  llvm.store %v2, %q2 : i32, !llvm.ptr<1>
  llvm.store %v3, %q3 : i32, !llvm.ptr<1>
  %r0 = llvm.getelementptr %preds[%i0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %r1 = llvm.getelementptr %preds[%i1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %r2 = llvm.getelementptr %preds[%i2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %r3 = llvm.getelementptr %preds[%i3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  %w0 = arith.extui %p0 : i1 to i8
  %w1 = arith.extui %p1 : i1 to i8
  %w2 = arith.extui %p2 : i1 to i8
  %w3 = arith.extui %p3 : i1 to i8
  llvm.store %w0, %r0 : i8, !llvm.ptr<1>
  llvm.store %w1, %r1 : i8, !llvm.ptr<1>
  llvm.store %w2, %r2 : i8, !llvm.ptr<1>
  llvm.store %w3, %r3 : i8, !llvm.ptr<1>
  return
}
"""


def _ptx_shfl(mode: str, lane: int, b: int, c: int, values: list[int]) -> tuple[int, bool]:
    """PTX ISA shfl.sync semantics (full member mask)."""
    bval, cval, mask = b & 31, c & 31, (c >> 8) & 31
    max_lane = (lane & mask) | (cval & ~mask)
    min_lane = lane & mask
    if mode == "up":
        j = lane - bval
        p = j >= max_lane
    elif mode == "down":
        j = lane + bval
        p = j <= max_lane
    elif mode == "bfly":
        j = lane ^ bval
        p = j <= max_lane
    else:
        j = min_lane | (bval & ~mask)
        p = j <= max_lane
    return (values[j] if p else values[lane]), p


def test_shuffle_values_and_predicates_follow_ptx(make):
    k = make(
        SHUFFLE_PREDICATES,
        "shuffles",
        [
            ("b", "pointer", "i32"),
            ("c", "pointer", "i32"),
            ("vals", "pointer", "i32"),
            ("preds", "pointer", "i8"),
        ],
    )
    rng = np.random.default_rng(5)
    values = [lane + 100 for lane in range(32)]
    # Every lane passes the same (b, c), as code does; several segment widths and clamps.
    for b, c in [(1, 0), (3, 0x1F), (5, 0x181F), (2, 0x1F07), (7, int(rng.integers(0, 1 << 13)))]:
        bs = np.full(32, b, np.int32)
        cs = np.full(32, c, np.int32)
        vals = np.zeros((32, 4), np.int32)
        preds = np.zeros((32, 4), np.int8)
        k(bs, cs, vals, preds, grid=1, block=32)
        for lane in range(32):
            for m, mode in enumerate(("up", "down", "bfly", "idx")):
                v, p = _ptx_shfl(mode, lane, b, c, values)
                assert (vals[lane, m], bool(preds[lane, m])) == (v, p), (mode, lane, b, hex(c))


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_shuffles_in_ptx(arch):
    binary = gpu_binary(SHUFFLE_PREDICATES, arch)
    assert binary.cubin
    for mode in ("up", "down", "bfly", "idx"):
        assert ptx_lines(binary, f"shfl.sync.{mode}.b32"), mode


# -- cp.async and dynamic shared memory -----------------------------------------------------------

CP_ASYNC = """
llvm.mlir.global external @__dynamic_shmem__() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
func.func @stage(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %valid: i32)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c4 = arith.constant 4 : i32
  %e = arith.muli %tid, %c4 : i32
  %smem = llvm.mlir.addressof @__dynamic_shmem__ : !llvm.ptr<3>
  %s = llvm.getelementptr %smem[%e] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  %g = llvm.getelementptr %src[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  nvvm.cp.async.shared.global %s, %g, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.commit.group
  %c256 = arith.constant 256 : i32
  %e2 = arith.addi %e, %c256 : i32
  %s2 = llvm.getelementptr %smem[%e2] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  %g2 = llvm.getelementptr %src[%e2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  nvvm.cp.async.shared.global %s2, %g2, 4, cache = ca, %valid : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.commit.group
  nvvm.cp.async.wait.group 0
  nvvm.barrier0
  %v = llvm.load %s {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  %d = llvm.getelementptr %dst[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %v, %d {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  %w = llvm.load %s2 : !llvm.ptr<3> -> f32
  %d2 = llvm.getelementptr %dst[%e2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.store %w, %d2 : f32, !llvm.ptr<1>
  return
}
"""


@pytest.mark.parametrize("valid", [0, 4])
def test_cp_async_copies_and_zero_fills(make, valid):
    k = make(
        CP_ASYNC,
        "stage",
        [("src", "pointer", "f32"), ("dst", "pointer", "f32"), ("valid", "scalar", "i32")],
    )
    x = np.random.default_rng(6).standard_normal(512).astype(np.float32) + 10
    y = np.zeros(512, np.float32)
    k(x, y, valid, grid=1, block=64, smem=2048)
    assert np.array_equal(y[:256], x[:256])
    second = y[256:].reshape(64, 4)[:, 0]
    expected = x[256:].reshape(64, 4)[:, 0] if valid == 4 else np.zeros(64, np.float32)
    assert np.array_equal(second, expected)


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_cp_async_is_exact_ptx(arch):
    binary = gpu_binary(CP_ASYNC, arch)
    assert binary.cubin
    assert ptx_lines(binary, "cp.async.cg.shared.global [")
    assert ptx_lines(binary, "cp.async.ca.shared.global [")
    assert ptx_lines(binary, "cp.async.commit_group;")
    assert ptx_lines(binary, "cp.async.wait_group 0;")
    assert ptx_lines(binary, ".extern .shared .align 16 .b8 __dynamic_shmem__[]")
