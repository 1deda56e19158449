// A swizzled shared-memory tile sliced and partitioned by the thread index: the offset moves
// inside the swizzle (Sw o ? o L), and element accesses at run-time coordinates verify.
// RUN: layoutc-opt %s | FileCheck %s
// RUN: layoutc-opt %s --print-generic | layoutc-opt | FileCheck %s

// CHECK-LABEL: func.func @swizzled
func.func @swizzled(%i: index) attributes {gpu.kernel, gpu.known_block_size = array<i32: 8, 1, 1>} {
  %s = tile.alloc_smem {layout = #layout.layout<"Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))">, elem = f32, align = 16} : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  %tid = gpu.thread_id x
  // CHECK: tile.slice %{{.*}}[(%{{.*}}, _)] : {{.*}} -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>
  %row = tile.slice %s[(%tid, _)] : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16>
  // CHECK: tile.partition_tv {{.*}} -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>
  %col = tile.partition_tv %s[%tid] {tv_layout = #layout.layout<"(8,8):(8,1)">} : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16> -> !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>
  // CHECK: %[[X:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16> -> f32
  %x = tile.load %row[%i] : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o ((4,2)):((1,32))", 16> -> f32
  // CHECK: tile.store %[[X]], %{{.*}}[3] : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>
  tile.store %x, %col[3] : !tile.tensor<f32, smem, "Sw<1,2,3> o ? o (8):(4)", 16>
  // CHECK: tile.store %[[X]], %{{.*}}[(%{{.*}}, (%{{.*}}, 1))]
  tile.store %x, %s[(%tid, (%i, 1))] : !tile.tensor<f32, smem, "Sw<1,2,3> o 0 o (8,(4,2)):(4,(1,32))", 16>
  return
}
