"""The CUDA driver, reached through ``cuda.bindings.driver`` and nothing else.

Initialisation is lazy (the first call that needs the GPU runs ``cuInit``); every device uses
its primary context, retained on first use and made current per thread. Every failing call
becomes a ``CudaError`` that names the driver's error and what layoutc was doing.

Tests substitute a fake driver module with ``use_driver`` to exercise marshalling without a
GPU; nothing else in the runtime touches the bindings directly.
"""

from __future__ import annotations

import threading
from typing import Any

from .errors import CudaError, CudaUnavailableError

_driver: Any = None
_lock = threading.RLock()
_initialized = False
_devices: dict[int, Device] = {}
_local = threading.local()


def api() -> Any:
    """The driver bindings module (imported on first use)."""
    global _driver
    if _driver is None:
        try:
            from cuda.bindings import driver
        except ImportError as e:
            raise CudaUnavailableError(
                "the CUDA runtime needs the 'cuda-bindings' package (pip install cuda-bindings)"
            ) from e
        _driver = driver
    return _driver


def use_driver(module: Any) -> Any:
    """Replace the driver bindings (testing hook); returns the previous module. Resets state."""
    global _driver, _initialized
    with _lock:
        previous, _driver, _initialized = _driver, module, False
        _devices.clear()
        _local.__dict__.clear()
    return previous


def error_for(err: Any, doing: str) -> CudaError:
    """A ``CudaError`` for driver result ``err`` (name and text from the driver itself)."""
    drv = api()
    code = int(err)
    name = getattr(err, "name", None) or f"CUDA error {code}"
    text = ""
    try:
        e2, s = drv.cuGetErrorName(err)
        if int(e2) == 0 and s:
            name = s.decode() if isinstance(s, bytes) else str(s)
        e2, s = drv.cuGetErrorString(err)
        if int(e2) == 0 and s:
            text = s.decode() if isinstance(s, bytes) else str(s)
    except Exception:  # the error text is best effort; the code and name are always there
        pass
    return CudaError(code, name, text or "no description from the driver", doing)


def check(result: Any, doing: str) -> Any:
    """Unpack a bindings result tuple: raise on error, return the value(s) after the code."""
    err = result[0]
    if int(err) != 0:
        raise error_for(err, doing)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def init() -> None:
    """``cuInit`` once per process; a clear error when no driver or device is present."""
    global _initialized
    if _initialized:
        return
    with _lock:
        if _initialized:
            return
        drv = api()
        try:
            check(drv.cuInit(0), "initialising the CUDA driver (cuInit)")
        except CudaError as e:
            raise CudaUnavailableError(
                f"CUDA unavailable: no usable GPU: {e}; {_WHAT_TO_DO}"
            ) from e
        except Exception as e:  # the bindings load libcuda on first use: no driver installed
            raise CudaUnavailableError(_driver_missing(e)) from e
        _initialized = True


_WHAT_TO_DO = (
    "install the NVIDIA driver on a machine with a GPU, or run on the CPU (target='cpu', "
    "'layoutc run --target cpu')"
)


def _driver_missing(error: Exception) -> str:
    """The message for a driver library that cannot be loaded (cuda-pathfinder's errors and the
    OSError of older bindings alike), naming the library the bindings looked for."""
    detail = str(error).strip() or type(error).__name__
    return (
        "CUDA unavailable: the NVIDIA driver library (libcuda) could not be loaded "
        f"({type(error).__name__}: {detail}); {_WHAT_TO_DO}"
    )


def driver_version() -> int:
    """``cuDriverGetVersion``: 1000*major + 10*minor of the CUDA version the driver supports."""
    init()
    return int(check(api().cuDriverGetVersion(), "querying the CUDA driver version"))


def device_count() -> int:
    init()
    return int(check(api().cuDeviceGetCount(), "counting CUDA devices"))


class Device:
    """One GPU and its primary context."""

    def __init__(self, ordinal: int) -> None:
        drv = api()
        self.ordinal = ordinal
        self.handle = check(drv.cuDeviceGet(ordinal), f"opening CUDA device {ordinal}")
        attr = drv.CUdevice_attribute
        major = check(
            drv.cuDeviceGetAttribute(
                attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.handle
            ),
            f"reading the compute capability of device {ordinal}",
        )
        minor = check(
            drv.cuDeviceGetAttribute(
                attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.handle
            ),
            f"reading the compute capability of device {ordinal}",
        )
        self.capability = (int(major), int(minor))
        self._context: Any = None

    @property
    def name(self) -> str:
        raw = check(api().cuDeviceGetName(256, self.handle), "reading the device name")
        return raw.split(b"\0", 1)[0].decode() if isinstance(raw, bytes) else str(raw)

    def attribute(self, name: str) -> int:
        """A ``CU_DEVICE_ATTRIBUTE_*`` value by its suffix (e.g. ``MAX_THREADS_PER_BLOCK``)."""
        drv = api()
        attr = getattr(drv.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
        return int(check(drv.cuDeviceGetAttribute(attr, self.handle), f"reading {name}"))

    @property
    def context(self) -> Any:
        if self._context is None:
            with _lock:
                if self._context is None:
                    self._context = check(
                        api().cuDevicePrimaryCtxRetain(self.handle),
                        f"retaining the primary context of device {self.ordinal}",
                    )
        return self._context

    def activate(self) -> None:
        """Make this device's primary context current on the calling thread."""
        if getattr(_local, "current", None) is not self:
            check(api().cuCtxSetCurrent(self.context), f"activating device {self.ordinal}")
            _local.current = self

    def synchronize(self) -> None:
        self.activate()
        check(api().cuCtxSynchronize(), f"synchronising device {self.ordinal}")

    def __repr__(self) -> str:
        return f"Device({self.ordinal}, sm_{self.capability[0]}{self.capability[1]})"


def get_device(ordinal: int | None = None) -> Device:
    """Device ``ordinal`` (default: the current device of this thread, initially 0)."""
    init()
    if ordinal is None:
        ordinal = getattr(_local, "selected", 0)
    dev = _devices.get(ordinal)
    if dev is None:
        with _lock:
            dev = _devices.get(ordinal)
            if dev is None:
                count = device_count()
                if not 0 <= ordinal < count:
                    raise CudaUnavailableError(
                        f"CUDA device {ordinal} does not exist ({count} device(s) present)"
                    )
                dev = _devices[ordinal] = Device(ordinal)
    return dev


def set_device(ordinal: int) -> Device:
    """Select the device that later calls on this thread use by default."""
    dev = get_device(ordinal)
    _local.selected = ordinal
    dev.activate()
    return dev


def current_device() -> Device:
    return get_device(None)


def pointer_device(ptr: int) -> int:
    """The ordinal of the device owning device pointer ``ptr``."""
    drv = api()
    get_device(None).activate()
    value = check(
        drv.cuPointerGetAttribute(drv.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr),
        f"finding the device of pointer {ptr:#x}",
    )
    return int(value)
