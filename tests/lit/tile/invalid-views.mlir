// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @slice_without_wildcard(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %i: index) {
  // expected-error@+1 {{'tile.slice' op the coordinate "(?,2)" has no '_': it names one element (use tile.load to read it)}}
  %v = "tile.slice"(%t, %i) <{coord = "(?,2)"}> : (!tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, index) -> !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>
  return
}

// -----

func.func @slice_pattern_operands(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %i: index) {
  // expected-error@+1 {{'tile.slice' op the coordinate pattern "(_,2)" has 0 '?' entries but the op has 1 index operands}}
  %v = "tile.slice"(%t, %i) <{coord = "(_,2)"}> : (!tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, index) -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

func.func @slice_profile(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %i: index) {
  // expected-error@+2 {{'tile.slice' op slice: coordinate (_,B,1) does not match the shape (4,8) of (4,8):(1,4)}}
  // expected-note@+1 {{B stands for the value of operand #1 (index)}}
  %v = tile.slice %t[(_, %i, 1)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

func.func @slice_range(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'tile.slice' op slice: coordinate 9 out of range [0,8) for the mode 8 of (4,8):(1,4)}}
  %v = tile.slice %t[(_, 9)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

func.func @slice_result(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %i: index) {
  // expected-error@+1 {{'tile.slice' op result type '!tile.tensor<f32, gmem, "(8):(4)", 4>' should be '!tile.tensor<f32, gmem, "(4):(1)", 16>' (the algebra on the operand types)}}
  %v = tile.slice %t[(_, %i)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(8):(4)", 4>
  return
}

// -----

func.func @slice_alignment(%t: !tile.tensor<f32, gmem, "(4,8):(1,3)", 16>, %i: index) {
  // expected-error@+1 {{'tile.slice' op result alignment 16 is not proven: the view's offset keeps 4-byte alignment}}
  %v = tile.slice %t[(_, %i)] : !tile.tensor<f32, gmem, "(4,8):(1,3)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

func.func @stride_divisibility(%t: !tile.tensor<f32, gmem, "(3,5):(1,4)", 16>) {
  %l = layout.constant #layout.layout<"3:2">
  // expected-error@+1 {{'tile.composition' op composition((3,5):(1,4), 3:2): stride divisibility condition fails: stride 2 does not divide mode 0 of shape 3, and 3 elements do not fit in it}}
  %v = tile.composition %t, %l : (!tile.tensor<f32, gmem, "(3,5):(1,4)", 16>, !layout.layout<"3:2">) -> !tile.tensor<f32, gmem, "3:2", 16>
  return
}

// -----

func.func @composition_tiler_rank(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  %tile = layout.constant #layout.tile<"<2:1,2:1,2:1>">
  // expected-error@+1 {{'tile.composition' op composition((4,8):(1,4), (2:1,2:1,2:1)): the tiler has 3 modes but the layout has 2}}
  %v = tile.composition %t, %tile : (!tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, !layout.tile<"<2:1,2:1,2:1>">) -> !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>
  return
}

// -----

func.func @local_tile_proj(%t: !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.local_tile' op 'proj' has 2 entries but the tiler has 3}}
  %v = tile.local_tile %t[(%i, _)] {tiler = #layout.int_tuple<"(128,32,8)">, proj = array<i1: true, false>} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(128,8):(64,1)", 16>
  return
}

// -----

func.func @local_tile_tiler(%t: !tile.tensor<f32, gmem, "(?,64):(64,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.local_tile' op attribute 'tiler' failed to satisfy constraint}}
  %v = tile.local_tile %t[(%i, _)] {tiler = 128 : i64} : !tile.tensor<f32, gmem, "(?,64):(64,1)", 16> -> !tile.tensor<f32, gmem, "(128,8):(64,1)", 16>
  return
}

// -----

func.func @local_partition_rank(%t: !tile.tensor<f32, gmem, "(128,8):(8,1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.local_partition' op logical_divide: the profile (32,8,2) has 3 modes but the layout (128,8):(8,1) has 2}}
  %v = tile.local_partition %t[%i] {thr_layout = #layout.layout<"(32,8,2):(16,2,1)">} : !tile.tensor<f32, gmem, "(128,8):(8,1)", 16> -> !tile.tensor<f32, gmem, "(4,1):(256,0)", 4>
  return
}

// -----

func.func @partition_tv_rank(%t: !tile.tensor<f32, gmem, "(64):(1)", 16>, %i: index) {
  // expected-error@+1 {{'tile.partition_tv' op the TV layout 64:1 must have rank 2: (thread, value)}}
  %v = tile.partition_tv %t[%i] {tv_layout = #layout.layout<"64:1">} : !tile.tensor<f32, gmem, "(64):(1)", 16> -> !tile.tensor<f32, gmem, "(64):(1)", 16>
  return
}

// -----

func.func @group_range(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'tile.group_modes' op group_modes: [1, 3) is not a range of modes of a rank-2 tensor}}
  %v = tile.group_modes %t {begin = 1 : i64, end = 3 : i64} : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>
  return
}

// -----

func.func @coord_pattern(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{expected a coordinate entry (integer, %value, '_' or '('), found 'x'}}
  %v = tile.slice %t[(_, x)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> !tile.tensor<f32, gmem, "(4):(1)", 16>
  return
}

// -----

// A view of a coordinate tensor moves its origin: a type without it is not the view's.
func.func @coordinate_view_origin(%c: !tile.tensor<coord, "(4096):(1@0)">, %b: index) {
  // expected-error@+1 {{'tile.local_tile' op result type '!tile.tensor<coord, "((1024)):((1@0))">' should be '!tile.tensor<coord, "((1024)):((1@0))", origin = "(?)">' (the algebra on the operand types)}}
  %v = tile.local_tile %c[(%b)] {tiler = #layout.int_tuple<"(1024)">} : !tile.tensor<coord, "(4096):(1@0)"> -> !tile.tensor<coord, "((1024)):((1@0))">
  return
}
