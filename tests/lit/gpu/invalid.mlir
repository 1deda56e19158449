// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{'func.func' op 'gpu.known_block_size' must be an array of 3 positive i32 values (array<i32: x, y, z>), got array<i32: 128, 1>}}
func.func @two_sizes() attributes {gpu.known_block_size = array<i32: 128, 1>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'gpu.known_block_size' must be an array of 3 positive i32 values (array<i32: x, y, z>), got array<i32: 128, 0, 1>}}
func.func @zero() attributes {gpu.known_block_size = array<i32: 128, 0, 1>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'gpu.known_block_size' must be an array of 3 positive i32 values (array<i32: x, y, z>), got array<i64: 128, 1, 1>}}
func.func @i64() attributes {gpu.known_block_size = array<i64: 128, 1, 1>} {
  return
}

// -----

// expected-error@+1 {{'func.func' op 'gpu.kernel' must be a unit attribute, got true}}
func.func @kernel_value() attributes {gpu.kernel = true} {
  return
}

// -----

func.func @kernel_on_op() {
  // expected-error@+1 {{'arith.constant' op 'gpu.kernel' is only allowed on 'func.func' or 'llvm.func'}}
  %c = arith.constant {gpu.kernel} 1 : i32
  return
}

// -----

// expected-error@+1 {{'func.func' op unknown gpu attribute 'gpu.kernal'}}
func.func @typo() attributes {gpu.kernal} {
  return
}

// -----

func.func @dimension() {
  // expected-error@+1 {{expected one of x, y, z for gpu.dim, got 'w'}}
  %t = gpu.thread_id w
  return
}

// -----

func.func @dimension_attr() {
  // expected-error@+1 {{expected one of x, y, z for gpu.dim, got 'w'}}
  %t = "gpu.thread_id"() <{dimension = #gpu<dim w>}> : () -> index
  return
}

// -----

func.func @shuffle_mode(%v: f32, %o: i32) {
  // expected-error@+1 {{expected one of xor, up, down, idx for gpu.shuffle_mode, got 'rotate'}}
  %s, %ok = gpu.shuffle rotate %v, %o, %o : f32
  return
}

// -----

func.func @shuffle_type(%v: f16, %o: i32) {
  // expected-error@+1 {{'gpu.shuffle' op operand #0 must be i32, i64, f32 or f64, but got 'f16'}}
  %s, %ok = gpu.shuffle xor %v, %o, %o : f16
  return
}

// -----

func.func @shuffle_result(%v: f32, %o: i32) {
  // expected-error@+1 {{'gpu.shuffle' op result type 'i32' must match the shuffled value's type 'f32'}}
  %s, %ok = "gpu.shuffle"(%v, %o, %o) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (i32, i1)
  return
}

// -----


func.func @unknown_enum() {
  // expected-error@+1 {{unknown attribute '#gpu<dimension ...>' in dialect 'gpu'}}
  %t = "gpu.thread_id"() <{dimension = #gpu<dimension x>}> : () -> index
  return
}
