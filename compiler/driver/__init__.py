"""The compile driver: from a ``@layoutc.kernel`` to loadable code, through the caches.

- ``jit``: ``layoutc.compile`` and direct kernel calls (``k(x, y, grid=..., block=...)``);
- ``flow``: a compile's stages in order (spec -> trace -> cache -> passes -> codegen -> cache ->
  loaded kernel), each handing the next what it needs;
- ``build``: the passes and codegen stages (pipeline; translation, PTX/cubin or host LLVM IR);
- ``compiled``: ``CompiledKernel``, the callable result; ``requirements``: call checks;
- ``argspecs``: argument specs without arrays (``lc.spec``); ``aot``: artifact directories;
- ``targets``, ``options``, ``pipeline``, ``dumps``, ``recorder``, ``remarks``, ``errors``;
- ``cache``: the on-disk compile cache; ``example``/``run_example``: ``layoutc run``.

Importing this package installs the launcher that makes ``@layoutc.kernel`` functions callable.
"""

from __future__ import annotations

from layoutc.frontend.kernel import set_launcher

from .argspecs import ArgSpec, parse_arg_spec, spec
from .compiled import CompiledKernel
from .errors import InternalCompilerError
from .jit import clear_memory_cache, compile, launch
from .options import CompileOptions
from .targets import BuildTarget, TargetError, gpu_available, resolve_target

set_launcher(launch)

__all__ = [
    "ArgSpec",
    "BuildTarget",
    "CompileOptions",
    "CompiledKernel",
    "InternalCompilerError",
    "TargetError",
    "clear_memory_cache",
    "compile",
    "gpu_available",
    "launch",
    "parse_arg_spec",
    "resolve_target",
    "spec",
]
