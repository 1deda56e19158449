"""A stand-in for ``cuda.bindings.driver`` so marshalling and loading run without a GPU.

"Device" memory is host memory; a launch reads the parameter table exactly as the real driver
would (``kernelParams``: an array of pointers to each value) and, for kernels registered in
``KERNELS``, runs a Python model of the kernel on that memory. Imports nothing but ctypes.
"""

from __future__ import annotations

import ctypes
import struct
from types import SimpleNamespace

SUCCESS = 0
ERR_NOT_FOUND = 500
ERR_INVALID_PTX = 218
ERR_UNSUPPORTED_PTX = 222
ERR_INVALID_CLUSTER_SIZE = 912
_NAMES = {
    ERR_INVALID_CLUSTER_SIZE: "CUDA_ERROR_INVALID_CLUSTER_SIZE",
    ERR_NOT_FOUND: "CUDA_ERROR_NOT_FOUND",
    ERR_INVALID_PTX: "CUDA_ERROR_INVALID_PTX",
    ERR_UNSUPPORTED_PTX: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
}

VERSION = 13000
CAPABILITY = (9, 0)
_buffers: dict[int, ctypes.Array] = {}
launches: list[dict] = []
loaded: list[tuple[str, bytes]] = []

#: name -> (struct formats of the parameters, model(values, grid, block))
KERNELS: dict[str, tuple[list[str], object]] = {}

CUdevice_attribute = SimpleNamespace(
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="major",
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="minor",
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK="max_threads",
)
CUjit_option = SimpleNamespace(
    CU_JIT_INFO_LOG_BUFFER=3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES=4,
    CU_JIT_ERROR_LOG_BUFFER=5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES=6,
)
CUfunction_attribute = SimpleNamespace(
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES="max_dyn_smem",
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED="non_portable_cluster",
    CU_FUNC_ATTRIBUTE_NUM_REGS="regs",
)
CUpointer_attribute = SimpleNamespace(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL="ordinal")


def cuGetErrorName(err):
    return SUCCESS, _NAMES.get(int(err), f"CUDA_ERROR_{int(err)}").encode()


def cuGetErrorString(err):
    return SUCCESS, b"fake driver error"


def cuInit(flags):
    return (SUCCESS,)


def cuDriverGetVersion():
    return SUCCESS, VERSION


def cuDeviceGetCount():
    return SUCCESS, 1


def cuDeviceGet(i):
    return (SUCCESS, i) if i == 0 else (101,)


def cuDeviceGetAttribute(attr, dev):
    return SUCCESS, {"major": CAPABILITY[0], "minor": CAPABILITY[1], "max_threads": 1024}[attr]


def cuDeviceGetName(n, dev):
    return SUCCESS, b"Fake GPU\0"


def cuDevicePrimaryCtxRetain(dev):
    return SUCCESS, "ctx0"


def cuCtxSetCurrent(ctx):
    return (SUCCESS,)


def cuCtxSynchronize():
    return (SUCCESS,)


def cuStreamSynchronize(stream):
    return (SUCCESS,)


class Module:
    def __init__(self, image: bytes) -> None:
        self.image = image


def cuModuleLoadData(image):
    loaded.append(("cubin", bytes(image)))
    return SUCCESS, Module(bytes(image))


def cuModuleLoadDataEx(image, n, options, values):
    loaded.append(("ptx", bytes(image)))
    if b".version 9.5" in image:
        log = b"ptxas fatal: Unsupported .version 9.5; current version is '9.0'\0"
        err_buf = values[options.index(CUjit_option.CU_JIT_ERROR_LOG_BUFFER)]
        err_buf[: len(log)] = log
        return (ERR_UNSUPPORTED_PTX,)
    return SUCCESS, Module(bytes(image))


def cuModuleGetFunction(module, name):
    if name.decode() not in module.image.decode(errors="replace"):
        return (ERR_NOT_FOUND,)
    return SUCCESS, SimpleNamespace(name=name.decode(), module=module)


def cuModuleUnload(module):
    return (SUCCESS,)


def cuFuncSetAttribute(fn, attr, value):
    """Kept on the function (``fn.attributes``): a launch reads what it needs of them."""
    vars(fn).setdefault("attributes", {})[attr] = value
    return (SUCCESS,)


def cuFuncGetAttribute(attr, fn):
    return SUCCESS, 32


def cuMemAlloc(n):
    """Host memory, aligned to 256 bytes as every CUDA allocation is."""
    buf = (ctypes.c_char * (n + 256))()
    ptr = (ctypes.addressof(buf) + 255) & ~255
    _buffers[ptr] = buf
    return SUCCESS, ptr


def cuMemFree(ptr):
    _buffers.pop(int(ptr), None)
    return (SUCCESS,)


def cuMemcpyHtoDAsync(dst, src, n, stream):
    ctypes.memmove(dst, src, n)
    return (SUCCESS,)


def cuMemcpyDtoHAsync(dst, src, n, stream):
    ctypes.memmove(dst, src, n)
    return (SUCCESS,)


def cuMemcpyDtoDAsync(dst, src, n, stream):
    ctypes.memmove(dst, src, n)
    return (SUCCESS,)


def cuMemsetD8Async(ptr, value, n, stream):
    ctypes.memset(ptr, value, n)
    return (SUCCESS,)


def cuPointerGetAttribute(attr, ptr):
    return SUCCESS, 0


def read_params(table: int, formats: list[str]) -> list:
    """Read each parameter through the ``void**`` table, as cuLaunchKernel does."""
    pointers = (ctypes.c_void_p * len(formats)).from_address(table)
    out = []
    for ptr, fmt in zip(pointers, formats):
        size = struct.calcsize(fmt)
        out.append(struct.unpack(fmt, ctypes.string_at(ptr, size))[0])
    return out


def cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
    record = {
        "name": f.name,
        "grid": (gx, gy, gz),
        "block": (bx, by, bz),
        "smem": smem,
        "stream": 0 if stream is None else stream,  # None is the default stream, as for CUDA
    }
    if f.name in KERNELS:
        formats, model = KERNELS[f.name]
        record["params"] = read_params(params, formats)
        model(record["params"], (gx, gy, gz), (bx, by, bz))
    launches.append(record)
    return (SUCCESS,)


class CUlaunchAttributeID:
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4


class CUlaunchAttribute:
    """The bindings' attribute: ``id`` and a ``value`` union (only ``clusterDim`` here)."""

    def __init__(self) -> None:
        self.id = None
        self.value = SimpleNamespace(clusterDim=SimpleNamespace(x=0, y=0, z=0))


class CUlaunchConfig:
    def __init__(self) -> None:
        self.gridDimX = self.gridDimY = self.gridDimZ = 0
        self.blockDimX = self.blockDimY = self.blockDimZ = 0
        self.sharedMemBytes = 0
        self.hStream = 0
        self.attrs: list = []
        self.numAttrs = 0


def cuLaunchKernelEx(config, f, params, extra):
    """Records the attributes it is given (``cluster``: the cluster dimension), then launches
    as ``cuLaunchKernel``. Clusters of more than 8 blocks are refused, as the driver refuses
    them, unless the function allowed non-portable cluster sizes."""
    attrs = {}
    for a in config.attrs[: config.numAttrs]:
        if a.id == CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            d = a.value.clusterDim
            attrs["cluster"] = (d.x, d.y, d.z)
            allowed = vars(f).get("attributes", {}).get("non_portable_cluster", 0)
            if d.x * d.y * d.z > 8 and not allowed:
                return (ERR_INVALID_CLUSTER_SIZE,)
    grid = (config.gridDimX, config.gridDimY, config.gridDimZ)
    block = (config.blockDimX, config.blockDimY, config.blockDimZ)
    result = cuLaunchKernel(f, *grid, *block, config.sharedMemBytes, config.hStream, params, extra)
    launches[-1].update(attrs)
    return result


def copy_model(values, grid, block):
    """The grid-stride copy kernel: dst[i] = src[i] for i < n (f32)."""
    src, dst, n = values
    ctypes.memmove(dst, src, 4 * n)


KERNELS["copy"] = (["Q", "Q", "i"], copy_model)
