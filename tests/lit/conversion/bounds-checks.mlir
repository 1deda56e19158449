// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=host},insert-bounds-checks)' | FileCheck %s --check-prefixes=CHECK,HOST
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm},insert-bounds-checks)' | FileCheck %s --check-prefixes=CHECK,NVVM
// RUN: layoutc-opt %s -p 'builtin.module(convert-to-llvm{target=nvvm})' | FileCheck %s --check-prefix=PLAIN

// The bounds record is one more parameter, before the host's thread context; the sites name
// the accesses' locations.
// CHECK-LABEL: func.func @store
// HOST-SAME: %[[V:[a-z0-9_]+]]: f32, %[[REC:[a-z0-9_]+]]: !llvm.ptr<1> {layoutc.bounds_record}, %ctx: !llvm.ptr {layoutc.thread_context})
// NVVM-SAME: %[[V:[a-z0-9_]+]]: f32, %[[REC:[a-z0-9_]+]]: !llvm.ptr<1> {layoutc.bounds_record})
// CHECK-SAME: layoutc.bounds_sites = {{\[}}"{{.*}}bounds-checks.mlir:49:3: store of 4 bytes"{{\]}}
// The span of parameter 0 (words 48 and 49) is read once, as invariant loads; a 4-byte access
// may start at its first size - 3 bytes (none when the span is shorter than 4 bytes).
// CHECK: %[[SCRATCH:.*]] = llvm.getelementptr %[[REC]][16]
// CHECK: %[[LOP:.*]] = llvm.getelementptr %[[REC]][48]
// CHECK: %[[LO:.*]] = llvm.load %[[LOP]] invariant
// CHECK: %[[HIP:.*]] = llvm.getelementptr %[[REC]][49]
// CHECK: %[[HI:.*]] = llvm.load %[[HIP]] invariant
// CHECK: %[[SIZE:.*]] = llvm.sub %[[HI]], %[[LO]]
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: %[[FITS:.*]] = llvm.icmp "uge" %[[SIZE]], %[[C4]]
// CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: %[[LESS:.*]] = llvm.sub %[[SIZE]], %[[C3]]
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[STARTS:.*]] = llvm.select %[[FITS]], %[[LESS]], %[[C0]]
// The access [p, p + 4) must lie in [lo, hi): p - lo, unsigned (wrapping below lo), is one of
// the start offsets; a bad one goes to the scratch words instead.
// CHECK: %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// On the CPU the address is read through llvm.strip.invariant.group (the same pointer, no code),
// which keeps LLVM's InstCombine from re-deriving it from the GEP's offset arithmetic.
// HOST: %[[Q:.*]] = llvm.call_intrinsic "llvm.strip.invariant.group.p0"(%[[P]])
// HOST: %[[A:.*]] = llvm.ptrtoint %[[Q]]
// NVVM: %[[A:.*]] = llvm.ptrtoint %[[P]]
// CHECK: %[[OFF:.*]] = llvm.sub %[[A]], %[[LO]]
// CHECK: %[[OK:.*]] = llvm.icmp "ult" %[[OFF]], %[[STARTS]]
// CHECK: %[[SAFE:.*]] = llvm.select %[[OK]], %[[P]], %[[SCRATCH]]
// CHECK: llvm.store %[[V]], %[[SAFE]]
// The block's accesses run without branches; its end branches to a cold block when one was bad,
// and the launch's first bad access (counter was 0) writes the record.
// CHECK: cf.cond_br %[[OK]], ^[[GO:.*]], ^[[BAD:.*]]
// CHECK: ^[[BAD]]:
// CHECK: llvm.atomicrmw add
// CHECK: ^[[GO]]:
// CHECK-NEXT: return
// PLAIN-LABEL: func.func @store
// PLAIN-NOT: bounds
// PLAIN: return
func.func @store(%x: !tile.tensor<f32, gmem, "(?):(1)", 4>, %v: f32) attributes {gpu.kernel} {
  %t = gpu.thread_id x
  tile.store %v, %x[(%t)] : !tile.tensor<f32, gmem, "(?):(1)", 4>
  return
}

// An offset past 2^31 is an i64 index operand, never a wrapped i32 GEP constant.
// PLAIN-LABEL: func.func @far
// PLAIN: %[[C:.*]] = arith.constant 2621440005 : i64
// PLAIN: llvm.getelementptr %{{.*}}[%[[C]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
func.func @far(%a: !tile.ptr<f32, gmem, 16>) attributes {gpu.kernel} {
  %cst = arith.constant 1.0 : f32
  tile.store %cst, %a[2621440005] : !tile.ptr<f32, gmem, 16>
  return
}

// A zero-filling cp.async whose predicate is false reads nothing (src-size 0), so its source
// address may lie anywhere: the load's check accepts it then.
// CHECK-LABEL: func.func @zfill
// CHECK: %[[SIZE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK: %[[NONE:.*]] = llvm.icmp "eq" %[[SIZE]], %{{.*}} : i32
// CHECK: %[[OK:.*]] = llvm.or %{{.*}}, %[[NONE]]
// CHECK: llvm.select %[[OK]]
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]]
func.func @zfill(%g: !tile.tensor<f32, gmem, "(?):(1)", 16>, %i: index, %b: i1) attributes {gpu.kernel} {
  %s = tile.alloc_smem : !tile.tensor<f32, smem, "(4):(1)", 16>
  tile.cp_async %g[(%i)], %s[(0)] if %b {bytes = 16 : i64, cache = "cg"} : !tile.tensor<f32, gmem, "(?):(1)", 16>, !tile.tensor<f32, smem, "(4):(1)", 16>
  return
}
