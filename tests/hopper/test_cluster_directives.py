"""The cluster directives a kernel's PTX carries (PTX ISA 11.7: ``.reqnctapercluster``,
``.explicitcluster``, ``.maxclusterrank``), on both PTX back ends, and the launch rules they
impose, which every launcher (here the CPU runtime; tests/runtime/test_cuda_fake.py and
tests/interop/test_emit_c.py for the GPU and C ones) enforces before launching."""

from __future__ import annotations

import tempfile
from pathlib import Path

import cluster_kernels as ck
import layoutc as lc
import numpy as np
import pytest
from filecheck.matcher import Matcher
from filecheck.options import Options
from layoutc.codegen import ptx as ptxmod
from layoutc.codegen.cubin import nvjitlink_version

needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")
BACKENDS = ["libnvvm", "llvm"]

FIXED = r"""
CHECK-LABEL: .entry fixed_pairs(
CHECK-NOT:   .maxclusterrank
CHECK:       .explicitcluster
CHECK-NEXT:  .reqnctapercluster 2, 1, 1
CHECK-NOT:   .maxclusterrank
CHECK:       barrier.cluster.arrive
"""

FIXED_16 = r"""
CHECK-LABEL: .entry fixed_16(
CHECK:       .explicitcluster
CHECK-NEXT:  .reqnctapercluster 16, 1, 1
CHECK:       barrier.cluster.arrive
"""

EXPLICIT = r"""
CHECK-LABEL: .entry explicit_up_to_4(
CHECK-NOT:   .reqnctapercluster
CHECK:       .explicitcluster
CHECK-NOT:   .reqnctapercluster
CHECK:       .maxclusterrank 4
CHECK-NOT:   .reqnctapercluster
CHECK:       {
"""

FREE = r"""
CHECK-LABEL: .entry cluster_ids(
CHECK-NOT:   {{^\.(explicitcluster|reqnctapercluster|maxclusterrank)}}
CHECK:       {{^\{}}
"""


def filecheck(text: str, checks: str) -> None:
    """FileCheck ``checks`` against ``text``."""
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "input.ptx").write_text(text)
        (Path(d) / "checks").write_text(checks)
        opts = Options(match_filename=f"{d}/checks", input_file=f"{d}/input.ptx")
        assert Matcher.from_opts(opts).run() == 0, f"FileCheck failed on:\n{text}"


def _ptx(kernel, backend: str) -> tuple[str, bytes]:
    if backend == "libnvvm" and not ptxmod.libnvvm_available():
        pytest.skip("libNVVM not installed")
    out = np.zeros(32, np.int32) if kernel is not ck.cluster_ids else np.zeros((8, 2), np.int32)
    compiled = lc.compile(kernel, out, block=32, target="sm_90a", ptx_backend=backend)
    return compiled.ptx, compiled.cubin


@needs_nvjitlink
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("kernel", "checks"),
    [
        (ck.fixed_pairs, FIXED),
        (ck.fixed_16, FIXED_16),  # a non-portable size: ptxas takes it as it is
        (ck.explicit_up_to_4, EXPLICIT),
        (ck.cluster_ids, FREE),
    ],
    ids=["fixed", "fixed16", "explicit", "free"],
)
def test_cluster_directives_reach_the_ptx_and_assemble(kernel, checks, backend):
    ptx, cubin = _ptx(kernel, backend)
    filecheck(ptx, checks)
    assert cubin is not None and cubin[:4] == b"\x7fELF"  # ptxas accepted the directives


def test_a_fixed_shape_runs_and_refuses_another_on_the_cpu():
    out = np.full(8, -1, np.int32)
    kernel = lc.compile(ck.fixed_pairs, out, block=32, target="cpu")
    kernel(out, grid=8, block=32)  # the compiled shape, without asking for it
    np.testing.assert_array_equal(out, [0, 1] * 4)
    kernel(out, grid=8, block=32, cluster=(2, 1))
    with pytest.raises(lc.SpecError, match=r"compiled for clusters of \(2, 1, 1\) blocks"):
        kernel(out, grid=8, block=32, cluster=4)


def test_an_explicit_cluster_kernel_needs_a_cluster_at_launch_on_the_cpu():
    out = np.full(8, -1, np.int32)
    kernel = lc.compile(ck.explicit_up_to_4, out, block=32, target="cpu")
    with pytest.raises(lc.SpecError, match=r"must be launched in clusters .*pass cluster="):
        kernel(out, grid=8, block=32)
    with pytest.raises(lc.SpecError, match=r"8 blocks, more than the 4 it was compiled for"):
        kernel(out, grid=8, block=32, cluster=8)
    for c in (1, 2, 4):
        kernel(out, grid=8, block=32, cluster=c)
        np.testing.assert_array_equal(out, [r % c + 10 * c for r in range(8)])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cluster": "any"}, r"cluster=...\) needs up to three positive ints .* or 'explicit'"),
        ({"max_cluster_size": 17}, r"max_cluster_size=...\) needs an int from 1 to 16, got 17"),
        (
            {"cluster": (4, 4, 2)},
            r"cluster=...\) needs up to three positive ints with a product of at most 16 "
            r"\(Hopper's non-portable cluster size; 8 is portable\)",
        ),
        (
            {"cluster": (2, 1, 1), "max_cluster_size": 4},
            r"with the fixed cluster=\(2, 1, 1\): .*forbids .maxclusterrank next to",
        ),
    ],
)
def test_bad_cluster_options_are_refused_at_the_decorator(options, message):
    with pytest.raises(TypeError, match=message):
        lc.kernel(**options)(ck.cluster_ids.fn)


def _kernel_ir(attributes: str) -> str:
    return (
        f"func.func @k(%p: !llvm.ptr<1>) attributes {{gpu.kernel, {attributes}}} {{\n  return\n}}"
    )


@pytest.mark.parametrize(
    ("attributes", "explicit", "cluster", "most"),
    [
        ("nvvm.cluster_dim = array<i32: 2, 1, 1>", True, (2, 1, 1), None),
        (
            "nvvm.cluster_dim = array<i32: 0, 0, 0>, nvvm.cluster_max_blocks = 4 : i32",
            True,
            None,
            4,
        ),
        ("nvvm.cluster_max_blocks = 8 : i32", False, None, 8),
    ],
)
def test_upstreams_kernel_attributes_give_the_launch_rules(attributes, explicit, cluster, most):
    """``nvvm.cluster_dim`` / ``nvvm.cluster_max_blocks`` (upstream MLIR's names) on IR written
    by hand: the translation's kernel facts, which the runtimes enforce."""
    from layoutc.codegen.target import Target
    from layoutc.codegen.translate import translate_nvvm
    from layoutc.ir.core import parse

    info = translate_nvvm(parse(_kernel_ir(attributes)), Target.parse("sm_90a")).kernels["k"]
    assert (info.explicit_cluster, info.cluster, info.max_cluster_blocks) == (
        explicit,
        cluster,
        most,
    )


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        (
            "nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.cluster_max_blocks = 4 : i32",
            "PTX forbids .maxclusterrank with .reqnctapercluster",
        ),
        ("nvvm.cluster_dim = array<i32: 2, 0, 1>", "three positive integers or 0, 0, 0"),
        ("nvvm.cluster_max_blocks = 0 : i32", "must be a positive integer"),
    ],
)
def test_bad_cluster_attributes_are_refused_by_the_translation(attributes, message):
    from layoutc.codegen.target import Target
    from layoutc.codegen.translate import TranslationError, translate_nvvm
    from layoutc.ir.core import parse

    with pytest.raises(TranslationError, match=message):
        translate_nvvm(parse(_kernel_ir(attributes)), Target.parse("sm_90a"))
