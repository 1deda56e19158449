"""Every example: runs on the CPU and matches numpy; assembles to cubin for sm_80 and sm_90;
the vectorization the examples promise is proven and visible in the PTX."""

from __future__ import annotations

import re

import layoutc as lc
import numpy as np
import pytest
from example_files import EXAMPLE_FILES, load_examples
from layoutc.driver.run_example import format_result, run_example

IDS = [p.stem for p in EXAMPLE_FILES]
SM90A_EXAMPLES = {"gemm_sm90"}  # their assembly for sm_90a: tests/examples/test_gemm_sm90.py
# one case per example (a file may hold several: conv3d_fprop's sm80 and Hopper pairs)
CASES = [(path, i) for path in EXAMPLE_FILES for i in range(len(load_examples(path)))]
CASE_IDS = [f"{path.stem}-{i}" for path, i in CASES]


def needs_sm90a(path, example):
    """wgmma kernels: the sm_90a examples, and conv3d_fprop's Hopper kernels (named ``_sm90``;
    assembled for sm_90a in tests/examples/test_conv3d.py)."""
    return path.stem in SM90A_EXAMPLES or "_sm90" in example.kernel.name


def test_every_example_file_is_covered():
    assert len(EXAMPLE_FILES) >= 11
    for path in EXAMPLE_FILES:
        assert load_examples(path), path


@pytest.mark.parametrize(("path", "index"), CASES, ids=CASE_IDS)
def test_example_runs_on_the_cpu_and_matches_numpy(path, index):
    example = load_examples(path)[index]
    result = run_example(example, target="cpu", repeat=0)
    assert result.check is not None and result.check.ok, format_result(result)
    assert result.target.name == "cpu"


def build(example, arch):
    """Compile ``example`` for ``arch`` from its CPU-size inputs (no GPU needed)."""
    args = example.inputs(example.size, np.random.default_rng(0))
    launch = example.launch(args)
    return lc.compile(
        example.kernel, *example.ordered_arguments(args), target=arch, block=launch["block"]
    )


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize(("path", "index"), CASES, ids=CASE_IDS)
def test_example_assembles_to_cubin(path, index, arch):
    example = load_examples(path)[index]
    if needs_sm90a(path, example):  # wgmma: refused before sm_90a, at the user's line
        with pytest.raises(lc.CompileError, match=r"needs target sm_90a"):
            build(example, arch)
        return
    ck = build(example, arch)
    assert f".target {arch}" in ck.ptx
    assert re.search(rf"\.entry\s+{example.kernel.name}\b", ck.ptx)
    assert ck.cubin is not None and ck.cubin[:4] == b"\x7fELF"  # nvJitLink (test extra)


def example_named(stem):
    (path,) = [p for p in EXAMPLE_FILES if p.stem == stem]
    return load_examples(path)[0]


def test_copy_1d_proves_128_bit_accesses():
    ck = build(example_named("copy_1d"), "sm_90")
    assert ck.vector_bits == [128, 128]  # global -> registers -> global
    remarks = [r for r in ck.remarks if "copy uses" in r.message]
    assert len(remarks) == 2
    for remark in remarks:
        assert "128-bit accesses" in remark.message
        assert remark.location is not None
        assert remark.location.split(":")[0].endswith("copy_1d.py")
    assert re.search(r"ld\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx), ck.ptx
    assert re.search(r"st\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx), ck.ptx
    scalar = r"(ld|st)\.global(\.(?!v\d)\w+)*\.(f32|b32|u32)\s"
    assert not re.search(scalar, ck.ptx)  # no scalar global access left
    # all loads are issued before the first store (the staging through registers)
    loads = [m.start() for m in re.finditer(r"ld\.global", ck.ptx)]
    stores = [m.start() for m in re.finditer(r"st\.global", ck.ptx)]
    assert len(loads) == 2 and len(stores) == 2 and max(loads) < min(stores)


def test_transpose_uses_128_bit_global_accesses():
    ck = build(example_named("transpose_smem"), "sm_90")
    assert re.search(r"ld\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx)
    assert re.search(r"st\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx)


V4_LOAD = r"ld\.global(\.\w+)*\.v4\.(f32|b32|u32)"
V4_STORE = r"st\.global(\.\w+)*\.v4\.(f32|b32|u32)"
SCALAR_LOAD = r"ld\.global(\.(?!v\d)\w+)*\.(f32|b32|u32)\s"
SCALAR_STORE = r"st\.global(\.(?!v\d)\w+)*\.(f32|b32|u32)\s"


def messages(ck, word="copy"):
    return [r.message for r in ck.remarks if r.message.startswith(f"{word} ")]


def test_affine2_copy_loads_elementwise_and_stores_128_bits():
    """Seed 002: the affine2 source cannot be read with vectors (stride 2), the dense
    destination can be written with them; staged through registers, each side gets its own."""
    ck = build(example_named("copy_affine2"), "sm_90")
    assert ck.vector_bits == [32, 128]
    load, store = messages(ck)
    assert load.startswith("copy uses 32-bit accesses: stride of mode")
    assert "of the source is 2" in load and "affine2" in load
    assert store == "copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven"
    assert not re.search(r"ld\.global(\.\w+)*\.v[24]\.", ck.ptx)
    assert re.search(V4_STORE, ck.ptx) and not re.search(SCALAR_STORE, ck.ptx)
    loads = [m.start() for m in re.finditer(r"ld\.global", ck.ptx)]
    stores = [m.start() for m in re.finditer(r"st\.global", ck.ptx)]
    assert len(loads) == 16 and len(stores) == 4 and max(loads) < min(stores)


def test_clear_stores_128_bits():
    ck = build(example_named("clear"), "sm_90")
    assert messages(ck, "clear") == [
        "clear uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven"
    ]
    assert len(re.findall(V4_STORE, ck.ptx)) == 4
    assert not re.search(SCALAR_STORE, ck.ptx)


def test_axpby_moves_128_bits_each_way():
    ck = build(example_named("axpby"), "sm_90")
    assert ck.vector_bits == [128, 128, 128]
    assert re.search(V4_LOAD, ck.ptx) and re.search(V4_STORE, ck.ptx)
    assert not re.search(SCALAR_LOAD, ck.ptx) and not re.search(SCALAR_STORE, ck.ptx)


def build_at(example, size, arch="sm_90"):
    args = example.inputs(size, np.random.default_rng(0))
    launch = example.launch(args)
    ordered = example.ordered_arguments(args)
    return lc.compile(example.kernel, *ordered, target=arch, block=launch["block"])


def test_copy_if_tail_predicates_only_the_last_tile():
    """Full tiles: unpredicated 128-bit copies through registers. The ragged tile: copy_if,
    element-wise while N (odd here, as on the GPU) has no known divisor."""
    example = example_named("copy_if_tail")
    ck = build(example, "sm_90")
    assert example.size % 4 != 0
    full_load, full_store = messages(ck)
    assert (
        full_load
        == full_store
        == ("copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven")
    )
    (tail,) = messages(ck, "copy_if")
    assert tail.startswith("copy_if uses 32-bit accesses: ")
    assert "is not provably a multiple of 2" in tail and "bound" in tail
    assert ck.vector_bits == [128, 128, 32]
    assert len(re.findall(V4_LOAD, ck.ptx)) == 4 and len(re.findall(V4_STORE, ck.ptx)) == 4
    assert re.search(SCALAR_LOAD, ck.ptx)  # the tail's element-wise accesses


def test_copy_if_tail_vectorizes_the_tail_when_n_is_a_multiple_of_4():
    example = example_named("copy_if_tail")
    ck = build_at(example, 2 * 4096 + 1808)
    (tail,) = messages(ck, "copy_if")
    assert tail == (
        "copy_if uses 128-bit accesses: predicate uniform over 4 contiguous f32 (the bound "
        "N is a multiple of 4 and every vector starts at a multiple of 4), 16-byte "
        "alignment proven"
    )
    assert not re.search(SCALAR_LOAD, ck.ptx) and not re.search(SCALAR_STORE, ck.ptx)
    result = run_example(example, target="cpu", size=2 * 4096 + 1808, repeat=0)
    assert result.check is not None and result.check.ok, format_result(result)


def test_layoutc_run_reports_what_ran_where(capsys):
    from layoutc.cli.main import main

    path = next(p for p in EXAMPLE_FILES if p.stem == "copy_1d")
    assert main(["run", str(path), "--target", "cpu", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    for line in ("ran on    CPU", "target    the host CPU", "backend   cpu", "128-bit accesses"):
        assert line in out, out
    assert re.search(r"^check     passed: dst matches numpy", out, re.M), out
    assert re.search(r"^compile   .* \(cache (hit|miss);", out, re.M), out
    assert re.search(r"^time      .* median of 1 -> .*B/s$", out, re.M), out


def test_layoutc_run_fails_loudly_on_a_wrong_result(tmp_path, capsys):
    from layoutc.cli.main import main

    src = next(p for p in EXAMPLE_FILES if p.stem == "copy_1d").read_text()
    wrong = src.replace(
        'reference=lambda a: {"dst": a["src"]}', 'reference=lambda a: {"dst": -a["src"]}'
    )
    assert wrong != src
    (tmp_path / "wrong.py").write_text(wrong)
    assert main(["run", str(tmp_path / "wrong.py"), "--target", "cpu", "--repeat", "0"]) == 1
    assert "check     FAILED: dst:" in capsys.readouterr().out


@pytest.mark.gpu
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=IDS)
def test_example_runs_on_the_gpu_and_matches_numpy(path):
    for example in load_examples(path):
        result = run_example(example, target="cuda", size=example.size * 4, repeat=2)
        assert result.check is not None and result.check.ok, format_result(result)
        assert result.target.is_gpu and len(result.times) == 2
