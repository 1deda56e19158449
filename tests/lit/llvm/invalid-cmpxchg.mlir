// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @float(%p: !llvm.ptr, %c: f32, %v: f32) {
  // expected-error@+1 {{'llvm.cmpxchg' op unexpected LLVM IR type 'f32'}}
  %r = llvm.cmpxchg %p, %c, %v monotonic monotonic : !llvm.ptr, f32
  return
}

// -----

func.func @mismatch(%p: !llvm.ptr, %c: i64, %v: i32) {
  // expected-error@+1 {{'llvm.cmpxchg' op expected LLVM IR element type for operand #1 to match type for operand #2}}
  %r = "llvm.cmpxchg"(%p, %c, %v) <{failure_ordering = 2 : i64, success_ordering = 2 : i64}> : (!llvm.ptr, i64, i32) -> !llvm.struct<(i32, i1)>
  return
}

// -----

func.func @failure_release(%p: !llvm.ptr, %c: i32, %v: i32) {
  // expected-error@+1 {{'llvm.cmpxchg' op failure ordering cannot be 'release' or 'acq_rel'}}
  %r = llvm.cmpxchg %p, %c, %v acq_rel release : !llvm.ptr, i32
  return
}

// -----

func.func @unordered(%p: !llvm.ptr, %c: i32, %v: i32) {
  // expected-error@+1 {{'llvm.cmpxchg' op ordering must be at least 'monotonic'}}
  %r = llvm.cmpxchg %p, %c, %v unordered monotonic : !llvm.ptr, i32
  return
}
