"""Loading GPU code into a context and finding its kernels.

cubin is preferred; PTX is JIT-compiled by the driver, and when that fails the driver's JIT
error log is part of the exception, because "CUDA_ERROR_INVALID_PTX" alone helps nobody.
"""

from __future__ import annotations

from typing import Any

from . import cuda_driver as cd
from .errors import CudaError

_LOG_BYTES = 16384


class CudaModule:
    """A loaded module (cubin or PTX) on one device."""

    def __init__(
        self, image: bytes, kind: str, device: cd.Device | None = None, what: str = ""
    ) -> None:
        if kind not in ("cubin", "ptx"):
            raise ValueError(f"module image kind must be 'cubin' or 'ptx', not {kind!r}")
        self.device = device or cd.current_device()
        self.kind = kind
        self.what = what or f"a {kind} module"
        self.jit_log = ""
        self.device.activate()
        drv = cd.api()
        if kind == "ptx":
            data = image if image.endswith(b"\0") else image + b"\0"
            self.handle = self._load_ptx(drv, data)
        else:
            self.handle = cd.check(drv.cuModuleLoadData(image), f"loading {self.what} (cubin)")
        self._functions: dict[str, Any] = {}

    def _load_ptx(self, drv: Any, data: bytes) -> Any:
        opt = drv.CUjit_option
        info, error = bytearray(_LOG_BYTES), bytearray(_LOG_BYTES)
        options = [
            opt.CU_JIT_INFO_LOG_BUFFER,
            opt.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            opt.CU_JIT_ERROR_LOG_BUFFER,
            opt.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ]
        values = [info, _LOG_BYTES, error, _LOG_BYTES]
        result = drv.cuModuleLoadDataEx(data, len(options), options, values)
        self.jit_log = _c_string(info)
        if int(result[0]) != 0:
            base = cd.error_for(
                result[0], f"JIT-compiling {self.what} from PTX (cuModuleLoadDataEx)"
            )
            log = _c_string(error).strip()
            raise CudaError(
                base.code,
                base.name,
                base.description + (f"\nJIT error log:\n{log}" if log else ""),
                base.doing,
            )
        return result[1]

    def function(self, name: str) -> Any:
        """The ``CUfunction`` called ``name`` (cached)."""
        fn = self._functions.get(name)
        if fn is None:
            self.device.activate()
            fn = cd.check(
                cd.api().cuModuleGetFunction(self.handle, name.encode()),
                f"looking up kernel {name!r} in {self.what}",
            )
            self._functions[name] = fn
        return fn

    def unload(self) -> None:
        if self.handle is not None:
            handle, self.handle = self.handle, None
            self.device.activate()
            cd.check(cd.api().cuModuleUnload(handle), f"unloading {self.what}")


def _c_string(buf: bytearray) -> str:
    return bytes(buf).split(b"\0", 1)[0].decode(errors="replace")


def function_attribute(fn: Any, name: str) -> int:
    """A ``CU_FUNC_ATTRIBUTE_*`` value by suffix (``NUM_REGS``, ``MAX_THREADS_PER_BLOCK``...)."""
    drv = cd.api()
    attr = getattr(drv.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    return int(cd.check(drv.cuFuncGetAttribute(attr, fn), f"reading kernel attribute {name}"))


def allow_non_portable_clusters(fn: Any, kernel: str) -> None:
    """Let ``fn`` launch in clusters of more than 8 blocks (up to 16 on Hopper): the driver
    refuses such a launch unless the kernel opted in
    (``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED``)."""
    drv = cd.api()
    attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    cd.check(
        drv.cuFuncSetAttribute(fn, attr, 1),
        f"allowing non-portable cluster sizes (more than 8 blocks) for kernel {kernel!r}",
    )


def set_max_dynamic_smem(fn: Any, nbytes: int, kernel: str) -> None:
    """Allow launches of ``fn`` with up to ``nbytes`` of dynamic shared memory (opt-in > 48 KiB)."""
    drv = cd.api()
    attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    cd.check(
        drv.cuFuncSetAttribute(fn, attr, nbytes),
        f"allowing {nbytes} bytes of dynamic shared memory for kernel {kernel!r}",
    )
