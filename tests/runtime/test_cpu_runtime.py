"""The CPU runtime: GPU semantics (grid/block loops, barriers, shuffles) on numpy arrays."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import handwritten as hw
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.runtime import cpu_support_ir
from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.cpu_context import CONTEXT, CONTEXT_FIELDS, ThreadContext, context_type
from layoutc.runtime.cpu_kernel import CpuKernel
from layoutc.runtime.cpu_records import CFG, CLUSTER, FIBER, SCHED
from layoutc.runtime.errors import ArgumentError, CpuExecutionError

_kernels: dict[str, CpuKernel] = {}


def kernel(name: str, **kw) -> CpuKernel:
    """Compile each hand-written kernel once per test session."""
    key = name + repr(sorted(kw.items()))
    if key not in _kernels:
        module, spec = getattr(hw, f"{name}_kernel")(False, **kw)
        _kernels[key] = CpuKernel(module, spec)
    return _kernels[key]


def test_context_struct_has_one_definition():
    assert [f[0] for f in ThreadContext._fields_] == [f[0] for f in CONTEXT_FIELDS]
    assert len(context_type().elements) == len(CONTEXT_FIELDS)
    # 16 i32, 5 pointers, 5 i32 of the cluster (padded to 8), the cluster pointer
    assert ctypes.sizeof(ThreadContext) == 16 * 4 + 5 * 8 + 6 * 4 + 8


@pytest.mark.parametrize("record", [CONTEXT, SCHED, FIBER, CFG, CLUSTER], ids=lambda r: r.name)
def test_records_lay_out_alike_in_ctypes_and_llvm(record):
    """The runtime's ctypes view and the support IR's struct type come from one table: LLVM's
    data layout puts every field where ctypes does."""
    import llvmlite.binding as llvm

    struct = record.ctypes_struct("Probe")
    module = llvm.parse_assembly(
        f"%{record.name} = type {record.llvm_type_text()}\n@probe = external global %{record.name}\n"
    )
    ty = module.get_global_variable("probe").global_value_type
    layout = llvm.create_target_data("e-m:e-i64:64-f80:128-n8:16:32:64-S128")
    assert layout.get_abi_size(ty) == ctypes.sizeof(struct)
    for name, index in record.index.items():
        assert layout.get_element_offset(ty, index) == getattr(struct, name).offset


def test_support_ir_reaches_record_fields_by_name():
    """No GEP into a record by a literal field number: indices come from the record tables."""
    text = (Path(cpu_support_ir.__file__).parent / "cpu_support.ll").read_text()
    geps = re.findall(r"getelementptr inbounds %(Ctx|Sched|Fiber|Cfg), [^\n]*", text)
    assert len(geps) > 50
    numeric = re.findall(r"getelementptr inbounds %(?:Ctx|Sched|Fiber|Cfg), .*i32 \d+$", text, re.M)
    assert numeric == []
    assert "$" not in cpu_support_ir.support_ir() + cpu_support_ir.kernel_launcher_ir("k", [])


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 5000), grid=st.integers(1, 9), block=st.integers(1, 300))
def test_grid_stride_copy(n, grid, block):
    src = np.random.default_rng(n).random(n, dtype=np.float32)
    dst = np.zeros(n, np.float32)
    kernel("copy")(src, dst, n, grid=grid, block=block)
    assert np.array_equal(dst, src)


def test_copy_through_dlpack_and_torch_like_objects():
    class DLPackOnly:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(64, np.float32)
    kernel("copy")(DLPackOnly(src), DLPackOnly(dst), 64, grid=2, block=32)
    assert np.array_equal(dst, src)


def test_block_reverse_honours_the_barrier():
    rng = np.random.default_rng(0)
    src = rng.random(8 * 64, dtype=np.float32)
    dst = np.zeros_like(src)
    k = kernel("block_reverse")
    assert k.uses_collectives
    k(src, dst, grid=8, block=64, smem=64 * 4)
    assert np.array_equal(dst, src.reshape(8, 64)[:, ::-1].ravel())


def test_block_reverse_without_barrier_is_wrong():
    # Without the barrier, threads of the first half read shared memory before the second
    # half has written it: the result must differ (this is what proves the barrier matters).
    src = np.random.default_rng(1).random(4 * 64, dtype=np.float32)
    dst = np.zeros_like(src)
    k = kernel("block_reverse", with_barrier=False)
    assert not k.uses_collectives
    k(src, dst, grid=4, block=64, smem=64 * 4)
    assert not np.array_equal(dst, src.reshape(4, 64)[:, ::-1].ravel())


@pytest.mark.parametrize("block", [32, 96, 256])
def test_warp_shuffle_reduction_matches_numpy(block):
    src = np.random.default_rng(block).random(4 * block, dtype=np.float32)
    dst = np.zeros(4 * block // 32, np.float32)
    kernel("warp_sum")(src, dst, grid=4, block=block)
    np.testing.assert_allclose(dst, src.reshape(-1, 32).sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize(
    ("grid", "block"), [((3, 2, 2), (4, 3, 2)), ((1, 1, 5), (2, 1, 3)), ((2,), (5, 2))]
)
def test_multidimensional_ids(grid, block):
    g = (*grid, 1, 1)[:3]
    b = (*block, 1, 1)[:3]
    out = np.full((g[2], g[1], g[0], b[2], b[1], b[0], 6), -1, np.int32)
    kernel("ids")(out, grid=grid, block=block)
    z, y, x, tz, ty, tx = np.indices(out.shape[:6])
    expect = np.stack([tx, ty, tz, x, y, z], axis=-1)
    assert np.array_equal(out, expect)


def test_tensor_with_dynamic_layout_on_a_strided_view():
    base = np.arange(7 * 12, dtype=np.float32).reshape(7, 12)
    expect = base.copy()
    expect[1:6, 3:10] *= 0.5
    kernel("scale2d")(base[1:6, 3:10], 0.5, grid=3, block=16)
    assert np.array_equal(base, expect)


def test_mismatched_arguments_are_clear_errors():
    k = kernel("copy")
    a = np.zeros(8, np.float32)
    with pytest.raises(
        ArgumentError, match=r"argument 0 \('src'\): expected f32 elements, got i32"
    ):
        k(np.zeros(8, np.int32), a, 8, grid=1, block=8)
    with pytest.raises(ArgumentError, match="takes 3 arguments"):
        k(a, a, grid=1, block=8)
    with pytest.raises(ArgumentError, match="block= is required"):
        k(a, a, 8, grid=1)
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): expected an integer"):
        k(a, a, "8", grid=1, block=8)


def test_threads_that_exited_count_as_arrived_at_a_block_barrier():
    """PTX's bar.sync (and CUDA's __syncthreads) waits for the non-exited threads: threads 0-15
    return before the barrier the others pass (a hardware-legal early exit, not a deadlock)."""
    module, spec = hw.early_exit_barrier_kernel()
    k = CpuKernel(module, spec)
    out = np.zeros(64, np.float32)
    k(out, grid=2, block=64)
    np.testing.assert_array_equal(out, (np.arange(64) >= 16).astype(np.float32))


def test_deadlock_between_barrier_and_warp_sync_is_reported():
    module, spec = hw.split_sync_kernel()
    k = CpuKernel(module, spec)
    with pytest.raises(CpuExecutionError, match="deadlock"):
        k(np.zeros(32, np.float32), grid=1, block=32)
    # The fibers are rebuilt after a failure: a correct kernel still runs afterwards.
    test_block_reverse_honours_the_barrier()


def test_signature_must_match_the_spec():
    module, _ = hw.copy_kernel(False)
    wrong = KernelSpec("copy", (Param("src", "pointer", "f32"), Param("n", "scalar", "i32")))
    with pytest.raises(ArgumentError, match=r"signature \(ptr, ptr, i32, ptr\) does not match"):
        CpuKernel(module, wrong)


def test_launch_bounds_apply_on_the_cpu_too():
    module, spec = hw.copy_kernel(False)
    bounded = KernelSpec(spec.name, spec.params, LaunchBounds(max_threads=64))
    k = CpuKernel(module, bounded)
    a = np.zeros(4, np.float32)
    with pytest.raises(ArgumentError, match="at most 64 threads"):
        k(a, a, 4, grid=1, block=128)


def test_parallel_blocks_give_the_same_result(monkeypatch):
    src = np.random.default_rng(3).random(64 * 40, dtype=np.float32)
    outs = []
    for threads in ("1", "4"):
        monkeypatch.setenv("LAYOUTC_CPU_THREADS", threads)
        dst = np.zeros_like(src)
        kernel("block_reverse")(src, dst, grid=40, block=64, smem=256)
        outs.append(dst)
    assert np.array_equal(outs[0], outs[1])
    assert np.array_equal(outs[0], src.reshape(40, 64)[:, ::-1].ravel())


def test_fibers_survive_the_kernels_that_used_them():
    # Fiber pools outlive kernels: a freed kernel must leave nothing the next launch resumes.
    import gc

    src = np.random.default_rng(7).random(8 * 128, dtype=np.float32)
    # Collections only need to reach this test's kernels: freezing what earlier tests left in
    # the process keeps each gc.collect() from traversing that heap (seconds in a full run).
    gc.freeze()
    try:
        for _ in range(3):
            rev = np.zeros_like(src)
            CpuKernel(*hw.block_reverse_kernel(False))(src, rev, grid=8, block=128, smem=512)
            gc.collect()
            sums = np.zeros(32, np.float32)
            CpuKernel(*hw.warp_sum_kernel(False))(src, sums, grid=8, block=128)
            gc.collect()
            assert np.array_equal(rev, src.reshape(8, 128)[:, ::-1].ravel())
            np.testing.assert_allclose(sums, src.reshape(-1, 32).sum(1), rtol=1e-5)
    finally:
        gc.unfreeze()
