// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// The f64 tensor core: one f64 register each of A and B, two of C/D; the PTX types are
// implied by the f64 operands (MLIR's inference): the custom form needs no multiplicand*PtxType.
// CHECK-LABEL: func.func @dmma
// CHECK: nvvm.mma.sync A[%a] B[%b] C[%c0, %c1] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 8, n = 8, k = 4>} : (f64, f64, f64) -> !llvm.struct<(f64, f64)>
// GENERIC: "nvvm.mma.sync"(%a, %b, %c0, %c1) <{
// GENERIC-SAME: operandSegmentSizes = array<i32: 1, 1, 2>, shape = #nvvm.shape<m = 8, n = 8, k = 4>
// GENERIC-SAME: : (f64, f64, f64, f64) -> !llvm.struct<(f64, f64)>
func.func @dmma(%a: f64, %b: f64, %c0: f64, %c1: f64) -> !llvm.struct<(f64, f64)> {
  %d = nvvm.mma.sync A[%a] B[%b] C[%c0, %c1] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 8, n = 8, k = 4>} : (f64, f64, f64) -> !llvm.struct<(f64, f64)>
  return %d : !llvm.struct<(f64, f64)>
}
