// RUN: layoutc-opt %s --split-input-file --verify-diagnostics
// Hostile input (docs/reliability.md): each case is a diagnostic at the right line, never an
// internal error, and one error does not crash the verifier on what follows.

func.func @gep_index_past_i32(%p: !llvm.ptr<1>) {
  // expected-error@+1 {{'llvm.getelementptr' op: integer 99999999999 does not fit in i32}}
  %q = llvm.getelementptr %p[99999999999] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
  return
}

// -----

func.func @extractvalue_past_i64(%s: !llvm.struct<(i32, f32)>) {
  // expected-error@+1 {{'llvm.extractvalue' op: integer 99999999999999999999 does not fit in i64}}
  %e = llvm.extractvalue %s[99999999999999999999] : !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @extractvalue_out_of_range(%s: !llvm.struct<(i32, f32)>) {
  // expected-error@+1 {{position 5 at depth 0 is out of range for '!llvm.struct<(i32, f32)>'}}
  %e = llvm.extractvalue %s[5] : !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @dynamic_layout_in_alloc_smem() {
  // expected-error@+1 {{'tile.alloc_smem' op: #layout.layout must be fully static}}
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "(?,8):(8,1)", 16>
  return
}

// -----

func.func @assume_of_itself() {
  // expected-error@+2 {{'tile.assume' op operand #0 does not dominate this use}}
  // expected-note@+1 {{operand defined here (op in the same block)}}
  %m = tile.assume %m : index
  return
}

// -----

// expected-error@+1 {{'func.func' op requires attribute 'sym_name'}}
"func.func"() ({
  "func.return"() : () -> ()
}) {function_type = () -> ()} : () -> ()

// -----

// expected-error@+1 {{'func.func' op attribute 'sym_name' failed to satisfy constraint: StringAttr}}
"func.func"() ({
  %x = "arith.constant"() {value = 1 : i32} : () -> i32
  "func.return"(%x) : (i32) -> ()
}) {sym_name = 3, function_type = 7} : () -> ()

// -----

func.func @bitwidth(%a: i99999999999999999999) {
// expected-error@-1 {{integer bitwidth is limited to 16777216 bits}}
  return
}

// -----

// A zero stride in a thread layout: idx2crd would divide by it (found by the mutation fuzzer).
func.func @thread_layout_zero_stride(%t: !tile.tensor<f32, gmem, "(128,8):(8,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.local_partition' op idx2crd: a mode of size 2 has stride 0}}
  %v = tile.local_partition %t[%i] {thr_layout = #layout.layout<"(32,8,2):(9223372036854775807,2,0)">} : !tile.tensor<f32, gmem, "(128,8):(8,1)", 16> -> !tile.tensor<f32, gmem, "(4,1):(1,0)", 4>
  return
}

// -----

// nvvm.cp.async.wait.group takes an i32 (found by the mutation fuzzer: an internal error in
// convert-to-llvm{index-bitwidth=32}).
func.func @cp_async_wait_past_i32() {
  // expected-error@+1 {{'tile.cp_async_wait' op 'pending' must be in [0, 2^31), got 9223372036854775807}}
  tile.cp_async_wait {pending = 9223372036854775807 : i64}
  return
}
