"""A stand-in with torch.Tensor's attribute surface, so the torch fast path runs without torch.

The runtime recognises torch tensors by their class's module (``torch...``) and reads
``data_ptr()``, ``shape``, ``stride()``, ``dtype`` and ``get_device()``; this class offers exactly
those, over memory it does not own (a numpy array or a fake-driver allocation).
"""

from __future__ import annotations


class TorchDtype:
    """Prints like ``torch.float32`` (the runtime maps dtypes by that text)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


float32 = TorchDtype("float32")
float16 = TorchDtype("float16")
int32 = TorchDtype("int32")
complex64 = TorchDtype("complex64")


class Tensor:
    """``Tensor(ptr, shape, strides, dtype, device)``: ``device`` is -1 (CPU) or a CUDA ordinal."""

    def __init__(
        self,
        ptr: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...] | None = None,
        dtype: TorchDtype = float32,
        device: int = 0,
    ) -> None:
        self.ptr = ptr
        self.shape = tuple(shape)
        if strides is None:
            strides, acc = [], 1
            for extent in reversed(self.shape):
                strides.insert(0, acc)
                acc *= max(extent, 1)
        self.strides = tuple(strides)
        self.dtype = dtype
        self.device = device

    def data_ptr(self) -> int:
        return self.ptr

    def stride(self) -> tuple[int, ...]:
        return self.strides

    def get_device(self) -> int:
        return self.device


Tensor.__module__ = "torch_like"
