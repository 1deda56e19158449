// prove-vectorization: the widest access legal for every value of the symbols, recorded as
// vector_bits, with a remark stating the proof or the fact that decided.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(prove-vectorization)' | FileCheck %s

// Four contiguous f32 per thread, 16-byte aligned bases and a 4*tid offset: 128 bits.
// CHECK-LABEL: func.func @thread_slices
// CHECK: tile.copy {{.*}} {vector_bits = 128 : i64}
func.func @thread_slices(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>} {
  %l = layout.constant #layout.layout<"(4,128):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,128):(1,4)">) -> !tile.tensor<f32, gmem, "(4,128):(1,4)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,128):(1,4)">) -> !tile.tensor<f32, gmem, "(4,128):(1,4)", 16>
  %tid = gpu.thread_id x
  %a = tile.slice %t[(_, %tid)] : !tile.tensor<f32, gmem, "(4,128):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %b = tile.slice %u[(_, %tid)] : !tile.tensor<f32, gmem, "(4,128):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  // expected-remark@+1 {{copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven}}
  tile.copy %a, %b : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

// Seed 002 (CUTLASS affine2): strides above 1 in both modes, so one f64 per access.
// CHECK-LABEL: func.func @affine2
// CHECK: tile.copy {{.*}} {vector_bits = 64 : i64}
func.func @affine2(%p: !tile.ptr<f64, gmem, 16>, %q: !tile.ptr<f64, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(4,4):(2,16)">
  %m = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(2,16)">) -> !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  // expected-remark@+1 {{copy uses 64-bit accesses: stride of mode 0 of the source is 2 (affine2 layout: strides above 1 in every mode)}}
  tile.copy %t, %u : !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>, !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  return
}

// -----

// Contiguous, but the source base is only 8-byte aligned: two f32 per access.
// CHECK-LABEL: func.func @base_alignment
// CHECK: tile.copy {{.*}} {vector_bits = 64 : i64}
func.func @base_alignment(%p: !tile.ptr<f32, gmem, 8>, %q: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(8):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 8>, !layout.layout<"(8):(1)">) -> !tile.tensor<f32, gmem, "(8):(1)", 8>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8):(1)">) -> !tile.tensor<f32, gmem, "(8):(1)", 16>
  // expected-remark@+1 {{copy uses 64-bit accesses: 2 contiguous f32 (8 are contiguous, but the source base pointer is only 8-byte aligned), 8-byte alignment proven}}
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(8):(1)", 8>, !tile.tensor<f32, gmem, "(8):(1)", 16>
  return
}

// -----

// A row stride that is a kernel argument: its divisibility (a compile-spec fact) decides.
// CHECK-LABEL: func.func @row_stride
// CHECK: tile.copy {{.*}} {vector_bits = 128 : i64}
// CHECK: tile.copy {{.*}} {vector_bits = 32 : i64}
func.func @row_stride(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 16>, %ld4: index {layoutc.divisible_by = 4 : i64, layoutc.lower = 8 : i64}, %ld: index {layoutc.lower = 8 : i64}) attributes {gpu.kernel} {
  %s = layout.constant #layout.int_tuple<"(8,2)">
  %d4 = layout.make_stride %ld4 : !layout.int_tuple<"(1,?)">
  %d1 = layout.make_stride %ld : !layout.int_tuple<"(1,?)">
  %l4 = layout.make_layout %s, %d4 : !layout.layout<"(8,2):(1,?)">
  %l1 = layout.make_layout %s, %d1 : !layout.layout<"(8,2):(1,?)">
  %m = layout.constant #layout.layout<"(8,2):(1,8)">
  %g4 = tile.make_tensor %p, %l4 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,2):(1,?)">) -> !tile.tensor<f32, gmem, "(8,2):(1,?)", 16>
  %g1 = tile.make_tensor %p, %l1 : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,2):(1,?)">) -> !tile.tensor<f32, gmem, "(8,2):(1,?)", 16>
  %s1 = tile.make_tensor %q, %m : (!tile.ptr<f32, smem, 16>, !layout.layout<"(8,2):(1,8)">) -> !tile.tensor<f32, smem, "(8,2):(1,8)", 16>
  // expected-remark@+1 {{copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven}}
  tile.copy %g4, %s1 : !tile.tensor<f32, gmem, "(8,2):(1,?)", 16>, !tile.tensor<f32, smem, "(8,2):(1,8)", 16>
  // expected-remark@+1 {{copy uses 32-bit accesses: 8 contiguous f32, but the source advances ld elements between accesses, not provably a multiple of 2}}
  tile.copy %g1, %s1 : !tile.tensor<f32, gmem, "(8,2):(1,?)", 16>, !tile.tensor<f32, smem, "(8,2):(1,8)", 16>
  return
}

// -----

// An offset that is not a multiple of the vector: named, with its expression.
// CHECK-LABEL: func.func @odd_offset
// CHECK: tile.copy {{.*}} {vector_bits = 64 : i64}
func.func @odd_offset(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %i: index {layoutc.lower = 0 : i64}) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(4,64):(1,6)">
  %m = layout.constant #layout.layout<"(4):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,64):(1,6)">) -> !tile.tensor<f32, gmem, "(4,64):(1,6)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4):(1)">) -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %a = tile.slice %t[(_, %i)] : !tile.tensor<f32, gmem, "(4,64):(1,6)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 8>
  // expected-remark@+1 {{copy uses 64-bit accesses: 2 contiguous f32 (4 are contiguous, but the source offset 6*i is not provably a multiple of 4 elements), 8-byte alignment proven}}
  tile.copy %a, %u : !tile.tensor<f32, gmem, "(4):(1)", 8>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

// Converting copies move one element at a time and carry no vector_bits.
// CHECK-LABEL: func.func @convert
// CHECK: tile.copy
// CHECK-NOT: vector_bits
func.func @convert(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f16, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(8):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8):(1)">) -> !tile.tensor<f32, gmem, "(8):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f16, gmem, 16>, !layout.layout<"(8):(1)">) -> !tile.tensor<f16, gmem, "(8):(1)", 16>
  // expected-remark@+1 {{copy converts element by element: element types differ (f32 -> f16): each element is converted}}
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(8):(1)", 16>, !tile.tensor<f16, gmem, "(8):(1)", 16>
  return
}

// -----

// Registers need no alignment; contiguity still decides.
// CHECK-LABEL: func.func @to_registers
// CHECK: tile.copy {{.*}} {vector_bits = 128 : i64}
func.func @to_registers(%p: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(4,2):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,2):(1,4)">) -> !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>
  // expected-remark@+1 {{copy uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven}}
  tile.copy %t, %r : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>
  return
}

// -----

// copy_if with an identity-tensor predicate: vectorized only if the bound is a multiple of
// the vector, so that the predicate is the same for every lane.
// CHECK-LABEL: func.func @predicated
// CHECK: tile.copy_if {{.*}} {vector_bits = 128 : i64}
// CHECK: tile.copy_if {{.*}} {vector_bits = 32 : i64}
func.func @predicated(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %n4: index {layoutc.divisible_by = 4 : i64}, %n: index {layoutc.lower = 1 : i64}) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(16):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(16):(1)">) -> !tile.tensor<f32, gmem, "(16):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(16):(1)">) -> !tile.tensor<f32, gmem, "(16):(1)", 16>
  %s = layout.constant #layout.int_tuple<"(16)">
  %c = tile.make_identity_tensor %s : !layout.int_tuple<"(16)"> -> !tile.tensor<coord, "(16):(1@0)">
  %b4 = layout.make_int_tuple %n4 : !layout.int_tuple<"(?)">
  %b = layout.make_int_tuple %n : !layout.int_tuple<"(?)">
  // expected-remark@+1 {{copy_if uses 128-bit accesses: predicate uniform over 4 contiguous f32 (the bound n4 is a multiple of 4 and every vector starts at a multiple of 4), 16-byte alignment proven}}
  tile.copy_if %c, %t, %u, %b4 : !tile.tensor<coord, "(16):(1@0)">, !tile.tensor<f32, gmem, "(16):(1)", 16>, !tile.tensor<f32, gmem, "(16):(1)", 16>, !layout.int_tuple<"(?)">
  // expected-remark@+1 {{copy_if uses 32-bit accesses: 16 contiguous f32, but the bound n is not provably a multiple of 2}}
  tile.copy_if %c, %t, %u, %b : !tile.tensor<coord, "(16):(1@0)">, !tile.tensor<f32, gmem, "(16):(1)", 16>, !tile.tensor<f32, gmem, "(16):(1)", 16>, !layout.int_tuple<"(?)">
  return
}

// -----

// copy_if with an i1 predicate tensor: one predicate per vector when its layout has stride 0
// across the vector's elements (CuTe's tApA), element-wise when it may differ within a vector.
// CHECK-LABEL: func.func @predicate_tensors
// CHECK: tile.copy_if {{.*}} {vector_bits = 128 : i64}
// CHECK: tile.copy_if {{.*}} {vector_bits = 64 : i64}
// CHECK: tile.copy_if {{.*}} {vector_bits = 32 : i64}
func.func @predicate_tensors(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  %v = tile.alloc_fragment : !tile.tensor<i1, rmem, "(4,4):(0,1)", 1>
  %h = tile.alloc_fragment : !tile.tensor<i1, rmem, "((2,2),4):((0,1),2)", 1>
  %e = tile.alloc_fragment : !tile.tensor<i1, rmem, "(4,4):(1,4)", 1>
  // expected-remark@+1 {{copy_if uses 128-bit accesses: predicate uniform over 4 contiguous f32 (stride 0), 16-byte alignment proven}}
  tile.copy_if %v, %t, %u : !tile.tensor<i1, rmem, "(4,4):(0,1)", 1>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  // expected-remark@+1 {{copy_if uses 64-bit accesses: predicate uniform over 2 contiguous f32 (stride 0; 16 are contiguous, but the predicate tensor may differ within a vector: its 4 lanes have layout (2,2):(0,1), not stride 0), 8-byte alignment proven}}
  tile.copy_if %h, %t, %u : !tile.tensor<i1, rmem, "((2,2),4):((0,1),2)", 1>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  // expected-remark@+1 {{copy_if uses 32-bit accesses: 16 contiguous f32, but the predicate tensor may differ within a vector: its 2 lanes have layout 2:1, not stride 0}}
  tile.copy_if %e, %t, %u : !tile.tensor<i1, rmem, "(4,4):(1,4)", 1>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>, !tile.tensor<f32, gmem, "(4,4):(1,4)", 16>
  return
}

// -----

// fill and clear are copies from a broadcast value: the destination alone decides. A register
// fragment is written element by element.
// CHECK-LABEL: func.func @fills
// CHECK: tile.fill {{.*}} {vector_bits = 128 : i64}
// CHECK: tile.clear {{.*}} {vector_bits = 64 : i64}
// CHECK: tile.clear {{.*}} {vector_bits = 32 : i64}
// CHECK: tile.clear {{.*}} {vector_bits = 32 : i64}
func.func @fills(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 8>, %x: f32) attributes {gpu.kernel} {
  %l = layout.constant #layout.layout<"(8,2):(1,8)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(8,2):(1,8)">) -> !tile.tensor<f32, gmem, "(8,2):(1,8)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, smem, 8>, !layout.layout<"(8,2):(1,8)">) -> !tile.tensor<f32, smem, "(8,2):(1,8)", 8>
  %a = layout.constant #layout.layout<"(4,4):(2,16)">
  %w = tile.make_tensor %p, %a : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,4):(2,16)">) -> !tile.tensor<f32, gmem, "(4,4):(2,16)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(8):(1)", 16>
  // expected-remark@+1 {{fill uses 128-bit accesses: 4 contiguous f32, 16-byte alignment proven}}
  tile.fill %t, %x : !tile.tensor<f32, gmem, "(8,2):(1,8)", 16>, f32
  // expected-remark@+1 {{clear uses 64-bit accesses: 2 contiguous f32 (16 are contiguous, but the tensor base pointer is only 8-byte aligned), 8-byte alignment proven}}
  tile.clear %u : !tile.tensor<f32, smem, "(8,2):(1,8)", 8>
  // expected-remark@+1 {{clear uses 32-bit accesses: stride of mode 0 of the tensor is 2 (affine2 layout: strides above 1 in every mode)}}
  tile.clear %w : !tile.tensor<f32, gmem, "(4,4):(2,16)", 16>
  // expected-remark@+1 {{clear uses 32-bit accesses: the tensor is a register fragment: each f32 is its own register}}
  tile.clear %r : !tile.tensor<f32, rmem, "(8):(1)", 16>
  return
}

// -----

// Contiguous in both tensors, but along different modes (a transpose): one element per access.
// CHECK-LABEL: func.func @transpose
// CHECK: tile.copy {{.*}} {vector_bits = 32 : i64}
func.func @transpose(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, smem, 16>) {
  %l = layout.constant #layout.layout<"(4,8):(8,1)">
  %m = layout.constant #layout.layout<"(4,8):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,8):(8,1)">) -> !tile.tensor<f32, gmem, "(4,8):(8,1)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f32, smem, 16>, !layout.layout<"(4,8):(1,4)">) -> !tile.tensor<f32, smem, "(4,8):(1,4)", 16>
  // expected-remark@+1 {{copy uses 32-bit accesses: the source and the destination are contiguous along different modes (source mode 1, destination mode 0): one f32 per access}}
  tile.copy %t, %u : !tile.tensor<f32, gmem, "(4,8):(8,1)", 16>, !tile.tensor<f32, smem, "(4,8):(1,4)", 16>
  return
}

// -----

// A tensor the analysis cannot see through (a region result) is copied element-wise, and the
// remark says why.
// CHECK-LABEL: func.func @opaque
// CHECK: tile.copy {{.*}} {vector_bits = 32 : i64}
func.func @opaque(%c: i1, %p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>) {
  %l = layout.constant #layout.layout<"(4):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4):(1)">) -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %u = tile.make_tensor %q, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4):(1)">) -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  %r = scf.if %c -> (!tile.tensor<f32, gmem, "(4):(1)", 16>) {
    scf.yield %t : !tile.tensor<f32, gmem, "(4):(1)", 16>
  } else {
    scf.yield %u : !tile.tensor<f32, gmem, "(4):(1)", 16>
  }
  // expected-remark@+1 {{copy uses element-wise accesses: not supported: the tensor '!tile.tensor<f32, gmem, "(4):(1)", 16>' is 'scf.if'}}
  tile.copy %r, %u : !tile.tensor<f32, gmem, "(4):(1)", 16>, !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}
