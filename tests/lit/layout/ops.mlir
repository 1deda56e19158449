// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s
// RUN: layoutc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: layoutc-opt %s --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// Every op of the layout dialect in its custom form; the printer gives back the same text,
// and the generic form (accepted by xDSL) reads back to it.

// CHECK-LABEL: func.func @all_ops
func.func @all_ops(%n: index, %k: index, %i: index) {
  // CHECK-NEXT: %shape = layout.make_shape %n : !layout.int_tuple<"(4,(?,2))">
  %shape = layout.make_shape %n : !layout.int_tuple<"(4,(?,2))">
  // CHECK-NEXT: %stride = layout.make_stride %k : !layout.int_tuple<"(1,(4,?))">
  %stride = layout.make_stride %k : !layout.int_tuple<"(1,(4,?))">
  // CHECK-NEXT: %coord = layout.make_coord %i, %i : !layout.int_tuple<"(?,(0,?))">
  %coord = layout.make_coord %i, %i : !layout.int_tuple<"(?,(0,?))">
  // CHECK-NEXT: %tuple = layout.make_int_tuple %n : !layout.int_tuple<"(?,8)">
  %tuple = layout.make_int_tuple %n : !layout.int_tuple<"(?,8)">
  // CHECK-NEXT: %l = layout.make_layout %shape, %stride : !layout.layout<"(4,(?,2)):(1,(4,?))">
  %l = layout.make_layout %shape, %stride : !layout.layout<"(4,(?,2)):(1,(4,?))">
  // CHECK-NEXT: %cst = layout.constant #layout.layout<"(8,64):(64,1)">
  %cst = layout.constant #layout.layout<"(8,64):(64,1)">
  // CHECK-NEXT: %t84 = layout.constant #layout.int_tuple<"(8,4)">
  %t84 = layout.constant #layout.int_tuple<"(8,4)">
  // CHECK-NEXT: %tile = layout.constant #layout.tile<"<2:1,(2,2):(1,4)>">
  %tile = layout.constant #layout.tile<"<2:1,(2,2):(1,4)>">
  // CHECK-NEXT: %dyn = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,8):(1,?)">
  %dyn = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,8):(1,?)">
  // CHECK-NEXT: %ident = layout.make_identity %tuple : !layout.layout<"(?,8):(1@0,1@1)">
  %ident = layout.make_identity %tuple : !layout.layout<"(?,8):(1@0,1@1)">
  // CHECK-NEXT: %get = layout.get %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"?:4">
  %get = layout.get %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"?:4">
  // CHECK-NEXT: %size = layout.size %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
  %size = layout.size %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
  // CHECK-NEXT: %cosize = layout.cosize %cst : !layout.layout<"(8,64):(64,1)">
  %cosize = layout.cosize %cst : !layout.layout<"(8,64):(64,1)">
  // CHECK-NEXT: %rank = layout.rank %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
  %rank = layout.rank %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
  // CHECK-NEXT: %depth = layout.depth %tuple : !layout.int_tuple<"(?,8)">
  %depth = layout.depth %tuple : !layout.int_tuple<"(?,8)">
  // CHECK-NEXT: %shp = layout.shape %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(4,(?,2))">
  %shp = layout.shape %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(4,(?,2))">
  // CHECK-NEXT: %str = layout.stride %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(1,(4,?))">
  %str = layout.stride %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(1,(4,?))">
  // CHECK-NEXT: %idx = layout.crd2idx %coord, %l : !layout.int_tuple<"(?,(0,?))">, !layout.layout<"(4,(?,2)):(1,(4,?))">
  %idx = layout.crd2idx %coord, %l : !layout.int_tuple<"(?,(0,?))">, !layout.layout<"(4,(?,2)):(1,(4,?))">
  // CHECK-NEXT: %crd = layout.idx2crd %i, %t84 : (index, !layout.int_tuple<"(8,4)">) -> !layout.int_tuple<"(?,?)">
  %crd = layout.idx2crd %i, %t84 : (index, !layout.int_tuple<"(8,4)">) -> !layout.int_tuple<"(?,?)">
  // CHECK-NEXT: %sub, %off = layout.slice %l, %coord {wildcards = array<i64: 1>} : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.int_tuple<"(?,(0,?))">) -> (!layout.layout<"(?):(4)">, index)
  %sub, %off = layout.slice %l, %coord {wildcards = array<i64: 1>} : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.int_tuple<"(?,(0,?))">) -> (!layout.layout<"(?):(4)">, index)
  // CHECK-NEXT: %vec = layout.max_common_vector %cst, %cst : !layout.layout<"(8,64):(64,1)">, !layout.layout<"(8,64):(64,1)">
  %vec = layout.max_common_vector %cst, %cst : !layout.layout<"(8,64):(64,1)">, !layout.layout<"(8,64):(64,1)">
  // CHECK-NEXT: %pred = layout.elem_less %coord, %shape : !layout.int_tuple<"(?,(0,?))">, !layout.int_tuple<"(4,(?,2))">
  %pred = layout.elem_less %coord, %shape : !layout.int_tuple<"(?,(0,?))">, !layout.int_tuple<"(4,(?,2))">
  // CHECK-NEXT: %blk = layout.constant #layout.layout<"(2,2):(1,2)">
  %blk = layout.constant #layout.layout<"(2,2):(1,2)">
  // CHECK-NEXT: %comp = layout.composition %l, %blk : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2):(1,2)">
  %comp = layout.composition %l, %blk : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2):(1,2)">
  // CHECK-NEXT: %compl = layout.complement %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"1:0">
  %compl = layout.complement %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"1:0">
  // CHECK-NEXT: %compl2 = layout.complement %cst, %t84 : (!layout.layout<"(8,64):(64,1)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"1:0">
  %compl2 = layout.complement %cst, %t84 : (!layout.layout<"(8,64):(64,1)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"1:0">
  // CHECK-NEXT: %rinv = layout.right_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
  %rinv = layout.right_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
  // CHECK-NEXT: %linv = layout.left_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
  %linv = layout.left_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
  // CHECK-NEXT: %coal = layout.coalesce %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
  %coal = layout.coalesce %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
  // CHECK-NEXT: %coalp = layout.coalesce %l {profile = #layout.int_tuple<"(1,1)">} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2)):(1,(4,?))">
  %coalp = layout.coalesce %l {profile = #layout.int_tuple<"(1,1)">} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2)):(1,(4,?))">
  // CHECK-NEXT: %filt = layout.filter %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
  %filt = layout.filter %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
  // CHECK-NEXT: %ldiv = layout.logical_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,?),((2,2),2)):((1,2),((?,?),?))">
  %ldiv = layout.logical_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,?),((2,2),2)):((1,2),((?,?),?))">
  // CHECK-NEXT: %zdiv = layout.zipped_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),(?,2)):((1,(?,?)),(2,?))">
  %zdiv = layout.zipped_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),(?,2)):((1,(?,?)),(2,?))">
  // CHECK-NEXT: %tdiv = layout.tiled_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),?,2):((1,(?,?)),2,?)">
  %tdiv = layout.tiled_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),?,2):((1,(?,?)),2,?)">
  // CHECK-NEXT: %fdiv = layout.flat_divide %dyn, %t84 : (!layout.layout<"(?,8):(1,?)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(8,4,?,2):(1,?,8,?)">
  %fdiv = layout.flat_divide %dyn, %t84 : (!layout.layout<"(?,8):(1,?)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(8,4,?,2):(1,?,8,?)">
  // CHECK-NEXT: %lprod = layout.logical_product %blk, %cst : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((2,2),(8,64)):((1,2),(256,4))">
  %lprod = layout.logical_product %blk, %cst : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((2,2),(8,64)):((1,2),(256,4))">
  // CHECK-NEXT: %zprod = layout.zipped_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),(2,(2,2))):((1,2),(2,(1,8)))">
  %zprod = layout.zipped_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),(2,(2,2))):((1,2),(2,(1,8)))">
  // CHECK-NEXT: %tprod = layout.tiled_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),2,(2,2)):((1,2),2,(1,8))">
  %tprod = layout.tiled_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),2,(2,2)):((1,2),2,(1,8))">
  // CHECK-NEXT: %fprod = layout.flat_product %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(2,2,8,(2,2)):(1,2,2,(1,4))">
  %fprod = layout.flat_product %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(2,2,8,(2,2)):(1,2,2,(1,4))">
  // CHECK-NEXT: %bprod = layout.blocked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((1,4),(2,8))">
  %bprod = layout.blocked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((1,4),(2,8))">
  // CHECK-NEXT: %rprod = layout.raked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((4,1),(8,2))">
  %rprod = layout.raked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((4,1),(8,2))">
  // CHECK-NEXT: %tts = layout.tile_to_shape %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">
  %tts = layout.tile_to_shape %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">
  // CHECK-NEXT: %tts2 = layout.tile_to_shape %blk, %t84 {order = #layout.int_tuple<"(1,0)">} : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,8),(2,4))">
  %tts2 = layout.tile_to_shape %blk, %t84 {order = #layout.int_tuple<"(1,0)">} : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,8),(2,4))">
  // CHECK-NEXT: %app = layout.append %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2),1):(1,(4,?),0)">
  %app = layout.append %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2),1):(1,(4,?),0)">
  // CHECK-NEXT: %app2 = layout.append %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(4,(?,2),(8,64)):(1,(4,?),(64,1))">
  %app2 = layout.append %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(4,(?,2),(8,64)):(1,(4,?),(64,1))">
  // CHECK-NEXT: %app3 = layout.append %blk {n = 4 : i64} : (!layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2,1,1):(1,2,0,0)">
  %app3 = layout.append %blk {n = 4 : i64} : (!layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2,1,1):(1,2,0,0)">
  // CHECK-NEXT: %pre = layout.prepend %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((8,64),4,(?,2)):((64,1),1,(4,?))">
  %pre = layout.prepend %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((8,64),4,(?,2)):((64,1),1,(4,?))">
  // CHECK-NEXT: %grp = layout.group %l {begin = 0 : i64, end = 2 : i64} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((4,(?,2))):((1,(4,?)))">
  %grp = layout.group %l {begin = 0 : i64, end = 2 : i64} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((4,(?,2))):((1,(4,?)))">
  // CHECK-NEXT: %sel = layout.select %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((?,2),4):((4,?),1)">
  %sel = layout.select %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((?,2),4):((4,?),1)">
  // CHECK-NEXT: %flat = layout.flatten %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,?,2):(1,4,?)">
  %flat = layout.flatten %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,?,2):(1,4,?)">
  // CHECK-NEXT: %flatt = layout.flatten %tuple : (!layout.int_tuple<"(?,8)">) -> !layout.int_tuple<"(?,8)">
  %flatt = layout.flatten %tuple : (!layout.int_tuple<"(?,8)">) -> !layout.int_tuple<"(?,8)">
  // CHECK-NEXT: %sw = layout.swizzle %cst Sw<3,4,3> : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  %sw = layout.swizzle %cst Sw<3,4,3> : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  return
}
// CHECK-LABEL: func.func @composed
func.func @composed(%i: index) {
  // CHECK-NEXT: %sw = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  %sw = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  // CHECK-NEXT: %row = layout.make_coord %i : !layout.int_tuple<"(?,0)">
  %row = layout.make_coord %i : !layout.int_tuple<"(?,0)">
  // CHECK-NEXT: %swidx = layout.crd2idx %row, %sw : !layout.int_tuple<"(?,0)">, !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  %swidx = layout.crd2idx %row, %sw : !layout.int_tuple<"(?,0)">, !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  // CHECK-NEXT: %row3 = layout.make_coord : !layout.int_tuple<"(3,0)">
  %row3 = layout.make_coord : !layout.int_tuple<"(3,0)">
  // CHECK-NEXT: %swrow, %swoff = layout.slice %sw, %row3 {wildcards = array<i64: 1>} : (!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">, !layout.int_tuple<"(3,0)">) -> (!layout.layout<"((16,2,2)):((1,-16,32))">, index)
  %swrow, %swoff = layout.slice %sw, %row3 {wildcards = array<i64: 1>} : (!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">, !layout.int_tuple<"(3,0)">) -> (!layout.layout<"((16,2,2)):((1,-16,32))">, index)
  // CHECK-NEXT: %gather = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">
  %gather = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">
  // CHECK-NEXT: %t4 = layout.constant #layout.tile<"<4:1,_>">
  %t4 = layout.constant #layout.tile<"<4:1,_>">
  // CHECK-NEXT: %gdiv = layout.logical_divide %gather, %t4 : (!layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, !layout.tile<"<4:1,_>">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o ((4,2),64):((1@0,4@0),1@1)">
  %gdiv = layout.logical_divide %gather, %t4 : (!layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, !layout.tile<"<4:1,_>">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o ((4,2),64):((1@0,4@0),1@1)">
  // CHECK-NEXT: %static = layout.make_shape : !layout.int_tuple<"(4,8)">
  %static = layout.make_shape : !layout.int_tuple<"(4,8)">
  // CHECK-NEXT: %n32 = layout.size %static : !layout.int_tuple<"(4,8)">
  %n32 = layout.size %static : !layout.int_tuple<"(4,8)">
  return
}

// GENERIC-LABEL: "func.func"() <{function_type = (index, index, index) -> (), sym_name = "all_ops"}>
// GENERIC: "layout.make_shape"(%{{.*}}) : (index) -> !layout.int_tuple<"(4,(?,2))">
// GENERIC: "layout.make_layout"(%{{.*}}, %{{.*}}) : (!layout.int_tuple<"(4,(?,2))">, !layout.int_tuple<"(1,(4,?))">) -> !layout.layout<"(4,(?,2)):(1,(4,?))">
// GENERIC: "layout.constant"() <{value = #layout.layout<"(8,64):(64,1)">}> : () -> !layout.layout<"(8,64):(64,1)">
// GENERIC: "layout.get"(%{{.*}}) <{mode = array<i64: 1, 0>}>
// GENERIC: "layout.slice"(%{{.*}}, %{{.*}}) <{wildcards = array<i64: 1>}> : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.int_tuple<"(?,(0,?))">) -> (!layout.layout<"(?):(4)">, index)
// GENERIC: "layout.elem_less"(%{{.*}}, %{{.*}}) : (!layout.int_tuple<"(?,(0,?))">, !layout.int_tuple<"(4,(?,2))">) -> i1
// GENERIC: "layout.coalesce"(%{{.*}}) <{profile = #layout.int_tuple<"(1,1)">}>
// GENERIC: "layout.group"(%{{.*}}) <{begin = 0 : i64, end = 2 : i64}>
// GENERIC: "layout.swizzle"(%{{.*}}) <{B = 3 : i64, M = 4 : i64, S = 3 : i64}> : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">

// XDSL-LABEL: func.func @all_ops
// XDSL: "layout.make_layout"(%{{.*}}, %{{.*}}) : (!layout.int_tuple<"(4,(?,2))">, !layout.int_tuple<"(1,(4,?))">) -> !layout.layout<"(4,(?,2)):(1,(4,?))">
// XDSL: "layout.slice"(%{{.*}}, %{{.*}}) <{wildcards = array<i64: 1>}>
// XDSL-LABEL: func.func @composed
// XDSL: "layout.constant"() <{value = #layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">}>
