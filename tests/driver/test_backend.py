"""The driver's stages after tracing, with a pipeline that needs no layout pass: CPU JIT and
launch, PTX/cubin for GPU architectures without a GPU, dumps, IR printing, remarks, caches,
options, and how failures are reported."""

from __future__ import annotations

import re

import driver_test_passes  # noqa: F401  (registers test-driver-remark and test-driver-crash)
import layoutc as lc
import pytest
from driver_kernels import SCALAR_PIPELINE, branchy, with_constant
from layoutc.driver import InternalCompilerError, clear_memory_cache
from layoutc.frontend.spec import SpecError

KERNELS_FILE = branchy.fn.__code__.co_filename


def compile_branchy(**kw):
    kw.setdefault("pipeline", SCALAR_PIPELINE)
    kw.setdefault("target", "cpu")
    return lc.compile(branchy, 10, block=64, **kw)


def test_cpu_compile_and_launch():
    ck = compile_branchy()
    assert ck.target.name == "cpu"
    assert ck.name == "branchy"
    assert 'define void @"branchy"' in ck.llvm_ir
    assert ck.runtime_spec.launch_bounds.block == (64, 1, 1)
    assert ck.ptx is None and ck.backend.startswith("cpu")
    ck(10, grid=3)  # runs every thread of 3 blocks on the CPU
    assert ck.timings["load"] > 0
    for stage in ("trace", "passes", "translate"):
        assert stage in ck.timings


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_gpu_architectures_build_without_a_gpu(arch):
    ck = compile_branchy(target=arch)
    assert ck.target.name == arch
    assert f".target {arch}" in ck.ptx
    assert re.search(r"\.entry\s+branchy", ck.ptx)
    assert ck.llvm_ir.startswith("; ModuleID") and "nvptx64-nvidia-cuda" in ck.llvm_ir
    if ck.cubin is not None:  # nvJitLink installed (the test extra has it)
        assert ck.cubin[:4] == b"\x7fELF"
        assert "cubin" in ck.timings


def test_dump_dir_numbers_the_ir_after_every_pass(tmp_path):
    out = tmp_path / "dump"
    compile_branchy(dump_dir=out, target="sm_90")
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "00-traced.mlir",
        "01-convert-gpu-to-nvvm.mlir",
        "02-convert-scf-to-cf.mlir",
        "03-canonicalize.mlir",
        "04-cse.mlir",
        "branchy.ll",
        "branchy.ptx",
        "pipeline.txt",
        "remarks.txt",
    ]
    assert "gpu.thread_id x" in (out / "00-traced.mlir").read_text()
    assert "scf.if" in (out / "00-traced.mlir").read_text()
    assert "nvvm.read.ptx.sreg.tid.x" in (out / "01-convert-gpu-to-nvvm.mlir").read_text()
    assert "scf." not in (out / "04-cse.mlir").read_text()
    assert (out / "pipeline.txt").read_text().strip() == SCALAR_PIPELINE
    assert ".target sm_90" in (out / "branchy.ptx").read_text()


def test_dump_dir_from_the_environment_uses_a_directory_per_build(tmp_path, monkeypatch):
    monkeypatch.setenv("LAYOUTC_DUMP_DIR", str(tmp_path / "env"))
    compile_branchy()
    compile_branchy(target="sm_90")
    builds = sorted(p.name for p in (tmp_path / "env").iterdir())
    assert len(builds) == 2
    assert builds[0].startswith("branchy.cpu.") and builds[1].startswith("branchy.sm_90.")
    for b in builds:
        assert (tmp_path / "env" / b / "00-traced.mlir").is_file()


def test_print_ir_after_all_uses_mlir_headers(monkeypatch, capsys):
    monkeypatch.setenv("LAYOUTC_PRINT_IR_AFTER_ALL", "1")
    compile_branchy()
    err = capsys.readouterr().err
    headers = re.findall(r"^// -----// (.*) //----- //$", err, re.M)
    assert headers == [
        "IR Dump After Trace (layoutc-trace)",
        "IR Dump After ConvertGpuOpsToNVVMOps (convert-gpu-to-nvvm)",
        "IR Dump After SCFToControlFlow (convert-scf-to-cf)",
        "IR Dump After Canonicalizer (canonicalize)",
        "IR Dump After CSE (cse)",
        "LLVM IR (host) (branchy.ll)",
    ]


def test_dumps_bypass_the_caches(tmp_path):
    first = compile_branchy()
    again = compile_branchy(dump_dir=tmp_path / "d")
    assert again is not first and not again.cache_hit
    assert (tmp_path / "d" / "00-traced.mlir").is_file()


def test_remarks_are_kept_located_and_printed(monkeypatch, capsys, tmp_path):
    pipeline = "builtin.module(test-driver-remark," + SCALAR_PIPELINE[len("builtin.module(") :]
    monkeypatch.setenv("LAYOUTC_REMARKS", "1")
    ck = compile_branchy(pipeline=pipeline, dump_dir=tmp_path)
    assert [r.message for r in ck.remarks] == ["kernel branchy seen by the test pass"]
    remark = ck.remarks[0]
    assert remark.severity == "remark"
    file, line, _col = remark.location.rsplit(":", 2)
    assert (
        file == KERNELS_FILE and int(line) == branchy.fn.__code__.co_firstlineno + 1
    )  # the def line
    err = capsys.readouterr().err
    assert "// layoutc remarks for kernel 'branchy' (1)" in err
    assert f"{remark.location}: remark: kernel branchy seen by the test pass" in err
    assert (tmp_path / "remarks.txt").read_text().strip() == str(remark)


def test_memory_cache_returns_the_same_kernel():
    first = compile_branchy()
    assert compile_branchy() is first
    assert compile_branchy(opt_level=2) is not first
    assert compile_branchy(target="sm_90") is not first


def test_disk_cache_hit_skips_passes_and_toolchain(isolated_caches):
    fresh = compile_branchy(target="sm_90")
    assert not fresh.cache_hit
    clear_memory_cache()
    hit = compile_branchy(target="sm_90")
    assert hit.cache_hit and hit is not fresh
    assert "passes" not in hit.timings and "ptx" not in hit.timings
    assert hit.ptx == fresh.ptx and hit.cubin == fresh.cubin and hit.llvm_ir == fresh.llvm_ir
    assert hit.runtime_spec == fresh.runtime_spec
    assert any(isolated_caches.rglob("*.lcc"))
    clear_memory_cache()
    assert not compile_branchy(target="sm_90", cache=False).cache_hit


def test_disk_cache_hit_still_launches_on_the_cpu():
    compile_branchy()
    clear_memory_cache()
    hit = compile_branchy()
    assert hit.cache_hit
    hit(10, grid=2)


def test_a_cpu_load_after_a_disk_cache_hit_loads_the_stored_machine_code(
    isolated_caches, monkeypatch
):
    from layoutc.runtime import cpu_jit

    made = []
    optimize = cpu_jit._optimize
    monkeypatch.setattr(cpu_jit, "_optimize", lambda *a: made.append(1) or optimize(*a))
    compile_branchy().load()
    assert made  # the first load ran the JIT
    made.clear()
    clear_memory_cache()
    hit = compile_branchy()
    hit.load()
    hit(10, grid=2)
    assert hit.cache_hit and not made  # the object came from the cache
    # entries are signed: an edited object is a miss, and the JIT makes it again
    for path in isolated_caches.rglob("*.lcc"):
        data = bytearray(path.read_bytes())
        data[-1] ^= 1
        path.write_bytes(bytes(data))
    clear_memory_cache()
    again = compile_branchy()
    again.load()
    again(10, grid=2)
    assert made


def test_cache_false_stores_no_machine_code(isolated_caches):
    compile_branchy(cache=False).load()
    assert not any(isolated_caches.rglob("*.lcc"))


def test_compile_time_constants_are_part_of_the_kernel():
    ck = lc.compile(with_constant, 5, 3, block=32, target="cpu", pipeline=SCALAR_PIPELINE)
    ck(7, grid=1)  # run-time arguments only
    ck(7, 3, grid=1)  # or all of them, with the compiled constant
    with pytest.raises(SpecError, match="compile-time constant 3"):
        ck(7, 4, grid=1)
    assert (
        lc.compile(with_constant, 5, 4, block=32, target="cpu", pipeline=SCALAR_PIPELINE) is not ck
    )


def test_a_crashing_pass_is_an_internal_error_with_a_reproducer():
    with pytest.raises(InternalCompilerError) as info:
        compile_branchy(pipeline="builtin.module(test-driver-crash)")
    err = info.value
    assert "internal error in pass 'test-driver-crash'" in str(err)
    assert "deliberate failure" in str(err)
    assert err.reproducer is not None
    with open(err.reproducer) as f:
        text = f.read()
    assert 'pipeline: "builtin.module(test-driver-crash)"' in text
    assert "func.func @branchy" in text and KERNELS_FILE in text  # the input, with locations


def test_bad_pipeline_and_bad_options_are_clear_errors():
    with pytest.raises(lc.CompileError, match=r"invalid pass pipeline.*no-such-pass"):
        compile_branchy(pipeline="builtin.module(no-such-pass)")
    with pytest.raises(TypeError, match="opt_level must be"):
        compile_branchy(opt_level=7)
    with pytest.raises(TypeError, match=r"unexpected keyword argument.*'bogus'"):
        compile_branchy(bogus=1)
    with pytest.raises(ValueError, match="sm_75"):
        compile_branchy(target="sm_75")


def test_untranslatable_ir_names_the_op_and_the_missing_lowering():
    with pytest.raises(lc.CompileError) as info:
        compile_branchy(pipeline="builtin.module(cse)")
    text = str(info.value)
    assert KERNELS_FILE in text and "cannot be translated to LLVM IR" in text


def test_a_crash_in_translation_keeps_its_input(monkeypatch):
    import layoutc.codegen.translate as translate

    def broken(*args, **kwargs):
        raise KeyError("deliberate")

    monkeypatch.setattr(translate, "translate_host", broken)
    with pytest.raises(InternalCompilerError) as info:
        compile_branchy()
    err = info.value
    assert "internal error in the translation to LLVM IR: KeyError" in str(err)
    assert err.reproducer is not None and err.reproducer.endswith(".mlir")
    with open(err.reproducer) as f:
        assert "func.func @branchy" in f.read()
