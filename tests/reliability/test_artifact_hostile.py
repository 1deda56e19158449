"""AOT artifacts are untrusted input (docs/reliability.md, "AOT artifacts"): every manifest
path resolves inside the artifact to a regular file, the manifest follows its schema before the
driver is touched, its ABI matches the code's parameter list, and files honour the umask."""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path

import fake_driver as fake
import handwritten as hw
import pytest
from layoutc.codegen.cubin import nvjitlink_version, ptx_to_cubin
from layoutc.codegen.ptx import compile_ptx_llvm
from layoutc.codegen.target import Target
from layoutc.runtime import cuda_driver
from layoutc.runtime.abi import KernelSpec
from layoutc.runtime.artifact import (
    ArtifactKernel,
    Variant,
    load,
    read_variant_file,
    write_artifact,
)
from layoutc.runtime.code_abi import cubin_param_sizes, ptx_param_sizes
from layoutc.runtime.errors import ArtifactError

COPY = hw.copy_kernel(True)[1]


@pytest.fixture(scope="module")
def code():
    module, _ = hw.gpu_module(hw.copy_kernel(True), "sm_90")
    ptx = compile_ptx_llvm(str(module), Target.parse("sm_90")).ptx
    cubin = ptx_to_cubin(ptx, "sm_90").cubin if nvjitlink_version() else None
    return ptx, cubin


@pytest.fixture
def fake_gpu():
    previous = cuda_driver.use_driver(fake)
    fake.loaded.clear()
    yield fake
    cuda_driver.use_driver(previous)


def _artifact(tmp_path: Path, code, *, cubin: bool = False) -> Path:
    ptx, cub = code
    if cubin and cub is None:
        pytest.skip("needs nvJitLink for a cubin")
    variant = Variant("sm_90", cubin=cub) if cubin else Variant("sm_90", ptx=ptx)
    out = tmp_path / "art"
    write_artifact(out, [ArtifactKernel(COPY, (variant,))])
    return out


def _edit(art: Path, change) -> None:
    path = art / "manifest.json"
    m = json.loads(path.read_text())
    change(m)
    path.write_text(json.dumps(m))


def _files(m):
    return m["kernels"][0]["variants"][0]["files"]


# -- paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../outside.bin", "/etc/hostname", "sub/../../x", ""])
def test_manifest_paths_outside_the_artifact_are_refused(tmp_path, code, fake_gpu, name):
    art = _artifact(tmp_path, code)
    (tmp_path / "outside.bin").write_bytes(b"secret")
    _edit(art, lambda m: _files(m)["ptx"].update(path=name))
    with pytest.raises(ArtifactError):
        load(art)
    assert fake_gpu.loaded == []
    entry = {"path": name, "sha256": "0" * 64}
    with pytest.raises(ArtifactError, match="not inside the artifact"):
        read_variant_file(art, "copy", entry)


def test_a_symlink_leading_out_of_the_artifact_is_refused(tmp_path, code, fake_gpu):
    art = _artifact(tmp_path, code)
    (tmp_path / "outside.ptx").write_text(code[0])
    target = art / "copy.sm_90.ptx"
    target.unlink()
    target.symlink_to(tmp_path / "outside.ptx")
    with pytest.raises(ArtifactError, match="not inside the artifact"):
        load(art)
    assert fake_gpu.loaded == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_code_file_does_not_block(tmp_path, code, fake_gpu):
    art = _artifact(tmp_path, code)
    target = art / "copy.sm_90.ptx"
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(ArtifactError, match="not a regular file"):
        load(art)


@pytest.mark.parametrize("name", ["../../X", "a/b", ".hidden", "", "x\x00y"])
def test_write_artifact_refuses_kernel_names_that_are_not_file_names(tmp_path, code, name):
    spec = KernelSpec(name, COPY.params)
    out = tmp_path / "deep" / "art"
    with pytest.raises(ValueError, match="cannot name files"):
        write_artifact(out, [ArtifactKernel(spec, (Variant("sm_90", ptx=code[0]),))])
    assert sorted(p.name for p in tmp_path.rglob("*")) == []


# -- the schema ------------------------------------------------------------------------------


def _set(path, value):
    def change(m):
        node = m
        for key in path[:-1]:
            node = node[key]
        if value is _DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value

    return change


_DELETE = object()
_K = ("kernels", 0)
_MUTATIONS = {
    "max_threads string": _set((*_K, "launch_bounds", "max_threads"), "128"),
    "max_threads over 1024": _set((*_K, "launch_bounds", "max_threads"), 4096),
    "min_blocks zero": _set((*_K, "launch_bounds", "min_blocks"), 0),
    "block of two": _set((*_K, "launch_bounds", "block"), [1, 2]),
    "launch_bounds list": _set((*_K, "launch_bounds"), [1]),
    "static_bytes negative": _set((*_K, "shared_memory", "static_bytes"), -1),
    "dynamic_bytes 10**30": _set((*_K, "shared_memory", "dynamic_bytes"), 10**30),
    "static_bytes bool": _set((*_K, "shared_memory", "static_bytes"), True),
    "static_bytes float": _set((*_K, "shared_memory", "static_bytes"), 1.5),
    "no name": _set((*_K, "name"), _DELETE),
    "name int": _set((*_K, "name"), 3),
    "no params": _set((*_K, "params"), _DELETE),
    "params dict": _set((*_K, "params"), {}),
    "param string": _set((*_K, "params", 0), "src"),
    "param without dtype": _set((*_K, "params", 0, "dtype"), _DELETE),
    "param dtype unknown": _set((*_K, "params", 0, "dtype"), "f128"),
    "param dtype list": _set((*_K, "params", 0, "dtype"), ["f32"]),
    "param kind": _set((*_K, "params", 0, "kind"), "tensor"),
    "align string": _set((*_K, "params", 0, "align"), "16"),
    "divisible_by zero": _set((*_K, "params", 2, "divisible_by"), 0),
    "unknown field": _set((*_K, "params", 0, "color"), "red"),
    "equal not list": _set((*_K, "equal"), "n"),
    "no variants": _set((*_K, "variants"), _DELETE),
    "variant not object": _set((*_K, "variants", 0), 7),
    "arch bogus": _set((*_K, "variants", 0, "arch"), "gfx90a"),
    "files empty": _set((*_K, "variants", 0, "files"), {}),
    "file entry string": _set((*_K, "variants", 0, "files", "ptx"), "copy.ptx"),
    "sha256 short": _set((*_K, "variants", 0, "files", "ptx", "sha256"), "abc"),
    "bytes negative": _set((*_K, "variants", 0, "files", "ptx", "bytes"), -1),
    "ptx_isa missing": _set((*_K, "variants", 0, "ptx_isa"), _DELETE),
    "ptx_isa number": _set((*_K, "variants", 0, "ptx_isa"), 8.0),
    "kernels object": _set(("kernels",), {"copy": {}}),
    "kernel list": _set(("kernels", 0), []),
    "two kernels one name": lambda m: m["kernels"].append(copy.deepcopy(m["kernels"][0])),
}


@pytest.mark.parametrize("what", sorted(_MUTATIONS))
def test_a_manifest_off_its_schema_is_refused_before_the_driver(tmp_path, code, fake_gpu, what):
    art = _artifact(tmp_path, code)
    _edit(art, _MUTATIONS[what])
    with pytest.raises(ArtifactError) as info:
        load(art)
    assert "manifest" in str(info.value) or "kernels" in str(info.value)
    assert fake_gpu.loaded == []


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"format": "layoutc-artifact", "version": 2, "kernels": [' + "9" * 5000 + "]}",
        "\xff\xfe",
        "",
    ],
    ids=["deep", "huge-int", "not-utf8", "empty"],
)
def test_unparseable_manifests_are_artifact_errors(tmp_path, fake_gpu, text):
    (tmp_path / "manifest.json").write_bytes(text.encode("latin-1"))
    with pytest.raises(ArtifactError):
        load(tmp_path)
    assert fake_gpu.loaded == []


# -- the ABI against the code -----------------------------------------------------------------


def test_the_code_parameter_lists_are_read(code):
    ptx, cubin = code
    assert ptx_param_sizes(ptx, "copy") == [8, 8, 4]
    assert ptx_param_sizes(ptx, "other") is None
    if cubin is not None:
        assert cubin_param_sizes(cubin, "copy") == [8, 8, 4]
        assert cubin_param_sizes(cubin, "other") is None


@pytest.mark.parametrize("use_cubin", [False, True], ids=["ptx", "cubin"])
@pytest.mark.parametrize(
    "change, message",
    [
        (_set((*_K, "params", 2, "dtype"), "f64"), "is 8 bytes but the code reads 4"),
        (_set((*_K, "params", 2, "dtype"), "i16"), "is 2 bytes but the code reads 4"),
        (_set((*_K, "params", 2, "kind"), "pointer"), "is 8 bytes but the code reads 4"),
        (
            lambda m: m["kernels"][0]["params"].append(
                {"name": "m", "kind": "scalar", "dtype": "i32"}
            ),
            "states 4 parameters but the code takes 3",
        ),
        (lambda m: m["kernels"][0]["params"].pop(), "states 2 parameters but the code takes 3"),
    ],
)
def test_a_manifest_abi_that_does_not_match_the_code_is_refused(
    tmp_path, code, fake_gpu, use_cubin, change, message
):
    art = _artifact(tmp_path, code, cubin=use_cubin)
    load(art)  # as written: loads
    fake_gpu.loaded.clear()

    def edit(m):
        change(m)
        for p in m["kernels"][0]["params"]:  # keep the edit otherwise well formed
            if p["kind"] == "pointer":
                p.pop("divisible_by", None)

    _edit(art, edit)
    with pytest.raises(ArtifactError, match=message):
        load(art)
    assert fake_gpu.loaded == []


def test_a_cubin_that_is_not_elf_is_refused(tmp_path, code, fake_gpu):
    out = tmp_path / "art"
    write_artifact(out, [ArtifactKernel(COPY, (Variant("sm_90", cubin=b"not a cubin"),))])
    with pytest.raises(ArtifactError, match="no kernel named 'copy'"):
        load(out)


def test_the_driver_parameter_info_is_checked_where_it_exists(
    tmp_path, code, fake_gpu, monkeypatch
):
    art = _artifact(tmp_path, code)
    monkeypatch.setattr(
        fake, "cuFuncGetParamInfo", lambda fn, i: (0, 8 * i, 8) if i < 3 else (1,), raising=False
    )
    with pytest.raises(ArtifactError, match="cuFuncGetParamInfo"):
        load(art)
    monkeypatch.setattr(
        fake,
        "cuFuncGetParamInfo",
        lambda fn, i: (0, 8 * i, (8, 8, 4)[i]) if i < 3 else (1,),
        raising=False,
    )
    assert list(load(art)) == ["copy"]


# -- permissions and the CLI ------------------------------------------------------------------


def test_artifact_files_honour_the_umask(tmp_path, code):
    old = os.umask(0o022)
    try:
        art = _artifact(tmp_path, code)
    finally:
        os.umask(old)
    for f in art.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, f


def test_compile_o_naming_a_file_is_a_message(tmp_path, capsys):
    from driver_kernels import SCALAR_PIPELINE
    from layoutc.cli.main import main

    kernels = str(Path(__file__).parent.parent / "driver" / "driver_kernels.py")
    existing = tmp_path / "existing"
    existing.write_text("keep me")
    status = main(
        [
            "compile",
            f"{kernels}::branchy",
            "--target",
            "sm_90",
            "--spec",
            "n=i32",
            "--pipeline",
            SCALAR_PIPELINE,
            "-o",
            str(existing),
        ]
    )
    err = capsys.readouterr().err
    assert status == 1, err
    assert "exists and is not a directory" in err and "internal error" not in err
    assert existing.read_text() == "keep me"
