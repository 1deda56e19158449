// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @gep_struct_dynamic(%p: !llvm.ptr, %i: i32) {
  // expected-error@+1 {{'llvm.getelementptr' op index #1 into '!llvm.struct<(i32, f32)>' must be a constant}}
  %q = llvm.getelementptr %p[0, %i] : (!llvm.ptr, i32) -> !llvm.ptr, !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @gep_struct_range(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.getelementptr' op index #1 (2) is out of range for '!llvm.struct<(i32, f32)>'}}
  %q = llvm.getelementptr %p[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @gep_scalar(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.getelementptr' op type 'f32' cannot be indexed (index #1)}}
  %q = llvm.getelementptr %p[0, 1] : (!llvm.ptr) -> !llvm.ptr, f32
  return
}

// -----

func.func @gep_address_space(%p: !llvm.ptr<1>) {
  // expected-error@+1 {{'llvm.getelementptr' op result type must be the base pointer type}}
  %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr, f32
  return
}

// -----

func.func @gep_index(%p: !llvm.ptr, %i: index) {
  // expected-error@+1 {{'llvm.getelementptr' op operand #1 must be signless integer, but got 'index'}}
  %q = llvm.getelementptr %p[%i] : (!llvm.ptr, index) -> !llvm.ptr, f32
  return
}

// -----

func.func @load_alignment(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.load' op expected alignment to be a power of two, got 12}}
  %v = llvm.load %p {alignment = 12 : i64} : !llvm.ptr -> f32
  return
}

// -----

func.func @load_release(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.load' op unsupported ordering 'release' for a load}}
  %v = llvm.load %p atomic release {alignment = 4 : i64} : !llvm.ptr -> i32
  return
}

// -----

func.func @atomic_load_alignment(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.load' op expected an alignment for an atomic load}}
  %v = llvm.load %p atomic acquire : !llvm.ptr -> i32
  return
}

// -----

func.func @atomic_vector(%p: !llvm.ptr, %v: vector<4xf32>) {
  // expected-error@+1 {{'llvm.store' op unsupported type 'vector<4xf32>' for an atomic store}}
  llvm.store %v, %p atomic release {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
  return
}

// -----

func.func @load_index(%p: !llvm.ptr) {
  // expected-error@+1 {{'llvm.load' op result #0 must be LLVM dialect-compatible type, but got 'index'}}
  %v = llvm.load %p : !llvm.ptr -> index
  return
}

// -----

func.func @extract_range(%s: !llvm.struct<(i32, f32)>) {
  // expected-error@+1 {{position 5 at depth 0 is out of range for '!llvm.struct<(i32, f32)>'}}
  %x = llvm.extractvalue %s[5] : !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @insert_type(%s: !llvm.struct<(i32, f32)>, %v: f32) {
  // expected-error@+1 {{'llvm.insertvalue' op type 'f32' does not match the type 'i32' at position [0] of '!llvm.struct<(i32, f32)>'}}
  %x = "llvm.insertvalue"(%s, %v) <{position = array<i64: 0>}> : (!llvm.struct<(i32, f32)>, f32) -> !llvm.struct<(i32, f32)>
  return
}

// -----

func.func @bitcast_width(%x: f32) {
  // expected-error@+1 {{'llvm.bitcast' op operand type 'f32' and result type 'i64' have different bit sizes}}
  %y = llvm.bitcast %x : f32 to i64
  return
}

// -----

func.func @bitcast_address_space(%p: !llvm.ptr<1>) {
  // expected-error@+1 {{'llvm.bitcast' op cannot change the address space (use llvm.addrspacecast)}}
  %q = llvm.bitcast %p : !llvm.ptr<1> to !llvm.ptr<3>
  return
}

// -----

func.func @fence_ordering() {
  // expected-error@+1 {{'llvm.fence' op can be given only acquire, release, acq_rel, and seq_cst orderings}}
  llvm.fence monotonic
  return
}

// -----

func.func @rmw_type(%p: !llvm.ptr, %v: f32) {
  // expected-error@+1 {{'llvm.atomicrmw' op unexpected LLVM IR type 'f32' for 'add'}}
  %r = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, f32
  return
}

// -----

func.func @rmw_unknown(%p: !llvm.ptr, %v: i32) {
  // expected-error@+1 {{unknown atomic operation 'mul'}}
  %r = llvm.atomicrmw mul %p, %v monotonic : !llvm.ptr, i32
  return
}

// -----

llvm.mlir.global internal @g() {addr_space = 3 : i32} : f32
func.func @addressof_space() {
  // expected-error@+1 {{'llvm.mlir.addressof' op pointer address space must match address space of the referenced global}}
  %p = llvm.mlir.addressof @g : !llvm.ptr<1>
  return
}

// -----

func.func @addressof_missing() {
  // expected-error@+1 {{'llvm.mlir.addressof' op must reference a global defined by 'llvm.mlir.global'}}
  %p = llvm.mlir.addressof @nowhere : !llvm.ptr
  return
}

// -----

// expected-error@+1 {{'llvm.mlir.global' op initial value of type 'i64' does not match the global type 'i32'}}
llvm.mlir.global internal @bad(1 : i64) : i32

// -----

// expected-error@+1 {{'llvm.mlir.global' op shared-memory globals (address space 3) cannot be initialised}}
llvm.mlir.global internal @shared_init(0 : i32) {addr_space = 3 : i32} : i32

// -----

// expected-error@+1 {{'llvm.mlir.global' op a string initializer needs type '!llvm.array<2 x i8>'}}
llvm.mlir.global internal @str("ab") : !llvm.array<3 x i8>

// -----

func.func @constant_type() {
  // expected-error@+1 {{'llvm.mlir.constant' op value of type 'i64' does not match the result type 'i32'}}
  %c = llvm.mlir.constant(1 : i64) : i32
  return
}

// -----

func.func @intrinsic_name() {
  // expected-error@+1 {{'llvm.call_intrinsic' op intrinsic name must start with 'llvm.', got 'foo'}}
  llvm.call_intrinsic "foo"() : () -> ()
  return
}

// -----

// expected-error@+1 {{not supported: identified (named) LLVM struct types}}
func.func @named(%s: !llvm.struct<"name", (i32)>) {
  return
}

// -----

// expected-error@+1 {{invalid LLVM struct element type 'index'}}
func.func @struct_index(%s: !llvm.struct<(index)>) {
  return
}
