"""A stand-in with torch.Tensor's attribute surface, so the torch fast path runs without torch.

The runtime recognises torch tensors by their class's module (``torch...``) and reads
``data_ptr()``, ``shape``, ``stride()``, ``dtype``, ``is_cuda``, ``is_cpu``, ``get_device()`` and
``device``; this class offers exactly those, over memory it does not own (a numpy array or a
fake-driver allocation).
"""

from __future__ import annotations

from types import SimpleNamespace


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
    """``Tensor(ptr, shape, strides, dtype, device)``: ``device`` is ``"cpu"``, a CUDA ordinal,
    or another torch device type (``"mps"``)."""

    def __init__(
        self,
        ptr: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...] | None = None,
        dtype: TorchDtype = float32,
        device: int | str = 0,
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
        self._device = device

    def data_ptr(self) -> int:
        return self.ptr

    def stride(self) -> tuple[int, ...]:
        return self.strides

    @property
    def is_cuda(self) -> bool:
        return isinstance(self._device, int)

    @property
    def is_cpu(self) -> bool:
        return self._device == "cpu"

    def get_device(self) -> int:
        return self._device if isinstance(self._device, int) else -1

    @property
    def device(self) -> SimpleNamespace:
        if isinstance(self._device, int):
            return SimpleNamespace(type="cuda", index=self._device)
        return SimpleNamespace(type=self._device, index=None)


Tensor.__module__ = "torch_like"
