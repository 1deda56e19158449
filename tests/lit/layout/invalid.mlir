// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

// Every layout op checks its operands with the algebra: a failed condition is reported at the
// op, naming the condition; '?' entries appear as symbols A0, A1, ... explained by a note.

func.func @not_congruent(%n: index) {
  %s = layout.make_shape %n : !layout.int_tuple<"(4,?)">
  %d = layout.make_stride %n, %n : !layout.int_tuple<"(1,(?,?))">
  // expected-error@+3 {{'layout.make_layout' op Layout: shape (4,A0) and stride (1,(B0,B1)) are not congruent}}
  // expected-note@+2 {{A0 stands for the '?' of operand #0 ('!layout.int_tuple<"(4,?)">')}}
  // expected-note@+1 {{B0, B1 stand for the '?' entries of operand #1}}
  %l = "layout.make_layout"(%s, %d) : (!layout.int_tuple<"(4,?)">, !layout.int_tuple<"(1,(?,?))">) -> !layout.layout<"(4,?):(1,?)">
  return
}

// -----

func.func @wrong_result_type() {
  %c = layout.constant #layout.layout<"(4,8):(1,4)">
  // expected-error@+1 {{result #0 has type '!layout.layout<"(4,8):(1,4)">', but the operands give '!layout.layout<"32:1">'}}
  %x = layout.coalesce %c : (!layout.layout<"(4,8):(1,4)">) -> !layout.layout<"(4,8):(1,4)">
  return
}

// -----

func.func @complement_not_injective() {
  %c = layout.constant #layout.layout<"(2,2):(1,1)">
  // expected-error@+1 {{the layout is not injective or its modes interleave}}
  %x = layout.complement %c : (!layout.layout<"(2,2):(1,1)">) -> !layout.layout<"1:0">
  return
}

// -----

func.func @composition_shape_divisibility() {
  %a = layout.constant #layout.layout<"(6,2):(2,1)">
  %b = layout.constant #layout.layout<"4:2">
  // expected-error@+1 {{shape divisibility condition fails: 3 (from mode 0 of shape 6) does not divide 4}}
  %x = layout.composition %a, %b : (!layout.layout<"(6,2):(2,1)">, !layout.layout<"4:2">) -> !layout.layout<"4:2">
  return
}

// -----

func.func @composition_stride_divisibility() {
  %a = layout.constant #layout.layout<"(3,4):(4,1)">
  %b = layout.constant #layout.layout<"3:2">
  // expected-error@+1 {{stride divisibility condition fails: stride 2 does not divide mode 0 of shape 3}}
  %x = layout.composition %a, %b : (!layout.layout<"(3,4):(4,1)">, !layout.layout<"3:2">) -> !layout.layout<"3:2">
  return
}

// -----

func.func @composition_not_provable(%n: index, %k: index) {
  %s = layout.make_shape %n : !layout.int_tuple<"(4,(?,2))">
  %d = layout.make_stride %k : !layout.int_tuple<"(1,(4,?))">
  %l = layout.make_layout %s, %d : !layout.layout<"(4,(?,2)):(1,(4,?))">
  %c = layout.constant #layout.layout<"(8,64):(64,1)">
  // expected-error@+2 {{cannot prove that stride 64 and mode 0 of shape 4*A0 divide each other}}
  // expected-note@+1 {{A0, A1 stand for the '?' entries of operand #0}}
  %x = layout.composition %l, %c : (!layout.layout<"(4,(?,2)):(1,(4,?))">, !layout.layout<"(8,64):(64,1)">) -> !layout.layout<"(8,64):(64,1)">
  return
}

// -----

func.func @tile_to_shape_divisibility() {
  %a = layout.constant #layout.layout<"(2,2):(1,2)">
  %b = layout.constant #layout.int_tuple<"(3,4)">
  // expected-error@+1 {{block shape does not divide the target shape: 2 does not divide 3}}
  %x = layout.tile_to_shape %a, %b : (!layout.layout<"(2,2):(1,2)">, !layout.int_tuple<"(3,4)">) -> !layout.layout<"(3,4):(1,3)">
  return
}

// -----

func.func @bad_rank(%n: index) {
  %c = layout.constant #layout.layout<"(4,8):(1,4)">
  %k = layout.make_coord %n, %n, %n : !layout.int_tuple<"(?,?,?)">
  // expected-error@+2 {{crd2idx: the coordinate (A0,A1,A2) does not match the shape (4,8)}}
  // expected-note@+1 {{A0, A1, A2 stand for the '?' entries of operand #0}}
  %x = layout.crd2idx %k, %c : !layout.int_tuple<"(?,?,?)">, !layout.layout<"(4,8):(1,4)">
  return
}

// -----

func.func @mode_out_of_range() {
  %c = layout.constant #layout.layout<"(4,8):(1,4)">
  // expected-error@+1 {{mode index (2,) out of range}}
  %x = layout.get %c[2] : (!layout.layout<"(4,8):(1,4)">) -> !layout.layout<"4:1">
  return
}

// -----

func.func @operand_count(%n: index) {
  // expected-error@+1 {{expects 2 index operands for the '?' entries of '!layout.int_tuple<"(?,?)">', but has 1}}
  %x = "layout.make_shape"(%n) : (index) -> !layout.int_tuple<"(?,?)">
  return
}

// -----

func.func @shape_entry_zero(%n: index) {
  // expected-error@+1 {{shape entries must be positive, but '!layout.int_tuple<"(0,?)">' has 0}}
  %x = layout.make_shape %n : !layout.int_tuple<"(0,?)">
  return
}

// -----

func.func @composed_has_no_stride() {
  %c = layout.constant #layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">
  // expected-error@+1 {{a composed layout has no strides}}
  %x = layout.stride %c : (!layout.layout<"Sw<3,4,3> o 0 o (8,64):(64,1)">) -> !layout.int_tuple<"(64,1)">
  return
}

// -----

func.func @operand_kind(%n: index) {
  // expected-error@+1 {{operand #0 must be !layout.layout or !layout.int_tuple, but got 'index'}}
  %x = "layout.size"(%n) : (index) -> index
  return
}

// -----

func.func @constant_does_not_fit() {
  // expected-error@+1 {{value '#layout.layout<"(4,8):(1,4)">' does not fit the result type '!layout.layout<"(?,8):(2,?)">'}}
  %x = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(?,8):(2,?)">
  return
}

// -----

func.func @elem_less_profile(%n: index) {
  %a = layout.make_coord %n, %n : !layout.int_tuple<"(?,?)">
  %b = layout.make_shape %n : !layout.int_tuple<"?">
  // expected-error@+3 {{elem_less: cannot compare (A0,A1) with B0 (a tuple and an integer)}}
  // expected-note@+2 {{A0, A1 stand for the '?' entries of operand #0}}
  // expected-note@+1 {{B0 stands for the '?' of operand #1}}
  %x = layout.elem_less %a, %b : !layout.int_tuple<"(?,?)">, !layout.int_tuple<"?">
  return
}

// -----

func.func @text_with_a_name() {
  // expected-error@+1 {{invalid layout text "(4,N):(1,?)": unknown symbol 'N' at position 3}}
  %x = layout.constant #layout.layout<"(4,8):(1,4)"> : !layout.layout<"(4,N):(1,?)">
  return
}

// -----

func.func @dynamic_attribute() {
  // expected-error@+1 {{#layout.layout must be fully static, but "(4,?):(1,4)" has 1 '?' entries}}
  %x = layout.constant #layout.layout<"(4,?):(1,4)">
  return
}
