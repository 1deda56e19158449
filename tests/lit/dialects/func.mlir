// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func private @decl(i32, f32) -> (i32, f32)
// GENERIC: "func.func"() <{function_type = (i32, f32) -> (i32, f32), sym_name = "decl", sym_visibility = "private"}> ({
func.func private @decl(i32, f32) -> (i32, f32)

// CHECK-LABEL: func.func @no_results()
// CHECK-NEXT: return
func.func @no_results() {
  return
}

// CHECK-LABEL: func.func @attrs(%{{.*}}: i32 {test.arg}, %{{.*}}: f32) -> (i32 {test.res}) attributes {test.fn = 1 : i64}
// GENERIC: "func.func"() <{arg_attrs = [{test.arg}, {}], function_type = (i32, f32) -> i32, res_attrs = [{test.res}], sym_name = "attrs"}> ({
func.func @attrs(%a: i32 {test.arg}, %b: f32) -> (i32 {test.res}) attributes {test.fn = 1 : i64} {
  return %a : i32
}

// CHECK-LABEL: func.func @calls(%{{.*}}: i32, %{{.*}}: f32) -> i32
func.func @calls(%a: i32, %b: f32) -> i32 {
  // CHECK: %[[R:.*]]:2 = call @decl(%{{.*}}, %{{.*}}) : (i32, f32) -> (i32, f32)
  // GENERIC: "func.call"(%{{.*}}, %{{.*}}) <{callee = @decl}> : (i32, f32) -> (i32, f32)
  %r:2 = func.call @decl(%a, %b) : (i32, f32) -> (i32, f32)
  // CHECK: call @no_results() : () -> ()
  call @no_results() : () -> ()
  // CHECK: return %[[R]]#0 : i32
  return %r#0 : i32
}

// CHECK-LABEL: func.func nested @multi
// CHECK: return %{{.*}}, %{{.*}} : i32, f32
func.func nested @multi(%a: i32, %b: f32) -> (i32, f32) {
  return %a, %b : i32, f32
}
