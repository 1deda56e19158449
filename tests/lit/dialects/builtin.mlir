// RUN: layoutc-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s --allow-unregistered-dialect --print-generic | layoutc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: layoutc-opt %s --allow-unregistered-dialect --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --allow-unregistered-dialect --print-debuginfo | FileCheck %s --check-prefix=LOC

// Named modules, attributes, nesting, casts, unregistered ops in every form.

// CHECK: module @outer attributes {test.flag, test.n = 3 : i64} {
// GENERIC: "builtin.module"() <{sym_name = "outer"}> ({
// LOC: module @outer
module @outer attributes {test.n = 3 : i64, test.flag} {
  // CHECK: module {
  module {
    // CHECK: %[[C:.*]] = "test.source"() : () -> i32
    %c = "test.source"() : () -> i32
    // CHECK: %{{.*}} = unrealized_conversion_cast %[[C]] : i32 to index
    // GENERIC: "builtin.unrealized_conversion_cast"(%{{.*}}) : (i32) -> index
    %i = builtin.unrealized_conversion_cast %c : i32 to index
    // CHECK: %{{.*}}:2 = unrealized_conversion_cast %[[C]], %{{.*}} : i32, index to f32, f64
    %f:2 = unrealized_conversion_cast %c, %i : i32, index to f32, f64
    // LOC: "test.located"() : () -> () loc("somewhere.py":12:3)
    "test.located"() : () -> () loc("somewhere.py":12:3)
  }
  // Regions, successors, properties and attributes of unregistered ops survive.
  // CHECK: "test.region"() <{p = 1 : i32}> ({
  // CHECK-NEXT: ^bb0(%{{.*}}: i32):
  // CHECK-NEXT: "test.br"()[^bb1] : () -> ()
  // CHECK-NEXT: ^bb1:
  // CHECK-NEXT: "test.end"() : () -> ()
  // CHECK-NEXT: }) {a = "s"} : () -> ()
  "test.region"() <{p = 1 : i32}> ({
  ^bb0(%arg: i32):
    "test.br"()[^bb1] : () -> ()
  ^bb1:
    "test.end"() : () -> ()
  }) {a = "s"} : () -> ()
  // Forward references in graph regions.
  // CHECK: %[[B:.*]] = "test.use"(%[[A:.*]]) : (i64) -> i64
  // CHECK: %[[A]] = "test.use"(%[[B]]) : (i64) -> i64
  %b = "test.use"(%a) : (i64) -> i64
  %a = "test.use"(%b) : (i64) -> i64
  // Builtin types and attributes.
  // CHECK: %{{.*}}:6 = "test.types"() {arr = [1 : i64, 2.500000e+00 : f32, "x"], dense = array<i32: 1, 2>, dict = {k}, sym = @outer::@inner, ty = vector<2x[4]xf16>} : () -> (tuple<i1, index>, none, bf16, tf32, ui8, si16)
  "test.types"() {arr = [1, 2.5 : f32, "x"], dense = array<i32: 1, 2>, dict = {k}, sym = @outer::@inner, ty = vector<2x[4]xf16>} : () -> (tuple<i1, index>, none, bf16, tf32, ui8, si16)
}
