"""AOT artifacts: manifest writing, validation, variant choice, and the production loader
(run in a fresh interpreter against the fake driver, to prove what it imports)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import fake_driver as fake
import handwritten as hw
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version, ptx_to_cubin
from layoutc.codegen.ptx import compile_ptx_llvm
from layoutc.codegen.target import Target
from layoutc.runtime import cuda_driver
from layoutc.runtime.abi import KernelSpec, Param
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
    assert (m["format"], m["version"], m["producer"]) == ("layoutc-artifact", 2, "layoutc-test")
    (k,) = m["kernels"]
    assert k["name"] == "copy"
    assert [p["name"] for p in k["params"]] == ["src", "dst", "n"]
    assert k["params"][0] == {"name": "src", "kind": "pointer", "dtype": "f32"}  # no facts
    assert k["params"][2] == {"name": "n", "kind": "scalar", "dtype": "i32", "divisible_by": 1}
    assert k["equal"] == []
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
    with pytest.raises(
        ArtifactError, match=r"version 99 is not supported .*reads versions 1 and 2"
    ):
        read_manifest(tmp_path)


def test_tampered_file_is_detected(copy_artifact, tmp_path):
    entry = read_manifest(copy_artifact)["kernels"][0]["variants"][0]["files"]["ptx"]
    (tmp_path / entry["path"]).write_bytes((copy_artifact / entry["path"]).read_bytes() + b"//")
    with pytest.raises(ArtifactError, match="does not match the manifest"):
        read_variant_file(tmp_path, "copy", entry)
    (tmp_path / entry["path"]).write_bytes(b"x" + (copy_artifact / entry["path"]).read_bytes()[1:])
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


# -- facts (manifest version 2) and version 1 -----------------------------------------------------

#: The copy kernel's ABI with facts: aligned pointers, n a positive multiple of 4.
FACT_COPY = KernelSpec(
    "copy",
    (
        Param("src", "pointer", "f32", align=16),
        Param("dst", "pointer", "f32", align=16),
        Param("n", "scalar", "i32", divisible_by=4, lower=1),
    ),
)


#: PTX the fake driver runs as its copy model; its parameter list is the loader's ABI check.
FAKE_COPY_PTX = (
    ".version 7.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry copy(.param .u64 copy_param_0, .param .u64 copy_param_1, "
    ".param .u32 copy_param_2)\n{\n\tret;\n}\n"
)


def _write_fact_artifact(out: Path) -> Path:
    write_artifact(out, [ArtifactKernel(FACT_COPY, (Variant("sm_90", ptx=FAKE_COPY_PTX),))])
    return out


def test_manifest_v2_round_trips_the_facts(tmp_path):
    m = read_manifest(_write_fact_artifact(tmp_path))
    assert m["version"] == 2
    entry = m["kernels"][0]
    assert entry["params"][0] == {"name": "src", "kind": "pointer", "dtype": "f32", "align": 16}
    assert entry["params"][2] == {
        "name": "n",
        "kind": "scalar",
        "dtype": "i32",
        "divisible_by": 4,
        "min": 1,
    }
    assert KernelSpec.from_json(entry) == FACT_COPY


def test_version_1_manifests_still_load(tmp_path):
    """A v1 artifact states no facts: it loads and runs with the ABI's checks only."""
    _write_fact_artifact(tmp_path)
    path = tmp_path / "manifest.json"
    m = json.loads(path.read_text())
    m["version"] = 1
    for k in m["kernels"]:
        del k["equal"]
        k["params"] = [{f: p[f] for f in ("name", "kind", "dtype")} for p in k["params"]]
    path.write_text(json.dumps(m))
    previous = cuda_driver.use_driver(fake)
    try:
        lib = load(tmp_path)
        assert lib.copy.spec == KernelSpec(
            "copy", tuple(Param(p.name, p.kind, p.dtype) for p in FACT_COPY.params)
        )
        src = np.arange(6, dtype=np.float32)
        dst = np.zeros_like(src)
        lib.copy(src, dst, 6, grid=1, block=32)  # 6 is no multiple of 4: v1 assumed nothing
        assert (dst == src).all()
    finally:
        cuda_driver.use_driver(previous)


def test_malformed_facts_in_a_manifest_are_an_artifact_error(tmp_path):
    _write_fact_artifact(tmp_path)
    path = tmp_path / "manifest.json"
    m = json.loads(path.read_text())
    m["kernels"][0]["params"][0]["align"] = 12
    path.write_text(json.dumps(m))
    previous = cuda_driver.use_driver(fake)
    try:
        with pytest.raises(ArtifactError, match=r"malformed kernel entry.*power of two"):
            load(tmp_path)
    finally:
        cuda_driver.use_driver(previous)


_FACTS_SCRIPT = textwrap.dedent(
    """
    import ctypes, sys
    sys.path.insert(0, {here!r})
    import numpy as np
    import fake_driver
    import layoutc.runtime as rt
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.cuda_memory import DeviceBuffer
    cuda_driver.use_driver(fake_driver)
    lib = rt.load({artifact!r})

    class View:  # a device array at a byte offset, as torch's x[1:] is
        def __init__(self, n, offset):
            self.buf = DeviceBuffer(4 * n + 64)
            self.__cuda_array_interface__ = {{
                "shape": (n,), "typestr": "<f4", "data": (self.buf.ptr + offset, False),
                "strides": None, "version": 3}}

    src = np.arange(8, dtype=np.float32)
    dst = np.zeros_like(src)
    lib.copy(src, dst, 8, grid=1, block=32)
    assert (dst == src).all(), "kernel model did not run"
    for args in [(View(8, 4), View(8, 0), 8), (View(8, 0), View(8, 0), 6), (src, dst, 0)]:
        try:
            lib.copy(*args, grid=1, block=32)
            print("refused: nothing")
        except rt.ArgumentError as e:
            print("refused:", e)
    heavy = sorted(
        m for m in sys.modules
        if m.split(".")[0] in ("sympy", "llvmlite")
        or (m.startswith("layoutc.") and not m.startswith("layoutc.runtime"))
    )
    print("heavy:", heavy)
    """
)


def test_the_loader_checks_facts_without_the_compiler(tmp_path):
    """A production process refuses calls that break the facts, importing only the runtime."""
    script = _FACTS_SCRIPT.format(here=str(HERE), artifact=str(_write_fact_artifact(tmp_path)))
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    refused = [line for line in lines if line.startswith("refused:")]
    assert len(refused) == 3, result.stdout
    assert re.search(r"'src'\): data pointer 0x[0-9a-f]+ is not 16-byte aligned", refused[0])
    assert (
        "'n'): 6 is not a multiple of 4, but the kernel was compiled assuming n%4==0"
        in (refused[1])
    )
    assert "'n'): 0 is less than 1, but the kernel was compiled assuming n>=1" in refused[2]
    assert lines[-1] == "heavy: []", f"the loader imported {lines[-1]}"


def test_the_aot_loader_launches_in_the_manifests_cluster_shape(tmp_path):
    """A kernel compiled with a cluster shape keeps it in the manifest; the production loader
    launches it in clusters of that shape (cuLaunchKernelEx) and refuses a grid that is not a
    multiple; ``cluster=`` at launch for a kernel without one."""
    from dataclasses import replace

    from layoutc.runtime.errors import ArgumentError

    fixed = replace(FACT_COPY, cluster=(2, 1, 1))
    write_artifact(tmp_path, [ArtifactKernel(fixed, (Variant("sm_90", ptx=FAKE_COPY_PTX),))])
    assert read_manifest(tmp_path)["kernels"][0]["cluster"] == [2, 1, 1]
    previous = cuda_driver.use_driver(fake)
    fake.launches.clear()
    try:
        lib = load(tmp_path)
        src = np.arange(64, dtype=np.float32)
        dst = np.zeros_like(src)
        lib.copy(src, dst, 64, grid=4, block=32)
        assert fake.launches[-1]["cluster"] == (2, 1, 1) and (dst == src).all()
        with pytest.raises(ArgumentError, match=r"grid.x = 3 is not a multiple of 2"):
            lib.copy(src, dst, 64, grid=3, block=32)
        free = tmp_path / "free"
        write_artifact(free, [ArtifactKernel(FACT_COPY, (Variant("sm_90", ptx=FAKE_COPY_PTX),))])
        load(free).copy(src, dst, 64, grid=4, block=32, cluster=4)
        assert fake.launches[-1]["cluster"] == (4, 1, 1)
    finally:
        cuda_driver.use_driver(previous)
