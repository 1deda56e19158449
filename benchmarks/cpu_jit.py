"""The CPU runtime's LLVM JIT of big checked kernels (docs/runtime.md, "The bounds check"), as a
table.

    python benchmarks/cpu_jit.py capture DIR     # write each kernel's LLVM IR to DIR/NAME.ll
    python benchmarks/cpu_jit.py time OLD NEW    # JIT both directories' IR, alternating
    python benchmarks/cpu_jit.py steps DIR       # each step of the JIT, per level

``capture`` compiles each kernel for the CPU (with the bounds check, as the CPU runtime always
does) and saves the module's LLVM IR as the JIT receives it. ``time`` optimises (-O2, the CPU
runtime's level) and generates machine code for each IR file, OLD and NEW alternately, three
times each, and prints the CPU seconds (min of 3) of both, their ratio and the IR's size: run
``capture`` on two builds (before and after a change to the bounds check, say) and ``time`` on
the two directories in one process, so that both columns see the same machine load. OLD runs
with LLVM's post-RA scheduler on (what the host's default was on the znver3 build machine before
compile_cpu turned it off), NEW as compile_cpu runs now (its default tier, ``"fast"``).

``steps`` times each step of compile_cpu's JIT on each IR file of DIR (CPU ms, min of 3, the
configurations alternating): parsing the text, verifying it and linking the launcher, LLVM's
optimisation pipeline, and machine code (MCJIT's instruction selection, register allocation and
emission), for the tiers and levels a compile can ask for (``jit``, ``opt_level``:
docs/runtime.md, "JIT tiers").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _examples(name: str):
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    path = ROOT / "examples" / f"{name}.py"
    return find_examples(vars(load_source(path)), str(path))


def _compile_example(name: str):
    import layoutc as lc

    example = _examples(name)[0]
    arguments = example.inputs(example.size, np.random.default_rng(0))
    launch = dict(example.launch(arguments))
    ordered = example.ordered_arguments(arguments)
    return lc.compile(example.kernel, *ordered, target="cpu", block=launch.pop("block", None))


def _gemm_k_peeling():
    """tests/examples/test_gemm_k_peeling.py's bf16 KKC case at K = 17 (the small config)."""
    import layoutc as lc

    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(ROOT / "tests" / "examples"))
    import gemm_tf32_sm80 as sm80
    from test_gemm_general import operand, output, small_config

    cfg = small_config("bf16", "smem")
    rng = np.random.default_rng(0)
    a, _ = operand(rng, "bf16", 72, 17, False, 0)
    b, _ = operand(rng, "bf16", 40, 17, False, 0)
    c = output(72, 40, True, 0)
    return lc.compile(sm80.make_gemm(cfg), a, b, c, block=cfg.threads, target="cpu")


def _gemm_from_specs():
    """benchmarks/compile.py's GEMM: the default sm80 configuration from argument specs."""
    import layoutc as lc

    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import gemm_tf32_sm80 as gemm
    from compile import gemm_specs

    specs, facts = gemm_specs(gemm.CONFIG)
    kernel = gemm.make_gemm(gemm.CONFIG, "gemm_tf32_sm80")
    return lc.compile(
        kernel, *specs, block=gemm.CONFIG.threads, target="cpu", assume=facts, cache=False
    )


KERNELS = {
    "gemm_tf32_sm80_specs": _gemm_from_specs,
    "gemm_sm80_small_bf16_kkc_k17": _gemm_k_peeling,
    "gemm_tf32_sm80": lambda: _compile_example("gemm_tf32_sm80"),
    "gemm_sm90": lambda: _compile_example("gemm_sm90"),
    "conv3d_fprop": lambda: _compile_example("conv3d_fprop"),
}


def capture(out: Path) -> None:
    """Write each kernel's module (``NAME.ll``) and its CPU launcher (``NAME.launcher``)."""
    from layoutc.runtime.cpu_jit import llvm_param_types
    from layoutc.runtime.cpu_support_ir import kernel_launcher_ir

    out.mkdir(parents=True, exist_ok=True)
    for name, make in KERNELS.items():
        products = make().products
        text = str(products.llvm_ir)
        spec = products.runtime_spec
        (out / f"{name}.ll").write_text(text)
        launcher = kernel_launcher_ir(spec.name, llvm_param_types(spec))
        (out / f"{name}.launcher").write_text(launcher)
        print(f"{name}: {len(text) / 1e6:.2f} MB of LLVM IR")


def jit_seconds(
    ir_text: str, launcher_text: str, post_ra: bool, opt_level: int = 2, jit: str = "fast"
) -> float:
    """CPU seconds to optimise ``ir_text`` with its launcher and make their machine code, as
    compile_cpu does (``post_ra``: with LLVM's post-RA scheduler, as before compile_cpu turned
    it off; on for this machine's znver3 then)."""
    from layoutc.runtime import cpu_jit

    llvm = cpu_jit._llvm()
    llvm.set_option("", "-post-RA-scheduler=true" if post_ra else cpu_jit.POST_RA_SCHEDULER_OFF)
    start = time.process_time()
    module = llvm.parse_assembly(ir_text)
    engine = cpu_jit.optimized_engine(llvm, module, launcher_text, opt_level, jit)
    engine.finalize_object()
    return time.process_time() - start


LEVELS = [(3, "optimized"), (2, "optimized"), (1, "optimized"), (3, "fast"), (0, "fast")]


def step_seconds(ir_text: str, launcher_text: str, opt_level: int, jit: str) -> dict:
    """CPU seconds of each step of compile_cpu's JIT (without the object cache)."""
    from layoutc.runtime import cpu_jit

    llvm = cpu_jit._llvm()
    clock = time.process_time
    out = {}
    start = clock()
    module = llvm.parse_assembly(ir_text)
    out["parse"] = clock() - start
    start = clock()
    module.verify()
    passes, codegen = cpu_jit.jit_levels(jit, opt_level)
    tm = cpu_jit._target_machine(llvm, codegen)
    cpu_jit.link_launcher(llvm, module, launcher_text, tm)
    out["verify+link"] = clock() - start
    start = clock()
    cpu_jit._optimize(llvm, module, tm, passes)
    out["passes"] = clock() - start
    start = clock()
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.finalize_object()
    out["machine code"] = clock() - start
    return out


def steps(directory: Path, repeat: int = 3) -> None:
    names = ["parse", "verify+link", "passes", "machine code"]
    print(f"{'kernel':32} {'opt_level':>9} {'jit':>9} " + " ".join(f"{n:>12}" for n in names))
    for path in sorted(directory.glob("*.ll")):
        text = path.read_text()
        launcher = path.with_suffix(".launcher").read_text()
        best: dict = {}
        for _ in range(repeat):
            for level in LEVELS:
                for k, v in step_seconds(text, launcher, *level).items():
                    best.setdefault(level, {})[k] = min(best.get(level, {}).get(k, 1e9), v)
        for (opt, jit), b in best.items():
            cells = " ".join(f"{b[n] * 1e3:10.0f}ms" for n in names)
            total = sum(b.values()) * 1e3
            print(f"{path.stem:32} {opt:>9} {jit:>9} {cells}  total {total:.0f}ms")


def compare(old: Path, new: Path, repeat: int = 3) -> None:
    rows = []
    for path in sorted(old.glob("*.ll")):
        texts = {"old": path.read_text(), "new": (new / path.name).read_text()}
        launchers = {
            "old": path.with_suffix(".launcher").read_text(),
            "new": (new / path.name).with_suffix(".launcher").read_text(),
        }
        best = {k: float("inf") for k in texts}
        for _ in range(repeat):
            for k, text in texts.items():
                best[k] = min(best[k], jit_seconds(text, launchers[k], post_ra=k == "old"))
        rows.append((path.stem, best, {k: len(t) / 1e6 for k, t in texts.items()}))
    print(f"{'kernel':32} {'IR old':>8} {'IR new':>8} {'JIT old':>9} {'JIT new':>9} {'ratio':>6}")
    for name, best, size in rows:
        print(
            f"{name:32} {size['old']:6.2f}MB {size['new']:6.2f}MB {best['old']:8.2f}s "
            f"{best['new']:8.2f}s {best['new'] / best['old']:6.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("capture").add_argument("dir", type=Path)
    timing = sub.add_parser("time")
    timing.add_argument("old", type=Path)
    timing.add_argument("new", type=Path)
    sub.add_parser("steps").add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "capture":
        capture(args.dir)
    elif args.command == "steps":
        steps(args.dir)
    else:
        compare(args.old, args.new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
