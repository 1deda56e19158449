// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @make_tensor_type(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.layout<"(4,?):(1,?)">) {
  // expected-error@+1 {{'tile.make_tensor' op result type '!tile.tensor<f32, smem, "(4,?):(1,?)", 16>' should be '!tile.tensor<f32, gmem, "(4,?):(1,?)", 16>'}}
  %t = "tile.make_tensor"(%p, %l) : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(4,?):(1,?)">) -> !tile.tensor<f32, smem, "(4,?):(1,?)", 16>
  return
}

// -----

func.func @make_tensor_operand(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.int_tuple<"(4,?)">) {
  // expected-error@+1 {{'tile.make_tensor' op operand #1 must be layout.layout, but got '!layout.int_tuple<"(4,?)">'}}
  %t = "tile.make_tensor"(%p, %l) : (!tile.ptr<f32, gmem, 16>, !layout.int_tuple<"(4,?)">) -> !tile.tensor<f32, gmem, "(4,?):(1,?)", 16>
  return
}

// -----

func.func @identity_type(%s: !layout.int_tuple<"(4,8)">) {
  // expected-error@+1 {{'tile.make_identity_tensor' op result type '!tile.tensor<coord, "(4,8):(1,4)">' should be '!tile.tensor<coord, "(4,8):(1@0,1@1)">'}}
  %t = "tile.make_identity_tensor"(%s) : (!layout.int_tuple<"(4,8)">) -> !tile.tensor<coord, "(4,8):(1,4)">
  return
}

// -----

func.func @alloc_space() {
  // expected-error@+1 {{'tile.alloc_smem' makes a !tile.tensor in smem, got '!tile.tensor<f32, gmem, "(8,8):(8,1)", 16>'}}
  %s = tile.alloc_smem : !tile.tensor<f32, gmem, "(8,8):(8,1)", 16>
  return
}

// -----

func.func @alloc_props() {
  // expected-error@+1 {{'tile.alloc_smem' op result type '!tile.tensor<f32, smem, "(8,8):(8,1)", 16>' does not match the properties (expected '!tile.tensor<f32, smem, "(8,8):(1,8)", 16>')}}
  %s = "tile.alloc_smem"() <{align = 16 : i64, elem = f32, layout = #layout.layout<"(8,8):(1,8)">}> : () -> !tile.tensor<f32, smem, "(8,8):(8,1)", 16>
  return
}

// -----

func.func @alloc_dynamic() {
  // expected-error@+1 {{#layout.layout must be fully static}}
  %s = "tile.alloc_fragment"() <{elem = f32, layout = #layout.layout<"(8,?):(1,8)">}> : () -> !tile.tensor<f32, rmem, "(8,?):(1,8)", 4>
  return
}

// -----

func.func @alloc_elem() {
  // expected-error@+1 {{'tile.alloc_fragment' op 'elem' must be a tile element type, got 'index'}}
  %s = "tile.alloc_fragment"() <{elem = index, layout = #layout.layout<"(8,8):(1,8)">}> : () -> !tile.tensor<f32, rmem, "(8,8):(1,8)", 4>
  return
}

// -----

func.func @ptr_offset_alignment(%p: !tile.ptr<f32, gmem, 16>, %i: index) {
  // expected-error@+1 {{'tile.ptr_offset' op result alignment 16 is not proven: the offset keeps 4-byte alignment}}
  %q = tile.ptr_offset %p, %i : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem, 16>
  return
}

// -----

func.func @ptr_offset_constant(%p: !tile.ptr<f32, gmem, 16>) {
  %c2 = arith.constant 2 : index
  // expected-error@+1 {{'tile.ptr_offset' op result alignment 16 is not proven: the offset keeps 8-byte alignment}}
  %q = tile.ptr_offset %p, %c2 : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f32, gmem, 16>
  return
}

// -----

func.func @ptr_offset_element(%p: !tile.ptr<f32, gmem, 16>, %i: index) {
  // expected-error@+1 {{'tile.ptr_offset' op result '!tile.ptr<f16, gmem, 2>' must point to the same element type and memory space as '!tile.ptr<f32, gmem, 16>'}}
  %q = tile.ptr_offset %p, %i : (!tile.ptr<f32, gmem, 16>, index) -> !tile.ptr<f16, gmem, 2>
  return
}

// -----

func.func @get_ptr_of_coordinates(%t: !tile.tensor<coord, "(4,8):(1@0,1@1)">) {
  // expected-error@+1 {{'tile.get_ptr' op a coordinate tensor has no pointer}}
  %p = "tile.get_ptr"(%t) : (!tile.tensor<coord, "(4,8):(1@0,1@1)">) -> !tile.ptr<f32, gmem, 4>
  return
}

// -----

func.func @get_layout_type(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'tile.get_layout' op result type '!layout.layout<"(4,8):(8,1)">' should be '!layout.layout<"(4,8):(1,4)">'}}
  %l = tile.get_layout %t : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !layout.layout<"(4,8):(8,1)">
  return
}

// -----

func.func @make_tensor_gather_count(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">) {
  // expected-error@+1 {{'tile.make_tensor' op the layout names 1 index buffer(s) ['rows'] but 0 gather operand(s) are given (one pointer per name, in order of first appearance)}}
  %t = tile.make_tensor %p, %l : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)", 16>
  return
}

// -----

func.func @make_tensor_gather_type(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, %g: !tile.ptr<f32, gmem, 16>) {
  // expected-error@+1 {{'tile.make_tensor' op the index buffer 'rows' must be a pointer to i32 or i64 in gmem or smem, got '!tile.ptr<f32, gmem, 16>'}}
  %t = tile.make_tensor %p, %l, %g : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, !tile.ptr<f32, gmem, 16>) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)", 16>
  return
}

// -----

func.func @make_tensor_gather_space(%p: !tile.ptr<f32, gmem, 16>, %l: !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, %g: !tile.ptr<i32, rmem, 4>) {
  // expected-error@+1 {{'tile.make_tensor' op the index buffer 'rows' must be a pointer to i32 or i64 in gmem or smem, got '!tile.ptr<i32, rmem, 4>'}}
  %t = tile.make_tensor %p, %l, %g : (!tile.ptr<f32, gmem, 16>, !layout.layout<"(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)">, !tile.ptr<i32, rmem, 4>) -> !tile.tensor<f32, gmem, "(1,1):(Custom{rows,64},1) o (0,0) o (8,64):(1@0,1@1)", 16>
  return
}

// -----

func.func @dynamic_smem_space() {
  // expected-error@+1 {{'tile.dynamic_smem' op result must point to shared memory (smem), got '!tile.ptr<f32, gmem, 16>'}}
  %p = tile.dynamic_smem : !tile.ptr<f32, gmem, 16>
  return
}

// -----

func.func @ptr_offset_i32(%p: !tile.ptr<f32, gmem, 16>, %i: i32) {
  // expected-error@+1 {{'tile.ptr_offset' op operand #1 must be index or i64, but got 'i32'}}
  %q = tile.ptr_offset %p, %i : (!tile.ptr<f32, gmem, 16>, i32) -> !tile.ptr<f32, gmem, 4>
  return
}
