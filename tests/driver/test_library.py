"""Kernel libraries from a manifest (layoutc compile --manifest): the same bytes whether built in
this process, on a process pool or on Ray; clear errors for bad manifests and failing kernels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from layoutc.cli.main import main
from layoutc.driver.library import (
    LibraryError,
    ManifestError,
    build_library,
    jobs_from_manifest,
    read_manifest,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HERE = Path(__file__).resolve().parent

MANIFEST = f"""
targets = ["sm_80", "sm_90"]

[[kernel]]
source = "{EXAMPLES / "copy_1d.py"}::copy_1d"
block = 128
  [[kernel.spec]]
  name = "copy_a16"
  assume = ["N%1024==0"]
  [[kernel.spec]]
  name = "copy_a4"
  args = {{ src = "align=4", dst = "align=4" }}

[[kernel]]
source = "{HERE / "autotune_kernels.py"}::make_copy(CopyConfig(tile=128, reps=2))"
block = 32
targets = ["sm_90"]
"""


def contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.fixture
def manifest(tmp_path) -> Path:
    path = tmp_path / "lib.toml"
    path.write_text(MANIFEST)
    return path


def jobs(path: Path) -> list:
    return jobs_from_manifest(read_manifest(path), path.parent, str(path))


def test_the_cli_builds_a_library_and_a_process_pool_gives_the_same_bytes(
    manifest, tmp_path, capsys
):
    serial = tmp_path / "serial"
    assert main(["compile", "--manifest", str(manifest), "-o", str(serial), "-j", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("copy_a16 [sm_80]: cubin+ptx (PTX ISA ")
    assert "copies 128/128-bit; assumes src align=16, dst align=16, N%1024==0" in out[0]
    assert "copies 32/32-bit; assumes src align=4, dst align=4" in out[2]
    assert out[4].startswith("copy_t128_r2 [sm_90]: ")
    assert out[-1] == f"wrote 24 files (3 kernels) to {serial}"
    manifest_json = json.loads((serial / "manifest.json").read_text())
    assert [k["name"] for k in manifest_json["kernels"]] == ["copy_a16", "copy_a4", "copy_t128_r2"]

    pool = build_library(tmp_path / "pool", jobs(manifest), workers=2)
    assert pool.executor == "processes"
    assert contents(pool.directory) == contents(serial)


def test_json_and_toml_manifests_are_the_same_library(manifest, tmp_path):
    import tomllib

    as_json = tmp_path / "lib.json"
    as_json.write_text(json.dumps(tomllib.loads(manifest.read_text())))
    assert jobs(as_json) == jobs(manifest)
    assert [j.target for j in jobs(manifest)] == ["sm_80", "sm_90", "sm_80", "sm_90", "sm_90"]
    override = jobs_from_manifest(read_manifest(manifest), tmp_path, targets=["sm_86"])
    assert [j.target for j in override] == ["sm_86", "sm_86", "sm_90"]  # a kernel's own stay


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('targets = ["sm_90"]\n', "expected at least one [[kernel]] entry"),
        (
            '[[kernel]]\nsource = "k.py::k"\ncolour = 1\n',
            "manifest: kernel 1: unknown key(s) colour (expected args, assume, block, name, "
            "source, spec, targets)",
        ),
        ('[[kernel]]\nsource = "k.py"\n', "source must be 'FILE.py::KERNEL'"),
        (
            "[[kernel]]\nsource = \"k.py::__import__('os').system('x')[0]\"\n",
            "expected a kernel's name",
        ),
        ('[[kernel]]\nsource = "k.py::k"\n', "k.py::k: no targets"),
        (
            'targets = ["sm_90"]\n[[kernel]]\nsource = "k.py::k"\n[[kernel.spec]]\n'
            "[[kernel.spec]]\n",
            "several specs need a name each",
        ),
        (
            'targets = ["sm_90"]\n[[kernel]]\nsource = "k.py::k"\nblock = [0]\n',
            "block must be 1 to 3 positive integers",
        ),
    ],
)
def test_bad_manifests_are_clear_errors(tmp_path, text, message):
    path = tmp_path / "m.toml"
    path.write_text(text)
    with pytest.raises(ManifestError) as err:
        jobs_from_manifest(read_manifest(path), tmp_path, "manifest")
    assert message in str(err.value)


def test_failing_kernels_are_listed_and_nothing_is_written(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(
        json.dumps(
            {
                "targets": ["sm_90"],
                "kernel": [
                    {"source": f"{EXAMPLES / 'copy_1d.py'}::copy_1d", "block": 128},
                    {"source": f"{EXAMPLES / 'copy_1d.py'}::no_such_kernel"},
                    {
                        "source": f"{HERE / 'autotune_kernels.py'}::make_copy(CopyConfig(broken=True))",
                        "block": 32,
                    },
                ],
            }
        )
    )
    out = tmp_path / "out"
    assert main(["compile", "--manifest", str(path), "-o", str(out), "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("layoutc: error: 2 of 3 builds failed:\n")
    assert "copy_1d.py::no_such_kernel [sm_90]: " in err
    assert "NameError: name 'no_such_kernel' is not defined" in err
    assert "autotune_kernels.py:" in err and "no_such_function" in err
    assert not out.exists()


def test_two_kernels_of_one_name_are_refused(tmp_path):
    copy = f"{EXAMPLES / 'copy_1d.py'}::copy_1d"
    manifest = {"targets": ["sm_90"], "kernel": [{"source": copy}, {"source": copy}]}
    with pytest.raises(LibraryError, match="two kernels named 'copy_1d' in one library"):
        build_library(tmp_path / "out", jobs_from_manifest(manifest, tmp_path), workers=1)


def test_manifest_and_kernel_references_do_not_mix(manifest, tmp_path, capsys):
    ref = f"{EXAMPLES / 'copy_1d.py'}::copy_1d"
    assert main(["compile", ref, "--manifest", str(manifest), "-o", str(tmp_path / "o")]) == 2
    assert "--manifest names the kernels" in capsys.readouterr().err
    assert main(["compile", ref, "-j", "2", "-o", str(tmp_path / "o")]) == 2
    assert "-j and --ray build a library" in capsys.readouterr().err
