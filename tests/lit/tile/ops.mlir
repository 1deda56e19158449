// Every tile op in its custom form; printing, re-parsing and the generic form agree.
// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// CHECK-LABEL: func.func @tensors
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32, gmem, 16>, %[[N:.*]]: index, %[[I:.*]]: index)
func.func @tensors(%p: !tile.ptr<f32, gmem, 16>, %n: index, %i: index) {
  %sh = layout.make_shape %n : !layout.int_tuple<"(4096,?)">
  %st = layout.constant #layout.int_tuple<"(1,4096)">
  %l = layout.make_layout %sh, %st : !layout.layout<"(4096,?):(1,4096)">
  // CHECK: %[[T:.*]] = tile.make_tensor %[[P]], %{{.*}} : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4096,?):(1,4096)">) -> !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16>
  // GENERIC: "tile.make_tensor"(%{{.*}}, %{{.*}}) : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4096,?):(1,4096)">) -> !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16>
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4096,?):(1,4096)">) -> !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16>
  // CHECK: tile.get_layout %[[T]] : !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16> -> !layout.layout<"(4096,?):(1,4096)">
  %gl = tile.get_layout %t : !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16> -> !layout.layout<"(4096,?):(1,4096)">
  // CHECK: tile.get_ptr %[[T]] : !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16> -> !tile.ptr<f32, gmem, 16>
  %gp = tile.get_ptr %t : !tile.tensor<f32, gmem, "(4096,?):(1,4096)", 16> -> !tile.ptr<f32, gmem, 16>
  // CHECK: tile.ptr_offset %[[P]], %[[I]] : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem, 4>
  %q = tile.ptr_offset %p, %i : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem, 4>
  %shape = layout.constant #layout.int_tuple<"(128,8)">
  // CHECK: tile.make_identity_tensor %{{.*}} : !layout.int_tuple<"(128,8)"> -> !tile.tensor<coord, "(128,8):(1@0,1@1)">
  %id = tile.make_identity_tensor %shape : !layout.int_tuple<"(128,8)"> -> !tile.tensor<coord, "(128,8):(1@0,1@1)">
  // CHECK: tile.alloc_smem : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  // GENERIC: "tile.alloc_smem"() <{align = 16 : i64, elem = f32, layout = #layout.layout<"Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))">}>
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  // CHECK: tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  // GENERIC: "tile.dynamic_smem"() : () -> !tile.ptr<f32, smem, 16>
  %dyn = tile.dynamic_smem : !tile.ptr<f32, smem, 16>
  // CHECK: tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // GENERIC: "tile.alloc_fragment"() <{elem = f32, layout = #layout.layout<"(4,2,2):(1,4,8)">}>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // CHECK: tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,4):(1,4)", 16>
  %r16 = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,4):(1,4)", 16>
  return
}

// CHECK-LABEL: func.func @views
func.func @views(%A: !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, %bx: index, %by: index, %tid: index) {
  // CHECK: tile.slice %{{.*}}[(_, %{{.*}})] : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(?):(64)", 4>
  // GENERIC: "tile.slice"(%{{.*}}, %{{.*}}) <{coord = "(_,?)"}>
  %col = tile.slice %A[(_, %by)] : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(?):(64)", 4>
  // CHECK: tile.local_tile %{{.*}}[(%{{.*}}, %{{.*}}, _)] {proj = array<i1: true, false, true>, tiler = #layout.int_tuple<"(128,32,8)">} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>
  %gA = tile.local_tile %A[(%bx, %by, _)] {tiler = #layout.int_tuple<"(128,32,8)">, proj = array<i1: true, false, true>} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>
  // CHECK: tile.local_partition %{{.*}}[%{{.*}}] {thr_layout = #layout.layout<"(32,8):(8,1)">} : !tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16> -> !tile.tensor<f32, gmem, "(4,1,8):(2048,0,8)", 4>
  %tA = tile.local_partition %gA[%tid] {thr_layout = #layout.layout<"(32,8):(8,1)">} : !tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16> -> !tile.tensor<f32, gmem, "(4,1,8):(2048,0,8)", 4>
  %row = tile.slice %gA[(0, _, 0)] : !tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16> -> !tile.tensor<f32, gmem, "(8):(1)", 16>
  // CHECK: tile.partition_tv %{{.*}}[%{{.*}}] {tv_layout = #layout.layout<"(4,2):(2,1)">} : !tile.tensor<f32, gmem, "(8):(1)", 16> -> !tile.tensor<f32, gmem, "(2):(1)", 8>
  %pt = tile.partition_tv %row[%tid] {tv_layout = #layout.layout<"(4,2):(2,1)">} : !tile.tensor<f32, gmem, "(8):(1)", 16> -> !tile.tensor<f32, gmem, "(2):(1)", 8>
  %tl = layout.constant #layout.tile<"<32:1,4:1>">
  // By-mode composition keeps only the modes the tiler names (CuTe).
  // CHECK: tile.composition %{{.*}}, %{{.*}} : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "(32,4):(64,1)", 16>
  %cp = tile.composition %gA, %tl : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "(32,4):(64,1)", 16>
  // CHECK: tile.logical_divide %{{.*}}, %{{.*}} : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),(4,2),8):((64,2048),(1,4),8)", 16>
  %ld = tile.logical_divide %gA, %tl : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),(4,2),8):((64,2048),(1,4),8)", 16>
  // CHECK: tile.zipped_divide %{{.*}}, %{{.*}} : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),(4,2,8)):((64,1),(2048,4,8))", 16>
  %zd = tile.zipped_divide %gA, %tl : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),(4,2,8)):((64,1),(2048,4,8))", 16>
  // CHECK: tile.tiled_divide %{{.*}}, %{{.*}} : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16>
  %td = tile.tiled_divide %gA, %tl : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16>
  // CHECK: tile.flat_divide %{{.*}}, %{{.*}} : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16>
  %fd = tile.flat_divide %gA, %tl : (!tile.tensor<f32, gmem, "(128,8,8):(64,1,8)", 16>, !layout.tile<"<32:1,4:1>">) -> !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16>
  // CHECK: tile.flatten %{{.*}} : !tile.tensor<f32, gmem, "((32,4),(4,2,8)):((64,1),(2048,4,8))", 16> -> !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16>
  %fl = tile.flatten %zd : !tile.tensor<f32, gmem, "((32,4),(4,2,8)):((64,1),(2048,4,8))", 16> -> !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16>
  // CHECK: tile.group_modes %{{.*}} {begin = 0 : i64, end = 2 : i64} : !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16> -> !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16>
  %gr = tile.group_modes %fl {begin = 0 : i64, end = 2 : i64} : !tile.tensor<f32, gmem, "(32,4,4,2,8):(64,1,2048,4,8)", 16> -> !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16>
  // CHECK: tile.coalesce %{{.*}} : !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16> -> !tile.tensor<f32, gmem, "(32,4,4,16):(64,1,2048,4)", 16>
  %co = tile.coalesce %gr : !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16> -> !tile.tensor<f32, gmem, "(32,4,4,16):(64,1,2048,4)", 16>
  // CHECK: tile.coalesce %{{.*}} {profile = #layout.int_tuple<"(1,1,1,1)">}
  %cop = tile.coalesce %gr {profile = #layout.int_tuple<"(1,1,1,1)">} : !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16> -> !tile.tensor<f32, gmem, "((32,4),4,2,8):((64,1),2048,4,8)", 16>
  return
}

// CHECK-LABEL: func.func @elements
func.func @elements(%t: !tile.tensor<f32, smem, "(4,8):(8,1)", 16>, %id: !tile.tensor<coord, "(4,8):(1@0,1@1)">, %i: index, %n: index) {
  // CHECK: %[[X:.*]] = tile.load %{{.*}}[(%{{.*}}, 2)] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16> -> f32
  // GENERIC: "tile.load"(%{{.*}}, %{{.*}}) <{coord = "(?,2)"}>
  %x = tile.load %t[(%i, 2)] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16> -> f32
  // CHECK: tile.load %{{.*}}[5] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16> -> f32
  %y = tile.load %t[5] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16> -> f32
  // CHECK: tile.store %[[X]], %{{.*}}[(1, %{{.*}})] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16>
  tile.store %x, %t[(1, %i)] : !tile.tensor<f32, smem, "(4,8):(8,1)", 16>
  // CHECK: tile.load %{{.*}}[(3, %{{.*}})] : !tile.tensor<coord, "(4,8):(1@0,1@1)"> -> !layout.int_tuple<"(3,?)">
  %c = tile.load %id[(3, %i)] : !tile.tensor<coord, "(4,8):(1@0,1@1)"> -> !layout.int_tuple<"(3,?)">
  // CHECK: tile.assume %{{.*}} {divisible_by = 4 : i64, lower = 4 : i64, upper = 4096 : i64} : index
  %n4 = tile.assume %n {divisible_by = 4 : i64, lower = 4 : i64, upper = 4096 : i64} : index
  return
}

// CHECK-LABEL: func.func @algorithms
func.func @algorithms(%g: !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, %s: !tile.tensor<f32, smem, "((4,4)):((1,32))", 16>, %a: !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, %b: !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, %c: !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, %p: !tile.tensor<i1, rmem, "(4,2,2):(1,4,8)", 1>, %id: !tile.tensor<coord, "(4,2,2):(1@0,1@1,1@2)">, %bounds: !layout.int_tuple<"(?,?,?)">, %h: !tile.tensor<f16, rmem, "((4,4)):((1,4))", 2>) {
  // CHECK: tile.copy %{{.*}}, %{{.*}} : !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, !tile.tensor<f32, smem, "((4,4)):((1,32))", 16>
  tile.copy %g, %s : !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, !tile.tensor<f32, smem, "((4,4)):((1,32))", 16>
  // CHECK: tile.copy %{{.*}}, %{{.*}} {atom = #tile.copy_atom<"cp.async.ca", 128>, vector_bits = 128 : i64}
  // GENERIC: "tile.copy"(%{{.*}}, %{{.*}}) <{atom = #tile.copy_atom<"cp.async.ca", 128>, vector_bits = 128 : i64}>
  tile.copy %g, %s {atom = #tile.copy_atom<"cp.async.ca", 128>, vector_bits = 128 : i64} : !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, !tile.tensor<f32, smem, "((4,4)):((1,32))", 16>
  // CHECK: tile.copy %{{.*}}, %{{.*}} : !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, !tile.tensor<f16, rmem, "((4,4)):((1,4))", 2>
  tile.copy %g, %h : !tile.tensor<f32, gmem, "((4,4)):((1,1024))", 16>, !tile.tensor<f16, rmem, "((4,4)):((1,4))", 2>
  // CHECK: tile.copy_if %{{.*}}, %{{.*}}, %{{.*}} : !tile.tensor<i1, rmem, "(4,2,2):(1,4,8)", 1>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  tile.copy_if %p, %a, %c : !tile.tensor<i1, rmem, "(4,2,2):(1,4,8)", 1>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // CHECK: tile.copy_if %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !tile.tensor<coord, "(4,2,2):(1@0,1@1,1@2)">, {{.*}}, !layout.int_tuple<"(?,?,?)">
  tile.copy_if %id, %a, %c, %bounds : !tile.tensor<coord, "(4,2,2):(1@0,1@1,1@2)">, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !layout.int_tuple<"(?,?,?)">
  // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">}
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">} : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  tile.gemm %a, %a, %c : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  %one = arith.constant 1.0 : f32
  // CHECK: tile.axpby %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, f32, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  tile.axpby %one, %a, %one, %c : f32, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, f32, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // CHECK: tile.fill %{{.*}}, %{{.*}} : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, f32
  tile.fill %c, %one : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>, f32
  // CHECK: tile.clear %{{.*}} : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  tile.clear %c : !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  // CHECK: tile.cp_async_commit
  // GENERIC: "tile.cp_async_commit"() : () -> ()
  tile.cp_async_commit
  // CHECK: tile.cp_async_wait {pending = 1 : i64}
  tile.cp_async_wait {pending = 1 : i64}
  // CHECK: tile.cp_async_wait {pending = 0 : i64}
  tile.cp_async_wait
  return
}

// CHECK-LABEL: func.func @lowered
func.func @lowered(%g: !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, %s: !tile.tensor<f32, smem, "(32,8):(8,1)", 16>, %h: !tile.tensor<f16, smem, "(32,64):(64,1)", 16>, %p: !tile.ptr<f32, gmem, 16>, %i: index, %a: f32) {
  // CHECK: %[[V:.*]] = tile.load_vector %{{.*}}[(%{{.*}}, 4)] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> vector<4xf32>
  // GENERIC: "tile.load_vector"(%{{.*}}, %{{.*}}) <{alignment = 16 : i64, coord = "(?,4)", width = 4 : i64}>
  %v = tile.load_vector %g[(%i, 4)] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> vector<4xf32>
  // CHECK: tile.store_vector %[[V]], %{{.*}}[%{{.*}}] : vector<4xf32>, !tile.ptr<f32, gmem, 16>
  tile.store_vector %v, %p[%i] : vector<4xf32>, !tile.ptr<f32, gmem, 16>
  // CHECK: %{{.*}}:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : f32, f32, f32 -> f32
  // GENERIC: "tile.mma"({{.*}}) <{atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">, operandSegmentSizes = array<i32: 4, 2, 4>}> : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %d:4 = tile.mma #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN"> (%a, %a, %a, %a), (%a, %a), (%a, %a, %a, %a) : f32, f32, f32 -> f32
  // CHECK: tile.mma #tile.mma_atom<"FMA"> (%{{.*}}), (%{{.*}}), (%{{.*}}) : f32, f32, f32 -> f32
  %e = tile.mma #tile.mma_atom<"FMA"> (%a), (%a), (%d#0) : f32, f32, f32 -> f32
  // CHECK: %{{.*}}:8 = tile.ldmatrix %{{.*}}[(%{{.*}}, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(32,64):(64,1)", 16> -> f16
  %m:8 = tile.ldmatrix %h[(%i, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(32,64):(64,1)", 16> -> f16
  // CHECK: tile.cp_async %{{.*}}[(%{{.*}}, 4)], %{{.*}}[(%{{.*}}, 0)] {bytes = 16 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, !tile.tensor<f32, smem, "(32,8):(8,1)", 16>
  // GENERIC: "tile.cp_async"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{bytes = 16 : i64, cache = "cg", dst_coord = "(?,0)", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>, src_coord = "(?,4)"}>
  tile.cp_async %g[(%i, 4)], %s[(%i, 0)] {bytes = 16 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, !tile.tensor<f32, smem, "(32,8):(8,1)", 16>
  return
}

// XDSL: "tile.cp_async"

// A zero-filling cp.async: where %b is false nothing is read and the destination gets zeros.
// CHECK-LABEL: func.func @cp_async_zfill
// CHECK: tile.cp_async %{{.*}}[(%{{.*}}, 4)], %{{.*}}[(%{{.*}}, 0)] if %{{.*}} {bytes = 16 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, !tile.tensor<f32, smem, "(32,8):(8,1)", 16>
// GENERIC: "tile.cp_async"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{bytes = 16 : i64, cache = "cg", dst_coord = "(?,0)", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, src_coord = "(?,4)"}>
func.func @cp_async_zfill(%g: !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, %s: !tile.tensor<f32, smem, "(32,8):(8,1)", 16>, %i: index, %b: i1) {
  tile.cp_async %g[(%i, 4)], %s[(%i, 0)] if %b {bytes = 16 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, !tile.tensor<f32, smem, "(32,8):(8,1)", 16>
  return
}

// Dynamic sizes built from one value agree: the verifier sees the shared producer.
// CHECK-LABEL: func.func @shared_extent
// CHECK: tile.copy %{{.*}}, %{{.*}} : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(4)", 16>
func.func @shared_extent(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %n: index) {
  %s = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d1 = layout.constant #layout.int_tuple<"(1)">
  %d4 = layout.constant #layout.int_tuple<"(4)">
  %l1 = layout.make_layout %s, %d1 : !layout.layout<"(?):(1)">
  %l4 = layout.make_layout %s, %d4 : !layout.layout<"(?):(4)">
  %a = tile.make_tensor %p, %l1 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %b = tile.make_tensor %q, %l4 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(4)">) -> !tile.tensor<f32, gmem, "(?):(4)", 16>
  tile.copy %a, %b : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(4)", 16>
  return
}

// A gather tensor (CUTLASS example 59): the index buffer the layout names is an operand.
// CHECK-LABEL: func.func @gather_tensor
// CHECK: %[[G:.*]] = layout.make_composed_layout %{{.*}}, %{{.*}}, %{{.*}} : (!layout.layout<"(1,1):(Custom{rows,64},1)">, !layout.int_tuple<"(0,0)">, !layout.layout<"(?,64):(1@0,1@1)">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">
// CHECK: tile.make_tensor %{{.*}}, %[[G]], %{{.*}} : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">, !tile.ptr<i32, gmem, 4>) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)", 16>
// GENERIC: "tile.make_tensor"(%{{.*}}, %{{.*}}, %{{.*}}) : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">, !tile.ptr<i32, gmem, 4>)
func.func @gather_tensor(%p: !tile.ptr<f32, gmem, 16>, %rows: !tile.ptr<i32, gmem, 4>, %n: index) {
  %s = layout.make_shape %n : !layout.int_tuple<"(?,64)">
  %inner = layout.make_identity %s : !layout.layout<"(?,64):(1@0,1@1)">
  %outer = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1)">
  %off = layout.constant #layout.int_tuple<"(0,0)">
  %g = layout.make_composed_layout %outer, %off, %inner : (!layout.layout<"(1,1):(Custom{rows,64},1)">, !layout.int_tuple<"(0,0)">, !layout.layout<"(?,64):(1@0,1@1)">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">
  %t = tile.make_tensor %p, %g, %rows : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)">, !tile.ptr<i32, gmem, 4>) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (?,64):(1@0,1@1)", 16>
  return
}

// A 64-bit offset (lower-layouts' row term of a gathered access): i64 whatever the index width,
// alignment from its tile.assume like an index offset's.
// CHECK-LABEL: func.func @wide_offset
func.func @wide_offset(%p: !tile.ptr<f32, gmem, 16>, %r: i64) {
  // CHECK: tile.ptr_offset %{{.*}}, %{{.*}} : (!tile.ptr<f32, gmem, 16>, i64) -> !tile.ptr<f32, gmem, 4>
  %q = tile.ptr_offset %p, %r : (!tile.ptr<f32, gmem, 16>, i64) -> !tile.ptr<f32, gmem, 4>
  %c = arith.constant 64 : i64
  %m = arith.muli %r, %c overflow<nsw> : i64
  %a = tile.assume %m {divisible_by = 64} : i64
  // CHECK: tile.ptr_offset %{{.*}}, %{{.*}} : (!tile.ptr<f32, gmem, 16>, i64) -> !tile.ptr<f32, gmem, 16>
  %q2 = tile.ptr_offset %p, %a : (!tile.ptr<f32, gmem, 16>, i64) -> !tile.ptr<f32, gmem, 16>
  return
}
