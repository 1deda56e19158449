// RUN: layoutc-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{memory space must be one of gmem, smem, rmem, got 'lmem'}}
func.func @space(%p: !tile.ptr<f32, lmem, 16>) {
  return
}

// -----

// expected-error@+1 {{alignment must be a positive power of two (bytes), got 12}}
func.func @alignment(%p: !tile.ptr<f32, gmem, 12>) {
  return
}

// -----

// expected-error@+1 {{element type must be one of i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, tf32, f32, f64, got 'index'}}
func.func @element(%p: !tile.ptr<index, gmem>) {
  return
}

// -----

// expected-error@+1 {{invalid layout in '!tile.tensor': invalid layout text "(4,8):(1)"}}
func.func @layout(%t: !tile.tensor<f32, gmem, "(4,8):(1)", 4>) {
  return
}

// -----

// expected-error@+1 {{a type names no values: write '?' for each dynamic entry}}
func.func @named(%t: !tile.tensor<f32, gmem, "(N,8):(1,N)", 4>) {
  return
}

// -----

// expected-error@+1 {{element type must be one of i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, tf32, f32, f64 or 'coord', got 'vector<4xf32>'}}
func.func @vector(%t: !tile.tensor<vector<4xf32>, gmem, "4:1", 16>) {
  return
}

// -----

// expected-error@+1 {{unknown copy atom 'tma'; expected one of cp.async.ca, cp.async.ca.zfill, cp.async.cg, cp.async.cg.zfill, ldmatrix.x1}}
func.func @atom() attributes {a = #tile.copy_atom<"tma", 128>} {
  return
}

// -----

// expected-error@+1 {{copy atom 'cp.async.cg' copies 128 bits (16 bytes) only, not 64 (PTX: .cg requires cp-size 16); use 'cp.async.ca' for 32 or 64 bits}}
func.func @cg() attributes {a = #tile.copy_atom<"cp.async.cg", 64>} {
  return
}

// -----

// expected-error@+1 {{copy atom 'universal' supports 8, 16, 32, 64, 128 bits, not 256}}
func.func @wide() attributes {a = #tile.copy_atom<"universal", 256>} {
  return
}

// -----

// expected-error@+1 {{unknown MMA atom 'SM90_64x8x16'; expected one of FMA, SM80_16x8x16_F16F16F16F16_TN}}
func.func @mma() attributes {a = #tile.mma_atom<"SM90_64x8x16">} {
  return
}

// -----

// expected-error@+1 {{invalid origin in '!tile.tensor': the origin '(3)' is a tuple but the layout '8:1' yields integers}}
func.func @origin_profile(%c: !tile.tensor<coord, "8:1", origin = "(3)">) {
  return
}
