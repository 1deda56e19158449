// mlir-opt's flag spellings do what layoutc-opt's own ones do, and block arguments keep their
// locations through a generic round trip.
// RUN: layoutc-opt %s --mlir-print-op-generic --mlir-print-debuginfo | FileCheck %s
// RUN: layoutc-opt %s --mlir-print-op-generic --mlir-print-debuginfo | layoutc-opt --mlir-print-op-generic --mlir-print-debuginfo | FileCheck %s
// RUN: layoutc-opt %s --canonicalize --mlir-timing --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING

// CHECK: "builtin.module"() ({
// CHECK: "func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
// CHECK-NEXT: ^bb0(%a: i32 loc({{.*}}mlir-flag-spellings.mlir":14:6)):
// CHECK-NEXT: "cf.br"(%a)[^bb1] : (i32) -> () loc({{.*}}":15:3)
// CHECK-NEXT: ^bb1(%x: i32 loc({{.*}}":16:6)):
// CHECK-NEXT: "func.return"(%x) : (i32) -> () loc({{.*}}":17:3)
"func.func"() ({
^bb0(%a: i32):
  "cf.br"(%a)[^bb1] : (i32) -> ()
^bb1(%x: i32):
  "func.return"(%x) : (i32) -> ()
}) {sym_name = "f", function_type = (i32) -> i32} : () -> ()

// TIMING: Pass statistics report
// TIMING: Canonicalizer
// TIMING: num-rewrites
// TIMING: Execution time report
// TIMING: Canonicalizer
