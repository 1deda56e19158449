"""AOT artifacts: manifest writing, validation, variant choice, and the production loader
(run in a fresh interpreter against the fake driver, to prove what it imports)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import fake_driver as fake
import handwritten as hw
import pytest
from layoutc.codegen.cubin import nvjitlink_version, ptx_to_cubin
from layoutc.codegen.ptx import compile_ptx_llvm
from layoutc.codegen.target import Target
from layoutc.runtime import cuda_driver
from layoutc.runtime.artifact import (
    ArtifactKernel,
    Variant,
    load,
    read_manifest,
    read_variant_file,
    write_artifact,
)
from layoutc.runtime.errors import ArtifactError, IncompatibleDriverError

HERE = Path(__file__).parent


def _copy_variant(arch: str, with_cubin: bool) -> Variant:
    module, _ = hw.gpu_module(hw.copy_kernel(True), arch)
    ptx = compile_ptx_llvm(str(module), Target.parse(arch)).ptx
    cubin = ptx_to_cubin(ptx, arch).cubin if with_cubin and nvjitlink_version() else None
    return Variant(arch, ptx=ptx, cubin=cubin)


@pytest.fixture(scope="module")
def copy_artifact(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("artifact")
    _, spec = hw.copy_kernel(True)
    kernel = ArtifactKernel(spec, (_copy_variant("sm_80", False), _copy_variant("sm_90", True)))
    write_artifact(out, [kernel], producer="layoutc-test")
    return out


def test_manifest_schema(copy_artifact):
    m = read_manifest(copy_artifact)
    assert (m["format"], m["version"], m["producer"]) == ("layoutc-artifact", 1, "layoutc-test")
    (k,) = m["kernels"]
    assert k["name"] == "copy"
    assert [p["name"] for p in k["params"]] == ["src", "dst", "n"]
    assert k["params"][0] == {"name": "src", "kind": "pointer", "dtype": "f32"}
    assert k["shared_memory"] == {"static_bytes": 0, "dynamic_bytes": 0}
    archs = {v["arch"]: v for v in k["variants"]}
    assert archs["sm_80"]["ptx_isa"] == "7.0" and set(archs["sm_80"]["files"]) == {"ptx"}
    ptx_entry = archs["sm_90"]["files"]["ptx"]
    assert len(ptx_entry["sha256"]) == 64
    assert (copy_artifact / ptx_entry["path"]).stat().st_size == ptx_entry["bytes"]


def test_artifacts_are_deterministic(tmp_path):
    _, spec = hw.copy_kernel(True)
    kernel = ArtifactKernel(spec, (_copy_variant("sm_90", True),))
    write_artifact(tmp_path / "a", [kernel])
    write_artifact(tmp_path / "b", [kernel])
    for f in (tmp_path / "a").iterdir():
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes()


def test_manifest_errors(tmp_path):
    with pytest.raises(ArtifactError, match="no such manifest"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text("{")
    with pytest.raises(ArtifactError, match="not valid JSON"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ArtifactError, match="not a layoutc artifact"):
        read_manifest(tmp_path)
    (tmp_path / "manifest.json").write_text(
        json.dumps({"format": "layoutc-artifact", "version": 99})
    )
    with pytest.raises(ArtifactError, match="version 99 is not supported"):
        read_manifest(tmp_path)


def test_tampered_file_is_detected(copy_artifact, tmp_path):
    entry = read_manifest(copy_artifact)["kernels"][0]["variants"][0]["files"]["ptx"]
    (tmp_path / entry["path"]).write_bytes((copy_artifact / entry["path"]).read_bytes() + b"//")
    with pytest.raises(ArtifactError, match="does not match its sha256"):
        read_variant_file(tmp_path, "copy", entry)
    with pytest.raises(ArtifactError, match="is missing"):
        read_variant_file(tmp_path / "nowhere", "copy", entry)


def test_loader_refuses_an_artifact_the_driver_cannot_run(tmp_path):
    _, spec = hw.copy_kernel(True)
    ptx95 = ".version 9.5\n.target sm_90\n.address_size 64\n// copy\n"
    write_artifact(tmp_path, [ArtifactKernel(spec, (Variant("sm_90", ptx=ptx95),))])
    previous = cuda_driver.use_driver(fake)
    try:
        with pytest.raises(IncompatibleDriverError, match=r"needs a driver for CUDA 13.5 or newer"):
            load(tmp_path)
    finally:
        cuda_driver.use_driver(previous)


_LOADER_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {here!r})
    import numpy as np
    import fake_driver
    import layoutc.runtime as rt
    from layoutc.runtime import cuda_driver
    cuda_driver.use_driver(fake_driver)
    lib = rt.load({artifact!r})
    src = np.arange(256, dtype=np.float32)
    dst = np.zeros_like(src)
    lib.copy(src, dst, 256, grid=(2,), block=(128,))
    assert (dst == src).all(), "kernel model did not run"
    kind, image = fake_driver.loaded[-1]
    print("loaded", kind)
    heavy = sorted(
        m for m in sys.modules
        if m.split(".")[0] in ("sympy", "llvmlite")
        or (m.startswith("layoutc.") and not m.startswith("layoutc.runtime"))
    )
    print("heavy", heavy)
    """
)


def test_loader_imports_only_the_runtime(copy_artifact):
    script = _LOADER_SCRIPT.format(here=str(HERE), artifact=str(copy_artifact))
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.strip().splitlines())
    assert lines["loaded"] == ("cubin" if nvjitlink_version() else "ptx")
    assert lines["heavy"] == "[]", f"the loader imported {lines['heavy']}"
