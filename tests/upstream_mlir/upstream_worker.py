"""Runs upstream MLIR (its Python bindings) on layoutc's output, in a process of its own so that
an upstream assertion cannot take the test session down. Reads one JSON request per line:
``{"name": ..., "text": generic IR, "llvmir": bool}``; answers one JSON line each:
``{"name": ..., "error": None | message, "custom": upstream's custom-form print, "llvmir":
upstream's translate_module_to_llvmir of it when asked}``. Unregistered dialects are allowed
(layoutc's ``layout`` and ``tile``), but an op named after one of upstream's own dialects must
be one upstream has: MLIR would otherwise accept any ``nvvm.whatever`` as an unregistered op.
``{"name": ..., "registered": [op names]}`` asks which of the names upstream lacks."""

from __future__ import annotations

import json
import re
import sys

from layoutc_side import UPSTREAM_DIALECTS
from mlir.ir import Context, Module


def _llvm_ir(module: Module) -> str:
    """Upstream's LLVM IR: ``convert-nvvm-to-llvm`` first (as upstream's own GPU pipeline
    does: the nvvm ops that are PTX templates, wgmma and some mbarrier forms, become inline
    assembly there), then ``translate_module_to_llvmir``."""
    from mlir.dialects.llvm import translate_module_to_llvmir
    from mlir.passmanager import PassManager

    PassManager.parse("builtin.module(convert-nvvm-to-llvm)").run(module.operation)
    return str(translate_module_to_llvmir(module.operation))


_GENERIC_OP = re.compile(r'"((?:' + "|".join(UPSTREAM_DIALECTS) + r')\.[\w.]+)"\(')


def _unknown_ops(ctx: Context, names) -> list[str]:
    """The names, among ``names``, of ops upstream does not register."""
    return sorted({n for n in names if not ctx.is_registered_operation(n)})


def main() -> None:
    """One upstream context for the whole process (making one costs about 0.1 s, and a
    session sends hundreds of modules); each module is parsed, verified and dropped."""
    ctx = Context()
    ctx.allow_unregistered_dialects = True
    with ctx:
        for line in sys.stdin:
            request = json.loads(line)
            print(json.dumps({"start": request["name"]}), flush=True)
            answer = {"name": request["name"], "error": None, "custom": None}
            if "registered" in request:
                answer["unregistered"] = _unknown_ops(ctx, request["registered"])
                print(json.dumps(answer), flush=True)
                continue
            try:
                module = Module.parse(request["text"])
                unknown = _unknown_ops(ctx, _GENERIC_OP.findall(request["text"]))
                if unknown:
                    answer["error"] = f"ops upstream does not have: {', '.join(unknown)}"
                elif not module.operation.verify():
                    answer["error"] = "verification failed"
                else:
                    answer["custom"] = str(module)
                    if request.get("llvmir"):
                        answer["llvmir"] = _llvm_ir(module)
            except Exception as e:  # upstream's diagnostics
                answer["error"] = str(e)
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
