"""Compile options: what changes the generated code (part of every cache key) and what only
changes what the compiler shows (dumps, IR printing, remarks; never part of a key).

Environment variables (read when a compilation starts, so tests and tools can set them):

- ``LAYOUTC_DUMP_DIR``: write every compilation's IR after each pass, NVVM IR, PTX and remarks
  under this directory (one sub-directory per kernel build);
- ``LAYOUTC_PRINT_IR_AFTER_ALL=1``: print the IR after every pass to stderr (MLIR's headers);
- ``LAYOUTC_REMARKS=1``: print the optimisation remarks of every compilation to stderr;
- ``LAYOUTC_CACHE=0`` / ``LAYOUTC_CACHE_DIR``: the on-disk cache (compiler/driver/cache.py);
- ``LAYOUTC_CHECK_BOUNDS=1``: compile the bounds check into GPU kernels too (runtime/launch_config.py);
- ``LAYOUTC_VERIFY_EACH=1``: verify the IR after every pass, not only after the pipeline (the
  default of ``CompileOptions.verify_each``; the test suite sets it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

_PTX_BACKENDS = ("auto", "libnvvm", "llvm")
_CUBIN_MODES = ("auto", "always", "never")
_CPU_JIT_TIERS = ("fast", "optimized")  # runtime/cpu_jit.py's JIT_TIERS


def check_bounds_env() -> bool:
    """``LAYOUTC_CHECK_BOUNDS``, validated (runtime/launch_config.py)."""
    from layoutc.runtime.launch_config import check_bounds_setting

    return check_bounds_setting()


def env_flag(name: str) -> bool:
    """A boolean environment switch: set and not one of 0/false/no/off."""
    value = os.environ.get(name, "").strip().lower()
    return bool(value) and value not in ("0", "false", "no", "off")


@dataclass(frozen=True)
class CompileOptions:
    """Options that change the generated code.

    ``opt_level``: LLVM's -O level for PTX and the CPU JIT (0-3). ``cpu_jit``: how much
    the CPU JIT optimises (below). ``ptx_backend``: ``auto``
    (libNVVM when installed), ``libnvvm`` or ``llvm``. ``cubin``: ``auto`` (when nvJitLink is
    installed), ``always`` or ``never``. ``index_bitwidth``: width of ``index`` in generated
    code (32 or 64), or ``"auto"``: 32 where the spec proves every offset fits, else 64
    (compiler/driver/index_width.py; a kernel may make it its default,
    ``@lc.kernel(index_bitwidth="auto")``). ``pipeline``: a textual pass pipeline replacing the default one (for
    experiments; the default is docs/dialects.md's). ``verify_each``: verify the IR after every
    pass, which catches a compiler bug at the pass that made it; None (the default):
    ``LAYOUTC_VERIFY_EACH``, else off. Off, the IR is verified once after the pipeline (the
    front end verified the traced IR): about a fifth of a GEMM's compile time less
    (docs/driver.md, "Compile time").
    """

    opt_level: int = 3
    cpu_jit: str = "fast"
    """The CPU JIT's tier: ``"fast"`` (LLVM's passes at -O1 at most, machine code at -O0) or
    ``"optimized"`` (both at ``opt_level``: two to three times the JIT time, for kernels
    whose run time is their own arithmetic: docs/runtime.md, "JIT tiers")."""
    ptx_backend: str = "auto"
    cubin: str = "auto"
    index_bitwidth: int | str = 64
    pipeline: str | None = None
    verify_each: bool | None = None
    check_bounds: bool | None = None
    """Compile the memcheck into the kernel (docs/runtime.md, "The bounds check"). None: on for
    the CPU, and on the GPU when ``LAYOUTC_CHECK_BOUNDS`` is set."""

    def __post_init__(self) -> None:
        if not isinstance(self.opt_level, int) or not 0 <= self.opt_level <= 3:
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, not {self.opt_level!r}")
        if self.cpu_jit not in _CPU_JIT_TIERS:
            raise ValueError(f"cpu_jit must be one of {_CPU_JIT_TIERS}, not {self.cpu_jit!r}")
        if self.ptx_backend not in _PTX_BACKENDS:
            raise ValueError(
                f"ptx_backend must be one of {_PTX_BACKENDS}, not {self.ptx_backend!r}"
            )
        if self.cubin not in _CUBIN_MODES:
            raise ValueError(f"cubin must be one of {_CUBIN_MODES}, not {self.cubin!r}")
        if self.index_bitwidth not in (32, 64, "auto"):
            raise ValueError(
                f"index_bitwidth must be 32, 64 or 'auto', not {self.index_bitwidth!r}"
            )
        if self.check_bounds not in (None, True, False):
            raise ValueError(f"check_bounds must be True, False or None, not {self.check_bounds!r}")
        if self.verify_each not in (None, True, False):
            raise ValueError(f"verify_each must be True, False or None, not {self.verify_each!r}")
        if self.pipeline is not None and not isinstance(self.pipeline, str):
            raise ValueError(f"pipeline must be a textual pass pipeline, not {self.pipeline!r}")

    def key(self) -> dict[str, Any]:
        """The options that change generated code, for cache keys (verify_each does not)."""
        return {
            "opt_level": self.opt_level,
            "cpu_jit": self.cpu_jit,
            "ptx_backend": self.ptx_backend,
            "cubin": self.cubin,
            "index_bitwidth": self.index_bitwidth,
            "pipeline": self.pipeline,
            "check_bounds": self.check_bounds,
            "check_bounds_env": check_bounds_env() if self.check_bounds is None else None,
        }

    def checks_bounds(self, gpu: bool) -> bool:
        """Whether code for a GPU (or the CPU) gets the bounds check."""
        if self.check_bounds is not None:
            return self.check_bounds
        return not gpu or check_bounds_env()

    def verifies_each(self) -> bool:
        """Whether the IR is verified after every pass (else once, after the pipeline)."""
        if self.verify_each is not None:
            return self.verify_each
        return env_flag("LAYOUTC_VERIFY_EACH")

    def memo_key(self) -> tuple:
        return tuple(sorted(self.key().items()))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def with_changes(self, **changes: Any) -> CompileOptions:
        return replace(self, **changes)


@dataclass(frozen=True)
class OutputOptions:
    """What a compilation shows besides its result; none of it changes the code.

    ``dump_dir``: where to write the IR after every pass (``00-traced.mlir``,
    ``01-canonicalize.mlir``, ...), the LLVM IR (``.ll``), the PTX and ``remarks.txt``.
    ``dump_subdir``: write into a per-kernel sub-directory of ``dump_dir`` (how
    ``LAYOUTC_DUMP_DIR`` works, since it collects every compilation of a process).
    ``print_ir_after_all``: print the same to stderr. ``print_remarks``: print remarks to stderr.
    ``debug_info``: print locations (``loc(...)``) in dumped IR.
    """

    dump_dir: Path | None = None
    dump_subdir: bool = False
    print_ir_after_all: bool = False
    print_remarks: bool = False
    debug_info: bool = False

    @property
    def wants_ir(self) -> bool:
        """Whether the IR after every pass must be captured (so no cached result will do)."""
        return self.dump_dir is not None or self.print_ir_after_all

    @classmethod
    def from_environment(
        cls, dump_dir: str | os.PathLike | None = None, **overrides: Any
    ) -> OutputOptions:
        """Options from an explicit ``dump_dir`` and the ``LAYOUTC_*`` environment variables."""
        env_dir = os.environ.get("LAYOUTC_DUMP_DIR", "").strip()
        if dump_dir is not None:
            directory, subdir = Path(dump_dir), False
        elif env_dir:
            directory, subdir = Path(env_dir), True
        else:
            directory, subdir = None, False
        values: dict[str, Any] = {
            "dump_dir": directory,
            "dump_subdir": subdir,
            "print_ir_after_all": env_flag("LAYOUTC_PRINT_IR_AFTER_ALL"),
            "print_remarks": env_flag("LAYOUTC_REMARKS"),
            "debug_info": env_flag("LAYOUTC_DUMP_DEBUGINFO"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
