"""A loaded GPU kernel that can be called like a function.

Everything that does not depend on the call's values (argument checks per parameter, the
parameter buffer and its pointer table, the function handle, the launch-bounds check of the
last block shape) is prepared once; a call binds the arguments into the reused parameter buffer
(packing.py: a repeated kind of array costs a probe and a pointer check) and issues one
``cuLaunchKernel`` with the buffer's ``void**`` table as an int, the cheapest form the
bindings accept (no per-call ctypes arrays or parameter tuples). A launch in thread block
clusters (the kernel's compiled cluster shape, or ``cluster=`` at launch) goes through
``cuLaunchKernelEx`` with the cluster-dimension launch attribute.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from . import cuda_driver as cd
from .abi import KernelSpec, Param
from .arrays import ArrayFacts
from .bounds import BoundsRecord
from .cuda_memory import DeviceBuffer
from .cuda_module import CudaModule, allow_non_portable_clusters, set_max_dynamic_smem
from .errors import ArgumentError
from .launch_config import (
    Dim3,
    check_block,
    check_smem,
    dim3,
    framework_stream,
    launch_cluster,
    non_portable,
    same_shape,
    stream_handle,
)
from .packing import ArgumentBinder
from .smem_need import smem_need_of

_DEFAULT_DYNAMIC_SMEM_LIMIT = 48 * 1024
_NEVER = object()  # matches no grid or block a caller passes


class CudaKernel:
    """``kernel(*args, grid=..., block=..., smem=..., stream=...)`` launches on the GPU.

    Arrays must live on the kernel's device, except numpy arrays (and other host arrays), which
    are copied in before and back after the launch; such a call synchronises the stream.
    Without ``stream=`` the launch goes on torch's current stream when torch uses CUDA in this
    process (``launch_config.framework_stream``), else on the legacy default stream.
    """

    def __init__(self, module: CudaModule, spec: KernelSpec) -> None:
        self.module = module
        self.spec = spec
        self.device = module.device
        self.function = module.function(spec.name)
        self.binder = ArgumentBinder(spec, "cuda", self.device.ordinal)
        self._ordinal = self.device.ordinal
        self._lock = threading.Lock()
        self._smem_allowed = _DEFAULT_DYNAMIC_SMEM_LIMIT
        self._launch = cd.api().cuLaunchKernel
        self._table = self.binder.buffer.table_address
        # (grid as given, block as given, grid dim3, block dim3) of the last launch
        self._last_shape: tuple[Any, Any, Dim3, Dim3] = (_NEVER, _NEVER, (1, 1, 1), (1, 1, 1))
        self._bind_fast = self.binder.bind_fast
        self._default_block = spec.launch_bounds.block
        self._default_smem = spec.dynamic_smem
        self._static_smem = spec.static_smem
        self._smem_need = smem_need_of(spec, self.binder)
        # the compiled cluster shape (None: clusters only when a launch asks for them)
        self._clusters: Dim3 | None = spec.cluster
        self._explicit_cluster = spec.explicit_cluster
        # (cluster as given, grid dim3, checked cluster shape) of the last cluster launch
        self._last_cluster: tuple[Any, Any, Dim3 | None] = (_NEVER, None, None)
        self._last_smem = -1  # the last smem= given as an int, checked (-1: none yet)
        # the last cuLaunchKernelEx configuration (key, CUlaunchConfig), built once per shape
        self._ex: tuple[tuple, Any] | None = None
        self._non_portable_allowed = False  # set once a launch needed clusters of > 8 blocks
        # Per-call staging state, only touched under the lock: the stream host arrays are copied
        # on and the device copies made, or None while the call staged nothing (the usual case).
        self._stream = 0
        self._staged: list[tuple[DeviceBuffer, ArrayFacts, int]] | None = None
        self._stager = self._stage_host_array

    @property
    def name(self) -> str:
        return self.spec.name

    def _allow_non_portable(self) -> None:
        """Opt the kernel into clusters of more than 8 blocks, once, before its first such
        launch (the driver refuses them otherwise)."""
        allow_non_portable_clusters(self.function, self.spec.name)
        self._non_portable_allowed = True

    def __call__(
        self,
        *args: Any,
        grid: Any,
        block: Any = None,
        smem: int | None = None,
        stream: Any = None,
        cluster: Any = None,
    ) -> None:
        shape = self._last_shape
        if (grid is shape[0] or same_shape(grid, shape[0])) and (
            block is shape[1] or same_shape(block, shape[1])
        ):  # the grid and block of the last launch (checked then)
            g, b = shape[2], shape[3]
        else:
            g, b = self._launch_shape(grid, block)
        clusters = self._clusters
        if cluster is not None or clusters is not None or self._explicit_cluster:
            last = self._last_cluster
            if last[1] == g and (cluster is last[0] or same_shape(cluster, last[0])):
                clusters = last[2]  # the cluster and grid of the last launch (checked then)
            else:
                clusters = self._cluster_shape(cluster, g)
        if smem is None:
            dyn = self._default_smem
        elif smem.__class__ is int and smem == self._last_smem:  # checked last time
            dyn = smem
        else:
            dyn = self._last_smem = check_smem(smem, self._static_smem, self.name)
        if dyn > self._smem_allowed:
            set_max_dynamic_smem(self.function, dyn, self.spec.name)
            self._smem_allowed = dyn
        handle = framework_stream(self._ordinal) if stream is None else stream_handle(stream)
        with self._lock:
            if self._bind_fast(args):
                keep: Sequence[object] = ()
                staged = None
            else:
                keep, staged = self._bind_checked(args, handle)
            if self._smem_need is not None:
                try:
                    dyn = self._smem_need(smem, self.binder.values)
                except ArgumentError:
                    for buf, _, _ in staged or ():
                        buf.free()
                    raise
                if dyn > self._smem_allowed:
                    set_max_dynamic_smem(self.function, dyn, self.spec.name)
                    self._smem_allowed = dyn
            self.device.activate()
            if clusters is not None:
                result = self._launch_in_clusters(g, b, clusters, dyn, handle)
            else:
                # The default stream goes as None: the bindings then build no CUstream object.
                result = self._launch(
                    self.function,
                    g[0],
                    g[1],
                    g[2],
                    b[0],
                    b[1],
                    b[2],
                    dyn,
                    handle or None,
                    self._table,
                    0,
                )
        if result[0]:  # CUDA_SUCCESS is 0 (the bindings' CUresult is an int)
            if staged:
                for buf, _, _ in staged:
                    buf.free()
            raise cd.error_for(result[0], _launching(self.spec.name, g, b, dyn, clusters))
        if staged:
            self._unstage(staged, handle)
        del keep

    def _cluster_shape(self, cluster: Any, g: Dim3) -> Dim3 | None:
        """The checked cluster shape of a launch of grid ``g``; remembered with ``cluster`` as
        given when that is None, an int or a tuple (which cannot change behind our back)."""
        clusters = launch_cluster(cluster, g, self.spec)
        if not self._non_portable_allowed and non_portable(clusters):
            self._allow_non_portable()
        if cluster.__class__ in (int, tuple, type(None)):
            self._last_cluster = (cluster, g, clusters)
        return clusters

    def _launch_in_clusters(self, g: Dim3, b: Dim3, clusters: Dim3, dyn: int, stream: int) -> Any:
        """``cuLaunchKernelEx`` with the configuration of the last cluster launch when nothing
        in it changed (the bindings' ``CUlaunchConfig`` and its attribute array cost several
        microseconds to build; under the lock)."""
        key = (g, b, clusters, dyn, stream)
        ex = self._ex
        if ex is None or ex[0] != key:
            ex = self._ex = (key, launch_config_ex(g, b, clusters, dyn, stream))
        return cd.api().cuLaunchKernelEx(ex[1], self.function, self._table, 0)

    def _bind_checked(
        self, args: tuple[Any, ...], stream: int
    ) -> tuple[Sequence[object], list[tuple[DeviceBuffer, ArrayFacts, int]] | None]:
        """The binder's full path (under the lock): ``(objects to keep alive, staged copies)``.
        Host arrays are copied to the device on ``stream``; a refused call frees its copies."""
        self._stream = stream
        self._staged = None
        try:
            keep = self.binder.bind_checked(args, self._stager, stream)
        except BaseException:
            self._free_staged()
            raise
        staged, self._staged = self._staged, None
        return keep, staged

    def _launch_shape(self, grid: Any, block: Any) -> tuple[Dim3, Dim3]:
        """Grid and block as checked dim3s; remembered when given as ints or tuples, which
        cannot change behind our back (a list could)."""
        name = self.spec.name
        g = dim3(grid, "grid", name)
        given = block
        if block is None:
            block = self._default_block
            if block is None:
                raise ArgumentError(f"kernel {name!r}: block= is required")
        b = dim3(block, "block", name)
        check_block(b, self.spec.launch_bounds, name)
        immutable = (int, tuple, type(None))
        if grid.__class__ in immutable and given.__class__ in immutable:
            self._last_shape = (grid, given, g, b)
        return g, b

    def _stage_host_array(self, facts: ArrayFacts, param: Param) -> int:
        """The binder's stager: copy a host array to the device (called under the lock)."""
        if self._staged is None:
            self._staged = []
        return self._stage(facts, param, self._stream, self._staged)

    def _free_staged(self) -> None:
        """Release the device copies of a call that was refused after staging some arrays."""
        staged, self._staged = self._staged, None
        for buf, _, _ in staged or ():
            buf.free()

    def _stage(self, facts: ArrayFacts, param: Param, stream: int, staged: list) -> int:
        if any(s < 0 for s in facts.strides):
            raise ArgumentError(
                f"kernel {self.spec.name!r}, argument {param.name!r}: host arrays with negative "
                "strides cannot be staged to the GPU; pass a device array"
            )
        from .dtypes import DTYPES

        if any(e == 0 for e in facts.shape):
            span = 0
        else:
            span = 1 + sum((e - 1) * s for e, s in zip(facts.shape, facts.strides))
        nbytes = span * DTYPES[param.dtype].itemsize
        buf = DeviceBuffer(nbytes, self.device)
        if nbytes:
            buf.copy_from_host(facts.ptr, nbytes, stream)
        staged.append((buf, facts, nbytes))
        return buf.ptr

    def _unstage(self, staged: list, stream: int) -> None:
        for buf, facts, nbytes in staged:
            flags = getattr(facts.keepalive, "flags", None)
            if nbytes and (flags is None or getattr(flags, "writeable", True)):
                buf.copy_to_host(facts.ptr, nbytes, stream)
        cd.check(cd.api().cuStreamSynchronize(stream), f"waiting for kernel {self.spec.name!r}")
        for buf, _, _ in staged:
            buf.free()

    def attribute(self, name: str) -> int:
        from .cuda_module import function_attribute

        return function_attribute(self.function, name)


class CheckedCudaKernel(CudaKernel):
    """A kernel compiled with the bounds check (docs/runtime.md, "The bounds check").

    Its last parameter points to a device copy of the bounds record: every launch writes the
    arguments' spans into it first and reads it back after the launch (synchronising the
    stream), then raises the ``OutOfBoundsError`` it describes. The unchecked ``CudaKernel``
    path is untouched.
    """

    def __init__(self, module: CudaModule, spec: KernelSpec) -> None:
        super().__init__(module, spec)
        self.bounds = BoundsRecord(spec)
        self._record = DeviceBuffer(self.bounds.nbytes, self.device)
        self.binder.values[-1] = self._record.ptr

    def __call__(
        self,
        *args: Any,
        grid: Any,
        block: Any = None,
        smem: int | None = None,
        stream: Any = None,
        cluster: Any = None,
    ) -> None:
        g, b = self._launch_shape(grid, block)
        clusters = launch_cluster(cluster, g, self.spec)
        if not self._non_portable_allowed and non_portable(clusters):
            self._allow_non_portable()
        dyn = self._default_smem if smem is None else check_smem(smem, self._static_smem, self.name)
        if dyn > self._smem_allowed:
            set_max_dynamic_smem(self.function, dyn, self.spec.name)
            self._smem_allowed = dyn
        handle = framework_stream(self._ordinal) if stream is None else stream_handle(stream)
        bounds = self.bounds
        with self._lock:
            keep, staged = self._bind_checked(args, handle)
            values = self.binder.values
            bounds.prepare(values, args, dyn)
            self.device.activate()
            self._record.copy_from_host(bounds.address, bounds.nbytes, handle)
            if clusters is not None:
                result = launch_in_clusters(self.function, g, b, clusters, dyn, handle, self._table)
            else:
                result = self._launch(self.function, *g, *b, dyn, handle or None, self._table, 0)
            if result[0]:
                for buf, _, _ in staged or ():
                    buf.free()
                raise cd.error_for(result[0], _launching(self.spec.name, g, b, dyn, clusters))
            self._record.copy_to_host(bounds.address, bounds.nbytes, handle)
            if staged:
                self._unstage(staged, handle)
            else:
                cd.check(
                    cd.api().cuStreamSynchronize(handle),
                    f"waiting for kernel {self.spec.name!r}'s bounds record",
                )
            failure = bounds.failure(values)
        del keep
        if failure is not None:
            raise failure


def _launching(name: str, g: Dim3, b: Dim3, dyn: int, clusters: Dim3 | None) -> str:
    where = f"launching kernel {name!r} grid={g} block={b} smem={dyn}"
    return where if clusters is None else f"{where} cluster={clusters}"


def launch_in_clusters(
    function: Any, g: Dim3, b: Dim3, cluster: Dim3, smem: int, stream: int, table: int
) -> Any:
    """``cuLaunchKernelEx`` with ``CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`` set to ``cluster``:
    the grid runs in thread block clusters of that shape (the kernel's ``.reqnctapercluster``
    one, or any shape for a kernel compiled without it). Returns the bindings' result tuple."""
    config = launch_config_ex(g, b, cluster, smem, stream)
    return cd.api().cuLaunchKernelEx(config, function, table, 0)


def launch_config_ex(g: Dim3, b: Dim3, cluster: Dim3, smem: int, stream: int) -> Any:
    """The ``CUlaunchConfig`` of a launch of grid ``g`` and block ``b`` in clusters of
    ``cluster`` (one launch attribute, the cluster dimension)."""
    drv = cd.api()
    config = drv.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = g
    config.blockDimX, config.blockDimY, config.blockDimZ = b
    config.sharedMemBytes = smem
    config.hStream = stream
    attr = drv.CUlaunchAttribute()
    attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    dim = attr.value.clusterDim
    dim.x, dim.y, dim.z = cluster
    config.attrs = [attr]
    config.numAttrs = 1
    return config


def load_kernel(
    image: bytes, kind: str, spec: KernelSpec, device: cd.Device | None = None
) -> CudaKernel:
    """Load ``image`` (cubin or PTX) and return its kernel ``spec.name`` ready to call."""
    module = CudaModule(image, kind, device, what=f"kernel {spec.name!r}")
    return kernel_in(module, spec)


def kernel_in(module: CudaModule, spec: KernelSpec) -> CudaKernel:
    """The callable kernel ``spec.name`` of a loaded module (checked if compiled with the
    bounds check)."""
    if spec.bounds_sites is not None:
        return CheckedCudaKernel(module, spec)
    return CudaKernel(module, spec)
