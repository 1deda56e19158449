// lower-algorithms re-proves what it is asked to do; what it cannot do is a diagnostic.
// RUN: layoutc-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(lower-algorithms)'

func.func @claimed_width(%p: !tile.ptr<f64, gmem, 16>, %q: !tile.ptr<f64, gmem, 16>) {
  %l = layout.constant #layout.layout<"(4,4):(2,16)">
  %m = layout.constant #layout.layout<"(4,4):(1,4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(2,16)">) -> !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>
  %u = tile.make_tensor %q, %m : (!tile.ptr<f64, gmem, 16>, !layout.layout<"(4,4):(1,4)">) -> !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  // expected-error@+1 {{'tile.copy' cannot be lowered: vector_bits = 128 is not proven for this copy: only 64-bit accesses are legal (stride of mode 0 of the source is 2 (affine2 layout: strides above 1 in every mode))}}
  tile.copy %t, %u {vector_bits = 128 : i64} : !tile.tensor<f64, gmem, "(4,4):(2,16)", 16>, !tile.tensor<f64, gmem, "(4,4):(1,4)", 16>
  return
}

// -----

func.func @dynamic_tensor_argument(%t: !tile.tensor<f32, gmem, "(?):(1)", 16>) {
  // (the copy's sizes agree only because it copies %t onto itself: two tensor arguments' '?'
  // entries are unrelated, which the verifier refuses)
  // expected-error@+1 {{'tile.copy' cannot be lowered: not supported: the expression needs entry #0 of the tensor argument}}
  tile.copy %t, %t : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, gmem, "(?):(1)", 16>
  return
}

// -----

func.func @registers_with_dynamic_extent(%p: !tile.ptr<f32, gmem, 16>, %n: index {layoutc.lower = 1 : i64}) {
  %s = layout.make_shape %n : !layout.int_tuple<"(?)">
  %d = layout.constant #layout.int_tuple<"(4)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?):(4)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(?):(4)">) -> !tile.tensor<f32, gmem, "(?):(4)", 16>
  %r = tile.alloc_fragment : !tile.tensor<f32, rmem, "(8):(1)", 4>
  %v = tile.composition %r, %l : (!tile.tensor<f32, rmem, "(8):(1)", 4>, !layout.layout<"(?):(4)">) -> !tile.tensor<f32, rmem, "(?):(4)", 4>
  // expected-error@+1 {{'tile.copy' cannot be lowered: not supported: the loop dimension indexes a register fragment but its extent}}
  tile.copy %t, %v : !tile.tensor<f32, gmem, "(?):(4)", 16>, !tile.tensor<f32, rmem, "(?):(4)", 4>
  return
}

// -----

func.func @claimed_fill_width(%p: !tile.ptr<f32, gmem, 8>, %x: f32) {
  %l = layout.constant #layout.layout<"(8):(1)">
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 8>, !layout.layout<"(8):(1)">) -> !tile.tensor<f32, gmem, "(8):(1)", 8>
  // expected-error@+1 {{'tile.fill' cannot be lowered: vector_bits = 128 is not proven for this fill: only 64-bit stores are legal (2 contiguous f32 (8 are contiguous, but the tensor base pointer is only 8-byte aligned), 8-byte alignment proven)}}
  tile.fill %t, %x {vector_bits = 128 : i64} : !tile.tensor<f32, gmem, "(8):(1)", 8>, f32
  return
}
