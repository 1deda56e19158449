// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' --split-input-file --allow-unregistered-dialect | FileCheck %s

// Constant folding of every integer binary op kind (i32, two's complement).
// CHECK-LABEL: func.func @int_fold
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C21:.*]] = arith.constant 21 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[CDIVU:.*]] = arith.constant 1431655765 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[C56:.*]] = arith.constant 56 : i32
// CHECK-DAG: %[[CSHR:.*]] = arith.constant 536870911 : i32
// CHECK-DAG: %[[CM2:.*]] = arith.constant -2 : i32
// CHECK-DAG: %[[CM7:.*]] = arith.constant -7 : i32
// CHECK-NOT: arith.addi
// CHECK-NOT: arith.divsi
// CHECK: return %[[C10]], %[[C4]], %[[C21]], %[[C2]], %[[CDIVU]], %[[M1]], %[[C1]], %[[C3]], %[[C3]], %[[M1]], %[[C3]], %[[C7]], %[[C4]], %[[C56]], %[[CSHR]], %[[M1]], %[[M1]], %[[C3]], %[[C3]], %[[M1]], %[[CM2]], %[[CM7]] :
func.func @int_fold() -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %c7 = arith.constant 7 : i32
  %c3 = arith.constant 3 : i32
  %m1 = arith.constant -1 : i32
  %0 = arith.addi %c7, %c3 : i32       // 10
  %1 = arith.subi %c7, %c3 : i32       // 4
  %2 = arith.muli %c7, %c3 : i32       // 21
  %3 = arith.divsi %c7, %c3 : i32      // 2
  %4 = arith.divui %m1, %c3 : i32      // 0xffffffff / 3
  %5 = arith.remsi %m1, %c3 : i32      // -1
  %6 = arith.remui %c7, %c3 : i32      // 1
  %7 = arith.ceildivsi %c7, %c3 : i32  // 3
  %8 = arith.ceildivui %c7, %c3 : i32  // 3
  %9 = arith.floordivsi %m1, %c3 : i32 // -1
  %10 = arith.andi %c7, %c3 : i32      // 3
  %11 = arith.ori %c7, %c3 : i32       // 7
  %12 = arith.xori %c7, %c3 : i32      // 4
  %13 = arith.shli %c7, %c3 : i32      // 56
  %14 = arith.shrui %m1, %c3 : i32     // 0x1fffffff
  %15 = arith.shrsi %m1, %c3 : i32     // -1
  %16 = arith.minsi %m1, %c3 : i32     // -1
  %17 = arith.maxsi %m1, %c3 : i32     // 3
  %18 = arith.minui %m1, %c3 : i32     // 3
  %19 = arith.maxui %m1, %c3 : i32     // -1
  %20 = arith.addi %m1, %m1 : i32      // -2
  %21 = arith.muli %m1, %c7 : i32      // -7
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// -----

// Division by zero is undefined behaviour: never folded, never speculated away.
// CHECK-LABEL: func.func @div_by_zero
// CHECK: arith.divsi
// CHECK: arith.remui
func.func @div_by_zero(%a: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.divsi %c7, %c0 : i32
  %1 = arith.remui %a, %c0 : i32
  return %0, %1 : i32, i32
}

// -----

// Algebraic identities with one constant (or none); constants move to the right.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32, %[[B:[a-z0-9]+]]: i32)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[INC:.*]] = arith.addi %[[A]], %[[C1]] : i32
// CHECK-NEXT: return %[[A]], %[[A]], %[[A]], %[[C0]], %[[A]], %[[A]], %[[A]], %[[C0]], %[[C0]], %[[INC]], %[[TRUE]], %[[A]] :
func.func @identities(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m1 = arith.constant -1 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.subi %a, %c0 : i32
  %2 = arith.muli %a, %c1 : i32
  %3 = arith.muli %a, %c0 : i32
  %4 = arith.divsi %a, %c1 : i32
  %5 = arith.andi %a, %m1 : i32
  %6 = arith.ori %a, %c0 : i32
  %7 = arith.xori %a, %a : i32
  %8 = arith.subi %a, %a : i32
  %9 = arith.addi %c1, %a : i32
  %10 = arith.cmpi eq, %a, %a : i32
  %11 = arith.select %10, %a, %b : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1, i32
}

// -----

// Comparisons and casts of constants.
// CHECK-LABEL: func.func @cmp_casts
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[SEXT:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[ZEXT:.*]] = arith.constant 4294967295 : i64
// CHECK-DAG: %[[TRUNC:.*]] = arith.constant -1 : i8
// CHECK-DAG: %[[IDX:.*]] = arith.constant -1 : index
// CHECK-DAG: %[[SITOFP:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[FPTOSI:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[ADDF:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-DAG: %[[TRUNCF:.*]] = arith.constant 2.500000e+00 : f16
// CHECK-DAG: %[[BITS:.*]] = arith.constant 1075838976 : i32
// CHECK: return %[[T]], %[[F]], %[[SEXT]], %[[ZEXT]], %[[TRUNC]], %[[IDX]], %[[SITOFP]], %[[FPTOSI]], %[[ADDF]], %[[TRUNCF]], %[[BITS]] :
func.func @cmp_casts() -> (i1, i1, i64, i64, i8, index, f32, i32, f32, f16, i32) {
  %c7 = arith.constant 7 : i32
  %m1 = arith.constant -1 : i32
  %0 = arith.cmpi slt, %m1, %c7 : i32
  %1 = arith.cmpi ult, %m1, %c7 : i32
  %2 = arith.extsi %m1 : i32 to i64
  %3 = arith.extui %m1 : i32 to i64
  %4 = arith.trunci %m1 : i32 to i8
  %5 = arith.index_cast %m1 : i32 to index
  %6 = arith.sitofp %m1 : i32 to f32
  %f = arith.constant 2.5 : f32
  %7 = arith.fptosi %f : f32 to i32
  %8 = arith.addf %f, %f : f32
  %9 = arith.truncf %f : f32 to f16
  %10 = arith.bitcast %f : f32 to i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : i1, i1, i64, i64, i8, index, f32, i32, f32, f16, i32
}

// -----

// Float folding (IEEE semantics: x + -0.0 is x, x * 1.0 is x; x + 0.0 is not folded).
// CHECK-LABEL: func.func @floats
// CHECK-SAME: (%[[X:[a-z0-9]+]]: f32)
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[NEG:.*]] = arith.constant -1.500000e+00 : f32
// CHECK-DAG: %[[DIV:.*]] = arith.constant -7.500000e-01 : f32
// CHECK-DAG: %[[MUL:.*]] = arith.constant -3.000000e+00 : f32
// CHECK-DAG: %[[SUB:.*]] = arith.constant 3.500000e+00 : f32
// CHECK-DAG: %[[MAX:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[KEEP:.*]] = arith.addf %[[X]], %[[ZERO]] : f32
// CHECK: return %[[SUB]], %[[MUL]], %[[DIV]], %[[NEG]], %[[MAX]], %[[F]], %[[X]], %[[X]], %[[KEEP]] :
func.func @floats(%x: f32) -> (f32, f32, f32, f32, f32, i1, f32, f32, f32) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant -2.0 : f32
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  %0 = arith.subf %a, %b : f32
  %1 = arith.mulf %a, %b : f32
  %2 = arith.divf %a, %b : f32
  %3 = arith.negf %a : f32
  %4 = arith.maximumf %a, %b : f32
  %5 = arith.cmpf olt, %a, %b : f32
  %6 = arith.addf %x, %nz : f32
  %7 = arith.mulf %x, %one : f32
  %8 = arith.addf %x, %z : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, i1, f32, f32, f32
}

// -----

// Canonicalization patterns: reassociated constants, collapsed cast chains, select of i1.
// CHECK-LABEL: func.func @patterns
// CHECK-SAME: (%[[A:[a-z0-9]+]]: i32, %[[C:[a-z0-9]+]]: i1, %[[S:[a-z0-9]+]]: i8)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[ADD3:.*]] = arith.addi %[[A]], %[[C3]] : i32
// CHECK-DAG: %[[MUL4:.*]] = arith.muli %[[A]], %[[C4]] : i32
// CHECK-DAG: %[[ADD1:.*]] = arith.addi %[[A]], %[[C1]] : i32
// CHECK-DAG: %[[EXT:.*]] = arith.extsi %[[S]] : i8 to i64
// CHECK-DAG: %[[NOT:.*]] = arith.xori %[[C]], %[[TRUE]] : i1
// CHECK-DAG: %[[TR:.*]] = arith.trunci %[[A]] : i32 to i8
// CHECK: return %[[ADD3]], %[[MUL4]], %[[ADD1]], %[[EXT]], %[[NOT]], %[[TR]] :
func.func @patterns(%a: i32, %c: i1, %s: i8) -> (i32, i32, i32, i64, i1, i8) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %a, %c1 : i32
  %1 = arith.addi %0, %c2 : i32
  %2 = arith.muli %a, %c2 : i32
  %3 = arith.muli %2, %c2 : i32
  %4 = arith.subi %a, %c1 : i32
  %5 = arith.addi %4, %c2 : i32
  %6 = arith.extsi %s : i8 to i32
  %7 = arith.extsi %6 : i32 to i64
  %t = arith.constant true
  %f = arith.constant false
  %8 = arith.select %c, %f, %t : i1
  %9 = arith.trunci %a : i32 to i16
  %10 = arith.trunci %9 : i16 to i8
  return %1, %3, %5, %7, %8, %10 : i32, i32, i32, i64, i1, i8
}

// -----

// Duplicate constants collapse into one, hoisted to the function entry; dead ops vanish.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT: scf.for
// CHECK-NOT: arith.constant
// CHECK: "test.use"(%[[C5]], %[[C5]])
func.func @constants(%n: index) {
  %a = arith.constant 5 : index
  %unused = arith.muli %n, %n : index
  scf.for %i = %a to %n step %a {
    %b = arith.constant 5 : index
    "test.use"(%a, %b) : (index, index) -> ()
  }
  return
}

// -----

// The remaining cast and float kinds, select on a constant condition, signed ceiling division.
// CHECK-LABEL: func.func @more_casts_and_floats
// CHECK-DAG: %[[C7:.*]] = arith.constant 7 : i32
// CHECK-DAG: %[[U2F:.*]] = arith.constant 4.2949673e+09 : f32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[EXT:.*]] = arith.constant 2.500000e+00 : f64
// CHECK-DAG: %[[F:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-DAG: %[[G:.*]] = arith.constant -4.000000e+00 : f32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: return %[[C7]], %[[U2F]], %[[C2]], %[[EXT]], %[[F]], %[[G]], %[[F]], %[[G]], %[[C1]], %[[C0]] :
func.func @more_casts_and_floats() -> (i32, f32, i32, f64, f32, f32, f32, f32, i32, i32) {
  %m1 = arith.constant -1 : i32
  %f = arith.constant 2.5 : f32
  %g = arith.constant -4.0 : f32
  %i = arith.constant 7 : index
  %t = arith.constant true
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.index_castui %i : index to i32
  %1 = arith.uitofp %m1 : i32 to f32
  %2 = arith.fptoui %f : f32 to i32
  %3 = arith.extf %f : f32 to f64
  %4 = arith.remf %f, %g : f32        // fmod(2.5, -4.0) = 2.5
  %5 = arith.minimumf %f, %g : f32
  %6 = arith.maxnumf %f, %g : f32
  %7 = arith.minnumf %f, %g : f32
  %8 = arith.select %t, %c1, %c2 : i32
  %9 = arith.ceildivsi %m1, %c2 : i32  // ceil(-1 / 2) = 0
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i32, f32, i32, f64, f32, f32, f32, f32, i32, i32
}
