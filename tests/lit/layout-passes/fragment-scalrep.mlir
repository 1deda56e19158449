// fragment-scalrep: within a block, a register fragment's element loaded after a store (or a
// load) of the same element is that value, and a store that a later store of the block
// overwrites unread goes; a store not overwritten stays, read or not. Anything else that may
// touch the fragment (a vector access, an op with regions containing an access) ends what the
// block knows, and a fragment whose pointer escapes is left alone.
// RUN: layoutc-opt %s --split-input-file -p 'builtin.module(fragment-scalrep)' | FileCheck %s

// CHECK-LABEL: func.func @forward
// CHECK-NEXT: tile.alloc_fragment
// CHECK-NEXT: %[[P:.*]] = tile.get_ptr
// CHECK-NEXT: tile.store %y, %[[P]][1]
// CHECK-NEXT: %[[S:.*]] = arith.addf %x, %y : f32
// CHECK-NEXT: tile.store %[[S]], %[[P]][0]
// CHECK-NEXT: %[[D:.*]] = tile.load %[[P]][2]
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[D]] : f32
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[T]], %[[D]] : f32
// CHECK-NEXT: return %[[U]]
func.func @forward(%x: f32, %y: f32) -> f32 {
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  tile.store %y, %p[1] : !tile.ptr<f32, rmem, 4>
  %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  %b = tile.load %p[1] : !tile.ptr<f32, rmem, 4> -> f32
  %s = arith.addf %a, %b : f32
  tile.store %s, %p[0] : !tile.ptr<f32, rmem, 4>
  %c = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  %d = tile.load %p[2] : !tile.ptr<f32, rmem, 4> -> f32
  %e = tile.load %p[2] : !tile.ptr<f32, rmem, 4> -> f32
  %t = arith.addf %c, %d : f32
  %u = arith.addf %t, %e : f32
  return %u : f32
}

// -----

// A loop whose accesses to the fragment are all static loads and stores in its body carries
// the elements it stores as iteration arguments (the value before the loop, forwarded here,
// goes in; the body's loads read the current value); its result is the value after the loop,
// which the load after it reads (forwarded too), and nothing is left in memory.
// CHECK-LABEL: func.func @loop
// CHECK: tile.get_ptr
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %x) -> (f32)
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %x
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[B]], %x
// CHECK-NEXT: scf.yield %[[D]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @loop(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  scf.for %i = %c0 to %n step %c1 {
    %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
    %b = arith.addf %a, %x : f32
    tile.store %b, %p[0] : !tile.ptr<f32, rmem, 4>
    %c = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
    %d = arith.mulf %c, %x : f32
    tile.store %d, %p[0] : !tile.ptr<f32, rmem, 4>
  }
  %r = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  return %r : f32
}

// -----

// A region op that does not touch the fragment (the scf.if) does not end what the block
// knows; the loop reads element 1 (loaded once before it, forwarded: %m) and stores element
// 0, which it carries, and the load after it reads the loop's result.
// CHECK-LABEL: func.func @regions
// CHECK: scf.if
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]] = arith.mulf %x, %x
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %x) -> (f32)
// CHECK-NEXT: scf.yield %[[M]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @regions(%x: f32, %n: index, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  scf.if %c {
    gpu.barrier
  }
  %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  %m = arith.mulf %a, %a : f32
  tile.store %m, %p[1] : !tile.ptr<f32, rmem, 4>
  scf.for %i = %c0 to %n step %c1 {
    %b = tile.load %p[1] : !tile.ptr<f32, rmem, 4> -> f32
    tile.store %b, %p[0] : !tile.ptr<f32, rmem, 4>
  }
  %r = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  return %r : f32
}

// -----

// Another access to the fragment (a vector load of its tensor) reads and may write all of it:
// the stores before it stay and the load after it reads memory.
// CHECK-LABEL: func.func @clobber
// CHECK: %[[P:.*]] = tile.get_ptr
// CHECK-NEXT: tile.store %x, %[[P]][0]
// CHECK-NEXT: tile.store %x, %[[P]][1]
// CHECK-NEXT: %[[V:.*]] = tile.load_vector
// CHECK-NEXT: %[[A:.*]] = tile.load %[[P]][0]
// CHECK-NEXT: tile.store %[[A]], %[[P]][1]
// CHECK-NEXT: return %[[V]]
func.func @clobber(%x: f32) -> vector<2xf32> {
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[1] : !tile.ptr<f32, rmem, 4>
  %v = tile.load_vector %f[0] {alignment = 4 : i64} : !tile.tensor<f32, rmem, "(4):(1)", 4> -> vector<2xf32>
  %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  tile.store %a, %p[1] : !tile.ptr<f32, rmem, 4>
  return %v : vector<2xf32>
}

// -----

// The pointer escapes into a loop's iteration arguments: the fragment is left alone, and so
// is an access through a view other than the allocation's own pointer.
// CHECK-LABEL: func.func @escaped
// CHECK: tile.store %x, %{{.*}}[0]
// CHECK-NEXT: tile.load %{{.*}}[0]
// CHECK-LABEL: func.func @other_view
// CHECK: tile.store %x, %[[P:.*]][1]
// CHECK-NEXT: tile.load %{{.*}}[0]
// CHECK-NEXT: tile.load %[[P]][1]
func.func @escaped(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  %q = scf.for %i = %c0 to %n step %c1 iter_args(%r = %p) -> (!tile.ptr<f32, rmem, 4>) {
    scf.yield %r : !tile.ptr<f32, rmem, 4>
  }
  return %a : f32
}
func.func @other_view(%x: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  %q = tile.ptr_offset %p, %c1 : (!tile.ptr<f32, rmem, 4>, index) -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[1] : !tile.ptr<f32, rmem, 4>
  %a = tile.load %q[0] : !tile.ptr<f32, rmem, 4> -> f32
  %b = tile.load %p[1] : !tile.ptr<f32, rmem, 4> -> f32
  %s = arith.addf %a, %b : f32
  return %s : f32
}

// -----

// An access the pass does not track inside the loop (a vector load of the fragment's tensor)
// keeps the loop as it is: its body starts knowing nothing, its first load and last store
// stay, and so does the store before the loop (the loop reads it).
// CHECK-LABEL: func.func @loop_clobbered
// CHECK: %[[P:.*]] = tile.get_ptr
// CHECK-NEXT: tile.store %x, %[[P]][0]
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[A:.*]] = tile.load %[[P]][0]
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %x
// CHECK-NEXT: tile.store %[[B]], %[[P]][0]
// CHECK-NEXT: tile.load_vector
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = tile.load %[[P]][0]
// CHECK-NEXT: return %[[R]]
func.func @loop_clobbered(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  scf.for %i = %c0 to %n step %c1 {
    %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
    %b = arith.addf %a, %x : f32
    tile.store %b, %p[0] : !tile.ptr<f32, rmem, 4>
    %v = tile.load_vector %f[0] {alignment = 4 : i64} : !tile.tensor<f32, rmem, "(4):(1)", 4> -> vector<2xf32>
  }
  %r = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  return %r : f32
}

// -----

// Nested loops: the inner one is promoted first, which leaves its loads and stores in the
// outer body, and then the outer one. An element the body writes before it reads it (1)
// is not carried when nothing reads the fragment after the loop (the loop is at the top of
// the function, the only other read comes before it): its stores go, and so does the
// fragment's last store (nothing reads it).
// CHECK-LABEL: func.func @nested
// CHECK-NOT: tile.store
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[O:.*]] = %x) -> (f32)
// CHECK-NEXT: %[[W:.*]] = arith.mulf %[[O]], %x
// CHECK-NEXT: %[[I:.*]] = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[O]]) -> (f32)
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[W]]
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[I]] : f32
// CHECK-NEXT: }
// CHECK-NOT: tile.store
// CHECK: return %x
func.func @nested(%x: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = tile.alloc_fragment : !tile.tensor<f32, rmem, "(4):(1)", 4>
  %p = tile.get_ptr %f : !tile.tensor<f32, rmem, "(4):(1)", 4> -> !tile.ptr<f32, rmem, 4>
  tile.store %x, %p[0] : !tile.ptr<f32, rmem, 4>
  %y = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
  scf.for %i = %c0 to %n step %c1 {
    %o = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
    %w = arith.mulf %o, %x : f32
    tile.store %w, %p[1] : !tile.ptr<f32, rmem, 4>
    scf.for %j = %c0 to %n step %c1 {
      %a = tile.load %p[0] : !tile.ptr<f32, rmem, 4> -> f32
      %b = tile.load %p[1] : !tile.ptr<f32, rmem, 4> -> f32
      %s = arith.addf %a, %b : f32
      tile.store %s, %p[0] : !tile.ptr<f32, rmem, 4>
    }
  }
  return %y : f32
}
