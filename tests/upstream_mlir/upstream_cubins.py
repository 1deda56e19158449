"""Upstream MLIR's LLVM IR of layoutc's last GPU stage, run on a GPU that lacks the bindings.

``test_upstream_llvm_ir_computes_what_layoutc_computes`` needs upstream's bindings and a GPU in
one process; the bindings (built for the CPU machine's Python) do not travel to the GPU machine.
So the check runs in two steps (docs/ir.md, "Tests against upstream MLIR"):

``python tests/upstream_mlir/upstream_cubins.py build DIR`` (CPU machine, bindings installed):
every example is compiled for sm_90 (sm_90a where it needs it), its last stage translated by
upstream's ``translate_module_to_llvmir``, and that LLVM IR compiled to a cubin by layoutc's PTX
back end. Each example gets ``DIR/<n>/upstream`` and ``DIR/<n>/layoutc`` (AOT artifacts, the
``layoutc compile`` format) and ``DIR/<n>/example.json`` (how to rebuild its inputs and launch).

``python tests/upstream_mlir/upstream_cubins.py check DIR`` (GPU machine, no compiler run):
loads both artifacts with ``layoutc.runtime.load``, launches them on the example's inputs and
compares every output with the example's numpy reference; exits 1 on any mismatch.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ARCHES = ("sm_90", "sm_90a")


def _cpu_examples() -> None:
    """Some example files pick their kernels by the default target (conv3d_fprop: the Hopper
    pair on an H100); both steps must see the same list, the CPU machine's."""
    os.environ["LAYOUTC_TARGET"] = "cpu"


def _examples():
    _cpu_examples()
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    for path in sorted((ROOT / "examples").glob("*.py")):
        for index, ex in enumerate(find_examples(vars(load_source(path)), str(path))):
            yield path, index, ex


def build(out: Path) -> int:
    """Write one directory per example that compiles for an sm_90 card; returns how many."""
    import tempfile

    import layoutc as lc
    from layoutc.codegen.toolchain import ToolchainOptions, compile_gpu
    from layoutc.driver.targets import resolve_target
    from layoutc.runtime.artifact import ArtifactKernel, Variant, write_artifact

    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import upstream
    from layoutc_side import generic

    count = 0
    for path, index, ex in _examples():
        args = ex.inputs(ex.size, np.random.default_rng(0))
        launch = dict(ex.launch(args))
        block = launch.pop("block", None)
        with tempfile.TemporaryDirectory() as tmp:
            ck = None
            for arch in ARCHES:
                dump = Path(tmp) / arch
                try:
                    ck = lc.compile(
                        ex.kernel,
                        *ex.ordered_arguments(args),
                        target=resolve_target(arch),
                        block=block,
                        dump_dir=str(dump),
                        cache=False,
                    )
                    break
                except lc.CompileError:
                    continue
            if ck is None:
                print(f"skip {path.name}[{index}]: compiles for neither {ARCHES}")
                continue
            last = sorted(dump.glob("*.mlir"))[-1]
            name = f"{ex.kernel.name}/{last.name}"
            answer = upstream({name: generic(last.read_text(), name)}, llvmir=True)[name]
        if answer["error"] is not None:
            print(f"FAIL {path.name}[{index}]: upstream: {answer['error']}")
            continue
        binary = compile_gpu(
            answer["llvmir"], ck.target.gpu, ToolchainOptions(ptx_backend="llvm", cubin="always")
        )
        arch = ck.target.name
        d = out / f"{count:02d}-{ex.kernel.name}"
        write_artifact(
            d / "upstream",
            [ArtifactKernel(ck.runtime_spec, (Variant(arch, ptx=binary.ptx, cubin=binary.cubin),))],
            "upstream MLIR translate_module_to_llvmir + layoutc PTX back end",
        )
        write_artifact(
            d / "layoutc",
            [ArtifactKernel(ck.runtime_spec, (Variant(arch, ptx=ck.ptx, cubin=ck.cubin),))],
        )
        meta = {
            "file": str(path.relative_to(ROOT)),
            "index": index,
            "title": ex.title,
            "size": ex.size,
            "kernel": ck.runtime_spec.name,
            "arguments": [arg for arg, param in ck.abi.args if param is not None],
            "block": list(ck.spec.block) if ck.spec.block is not None else None,
            "arch": arch,
        }
        (d / "example.json").write_text(json.dumps(meta, indent=2) + "\n")
        print(f"built {d.name} ({arch}, {len(binary.cubin)} byte cubin from upstream's LLVM IR)")
        count += 1
    return count


def check(out: Path) -> bool:
    """Launch every example's two artifacts and compare with numpy; True when all match."""
    import layoutc.runtime as rt
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source
    from layoutc.driver.run_example import DeviceCopy, _copy_arguments, compare
    from layoutc.runtime import cuda_driver

    dev = cuda_driver.current_device()
    print(f"device: {dev.name} (sm_{dev.capability[0]}{dev.capability[1]})")
    _cpu_examples()
    ok = True
    for d in sorted(p for p in out.iterdir() if (p / "example.json").is_file()):
        meta = json.loads((d / "example.json").read_text())
        path = ROOT / meta["file"]
        ex = find_examples(vars(load_source(path)), str(path))[meta["index"]]
        if ex.title != meta["title"]:
            raise SystemExit(f"{d}: example {meta['title']} is now {ex.title}; rebuild {out}")
        args = ex.inputs(meta["size"], np.random.default_rng(0))
        want = dict(ex.reference(_copy_arguments(args)))
        launch = dict(ex.launch(args))
        launch.pop("block", None)
        block = tuple(meta["block"]) if meta["block"] is not None else None
        for which in ("layoutc", "upstream"):
            kernel = getattr(rt.load(d / which), meta["kernel"])
            device = {k: DeviceCopy(v) if isinstance(v, np.ndarray) else v for k, v in args.items()}
            kernel(*[device[a] for a in meta["arguments"]], block=block, **launch)
            dev.synchronize()
            bad = [
                f"{k}: {c.detail}"
                for k, expected in want.items()
                if not (c := compare(k, device[k].to_host(), expected, ex.rtol, ex.atol)).ok
            ]
            ok &= not bad
            status = "ok" if not bad else "MISMATCH " + "; ".join(bad)
            print(f"{d.name:40s} {meta['arch']:7s} {which:9s} {status}")
    return ok


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("build", "check"):
        print(__doc__)
        return 2
    out = Path(argv[1])
    if argv[0] == "build":
        return 0 if build(out) else 1
    return 0 if check(out) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
