// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @wgmma
func.func @wgmma(%a: i64, %b: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>, %h: !llvm.struct<(i32, i32, i32, i32)>) {
  // CHECK: nvvm.wgmma.fence.aligned
  // GENERIC: "nvvm.wgmma.fence.aligned"() : () -> ()
  nvvm.wgmma.fence.aligned
  // CHECK: %{{.*}} = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<neg>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  // GENERIC: "nvvm.wgmma.mma_async"(%{{.*}}, %{{.*}}, %{{.*}}) <{layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<neg>, scaleD = #nvvm.wgmma_scale_out<one>, shape = #nvvm.shape<m = 64, n = 8, k = 16>, typeA = #nvvm.wgmma_type<bf16>, typeB = #nvvm.wgmma_type<bf16>, typeD = #nvvm.wgmma_type<f32>}>
  // XDSL: "nvvm.wgmma.mma_async"
  %d = nvvm.wgmma.mma_async %a, %b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>], B [<bf16>, #nvvm.wgmma_scale_in<neg>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: nvvm.wgmma.mma_async {{.*}} D [<f16>, #nvvm.wgmma_scale_out<zero>], A [<f16>, #nvvm.wgmma_scale_in<one>, <col>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !llvm.struct<(i32, i32, i32, i32)>
  %e = nvvm.wgmma.mma_async %a, %b, %h, #nvvm.shape<m = 64, n = 16, k = 16>, D [<f16>, #nvvm.wgmma_scale_out<zero>], A [<f16>, #nvvm.wgmma_scale_in<one>, <col>], B [<f16>, #nvvm.wgmma_scale_in<one>, <row>] : !llvm.struct<(i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.commit.group.sync.aligned
  // CHECK: nvvm.wgmma.wait.group.sync.aligned 1
  // GENERIC: "nvvm.wgmma.wait.group.sync.aligned"() <{group = 1 : i64}> : () -> ()
  nvvm.wgmma.wait.group.sync.aligned 1
  return
}

// CHECK-LABEL: func.func @stmatrix
func.func @stmatrix(%p: !llvm.ptr<3>, %r: i32) {
  // CHECK: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
  nvvm.stmatrix %p, %r, %r, %r, %r {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
  // CHECK: nvvm.stmatrix %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32
  nvvm.stmatrix %p, %r {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32
  return
}
