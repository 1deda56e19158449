"""The translation stage of the sm80 GEMM (CPU only): LLVM-level IR -> llvmlite module -> text.

    python benchmarks/translate.py            # sm_80 and the CPU, 15 repetitions
    python benchmarks/translate.py --quick    # 5 repetitions

The GEMM is examples/gemm_tf32_sm80.py's default configuration compiled from specs with M, N, K
multiples of the tile (what benchmarks/compile.py compiles); its LLVM-level module is made
once per target (trace and passes) and translated again and again. Rows (CPU milliseconds,
``time.process_time``, minimum of the repetitions; the ratio compares with a reference measured
in the same process on the same translated module):

- the whole stage as the driver runs it (translate, text, dispose);
- building the llvmlite module (the handlers and llvm_builder's instructions);
- the module's text (``str(Translation)``: llvm_builder.module_text), against llvmlite's
  ``str(module)`` of another translation of the same module (names and types are formatted at
  their first use, so each printer gets a fresh one);
- disposing of the module (``Translation.dispose``).

The two texts are compared: the script stops if they differ. Before codegen/llvm_builder.py
(llvmlite's builder and printing) the stage was 46-54 ms for sm_80 and 82-96 ms for the CPU
on this machine (docs/codegen.md, "Function bodies").
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lowered_module(target_name: str):
    """The GEMM's LLVM-level module and its target and options, after the passes."""
    import layoutc as lc
    from layoutc.driver import build, flow
    from layoutc.driver.argspecs import spec_of_call
    from layoutc.driver.options import CompileOptions

    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import gemm_tf32_sm80 as gemm
    from compile import gemm_specs

    cfg = gemm.CONFIG
    specs, facts = gemm_specs(cfg)
    kernel = gemm.make_gemm(cfg, "gemm_tf32_sm80")
    target, options = lc.driver.resolve_target(target_name), CompileOptions()
    spec = spec_of_call(kernel, list(specs), {}, cfg.threads, facts)
    traced = flow.trace_kernel(kernel, spec)
    lowered = build.run_passes(traced.module, traced.name, traced.runtime_spec, target, options)
    return lowered.module, target, options


def cpu_ms(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return (time.process_time() - start) * 1e3, out


def measure(target_name: str, repeat: int) -> list[tuple[str, float, str, float]]:
    from layoutc.driver import build

    module, target, options = lowered_module(target_name)
    best = {"stage": 1e9, "build": 1e9, "text": 1e9, "llvmlite": 1e9, "dispose": 1e9}
    gc.disable()  # as the driver compiles (gc_pause.py)
    try:
        for _ in range(repeat):
            built, tr = cpu_ms(lambda: build.translate(module, target, options))
            text_ms, text = cpu_ms(lambda: str(tr))  # noqa: B023 (called at once)
            gone, _ = cpu_ms(tr.dispose)
            # the reference prints a fresh translation too (names are formatted at first use)
            again = build.translate(module, target, options)
            ref_ms, ref = cpu_ms(lambda: str(again.module))  # noqa: B023
            again.dispose()
            if text != ref:
                raise SystemExit(f"{target_name}: module_text differs from str(module)")
            for key, ms in (
                ("stage", built + text_ms + gone),
                ("build", built),
                ("text", text_ms),
                ("llvmlite", ref_ms),
                ("dispose", gone),
            ):
                best[key] = min(best[key], ms)
    finally:
        gc.enable()
    return [
        (f"{target_name}: translate stage (build + text + dispose)", best["stage"], "", 0.0),
        (f"{target_name}: build the llvmlite module", best["build"], "", 0.0),
        (f"{target_name}: text (module_text)", best["text"], "str(module)", best["llvmlite"]),
        (f"{target_name}: dispose", best["dispose"], "", 0.0),
    ]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--targets", default="sm_80,cpu")
    args = p.parse_args()
    repeat = 5 if args.quick else 15
    rows = []
    for name in args.targets.split(","):
        rows += measure(name, repeat)
    w = max(len(r[0]) for r in rows)
    print(
        f"{'measurement (CPU ms, min of ' + str(repeat) + ')':<{w}}  {'ms':>8}  reference     ms  ratio"
    )
    for what, ms, ref, ref_ms in rows:
        tail = f"  {ref:<11} {ref_ms:6.2f}  {ms / ref_ms:5.2f}" if ref else ""
        print(f"{what:<{w}}  {ms:8.2f}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
