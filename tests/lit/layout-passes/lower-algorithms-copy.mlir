// lower-algorithms on copies: vector accesses of the proven width, element accesses otherwise,
// scf.for over dynamic extents, full unrolling over register fragments, cp.async, ldmatrix.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(lower-algorithms)' | FileCheck %s

// CHECK-LABEL: func.func @vectorized
// CHECK-COUNT-2: tile.load_vector %{{.*}}[(0, {{[01]}})] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16> -> vector<4xf32>
// CHECK-NOT: tile.copy
func.func @vectorized(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) {
  %l = layout.constant #layout.layout<"(4,2):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,2):(1,4)">) -> !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,2):(1,4)">) -> !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>
  tile.copy %t, %u {vector_bits = 128 : i64} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>
  return
}

// -----

// Without vector_bits (prove-vectorization did not run) the proof runs here: same result.
// A transposing copy cannot be vectorized: one element per access, in both tensors' natural
// coordinates (no division or remainder).
// CHECK-LABEL: func.func @transpose
// CHECK: %[[X:.*]] = tile.load %{{.*}}[(0, 0)]
// CHECK: tile.store %[[X]], %{{.*}}[(0, 0)]
// CHECK: %[[Y:.*]] = tile.load %{{.*}}[(1, 0)]
// CHECK: tile.store %[[Y]], %{{.*}}[(1, 0)]
// CHECK-COUNT-6: tile.store
// CHECK-NOT: tile.store
func.func @transpose(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) {
  %l = layout.constant #layout.layout<"(2,4):(4,1)">
  %m = layout.constant #layout.layout<"(2,4):(1,2)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(2,4):(4,1)">) -> !tile.tensor<f32, gmem, "(2,4):(4,1)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(2,4):(1,2)">) -> !tile.tensor<f32, gmem, "(2,4):(1,2)", 16>
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(2,4):(4,1)", 16>, !tile.tensor<f32, gmem, "(2,4):(1,2)", 16>
  return
}

// -----

// A dynamic extent: the lanes stay inside one access and an scf.for walks the rest.
// CHECK-LABEL: func.func @dynamic_extent
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %arg2 step %{{.*}} {
// CHECK-NEXT: %[[V:.*]] = tile.load_vector %{{.*}}[(0, %[[I]])] {alignment = 16 : i64}
// CHECK-NEXT: tile.store_vector %[[V]], %{{.*}}[(0, %[[I]])] {alignment = 16 : i64}
// CHECK-NEXT: }
func.func @dynamic_extent(%arg0: !tile.ptr<f32, gmem, 16>, %arg1: !tile.ptr<f32, gmem, 16>, %arg2: index {layoutc.lower = 1 : i64}) {
  %s = layout.make_shape %arg2 : !layout.int_tuple<"(4,?)">
  %d = layout.constant #layout.int_tuple<"(1,4)">
  %l = layout.make_layout %s, %d : !layout.layout<"(4,?):(1,4)">
  %t = tile.make_tensor %arg0, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,4)">) -> !tile.tensor<f32, gmem, "(4,?):(1,4)", 16>
  %u = tile.make_tensor %arg1, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,4)">) -> !tile.tensor<f32, gmem, "(4,?):(1,4)", 16>
  tile.copy %t, %u {vector_bits = 128 : i64} : !tile.tensor<f32, gmem, "(4,?):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,?):(1,4)", 16>
  return
}

// -----

// A converting copy into a register fragment: unrolled, one conversion per element.
// CHECK-LABEL: func.func @convert_to_registers
// CHECK-COUNT-4: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: scf.for
func.func @convert_to_registers(%arg0: !tile.tensor<f32, gmem, "(4):(1)", 16>) {
  %r = tile.alloc_fragment : !tile.tensor<f16, rmem, "(4):(1)", 2>
  tile.copy %arg0, %r : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f16, rmem, "(4):(1)", 2>
  return
}

// -----

// cp.async of the atom's width between global and shared memory.
// CHECK-LABEL: func.func @cp_async
// CHECK: tile.cp_async %arg0[(0, 0)], %arg1[(0, 0)] {bytes = 16 : i64, cache = "cg"}
// CHECK: tile.cp_async %arg0[(0, 1)], %arg1[(0, 1)] {bytes = 16 : i64, cache = "cg"}
func.func @cp_async(%arg0: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %arg1: !tile.tensor<f32, smem, "(4,2):(1,4)", 16>) {
  tile.copy %arg0, %arg1 {atom = #tile.copy_atom<"cp.async.cg", 128>} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, smem, "(4,2):(1,4)", 16>
  tile.cp_async_commit
  tile.cp_async_wait {pending = 0 : i64}
  return
}

// -----

// ldmatrix: one instruction per repetition at the first element of this thread's row, its
// values stored to the destination's value mode. A register fragment's elements at static
// coordinates are addressed as lower-layouts would: its pointer plus the element offset.
// CHECK-LABEL: func.func @ldmatrix
// CHECK: %[[R:.*]] = tile.alloc_fragment
// CHECK-NEXT: %[[P:.*]] = tile.get_ptr %[[R]]
// CHECK: %[[V:.*]]:8 = tile.ldmatrix %arg0[(0, 0)] {atom = #tile.copy_atom<"ldmatrix.x4", 128>}
// CHECK: tile.store %[[V]]#0, %[[P]][0]
// CHECK: tile.store %[[V]]#7, %[[P]][7]
// CHECK: %[[W:.*]]:8 = tile.ldmatrix %arg0[(0, 1)]
// CHECK: tile.store %[[W]]#7, %[[P]][15]
func.func @ldmatrix(%arg0: !tile.tensor<f16, smem, "(8,2):(1,64)", 16>) {
  %r = tile.alloc_fragment : !tile.tensor<f16, rmem, "(8,2):(1,8)", 2>
  tile.copy %arg0, %r {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, smem, "(8,2):(1,64)", 16>, !tile.tensor<f16, rmem, "(8,2):(1,8)", 2>
  return
}

// -----

// copy_if with a coordinate predicate: the predicate is arith on the coordinates (here the
// thread's first coordinate plus the element's) against the bound.
// CHECK-LABEL: func.func @copy_if
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : index
// CHECK: scf.if %[[C]] {
// CHECK: tile.load %arg0[(0)]
// CHECK-COUNT-3: scf.if
func.func @copy_if(%arg0: !tile.tensor<f32, gmem, "(4):(1)", 16>, %arg1: !tile.tensor<f32, gmem, "(4):(1)", 16>, %arg2: index) {
  %s = layout.constant #layout.int_tuple<"(128)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(128)"> -> !tile.tensor<coord, "(128):(1@0)">
  %tid = gpu.thread_id x
  %p = tile.local_partition %c[%tid] {thr_layout = #layout.layout<"(32):(1)">} : !tile.tensor<coord, "(128):(1@0)"> -> !tile.tensor<coord, "((4)):((32@0))", origin = "(?)">
  %b = layout.make_int_tuple %arg2 : !layout.int_tuple<"(?)">
  tile.copy_if %p, %arg0, %arg1, %b : !tile.tensor<coord, "((4)):((32@0))", origin = "(?)">, !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>, !layout.int_tuple<"(?)">
  return
}

// -----

// copy_if with an i1 predicate whose layout has stride 0 across each vector (CuTe's tApA): one
// predicate load and one guarded 128-bit load/store pair per vector.
// CHECK-LABEL: func.func @copy_if_uniform_tensor
// CHECK: %[[K0:.*]] = tile.load %arg2[(0, 0)]
// CHECK: scf.if %[[K0]] {
// CHECK: %[[V0:.*]] = tile.load_vector %arg0[(0, 0)] {alignment = 16 : i64} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16> -> vector<4xf32>
// CHECK: tile.store_vector %[[V0]], %arg1[(0, 0)] {alignment = 16 : i64}
// CHECK: %[[K1:.*]] = tile.load %arg2[(0, 1)]
// CHECK: scf.if %[[K1]] {
// CHECK: tile.load_vector %arg0[(0, 1)]
// CHECK-NOT: scf.if
// CHECK: return
func.func @copy_if_uniform_tensor(%arg0: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %arg1: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %arg2: !tile.tensor<i1, rmem, "(4,2):(0,1)", 1>) {
  tile.copy_if %arg2, %arg0, %arg1 : !tile.tensor<i1, rmem, "(4,2):(0,1)", 1>, !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>
  return
}

// -----

// copy_if with a coordinate predicate whose bound is a multiple of 4: the comparison of each
// vector's first coordinate guards the whole 128-bit access.
// CHECK-LABEL: func.func @copy_if_uniform_bound
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %n : index
// CHECK: scf.if %[[C]] {
// CHECK: tile.load_vector
// CHECK: tile.store_vector
// CHECK: scf.if
// CHECK: tile.load_vector
// CHECK-NOT: scf.if
// CHECK: return
func.func @copy_if_uniform_bound(%arg0: !tile.tensor<f32, gmem, "(8):(1)", 16>, %arg1: !tile.tensor<f32, gmem, "(8):(1)", 16>, %n: index {layoutc.divisible_by = 4 : i64}) {
  %s = layout.constant #layout.int_tuple<"(1024)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(1024)"> -> !tile.tensor<coord, "(1024):(1@0)">
  %tid = gpu.thread_id x
  %p = tile.local_tile %c[(%tid)] {tiler = #layout.int_tuple<"(8)">} : !tile.tensor<coord, "(1024):(1@0)"> -> !tile.tensor<coord, "((8)):((1@0))", origin = "(?)">
  %b = layout.make_int_tuple %n : !layout.int_tuple<"(?)">
  tile.copy_if %p, %arg0, %arg1, %b : !tile.tensor<coord, "((8)):((1@0))", origin = "(?)">, !tile.tensor<f32, gmem, "(8):(1)", 16>, !tile.tensor<f32, gmem, "(8):(1)", 16>, !layout.int_tuple<"(?)">
  return
}

// -----

// copy_if with a zero-filling cp.async atom (CuTe's SM80_CP_ASYNC_CACHEGLOBAL_ZFILL): no
// branch; each 128-bit copy carries its vector's predicate and writes zeros where it is false
// (a GEMM's residue tiles then add nothing for the elements past the edge).
// CHECK-LABEL: func.func @copy_if_zfill
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %n : index
// CHECK-NOT: scf.if
// CHECK: tile.cp_async %arg0[(0)], %arg1[(0)] if %[[C]] {bytes = 16 : i64, cache = "cg"}
// CHECK-NOT: scf.if
// CHECK: return
func.func @copy_if_zfill(%arg0: !tile.tensor<f32, gmem, "(4):(1)", 16>, %arg1: !tile.tensor<f32, smem, "(4):(1)", 16>, %n: index {layoutc.divisible_by = 4 : i64}) {
  %s = layout.constant #layout.int_tuple<"(1024)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(1024)"> -> !tile.tensor<coord, "(1024):(1@0)">
  %tid = gpu.thread_id x
  %p = tile.local_tile %c[(%tid)] {tiler = #layout.int_tuple<"(4)">} : !tile.tensor<coord, "(1024):(1@0)"> -> !tile.tensor<coord, "((4)):((1@0))", origin = "(?)">
  %b = layout.make_int_tuple %n : !layout.int_tuple<"(?)">
  tile.copy_if %p, %arg0, %arg1, %b {atom = #tile.copy_atom<"cp.async.cg.zfill", 128>} : !tile.tensor<coord, "((4)):((1@0))", origin = "(?)">, !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, smem, "(4):(1)", 16>, !layout.int_tuple<"(?)">
  return
}
