"""``@layoutc.kernel``: a Python function that layoutc traces into a GPU kernel.

A :class:`Kernel` knows its parameters and their annotations; :meth:`Kernel.specialize` derives
the compile spec of a call (the cache key), and :func:`.trace.trace` turns a spec into IR. Calling
a kernel (``k(x, y, grid=..., block=...)``) is the driver's job: it registers itself with
:func:`set_launcher`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from collections.abc import Callable
from types import FunctionType
from typing import Any

from .call_key import CallMemo, CallPlan
from .errors import CompileError
from .spec import KernelSpec, SpecError, derive_spec, normalize_block
from .tracebacks import api_boundary

_LAUNCHER: Callable[..., Any] | None = None


_STATE: Any = None


def _load_state() -> Any:
    """The tracing state module, imported on first call (it pulls in the IR core)."""
    global _STATE
    from . import state

    _STATE = state
    return state


def set_launcher(launcher: Callable[..., Any]) -> None:
    """Install the function that compiles and launches kernels on call (the driver's)."""
    global _LAUNCHER
    _LAUNCHER = launcher


class Kernel:
    """A kernel function: traced per spec, compiled and launched by the driver."""

    def __init__(
        self,
        fn: FunctionType,
        *,
        block: Any = None,
        name: str | None = None,
        min_blocks_per_sm: int | None = None,
        index_bitwidth: int | str | None = None,
        cluster: Any = None,
        max_cluster_size: int | None = None,
    ):
        if not isinstance(fn, FunctionType):
            raise TypeError(f"@layoutc.kernel needs a Python function, got {fn!r}")
        if min_blocks_per_sm is not None and (
            not isinstance(min_blocks_per_sm, int)
            or isinstance(min_blocks_per_sm, bool)
            or min_blocks_per_sm < 1
        ):
            raise TypeError(
                f"@layoutc.kernel(min_blocks_per_sm=...) needs a positive int, got "
                f"{min_blocks_per_sm!r}"
            )
        self.min_blocks_per_sm = min_blocks_per_sm
        if index_bitwidth not in (None, 32, 64, "auto"):
            raise TypeError(
                f"@layoutc.kernel(index_bitwidth=...) must be 32, 64 or 'auto', got "
                f"{index_bitwidth!r}"
            )
        self.index_bitwidth = index_bitwidth
        """The kernel's default ``index_bitwidth`` compile option (None: the driver's)."""
        self.cluster = _cluster_option(cluster)
        """The compiled cluster shape (PTX ``.explicitcluster`` + ``.reqnctapercluster``),
        ``"explicit"`` (``.explicitcluster`` alone: launched in clusters of a shape the launch
        chooses) or None."""
        self.max_cluster_size = _max_cluster_option(max_cluster_size, self.cluster)
        """Blocks a launch's cluster may have at most (PTX ``.maxclusterrank``), or None."""
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name = name or fn.__name__
        self.default_block = normalize_block(block)
        self.signature = inspect.signature(fn)
        self._annotations: dict[str, Any] | None = None
        self._rewritten: Any = None
        self._lock = threading.Lock()
        self._call_plan: CallPlan | None = None
        self.call_memo = CallMemo()
        """Call keys (call_key.py) of recent direct calls -> what the driver launched for them."""

    @property
    def annotations(self) -> dict[str, Any]:
        """Parameter annotations, evaluated (also under ``from __future__ import annotations``)."""
        if self._annotations is None:
            try:
                anns = inspect.get_annotations(self.fn, eval_str=True)
            except Exception as e:
                raise CompileError(
                    f"cannot evaluate the annotations of kernel '{self.name}': "
                    f"{type(e).__name__}: {e}"
                ) from None
            self._annotations = {k: v for k, v in anns.items() if k != "return"}
        return self._annotations

    def call_key(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], block: Any = None, salt: Any = None
    ) -> tuple[tuple | None, tuple | None]:
        """``(key, values)``: the call key of these arguments (None when they cannot be keyed;
        equal keys mean equal specs; ``salt`` is added to it) and the arguments in parameter
        order (None when they do not bind without ``inspect``)."""
        plan = self._call_plan
        if plan is None:
            plan = self._call_plan = CallPlan(self.signature, self.annotations)
        return plan.key(args, kwargs, block, salt)

    def rewritten(self) -> Any:
        """The AST-rewritten function (built once, on first trace)."""
        with self._lock:
            if self._rewritten is None:
                from .rewrite import rewrite_kernel

                self._rewritten = rewrite_kernel(self.fn)
            return self._rewritten

    @api_boundary
    def specialize(self, *args: Any, block: Any = None, **kwargs: Any) -> KernelSpec:
        """The compile spec for calling the kernel with these arguments (arrays are inspected
        for dtype, layout, divisibility and alignment; nothing is traced)."""
        return self.bind(args, kwargs, block)[0]

    def bind(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        block: Any = None,
        facts: Callable[[Any], Any] | None = None,
    ) -> tuple[KernelSpec, dict[str, Any]]:
        """``(spec, bound arguments by name)``; ``facts`` overrides array introspection."""
        try:
            return derive_spec(
                self.signature,
                self.annotations,
                args,
                kwargs,
                block if block is not None else self.default_block,
                facts,
            )
        except SpecError as e:
            raise SpecError(f"kernel '{self.name}': {e}") from None

    @api_boundary
    def trace(self, spec: KernelSpec, name: str | None = None) -> Any:
        """``(module, kernel name, KernelABI)`` for ``spec``."""
        from .trace import trace

        return trace(self, spec, name)

    @api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        state = _STATE or _load_state()
        if state.active() is not None:
            raise state.error(
                f"not supported: calling kernel '{self.name}' from a kernel being traced; "
                "decorate shared code with @layoutc.func and call that instead"
            )
        if _LAUNCHER is None:
            with contextlib.suppress(ImportError):
                import layoutc.driver  # noqa: F401  (registers the launcher when it exists)
        if _LAUNCHER is None:
            raise CompileError(
                f"not supported yet: calling kernel '{self.name}' directly needs the driver "
                "(compile + launch), which is not available in this build; use "
                "kernel.specialize(...) and kernel.trace(spec) to get its IR"
            )
        return _LAUNCHER(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<layoutc.kernel {self.name}>"


#: Blocks in one cluster at most: Hopper's non-portable size (launches of more than the portable
#: 8 opt in with ``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED``; runtime/launch_config.py)
MAX_CLUSTER_BLOCKS = 16


def _cluster_option(cluster: Any) -> tuple[int, int, int] | str | None:
    """``@lc.kernel(cluster=...)``: up to three positive ints (a cluster of at most 16 blocks:
    more than 8 is a non-portable size, which the launch opts into), ``"explicit"`` or None."""
    if cluster is None or cluster == "explicit":
        return cluster
    dims = tuple(cluster) if isinstance(cluster, (tuple, list)) else (cluster,)
    dims = dims + (1,) * (3 - len(dims))
    if (
        len(dims) != 3
        or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims)
        or dims[0] * dims[1] * dims[2] > MAX_CLUSTER_BLOCKS
    ):
        raise TypeError(
            "@layoutc.kernel(cluster=...) needs up to three positive ints with a product of "
            f"at most {MAX_CLUSTER_BLOCKS} (Hopper's non-portable cluster size; 8 is portable) "
            f"or 'explicit', got {cluster!r}"
        )
    return dims  # type: ignore[return-value]


def _max_cluster_option(n: Any, cluster: Any) -> int | None:
    """``@lc.kernel(max_cluster_size=N)``: 1 to 16 blocks; PTX forbids ``.maxclusterrank``
    next to ``.reqnctapercluster``, so not with a fixed shape."""
    if n is None:
        return None
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CLUSTER_BLOCKS:
        raise TypeError(
            f"@layoutc.kernel(max_cluster_size=...) needs an int from 1 to "
            f"{MAX_CLUSTER_BLOCKS}, got {n!r}"
        )
    if isinstance(cluster, tuple):
        raise TypeError(
            f"@layoutc.kernel(max_cluster_size={n}) with the fixed cluster={cluster}: a fixed "
            "shape already sets the cluster's size (PTX forbids .maxclusterrank next to "
            ".reqnctapercluster)"
        )
    return n


def kernel(
    fn: FunctionType | None = None,
    *,
    block: Any = None,
    name: str | None = None,
    min_blocks_per_sm: int | None = None,
    index_bitwidth: int | str | None = None,
    cluster: Any = None,
    max_cluster_size: int | None = None,
) -> Any:
    """Decorator: ``@lc.kernel`` or ``@lc.kernel(block=256, min_blocks_per_sm=2)``.

    ``min_blocks_per_sm`` is the second half of CUDA's ``__launch_bounds__``: the compiler
    limits registers so that many blocks fit on one SM (PTX ``.minnctapersm``).
    ``index_bitwidth`` is the kernel's default for the compile option of that name (32, 64 or
    ``"auto"``: 32 where the spec proves every offset fits); ``lc.compile(...,
    index_bitwidth=...)`` overrides it. ``cluster`` (sm_90) is CUDA's ``__cluster_dims__``:
    blocks are launched in clusters of that shape (PTX ``.explicitcluster`` and
    ``.reqnctapercluster``; the grid must be a multiple of it); ``cluster="explicit"``: every
    launch must give a shape (``kernel(..., cluster=2)``; PTX ``.explicitcluster``); without
    it, a launch may choose a shape or none. ``max_cluster_size`` (the third argument of CUDA's
    ``__launch_bounds__``, PTX ``.maxclusterrank``) caps the blocks of a launch's cluster.
    The CPU runtime runs a cluster's blocks together, as the GPU does."""
    options = {
        "block": block,
        "name": name,
        "min_blocks_per_sm": min_blocks_per_sm,
        "index_bitwidth": index_bitwidth,
        "cluster": cluster,
        "max_cluster_size": max_cluster_size,
    }
    if fn is None:
        return lambda f: Kernel(f, **options)
    return Kernel(fn, **options)
