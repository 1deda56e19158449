"""The embedding API (layoutc.embed) as a host compiler uses it: examples/embedding's tiny
elementwise language lowered with the IR builder, compiled for the CPU (run against numpy) and
for sm_80/sm_90 (code and metadata as plain data), MLIR text in, artifacts out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import layoutc.embed as embed
import numpy as np
import pytest
from layoutc.driver.loading import load_source
from layoutc.frontend.errors import CompileError
from layoutc.runtime.errors import ArgumentError

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


def _with_attributes(program: str, signature: dict[str, str], kernel_attrs: str = "") -> str:
    """The elementwise kernel of ``program`` as MLIR text, with argument attributes added
    (argument name -> ``{...}``) and attributes added to the function's."""
    text = str(EW.lower(program)[0])
    for name, attrs in signature.items():
        text, n = re.subn(rf"(%{name}: (?:!tile\.ptr<[^>]*>|i32))", rf"\1 {attrs}", text, count=1)
        assert n == 1, name
    if kernel_attrs:
        text = text.replace("attributes {gpu.kernel}", f"attributes {{gpu.kernel, {kernel_attrs}}}")
    return text


def test_argument_facts_are_metadata_and_checked_at_launch():
    """The ``layoutc.*`` argument attributes are facts the analyses may use (alignment above
    the pointer type's, divisibility and bounds of an integer): the ABI states them, the
    metadata lists them and the launcher refuses arguments that break them, rather than run
    code compiled under a false assumption."""
    text = _with_attributes(
        "out = mul(x, x)",
        {
            "x": "{layoutc.align = 16 : i64}",
            "n": "{layoutc.divisible_by = 4 : i64, layoutc.lower = 4 : i64, "
            "layoutc.upper = 4096 : i64}",
        },
    )
    kernel = embed.compile_module(text, target="cpu")
    meta = kernel.metadata()
    by_name = {p["name"]: p for p in meta["params"]}
    assert by_name["x"]["align"] == 16 and by_name["out"]["align"] == 4
    assert (by_name["n"]["divisible_by"], by_name["n"]["min"], by_name["n"]["max"]) == (4, 4, 4096)
    assert meta["assumes"] == ["x align=16", "out align=4", "n%4==0", "n>=4", "n<=4096"]
    run = kernel.load()
    buf = np.zeros(40, np.float32)
    x = buf[(-buf.ctypes.data % 16) // 4 :][:16]  # 16-byte aligned
    x[:] = np.arange(16)
    out = np.zeros(16, np.float32)
    run(x, out, 8, grid=1, block=32)
    np.testing.assert_array_equal(out[:8], x[:8] * x[:8])
    with pytest.raises(ArgumentError, match="not a multiple of 4"):
        run(x, out, 6, grid=1, block=32)
    with pytest.raises(ArgumentError, match="n"):
        run(x, out, 0, grid=1, block=32)  # below the lower bound
    with pytest.raises(ArgumentError, match="align"):
        run(buf[(-buf.ctypes.data % 16) // 4 + 1 :][:16], out, 8, grid=1, block=32)


def test_a_wrong_fact_attribute_is_a_compile_error():
    text = _with_attributes(
        "out = mul(x, x)", {"n": "{layoutc.lower = 9 : i64, layoutc.upper = 2 : i64}"}
    )
    with pytest.raises(CompileError, match=r"argument n: .*lower bound 9 exceeds upper bound 2"):
        embed.kernel_abi(embed.parse_module(text))


def test_cluster_shape_is_metadata():
    """Upstream's ``nvvm.cluster_dim`` / ``nvvm.cluster_max_blocks`` on the kernel function
    fix the cluster; the metadata says so (a host launcher must launch in clusters)."""
    fixed = _with_attributes("out = add(x, y)", {}, "nvvm.cluster_dim = array<i32: 2, 1, 1>")
    meta = embed.compile_module(fixed, target="sm_90", block=(128, 1, 1)).metadata()
    assert (meta["cluster"], meta["explicit_cluster"]) == ([2, 1, 1], True)
    assert json.loads(json.dumps(meta))["cluster"] == [2, 1, 1]
    bounded = _with_attributes("out = add(x, y)", {}, "nvvm.cluster_max_blocks = 8 : i32")
    meta = embed.compile_module(bounded, target="sm_90").metadata()
    assert (meta["cluster"], meta["max_cluster_blocks"]) == (None, 8)
    plain = embed.compile_module(EW.lower("out = add(x, y)")[0], target="sm_90").metadata()
    assert (plain["cluster"], plain["explicit_cluster"], plain["max_cluster_blocks"]) == (
        None,
        False,
        None,
    )


def test_traced_ir_in_shared_memory_and_facts_out(tmp_path):
    """IR that layoutc's own front end traced (a shared-memory transpose, its first dumped
    stage) compiled through the embedding API: the same shared memory, launch bounds, facts
    and registers as ``layoutc.compile`` reports for it."""
    import layoutc as lc
    from layoutc.driver.example import find_examples

    path = ROOT / "examples" / "transpose_smem.py"
    ex = find_examples(vars(load_source(path)), str(path))[0]
    args = ex.inputs(ex.size, np.random.default_rng(0))
    block = dict(ex.launch(args))["block"]
    compiled = lc.compile(
        ex.kernel,
        *ex.ordered_arguments(args),
        target="sm_90",
        block=block,
        dump_dir=str(tmp_path),
        cache=False,
    )
    (traced,) = tmp_path.glob("**/00-*.mlir")
    kernel = embed.compile_module(traced.read_text(), target="sm_90", block=(block, 1, 1))
    meta = kernel.metadata()
    want = compiled.runtime_spec
    assert meta["shared_memory"]["static_bytes"] == want.static_smem > 0
    assert meta["launch_bounds"]["block"] == [block, 1, 1]
    assert [p["name"] for p in meta["params"]] == [p.name for p in want.params]
    # the same facts, each stated per parameter (the IR has no shared symbol names)
    facts = {
        (p["name"], p.get("align"), p.get("divisible_by"), p.get("min")) for p in meta["params"]
    }
    assert facts == {
        (p.name, p.align, p.divisible_by if p.is_integer else None, p.lower) for p in want.params
    }
    if kernel.cubin is not None:
        from layoutc.runtime.cubin_info import kernel_resources

        regs = kernel_resources(compiled.cubin, compiled.name).registers
        assert meta["resources"]["registers"] == regs > 0


@pytest.mark.gpu
def test_elementwise_on_the_gpu():
    assert EW.run("out = add(mul(x, 2.0), y)", n=1 << 20, target="cuda") < 1e-5
