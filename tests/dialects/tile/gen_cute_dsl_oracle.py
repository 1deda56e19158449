"""Record CuTe's own tiled-copy / tiled-MMA results as a differential oracle.

Run with a Python that has NVIDIA's CuTe DSL (``pip install nvidia-cutlass-dsl``; it runs
without a GPU); it writes ``data/cute_dsl_oracle.json``, which ``test_tiled.py`` compares
layoutc's ``make_tiled_copy`` / ``make_tiled_mma`` against. The DSL is not a dependency of
layoutc: the recorded file is the oracle, this script documents how it was made.

    /path/to/dsl/python tests/dialects/tile/gen_cute_dsl_oracle.py
"""

# The jit functions below are closures over the loop variables and run at once, inside the
# iteration that defines them: the late-binding pitfall B023 warns about cannot happen.
# ruff: noqa: B023

from __future__ import annotations

import json
import os

import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import CopyUniversalOp, cpasync, warp

OUT = os.path.join(os.path.dirname(__file__), "data", "cute_dsl_oracle.json")

# (our atom name, DSL op factory, A/B type, accumulator type)
MMA_ATOMS = [
    ("SM80_16x8x8_F32TF32TF32F32_TN", lambda: warp.MmaTF32Op((16, 8, 8))),
    (
        "SM80_16x8x16_F32F16F16F32_TN",
        lambda: warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16)),
    ),
    (
        "SM80_16x8x16_F32BF16BF16F32_TN",
        lambda: warp.MmaF16BF16Op(cutlass.BFloat16, cutlass.Float32, (16, 8, 16)),
    ),
    (
        "SM80_16x8x16_F16F16F16F16_TN",
        lambda: warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float16, (16, 8, 16)),
    ),
]

# atom layout (shape, stride), permutation (None or per-mode extents)
MMA_TILINGS = [
    (((1, 1, 1), None), None),
    (((2, 2, 1), None), None),
    (((2, 2, 1), (2, 1, 4)), None),
    (((4, 1, 1), None), None),
    (((1, 2, 1), None), None),
    (((2, 2, 1), None), (32, 32, None)),
    (((2, 1, 1), None), (64, 16, None)),
]

PARTITION_THREADS = [0, 5, 37, 77, 127]


def _layout(shape, stride):
    return cute.make_layout(shape, stride=stride) if stride is not None else cute.make_layout(shape)


def _make_mma(factory, shape, stride, perm):
    if perm is None:
        return cute.make_tiled_mma(factory(), _layout(shape, stride))
    return cute.make_tiled_mma(factory(), _layout(shape, stride), perm)


def record_mma(records):
    # The DSL rewrites the body of a jit function (loops become IR loops): every jit function
    # below is straight-line code, and the Python loops stay outside.
    for name, factory in MMA_ATOMS:
        for (shape, stride), perm in MMA_TILINGS:
            rec = {
                "kind": "mma",
                "atom": name,
                "atom_layout": [list(shape), list(stride) if stride else None],
                "permutation": list(perm) if perm else None,
                "partition": [],
            }

            @cute.jit
            def summary():
                mma = _make_mma(factory, shape, stride, perm)
                rec["vmnk"] = str(mma.thr_layout_vmnk)
                rec["tile"] = [int(mma.get_tile_size(i)) for i in (0, 1, 2)]
                rec["tv_A"] = str(mma.tv_layout_A_tiled)
                rec["tv_B"] = str(mma.tv_layout_B_tiled)
                rec["tv_C"] = str(mma.tv_layout_C_tiled)
                rec["threads"] = int(cute.size(mma.thr_layout_vmnk))

            summary()
            m, n, k = rec["tile"]
            for which, ext in (("A", (2 * m, 2 * k)), ("B", (2 * n, 2 * k)), ("C", (2 * m, 2 * n))):
                for t in [t for t in PARTITION_THREADS if t < rec["threads"]]:

                    @cute.jit
                    def part():
                        mma = _make_mma(factory, shape, stride, perm)
                        fn = getattr(mma.get_slice(t), f"partition_{which}")
                        rec["partition"].append(
                            [which, list(ext), t, str(fn(cute.make_identity_tensor(ext)))]
                        )

                    part()
            records.append(rec)


COPIES = [
    # (atom, bits, element, thr (shape, stride), val (shape, stride))
    ("cp.async.ca", 128, "f32", ((16, 8), (8, 1)), ((1, 4), None)),
    ("cp.async.cg", 128, "f16", ((32, 4), (4, 1)), ((1, 8), None)),
    ("cp.async.ca", 32, "f32", ((32, 8), None), ((1, 1), None)),
    ("universal", 128, "f32", ((32, 8), None), ((4, 1), None)),
    ("universal", 32, "f16", ((8, 16), (16, 1)), ((1, 2), None)),
    ("universal", 64, "f32", ((4, 8), None), ((2, 2), None)),
    ("universal", 16, "bf16", ((64,), None), ((1,), None)),
]

TYPES = {
    "f32": cutlass.Float32,
    "f16": cutlass.Float16,
    "bf16": cutlass.BFloat16,
    "tf32": cutlass.TFloat32,
}


def _copy_op(name):
    if name == "universal":
        return CopyUniversalOp()
    if name == "cp.async.ca":
        return cpasync.CopyG2SOp(cpasync.LoadCacheMode.ALWAYS)
    if name == "cp.async.cg":
        return cpasync.CopyG2SOp(cpasync.LoadCacheMode.GLOBAL)
    raise ValueError(name)


def _record_tiled_copy(records, rec, make_tc, extent):
    """``make_tc()`` builds the tiled copy inside a jit function."""

    @cute.jit
    def summary():
        tc = make_tc()
        rec["tv"] = str(tc.layout_tv_tiled)
        rec["tiler"] = str(tc.tiler_mn)
        rec["tv_S"] = str(tc.layout_src_tv_tiled)
        rec["tv_D"] = str(tc.layout_dst_tv_tiled)
        rec["threads"] = int(cute.size(tc.layout_tv_tiled, mode=[0]))
        rec["tile"] = [int(cute.size(t)) for t in tc.tiler_mn]

    summary()
    rec["partition"] = []
    ext = tuple(2 * e for e in rec["tile"]) if extent is None else extent
    for t in [t for t in PARTITION_THREADS if t < rec["threads"]]:
        for which in ("S", "D"):

            @cute.jit
            def part():
                fn = getattr(make_tc().get_slice(t), f"partition_{which}")
                rec["partition"].append(
                    [which, list(ext), t, str(fn(cute.make_identity_tensor(ext)))]
                )

            part()
    records.append(rec)


def record_copies(records):
    for name, bits, elem, (ts, td), (vs, vd) in COPIES:
        rec = {
            "kind": "copy",
            "atom": name,
            "bits": bits,
            "element": elem,
            "thr": [list(ts), list(td) if td else None],
            "val": [list(vs), list(vd) if vd else None],
        }

        def make_tc():
            atom = cute.make_copy_atom(_copy_op(name), TYPES[elem], num_bits_per_copy=bits)
            return cute.make_tiled_copy_tv(atom, _layout(ts, td), _layout(vs, vd))

        _record_tiled_copy(records, rec, make_tc, None)


LDMATRIX = [
    # (num_matrices, transpose, element, mma atom index, operand, permutation)
    (4, False, "f16", 1, "A", None),
    (4, False, "tf32", 0, "A", None),
    (2, False, "f16", 1, "B", None),
    (2, True, "f16", 1, "B", None),
    # x4 moves 8 values per thread: B's tile must give each thread 8 (N = 32).
    (4, True, "bf16", 2, "B", (32, 32, 16)),
    (1, False, "f16", 1, "B", None),
]


def record_ldmatrix(records):
    for count, trans, elem, mma_index, operand, perm in LDMATRIX:
        name, factory = MMA_ATOMS[mma_index]
        rec = {
            "kind": "ldmatrix",
            "count": count,
            "trans": trans,
            "element": elem,
            "mma": name,
            "operand": operand,
            "permutation": list(perm) if perm else None,
        }

        def make_tc():
            mma = _make_mma(factory, (2, 2, 1), None, perm)
            atom = cute.make_copy_atom(
                warp.LdMatrix8x8x16bOp(transpose=trans, num_matrices=count), TYPES[elem]
            )
            make = {"A": cute.make_tiled_copy_A, "B": cute.make_tiled_copy_B}[operand]
            return make(atom, mma)

        _record_tiled_copy(records, rec, make_tc, None)
        # retile: the MMA's fragment of a (2M, 2K) block seen through the copy's atoms
        rec["retile"] = []
        for shape in RETILE_SHAPES[operand]:

            @cute.jit
            def retile():
                rec["retile"].append(
                    [list(shape), str(make_tc().retile(cute.make_identity_tensor(shape)))]
                )

            retile()


# fragment shapes (values, rest M|N, rest K) as partition_A/B produce them
RETILE_SHAPES = {
    "A": [((2, 2), 2, 2), ((2, 2), 1, 1), ((2, 2, 2), 2, 4)],
    "B": [(2, 2, 2), ((2, 2), 4, 2)],
}


def main():
    records = []
    record_mma(records)
    record_copies(records)
    record_ldmatrix(records)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(records, f, indent=1)
    print(f"wrote {len(records)} records to {OUT}")


if __name__ == "__main__":
    main()
