// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

func.func @load_wildcard(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'_' is not allowed in this coordinate (it names one element)}}
  %x = tile.load %t[(_, 1)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> f32
  return
}

// -----

func.func @load_range(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'tile.load' op layout (4,8):(1,4): coordinate 4 out of range [0,4) for mode of shape 4}}
  %x = tile.load %t[(4, 1)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> f32
  return
}

// -----

func.func @load_profile(%t: !tile.tensor<f32, gmem, "((2,2),8):((1,2),4)", 16>, %i: index) {
  // expected-error@+2 {{'tile.load' op layout ((2,2),8):((1,2),4): coordinate (B,0,1) does not match shape (2,2)}}
  // expected-note@+1 {{B stands for the value of operand #1 (index)}}
  %x = tile.load %t[((%i, 0, 1), 2)] : !tile.tensor<f32, gmem, "((2,2),8):((1,2),4)", 16> -> f32
  return
}

// -----

func.func @load_type(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) {
  // expected-error@+1 {{'tile.load' op result type 'f16' should be 'f32' (the element type of the source)}}
  %x = tile.load %t[(1, 1)] : !tile.tensor<f32, gmem, "(4,8):(1,4)", 16> -> f16
  return
}

// -----

func.func @load_pointer_tuple(%p: !tile.ptr<f32, gmem, 16>) {
  // expected-error@+1 {{'tile.load' op a pointer is indexed by one element offset, got the coordinate "(1,1)"}}
  %x = tile.load %p[(1, 1)] : !tile.ptr<f32, gmem, 16> -> f32
  return
}

// -----

func.func @store_type(%t: !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>, %v: f16) {
  // expected-error@+1 {{'tile.store' op stored value has type 'f16', but the destination holds 'f32'}}
  "tile.store"(%v, %t) <{coord = "(1,1)"}> : (f16, !tile.tensor<f32, gmem, "(4,8):(1,4)", 16>) -> ()
  return
}

// -----

func.func @store_coordinates(%t: !tile.tensor<coord, "(4,8):(1@0,1@1)">, %v: f32) {
  // expected-error@+1 {{'tile.store' op cannot store into a coordinate tensor (it has no memory)}}
  "tile.store"(%v, %t) <{coord = "(1,1)"}> : (f32, !tile.tensor<coord, "(4,8):(1@0,1@1)">) -> ()
  return
}

// -----

func.func @assume_divisor(%n: index) {
  // expected-error@+1 {{'tile.assume' op 'divisible_by' must be positive, got 0}}
  %m = tile.assume %n {divisible_by = 0 : i64} : index
  return
}

// -----

func.func @assume_bounds(%n: index) {
  // expected-error@+1 {{'tile.assume' op 'lower' (8) is larger than 'upper' (4)}}
  %m = tile.assume %n {lower = 8 : i64, upper = 4 : i64} : index
  return
}

// -----

func.func @assume_constant() {
  %c6 = arith.constant 6 : index
  // expected-error@+1 {{'tile.assume' op the constant 6 is not divisible by 4}}
  %m = tile.assume %c6 {divisible_by = 4 : i64} : index
  return
}

// -----

func.func @assume_type(%x: f32) {
  // expected-error@+1 {{'tile.assume' op operand #0 must be index or signless integer, but got 'f32'}}
  %m = "tile.assume"(%x) : (f32) -> f32
  return
}

// -----

// The element of a coordinate view is origin + layout(c): not static when the origin is not.
func.func @coordinate_load_origin(%c: !tile.tensor<coord, "(4):(1@0)", origin = "(?)">) {
  // expected-error@+1 {{'tile.load' op result type '!layout.int_tuple<"(2)">' should be '!layout.int_tuple<"(?)">' (the coordinate there: the source's origin plus its layout's value)}}
  %x = tile.load %c[2] : !tile.tensor<coord, "(4):(1@0)", origin = "(?)"> -> !layout.int_tuple<"(2)">
  return
}
