"""TMA descriptors at launch (runtime/tma.py): rules refused with the rule and the value, the
driver's encoder called with TMA's argument conventions, and a cache that does not encode a
descriptor twice. A fake driver stands in for cuda-bindings; the GPU test encodes for real."""

from __future__ import annotations

import types

import pytest
from layoutc.runtime import cuda_driver, tma
from layoutc.runtime.errors import ArgumentError


class FakeTensorMapDriver(types.SimpleNamespace):
    """cuTensorMapEncodeTiled recording its calls and returning 16 distinct words."""

    def __init__(self):
        ns = types.SimpleNamespace
        super().__init__(
            calls=[],
            cuuint32_t=int,
            cuuint64_t=int,
            CUtensorMapDataType=ns(**{v: v for v in tma.DATA_TYPES.values()}),
            CUtensorMapSwizzle=ns(**{v: v for v in tma.SWIZZLES.values()}),
            CUtensorMapInterleave=ns(CU_TENSOR_MAP_INTERLEAVE_NONE="none"),
            CUtensorMapL2promotion=ns(CU_TENSOR_MAP_L2_PROMOTION_L2_128B="l2_128"),
            CUtensorMapFloatOOBfill=ns(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE="zero"),
        )

    def cuTensorMapEncodeTiled(self, *args):
        self.calls.append(args)
        words = [len(self.calls) * 1000 + i for i in range(16)]
        return (0, types.SimpleNamespace(opaque=words))


@pytest.fixture
def fake():
    drv = FakeTensorMapDriver()
    previous = cuda_driver.use_driver(drv)
    yield drv
    cuda_driver.use_driver(previous)


BOX = tma.TmaBox("bf16", (64, 8), 128)


def test_the_driver_gets_tmas_conventions(fake):
    data = tma.encode_tiled(BOX, 0x10000, (4096, 512), (2, 8192))
    (call,) = fake.calls
    dtype, rank, addr, dims, strides, box, estr, inter, swz, l2, oob = call
    assert (inter, l2) == ("none", "l2_128")
    assert (dtype, rank, addr) == ("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 2, 0x10000)
    assert (dims, strides, box, estr) == ([4096, 512], [8192], [64, 8], [1, 1])
    assert (swz, oob) == ("CU_TENSOR_MAP_SWIZZLE_128B", "zero")
    assert len(data) == 128 and data[:8] == (1000).to_bytes(8, "little")


def test_the_cache_encodes_each_tensor_once(fake):
    cache = tma.TmaDescriptorCache()
    a = cache.get("A", BOX, 0x10000, (4096, 512), (2, 8192))
    b = cache.get("A", BOX, 0x10000, (4096, 512), (2, 8192))
    assert a is b and cache.encodes == 1 and len(fake.calls) == 1
    c = cache.get("A", BOX, 0x20000, (4096, 512), (2, 8192))  # another pointer
    d = cache.get("A", BOX, 0x10000, (4096, 256), (2, 8192))  # other extents
    e = cache.get("A", BOX, 0x10000, (4096, 512), (2, 16384))  # other strides
    assert cache.encodes == 4 and len({a, c, d, e}) == 4


@pytest.mark.parametrize(
    ("box", "addr", "extents", "strides", "message"),
    [
        (BOX, 0x10008, (64, 8), (2, 128), r"global address must be 16-byte aligned, got 0x10008"),
        (BOX, 0x10000, (64, 8), (2, 136), r"multiples of 16 below 2\^40; dimension 1 has 136"),
        (BOX, 0x10000, (64, 8), (4, 128), r"dimension 0 must be contiguous \(stride 2 bytes\)"),
        (
            tma.TmaBox("f32", (300, 1)),
            0x10000,
            (512, 8),
            (4, 2048),
            r"box extents must be in \[1, 256\]; dimension 0 is 300",
        ),
        (
            tma.TmaBox("f32", (3, 1)),
            0x10000,
            (512, 8),
            (4, 2048),
            r"inner extent must be a multiple of 16 bytes, got 12",
        ),
        (
            tma.TmaBox("f32", (64, 8), 64),
            0x10000,
            (512, 8),
            (4, 2048),
            r"with a 64-byte swizzle the box's inner extent must be at most 64 bytes, got 256",
        ),
    ],
)
def test_rules_are_refused_with_the_rule_and_the_value(fake, box, addr, extents, strides, message):
    with pytest.raises(ArgumentError, match=message):
        tma.TmaDescriptorCache().get("A", box, addr, extents, strides)
    assert fake.calls == []


def test_the_runtime_layer_imports_no_compiler():
    import subprocess
    import sys

    code = (
        "import sys; import layoutc.runtime.tma; "
        "bad = [m for m in ('sympy', 'llvmlite', 'layoutc.ir', 'layoutc.passes', "
        "'layoutc.frontend') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.gpu
def test_encoding_a_real_descriptor():
    import torch

    x = torch.zeros((256, 128), dtype=torch.bfloat16, device="cuda")
    cache = tma.TmaDescriptorCache()
    data = cache.get("x", BOX, x.data_ptr(), (128, 256), (2, 256))
    assert len(data) == 128 and cache.get("x", BOX, x.data_ptr(), (128, 256), (2, 256)) is data
