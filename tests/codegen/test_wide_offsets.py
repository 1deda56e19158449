"""Element offsets past 2^31 are computed in a width that holds them, on the GPU and the CPU.

Issue 14: ``A[40000, 5] = 1.0`` on ``(65536,65536):(65536,1)`` emitted ``add.s64 ..., -6694109164``
(the offset wrapped through an i32 GEP constant). Constant GEP indices are i32 in MLIR's LLVM
dialect; a larger offset must be an index operand, and a 32-bit index type must provably hold
every offset (compile error for static layouts, launch-time check for dynamic ones).
"""

from __future__ import annotations

import os
import re

import layoutc as lc
import numpy as np
import pytest
from layoutc.codegen.cubin import nvjitlink_version
from layoutc.ir.core.block import Block
from layoutc.ir.core.types import f32
from layoutc.ir.dialects.llvm.memory_ops import GEPOp, fits_gep_constant
from layoutc.ir.dialects.llvm.types import LLVMPointerType
from layoutc.runtime.abi import KernelSpec, Param
from layoutc.runtime.errors import ArgumentError
from layoutc.runtime.packing import ArgumentBinder


@lc.kernel
def store_far(A: lc.Tensor[lc.f32, "(65536,65536):(65536,1)"]):  # noqa: F722
    A[40000, 5] = 1.0


FAR = 40000 * 65536 + 5  # 2621440005 > 2^31


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptx_offset_of_a_far_static_element_is_exact(arch):
    ck = lc.compile(store_far, lc.spec("f32[(65536,65536):(65536,1)]"), target=arch, block=1)
    adds = re.findall(r"add\.s64\s+%rd\d+, %rd\d+, (-?\d+);", ck.ptx)
    assert adds == [str(FAR * 4)]  # bytes, positive: no wrap through 32 bits
    assert f"i64 {FAR}" in ck.llvm_ir
    if nvjitlink_version() is not None:
        assert ck.cubin[:4] == b"\x7fELF"


S = (1 << 31) + 8  # a row stride past 2^31 bytes and elements (i8)


@lc.kernel
def store_far_i8(A: lc.Tensor[lc.i8, "(2,8):(2147483656,1)"]):  # noqa: F722
    A[1, 5] = 7


def test_cpu_writes_the_far_element_not_a_wrapped_one(tmp_path):
    # A sparse file: only the two touched pages take memory.
    buf = np.memmap(os.path.join(tmp_path, "sparse"), dtype=np.int8, mode="w+", shape=(S + 8,))
    a = np.lib.stride_tricks.as_strided(buf, shape=(2, 8), strides=(S, 1))
    lc.compile(store_far_i8, a, target="cpu", block=1)(a, grid=1)
    assert buf[S + 5] == 7
    assert not buf[:8].any()
    del a, buf


@pytest.mark.parametrize("index", [1 << 31, -(1 << 31), 1 << 40, -(1 << 33)])
def test_gep_constants_that_do_not_fit_i32_are_refused(index):
    base = Block([LLVMPointerType(1)]).args[0]
    assert not fits_gep_constant(index)
    with pytest.raises(ValueError, match="does not fit in i32"):
        GEPOp(base, [index], f32)
    assert GEPOp(base, [(1 << 31) - 1], f32).indices == [(1 << 31) - 1]


def test_32_bit_index_refuses_a_static_layout_past_2_31():
    with pytest.raises(lc.CompileError, match="reach 4294967295, past the 32-bit index"):
        lc.compile(
            store_far,
            lc.spec("f32[(65536,65536):(65536,1)]"),
            target="sm_90",
            block=1,
            index_bitwidth=32,
        )


def test_32_bit_index_checks_dynamic_layouts_at_launch():
    spec = KernelSpec(
        "k",
        (
            Param("x", "pointer", "f32", layout="(?):(?)", dynamic=("n", "s")),
            Param("n", "scalar", "i32"),
            Param("s", "scalar", "i32"),
        ),
        index_bits=32,
    )
    binder = ArgumentBinder(spec, "cpu")
    one = np.zeros(1, np.float32)
    ok = np.lib.stride_tricks.as_strided(one, shape=(2,), strides=(4 * ((1 << 31) - 1),))
    binder.bind([ok])  # the largest offset is 2^31 - 1: fits
    far = np.lib.stride_tricks.as_strided(one, shape=(3,), strides=(4 << 30,))
    with pytest.raises(ArgumentError, match=r"offsets reach 2147483648, past 2147483647"):
        binder.bind([far])
    assert KernelSpec.from_json(spec.to_json()).index_bits == 32
