// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @copy_sizes(%s: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %d: !tile.tensor<f32, rmem, "16:1", 4>) {
  // expected-error@+1 {{'tile.copy' op source has 32 elements but destination has 16}}
  tile.copy %s, %d : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, !tile.tensor<f32, rmem, "16:1", 4>
  return
}

// -----

func.func @copy_coordinates(%s: !tile.tensor<coord, "16:1@0">, %d: !tile.tensor<f32, rmem, "16:1", 4>) {
  // expected-error@+1 {{'tile.copy' op operand #0 must be a !tile.tensor in memory, but got '!tile.tensor<coord, "16:1@0">'}}
  tile.copy %s, %d : !tile.tensor<coord, "16:1@0">, !tile.tensor<f32, rmem, "16:1", 4>
  return
}

// -----

func.func @copy_i1(%s: !tile.tensor<i1, rmem, "16:1", 1>, %d: !tile.tensor<i8, rmem, "16:1", 1>) {
  // expected-error@+1 {{'tile.copy' op cannot convert i1 to i8 in a copy (i1 converts only to i1)}}
  tile.copy %s, %d : !tile.tensor<i1, rmem, "16:1", 1>, !tile.tensor<i8, rmem, "16:1", 1>
  return
}

// -----

func.func @cp_async_spaces(%s: !tile.tensor<f32, smem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f32, rmem, "(4,2):(1,4)", 16>) {
  // expected-error@+1 {{'tile.copy' op atom 'cp.async.ca' copies gmem -> smem, not smem -> rmem}}
  tile.copy %s, %d {atom = #tile.copy_atom<"cp.async.ca", 128>} : !tile.tensor<f32, smem, "(4,2):(1,4)", 16>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 16>
  return
}

// -----

func.func @ldmatrix_spaces(%s: !tile.tensor<f16, gmem, "(8,2):(1,8)", 16>, %d: !tile.tensor<f16, rmem, "(8,2):(1,8)", 16>) {
  // expected-error@+1 {{'tile.copy' op atom 'ldmatrix.x4' copies smem -> rmem, not gmem -> rmem}}
  tile.copy %s, %d {atom = #tile.copy_atom<"ldmatrix.x4", 128>} : !tile.tensor<f16, gmem, "(8,2):(1,8)", 16>, !tile.tensor<f16, rmem, "(8,2):(1,8)", 16>
  return
}

// -----

func.func @ldmatrix_trans_elements(%s: !tile.tensor<f32, smem, "(2,2):(1,2)", 16>, %d: !tile.tensor<f32, rmem, "(2,2):(1,2)", 16>) {
  // expected-error@+1 {{'tile.copy' op atom 'ldmatrix.x2.trans' needs 16-bit elements, got 32-bit elements}}
  tile.copy %s, %d {atom = #tile.copy_atom<"ldmatrix.x2.trans", 64>} : !tile.tensor<f32, smem, "(2,2):(1,2)", 16>, !tile.tensor<f32, rmem, "(2,2):(1,2)", 16>
  return
}

// -----

func.func @atom_types(%s: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<i32, smem, "(4,2):(1,4)", 16>) {
  // expected-error@+1 {{'tile.copy' op atom 'cp.async.ca' moves bits: source and destination element types must be equal, got f32 and i32}}
  tile.copy %s, %d {atom = #tile.copy_atom<"cp.async.ca", 128>} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<i32, smem, "(4,2):(1,4)", 16>
  return
}

// -----

func.func @atom_rank(%s: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f32, smem, "8:1", 16>) {
  // expected-error@+1 {{'tile.copy' op with atom 'cp.async.ca' source and destination must have equal ranks (CuTe), got 2 and 1}}
  tile.copy %s, %d {atom = #tile.copy_atom<"cp.async.ca", 128>} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, smem, "8:1", 16>
  return
}

// -----

func.func @atom_values(%s: !tile.tensor<f32, gmem, "(2,4):(1,2)", 16>, %d: !tile.tensor<f32, smem, "(2,4):(1,2)", 16>) {
  // expected-error@+1 {{'tile.copy' op atom 'cp.async.ca' (128 bits) moves 4 f32 per thread, but the source's value mode (mode 0) is 2 and the destination's is 2: partition with a tiled copy of this atom}}
  tile.copy %s, %d {atom = #tile.copy_atom<"cp.async.ca", 128>} : !tile.tensor<f32, gmem, "(2,4):(1,2)", 16>, !tile.tensor<f32, smem, "(2,4):(1,2)", 16>
  return
}

// -----

func.func @vector_bits(%s: !tile.tensor<f64, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f64, smem, "(4,2):(1,4)", 16>) {
  // expected-error@+1 {{'tile.copy' op 'vector_bits' = 32 is not a whole number of 64-bit elements}}
  tile.copy %s, %d {vector_bits = 32 : i64} : !tile.tensor<f64, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f64, smem, "(4,2):(1,4)", 16>
  return
}

// -----

func.func @vector_bits_value(%s: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f32, smem, "(4,2):(1,4)", 16>) {
  // expected-error@+1 {{'tile.copy' op 'vector_bits' must be one of 8, 16, 32, 64, 128, got 256}}
  tile.copy %s, %d {vector_bits = 256 : i64} : !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, smem, "(4,2):(1,4)", 16>
  return
}

// -----

func.func @copy_if_pred_type(%p: !tile.tensor<f32, rmem, "8:1", 4>, %s: !tile.tensor<f32, gmem, "8:1", 16>, %d: !tile.tensor<f32, rmem, "8:1", 4>) {
  // expected-error@+1 {{'tile.copy_if' op the predicate must hold i1 elements (or coordinates), got f32}}
  tile.copy_if %p, %s, %d : !tile.tensor<f32, rmem, "8:1", 4>, !tile.tensor<f32, gmem, "8:1", 16>, !tile.tensor<f32, rmem, "8:1", 4>
  return
}

// -----

func.func @copy_if_pred_shape(%p: !tile.tensor<i1, rmem, "4:1", 1>, %s: !tile.tensor<f32, gmem, "8:1", 16>, %d: !tile.tensor<f32, rmem, "8:1", 4>) {
  // expected-error@+1 {{'tile.copy_if' op the predicate has 4 elements but the source has 8 (it must be shaped like the source)}}
  tile.copy_if %p, %s, %d : !tile.tensor<i1, rmem, "4:1", 1>, !tile.tensor<f32, gmem, "8:1", 16>, !tile.tensor<f32, rmem, "8:1", 4>
  return
}

// -----

func.func @copy_if_bounds(%p: !tile.tensor<coord, "(4,2):(1@0,1@1)">, %s: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>) {
  // expected-error@+1 {{'tile.copy_if' op a coordinate-tensor predicate needs the bounds operand (an !layout.int_tuple) to compare coordinates with}}
  tile.copy_if %p, %s, %d : !tile.tensor<coord, "(4,2):(1@0,1@1)">, !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>
  return
}

// -----

func.func @copy_if_bounds_rank(%p: !tile.tensor<coord, "(4,2):(1@0,1@1)">, %s: !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, %d: !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, %b: !layout.int_tuple<"?">) {
  // expected-error@+1 {{'tile.copy_if' op predicate coordinates have rank 2 but the bounds have rank 1}}
  tile.copy_if %p, %s, %d, %b : !tile.tensor<coord, "(4,2):(1@0,1@1)">, !tile.tensor<f32, gmem, "(4,2):(1,4)", 16>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, !layout.int_tuple<"?">
  return
}

// -----

func.func @copy_if_stray_bounds(%p: !tile.tensor<i1, rmem, "8:1", 1>, %s: !tile.tensor<f32, gmem, "8:1", 16>, %d: !tile.tensor<f32, rmem, "8:1", 4>, %b: !layout.int_tuple<"8">) {
  // expected-error@+1 {{'tile.copy_if' op bounds are only used with a coordinate-tensor predicate}}
  tile.copy_if %p, %s, %d, %b : !tile.tensor<i1, rmem, "8:1", 1>, !tile.tensor<f32, gmem, "8:1", 16>, !tile.tensor<f32, rmem, "8:1", 4>, !layout.int_tuple<"8">
  return
}

// -----

func.func @gemm_form(%a: !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, %b: !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, %c: !tile.tensor<f32, rmem, "8:1", 4>) {
  // expected-error@+1 {{'tile.gemm' op operands of ranks A=2, B=2, C=1 match none of the gemm forms (V) x (V) => (V); (M) x (N) => (M,N); (M,K) x (N,K) => (M,N); (V,M) x (V,N) => (V,M,N); (V,M,K) x (V,N,K) => (V,M,N)}}
  tile.gemm %a, %b, %c : !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, !tile.tensor<f32, rmem, "(4,2):(1,4)", 4>, !tile.tensor<f32, rmem, "8:1", 4>
  return
}

// -----

func.func @gemm_extents(%a: !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, %b: !tile.tensor<f32, rmem, "(6,2):(1,6)", 4>, %c: !tile.tensor<f32, rmem, "(8,6):(1,8)", 4>) {
  // expected-error@+1 {{'tile.gemm' op K extents differ: A mode 1 has 4 but B mode 1 has 2 (form (M,K) x (N,K) => (M,N))}}
  tile.gemm %a, %b, %c : !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, !tile.tensor<f32, rmem, "(6,2):(1,6)", 4>, !tile.tensor<f32, rmem, "(8,6):(1,8)", 4>
  return
}

// -----

func.func @gemm_m(%a: !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, %b: !tile.tensor<f32, rmem, "(6,4):(1,6)", 4>, %c: !tile.tensor<f32, rmem, "(4,6):(1,4)", 4>) {
  // expected-error@+1 {{'tile.gemm' op M extents differ: A mode 0 has 8 but C mode 0 has 4 (form (M,K) x (N,K) => (M,N))}}
  tile.gemm %a, %b, %c : !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, !tile.tensor<f32, rmem, "(6,4):(1,6)", 4>, !tile.tensor<f32, rmem, "(4,6):(1,4)", 4>
  return
}

// -----

func.func @gemm_atom_values(%a: !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, %b: !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, %c: !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>) {
  // expected-error@+1 {{'tile.gemm' op MMA atom 'SM80_16x8x8_F32TF32TF32F32_TN' gives each thread 4 values of A, but A's value mode has 2 (form (V,M,K) x (V,N,K) => (V,M,N))}}
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">} : !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, !tile.tensor<f32, rmem, "(2,2,2):(1,2,4)", 4>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  return
}

// -----

func.func @gemm_atom_form(%a: !tile.tensor<f16, rmem, "(8,4):(1,8)", 4>, %b: !tile.tensor<f16, rmem, "(6,4):(1,6)", 4>, %c: !tile.tensor<f32, rmem, "(8,6):(1,8)", 4>) {
  // expected-error@+1 {{'tile.gemm' op MMA atom 'SM80_16x8x16_F32F16F16F32_TN' needs operands with a value mode}}
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x16_F32F16F16F32_TN">} : !tile.tensor<f16, rmem, "(8,4):(1,8)", 4>, !tile.tensor<f16, rmem, "(6,4):(1,6)", 4>, !tile.tensor<f32, rmem, "(8,6):(1,8)", 4>
  return
}

// -----

func.func @gemm_atom_types(%a: !tile.tensor<f16, rmem, "(8,2,1):(1,8,16)", 2>, %b: !tile.tensor<f16, rmem, "(4,2,1):(1,4,8)", 2>, %c: !tile.tensor<f16, rmem, "(4,2,2):(1,4,8)", 2>) {
  // expected-error@+1 {{'tile.gemm' op atom 'SM80_16x8x16_F32F16F16F32_TN' needs C of element type f32, got f16}}
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x16_F32F16F16F32_TN">} : !tile.tensor<f16, rmem, "(8,2,1):(1,8,16)", 2>, !tile.tensor<f16, rmem, "(4,2,1):(1,4,8)", 2>, !tile.tensor<f16, rmem, "(4,2,2):(1,4,8)", 2>
  return
}

// -----

func.func @gemm_atom_memory(%a: !tile.tensor<bf16, smem, "(8,2,1):(1,8,16)", 2>, %b: !tile.tensor<bf16, rmem, "(4,2,1):(1,4,8)", 2>, %c: !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>) {
  // expected-error@+1 {{'tile.gemm' op MMA atom 'SM80_16x8x16_F32BF16BF16F32_TN' reads A from registers (rmem), but A is in smem: copy it into a fragment first}}
  tile.gemm %a, %b, %c {atom = #tile.mma_atom<"SM80_16x8x16_F32BF16BF16F32_TN">} : !tile.tensor<bf16, smem, "(8,2,1):(1,8,16)", 2>, !tile.tensor<bf16, rmem, "(4,2,1):(1,4,8)", 2>, !tile.tensor<f32, rmem, "(4,2,2):(1,4,8)", 4>
  return
}

// -----

func.func @gemm_fma_types(%a: !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, %b: !tile.tensor<f32, rmem, "(6,4):(1,6)", 4>, %c: !tile.tensor<f16, rmem, "(8,6):(1,8)", 2>) {
  // expected-error@+1 {{'tile.gemm' op atom 'FMA' accumulates in C, which is narrower (f16) than A and B (f32)}}
  tile.gemm %a, %b, %c : !tile.tensor<f32, rmem, "(8,4):(1,8)", 4>, !tile.tensor<f32, rmem, "(6,4):(1,6)", 4>, !tile.tensor<f16, rmem, "(8,6):(1,8)", 2>
  return
}

// -----

func.func @axpby_scalar(%alpha: f16, %x: !tile.tensor<f32, rmem, "8:1", 4>, %y: !tile.tensor<f32, gmem, "8:1", 16>) {
  // expected-error@+1 {{'tile.axpby' op alpha has type 'f16' but the tensors hold 'f32'}}
  tile.axpby %alpha, %x, %alpha, %y : f16, !tile.tensor<f32, rmem, "8:1", 4>, f16, !tile.tensor<f32, gmem, "8:1", 16>
  return
}

// -----

func.func @axpby_int_scalar_on_floats(%alpha: i32, %x: !tile.tensor<f32, rmem, "8:1", 4>, %y: !tile.tensor<f32, gmem, "8:1", 16>) {
  // expected-error@+1 {{'tile.axpby' op alpha has type 'i32' but the tensors hold 'f32'}}
  tile.axpby %alpha, %x, %alpha, %y : i32, !tile.tensor<f32, rmem, "8:1", 4>, i32, !tile.tensor<f32, gmem, "8:1", 16>
  return
}

// -----

func.func @axpby_scalars_differ(%alpha: f32, %beta: f64, %x: !tile.tensor<f16, rmem, "8:1", 2>, %y: !tile.tensor<f16, gmem, "8:1", 16>) {
  // expected-error@+1 {{'tile.axpby' op alpha and beta must have one type, got 'f32' and 'f64'}}
  tile.axpby %alpha, %x, %beta, %y : f32, !tile.tensor<f16, rmem, "8:1", 2>, f64, !tile.tensor<f16, gmem, "8:1", 16>
  return
}

// -----

func.func @axpby_sizes(%alpha: f32, %x: !tile.tensor<f32, rmem, "8:1", 4>, %y: !tile.tensor<f32, gmem, "4:1", 16>) {
  // expected-error@+1 {{'tile.axpby' op x has 8 elements but y has 4}}
  tile.axpby %alpha, %x, %alpha, %y : f32, !tile.tensor<f32, rmem, "8:1", 4>, f32, !tile.tensor<f32, gmem, "4:1", 16>
  return
}

// -----

func.func @fill_type(%t: !tile.tensor<f32, rmem, "8:1", 4>, %v: i32) {
  // expected-error@+1 {{'tile.fill' op fill value has type 'i32' but the tensor holds 'f32'}}
  tile.fill %t, %v : !tile.tensor<f32, rmem, "8:1", 4>, i32
  return
}

// -----

func.func @clear_coordinates(%t: !tile.tensor<coord, "8:1@0">) {
  // expected-error@+1 {{'tile.clear' op operand #0 must be a !tile.tensor in memory, but got '!tile.tensor<coord, "8:1@0">'}}
  tile.clear %t : !tile.tensor<coord, "8:1@0">
  return
}

// -----

func.func @wait_pending() {
  // expected-error@+1 {{'tile.cp_async_wait' op 'pending' must be in [0, 2^31), got -1}}
  tile.cp_async_wait {pending = -1 : i64}
  return
}

// -----

// Dynamic sizes must be provably equal: here they come from two different values.
func.func @copy_unproven_sizes(%p: !tile.ptr<f32, gmem, 16>, %q: !tile.ptr<f32, gmem, 16>, %n: index, %m: index) {
  %sn = layout.make_shape %n : !layout.int_tuple<"(?)">
  %sm = layout.make_shape %m : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(1)">
  %ln = layout.make_layout %sn, %d : !layout.layout<"(?):(1)">
  %lm = layout.make_layout %sm, %d : !layout.layout<"(?):(1)">
  %a = tile.make_tensor %p, %ln : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %b = tile.make_tensor %q, %lm : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  // expected-error@+1 {{'tile.copy' op cannot prove that the source size n equals the destination size m}}
  tile.copy %a, %b : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(1)", 16>
  return
}

// -----

func.func @copy_dynamic_into_static(%p: !tile.ptr<f32, gmem, 16>, %n: index) {
  %sn = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(1)">
  %ln = layout.make_layout %sn, %d : !layout.layout<"(?):(1)">
  %a = tile.make_tensor %p, %ln : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(1)">) -> !tile.tensor<f32, gmem, "(?):(1)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  // expected-error@+1 {{'tile.copy' op cannot prove that the source size n equals the destination size 4}}
  tile.copy %a, %r : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, rmem, "(4):(1)", 4>
  return
}

// -----

func.func @axpby_unproven_sizes(%x: !tile.tensor<f32, gmem, "(?):(1)", 16>, %y: !tile.tensor<f32, gmem, "(?):(1)", 16>, %a: f32) {
  // expected-error@+1 {{'tile.axpby' op cannot prove that the x size}}
  tile.axpby %a, %x, %a, %y : f32, !tile.tensor<f32, gmem, "(?):(1)", 16>, f32, !tile.tensor<f32, gmem, "(?):(1)", 16>
  return
}
