// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @shfl_result(%m: i32, %v: f32) {
  // expected-error@+1 {{'nvvm.shfl.sync' op expected result type '!llvm.struct<(f32, i1)>' for a shuffle of 'f32' with 'return_value_and_is_valid'}}
  %r = nvvm.shfl.sync bfly %m, %v, %m, %m {return_value_and_is_valid} : f32 -> f32
  return
}

// -----

func.func @shfl_type(%m: i32, %v: f64) {
  // expected-error@+1 {{'nvvm.shfl.sync' op operand #1 must be i32 or f32, but got 'f64'}}
  %r = nvvm.shfl.sync bfly %m, %v, %m, %m : f64 -> f64
  return
}

// -----

func.func @shfl_kind(%m: i32, %v: f32) {
  // expected-error@+1 {{expected one of bfly, up, down, idx for nvvm.shfl_kind, got 'xor'}}
  %r = nvvm.shfl.sync xor %m, %v, %m, %m : f32 -> f32
  return
}

// -----

func.func @cp_async_size(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>) {
  // expected-error@+1 {{'nvvm.cp.async.shared.global' op the 'cg' cache modifier needs a 16-byte copy}}
  nvvm.cp.async.shared.global %d, %s, 8, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  return
}

// -----

func.func @cp_async_spaces(%d: !llvm.ptr<1>, %s: !llvm.ptr<1>) {
  // expected-error@+1 {{'nvvm.cp.async.shared.global' op operand #0 must be shared-memory pointer, but got '!llvm.ptr<1>'}}
  nvvm.cp.async.shared.global %d, %s, 16, cache = cg : !llvm.ptr<1>, !llvm.ptr<1>
  return
}

// -----

func.func @ldmatrix_num(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{'nvvm.ldmatrix' op expected num attribute to be 1, 2 or 4, got 3}}
  %r = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 3 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32)>
  return
}

// -----

func.func @ldmatrix_shape(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{'nvvm.ldmatrix' op not supported: ldmatrix of shape m16n16 with b8 elements (layoutc generates m8n8 b16)}}
  %r = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b8>, layout = #nvvm.mma_layout<row>, num = 1 : i32, shape = #nvvm.ld_st_matrix_shape<m = 16, n = 16>} : (!llvm.ptr<3>) -> i32
  return
}

// -----

func.func @ldmatrix_without_shape(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{'nvvm.ldmatrix' op requires attribute 'shape'}}
  %r = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 1 : i32} : (!llvm.ptr<3>) -> i32
  return
}

// -----

func.func @ldmatrix_result(%s: !llvm.ptr<3>) {
  // expected-error@+1 {{'nvvm.ldmatrix' op expected result type '!llvm.struct<(i32, i32)>' for num = 2}}
  %r = nvvm.ldmatrix %s {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> i32
  return
}

// -----

func.func @mma_count(%a: i32, %f: f32) {
  // expected-error@+1 {{'nvvm.mma.sync' op expected 2 operands of type 'i32' for B, got [i32]}}
  %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @mma_ambiguous(%a: i32, %f: f32) {
  // expected-error@+1 {{'nvvm.mma.sync' op cannot infer the PTX type of operand A from 'i32'; set multiplicandAPtxType}}
  %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @mma_unsupported(%a: i32, %f: f32) {
  // expected-error@+1 {{'nvvm.mma.sync' op not supported: mma.sync m16n8k4 with A tf32, B tf32, C/D f32}}
  %d = nvvm.mma.sync A[%a, %a] B[%a] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 4>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @mma_layout(%h: vector<2xf16>, %f: f32) {
  // expected-error@+1 {{'nvvm.mma.sync' op not supported: layouts other than layoutA = row, layoutB = col}}
  %d = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<col>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}

// -----

func.func @mma_result(%h: vector<2xf16>, %f: f32) {
  // expected-error@+1 {{'nvvm.mma.sync' op expected result type '!llvm.struct<(f32, f32, f32, f32)>'}}
  %d = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32)>
  return
}

// -----

func.func @sreg_type() {
  // expected-error@+1 {{'nvvm.read.ptx.sreg.tid.x' op result #0 must be i32, but got 'i64'}}
  %t = nvvm.read.ptx.sreg.tid.x : i64
  return
}

// -----

func.func @shape_attr() {
  // expected-error@+1 {{expected 'n', found 'k'}}
  %x = arith.constant {s = #nvvm.shape<m = 16, k = 8, n = 8>} 0 : i32
  return
}
