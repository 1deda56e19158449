// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @int_ops
// CHECK-SAME: (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[I:.*]]: index)
func.func @int_ops(%a: i32, %b: i32, %i: index) {
  // CHECK: %{{.*}} = arith.constant 7 : i32
  %c7 = arith.constant 7 : i32
  // CHECK: %{{.*}} = arith.constant true
  %t = arith.constant true
  // CHECK: %{{.*}} = arith.constant -3 : index
  %cm3 = arith.constant -3 : index
  // CHECK: arith.addi %[[A]], %[[B]] : i32
  %0 = arith.addi %a, %b : i32
  // CHECK: arith.addi %[[A]], %[[B]] overflow<nsw, nuw> : i32
  %1 = arith.addi %a, %b overflow<nsw, nuw> : i32
  // CHECK: arith.subi %[[A]], %[[B]] overflow<nsw> : i32
  %2 = arith.subi %a, %b overflow<nsw> : i32
  // CHECK: arith.muli %[[A]], %[[B]] : i32
  %3 = arith.muli %a, %b : i32
  // CHECK: arith.shli %[[A]], %[[B]] : i32
  %4 = arith.shli %a, %b : i32
  // CHECK: arith.divui %[[A]], %[[B]] : i32
  %5 = arith.divui %a, %b : i32
  // CHECK: arith.divsi %[[A]], %[[B]] : i32
  %6 = arith.divsi %a, %b : i32
  // CHECK: arith.ceildivui %[[A]], %[[B]] : i32
  %7 = arith.ceildivui %a, %b : i32
  // CHECK: arith.ceildivsi %[[A]], %[[B]] : i32
  %8 = arith.ceildivsi %a, %b : i32
  // CHECK: arith.floordivsi %[[A]], %[[B]] : i32
  %9 = arith.floordivsi %a, %b : i32
  // CHECK: arith.remui %[[A]], %[[B]] : i32
  %10 = arith.remui %a, %b : i32
  // CHECK: arith.remsi %[[A]], %[[B]] : i32
  %11 = arith.remsi %a, %b : i32
  // CHECK: arith.minsi %[[A]], %[[B]] : i32
  %12 = arith.minsi %a, %b : i32
  // CHECK: arith.maxsi %[[A]], %[[B]] : i32
  %13 = arith.maxsi %a, %b : i32
  // CHECK: arith.minui %[[A]], %[[B]] : i32
  %14 = arith.minui %a, %b : i32
  // CHECK: arith.maxui %[[A]], %[[B]] : i32
  %15 = arith.maxui %a, %b : i32
  // CHECK: arith.andi %[[A]], %[[B]] : i32
  %16 = arith.andi %a, %b : i32
  // CHECK: arith.ori %[[A]], %[[B]] : i32
  %17 = arith.ori %a, %b : i32
  // CHECK: arith.xori %[[A]], %[[B]] : i32
  %18 = arith.xori %a, %b : i32
  // CHECK: arith.shrui %[[A]], %[[B]] : i32
  %19 = arith.shrui %a, %b : i32
  // CHECK: arith.shrsi %[[A]], %[[B]] : i32
  %20 = arith.shrsi %a, %b : i32
  // CHECK: arith.cmpi slt, %[[A]], %[[B]] : i32
  %21 = arith.cmpi slt, %a, %b : i32
  // CHECK: arith.cmpi uge, %[[I]], %{{.*}} : index
  %22 = arith.cmpi uge, %i, %cm3 : index
  // CHECK: arith.select %{{.*}}, %[[A]], %[[B]] : i32
  %23 = arith.select %21, %a, %b : i32
  // CHECK: arith.extsi %[[A]] : i32 to i64
  %24 = arith.extsi %a : i32 to i64
  // CHECK: arith.extui %[[A]] : i32 to i64
  %25 = arith.extui %a : i32 to i64
  // CHECK: arith.trunci %[[A]] : i32 to i8
  %26 = arith.trunci %a : i32 to i8
  // CHECK: arith.index_cast %[[A]] : i32 to index
  %27 = arith.index_cast %a : i32 to index
  // CHECK: arith.index_castui %[[I]] : index to i32
  %28 = arith.index_castui %i : index to i32
  return
}

// CHECK-LABEL: func.func @float_ops
func.func @float_ops(%x: f32, %y: f32, %h: f16, %n: i32) {
  // CHECK: arith.constant 1.500000e+00 : f32
  %c = arith.constant 1.5 : f32
  // CHECK: arith.addf %{{.*}}, %{{.*}} : f32
  %0 = arith.addf %x, %y : f32
  // CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<fast> : f32
  %1 = arith.subf %x, %y fastmath<fast> : f32
  // CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<nnan,ninf> : f32
  %2 = arith.mulf %x, %y fastmath<nnan,ninf> : f32
  // CHECK: arith.divf
  %3 = arith.divf %x, %y : f32
  // CHECK: arith.remf
  %4 = arith.remf %x, %y : f32
  // CHECK: arith.maximumf
  %5 = arith.maximumf %x, %y : f32
  // CHECK: arith.minimumf
  %6 = arith.minimumf %x, %y : f32
  // CHECK: arith.maxnumf
  %7 = arith.maxnumf %x, %y : f32
  // CHECK: arith.minnumf
  %8 = arith.minnumf %x, %y : f32
  // CHECK: arith.negf %{{.*}} : f32
  %9 = arith.negf %x : f32
  // CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
  %10 = arith.cmpf oeq, %x, %y : f32
  // CHECK: arith.extf %{{.*}} : f16 to f32
  %11 = arith.extf %h : f16 to f32
  // CHECK: arith.truncf %{{.*}} : f32 to f16
  %12 = arith.truncf %x : f32 to f16
  // CHECK: arith.sitofp %{{.*}} : i32 to f32
  %13 = arith.sitofp %n : i32 to f32
  // CHECK: arith.uitofp %{{.*}} : i32 to f32
  %14 = arith.uitofp %n : i32 to f32
  // CHECK: arith.fptosi %{{.*}} : f32 to i32
  %15 = arith.fptosi %x : f32 to i32
  // CHECK: arith.fptoui %{{.*}} : f32 to i32
  %16 = arith.fptoui %x : f32 to i32
  // CHECK: arith.bitcast %{{.*}} : f32 to i32
  %17 = arith.bitcast %x : f32 to i32
  return
}

// CHECK-LABEL: func.func @vectors
func.func @vectors(%v: vector<4xi32>, %w: vector<4xf32>) -> vector<4xi32> {
  // CHECK: arith.addi %{{.*}}, %{{.*}} : vector<4xi32>
  %0 = arith.addi %v, %v : vector<4xi32>
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
  %1 = arith.mulf %w, %w : vector<4xf32>
  return %0 : vector<4xi32>
}

// GENERIC: "arith.addi"(%{{.*}}, %{{.*}}) <{overflowFlags = #arith.overflow<nsw, nuw>}> : (i32, i32) -> i32
// GENERIC: "arith.cmpi"(%{{.*}}, %{{.*}}) <{predicate = 2 : i64}> : (i32, i32) -> i1
// GENERIC: "arith.mulf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32
