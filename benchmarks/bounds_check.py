"""What the bounds check costs (docs/runtime.md, "The bounds check"), as a table.

    python benchmarks/bounds_check.py            # CPU rows; GPU rows too where there is a GPU
    python benchmarks/bounds_check.py --quick    # fewer repetitions, smaller sizes

For the copy (examples/copy_1d.py) and the FMA GEMM (examples/gemm_fma.py), the same kernel is
compiled with ``check_bounds=False`` (the reference) and ``check_bounds=True`` and launched on
the same arrays; each row is the median of several timed launches and the ratio is checked /
unchecked, measured in the same process. On the GPU a checked launch also uploads the record
and reads it back (a synchronising copy), which the per-launch time includes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def load(name: str):
    from layoutc.driver.example import find_examples
    from layoutc.driver.loading import load_source

    path = ROOT / "examples" / f"{name}.py"
    return find_examples(vars(load_source(path)), str(path))[0]


def median_seconds(fn, repeat: int, sync=None) -> float:
    fn()  # warm-up (and the launch that checks the arguments)
    if sync:
        sync()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        if sync:
            sync()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def rows_for(example, size: int, target: str, repeat: int) -> list[tuple[str, float, float]]:
    import layoutc as lc

    on_gpu = target != "cpu"
    rng = np.random.default_rng(0)
    arguments = example.inputs(size, rng)
    launch = dict(example.launch(arguments))
    block = launch.pop("block", None)
    ordered = example.ordered_arguments(arguments)
    call = ordered
    sync = None
    if on_gpu:
        from layoutc.driver.run_example import DeviceCopy
        from layoutc.runtime import cuda_driver

        device = {
            k: DeviceCopy(v) if isinstance(v, np.ndarray) else v for k, v in arguments.items()
        }
        call = [device[k] for k in example.kernel.signature.parameters]
        sync = lambda: cuda_driver.current_device().synchronize()
    times = {}
    for checked in (False, True):
        ck = lc.compile(example.kernel, *ordered, target=target, block=block, check_bounds=checked)
        times[checked] = median_seconds(
            lambda ck=ck: ck(*call, block=block, **launch), repeat, sync
        )
    return [(f"{example.title} n={size} on {target}", times[True], times[False])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, smaller sizes")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 9
    from layoutc.driver.targets import gpu_available

    copy, gemm = load("copy_1d"), load("gemm_fma")
    rows = []
    rows += rows_for(copy, 1 << (16 if args.quick else 20), "cpu", repeat)
    rows += rows_for(gemm, 128 if args.quick else 256, "cpu", repeat)
    if gpu_available():
        from layoutc.codegen.target import Target

        arch = Target.from_device().arch
        rows += rows_for(copy, 1 << (24 if args.quick else 28), arch, repeat * 3)
        rows += rows_for(gemm, 2048 if args.quick else 4096, arch, repeat * 3)
    else:
        print("(no GPU: GPU rows skipped)")
    print(f"{'kernel':48} {'checked':>12} {'unchecked':>12} {'ratio':>7}")
    for what, checked, unchecked in rows:
        print(
            f"{what:48} {checked * 1e3:9.3f} ms {unchecked * 1e3:9.3f} ms {checked / unchecked:7.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
