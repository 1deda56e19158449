// convert-arith-to-llvm, convert-cf-to-llvm and convert-func-to-llvm: upstream MLIR's op
// mapping, with the cases LLVM leaves undefined spelled out as layoutc defines them.
// RUN: layoutc-opt %s -p 'builtin.module(convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm)' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-arith-to-llvm{index-bitwidth=32},convert-cf-to-llvm,convert-func-to-llvm{index-bitwidth=32})' | FileCheck %s --check-prefix=I32

// CHECK-LABEL: llvm.func @ints(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: vector<4xi32>) -> i32
// I32-LABEL: llvm.func @ints(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: vector<4xi32>) -> i32
func.func @ints(%a: i32, %b: i32, %i: index, %v: vector<4xi32>) -> i32 {
  %c4 = arith.constant 4 : i32
  %ci = arith.constant 7 : index
  // CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: %[[CI:.*]] = llvm.mlir.constant(7 : i64) : i64
  // I32: llvm.mlir.constant(7 : i32) : i32
  // CHECK: %[[S:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nsw> : i32
  %0 = arith.addi %a, %b overflow<nsw> : i32
  // A run-time divisor: 0 and INT_MIN / -1 divide by 1 instead, x / 0 is -1.
  // CHECK: %[[BYZ:.*]] = llvm.icmp "eq" %{{.*}}, %[[Z:.*]] : i32
  // CHECK: llvm.or %[[BYZ]], %{{.*}} : i1
  // CHECK: %[[SAFE:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
  // CHECK: %[[Q:.*]] = llvm.sdiv %[[S]], %[[SAFE]] : i32
  // CHECK: %[[D:.*]] = llvm.select %[[BYZ]], %{{.*}}, %[[Q]] : i1, i32
  %1 = arith.divsi %0, %b : i32
  // A constant divisor other than 0 and -1 needs no guard.
  // CHECK-NEXT: %[[U:.*]] = llvm.udiv %[[D]], %[[C4]] : i32
  %2 = arith.divui %1, %c4 : i32
  // Shifts by the width or more give 0.
  // CHECK: %[[BIG:.*]] = llvm.icmp "uge" %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.shl %[[U]], %{{.*}} : i32
  // CHECK: llvm.select %[[BIG]], %{{.*}}, %{{.*}} : i1, i32
  %3 = arith.shli %2, %b : i32
  // CHECK: llvm.intr.umax(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
  %4 = arith.maxui %3, %a : i32
  // CHECK: llvm.trunc %{{.*}} : i64 to i32
  // I32-NOT: llvm.trunc
  %5 = arith.index_cast %i : index to i32
  // CHECK: llvm.add %{{.*}}, %[[CI]] : i64
  %6 = arith.addi %i, %ci : index
  // CHECK: llvm.icmp "uge" %{{.*}}, %{{.*}} : vector<4xi32>
  // CHECK: llvm.lshr %{{.*}}, %{{.*}} : vector<4xi32>
  %7 = arith.shrui %v, %v : vector<4xi32>
  // CHECK: llvm.return %{{.*}} : i32
  return %5 : i32
}

// CHECK-LABEL: llvm.func @floats
func.func @floats(%x: f32, %h: bf16) -> i32 {
  // fptosi saturates and maps NaN to 0 (PTX's cvt.rzi); bf16 goes through f32, exactly.
  // CHECK: %[[I:.*]] = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%{{.*}}) : (f32) -> i32
  %0 = arith.fptosi %x : f32 to i32
  // CHECK: %[[W:.*]] = llvm.fpext %{{.*}} : bf16 to f32
  // CHECK: llvm.call_intrinsic "llvm.fptoui.sat.i32.f32"(%[[W]]) : (f32) -> i32
  %1 = arith.fptoui %h : bf16 to i32
  // bf16 arithmetic stays bf16, as upstream leaves it.
  // CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<fast>} : bf16
  %2 = arith.addf %h, %h fastmath<fast> : bf16
  // CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  %3 = arith.maximumf %x, %x : f32
  // CHECK: llvm.fcmp "ole" %{{.*}}, %{{.*}} : f32
  %4 = arith.cmpf ole, %3, %x : f32
  // CHECK: llvm.fneg %{{.*}} : f32
  %5 = arith.negf %x : f32
  // CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
  %6 = arith.select %4, %0, %1 : i32
  return %6 : i32
}

// Several results travel as one struct; a private definition is internal; branches become
// llvm.br/llvm.cond_br.
// CHECK-LABEL: llvm.func internal @two(%{{.*}}: i32) -> !llvm.struct<(i32, f32)>
func.func private @two(%a: i32) -> (i32, f32) {
  %f = arith.constant 1.0 : f32
  %t = arith.constant true
  // CHECK: llvm.cond_br %{{.*}}, ^bb1(%{{.*}} : i32), ^bb1(%{{.*}} : i32)
  cf.cond_br %t, ^bb1(%a : i32), ^bb1(%a : i32)
^bb1(%x: i32):
  // CHECK: llvm.br ^bb2
  cf.br ^bb2
^bb2:
  // CHECK: %[[P:.*]] = llvm.mlir.poison : !llvm.struct<(i32, f32)>
  // CHECK: %[[P0:.*]] = llvm.insertvalue %{{.*}}, %[[P]][0] : !llvm.struct<(i32, f32)>
  // CHECK: %[[P1:.*]] = llvm.insertvalue %{{.*}}, %[[P0]][1] : !llvm.struct<(i32, f32)>
  // CHECK: llvm.return %[[P1]] : !llvm.struct<(i32, f32)>
  return %x, %f : i32, f32
}

// A kernel also gets nvvm.kernel and its block size as nvvm.maxntid (upstream's gpu-to-nvvm).
// CHECK-LABEL: llvm.func @k(%{{.*}}: i32) attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>}
func.func @k(%a: i32) attributes {gpu.kernel, gpu.known_block_size = array<i32: 64, 1, 1>} {
  // CHECK: %[[R:.*]] = llvm.call @two(%{{.*}}) : (i32) -> !llvm.struct<(i32, f32)>
  // CHECK: llvm.extractvalue %[[R]][0] : !llvm.struct<(i32, f32)>
  // CHECK: llvm.extractvalue %[[R]][1] : !llvm.struct<(i32, f32)>
  %r:2 = func.call @two(%a) : (i32) -> (i32, f32)
  return
}
