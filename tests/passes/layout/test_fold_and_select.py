"""fold-static-strides and select-atoms through the pass manager: what they fold and choose,
their statistics, and that folding never changes what the lowered program computes."""

from __future__ import annotations

import numpy as np
from layout_interp import Interpreter, Ptr
from layout_pass_helpers import Kernel, kernel_func, parse_module, run, tensor_type
from layoutc.ir.core import Context
from layoutc.passes.manager import PassManager


def statistics(text: str, pipeline: str) -> tuple[dict[str, int], object]:
    m = parse_module(text)
    pm = PassManager.parse(pipeline, Context())
    with Context().diagnostics.collect():
        assert pm.run(m)
    out = {}
    for p in pm.passes():
        for stat, value in p.statistics():
            out[f"{p.argument}.{stat.name}"] = value
    return out, m


TILED = """
func.func @k(%p: !tile.ptr<f32, gmem, 16>, %n: index {layoutc.divisible_by = 1024 : i64, layoutc.lower = 1024 : i64}) attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %s = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(1)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %bid = gpu.block_id x
  %tid = gpu.thread_id x
  %g = tile.local_tile %t[(%bid)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> !tile.tensor<f32, gmem, "((1024)):((1))", 16>
  %v = tile.partition_tv %g[%tid] {tv_layout = #layout.layout<"(256,4):(4,1)">} : !tile.tensor<f32, gmem, "((1024)):((1))", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %c = arith.constant 3.0 : f32
  tile.fill %v, %c : !tile.tensor<f32, gmem, "(4):(1)", 16>, f32
  return
}
"""


def test_fold_statistics_count_folded_values():
    stats, m = statistics(TILED, "builtin.module(fold-static-strides)")
    assert stats["fold-static-strides.num-tensors-folded"] == 1
    assert stats["fold-static-strides.num-sympy-proofs"] == 0
    text = str(m)
    assert "tile.local_tile" not in text and "tile.partition_tv" not in text


def test_folding_does_not_change_the_result():
    results = []
    for pipeline in (
        "builtin.module(lower-algorithms, lower-layouts, canonicalize)",
        "builtin.module(fold-static-strides, lower-algorithms, lower-layouts, canonicalize)",
    ):
        m = parse_module(TILED)
        run(m, pipeline)
        buf = np.zeros(2048, np.float32)
        f = kernel_func(m)
        for b in range(2):
            for t in range(0, 256, 37):
                Interpreter(f, (256, 1, 1)).run(
                    [Ptr(buf, 0), 2048], thread=(t, 0, 0), block=(b, 0, 0)
                )
        results.append(buf)
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][4 * 37 + 1024] == 3.0


def test_select_atoms_statistics():
    k = Kernel()
    p, q = k.pointer("p"), k.pointer("q")
    lt = "(64):(1)"
    t, tt = k.tensor(p, k.layout(lt), lt)
    u, tu = k.tensor(q, k.layout(lt), lt)
    k.op(f"tile.copy {t}, {u} : {tt}, {tu}")
    frag = tensor_type("(2,2):(1,2)", space="rmem", align=4)
    k.op(f"%a = tile.alloc_fragment : {frag}")
    k.op(f"tile.gemm %a, %a, %a : {frag}, {frag}, {frag}")
    stats, m = statistics(k.text(), "builtin.module(select-atoms)")
    assert stats["select-atoms.num-copy-atoms"] == 1
    assert stats["select-atoms.num-fma"] == 1
    assert '#tile.copy_atom<"universal", 128>' in str(m)
