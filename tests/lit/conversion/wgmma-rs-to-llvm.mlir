// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=host})' | FileCheck %s
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm)' --print-generic | xdsl-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=XDSL

// A register-A wgmma is inline PTX on both targets (upstream's nvvm.wgmma.mma_async takes
// descriptors only): A packed two halves to a 32-bit register, the accumulators tied in and
// out, then B's descriptor and scale-d. The op carries its atom (tile.wgmma_rs), which the
// host translation emulates after checking the text is that atom's instruction.
// CHECK-LABEL: func.func @rs
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: %[[ACC:.*]] = llvm.insertvalue %c, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $13, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A}", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,l,r,~{memory}" %c, %c, %c, %c, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %db, %{{.*}} {tile.wgmma_rs = #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS">} : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.extractvalue %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
// XDSL: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{.*}}tile.wgmma_rs = #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS">
func.func @rs(%a: f16, %db: i64, %c: f32) -> f32 {
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x16_F32F16F16_RS"> (%a, %a, %a, %a, %a, %a, %a, %a), %db, (%c, %c, %c, %c) {transpose_b = 1 : i32} : f16, f32 -> f32
  return %d#3 : f32
}

// tf32 A: one value per register, its raw f32 bits (the tensor core reads the tf32 bits, as
// from shared memory); no imm-trans-b.
// CHECK-LABEL: func.func @rs_tf32
// CHECK-COUNT-4: llvm.bitcast %t : f32 to i32
// CHECK: wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1;
func.func @rs_tf32(%t: f32, %db: i64, %c: f32) -> f32 {
  %d:4 = tile.wgmma_rs #tile.mma_atom<"SM90_64x8x8_F32TF32TF32F32_RS_TN"> (%t, %t, %t, %t), %db, (%c, %c, %c, %c) {transpose_b = 0 : i32} : f32, f32 -> f32
  return %d#0 : f32
}
