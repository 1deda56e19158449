"""The sm80 tensor-core GEMM of examples/gemm_tf32_sm80.py with 16-bit inputs: ``mma.sync
m16n8k16`` with f16 (or bf16) A and B and FP32 accumulation, C in f32.

``C = A @ B.T`` with A (M, K), B (N, K) K-major and C (M, N) row-major, f32 (torch:
``torch.mm(a, b.t(), out_dtype=torch.float32)``). The kernel is the same builder
(``make_gemm``): a 128 x 128 x 64 CTA tile (each shared-memory row of a K-block is 64 halves =
128 bytes, swizzled with ``Sw<3,3,3>``, CUTLASS's atom for 16-bit K-major tiles), 3 cp.async
stages, 2 x 2 warps, ``ldmatrix.x4`` for both operands (8 halves per row: a 16-bit K-major tile
is exactly what ldmatrix reads), and the epilogue through shared memory.

bf16 goes through the same code (``GemmConfig(dtype="bf16")``; benchmarks/gemm.py runs it from
torch tensors: numpy has no bf16 type). The check here uses small integers, exact in f16.

Run it:  layoutc run examples/gemm_f16_sm80.py [--size 4096]   (size = M = N = K)
"""

from gemm_tf32_sm80 import GemmConfig, make_example, make_gemm

CONFIG = GemmConfig(dtype="f16", bk=64)
gemm_f16_sm80 = make_gemm(CONFIG, "gemm_f16_sm80")

EXAMPLE = make_example(
    CONFIG,
    gemm_f16_sm80,
    "C = A @ B.T, f16 mma.sync m16n8k16 (f32 accumulate), 128x128x64 CTA tiles, 3-stage "
    "cp.async pipeline, swizzled smem, ldmatrix.x4, smem epilogue",
)
