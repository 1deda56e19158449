// Swizzled shared memory at run-time coordinates (CUTLASS example 59's Sw<1,2,3> o
// (8,(4,2)):(4,(1,32))): a thread's row is Sw o (4*tid) o ((4,2)):((1,32)), a dynamic offset
// inside the swizzle. Vectorization holds within the swizzle's 2^M = 4-element runs from an
// aligned start (the remark says so); every address is Sw(offset + L(c)), emitted as
// andi / shrui / xori on the argument, once per thread; constants that share no bit with the
// thread's part are one xori each (passes/analysis/bits.py).
// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(layout-lowering)' | FileCheck %s

// CHECK-LABEL: func.func @stage
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C36:.*]] = arith.constant 36 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[S:.*]] = tile.get_ptr %{{.*}} : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.ptr<f32, smem, 16>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[V:.*]] = tile.load_vector %{{.*}} {alignment = 16 : i64} : !tile.ptr<f32, gmem, 16> -> vector<4xf32>
// Sw<1,2,3>(x) = x ^ ((x & 32) >> 3) for x = 4 * tid
// CHECK: %[[X:.*]] = arith.shli %[[TID]], %[[C2]] : index
// CHECK: %[[Y:.*]] = arith.andi %[[X]], %[[C32]] : index
// CHECK: %[[Z:.*]] = arith.shrui %[[Y]], %[[C3]] : index
// CHECK: %[[A:.*]] = arith.xori %[[X]], %[[Z]] : index
// CHECK: tile.store_vector %[[V]], %[[S]][%[[A]]] {alignment = 16 : i64} : vector<4xf32>, !tile.ptr<f32, smem, 16>
// The second half of the row: x + 32, where 32 shares no bit with x = 4 * tid (tid < 8), so
// x + 32 = x ^ 32 and, the swizzle being linear over xor, Sw(x + 32) = Sw(x) ^ Sw(32) = Sw(x) ^ 36.
// CHECK: %[[A2:.*]] = arith.xori %[[A]], %[[C36]] : index
// CHECK: tile.store_vector %{{.*}}, %[[S]][%[[A2]]] {alignment = 16 : i64}
// CHECK: gpu.barrier
// The column reads: the thread's part tid + 28 * (tid / 4) swizzled once; row j adds 4 * j,
// which shares no bit with it: one xori with the constant Sw(4 * j) = 4 * j per row.
// CHECK: %[[R:.*]] = arith.xori
// CHECK: tile.load %[[S]][%[[R]]]
// CHECK: %[[R1:.*]] = arith.xori %[[R]], %[[C4]] : index
// CHECK: tile.load %[[S]][%[[R1]]]
// CHECK-COUNT-6: arith.xori %[[R]], %{{.*}} : index
// CHECK-NOT: tile.tensor<f32, smem, "Sw
// CHECK: return
func.func @stage(%g: !tile.ptr<f32, gmem, 16>, %o: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel, gpu.known_block_size = array<i32: 8, 1, 1>} {
  %gl = layout.constant #layout.layout<"(8,8):(8,1)">
  %gt = tile.make_tensor %g, %gl : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,8):(8,1)">) -> !tile.tensor<f32, gmem, "(8,8):(8,1)", 16>
  %s = tile.alloc_smem {layout = #layout.layout<"Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))">, elem = f32, align = 16} : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  %tid = gpu.thread_id x
  %grow = tile.slice %gt[(%tid, _)] : !tile.tensor<f32, gmem, "(8,8):(8,1)", 16> -> !tile.tensor<f32, gmem, "(8):(1)", 16>
  %srow = tile.slice %s[(%tid, _)] : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>
  // expected-remark@+1 {{copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven; the destination's swizzle Sw<1,2,3> keeps runs of 4 elements and its offset 4*tid_x is a multiple of 4}}
  tile.copy %grow, %srow : !tile.tensor<f32, gmem, "(8):(1)", 16>, !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>
  gpu.barrier
  %ol = layout.constant #layout.layout<"(8,8):(1,8)">
  %ot = tile.make_tensor %o, %ol : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,8):(1,8)">) -> !tile.tensor<f32, gmem, "(8,8):(1,8)", 16>
  %scol = tile.slice %s[(_, %tid)] : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>
  %ocol = tile.slice %ot[(_, %tid)] : !tile.tensor<f32, gmem, "(8,8):(1,8)", 16> -> !tile.tensor<f32, gmem, "(8):(1)", 16>
  // expected-remark@+1 {{copy uses 32-bit accesses: stride of mode 0 of the source is 4}}
  tile.copy %scol, %ocol : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>, !tile.tensor<f32, gmem, "(8):(1)", 16>
  return
}
