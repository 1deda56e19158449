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


def test_every_example_file_is_covered():
    assert len(EXAMPLE_FILES) >= 11
    for path in EXAMPLE_FILES:
        assert load_examples(path), path


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=IDS)
def test_example_runs_on_the_cpu_and_matches_numpy(path):
    for example in load_examples(path):
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
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=IDS)
def test_example_assembles_to_cubin(path, arch):
    for example in load_examples(path):
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
    assert len(loads) == 4 and len(stores) == 4 and max(loads) < min(stores)


def test_transpose_uses_128_bit_global_accesses():
    ck = build(example_named("transpose_smem"), "sm_90")
    assert re.search(r"ld\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx)
    assert re.search(r"st\.global(\.\w+)*\.v4\.(f32|b32|u32)", ck.ptx)


def test_affine2_copy_explains_why_it_is_not_vectorized():
    ck = build(example_named("copy_affine2"), "sm_90")
    assert ck.vector_bits == [32]
    (remark,) = [r for r in ck.remarks if "copy uses" in r.message]
    assert "32-bit accesses" in remark.message and "stride" in remark.message
    assert "2" in remark.message.split("stride", 1)[1]
    assert not re.search(r"(ld|st)\.global(\.\w+)*\.v[24]\.", ck.ptx)


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
