"""One-time llvmlite initialisation and the optimisation pipeline both back ends share.

``llvm.initialize()`` is deprecated and raises in llvmlite 0.50; the targets and asm printers
are initialised instead, once per process, under a lock.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_ready = False


def llvm() -> Any:
    """The ``llvmlite.binding`` module with every target and asm printer initialised."""
    global _ready
    import llvmlite.binding as binding

    if not _ready:
        with _lock:
            if not _ready:
                binding.initialize_all_targets()
                binding.initialize_all_asmprinters()
                binding.initialize_native_target()
                binding.initialize_native_asmprinter()
                _ready = True
    return binding


def optimize(module: Any, target_machine: Any, level: int) -> None:
    """Run LLVM's default ``-O<level>`` module pipeline on a parsed module, in place."""
    if level <= 0:
        return
    binding = llvm()
    pto = binding.create_pipeline_tuning_options(speed_level=min(level, 3))
    pb = binding.create_pass_builder(target_machine, pto)
    pb.getModulePassManager().run(module, pb)
