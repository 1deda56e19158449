"""A module using every op of the layout dialect in its custom form (canonical text)."""

from __future__ import annotations

ALL_OPS = """\
module {
  func.func @all_ops(%n: index, %k: index, %i: index) {
    %shape = layout.make_shape %n : !layout.int_tuple<"(4,(?,2))">
    %stride = layout.make_stride %k : !layout.int_tuple<"(1,(4,?))">
    %coord = layout.make_coord %i, %i : !layout.int_tuple<"(?,(0,?))">
    %tuple = layout.make_int_tuple %n : !layout.int_tuple<"(?,8)">
    %l = layout.make_layout %shape, %stride : !layout.layout<"(4,(?,2)):(1,(4,?))">
    %cst = layout.constant #layout.layout<"(8,64):(64,1)">
    %t84 = layout.constant #layout.int_tuple<"(8,4)">
    %tile = layout.constant #layout.tile<"<2:1,(2,2):(1,4)>">
    %dyn = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,8):(1,?)">
    %ident = layout.make_identity %tuple : !layout.layout<"(?,8):(1@0,1@1)">
    %gouter = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1)">
    %goff = layout.constant #layout.int_tuple<"(0,0)">
    %gather = layout.make_composed_layout %gouter, %goff, %ident : (!layout.layout<"(1,1):(Custom{rows,64},1)">, !layout.int_tuple<"(0,0)">, !layout.layout<"(?,8):(1@0,1@1)">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (?,8):(1@0,1@1)">
    %get = layout.get %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"?:4">
    %size = layout.size %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
    %cosize = layout.cosize %cst : !layout.layout<"(8,64):(64,1)">
    %rank = layout.rank %l : !layout.layout<"(4,(?,2)):(1,(4,?))">
    %depth = layout.depth %tuple : !layout.int_tuple<"(?,8)">
    %shp = layout.shape %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(4,(?,2))">
    %str = layout.stride %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.int_tuple<"(1,(4,?))">
    %idx = layout.crd2idx %coord, %l : !layout.int_tuple<"(?,(0,?))">, !layout.layout<"(4,(?,2)):(1,(4,?))">
    %crd = layout.idx2crd %i, %t84 : (index, !layout.int_tuple<"(8,4)">) -> !layout.int_tuple<"(?,?)">
    %sub, %off = layout.slice %l, %coord {wildcards = array<i64: 1>} : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.int_tuple<"(?,(0,?))">) -> (!layout.layout<"(?):(4)">, index)
    %vec = layout.max_common_vector %cst, %cst : !layout.layout<"(8,64):(64,1)">, !layout.layout<"(8,64):(64,1)">
    %pred = layout.elem_less %coord, %shape : !layout.int_tuple<"(?,(0,?))">, !layout.int_tuple<"(4,(?,2))">
    %blk = layout.constant #layout.layout<"(2,2):(1,2)">
    %comp = layout.composition %l, %blk : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2):(1,2)">
    %compl = layout.complement %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"1:0">
    %compl2 = layout.complement %cst, %t84 : (!layout.layout<"(8,64):(64,1)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"1:0">
    %rinv = layout.right_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
    %linv = layout.left_inverse %cst : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(64,8):(8,1)">
    %coal = layout.coalesce %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
    %coalp = layout.coalesce %l {profile = #layout.int_tuple<"(1,1)">} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2)):(1,(4,?))">
    %filt = layout.filter %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(?,2):(1,?)">
    %ldiv = layout.logical_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,?),((2,2),2)):((1,2),((?,?),?))">
    %zdiv = layout.zipped_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),(?,2)):((1,(?,?)),(2,?))">
    %tdiv = layout.tiled_divide %dyn, %tile : (!layout.layout<"(?,8):(1,?)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,(2,2)),?,2):((1,(?,?)),2,?)">
    %fdiv = layout.flat_divide %dyn, %t84 : (!layout.layout<"(?,8):(1,?)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(8,4,?,2):(1,?,8,?)">
    %lprod = layout.logical_product %blk, %cst : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((2,2),(8,64)):((1,2),(256,4))">
    %zprod = layout.zipped_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),(2,(2,2))):((1,2),(2,(1,8)))">
    %tprod = layout.tiled_product %blk, %tile : (!layout.layout<"(2,2):(1,2)">, !layout.tile<"<2:1,(2,2):(1,4)>">) -> !layout.layout<"((2,2),2,(2,2)):((1,2),2,(1,8))">
    %fprod = layout.flat_product %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"(2,2,8,(2,2)):(1,2,2,(1,4))">
    %bprod = layout.blocked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((1,4),(2,8))">
    %rprod = layout.raked_product %blk, %blk : (!layout.layout<"(2,2):(1,2)">, !layout.layout<"(2,2):(1,2)">) -> !layout.layout<"((2,2),(2,2)):((4,1),(8,2))">
    %tts = layout.tile_to_shape %blk, %t84 : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,4),(2,16))">
    %tts2 = layout.tile_to_shape %blk, %t84 {order = #layout.int_tuple<"(1,0)">} : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(8,4)">) -> !layout.layout<"((2,4),(2,2)):((1,8),(2,4))">
    %app = layout.append %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,(?,2),1):(1,(4,?),0)">
    %app2 = layout.append %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(4,(?,2),(8,64)):(1,(4,?),(64,1))">
    %app3 = layout.append %blk {n = 4 : i64} : (!layout.layout<"(2,2):(1,2)">) -> !layout.layout<"(2,2,1,1):(1,2,0,0)">
    %pre = layout.prepend %l, %cst : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"((8,64),4,(?,2)):((64,1),1,(4,?))">
    %grp = layout.group %l {begin = 0 : i64, end = 2 : i64} : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((4,(?,2))):((1,(4,?)))">
    %sel = layout.select %l[1, 0] : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"((?,2),4):((4,?),1)">
    %flat = layout.flatten %l : (!layout.layout<"(4,(?,2)):(1,(4,?))">) -> !layout.layout<"(4,?,2):(1,4,?)">
    %flatt = layout.flatten %tuple : (!layout.int_tuple<"(?,8)">) -> !layout.int_tuple<"(?,8)">
    %sw = layout.swizzle %cst Sw<3,4,3> : (!layout.layout<"(8,64):(64,1)">) -> !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
    return
  }
  func.func @composed(%i: index) {
    %sw = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
    %row = layout.make_coord %i : !layout.int_tuple<"(?,0)">
    %swidx = layout.crd2idx %row, %sw : !layout.int_tuple<"(?,0)">, !layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
    %row3 = layout.make_coord : !layout.int_tuple<"(3,0)">
    %swrow, %swoff = layout.slice %sw, %row3 {wildcards = array<i64: 1>} : (!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">, !layout.int_tuple<"(3,0)">) -> (!layout.layout<"((16,2,2)):((1,-16,32))">, index)
    %gather = layout.constant #layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">
    %t4 = layout.constant #layout.tile<"<4:1,_>">
    %gdiv = layout.logical_divide %gather, %t4 : (!layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, !layout.tile<"<4:1,_>">) -> !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o ((4,2),64):((1@0,4@0),1@1)">
    %static = layout.make_shape : !layout.int_tuple<"(4,8)">
    %n32 = layout.size %static : !layout.int_tuple<"(4,8)">
    return
  }
}
"""
