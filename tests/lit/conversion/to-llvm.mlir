// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s --check-prefixes=CHECK,NVVM
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=host})' | FileCheck %s --check-prefixes=CHECK,HOST
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm index-bitwidth=32})' | FileCheck %s --check-prefix=I32
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm)' --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// Allocations become module-level globals (first in the module); dynamic shared memory is
// MLIR's zero-sized external global in address space 3, declared 16-byte aligned (all the GPU
// guarantees) and realigned at run time to its widest use (@dynamic_smem below;
// dynamic-smem-align.mlir).
// CHECK: llvm.mlir.global external @__dynamic_shmem__() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @__layoutc_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f16>

// The kernel ABI: a tensor becomes its pointer and its dynamic layout entries; the host adds
// the thread context.
// CHECK-LABEL: func.func @scale
// NVVM-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64, %[[ALPHA:.*]]: f32) attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>}
// HOST-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64, %[[ALPHA:.*]]: f32, %ctx: !llvm.ptr {layoutc.thread_context})
// I32-LABEL: func.func @scale
// I32-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: f32)
// The register fragment is an alloca in the entry block.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[FRAG:.*]] = llvm.alloca %[[ONE]] x !llvm.array<4 x f32> {alignment = 4 : i64} : (i64) -> !llvm.ptr
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: arith.extui %[[TID]] : i32 to i64
// CHECK: %[[P:.*]] = llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %[[V]], %[[FRAG]] {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
// CHECK: cf.cond_br
// CHECK: llvm.getelementptr %[[FRAG]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: arith.mulf
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
// CHECK-NOT: tile.
// CHECK-NOT: index
func.func @scale(%x: !tile.tensor<f32, gmem, "(?):(1)", 16>, %alpha: f32)
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %e = arith.muli %t, %c4 : index
  %v = tile.load_vector %x[(%e)] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(?):(1)", 16> -> vector<4xf32>
  %s = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  tile.store_vector %v, %s[(0)] : vector<4xf32>, !tile.tensor<f32, rmem, "(4):(1)", 4>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %w = tile.load %s[(%k)] : !tile.tensor<f32, rmem, "(4):(1)", 4> -> f32
    %m = arith.mulf %w, %alpha : f32
    %i = arith.addi %e, %k : index
    tile.store %m, %x[(%i)] : !tile.tensor<f32, gmem, "(?):(1)", 16>
  }
  return
}

// Shared memory, cp.async, ldmatrix and mma.sync.
// CHECK-LABEL: func.func @pipeline
// CHECK: %[[S:.*]] = llvm.mlir.addressof @__layoutc_smem : !llvm.ptr<3>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: nvvm.barrier0
// CHECK: %[[L:.*]] = nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.extractvalue %[[L]][0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK: llvm.extractelement
// CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.extractvalue %[[D]][3] : !llvm.struct<(f32, f32, f32, f32)>
func.func @pipeline(%src: !tile.ptr<f16, gmem, 16>, %c: f32) -> f32
    attributes {gpu.kernel, gpu.known_block_size = array<i32: 32, 1, 1>} {
  %lane = gpu.lane_id
  %s = tile.alloc_smem : !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  %c8 = arith.constant 8 : index
  %e = arith.muli %lane, %c8 : index
  tile.cp_async %src[%e], %s[(%lane, 0)] {bytes = 16 : i64, cache = "cg"} : !tile.ptr<f16, gmem, 16>, !tile.tensor<f16, smem, "(32,8):(8,1)", 16>
  tile.cp_async_commit
  tile.cp_async_wait {pending = 0 : i64}
  gpu.barrier
  %v:8 = tile.ldmatrix %s[(%lane, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(32,8):(8,1)", 16> -> f16
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x16_F32F16F16F32_TN"> (%v#0, %v#1, %v#2, %v#3, %v#4, %v#5, %v#6, %v#7), (%v#0, %v#1, %v#2, %v#3), (%c, %c, %c, %c) : f16, f16, f32 -> f32
  return %d#3 : f32
}

// A zero-filling cp.async: the predicate becomes PTX's src-size (16 bytes or none).
// CHECK-LABEL: func.func @cp_async_zfill
// CHECK: %[[N:.*]] = arith.constant 16 : i32
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[N]], %[[Z]] : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[S]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
func.func @cp_async_zfill(%src: !tile.ptr<f32, gmem, 16>, %s: !tile.tensor<f32, smem, "(32,4):(4,1)", 16>, %b: i1) {
  %lane = gpu.lane_id
  tile.cp_async %src[%lane], %s[(%lane, 0)] if %b {bytes = 16 : i64, cache = "cg"} : !tile.ptr<f32, gmem, 16>, !tile.tensor<f32, smem, "(32,4):(4,1)", 16>
  return
}

// Dynamic shared memory is addressed directly (no casts left).
// CHECK-LABEL: func.func @dynamic_smem
func.func @dynamic_smem(%i: index) -> f32 attributes {gpu.kernel} {
  // CHECK: %[[P:.*]] = llvm.mlir.addressof @__dynamic_shmem__ : !llvm.ptr<3>
  // CHECK-NOT: unrealized_conversion_cast
  // CHECK: llvm.getelementptr %[[P]]
  %p = tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  %q = tile.dynamic_smem : !tile.ptr<f32, smem, 32>
  %x = tile.load %p[%i] : !tile.ptr<f32, smem, 16> -> f32
  %y = tile.load %q[%i] : !tile.ptr<f32, smem, 32> -> f32
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// TF32 from f32 values: cvt.rna on the GPU, the same rounding in integer arithmetic on the host.
// CHECK-LABEL: func.func @tf32
// NVVM: llvm.inline_asm "cvt.rna.tf32.f32 $0, $1;", "=r,f" %{{.*}} : (f32) -> i32
// HOST: arith.addi %{{.*}}, %{{.*}} : i32
// HOST: arith.andi
// CHECK: nvvm.mma.sync
// CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>
func.func @tf32(%a: f32, %c: f32) -> f32 attributes {gpu.kernel} {
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%a, %a, %a, %a), (%a, %a), (%c, %c, %c, %c) : f32, f32, f32 -> f32
  return %d#0 : f32
}

// XDSL: func.func @tf32
