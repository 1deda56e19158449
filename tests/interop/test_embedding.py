"""The embedding API (layoutc.embed) as a host compiler uses it: examples/embedding's tiny
elementwise language lowered with the IR builder, compiled for the CPU (run against numpy) and
for sm_80/sm_90 (code and metadata as plain data), MLIR text in, artifacts out."""

from __future__ import annotations

import json
from pathlib import Path

import layoutc.embed as embed
import numpy as np
import pytest
from layoutc.driver.loading import load_source
from layoutc.frontend.errors import CompileError

ROOT = Path(__file__).resolve().parents[2]
EW = load_source(ROOT / "examples" / "embedding" / "elementwise.py")

PROGRAMS = [
    "out = add(mul(x, 2.0), y)",
    "z = mul(add(a, b), add(a, 0.5))",
    "r = add(x, 1.0)",
]


@pytest.mark.parametrize("program", PROGRAMS)
@pytest.mark.parametrize("n", [1, 129, 1000])
def test_programs_compile_and_run_on_the_cpu(program, n):
    module, names = EW.lower(program)
    kernel = embed.compile_module(module, target="cpu")
    rng = np.random.default_rng(n)
    arrays = {v: rng.standard_normal(n, dtype=np.float32) for v in names[:-1]}
    out = np.full(n + 8, np.nan, np.float32)
    kernel.load()(*arrays.values(), out[:n], n, grid=-(-n // 64), block=64)
    np.testing.assert_allclose(out[:n], EW.evaluate(program, arrays), rtol=1e-6)
    assert np.isnan(out[n:]).all()  # the guard: nothing past n


def test_the_builder_leaves_the_hosts_module_alone():
    module, _ = EW.lower("out = add(x, y)")
    before = str(module)
    embed.compile_module(module, target="cpu")
    assert str(module) == before


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_gpu_code_and_metadata_as_plain_data(arch, tmp_path):
    module, _ = EW.lower("out = add(mul(x, 2.0), y)")
    kernel = embed.compile_module(module, target=arch, block=(128, 1, 1))
    assert kernel.ptx is not None and f".target {arch}" in kernel.ptx
    meta = kernel.metadata()
    json.dumps(meta)  # plain data
    assert [(p["name"], p["kind"], p["dtype"]) for p in meta["params"]] == [
        ("x", "pointer", "f32"),
        ("y", "pointer", "f32"),
        ("out", "pointer", "f32"),
        ("n", "scalar", "i32"),
    ]
    assert meta["launch_bounds"]["block"] == [128, 1, 1] and meta["target"] == arch
    assert meta["shared_memory"] == {"static_bytes": 0, "dynamic_bytes": 0}
    assert meta["assumes"] == ["x align=4", "y align=4", "out align=4"]
    if kernel.cubin is not None:
        resources = meta["resources"]
        assert resources["registers"] > 0 and resources["stack_bytes"] == 0
        assert resources["param_sizes"] == [8, 8, 8, 4]
        from layoutc.runtime.artifact import read_manifest

        kernel.write_artifact(tmp_path)
        (entry,) = read_manifest(tmp_path)["kernels"]
        assert entry["name"] == "elementwise" and entry["variants"][0]["arch"] == arch


def test_mlir_text_and_a_pipeline_string():
    text = str(EW.lower("out = mul(x, x)")[0])
    kernel = embed.compile_module(
        text,
        "elementwise",
        target="cpu",
        pipeline="builtin.module(layout-lowering,convert-to-llvm{target=host})",
    )
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    kernel.load()(x, out, 10, grid=1, block=32)
    np.testing.assert_array_equal(out, x * x)


def test_errors_name_the_ir_location():
    with pytest.raises(CompileError, match=r"<embedded>:1:\d+: error: .*"):
        embed.parse_module("func.func @k(%x: i32) { %y = arith.addi %x, %x : i64\n return }")
    module, _ = EW.lower("out = add(x, y)")
    with pytest.raises(CompileError, match=r"no gpu.kernel function @other .*kernels: elementwise"):
        embed.compile_module(module, "other")
    with pytest.raises(CompileError, match="4 arguments, but 1 names were given"):
        embed.kernel_abi(module, arg_names=["a"])


def test_language_errors_have_columns():
    with pytest.raises(EW.LanguageError, match="column 7: unknown operation 'sub'"):
        EW.parse("out = sub(x, y)")
    with pytest.raises(EW.LanguageError, match="'x' is both read and written"):
        EW.lower("x = add(x, 1.0)")


@pytest.mark.gpu
def test_elementwise_on_the_gpu():
    assert EW.run("out = add(mul(x, 2.0), y)", n=1 << 20, target="cuda") < 1e-5
