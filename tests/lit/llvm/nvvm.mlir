// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @registers
func.func @registers() {
  // CHECK: nvvm.read.ptx.sreg.tid.x : i32
  // GENERIC: "nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %0 = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: nvvm.read.ptx.sreg.tid.y : i32
  %1 = nvvm.read.ptx.sreg.tid.y : i32
  // CHECK: nvvm.read.ptx.sreg.tid.z : i32
  %2 = nvvm.read.ptx.sreg.tid.z : i32
  // CHECK: nvvm.read.ptx.sreg.ntid.x : i32
  %3 = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
  %4 = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.z : i32
  %5 = nvvm.read.ptx.sreg.nctaid.z : i32
  // CHECK: nvvm.read.ptx.sreg.laneid : i32
  %6 = nvvm.read.ptx.sreg.laneid : i32
  // CHECK: nvvm.read.ptx.sreg.warpsize : i32
  %7 = nvvm.read.ptx.sreg.warpsize : i32
  return
}

// CHECK-LABEL: func.func @sync
func.func @sync(%mask: i32, %v: f32, %i: i32) {
  // CHECK: nvvm.barrier0
  // GENERIC: "nvvm.barrier0"() : () -> ()
  nvvm.barrier0
  // CHECK: nvvm.bar.warp.sync %{{.*}} : i32
  nvvm.bar.warp.sync %mask : i32
  %c = arith.constant 31 : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
  // GENERIC: "nvvm.shfl.sync"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kind = #nvvm<shfl_kind bfly>}> : (i32, f32, i32, i32) -> f32
  %s = nvvm.shfl.sync bfly %mask, %v, %i, %c : f32 -> f32
  // CHECK: nvvm.shfl.sync idx %{{.*}} {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  // GENERIC: <{kind = #nvvm<shfl_kind idx>, return_value_and_is_valid}> : (i32, i32, i32, i32) -> !llvm.struct<(i32, i1)>
  %p = nvvm.shfl.sync idx %mask, %i, %i, %c {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
  // CHECK: nvvm.shfl.sync up
  %u = nvvm.shfl.sync up %mask, %i, %i, %c : i32 -> i32
  // CHECK: nvvm.shfl.sync down
  %d = nvvm.shfl.sync down %mask, %v, %i, %c : f32 -> f32
  return
}

// CHECK-LABEL: func.func @async_copies
func.func @async_copies(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>, %n: i32) {
  // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  // GENERIC: "nvvm.cp.async.shared.global"(%{{.*}}, %{{.*}}) <{modifier = #nvvm<load_cache_modifier cg>, size = 16 : i32}> : (!llvm.ptr<3>, !llvm.ptr<1>) -> ()
  nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.shared.global %dst, %src, 8, cache = ca, %n : !llvm.ptr<3>, !llvm.ptr<1>, i32
  // CHECK: nvvm.cp.async.commit.group
  nvvm.cp.async.commit.group
  // CHECK: nvvm.cp.async.wait.group 1
  // GENERIC: "nvvm.cp.async.wait.group"() <{n = 1 : i32}> : () -> ()
  nvvm.cp.async.wait.group 1
  return
}

// CHECK-LABEL: func.func @matrices
func.func @matrices(%s: !llvm.ptr<3>, %a: i32, %h: vector<2xf16>, %f: f32) {
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  %x4 = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 1 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> i32
  %x1 = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 1 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> i32
  // CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // GENERIC: "nvvm.mma.sync"({{.*}}) <{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, operandSegmentSizes = array<i32: 4, 2, 4>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}>
  %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
  %e = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%h, %h] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
  return
}

// XDSL: "nvvm.shfl.sync"
// XDSL: "nvvm.mma.sync"
