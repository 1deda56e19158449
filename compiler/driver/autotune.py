"""``layoutc.autotune``: pick the fastest of several configurations of a kernel, per problem.

As Triton's ``@triton.autotune``: the first call with a new *key* (the values of the named
arguments: an array's shape and element type, a scalar's value) compiles every configuration
in parallel, launches each once (an optional ``check`` may reject its output), times it and
keeps the fastest; later calls with that key launch the choice directly. The choice is stored
in the on-disk compile cache (an authenticated entry, compiler/driver/cache.py), keyed by the
kernel's identity (its source and the configurations), the key, the target and the compiler's
version, so a new process does not tune again.

Two forms::

    @lc.autotune(configs=[lc.Config(tile=512, block=128), lc.Config(tile=1024, block=256)],
                 key=["x"])
    @lc.kernel
    def scale(x, y, tile: lc.Constexpr): ...
    scale(x, y, grid=lambda meta: x.size // meta["tile"])

    tuned = lc.autotune(configs=[GemmConfig(bm=128), GemmConfig(bm=256)], key=["a", "b"],
                        block=lambda cfg: cfg.threads)(make_gemm)      # config -> kernel
    tuned(a, b, c, grid=lambda meta: meta["config"].grid(M, N))

Compiling in parallel: the configurations go to a pool of worker processes (as many as the
machine's cores, compiler/driver/workers.py). A worker rebuilds the kernel
from its module (by import, or from its file) and the configuration (pickled), compiles it for
the argument facts the parent derived (plain data: shapes, strides, element types, pointer
alignment), and sends back the compiled code as a cache entry (bytes), which the parent adopts
under its own cache key. Timing happens in the calling process: CUDA events after warm-up
launches, rotating through copies of the array arguments so that successive launches do not
find their inputs in L2, median of the repeats; the CPU runtime's launches by wall clock, the
fastest of the repeats.

With ``ray=`` (``"local"`` or an address) each configuration is instead compiled, checked and
timed by a Ray task holding one GPU (one CPU on the CPU target): a cluster's GPUs tune in
parallel, and the winner's compiled code comes back to be launched here.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import pickle
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .progress import Progress

ENTRY_KIND = "layoutc-autotune"


class AutotuneError(RuntimeError):
    """Every configuration failed (the message lists each one and why)."""


class AutotuneWarning(UserWarning):
    """A configuration failed to compile, to launch or its check, and was skipped."""


class Config:
    """One configuration of a tuned ``@layoutc.kernel``: values of its compile-time parameters,
    the block, and compile options (``opt_level``, ``index_bitwidth``, ...), e.g.
    ``lc.Config(tile=1024, block=256, index_bitwidth=32)``."""

    __slots__ = ("block", "kwargs", "options")

    def __init__(self, block: Any = None, **values: Any) -> None:
        from .options import CompileOptions

        names = set(CompileOptions.names())
        self.block = block
        self.kwargs = {k: v for k, v in values.items() if k not in names}
        self.options = {k: v for k, v in values.items() if k in names}

    def __getstate__(self) -> tuple:
        return (self.block, self.kwargs, self.options)

    def __setstate__(self, state: tuple) -> None:
        self.block, self.kwargs, self.options = state

    def __repr__(self) -> str:
        items = {**self.kwargs, **({"block": self.block} if self.block is not None else {})}
        items.update(self.options)
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in items.items()) + ")"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))


@dataclass
class Measurement:
    """What tuning found for one configuration."""

    index: int
    config: str
    status: str = "ok"
    """``ok``, ``compile failed``, ``launch failed`` or ``check failed``."""
    reason: str = ""
    seconds: float = float("nan")
    compile_seconds: float = float("nan")
    samples: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "config": self.config,
            "status": self.status,
            "reason": self.reason,
            "seconds": self.seconds,
            "compile_seconds": self.compile_seconds,
        }

    @classmethod
    def from_json(cls, data: dict) -> Measurement:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data and k != "samples"})


@dataclass
class Tuning:
    """The outcome for one key."""

    best: int
    rows: list[Measurement]
    cached: bool = False
    """Read from the on-disk cache (no configuration was compiled or timed in this process)."""
    seconds: float = 0.0


def autotune(
    configs: Sequence[Any],
    key: Sequence[str] = (),
    *,
    check: Callable[[dict], Any] | None = None,
    prepare: Callable[[dict], Any] | None = None,
    block: Any = None,
    options: dict[str, Any] | None = None,
    warmup: int | None = None,
    repeat: int | None = None,
    rotate: bool = True,
    workers: int | None = None,
    ray: str | None = None,
    cache: bool = True,
) -> Callable[[Any], Autotuner]:
    """Decorator: tune a ``@layoutc.kernel`` over :class:`Config`s, or a kernel builder (a
    function ``config -> kernel``) over any configurations it accepts.

    ``key``: names of the arguments whose values select a tuning (arrays: shape and element
    type; other values as they are). ``check(meta)``: called after a configuration's first
    launch with ``meta`` (the arguments by name, the configuration's values, ``config``); a
    false result or an exception rejects the configuration. ``prepare(meta)``: called before
    that launch (poison the outputs there, so that a configuration which skips elements fails
    the check). ``block``: the block of a builder's kernels, an int or ``config -> block``
    (default: the kernel's own). ``options``: compile options of every configuration
    (``index_bitwidth=32``; a :class:`Config`'s own win). ``warmup``/``repeat``:
    launches before and while timing (default 3/20 on a GPU, 1/7 on the CPU). ``rotate``: time
    on copies of the array arguments in turn (GPU). ``workers``: compile processes (default:
    the machine's cores; 1 compiles in this process); ``ray``: compile, check and time each
    configuration on a Ray task holding one GPU (``"local"`` or an address).
    ``cache=False``: neither read nor store choices on disk.
    """
    configs = list(configs)
    if not configs:
        raise ValueError("autotune needs at least one configuration")

    def wrap(obj: Any) -> Autotuner:
        return Autotuner(
            obj,
            configs,
            tuple(key),
            check=check,
            prepare=prepare,
            block=block,
            options=dict(options or {}),
            warmup=warmup,
            repeat=repeat,
            rotate=rotate,
            workers=workers,
            ray=ray,
            cache=cache,
        )

    return wrap


class Autotuner:
    """A tuned kernel: call it as the kernel (``grid``, ``block``, ``smem`` and ``stream`` may
    be functions of ``meta``); ``table()`` shows what tuning measured."""

    def __init__(
        self,
        obj: Any,
        configs: list[Any],
        key: tuple[str, ...],
        *,
        check: Callable[[dict], Any] | None,
        prepare: Callable[[dict], Any] | None,
        block: Any,
        options: dict[str, Any],
        warmup: int | None,
        repeat: int | None,
        rotate: bool,
        workers: int | None,
        ray: str | None,
        cache: bool,
    ) -> None:
        from layoutc.frontend.kernel import Kernel

        if isinstance(obj, Kernel):
            self.kernel, self.builder = obj, None
            configs = [c if isinstance(c, Config) else Config(**c) for c in configs]
        elif callable(obj):
            self.kernel, self.builder = None, obj
        else:
            raise TypeError(f"autotune needs a @layoutc.kernel or a kernel builder, got {obj!r}")
        self.configs = configs
        self.key = key
        self.check, self.prepare = check, prepare
        self.block = block
        self.options = options
        self.warmup, self.repeat, self.rotate = warmup, repeat, rotate
        self.workers, self.ray, self.use_cache = workers, ray, cache
        self.tunings: dict[tuple, Tuning] = {}
        self.last_key: tuple | None = None
        self._kernels: dict[int, Any] = {}
        self._compiled: dict[tuple, Any] = {}
        fn = obj.fn if self.kernel is not None else obj
        self.name = getattr(obj, "name", None) or getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __repr__(self) -> str:
        return f"<layoutc.autotune {self.name}: {len(self.configs)} configurations>"

    # -- the configurations -------------------------------------------------------------------
    def kernel_of(self, index: int) -> Any:
        """The kernel of configuration ``index`` (built once)."""
        found = self._kernels.get(index)
        if found is None:
            if self.builder is None:
                found = self.kernel
            else:
                found = self.builder(self.configs[index])
                from layoutc.frontend.kernel import Kernel

                if not isinstance(found, Kernel):
                    raise TypeError(
                        f"the builder {self.name} returned {found!r} for {self.configs[index]!r},"
                        " not a @layoutc.kernel"
                    )
            self._kernels[index] = found
        return found

    def _launch_values(self, index: int) -> tuple[dict[str, Any], Any, dict[str, Any]]:
        """``(constexpr values, block, compile options)`` of configuration ``index``."""
        config = self.configs[index]
        if isinstance(config, Config):
            block = config.block
            if block is None:
                block = self.block(config) if callable(self.block) else self.block
            return config.kwargs, block, {**self.options, **config.options}
        block = self.block(config) if callable(self.block) else self.block
        return {}, block, dict(self.options)

    # -- calling ----------------------------------------------------------------------------
    def __call__(
        self,
        *args: Any,
        grid: Any,
        block: Any = None,
        smem: Any = None,
        stream: Any = None,
        target: Any = None,
        **kwargs: Any,
    ) -> None:
        from .jit import _default_target
        from .targets import resolve_target

        build_target = _default_target()[0] if target is None else resolve_target(target)
        bound = self._bind(args, kwargs)
        tune_key = self._key(bound, build_target)
        tuning = self.tunings.get(tune_key)
        if tuning is None:
            tuning = self._tune(tune_key, bound, build_target, grid, block, smem, stream)
        self.last_key = tune_key
        ck, meta = self._compiled_for(tuning.best, bound, build_target)
        launch = _resolve_launch(meta, grid, block, smem, stream)
        ck.launch_bound(self._all_args(ck, bound, tuning.best), *launch)

    def best_config(self, *args: Any, target: Any = None, **kwargs: Any) -> Any:
        """The configuration chosen for these arguments (None if not tuned yet)."""
        from .jit import _default_target
        from .targets import resolve_target

        build_target = _default_target()[0] if target is None else resolve_target(target)
        tuning = self.tunings.get(self._key(self._bind(args, kwargs), build_target))
        return None if tuning is None else self.configs[tuning.best]

    def _bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        signature = self.kernel_of(0).signature
        constants: set[str] = set()  # every value some configuration sets
        for i in range(len(self.configs)):
            constants.update(self._launch_values(i)[0])
        params = [p for p in signature.parameters.values() if p.name not in constants]
        try:
            bound = signature.replace(parameters=params).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"autotuned kernel '{self.name}': {e}") from None
        bound.apply_defaults()
        missing = [k for k in self.key if k not in bound.arguments]
        if missing:
            raise TypeError(
                f"autotuned kernel '{self.name}': key names {', '.join(missing)}, which is not "
                f"an argument (its arguments: {', '.join(bound.arguments)})"
            )
        return dict(bound.arguments)

    def _key(self, bound: dict[str, Any], target: Any) -> tuple:
        return (*(_key_value(bound[k]) for k in self.key), target.key())

    def _all_args(self, ck: Any, bound: dict[str, Any], index: int) -> dict[str, Any]:
        return {**bound, **self._launch_values(index)[0]}

    def _compiled_for(self, index: int, bound: dict, target: Any) -> tuple[Any, dict]:
        """The compiled kernel of configuration ``index`` for these arguments, and ``meta``."""
        from .jit import compile_spec
        from .options import CompileOptions, OutputOptions

        values, block, options = self._launch_values(index)
        kernel = self.kernel_of(index)
        spec = kernel.bind((), {**bound, **values}, block)[0]
        memo = (index, spec.key, target.key())
        ck = self._compiled.get(memo)
        if ck is None:
            ck = compile_spec(kernel, spec, target, CompileOptions(**options), OutputOptions())
            self._compiled[memo] = ck
        meta = {**bound, **values, "config": self.configs[index]}
        if block is not None:
            meta.setdefault("block", block)
        return ck, meta

    # -- tuning -------------------------------------------------------------------------------
    def _tune(
        self,
        tune_key: tuple,
        bound: dict,
        target: Any,
        grid: Any,
        block: Any,
        smem: Any,
        stream: Any,
    ) -> Tuning:
        stored = self._load(tune_key)
        if stored is not None:
            self.tunings[tune_key] = stored
            self._maybe_print(stored)
            return stored
        start = time.perf_counter()
        rows = [Measurement(i, repr(c)) for i, c in enumerate(self.configs)]
        entries = None
        if self.ray is not None:
            try:
                entries = self._tune_on_ray(rows, bound, target, grid, block, smem)
            except _NotShippable as e:
                warnings.warn(
                    f"autotune '{self.name}': tuning here, not on Ray: {e}",
                    AutotuneWarning,
                    stacklevel=3,
                )
                rows = [Measurement(i, repr(c)) for i, c in enumerate(self.configs)]
        if entries is None:
            self._compile_all(rows, bound, target)
            self._time_all(rows, bound, target, grid, block, smem, stream)
        good = [r for r in rows if r.status == "ok"]
        if not good:
            lines = "\n".join(f"  {r.config}: {r.status}: {r.reason}" for r in rows)
            raise AutotuneError(f"autotune '{self.name}': every configuration failed:\n{lines}")
        best = min(good, key=lambda r: (r.seconds, r.index)).index
        if entries is not None:  # the winner's code, compiled on the cluster
            values, cfg_block, options = self._launch_values(best)
            job = (None, {**bound, **values}, cfg_block, options)
            _adopt(self.kernel_of(best), bound, job, target, entries[best])
        tuning = Tuning(best, rows, seconds=time.perf_counter() - start)
        self.tunings[tune_key] = tuning
        self._store(tune_key, tuning)
        self._maybe_print(tuning)
        return tuning

    def _compile_all(self, rows: list[Measurement], bound: dict, target: Any) -> None:
        """Compile every configuration (in parallel where it can), marking failures."""
        from .cache import default_cache

        jobs: dict[int, Any] = {}
        for row in rows:
            try:
                values, block, options = self._launch_values(row.index)
                kernel = self.kernel_of(row.index)
                spec_args = {**bound, **values}
                kernel.bind((), spec_args, block)  # spec errors show here, before any work
                jobs[row.index] = (kernel, spec_args, block, options)
            except Exception as e:
                _fail(row, "compile failed", e, self.name)
        from .workers import in_worker

        workers = 1 if in_worker() else self.workers or _default_workers()
        parallel = len(jobs) > 1 and workers > 1 and default_cache().enabled
        payloads = {}
        if parallel:
            for i in jobs:
                try:
                    payloads[i] = self._job(i, bound, target)
                except _NotShippable:
                    payloads.clear()
                    break
        progress = Progress(len(jobs), f"autotune {self.name}: compiling")
        if payloads:
            entries = _run_compile_jobs(list(payloads.values()), workers, progress)
            for i, (ok, value, seconds) in zip(payloads, entries):
                rows[i].compile_seconds = seconds
                if not ok:
                    _fail(rows[i], "compile failed", value, self.name)
                    jobs.pop(i)
                    continue
                try:  # when not adopted, the loop below compiles it here
                    _adopt(jobs[i][0], bound, jobs[i], target, value)
                except Exception as e:  # tracing it here failed
                    _fail(rows[i], "compile failed", e, self.name)
                    jobs.pop(i)
        for i in list(jobs):
            start = time.perf_counter()
            try:
                self._compiled_for(i, bound, target)
            except Exception as e:
                _fail(rows[i], "compile failed", e, self.name)
                jobs.pop(i)
            if not payloads:
                rows[i].compile_seconds = time.perf_counter() - start
                progress()

    def _job(self, index: int, bound: dict, target: Any) -> tuple:
        """What a worker needs to rebuild and compile configuration ``index`` (plain data)."""
        values, block, options = self._launch_values(index)
        obj = self.kernel if self.builder is None else self.builder
        ref = _reference(obj.fn if self.builder is None else obj)
        config = None
        if self.builder is not None:
            try:
                config = pickle.dumps(self.configs[index])
            except Exception as e:
                raise _NotShippable(str(e)) from None
        args = {k: _shippable(v) for k, v in {**bound, **values}.items()}
        return (ref, self.builder is not None, config, args, block, target.name, options)

    def _time_all(
        self,
        rows: list[Measurement],
        bound: dict,
        target: Any,
        grid: Any,
        block: Any,
        smem: Any,
        stream: Any,
    ) -> None:
        good = [r for r in rows if r.status == "ok"]
        progress = Progress(len(good), f"autotune {self.name}: timing")
        copies = _rotating_copies(bound) if self.rotate and target.is_gpu else [bound]
        for row in good:
            values = self._launch_values(row.index)[0]
            try:
                ck, meta = self._compiled_for(row.index, bound, target)
                launch = _resolve_launch(meta, grid, block, smem, stream)
            except Exception as e:
                _fail(row, "launch failed", e, self.name)
                progress()
                continue
            status, reason, samples = measure_config(
                ck, meta, [{**c, **values} for c in copies], launch, target, self._how()
            )
            if status != "ok":
                _fail(row, status, reason, self.name)
            else:
                row.samples, row.seconds = samples, summarize(samples, target)
            progress()

    def _how(self) -> dict[str, Any]:
        """How to check and time a configuration (what a remote worker needs too)."""
        return {
            "check": self.check,
            "prepare": self.prepare,
            "warmup": self.warmup,
            "repeat": self.repeat,
            "rotate": self.rotate,
        }

    def _tune_on_ray(
        self,
        rows: list[Measurement],
        bound: dict,
        target: Any,
        grid: Any,
        block: Any,
        smem: Any,
    ) -> dict[int, tuple]:
        """Compile, check and time every configuration as a Ray task holding one GPU (or one
        CPU for the CPU target): the cluster's GPUs tune in parallel. Returns the compiled
        code of each configuration that worked (to adopt the winner's)."""
        from .library import ray_session

        jobs = {}
        for row in rows:
            values, cfg_block, options = self._launch_values(row.index)
            try:
                self.kernel_of(row.index).bind((), {**bound, **values}, cfg_block)
                ship = self._job(row.index, bound, target)
            except _NotShippable:
                raise
            except Exception as e:
                _fail(row, "compile failed", e, self.name)
                continue
            ref, is_builder, _, _, _, target_name, _ = ship
            try:
                config = pickle.dumps(self.configs[row.index])
            except Exception as e:
                raise _NotShippable(str(e)) from None
            jobs[row.index] = {
                "ref": ref,
                "builder": is_builder,
                "config": config,
                "args": {k: _depart(v) for k, v in bound.items()},
                "values": values,
                "block": cfg_block,
                "target": target_name,
                "options": options,
                "launch": (grid, block, smem),
                "how": self._how(),
            }
        stop = ray_session(self.ray)
        import ray

        entries: dict[int, tuple] = {}
        try:
            resources = {"num_gpus": 1} if target.is_gpu else {"num_cpus": 1}
            task = ray.remote(**resources)(tune_job)
            refs = {i: task.remote(job) for i, job in jobs.items()}
            progress = Progress(len(refs), f"autotune {self.name}: tuning on Ray")
            for i, ref in refs.items():
                try:
                    out = ray.get(ref)
                except Exception as e:  # the task could not run (e.g. unpickling its job)
                    message = str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)
                    out = {"status": "compile failed", "reason": message, "compile_seconds": 0.0}
                progress()
                rows[i].compile_seconds = out["compile_seconds"]
                if out["status"] != "ok":
                    _fail(rows[i], out["status"], out["reason"], self.name)
                    continue
                rows[i].samples = out["samples"]
                rows[i].seconds = summarize(out["samples"], target)
                entries[i] = out["entry"]
        finally:
            stop()
        return entries

    # -- the on-disk choice -------------------------------------------------------------------
    def _disk_key(self, tune_key: tuple) -> str:
        from .versioning import compiler_version

        fn = self.kernel.fn if self.builder is None else self.builder
        try:
            source = inspect.getsource(fn)
        except (OSError, TypeError):
            source = ""
        identity = {
            "kind": ENTRY_KIND,
            "name": getattr(fn, "__qualname__", self.name),
            "file": getattr(inspect.getmodule(fn), "__file__", None) or "",
            "source": hashlib.sha256(source.encode()).hexdigest(),
            "configs": [repr(c) for c in self.configs],
            "key": repr(tune_key),
            "compiler": compiler_version(),
            "check": self.check is not None,
            "options": sorted(self.options.items()),
        }
        text = json.dumps(identity, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def _load(self, tune_key: tuple) -> Tuning | None:
        from .cache import default_cache

        cache = default_cache()
        if not self.use_cache or not cache.enabled:
            return None
        entry = cache.get(self._disk_key(tune_key))
        if entry is None or entry.meta.get("kind") != ENTRY_KIND:
            return None
        best = entry.meta.get("best")
        if not isinstance(best, int) or not 0 <= best < len(self.configs):
            return None
        if entry.meta.get("config") != repr(self.configs[best]):
            return None
        try:
            rows = [Measurement.from_json(r) for r in entry.meta.get("rows", [])]
        except (TypeError, KeyError):
            rows = []
        if best >= len(rows) or rows[best].status != "ok":
            return None
        return Tuning(best, rows, cached=True)

    def _store(self, tune_key: tuple, tuning: Tuning) -> None:
        from .cache import CacheEntry, default_cache

        cache = default_cache()
        if not self.use_cache or not cache.enabled:
            return
        meta = {
            "kind": ENTRY_KIND,
            "best": tuning.best,
            "config": repr(self.configs[tuning.best]),
            "rows": [r.to_json() for r in tuning.rows],
        }
        cache.put(self._disk_key(tune_key), CacheEntry(json.loads(json.dumps(meta)), {}))

    # -- reporting ----------------------------------------------------------------------------
    def table(self, key: tuple | None = None) -> str:
        """The measurements of the last tuning (or of ``key``): one row per configuration."""
        tuning = self.tunings.get(key if key is not None else self.last_key)  # type: ignore[arg-type]
        if tuning is None:
            return f"autotune '{self.name}': not tuned yet"
        return format_table(self.name, tuning)

    def _maybe_print(self, tuning: Tuning) -> None:
        if os.environ.get("LAYOUTC_AUTOTUNE_PRINT", "").strip() not in ("", "0"):
            print(format_table(self.name, tuning), file=sys.stderr)


def format_table(name: str, tuning: Tuning) -> str:
    from .timing import format_seconds

    best = tuning.rows[tuning.best].seconds if tuning.rows else float("nan")
    head = ("", "config", "time", "vs best", "compile", "status")
    body = []
    for r in tuning.rows:
        ok = r.status == "ok"
        body.append(
            (
                "*" if r.index == tuning.best else "",
                r.config,
                format_seconds(r.seconds) if ok else "",
                f"{r.seconds / best:.2f}x" if ok and best > 0 else "",
                format_seconds(r.compile_seconds),
                r.status if ok else f"{r.status}: {r.reason.splitlines()[0] if r.reason else ''}",
            )
        )
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = [f"autotune '{name}'" + (" (cached choice)" if tuning.cached else "")]
    lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip())
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in body]
    return "\n".join(lines)


# -- helpers ------------------------------------------------------------------------------------


class _NotShippable(Exception):
    """A configuration or argument that cannot go to another process."""


def _fail(row: Measurement, status: str, why: Any, name: str) -> None:
    row.status = status
    row.reason = str(why).strip() or type(why).__name__
    first = row.reason.splitlines()[0]
    warnings.warn(
        f"autotune '{name}': {row.config} skipped: {status}: {first}", AutotuneWarning, stacklevel=4
    )


def _default_workers() -> int:
    from .library import default_jobs

    return default_jobs()


def _key_value(value: Any) -> Any:
    from layoutc.runtime.arrays import array_facts

    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, tuple):
        return tuple(_key_value(v) for v in value)
    try:
        facts = array_facts(value)
    except ValueError:
        facts = None
    if facts is not None:
        return (facts.dtype, tuple(facts.shape))
    return repr(value)


def _shippable(value: Any) -> Any:
    """An argument as plain data: arrays become their facts (pointer, shape, strides, type)."""
    from dataclasses import replace

    from layoutc.runtime.arrays import array_facts

    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    try:
        facts = array_facts(value)
    except ValueError:
        facts = None
    if facts is not None:
        return replace(facts, keepalive=None)
    try:
        pickle.dumps(value)
    except Exception as e:
        raise _NotShippable(str(e)) from None
    return value


def _reference(fn: Any) -> tuple[str, str, str]:
    """``(module name, file, qualified name)`` of a module-level function."""
    qualname = getattr(fn, "__qualname__", "")
    if "<locals>" in qualname or not qualname:
        raise _NotShippable(f"{fn!r} is not defined at module level")
    module = getattr(fn, "__module__", "") or ""
    if module in ("__main__", "__mp_main__"):  # a worker would have to run the script again
        raise _NotShippable(f"{fn!r} is defined in the script being run")
    file = inspect.getsourcefile(fn) or ""
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if isinstance(found, Autotuner):
        found = found.kernel.fn if found.builder is None else found.builder
    if getattr(found, "fn", found) is not fn:  # a worker would not find the same function
        raise _NotShippable(f"{module}.{qualname} does not name {fn!r}")
    return module, str(Path(file).resolve()) if file else "", qualname


def _resolve_reference(ref: tuple[str, str, str]) -> Any:
    """The object ``_reference`` named, in a worker: imported, or loaded from its file."""
    module_name, file, qualname = ref
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            if not file:
                raise
            spec = importlib.util.spec_from_file_location(module_name, file)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            folder = str(Path(file).parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            spec.loader.exec_module(module)
    value: Any = module
    for part in qualname.split("."):
        value = getattr(value, part)
    if isinstance(value, Autotuner):
        value = value.kernel if value.builder is None else value.builder
    return value


def compile_job(job: tuple) -> tuple[bool, Any, float]:
    """Compile one configuration in a worker: ``(True, (meta, files), seconds)`` with the
    cache entry's parts, or ``(False, message, seconds)``."""
    from layoutc.runtime.arrays import ArrayFacts

    from .jit import compile_spec
    from .options import CompileOptions, OutputOptions
    from .stored import to_entry
    from .targets import resolve_target

    start = time.perf_counter()
    ref, is_builder, config, args, block, target, options = job
    try:
        obj = _resolve_reference(ref)
        kernel = obj(pickle.loads(config)) if is_builder else obj
        spec = kernel.bind(
            (), args, block, facts=lambda v: v if isinstance(v, ArrayFacts) else None
        )[0]
        ck = compile_spec(
            kernel, spec, resolve_target(target), CompileOptions(**options), OutputOptions()
        )
        entry = to_entry(ck.products)
        traced = _traced_hash(kernel, spec)
    except Exception as e:
        message = str(e) or type(e).__name__
        return False, message, time.perf_counter() - start
    return True, (entry.meta, entry.files, traced), time.perf_counter() - start


def _traced_hash(kernel: Any, spec: Any) -> str:
    """What the compiled code is a function of: the traced IR (with locations), hashed."""
    text = kernel.trace(spec)[0].to_text(debug_info=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _run_compile_jobs(
    jobs: list[tuple], workers: int, progress: Callable[[], None]
) -> list[tuple[bool, Any, float]]:
    from .workers import run_jobs

    out = []
    for ok, value in run_jobs(compile_job, jobs, min(workers, len(jobs)), progress):
        out.append(value if ok else (False, f"the compile worker failed: {value}", 0.0))
    return out


def _adopt(kernel: Any, bound: dict, job: tuple, target: Any, parts: tuple) -> bool:
    """Store a worker's compiled code in this process's cache under this process's key, so
    that compiling the configuration here is a cache hit; only when the worker traced exactly
    the IR this process traces (else nothing is stored, and this process compiles itself)."""
    from .cache import CacheEntry, default_cache
    from .jit import _cache_key, _driver_version
    from .options import CompileOptions

    _, spec_args, block, options = job
    meta, files, traced = parts
    spec = kernel.bind((), spec_args, block)[0]
    text = kernel.trace(spec)[0].to_text(debug_info=True)
    if hashlib.sha256(text.encode()).hexdigest() != traced:
        return False
    key = _cache_key(text, target, CompileOptions(**options), _driver_version(target))
    default_cache().put(key, CacheEntry(meta, files))
    return True


def measure_config(
    ck: Any, meta: dict, every: list[dict], launch: tuple, target: Any, how: dict
) -> tuple[str, str, list[float]]:
    """Launch a compiled configuration once (after ``prepare``), ``check`` it, then time it
    rotating through ``every`` (sets of all its arguments): ``(status, reason, samples)``."""
    try:
        ck.load()
        if how["prepare"] is not None:
            how["prepare"](meta)
        ck.launch_bound(every[0], *launch)
        _synchronize(target)
    except Exception as e:
        return "launch failed", str(e) or type(e).__name__, []
    if how["check"] is not None:
        try:
            ok = how["check"](meta)
        except Exception as e:
            return "check failed", f"{type(e).__name__}: {e}", []
        if ok is not None and not bool(ok):
            return "check failed", "the check returned False", []
    try:
        samples = _time(_rotating_launch(ck, every, launch), target, how["warmup"], how["repeat"])
    except Exception as e:
        return "launch failed", str(e) or type(e).__name__, []
    return "ok", "", samples


class _OnDevice:
    """A CUDA torch tensor on its way to a Ray worker: its host copy, moved to the worker's GPU."""

    def __init__(self, host: Any) -> None:
        self.host = host


def _depart(value: Any) -> Any:
    if getattr(value, "is_cuda", False) and hasattr(value, "cpu"):
        return _OnDevice(value.cpu())
    return value


def _arrive(value: Any) -> Any:
    if isinstance(value, _OnDevice):
        return value.host.cuda()
    flags = getattr(value, "flags", None)  # Ray hands numpy arrays over read-only
    if flags is not None and not getattr(flags, "writeable", True):
        return value.copy()
    return value


def tune_job(job: dict) -> dict:
    """A Ray task: compile, check and time one configuration on this worker's device."""
    from .jit import compile_spec
    from .options import CompileOptions, OutputOptions
    from .stored import to_entry
    from .targets import resolve_target

    out: dict[str, Any] = {"status": "ok", "reason": "", "samples": [], "entry": None}
    start = time.perf_counter()
    try:
        obj = _resolve_reference(job["ref"])
        config = pickle.loads(job["config"])
        kernel = obj(config) if job["builder"] else obj
        args = {k: _arrive(v) for k, v in job["args"].items()}
        values = job["values"]
        target = resolve_target(job["target"])
        spec = kernel.bind((), {**args, **values}, job["block"])[0]
        options = CompileOptions(**job["options"])
        # no disk cache on the worker: the caller keeps the winner's code in its own
        ck = compile_spec(kernel, spec, target, options, OutputOptions(), use_cache=False)
        entry = to_entry(ck.products)
        out["entry"] = (entry.meta, entry.files, _traced_hash(kernel, spec))
    except Exception as e:
        out.update(status="compile failed", reason=str(e) or type(e).__name__)
        return out
    finally:
        out["compile_seconds"] = time.perf_counter() - start
    meta = {**args, **values, "config": config}
    if job["block"] is not None:
        meta.setdefault("block", job["block"])
    grid, block, smem = job["launch"]
    how = job["how"]
    try:
        launch = _resolve_launch(meta, grid, block, smem, None)
    except Exception as e:
        out.update(status="launch failed", reason=str(e) or type(e).__name__)
        return out
    copies = _rotating_copies(args) if how["rotate"] and target.is_gpu else [args]
    every = [{**c, **values} for c in copies]
    out["status"], out["reason"], out["samples"] = measure_config(
        ck, meta, every, launch, target, how
    )
    return out


def _resolve_launch(meta: dict, grid: Any, block: Any, smem: Any, stream: Any) -> tuple:
    def value(v: Any) -> Any:
        return v(meta) if callable(v) else v

    if block is None:
        block = meta.get("block")
    return value(grid), value(block), value(smem), value(stream)


def _rotating_copies(bound: dict, budget: int = 256 << 20, l2: int = 64 << 20) -> list[dict]:
    """Copies of the arguments whose arrays together exceed the L2 cache (at most 8 sets and
    ``budget`` bytes), so that a launch does not find its inputs left in L2 by the last one."""
    arrays = {k: v for k, v in bound.items() if hasattr(v, "clone") and hasattr(v, "nbytes")}
    size = sum(int(v.nbytes) for v in arrays.values())
    if not arrays or size == 0:
        return [bound]
    count = min(8, max(1, -(-2 * l2 // size)), max(1, budget // size))
    out = [bound]
    for _ in range(count - 1):
        out.append({**bound, **{k: v.clone() for k, v in arrays.items()}})
    return out


def _rotating_launch(ck: Any, every: list[dict], launch: tuple) -> Callable[[], None]:
    """A launch of ``ck`` on the next set of arguments each time it is called."""
    turn = 0

    def once() -> None:
        nonlocal turn
        ck.launch_bound(every[turn % len(every)], *launch)
        turn += 1

    return once


def _synchronize(target: Any) -> None:
    if target.is_gpu:
        from layoutc.runtime import cuda_driver as cd

        cd.current_device().synchronize()


def summarize(samples: list[float], target: Any) -> float:
    """One time per configuration: the median of CUDA-event samples on a GPU; on the CPU
    runtime the minimum, since a busy machine only ever adds wall-clock time (a launch that
    waited for a core would otherwise decide the choice)."""
    return statistics.median(samples) if target.is_gpu else min(samples)


def _time(
    fn: Callable[[], None], target: Any, warmup: int | None, repeat: int | None
) -> list[float]:
    from .timing import time_cpu, time_gpu

    if target.is_gpu:
        return time_gpu(fn, repeat or 20, 3 if warmup is None else warmup)
    return time_cpu(fn, repeat or 7, 1 if warmup is None else warmup)
