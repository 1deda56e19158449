"""The NVIDIA tools' share of the sm80 GEMM's compile, option by option (CPU only; issue 13).

    python benchmarks/compile_tools.py                   # the GEMM for sm_80
    python benchmarks/compile_tools.py --arch sm_90a --repeat 5

Compiles benchmarks/compile.py's GEMM (examples/gemm_tf32_sm80.py's default configuration from
argument specs, M, N, K multiples of the tile) once, then runs each tool variant on its NVVM IR
(libNVVM, LLVM's NVPTX back end) or on the PTX libNVVM makes by default (nvJitLink), the
variants alternating, and prints the CPU milliseconds of this process (``time.process_time``:
the tools' threads included, other processes' load mostly not) as the minimum of ``--repeat``
runs, with what each variant makes: PTX lines and whether the PTX is the default's; for
cubins the SASS instruction count (when ``cuobjdump`` and ``nvdisasm`` are installed: pip
``nvidia-cuda-cuobjdump`` ``nvidia-cuda-nvdisasm``), registers and stack bytes per thread
(runtime/cubin_info.py), and whether the SASS is the default's. A variant whose SASS differs
changes the kernel: only the GPU can say whether it is as fast (docs/driver.md, "Compile
time", has what was measured).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: libNVVM options after ``-arch``: the default first.
LIBNVVM_VARIANTS = (
    "-opt=3",
    "-opt=2",
    "-opt=0",
    "-opt=3 -ftz=1 -prec-div=0 -prec-sqrt=0",
    "-opt=3 -generate-line-info",
    "-opt=3 -nvvm-latest",
)
#: nvJitLink options after ``-arch``: the default first (it takes -O0 and -O3 only).
NVJITLINK_VARIANTS = ("-O3", "-Xptxas=-O2", "-Xptxas=-O1")


def gemm_nvvm_ir(arch: str) -> str:
    """The GEMM's NVVM IR for ``arch``, as the driver hands it to the tools."""
    import layoutc as lc

    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import gemm_tf32_sm80 as gemm
    from compile import gemm_specs

    specs, facts = gemm_specs(gemm.CONFIG)
    kernel = gemm.make_gemm(gemm.CONFIG, "gemm_tf32_sm80")
    ck = lc.compile(
        kernel, *specs, block=gemm.CONFIG.threads, target=arch, assume=facts, cache=False
    )
    return str(ck.llvm_ir)


def libnvvm(ir_text: str, options: list[str]) -> str:
    """PTX from libNVVM with exactly ``options``."""
    from cuda.bindings import nvvm

    program = nvvm.create_program()
    try:
        data = ir_text.encode()
        nvvm.add_module_to_program(program, data, len(data), "layoutc")
        nvvm.compile_program(program, len(options), [o.encode() for o in options])
        buf = bytearray(nvvm.get_compiled_result_size(program))
        nvvm.get_compiled_result(program, buf)
    finally:
        nvvm.destroy_program(program)
    return bytes(buf).rstrip(b"\0").decode()


def nvjitlink(ptx: str, options: list[str]) -> bytes:
    """A cubin from nvJitLink with exactly ``options``."""
    from cuda.bindings import nvjitlink as jl

    handle = jl.create(len(options), options)
    try:
        data = ptx.encode()
        jl.add_data(handle, jl.InputType.PTX, data, len(data), "layoutc.ptx")
        jl.complete(handle)
        buf = bytearray(jl.get_linked_cubin_size(handle))
        jl.get_linked_cubin(handle, buf)
    finally:
        jl.destroy(handle)
    return bytes(buf)


def sass(cubin: bytes) -> list[str] | None:
    """The cubin's SASS instructions (addresses dropped), or None without cuobjdump."""
    from layoutc.codegen.cubin import find_cuda_tool

    cuobjdump, nvdisasm = find_cuda_tool("cuobjdump"), find_cuda_tool("nvdisasm")
    if cuobjdump is None or nvdisasm is None:
        return None
    with tempfile.TemporaryDirectory(prefix="layoutc-sass-") as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(cubin)
        env = {**os.environ, "NVDISASM_PATH": str(Path(nvdisasm).parent)}
        out = subprocess.run(
            [cuobjdump, "-sass", str(path)], capture_output=True, text=True, env=env
        ).stdout
    return re.findall(r"/\*[0-9a-f]{4,}\*/\s+([^;]*;)", out)


def cpu_ms(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1e3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", default="sm_80")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    from layoutc.codegen.ptx import compile_ptx_llvm
    from layoutc.codegen.target import Target
    from layoutc.runtime.cubin_info import kernel_resources

    target = Target.parse(args.arch)
    ir_text = gemm_nvvm_ir(args.arch)
    compute = f"-arch={target.compute_name}"
    default_ptx = libnvvm(ir_text, [compute, LIBNVVM_VARIANTS[0]])
    print(f"GEMM tf32 128x128x32 for {args.arch}: {len(ir_text) // 1000} kB of NVVM IR")
    print(f"CPU ms, min of {args.repeat}, variants alternating (load avg {os.getloadavg()[0]:.1f})")

    ptx_rows: dict[str, list] = {}
    ptx_runs: dict[str, Callable[[], str]] = {
        f"libNVVM {o}": (lambda o=o: libnvvm(ir_text, [compute, *o.split()]))
        for o in LIBNVVM_VARIANTS
    }
    ptx_runs["LLVM NVPTX -O3"] = lambda: compile_ptx_llvm(ir_text, target, 3).ptx
    for name, run in ptx_runs.items():
        ptx = run()
        ptx_rows[name] = [float("inf"), ptx.count("\n"), ptx == default_ptx]
    for _ in range(args.repeat):
        for name, run in ptx_runs.items():
            ptx_rows[name][0] = min(ptx_rows[name][0], cpu_ms(run, 1))
    for name, (ms, lines, same) in ptx_rows.items():
        also = ", the default's PTX" if same else ""
        print(f"  {name:45s} {ms:8.1f} ms   {lines:6d} PTX lines{also}")

    link_runs = {
        f"nvJitLink {o}": (lambda o=o: nvjitlink(default_ptx, [f"-arch={args.arch}", o]))
        for o in NVJITLINK_VARIANTS
    }
    best = {name: float("inf") for name in link_runs}
    for _ in range(args.repeat):
        for name, run in link_runs.items():
            best[name] = min(best[name], cpu_ms(run, 1))
    reference = None
    for name, run in link_runs.items():
        cubin = run()
        res = kernel_resources(cubin, "gemm_tf32_sm80")
        code = sass(cubin)
        if reference is None:
            reference = code
        shape = "no cuobjdump" if code is None else f"{len(code):5d} SASS instructions"
        same = "" if code is None else (", the default's SASS" if code == reference else "")
        print(
            f"  {name:45s} {best[name]:8.1f} ms   {shape}, {res.registers} registers, "
            f"{res.stack_bytes} stack bytes{same}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
