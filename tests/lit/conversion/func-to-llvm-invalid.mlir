// RUN: layoutc-opt %s --verify-diagnostics -p 'builtin.module(convert-func-to-llvm)'

// expected-error@+1 {{'func.func' op not supported: 'tf32' has no LLVM type (tf32 lives in i32 bits)}}
func.func @f(%a: tf32) {
  return
}
