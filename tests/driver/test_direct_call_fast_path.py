"""Direct kernel calls on the CPU: a repeated call skips the spec derivation (call keys,
compiler/frontend/call_key.py) yet launches exactly the kernel that a fresh derivation and
lookup would, computes the right result, and is refused with the same error.

Each walk changes one thing between calls: the source pointer's alignment, its stride, the
dtype, the count ``n`` (divisibility), the compile-time constant (value and type), the block,
positional vs keyword arguments. For every call the kernel the call path resolves is compared
with the one a fresh ``derive_spec`` + compile-cache lookup gives (the same object), and the
output with numpy's.
"""

from __future__ import annotations

import os

import layoutc as lc
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from layoutc.driver import clear_memory_cache, targets
from layoutc.driver.jit import compile_spec, resolve_call
from layoutc.driver.options import CompileOptions, OutputOptions
from layoutc.driver.targets import resolve_target
from layoutc.frontend.spec import SpecError

CI = os.environ.get("CI") == "true"
LENGTH = 64


@lc.kernel
def scaled_copy(src: lc.Tensor, dst: lc.Tensor, n: int, scale: lc.Constexpr):
    i = lc.block_idx.x * lc.block_dim.x + lc.thread_idx.x
    if i < n:
        dst[i] = src[i] * scale


@pytest.fixture(autouse=True)
def cpu_target(monkeypatch):
    monkeypatch.setenv("LAYOUTC_TARGET", "cpu")


def fresh_kernel(args, kwargs, block):
    """What a fresh derivation picks: the compiled kernel, or the error it raises."""
    try:
        spec, _ = scaled_copy.bind(args, kwargs, block)
    except SpecError as e:
        return ("error", type(e).__name__, str(e))
    return compile_spec(scaled_copy, spec, resolve_target("cpu"), CompileOptions(), OutputOptions())


# Bytes of one array's region: LENGTH elements of up to 8 bytes, every other one (stride 2),
# from an offset of up to 8 elements. Regions never overlap, so source and destination are
# distinct memory whatever the walk draws (an f8 source of stride 2 at an offset spans 1056).
REGION = 8 * (2 * LENGTH + 8)


class Buffers:
    """Arrays at chosen element offsets from a 64-byte boundary (so alignments vary), each in
    its own region of one buffer."""

    def __init__(self) -> None:
        self.raw = np.zeros(3 * REGION + 64, np.uint8)
        self.base = (-self.raw.ctypes.data) % 64

    def array(self, dtype: str, offset: int, step: int, start: int = 0) -> np.ndarray:
        dt = np.dtype(dtype)
        assert offset <= 8 and step <= 2
        lo = self.base + start * REGION + offset * dt.itemsize
        view = self.raw[lo : lo + LENGTH * step * dt.itemsize].view(dt)[::step]
        return view


def run_call(buffers, state):
    dtype, src_off, src_step, dst_off, n, scale, block, keywords = state
    src = buffers.array(dtype, src_off, src_step, start=0)
    dst = buffers.array(dtype, dst_off, 1, start=2)
    if dtype != "c8":
        src[:] = np.arange(LENGTH, dtype=dtype) - 7
        dst[:] = -99
    args, kwargs = (src, dst, n, scale), {}
    if keywords:
        args, kwargs = (src, dst), {"n": n, "scale": scale}
    bx = block[0] if isinstance(block, tuple) else block
    expected = fresh_kernel(args, dict(kwargs), block)
    try:
        resolved = resolve_call(scaled_copy, args, dict(kwargs), block)[0]
    except SpecError as e:
        resolved = ("error", type(e).__name__, str(e))
    assert resolved is expected or resolved == expected
    try:
        scaled_copy(*args, **kwargs, grid=-(-LENGTH // bx), block=block)
        outcome = None
    except SpecError as e:
        outcome = ("error", type(e).__name__, str(e))
    if isinstance(expected, tuple):
        assert outcome == expected  # refused, with the same error
        return
    assert outcome is None
    want = np.full(LENGTH, -99, dtype)
    want[:n] = (np.arange(n, dtype=dtype) - 7) * scale
    np.testing.assert_array_equal(dst, want)


@st.composite
def walks(draw):
    state = ["f4", 0, 1, 0, 48, 2, 32, False]
    choices = [
        st.sampled_from(["f4", "f4", "f8", "i4", "c8"]),  # dtype (c8: refused)
        st.sampled_from([0, 1, 2, 3, 4]),  # source offset in elements: alignment
        st.sampled_from([1, 1, 2]),  # source stride
        st.sampled_from([0, 2, 4]),  # destination offset
        st.sampled_from([0, 1, 3, 4, 8, 16, 48, 64]),  # n: divisibility
        st.sampled_from([2, 3, 2.0, -1, True]),  # the constant: value and type
        st.sampled_from([32, 64, (32,)]),  # block
        st.booleans(),  # n and scale by keyword
    ]
    out = [tuple(state)]
    for _ in range(draw(st.integers(3, 10))):
        field = draw(st.integers(0, len(state) - 1))
        state[field] = draw(choices[field])
        out.append(tuple(state))
    return out + out[::2]


@settings(
    max_examples=10 if CI else 20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(walk=walks())
def test_repeated_calls_launch_the_kernel_a_fresh_derivation_picks(walk):
    buffers = Buffers()
    for state in walk:
        run_call(buffers, state)


def test_the_fast_path_is_taken_and_forgets_with_the_memory_cache():
    buffers = Buffers()
    state = ("f4", 0, 1, 0, 48, 2, 32, False)
    run_call(buffers, state)
    assert len(scaled_copy.call_memo) == 1
    run_call(buffers, state)
    run_call(buffers, ("f4", 4, 1, 0, 48, 2, 32, False))  # another pointer, same alignment
    assert len(scaled_copy.call_memo) == 1
    clear_memory_cache()
    assert len(scaled_copy.call_memo) == 0
    run_call(buffers, state)  # recompiled; the memo now points at the new kernel


def test_a_replaced_compiled_kernel_is_what_direct_calls_use(tmp_path):
    """``lc.compile`` with dumps compiles again and replaces the in-memory kernel for the same
    spec; direct calls must then launch the new one, as a fresh lookup would."""
    buffers = Buffers()
    state = ("f4", 0, 1, 0, 16, 3, 32, False)
    run_call(buffers, state)
    src, dst = buffers.array("f4", 0, 1), buffers.array("f4", 0, 1, start=2)
    before = resolve_call(scaled_copy, (src, dst, 16, 3), {}, 32)[0]
    spec, _ = scaled_copy.bind((src, dst, 16, 3), {}, 32)
    replaced = compile_spec(
        scaled_copy,
        spec,
        resolve_target("cpu"),
        CompileOptions(),
        OutputOptions(dump_dir=tmp_path),
    )
    assert replaced is not before
    assert resolve_call(scaled_copy, (src, dst, 16, 3), {}, 32)[0] is replaced
    run_call(buffers, state)


def test_direct_calls_of_copy_1d_on_the_fake_gpu(monkeypatch):
    """The real sm_90 build of examples/copy_1d.py on the runtime's fake CUDA driver: pointer
    alignment and N change between calls; every call launches the kernel a fresh derivation
    picks, with the call's own pointers, and mismatched extents are refused alike."""
    import sys
    from pathlib import Path

    from layoutc.driver.loading import load_source

    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "tests" / "runtime"))
    import fake_driver as fake
    import torch_like
    from layoutc.runtime import cuda_driver
    from layoutc.runtime.cuda_memory import DeviceBuffer

    copy_1d = vars(load_source(root / "examples" / "copy_1d.py"))["copy_1d"]
    monkeypatch.setenv("LAYOUTC_TARGET", "sm_90")
    # The fake driver's GPU must not stay the process's answer to "is there a GPU?" (asked
    # once per process), or later sm_XX builds would ask the real driver for its version.
    monkeypatch.setattr(targets, "_gpu_present", None)
    previous = cuda_driver.use_driver(fake)
    fake.KERNELS["copy_1d"] = (["Q", "i", "Q", "i"], lambda values, grid, block: None)
    buffers = []

    def tensor(n, offset):
        buffer = DeviceBuffer(4 * (n + offset + 64))
        buffers.append(buffer)
        return torch_like.Tensor(buffer.ptr + 4 * offset, (n,))

    try:
        for n, off_src, off_dst in [
            (2048, 0, 0),
            (2048, 4, 0),  # another pointer of the same alignment: the same kernel
            (2048, 1, 0),  # 4-byte aligned source: another kernel
            (1040, 0, 2),
            (2048, 0, 0),
            (2048, 1, 0),
        ]:
            src, dst = tensor(n, off_src), tensor(n, off_dst)
            spec, _ = copy_1d.bind((src, dst), {}, 128)
            expected = compile_spec(
                copy_1d, spec, resolve_target("sm_90"), CompileOptions(), OutputOptions()
            )
            assert resolve_call(copy_1d, (src, dst), {}, 128)[0] is expected
            copy_1d(src, dst, grid=n // 1024, block=128)
            assert fake.launches[-1]["params"] == [src.data_ptr(), n, dst.data_ptr(), n]
        assert len(copy_1d.call_memo) == 3  # three kinds of call, the repeats found them
        src, dst = tensor(2048, 0), tensor(1024, 0)
        with pytest.raises(SpecError) as fast:
            copy_1d(src, dst, grid=2, block=128)
        with pytest.raises(SpecError) as fresh:
            copy_1d.bind((src, dst), {}, 128)
        assert str(fast.value) == str(fresh.value)
    finally:
        fake.KERNELS.pop("copy_1d", None)
        cuda_driver.use_driver(previous)
