// RUN: layoutc-opt %s -p 'builtin.module(canonicalize)' | FileCheck %s

// Static layout values fold with the algebra. @fold_static applies every op to constants; the
// CHECK lines were computed by calling ir/algebra directly on the same operands (the oracle),
// so they state what CuTe's algebra gives, and the folders must agree.

// CHECK-LABEL: func.func @fold_static
// CHECK-DAG: %[[V0:.*]] = layout.constant #layout.layout<"(2,2):(2,4)">
// CHECK-DAG: %[[V1:.*]] = layout.constant #layout.layout<"1:0">
// CHECK-DAG: %[[V2:.*]] = layout.constant #layout.layout<"4:8">
// CHECK-DAG: %[[V3:.*]] = layout.constant #layout.layout<"(4,8):(8,1)">
// CHECK-DAG: %[[V4:.*]] = layout.constant #layout.layout<"(4,2):(2,1)">
// CHECK-DAG: %[[V5:.*]] = layout.constant #layout.layout<"32:1">
// CHECK-DAG: %[[V6:.*]] = layout.constant #layout.layout<"(4,8):(1,4)">
// CHECK-DAG: %[[V7:.*]] = layout.constant #layout.layout<"4:1">
// CHECK-DAG: %[[V8:.*]] = layout.constant #layout.layout<"((2,4),(4,2)):((4,8),(2,1))">
// CHECK-DAG: %[[V9:.*]] = layout.constant #layout.layout<"((2,4),(4,2)):((4,2),(8,1))">
// CHECK-DAG: %[[V10:.*]] = layout.constant #layout.layout<"((2,4),4,2):((4,2),8,1)">
// CHECK-DAG: %[[V11:.*]] = layout.constant #layout.layout<"(2,2,4,2):(4,1,8,2)">
// CHECK-DAG: %[[V12:.*]] = layout.constant #layout.layout<"((2,2),(8,4)):((1,2),(16,4))">
// CHECK-DAG: %[[V13:.*]] = layout.constant #layout.layout<"((2,2),(2,4)):((1,2),(2,4))">
// CHECK-DAG: %[[V14:.*]] = layout.constant #layout.layout<"((2,2),2,4):((1,2),2,4)">
// CHECK-DAG: %[[V15:.*]] = layout.constant #layout.layout<"(2,2,2,2):(1,2,2,1)">
// CHECK-DAG: %[[V16:.*]] = layout.constant #layout.layout<"((2,2),(2,4)):((1,16),(2,4))">
// CHECK-DAG: %[[V17:.*]] = layout.constant #layout.layout<"((2,2),(4,2)):((16,1),(4,2))">
// CHECK-DAG: %[[V18:.*]] = layout.constant #layout.layout<"((2,4),(2,2)):((1,4),(2,16))">
// CHECK-DAG: %[[V19:.*]] = layout.constant #layout.layout<"(4,(2,4),(2,2)):(1,(4,8),(1,2))">
// CHECK-DAG: %[[V20:.*]] = layout.constant #layout.layout<"((2,2),4,(2,4)):((1,2),1,(4,8))">
// CHECK-DAG: %[[V21:.*]] = layout.constant #layout.layout<"((8,4)):((4,1))">
// CHECK-DAG: %[[V22:.*]] = layout.constant #layout.layout<"(4,2,4):(1,4,8)">
// CHECK-DAG: %[[V23:.*]] = layout.constant #layout.layout<"Sw<1,2,3> o 0 o (8,4):(4,1)">
// CHECK-DAG: %[[V24:.*]] = layout.constant #layout.layout<"2:4">
// CHECK-DAG: %[[V25:.*]] = layout.constant #layout.int_tuple<"(4,(2,4))">
// CHECK-DAG: %[[V26:.*]] = layout.constant #layout.int_tuple<"(1,(4,8))">
// CHECK-DAG: %[[V27:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[V28:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[V29:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[V30:.*]] = arith.constant 30 : index
// CHECK-DAG: %[[V31:.*]] = layout.constant #layout.int_tuple<"(1,(1,1))">
// CHECK-DAG: %[[V32:.*]] = arith.constant true
// CHECK-DAG: %[[V33:.*]] = layout.constant #layout.layout<"(4,(2,4)):(1,(4,8))">
// CHECK-DAG: %[[V34:.*]] = layout.constant #layout.layout<"(4,8):(1@0,1@1)">
// CHECK-DAG: %[[V35:.*]] = layout.constant #layout.layout<"(2):(4)">
// CHECK-DAG: %[[V36:.*]] = arith.constant 26 : index
// CHECK-NOT: layout.{{[a-z_0-9]+}} %
// CHECK: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]], %[[V8]], %[[V9]], %[[V10]], %[[V11]], %[[V12]], %[[V13]], %[[V14]], %[[V15]], %[[V16]], %[[V17]], %[[V18]], %[[V19]], %[[V20]], %[[V21]], %[[V6]], %[[V22]], %[[V23]], %[[V24]], %[[V25]], %[[V26]], %[[V27]], %[[V28]], %[[V29]], %[[V29]], %[[V30]], %[[V31]], %[[V27]], %[[V32]], %[[V33]], %[[V34]], %[[V35]], %[[V36]] :
func.func @fold_static() -> (!layout.layout<"(2,2):(2,4)">, !layout.layout<"1:0">, !layout.layout<"4:8">, !layout.layout<"(4,8):(8,1)">, !layout.layout<"(4,2):(2,1)">, !layout.layout<"32:1">, !layout.layout<"(4,8):(1,4)">, !layout.layout<"4:1">, !layout.layout<"((2,4),(4,2)):((4,8),(2,1))">, !layout.layout<"((2,4),(4,2)):((4,2),(8,1))">, !layout.layout<"((2,4),4,2):((4,2),8,1)">, !layout.layout<"(2,2,4,2):(4,1,8,2)">, !layout.layout<"((2,2),(8,4)):((1,2),(16,4))">, !layout.layout<"((2,2),(2,4)):((1,2),(2,4))">, !layout.layout<"((2,2),2,4):((1,2),2,4)">, !layout.layout<"(2,2,2,2):(1,2,2,1)">, !layout.layout<"((2,2),(2,4)):((1,16),(2,4))">, !layout.layout<"((2,2),(4,2)):((16,1),(4,2))">, !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">, !layout.layout<"(4,(2,4),(2,2)):(1,(4,8),(1,2))">, !layout.layout<"((2,2),4,(2,4)):((1,2),1,(4,8))">, !layout.layout<"((8,4)):((4,1))">, !layout.layout<"(4,8):(1,4)">, !layout.layout<"(4,2,4):(1,4,8)">, !layout.layout<"Sw<1,2,3> o 0 o (8,4):(4,1)">, !layout.layout<"2:4">, !layout.int_tuple<"(4,(2,4))">, !layout.int_tuple<"(1,(4,8))">, index, index, index, index, index, !layout.int_tuple<"(?,(?,?))">, index, i1, !layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(4,8):(1@0,1@1)">, !layout.layout<"(2):(4)">, index) {
  %0 = layout.constant #layout.layout<"(4,(2,4)):(1,(4,8))">
  %1 = layout.constant #layout.layout<"(2,2):(2,4)">
  %2 = layout.composition %0, %1 : (!layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(2,2):(2,4)">) -> !layout.layout<"(2,2):(2,4)">
  %3 = layout.constant #layout.layout<"(2,4):(4,1)">
  %4 = layout.complement %3 : (!layout.layout<"(2,4):(4,1)">) -> !layout.layout<"1:0">
  %5 = layout.constant #layout.int_tuple<"(8,4)">
  %6 = layout.complement %3, %5 : (!layout.layout<"(2,4):(4,1)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"4:8">
  %7 = layout.constant #layout.layout<"(8,4):(4,1)">
  %8 = layout.right_inverse %7 : (!layout.layout<"(8,4):(4,1)">) -> !layout.layout<"(4,8):(8,1)">
  %9 = layout.left_inverse %3 : (!layout.layout<"(2,4):(4,1)">) -> !layout.layout<"(4,2):(2,1)">
  %10 = layout.coalesce %0 : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.layout<"32:1">
  %11 = layout.coalesce %0 {profile = #layout.int_tuple<"(1,1)">} : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.layout<"(4,8):(1,4)">
  %12 = layout.constant #layout.layout<"(4,1,2):(1,7,0)">
  %13 = layout.filter %12 : (!layout.layout<"(4,1,2):(1,7,0)">) -> !layout.layout<"4:1">
  %14 = layout.constant #layout.tile<"<2:1,4:2>">
  %15 = layout.logical_divide %7, %14 : (!layout.layout<"(8,4):(4,1)">, !layout.tile<"<2:1,4:2>">) -> !layout.layout<"((2,4),(4,2)):((4,8),(2,1))">
  %16 = layout.zipped_divide %7, %14 : (!layout.layout<"(8,4):(4,1)">, !layout.tile<"<2:1,4:2>">) -> !layout.layout<"((2,4),(4,2)):((4,2),(8,1))">
  %17 = layout.tiled_divide %7, %14 : (!layout.layout<"(8,4):(4,1)">, !layout.tile<"<2:1,4:2>">) -> !layout.layout<"((2,4),4,2):((4,2),8,1)">
  %18 = layout.constant #layout.int_tuple<"(2,2)">
  %19 = layout.flat_divide %7, %18 : (!layout.layout<"(8,4):(4,1)">, !layout.int_tuple<"(2,2)">) -> !layout.layout<"(2,2,4,2):(4,1,8,2)">
  %20 = layout.constant #layout.layout<"(2,2):(1,2)">
  %21 = layout.logical_product %20, %7 : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(8,4):(4,1)">) -> !layout.layout<"((2,2),(8,4)):((1,2),(16,4))">
  %22 = layout.zipped_product %20, %14 : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,4:2>">) -> !layout.layout<"((2,2),(2,4)):((1,2),(2,4))">
  %23 = layout.tiled_product %20, %14 : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,4:2>">) -> !layout.layout<"((2,2),2,4):((1,2),2,4)">
  %24 = layout.flat_product %20, %18 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(2,2)">) -> !layout.layout<"(2,2,2,2):(1,2,2,1)">
  %25 = layout.blocked_product %20, %3 : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,4):(4,1)">) -> !layout.layout<"((2,2),(2,4)):((1,16),(2,4))">
  %26 = layout.raked_product %20, %3 : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,4):(4,1)">) -> !layout.layout<"((2,2),(4,2)):((16,1),(4,2))">
  %27 = layout.tile_to_shape %20, %5 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">
  %28 = layout.append %0, %20 : (!layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(4,(2,4),(2,2)):(1,(4,8),(1,2))">
  %29 = layout.prepend %0, %20 : (!layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),4,(2,4)):((1,2),1,(4,8))">
  %30 = layout.group %7 {begin = 0 : i64, end = 2 : i64} : (!layout.layout<"(8,4):(4,1)">) -> !layout.layout<"((8,4)):((4,1))">
  %31 = layout.select %7[1, 0] : (!layout.layout<"(8,4):(4,1)">) -> !layout.layout<"(4,8):(1,4)">
  %32 = layout.flatten %0 : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.layout<"(4,2,4):(1,4,8)">
  %33 = layout.swizzle %7 Sw<1,2,3> : (!layout.layout<"(8,4):(4,1)">) -> !layout.layout<"Sw<1,2,3> o 0 o (8,4):(4,1)">
  %34 = layout.get %0[1, 0] : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.layout<"2:4">
  %35 = layout.shape %0 : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.int_tuple<"(4,(2,4))">
  %36 = layout.stride %0 : (!layout.layout<"(4,(2,4)):(1,(4,8))">) -> !layout.int_tuple<"(1,(4,8))">
  %37 = layout.size %0 : !layout.layout<"(4,(2,4)):(1,(4,8))">
  %38 = layout.cosize %1 : !layout.layout<"(2,2):(2,4)">
  %39 = layout.rank %0 : !layout.layout<"(4,(2,4)):(1,(4,8))">
  %40 = layout.depth %0 : !layout.layout<"(4,(2,4)):(1,(4,8))">
  %41 = layout.constant #layout.int_tuple<"(2,(1,3))">
  %42 = layout.crd2idx %41, %0 : !layout.int_tuple<"(2,(1,3))">, !layout.layout<"(4,(2,4)):(1,(4,8))">
  %c13 = arith.constant 13 : index
  %43 = layout.constant #layout.int_tuple<"(4,(2,4))">
  %44 = layout.idx2crd %c13, %43 : (index, !layout.int_tuple<"(4,(2,4))">) -> !layout.int_tuple<"(?,(?,?))">
  %45 = layout.max_common_vector %0, %0 : !layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(4,(2,4)):(1,(4,8))">
  %46 = layout.elem_less %41, %43 : !layout.int_tuple<"(2,(1,3))">, !layout.int_tuple<"(4,(2,4))">
  %47 = layout.constant #layout.int_tuple<"(1,(4,8))">
  %48 = layout.make_layout %43, %47 : !layout.layout<"(4,(2,4)):(1,(4,8))">
  %49 = layout.constant #layout.int_tuple<"(4,8)">
  %50 = layout.make_identity %49 : !layout.layout<"(4,8):(1@0,1@1)">
  %51:2 = layout.slice %0, %41 {wildcards = array<i64: 1>} : (!layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.int_tuple<"(2,(1,3))">) -> (!layout.layout<"(2):(4)">, index)
  return %2, %4, %6, %8, %9, %10, %11, %13, %15, %16, %17, %19, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %42, %44, %45, %46, %48, %50, %51#0, %51#1 : !layout.layout<"(2,2):(2,4)">, !layout.layout<"1:0">, !layout.layout<"4:8">, !layout.layout<"(4,8):(8,1)">, !layout.layout<"(4,2):(2,1)">, !layout.layout<"32:1">, !layout.layout<"(4,8):(1,4)">, !layout.layout<"4:1">, !layout.layout<"((2,4),(4,2)):((4,8),(2,1))">, !layout.layout<"((2,4),(4,2)):((4,2),(8,1))">, !layout.layout<"((2,4),4,2):((4,2),8,1)">, !layout.layout<"(2,2,4,2):(4,1,8,2)">, !layout.layout<"((2,2),(8,4)):((1,2),(16,4))">, !layout.layout<"((2,2),(2,4)):((1,2),(2,4))">, !layout.layout<"((2,2),2,4):((1,2),2,4)">, !layout.layout<"(2,2,2,2):(1,2,2,1)">, !layout.layout<"((2,2),(2,4)):((1,16),(2,4))">, !layout.layout<"((2,2),(4,2)):((16,1),(4,2))">, !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">, !layout.layout<"(4,(2,4),(2,2)):(1,(4,8),(1,2))">, !layout.layout<"((2,2),4,(2,4)):((1,2),1,(4,8))">, !layout.layout<"((8,4)):((4,1))">, !layout.layout<"(4,8):(1,4)">, !layout.layout<"(4,2,4):(1,4,8)">, !layout.layout<"Sw<1,2,3> o 0 o (8,4):(4,1)">, !layout.layout<"2:4">, !layout.int_tuple<"(4,(2,4))">, !layout.int_tuple<"(1,(4,8))">, index, index, index, index, index, !layout.int_tuple<"(?,(?,?))">, index, i1, !layout.layout<"(4,(2,4)):(1,(4,8))">, !layout.layout<"(4,8):(1@0,1@1)">, !layout.layout<"(2):(4)">, index
}

// A result that is static folds even when operands are dynamic.
// CHECK-LABEL: func.func @static_results
// CHECK-DAG: %[[R2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[S32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[SHAPE:.*]] = layout.constant #layout.int_tuple<"(4,8)">
// CHECK-DAG: %[[MODE:.*]] = layout.constant #layout.layout<"2:1">
// CHECK: return %[[R2]], %[[S32]], %[[SHAPE]], %[[MODE]], %u :
func.func @static_results(%l: !layout.layout<"(4,8):(?,?)">, %m: !layout.layout<"(4,(2,?)):(?,(1,8))">, %u: !layout.layout<"?:1">)
    -> (index, index, !layout.int_tuple<"(4,8)">, !layout.layout<"2:1">, !layout.layout<"?:1">) {
  %r = layout.rank %l : !layout.layout<"(4,8):(?,?)">
  %s = layout.size %l : !layout.layout<"(4,8):(?,?)">
  %shape = layout.shape %l : (!layout.layout<"(4,8):(?,?)">) -> !layout.int_tuple<"(4,8)">
  %mode = layout.get %m[1, 0] : (!layout.layout<"(4,(2,?)):(?,(1,8))">) -> !layout.layout<"2:1">
  %same = layout.coalesce %u : (!layout.layout<"?:1">) -> !layout.layout<"?:1">
  return %r, %s, %shape, %mode, %same : index, index, !layout.int_tuple<"(4,8)">, !layout.layout<"2:1">, !layout.layout<"?:1">
}

// Constant index operands fold through make_shape/make_stride/make_layout; the constant keeps
// the type the users were built with.
// CHECK-LABEL: func.func @constant_chain
// CHECK-DAG: %[[L:.*]] = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,?):(?,?)">
// CHECK-DAG: %[[N:.*]] = arith.constant 32 : index
// CHECK: return %[[L]], %[[N]] :
func.func @constant_chain() -> (!layout.layout<"(?,?):(?,?)">, index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s = layout.make_shape %c4, %c8 : !layout.int_tuple<"(?,?)">
  %d = layout.make_stride %c1, %c4 : !layout.int_tuple<"(?,?)">
  %l = layout.make_layout %s, %d : !layout.layout<"(?,?):(?,?)">
  %n = layout.cosize %l : !layout.layout<"(?,?):(?,?)">
  return %l, %n : !layout.layout<"(?,?):(?,?)">, index
}

// Patterns: crd2idx in a static layout becomes affine arith on the dynamic coordinate entries;
// get/size of make_shape and shape/stride of make_layout look through the producer.
// CHECK-LABEL: func.func @patterns
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[N:.*]]: index, %[[L:.*]]: !layout.layout<"(4,?):(1,?)">)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[IS:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-DAG: %[[JS:.*]] = arith.muli %[[J]], %[[C4]] : index
// CHECK-DAG: %[[SUM:.*]] = arith.addi %[[IS]], %[[JS]] : index
// CHECK-DAG: %[[IDX:.*]] = arith.addi %[[SUM]], %[[C3]] : index
// CHECK-DAG: %[[SIZE:.*]] = arith.muli %[[N]], %[[C4]] : index
// CHECK-DAG: %[[G:.*]] = layout.make_shape %[[N]] : !layout.int_tuple<"?">
// CHECK-DAG: %[[S:.*]] = layout.make_shape %[[N]] : !layout.int_tuple<"(4,?)">
// CHECK-NOT: layout.crd2idx
// CHECK-NOT: layout.shape
// CHECK: return %[[IDX]], %[[SIZE]], %[[G]], %[[S]], %[[L]] :
func.func @patterns(%i: index, %j: index, %n: index, %l: !layout.layout<"(4,?):(1,?)">)
    -> (index, index, !layout.int_tuple<"?">, !layout.int_tuple<"(4,?)">, !layout.layout<"(4,?):(1,?)">) {
  %c3 = arith.constant 3 : index
  %k = layout.constant #layout.layout<"(4,(2,8)):(8,(1,4))">
  %crd = layout.make_coord %i, %c3, %j : !layout.int_tuple<"(?,(?,?))">
  %idx = layout.crd2idx %crd, %k : !layout.int_tuple<"(?,(?,?))">, !layout.layout<"(4,(2,8)):(8,(1,4))">
  %s = layout.make_shape %n : !layout.int_tuple<"(4,?)">
  %size = layout.size %s : !layout.int_tuple<"(4,?)">
  %g = layout.get %s[1] : (!layout.int_tuple<"(4,?)">) -> !layout.int_tuple<"?">
  %d = layout.make_stride %n : !layout.int_tuple<"(1,?)">
  %x = layout.make_layout %s, %d : !layout.layout<"(4,?):(1,?)">
  %xs = layout.shape %x : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(4,?)">
  %ls = layout.shape %l : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(4,?)">
  %ld = layout.stride %l : (!layout.layout<"(4,?):(1,?)">) -> !layout.int_tuple<"(1,?)">
  %y = layout.make_layout %ls, %ld : !layout.layout<"(4,?):(1,?)">
  return %idx, %size, %g, %xs, %y : index, index, !layout.int_tuple<"?">, !layout.int_tuple<"(4,?)">, !layout.layout<"(4,?):(1,?)">
}
