"""Narrow float data for the CPU runtime, which numpy cannot hold: the bit patterns in an
unsigned integer array, exported through DLPack with the narrow type's code."""

from __future__ import annotations

import numpy as np
from layoutc.runtime import dlpack


class Bits:
    """``bits`` (uint8/uint16 array) seen as DLPack type ``(code, bits)``."""

    def __init__(self, bits: np.ndarray, code: int):
        self.bits, self.code, self.shape = bits, code, bits.shape

    def __dlpack__(self, stream=None, **kwargs):
        capsule = self.bits.__dlpack__()
        dlpack.read_capsule(capsule).dtype.code = self.code
        return capsule

    def __dlpack_device__(self):
        return self.bits.__dlpack_device__()


def bf16(values: np.ndarray) -> tuple[Bits, np.ndarray]:
    """(bf16 data rounded toward zero from ``values``, its exact float64 values)."""
    bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    exact = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return Bits(bits, 4), exact  # kDLBfloat
