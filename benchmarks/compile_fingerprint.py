"""The sha256 of every generated product, to show a compile-time change leaves code unchanged.

    python benchmarks/compile_fingerprint.py > before.txt
    ... change the compiler ...
    python benchmarks/compile_fingerprint.py > after.txt && diff before.txt after.txt

Products: the LLVM IR of every example kernel for the CPU, and its LLVM (NVVM) IR, PTX and cubin
for sm_80 and sm_90a (the wgmma examples for sm_90a only), and the same for the sm80 GEMM
(examples/gemm_tf32_sm80.py's default configuration) compiled from specs, with M, N, K
multiples of the tile and for any M, N, K. One line per product: ``sha256  name``; the on-disk
cache is off. ``--only gemm`` or ``--only examples`` restricts the set.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TARGETS = ("cpu", "sm_80", "sm_90a")


def digest(data: str | bytes | None) -> str:
    if data is None:
        return "-" * 64
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


def products(name: str, ck, target: str) -> list[tuple[str, str]]:
    rows = [(f"{name} {target} llvm", digest(ck.llvm_ir))]
    if target != "cpu":
        rows.append((f"{name} {target} ptx", digest(ck.ptx)))
        rows.append((f"{name} {target} cubin", digest(ck.cubin)))
    return rows


def example_products() -> list[tuple[str, str]]:
    import layoutc as lc
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    rows = []
    for path in sorted(EXAMPLES.glob("*.py")):
        for example in find_examples(vars(load_source(path)), str(path)):
            wgmma = path.stem == "gemm_sm90" or "_sm90" in example.kernel.name
            for target in TARGETS:
                if wgmma and target == "sm_80":
                    continue
                args = example.inputs(example.size, np.random.default_rng(0))
                launch = example.launch(args)
                ck = lc.compile(
                    example.kernel,
                    *example.ordered_arguments(args),
                    target=target,
                    block=launch["block"],
                    cache=False,
                )
                rows += products(f"{path.stem}:{example.kernel.name}", ck, target)
    return rows


def gemm_products() -> list[tuple[str, str]]:
    import layoutc as lc

    sys.path.insert(0, str(EXAMPLES))
    import gemm_tf32_sm80 as gemm
    from compile import gemm_specs  # benchmarks/compile.py: the GEMM rows' specs and facts

    cfg = gemm.CONFIG
    specs, full = gemm_specs(cfg)
    rows = []
    for label, facts in (("gemm-full", full), ("gemm-any", [])):
        for target in TARGETS:
            kernel = gemm.make_gemm(cfg, "gemm_tf32_sm80")
            ck = lc.compile(
                kernel, *specs, block=cfg.threads, target=target, assume=facts, cache=False
            )
            rows += products(label, ck, target)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=("gemm", "examples"))
    args = p.parse_args()
    rows = []
    if args.only != "gemm":
        rows += example_products()
    if args.only != "examples":
        rows += gemm_products()
    for name, sha in rows:
        print(f"{sha}  {name}")
    print(f"{len(rows)} products", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
