;; The CPU runtime's support IR (LLVM text, opaque pointers), read by cpu_support_ir.py.
;; Lines starting with ';;' are this file's documentation and are dropped when it is read;
;; '; @@section NAME' starts a section. Sections are string.Template text: $Sched is the
;; LLVM type of the %Sched record and $Sched_state... the index of its field, both from the
;; record tables (runtime/cpu_records.py, and cpu_context.CONTEXT for %Ctx); other
;; placeholders are named in cpu_support_ir.py.
;;
;; Execution model (docs/runtime.md, "CPU runtime"): see cpu_support_ir.py.
; @@section support

%Ctx = type $Ctx
%Sched = type $Sched
%Fiber = type $Fiber
%Cfg = type $Cfg
%Cluster = type $Cluster

declare i32 @swapcontext(ptr, ptr)

define internal void @__lc_yield(ptr %f) {
  %uap = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_uctx
  %u = load ptr, ptr %uap
  %sp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_sched
  %s = load ptr, ptr %sp
  %mp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_main_uctx
  %m = load ptr, ptr %mp
  %r = call i32 @swapcontext(ptr %u, ptr %m)
  ret void
}

define internal ptr @__lc_fiber(ptr %ctx) {
  %p = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_fiber
  %f = load ptr, ptr %p
  ret ptr %f
}

define internal void @__lc_fail(ptr %ctx, i32 %code) noinline {
  %f = call ptr @__lc_fiber(ptr %ctx)
  %sp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_sched
  %s = load ptr, ptr %sp
  %ep = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_error
  store i32 %code, ptr %ep
  %tp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_linear_tid
  %tl = load i32, ptr %tp
  %rkp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_rank
  %rk = load i32, ptr %rkp
  %btp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_block_threads
  %bt = load i32, ptr %btp
  %rkt = mul i32 %rk, %bt
  %t = add i32 %rkt, %tl
  %etp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_error_thread
  store i32 %t, ptr %etp
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $FAILED, ptr %stp
  call void @__lc_yield(ptr %f)
  unreachable
}

define void @__layoutc_barrier(ptr %ctx) {
  %f = call ptr @__lc_fiber(ptr %ctx)
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $AT_BARRIER, ptr %stp
  call void @__lc_yield(ptr %f)
  ret void
}

define void @__layoutc_warp_sync(ptr %ctx, i32 %mask) {
entry:
  %lp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_lane_id
  %lane = load i32, ptr %lp
  %sh = lshr i32 %mask, %lane
  %bit = and i32 %sh, 1
  %member = icmp ne i32 %bit, 0
  br i1 %member, label %ok, label %bad
bad:
  call void @__lc_fail(ptr %ctx, i32 $ERR_BAD_MASK)
  unreachable
ok:
  %f = call ptr @__lc_fiber(ptr %ctx)
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $AT_WARP_SYNC, ptr %stp
  %mkp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_wait_mask
  store i32 %mask, ptr %mkp
  call void @__lc_yield(ptr %f)
  ret void
}

; mbarrier objects (8 bytes in shared memory), the CPU's encoding: bits 0-19 pending
; arrivals, 20-39 expected arrivals, bit 40 the phase parity, 41-63 the transaction count
; (signed). A phase completes when pending arrivals and transaction count are both 0: the
; parity flips, pending is reloaded from expected. Every change counts as scheduler progress.
define internal void @__lc_progress(ptr %ctx) {
  %sp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_scheduler
  %s = load ptr, ptr %sp
  %pp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_progress
  %p = load i32, ptr %pp
  %p1 = add i32 %p, 1
  store i32 %p1, ptr %pp
  ret void
}

define void @__layoutc_mbar_init(ptr %ctx, ptr %bar, i32 %count) {
  %c = zext i32 %count to i64
  %c20 = and i64 %c, 1048575
  %e = shl i64 %c20, 20
  %w = or i64 %e, %c20
  store i64 %w, ptr %bar, align 8
  call void @__lc_progress(ptr %ctx)
  ret void
}

; Complete the phase if nothing is pending. %w is the word with updated fields.
define internal i64 @__lc_mbar_settle(i64 %w) {
  %pend = and i64 %w, 1048575
  %tx = ashr i64 %w, 41
  %p0 = icmp eq i64 %pend, 0
  %t0 = icmp eq i64 %tx, 0
  %done = and i1 %p0, %t0
  br i1 %done, label %flip, label %keep
flip:
  %exp = lshr i64 %w, 20
  %exp20 = and i64 %exp, 1048575
  %ph = and i64 %w, 1099511627776
  %nph = xor i64 %ph, 1099511627776
  %e2 = shl i64 %exp20, 20
  %a = or i64 %e2, %exp20
  %b = or i64 %a, %nph
  ret i64 %b
keep:
  ret i64 %w
}

; expect-tx of %tx bytes, then %count arrivals; returns the state before (phase bit at 63).
define i64 @__layoutc_mbar_arrive(ptr %ctx, ptr %bar, i32 %count, i32 %txb) {
entry:
  %w = load i64, ptr %bar, align 8
  %tx = ashr i64 %w, 41
  %t64 = sext i32 %txb to i64
  %tx1 = add i64 %tx, %t64
  %pend = and i64 %w, 1048575
  %c = zext i32 %count to i64
  %over = icmp ugt i64 %c, %pend
  br i1 %over, label %bad, label %ok
bad:
  call void @__lc_fail(ptr %ctx, i32 $ERR_MBARRIER_OVERFLOW)
  unreachable
ok:
  %pend1 = sub i64 %pend, %c
  %low = and i64 %w, 2199022206976
  %txs = shl i64 %tx1, 41
  %a = or i64 %low, %txs
  %b = or i64 %a, %pend1
  %n = call i64 @__lc_mbar_settle(i64 %b)
  store i64 %n, ptr %bar, align 8
  call void @__lc_progress(ptr %ctx)
  %ph = lshr i64 %w, 40
  %ph1 = and i64 %ph, 1
  %st = shl i64 %ph1, 63
  ret i64 %st
}

; The asynchronous side of a transaction: %bytes arrived (TMA completes them).
define void @__layoutc_mbar_complete_tx(ptr %ctx, ptr %bar, i32 %bytes) {
  %w = load i64, ptr %bar, align 8
  %tx = ashr i64 %w, 41
  %b64 = sext i32 %bytes to i64
  %tx1 = sub i64 %tx, %b64
  %low = and i64 %w, 2199023255551
  %txs = shl i64 %tx1, 41
  %a = or i64 %low, %txs
  %n = call i64 @__lc_mbar_settle(i64 %a)
  store i64 %n, ptr %bar, align 8
  call void @__lc_progress(ptr %ctx)
  ret void
}

; Block the fiber until the phase of parity %parity has completed (the current parity differs).
define void @__layoutc_mbar_wait(ptr %ctx, ptr %bar, i32 %parity) {
entry:
  %f = call ptr @__lc_fiber(ptr %ctx)
  %want = zext i32 %parity to i64
  %w1 = and i64 %want, 1
  br label %check
check:
  %w = load volatile i64, ptr %bar, align 8
  %ph = lshr i64 %w, 40
  %ph1 = and i64 %ph, 1
  %done = icmp ne i64 %ph1, %w1
  br i1 %done, label %out, label %park
park:
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $AT_YIELD, ptr %stp
  call void @__lc_yield(ptr %f)
  br label %check
out:
  ret void
}

; bar.sync id, n: named barrier ``id`` (0-15) releases when ``n`` threads have arrived. The
; scheduler's table holds {arrived, generation} per id; waiters park until the generation moves.
define void @__layoutc_named_barrier(ptr %ctx, i32 %id, i32 %n) {
entry:
  %sp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_scheduler
  %s = load ptr, ptr %sp
  %tp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_named_barriers
  %tab = load ptr, ptr %tp
  %idm = and i32 %id, 15
  %rkp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_rank
  %rk = load i32, ptr %rkp
  %rk16 = mul i32 %rk, 16
  %slot = add i32 %rk16, %idm
  %cp = getelementptr inbounds [2 x i32], ptr %tab, i32 %slot, i32 0
  %gp = getelementptr inbounds [2 x i32], ptr %tab, i32 %slot, i32 1
  %gen = load i32, ptr %gp
  %c = load i32, ptr %cp
  %c1 = add i32 %c, 1
  call void @__lc_progress(ptr %ctx)
  %full = icmp uge i32 %c1, %n
  br i1 %full, label %release, label %arrive
release:
  store i32 0, ptr %cp
  %g1 = add i32 %gen, 1
  store i32 %g1, ptr %gp
  ret void
arrive:
  store i32 %c1, ptr %cp
  %f = call ptr @__lc_fiber(ptr %ctx)
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  %nbp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_named_barrier
  %id1 = add i32 %idm, 1
  store i32 %id1, ptr %nbp
  %ncp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_named_count
  store i32 %n, ptr %ncp
  br label %check
check:
  %g2 = load volatile i32, ptr %gp
  %moved = icmp ne i32 %g2, %gen
  br i1 %moved, label %out, label %park
park:
  store i32 $AT_YIELD, ptr %stp
  call void @__lc_yield(ptr %f)
  br label %check
out:
  store i32 0, ptr %nbp
  ret void
}

; PTX's exit rule, "barriers exclusively waiting on arrivals from exited threads are always
; released", for bar.sync id, n; called when nothing can progress. A block whose live threads
; all wait at one named barrier, which misses n - arrived <= (the block's exited threads)
; arrivals, can only be waiting for exited threads: release it. Returns the barriers released.
; A live thread that waits elsewhere, or more missing arrivals than exited threads, stays a
; deadlock. (Parked waiters keep id + 1 and n in their fiber record.)
define internal i32 @__lc_release_for_exited(ptr %s) {
entry:
  %fsp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_fibers
  %fibers = load ptr, ptr %fsp
  %bnp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_block_threads
  %bn = load i32, ptr %bnp
  %nbp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nblocks
  %nb = load i32, ptr %nbp
  %tp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_named_barriers
  %tab = load ptr, ptr %tp
  %rel.a = alloca i32
  %b.a = alloca i32
  %j.a = alloca i32
  %id.a = alloca i32
  %last.a = alloca i32
  %gone.a = alloca i32
  store i32 0, ptr %rel.a
  store i32 0, ptr %b.a
  br label %blocks
blocks:
  %b = load i32, ptr %b.a
  %bmore = icmp slt i32 %b, %nb
  br i1 %bmore, label %block, label %done
block:
  store i32 0, ptr %j.a
  store i32 0, ptr %id.a
  store i32 0, ptr %last.a
  store i32 0, ptr %gone.a
  %base = mul i32 %b, %bn
  br label %scan
scan:
  %j = load i32, ptr %j.a
  %jmore = icmp slt i32 %j, %bn
  br i1 %jmore, label %thread, label %scanned
thread:
  %t = add i32 %base, %j
  %j1 = add i32 %j, 1
  store i32 %j1, ptr %j.a
  %st = call i32 @__lc_state(ptr %fibers, i32 %t)
  %exited = icmp eq i32 %st, $DONE
  br i1 %exited, label %count_gone, label %live
count_gone:
  %g0 = load i32, ptr %gone.a
  %g1 = add i32 %g0, 1
  store i32 %g1, ptr %gone.a
  br label %scan
live:
  %wp = getelementptr inbounds %Fiber, ptr %fibers, i32 %t, i32 $Fiber_named_barrier
  %w = load i32, ptr %wp
  %parked = icmp eq i32 %st, $AT_YIELD
  %atnamed = icmp ne i32 %w, 0
  %waits = and i1 %parked, %atnamed
  br i1 %waits, label %same, label %next_block
same:
  %id = load i32, ptr %id.a
  %first = icmp eq i32 %id, 0
  %match = icmp eq i32 %id, %w
  %ok = or i1 %first, %match
  store i32 %w, ptr %id.a
  store i32 %t, ptr %last.a
  br i1 %ok, label %scan, label %next_block
scanned:
  %wid = load i32, ptr %id.a
  %gone = load i32, ptr %gone.a
  %anyw = icmp ne i32 %wid, 0
  %anyg = icmp ne i32 %gone, 0
  %cand = and i1 %anyw, %anyg
  br i1 %cand, label %check_count, label %next_block
check_count:
  %b16 = mul i32 %b, 16
  %wid0 = sub i32 %wid, 1
  %slot = add i32 %b16, %wid0
  %cp = getelementptr inbounds [2 x i32], ptr %tab, i32 %slot, i32 0
  %gp = getelementptr inbounds [2 x i32], ptr %tab, i32 %slot, i32 1
  %arrived = load i32, ptr %cp
  %lw = load i32, ptr %last.a
  %ncp = getelementptr inbounds %Fiber, ptr %fibers, i32 %lw, i32 $Fiber_named_count
  %n = load i32, ptr %ncp
  %missing = sub i32 %n, %arrived
  %fits = icmp sle i32 %missing, %gone
  br i1 %fits, label %release, label %next_block
release:
  store i32 0, ptr %cp
  %gen = load i32, ptr %gp
  %gen1 = add i32 %gen, 1
  store i32 %gen1, ptr %gp
  %r0 = load i32, ptr %rel.a
  %r1 = add i32 %r0, 1
  store i32 %r1, ptr %rel.a
  br label %next_block
next_block:
  %b1 = add i32 %b, 1
  store i32 %b1, ptr %b.a
  br label %blocks
done:
  %rel = load i32, ptr %rel.a
  ret i32 %rel
}

; Clusters: the blocks of a cluster run as fibers of one scheduler, each with its own shared
; window (the cluster record lists them by rank). mapa maps an address of this block's window
; to the same offset in block %rank's.
define ptr @__layoutc_mapa(ptr %ctx, ptr %p, i32 %rank) {
entry:
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %nbp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_nblocks
  %nb = load i32, ptr %nbp
  %ok = icmp ult i32 %rank, %nb
  br i1 %ok, label %good, label %bad
bad:
  call void @__lc_fail(ptr %ctx, i32 $ERR_BAD_CLUSTER_RANK)
  unreachable
good:
  %smp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  %sm = load ptr, ptr %smp
  %pi = ptrtoint ptr %p to i64
  %si = ptrtoint ptr %sm to i64
  %off = sub i64 %pi, %si
  %tp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_smem
  %tab = load ptr, ptr %tp
  %bp = getelementptr inbounds ptr, ptr %tab, i32 %rank
  %base = load ptr, ptr %bp
  %r = getelementptr i8, ptr %base, i64 %off
  ret ptr %r
}

; barrier.cluster.arrive: join the current phase (remembered in the context); the arrival that
; completes it starts the next. A phase completes when every non-exited thread of the cluster
; has arrived (PTX ISA, barrier.cluster): %Cluster.threads counts the live threads, and a thread
; that exits leaves it (@__lc_thread_exit), so exited threads count as arrived for the current
; phase and every later one.
define void @__layoutc_cluster_arrive(ptr %ctx) {
entry:
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %gp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_generation
  %gen = load i32, ptr %gp
  %php = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_phase
  store i32 %gen, ptr %php
  %ap = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_arrived
  %a = load i32, ptr %ap
  %a1 = add i32 %a, 1
  %tp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_threads
  %t = load i32, ptr %tp
  call void @__lc_progress(ptr %ctx)
  %full = icmp uge i32 %a1, %t
  br i1 %full, label %release, label %keep
release:
  store i32 0, ptr %ap
  %g1 = add i32 %gen, 1
  store i32 %g1, ptr %gp
  ret void
keep:
  store i32 %a1, ptr %ap
  ret void
}

; A thread exits: it leaves the cluster barrier's live count (an arrival of its still pending in
; the current phase leaves the arrived count too), which may complete the phase the others wait
; in. Named and block barriers see exits through the fiber states (the scheduler).
define internal void @__lc_thread_exit(ptr %ctx) {
entry:
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %gp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_generation
  %gen = load i32, ptr %gp
  %php = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_phase
  %joined = load i32, ptr %php
  %pending = icmp eq i32 %joined, %gen
  %pz = zext i1 %pending to i32
  %ap = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_arrived
  %a = load i32, ptr %ap
  %a1 = sub i32 %a, %pz
  %tp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_threads
  %t = load i32, ptr %tp
  %t1 = sub i32 %t, 1
  store i32 %t1, ptr %tp
  store i32 -1, ptr %php
  call void @__lc_progress(ptr %ctx)
  %some = icmp ne i32 %a1, 0
  %all = icmp uge i32 %a1, %t1
  %done = and i1 %some, %all
  br i1 %done, label %release, label %keep
release:
  store i32 0, ptr %ap
  %g1 = add i32 %gen, 1
  store i32 %g1, ptr %gp
  ret void
keep:
  store i32 %a1, ptr %ap
  ret void
}

; barrier.cluster.wait: park until the phase this thread joined has completed.
define void @__layoutc_cluster_wait(ptr %ctx) {
entry:
  %f = call ptr @__lc_fiber(ptr %ctx)
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %gp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_generation
  %php = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_phase
  %want = load i32, ptr %php
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  br label %check
check:
  %g = load volatile i32, ptr %gp
  %moved = icmp ne i32 %g, %want
  br i1 %moved, label %out, label %park
park:
  store i32 $AT_YIELD, ptr %stp
  call void @__lc_yield(ptr %f)
  br label %check
out:
  ret void
}

; TMA load with .multicast::cluster: the box into every block of %mask (bit r: rank r) at the
; same shared-memory offset, completing the mbarrier at the same offset in each of them.
define void @__layoutc_tma_load_multicast(ptr %ctx, ptr %dst, ptr %desc, ptr %mbar, i32 %mask, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4) {
entry:
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %nbp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_nblocks
  %nb = load i32, ptr %nbp
  %out = lshr i32 %mask, %nb
  %bad = icmp ne i32 %out, 0
  br i1 %bad, label %fail, label %loop
fail:
  call void @__lc_fail(ptr %ctx, i32 $ERR_BAD_CLUSTER_RANK)
  unreachable
loop:
  %r = phi i32 [ 0, %entry ], [ %r1, %next ]
  %more = icmp ult i32 %r, %nb
  br i1 %more, label %body, label %done
body:
  %sh = lshr i32 %mask, %r
  %bit = and i32 %sh, 1
  %on = icmp ne i32 %bit, 0
  br i1 %on, label %copy, label %next
copy:
  %d = call ptr @__layoutc_mapa(ptr %ctx, ptr %dst, i32 %r)
  %m = call ptr @__layoutc_mapa(ptr %ctx, ptr %mbar, i32 %r)
  call void @__layoutc_tma_load(ptr %ctx, ptr %d, ptr %desc, ptr %m, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4)
  br label %next
next:
  %r1 = add i32 %r, 1
  br label %loop
done:
  ret void
}

; The im2col load with .multicast::cluster: into every block of %mask, as the tile mode.
define void @__layoutc_tma_load_im2col_multicast(ptr %ctx, ptr %dst, ptr %desc, ptr %mbar, i32 %mask, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4, i32 %o0, i32 %o1, i32 %o2) {
entry:
  %cp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  %c = load ptr, ptr %cp
  %nbp = getelementptr inbounds %Cluster, ptr %c, i32 0, i32 $Cluster_nblocks
  %nb = load i32, ptr %nbp
  %out = lshr i32 %mask, %nb
  %bad = icmp ne i32 %out, 0
  br i1 %bad, label %fail, label %loop
fail:
  call void @__lc_fail(ptr %ctx, i32 $ERR_BAD_CLUSTER_RANK)
  unreachable
loop:
  %r = phi i32 [ 0, %entry ], [ %r1, %next ]
  %more = icmp ult i32 %r, %nb
  br i1 %more, label %body, label %done
body:
  %sh = lshr i32 %mask, %r
  %bit = and i32 %sh, 1
  %on = icmp ne i32 %bit, 0
  br i1 %on, label %copy, label %next
copy:
  %d = call ptr @__layoutc_mapa(ptr %ctx, ptr %dst, i32 %r)
  %m = call ptr @__layoutc_mapa(ptr %ctx, ptr %mbar, i32 %r)
  call void @__layoutc_tma_load_im2col(ptr %ctx, ptr %d, ptr %desc, ptr %m, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4, i32 %o0, i32 %o1, i32 %o2)
  br label %next
next:
  %r1 = add i32 %r, 1
  br label %loop
done:
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; TMA tile-mode load on the CPU: the box at (c0..c4) of the tensor the descriptor (CPU
; layout: passes/conversion/tma_descriptor.py) describes, innermost dimension first, into shared memory at
; %dst with the descriptor's swizzle applied to the shared-memory byte offset exactly as the
; hardware does (Swizzle<B,4,3>); out-of-bounds elements are zeros; then the mbarrier's
; transaction count is completed by the box's bytes. The transfer happens at issue.
define void @__layoutc_tma_load(ptr %ctx, ptr %dst, ptr %desc, ptr %mbar, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4) {
entry:
  %basei = load i64, ptr %desc, align 8
  %ebp = getelementptr inbounds i64, ptr %desc, i32 2
  %eb = load i64, ptr %ebp
  %swp = getelementptr inbounds i64, ptr %desc, i32 3
  %sw = load i64, ptr %swp
  %swz = icmp eq i64 %sw, 0
  %swm0 = sub i64 %sw, 16
  %swm = select i1 %swz, i64 0, i64 %swm0
  %bwp = getelementptr inbounds i64, ptr %desc, i32 14
  %bw = load i64, ptr %bwp
  %b0 = and i64 %bw, 4095
  %bw1 = lshr i64 %bw, 12
  %b1 = and i64 %bw1, 4095
  %bw2 = lshr i64 %bw, 24
  %b2 = and i64 %bw2, 4095
  %bw3 = lshr i64 %bw, 36
  %b3 = and i64 %bw3, 4095
  %bw4 = lshr i64 %bw, 48
  %b4 = and i64 %bw4, 4095
  %t01 = mul i64 %b0, %b1
  %t012 = mul i64 %t01, %b2
  %t0123 = mul i64 %t012, %b3
  %total = mul i64 %t0123, %b4
  %smp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  %smem = load ptr, ptr %smp
  %smi = ptrtoint ptr %smem to i64
  %sxi = ptrtoint ptr %dst to i64
  %off0 = sub i64 %sxi, %smi
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %more = icmp ult i64 %i, %total
  br i1 %more, label %elem, label %done
elem:
  %rem0 = add i64 %i, 0
  %ok0 = icmp eq i64 0, 0
  %ad0 = add i64 %basei, 0
  %bd0p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw0 = load i64, ptr %bd0p
  %bs0 = lshr i64 %dbw0, 0
  %bx0 = and i64 %bs0, 4095
  %id0 = urem i64 %rem0, %bx0
  %rem1 = udiv i64 %rem0, %bx0
  %cc0 = sext i32 %c0 to i64
  %g0 = add i64 %cc0, %id0
  %dm0p = getelementptr inbounds i64, ptr %desc, i32 4
  %dm0 = load i64, ptr %dm0p
  %st0p = getelementptr inbounds i64, ptr %desc, i32 9
  %st0 = load i64, ptr %st0p
  %ge0 = icmp sge i64 %g0, 0
  %lt0 = icmp slt i64 %g0, %dm0
  %ok0a = and i1 %ge0, %lt0
  %ok1 = and i1 %ok0, %ok0a
  %ga0 = mul i64 %g0, %st0
  %ad1 = add i64 %ad0, %ga0
  %bd1p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw1 = load i64, ptr %bd1p
  %bs1 = lshr i64 %dbw1, 12
  %bx1 = and i64 %bs1, 4095
  %id1 = urem i64 %rem1, %bx1
  %rem2 = udiv i64 %rem1, %bx1
  %cc1 = sext i32 %c1 to i64
  %g1 = add i64 %cc1, %id1
  %dm1p = getelementptr inbounds i64, ptr %desc, i32 5
  %dm1 = load i64, ptr %dm1p
  %st1p = getelementptr inbounds i64, ptr %desc, i32 10
  %st1 = load i64, ptr %st1p
  %ge1 = icmp sge i64 %g1, 0
  %lt1 = icmp slt i64 %g1, %dm1
  %ok1a = and i1 %ge1, %lt1
  %ok2 = and i1 %ok1, %ok1a
  %ga1 = mul i64 %g1, %st1
  %ad2 = add i64 %ad1, %ga1
  %bd2p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw2 = load i64, ptr %bd2p
  %bs2 = lshr i64 %dbw2, 24
  %bx2 = and i64 %bs2, 4095
  %id2 = urem i64 %rem2, %bx2
  %rem3 = udiv i64 %rem2, %bx2
  %cc2 = sext i32 %c2 to i64
  %g2 = add i64 %cc2, %id2
  %dm2p = getelementptr inbounds i64, ptr %desc, i32 6
  %dm2 = load i64, ptr %dm2p
  %st2p = getelementptr inbounds i64, ptr %desc, i32 11
  %st2 = load i64, ptr %st2p
  %ge2 = icmp sge i64 %g2, 0
  %lt2 = icmp slt i64 %g2, %dm2
  %ok2a = and i1 %ge2, %lt2
  %ok3 = and i1 %ok2, %ok2a
  %ga2 = mul i64 %g2, %st2
  %ad3 = add i64 %ad2, %ga2
  %bd3p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw3 = load i64, ptr %bd3p
  %bs3 = lshr i64 %dbw3, 36
  %bx3 = and i64 %bs3, 4095
  %id3 = urem i64 %rem3, %bx3
  %rem4 = udiv i64 %rem3, %bx3
  %cc3 = sext i32 %c3 to i64
  %g3 = add i64 %cc3, %id3
  %dm3p = getelementptr inbounds i64, ptr %desc, i32 7
  %dm3 = load i64, ptr %dm3p
  %st3p = getelementptr inbounds i64, ptr %desc, i32 12
  %st3 = load i64, ptr %st3p
  %ge3 = icmp sge i64 %g3, 0
  %lt3 = icmp slt i64 %g3, %dm3
  %ok3a = and i1 %ge3, %lt3
  %ok4 = and i1 %ok3, %ok3a
  %ga3 = mul i64 %g3, %st3
  %ad4 = add i64 %ad3, %ga3
  %bd4p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw4 = load i64, ptr %bd4p
  %bs4 = lshr i64 %dbw4, 48
  %bx4 = and i64 %bs4, 4095
  %id4 = urem i64 %rem4, %bx4
  %rem5 = udiv i64 %rem4, %bx4
  %cc4 = sext i32 %c4 to i64
  %g4 = add i64 %cc4, %id4
  %dm4p = getelementptr inbounds i64, ptr %desc, i32 8
  %dm4 = load i64, ptr %dm4p
  %st4p = getelementptr inbounds i64, ptr %desc, i32 13
  %st4 = load i64, ptr %st4p
  %ge4 = icmp sge i64 %g4, 0
  %lt4 = icmp slt i64 %g4, %dm4
  %ok4a = and i1 %ge4, %lt4
  %ok5 = and i1 %ok4, %ok4a
  %ga4 = mul i64 %g4, %st4
  %ad5 = add i64 %ad4, %ga4
  %gptr = inttoptr i64 %ad5 to ptr
  %ib = mul i64 %i, %eb
  %so = add i64 %off0, %ib
  %sx = lshr i64 %so, 3
  %sxm = and i64 %sx, %swm
  %swd = xor i64 %so, %sxm
  %sptr = getelementptr inbounds i8, ptr %smem, i64 %swd
  br i1 %ok5, label %inb, label %oob
inb:
  call void @llvm.memcpy.p0.p0.i64(ptr %sptr, ptr %gptr, i64 %eb, i1 false)
  br label %next
oob:
  call void @llvm.memset.p0.i64(ptr %sptr, i8 0, i64 %eb, i1 false)
  br label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  %bytes = mul i64 %total, %eb
  %b32 = trunc i64 %bytes to i32
  call void @__layoutc_mbar_complete_tx(ptr %ctx, ptr %mbar, i32 %b32)
  ret void
}

; TMA tile-mode store on the CPU: the shared-memory box (swizzled as for loads) to the
; tensor; elements outside the tensor are not written.
define void @__layoutc_tma_store(ptr %ctx, ptr %desc, ptr %src, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4) {
entry:
  %basei = load i64, ptr %desc, align 8
  %ebp = getelementptr inbounds i64, ptr %desc, i32 2
  %eb = load i64, ptr %ebp
  %swp = getelementptr inbounds i64, ptr %desc, i32 3
  %sw = load i64, ptr %swp
  %swz = icmp eq i64 %sw, 0
  %swm0 = sub i64 %sw, 16
  %swm = select i1 %swz, i64 0, i64 %swm0
  %bwp = getelementptr inbounds i64, ptr %desc, i32 14
  %bw = load i64, ptr %bwp
  %b0 = and i64 %bw, 4095
  %bw1 = lshr i64 %bw, 12
  %b1 = and i64 %bw1, 4095
  %bw2 = lshr i64 %bw, 24
  %b2 = and i64 %bw2, 4095
  %bw3 = lshr i64 %bw, 36
  %b3 = and i64 %bw3, 4095
  %bw4 = lshr i64 %bw, 48
  %b4 = and i64 %bw4, 4095
  %t01 = mul i64 %b0, %b1
  %t012 = mul i64 %t01, %b2
  %t0123 = mul i64 %t012, %b3
  %total = mul i64 %t0123, %b4
  %smp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  %smem = load ptr, ptr %smp
  %smi = ptrtoint ptr %smem to i64
  %sxi = ptrtoint ptr %src to i64
  %off0 = sub i64 %sxi, %smi
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %more = icmp ult i64 %i, %total
  br i1 %more, label %elem, label %done
elem:
  %rem0 = add i64 %i, 0
  %ok0 = icmp eq i64 0, 0
  %ad0 = add i64 %basei, 0
  %bd0p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw0 = load i64, ptr %bd0p
  %bs0 = lshr i64 %dbw0, 0
  %bx0 = and i64 %bs0, 4095
  %id0 = urem i64 %rem0, %bx0
  %rem1 = udiv i64 %rem0, %bx0
  %cc0 = sext i32 %c0 to i64
  %g0 = add i64 %cc0, %id0
  %dm0p = getelementptr inbounds i64, ptr %desc, i32 4
  %dm0 = load i64, ptr %dm0p
  %st0p = getelementptr inbounds i64, ptr %desc, i32 9
  %st0 = load i64, ptr %st0p
  %ge0 = icmp sge i64 %g0, 0
  %lt0 = icmp slt i64 %g0, %dm0
  %ok0a = and i1 %ge0, %lt0
  %ok1 = and i1 %ok0, %ok0a
  %ga0 = mul i64 %g0, %st0
  %ad1 = add i64 %ad0, %ga0
  %bd1p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw1 = load i64, ptr %bd1p
  %bs1 = lshr i64 %dbw1, 12
  %bx1 = and i64 %bs1, 4095
  %id1 = urem i64 %rem1, %bx1
  %rem2 = udiv i64 %rem1, %bx1
  %cc1 = sext i32 %c1 to i64
  %g1 = add i64 %cc1, %id1
  %dm1p = getelementptr inbounds i64, ptr %desc, i32 5
  %dm1 = load i64, ptr %dm1p
  %st1p = getelementptr inbounds i64, ptr %desc, i32 10
  %st1 = load i64, ptr %st1p
  %ge1 = icmp sge i64 %g1, 0
  %lt1 = icmp slt i64 %g1, %dm1
  %ok1a = and i1 %ge1, %lt1
  %ok2 = and i1 %ok1, %ok1a
  %ga1 = mul i64 %g1, %st1
  %ad2 = add i64 %ad1, %ga1
  %bd2p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw2 = load i64, ptr %bd2p
  %bs2 = lshr i64 %dbw2, 24
  %bx2 = and i64 %bs2, 4095
  %id2 = urem i64 %rem2, %bx2
  %rem3 = udiv i64 %rem2, %bx2
  %cc2 = sext i32 %c2 to i64
  %g2 = add i64 %cc2, %id2
  %dm2p = getelementptr inbounds i64, ptr %desc, i32 6
  %dm2 = load i64, ptr %dm2p
  %st2p = getelementptr inbounds i64, ptr %desc, i32 11
  %st2 = load i64, ptr %st2p
  %ge2 = icmp sge i64 %g2, 0
  %lt2 = icmp slt i64 %g2, %dm2
  %ok2a = and i1 %ge2, %lt2
  %ok3 = and i1 %ok2, %ok2a
  %ga2 = mul i64 %g2, %st2
  %ad3 = add i64 %ad2, %ga2
  %bd3p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw3 = load i64, ptr %bd3p
  %bs3 = lshr i64 %dbw3, 36
  %bx3 = and i64 %bs3, 4095
  %id3 = urem i64 %rem3, %bx3
  %rem4 = udiv i64 %rem3, %bx3
  %cc3 = sext i32 %c3 to i64
  %g3 = add i64 %cc3, %id3
  %dm3p = getelementptr inbounds i64, ptr %desc, i32 7
  %dm3 = load i64, ptr %dm3p
  %st3p = getelementptr inbounds i64, ptr %desc, i32 12
  %st3 = load i64, ptr %st3p
  %ge3 = icmp sge i64 %g3, 0
  %lt3 = icmp slt i64 %g3, %dm3
  %ok3a = and i1 %ge3, %lt3
  %ok4 = and i1 %ok3, %ok3a
  %ga3 = mul i64 %g3, %st3
  %ad4 = add i64 %ad3, %ga3
  %bd4p = getelementptr inbounds i64, ptr %desc, i32 14
  %dbw4 = load i64, ptr %bd4p
  %bs4 = lshr i64 %dbw4, 48
  %bx4 = and i64 %bs4, 4095
  %id4 = urem i64 %rem4, %bx4
  %rem5 = udiv i64 %rem4, %bx4
  %cc4 = sext i32 %c4 to i64
  %g4 = add i64 %cc4, %id4
  %dm4p = getelementptr inbounds i64, ptr %desc, i32 8
  %dm4 = load i64, ptr %dm4p
  %st4p = getelementptr inbounds i64, ptr %desc, i32 13
  %st4 = load i64, ptr %st4p
  %ge4 = icmp sge i64 %g4, 0
  %lt4 = icmp slt i64 %g4, %dm4
  %ok4a = and i1 %ge4, %lt4
  %ok5 = and i1 %ok4, %ok4a
  %ga4 = mul i64 %g4, %st4
  %ad5 = add i64 %ad4, %ga4
  %gptr = inttoptr i64 %ad5 to ptr
  %ib = mul i64 %i, %eb
  %so = add i64 %off0, %ib
  %sx = lshr i64 %so, 3
  %sxm = and i64 %sx, %swm
  %swd = xor i64 %so, %sxm
  %sptr = getelementptr inbounds i8, ptr %smem, i64 %swd
  br i1 %ok5, label %inb, label %next
inb:
  call void @llvm.memcpy.p0.p0.i64(ptr %gptr, ptr %sptr, i64 %eb, i1 false)
  br label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
done:
  ret void
}

; TMA im2col-mode load on the CPU (PTX ISA "Im2col mode"; the model is runtime/tma_im2col.py's
; im2col_load): the descriptor (passes/conversion/tma_descriptor.py, im2col layout) normalises
; the tensor to (C, W, H, D, N), missing spatial dimensions of extent 1. ``pixels`` pixels are
; walked from (c1, c2, c3, c4) = (w, h, d, n), W fastest, each step the dimension's traversal
; stride (words 22-24), wrapping past each dimension's bounding box
; [lower, extent - 1 + upper] to its lower corner (N carries); pixel j reads channels
; c0 .. c0 + channels - 1 at (w + o0, h + o1, d + o2, n) into row j of the dense
; (pixels, channels) box, swizzled as tile mode; elements outside the tensor are zeros. Then
; the mbarrier's transaction count is completed by the box's bytes. A first pixel outside the
; bounding box is an error (an H200 raises an illegal instruction for one below it), and so is
; one off the traversal grid (lower + a multiple of the stride: not an output position's).
define void @__layoutc_tma_load_im2col(ptr %ctx, ptr %dst, ptr %desc, ptr %mbar, i32 %c0, i32 %c1, i32 %c2, i32 %c3, i32 %c4, i32 %o0, i32 %o1, i32 %o2) {
entry:
  %basei = load i64, ptr %desc, align 8
  %ebp = getelementptr inbounds i64, ptr %desc, i32 2
  %eb = load i64, ptr %ebp
  %swp = getelementptr inbounds i64, ptr %desc, i32 3
  %sw = load i64, ptr %swp
  %swz = icmp eq i64 %sw, 0
  %swm0 = sub i64 %sw, 16
  %swm = select i1 %swz, i64 0, i64 %swm0
  %e0p = getelementptr inbounds i64, ptr %desc, i32 4
  %e0 = load i64, ptr %e0p
  %e1p = getelementptr inbounds i64, ptr %desc, i32 5
  %e1 = load i64, ptr %e1p
  %e2p = getelementptr inbounds i64, ptr %desc, i32 6
  %e2 = load i64, ptr %e2p
  %e3p = getelementptr inbounds i64, ptr %desc, i32 7
  %e3 = load i64, ptr %e3p
  %e4p = getelementptr inbounds i64, ptr %desc, i32 8
  %e4 = load i64, ptr %e4p
  %s0p = getelementptr inbounds i64, ptr %desc, i32 9
  %s0 = load i64, ptr %s0p
  %s1p = getelementptr inbounds i64, ptr %desc, i32 10
  %s1 = load i64, ptr %s1p
  %s2p = getelementptr inbounds i64, ptr %desc, i32 11
  %s2 = load i64, ptr %s2p
  %s3p = getelementptr inbounds i64, ptr %desc, i32 12
  %s3 = load i64, ptr %s3p
  %s4p = getelementptr inbounds i64, ptr %desc, i32 13
  %s4 = load i64, ptr %s4p
  %chp = getelementptr inbounds i64, ptr %desc, i32 14
  %ch = load i64, ptr %chp
  %pxp = getelementptr inbounds i64, ptr %desc, i32 15
  %px = load i64, ptr %pxp
  %lo1p = getelementptr inbounds i64, ptr %desc, i32 16
  %lo1 = load i64, ptr %lo1p
  %lo2p = getelementptr inbounds i64, ptr %desc, i32 17
  %lo2 = load i64, ptr %lo2p
  %lo3p = getelementptr inbounds i64, ptr %desc, i32 18
  %lo3 = load i64, ptr %lo3p
  %up1p = getelementptr inbounds i64, ptr %desc, i32 19
  %up1 = load i64, ptr %up1p
  %up2p = getelementptr inbounds i64, ptr %desc, i32 20
  %up2 = load i64, ptr %up2p
  %up3p = getelementptr inbounds i64, ptr %desc, i32 21
  %up3 = load i64, ptr %up3p
  %st1p = getelementptr inbounds i64, ptr %desc, i32 22
  %st1 = load i64, ptr %st1p
  %st2p = getelementptr inbounds i64, ptr %desc, i32 23
  %st2 = load i64, ptr %st2p
  %st3p = getelementptr inbounds i64, ptr %desc, i32 24
  %st3 = load i64, ptr %st3p
  %e1m = sub i64 %e1, 1
  %last1 = add i64 %e1m, %up1
  %e2m = sub i64 %e2, 1
  %last2 = add i64 %e2m, %up2
  %e3m = sub i64 %e3, 1
  %last3 = add i64 %e3m, %up3
  %cc0 = sext i32 %c0 to i64
  %w0 = sext i32 %c1 to i64
  %h0 = sext i32 %c2 to i64
  %d0 = sext i32 %c3 to i64
  %n0 = sext i32 %c4 to i64
  %ow = sext i32 %o0 to i64
  %oh = sext i32 %o1 to i64
  %od = sext i32 %o2 to i64
  ; the first pixel must lie in the bounding box (the GPU traps otherwise)
  %bw0 = icmp slt i64 %w0, %lo1
  %bw1 = icmp sgt i64 %w0, %last1
  %bh0 = icmp slt i64 %h0, %lo2
  %bh1 = icmp sgt i64 %h0, %last2
  %bd0 = icmp slt i64 %d0, %lo3
  %bd1 = icmp sgt i64 %d0, %last3
  %bw = or i1 %bw0, %bw1
  %bh = or i1 %bh0, %bh1
  %bd = or i1 %bd0, %bd1
  %bwh = or i1 %bw, %bh
  %outside = or i1 %bwh, %bd
  br i1 %outside, label %fail, label %grid
fail:
  call void @__lc_fail(ptr %ctx, i32 $ERR_IM2COL_START)
  unreachable
grid:
  ; inside the box, on the traversal grid: (pixel - lower) % stride == 0 per dimension
  %gw0 = sub i64 %w0, %lo1
  %gw1 = urem i64 %gw0, %st1
  %gh0 = sub i64 %h0, %lo2
  %gh1 = urem i64 %gh0, %st2
  %gd0 = sub i64 %d0, %lo3
  %gd1 = urem i64 %gd0, %st3
  %gwh = or i64 %gw1, %gh1
  %gall = or i64 %gwh, %gd1
  %offgrid = icmp ne i64 %gall, 0
  br i1 %offgrid, label %failgrid, label %start
failgrid:
  call void @__lc_fail(ptr %ctx, i32 $ERR_IM2COL_GRID)
  unreachable
start:
  %smp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  %smem = load ptr, ptr %smp
  %smi = ptrtoint ptr %smem to i64
  %sxi = ptrtoint ptr %dst to i64
  %off0 = sub i64 %sxi, %smi
  br label %pix
pix:
  %j = phi i64 [ 0, %start ], [ %j1, %pixnext ]
  %w = phi i64 [ %w0, %start ], [ %wN, %pixnext ]
  %h = phi i64 [ %h0, %start ], [ %hN, %pixnext ]
  %d = phi i64 [ %d0, %start ], [ %dN, %pixnext ]
  %n = phi i64 [ %n0, %start ], [ %nN, %pixnext ]
  %more = icmp ult i64 %j, %px
  br i1 %more, label %body, label %done
body:
  %aw = add i64 %w, %ow
  %ah = add i64 %h, %oh
  %ad = add i64 %d, %od
  %iw0 = icmp sge i64 %aw, 0
  %iw1 = icmp slt i64 %aw, %e1
  %ih0 = icmp sge i64 %ah, 0
  %ih1 = icmp slt i64 %ah, %e2
  %id0 = icmp sge i64 %ad, 0
  %id1 = icmp slt i64 %ad, %e3
  %in0 = icmp sge i64 %n, 0
  %in1 = icmp slt i64 %n, %e4
  %iw = and i1 %iw0, %iw1
  %ih = and i1 %ih0, %ih1
  %idd = and i1 %id0, %id1
  %inn = and i1 %in0, %in1
  %iwh = and i1 %iw, %ih
  %idn = and i1 %idd, %inn
  %inpix = and i1 %iwh, %idn
  %gw = mul i64 %aw, %s1
  %gh = mul i64 %ah, %s2
  %gd = mul i64 %ad, %s3
  %gn = mul i64 %n, %s4
  %pa1 = add i64 %basei, %gw
  %pa2 = add i64 %pa1, %gh
  %pa3 = add i64 %pa2, %gd
  %paddr = add i64 %pa3, %gn
  %row = mul i64 %j, %ch
  br label %chl
chl:
  %ci = phi i64 [ 0, %body ], [ %ci1, %chnext ]
  %cmore = icmp ult i64 %ci, %ch
  br i1 %cmore, label %elem, label %pixnext
elem:
  %g = add i64 %cc0, %ci
  %ic0 = icmp sge i64 %g, 0
  %ic1 = icmp slt i64 %g, %e0
  %ic = and i1 %ic0, %ic1
  %ok = and i1 %inpix, %ic
  %gc = mul i64 %g, %s0
  %gaddr = add i64 %paddr, %gc
  %gptr = inttoptr i64 %gaddr to ptr
  %i = add i64 %row, %ci
  %ib = mul i64 %i, %eb
  %so = add i64 %off0, %ib
  %sx = lshr i64 %so, 3
  %sxm = and i64 %sx, %swm
  %swd = xor i64 %so, %sxm
  %sptr = getelementptr inbounds i8, ptr %smem, i64 %swd
  br i1 %ok, label %inb, label %oob
inb:
  call void @llvm.memcpy.p0.p0.i64(ptr %sptr, ptr %gptr, i64 %eb, i1 false)
  br label %chnext
oob:
  call void @llvm.memset.p0.i64(ptr %sptr, i8 0, i64 %eb, i1 false)
  br label %chnext
chnext:
  %ci1 = add i64 %ci, 1
  br label %chl
pixnext:
  %j1 = add i64 %j, 1
  %w1 = add i64 %w, %st1
  %kw = icmp sle i64 %w1, %last1
  %wN = select i1 %kw, i64 %w1, i64 %lo1
  %h1 = add i64 %h, %st2
  %hc = select i1 %kw, i64 %h, i64 %h1
  %kh0 = icmp sle i64 %hc, %last2
  %kh = or i1 %kw, %kh0
  %hN = select i1 %kh, i64 %hc, i64 %lo2
  %d1 = add i64 %d, %st3
  %dc = select i1 %kh, i64 %d, i64 %d1
  %kd0 = icmp sle i64 %dc, %last3
  %kd = or i1 %kh, %kd0
  %dN = select i1 %kd, i64 %dc, i64 %lo3
  %n1 = add i64 %n, 1
  %nN = select i1 %kd, i64 %n, i64 %n1
  br label %pix
done:
  %t = mul i64 %px, %ch
  %bytes = mul i64 %t, %eb
  %b32 = trunc i64 %bytes to i32
  call void @__layoutc_mbar_complete_tx(ptr %ctx, ptr %mbar, i32 %b32)
  ret void
}

; Give the other fibers a turn (a spin loop's body); counts as no progress.
define void @__layoutc_yield(ptr %ctx) {
  %f = call ptr @__lc_fiber(ptr %ctx)
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $AT_YIELD, ptr %stp
  call void @__lc_yield(ptr %f)
  ret void
}

; Lanes of the calling thread's warp that exist (a block's last warp may be partial).
define internal i32 @__lc_valid_lanes(ptr %ctx) {
  %np = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_block_threads
  %n = load i32, ptr %np
  %wp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_id
  %w = load i32, ptr %wp
  %base = mul i32 %w, 32
  %left = sub i32 %n, %base
  %full = icmp sge i32 %left, 32
  %sh = shl i32 1, %left
  %part = sub i32 %sh, 1
  %v = select i1 %full, i32 -1, i32 %part
  ret i32 %v
}

; The source lane of shfl.sync, by the PTX ISA's definition of the four modes.
define internal i32 @__lc_shfl_src(ptr %ctx, i32 %mode, i32 %mask, i32 %b, i32 %c) {
entry:
  %lp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_lane_id
  %lane = load i32, ptr %lp
  %bval = and i32 %b, 31
  %cval = and i32 %c, 31
  %c8 = lshr i32 %c, 8
  %seg = and i32 %c8, 31
  %nseg = xor i32 %seg, -1
  %lo = and i32 %lane, %seg
  %hi = and i32 %cval, %nseg
  %maxl = or i32 %lo, %hi
  %minl = and i32 %lane, %seg
  %bi = and i32 %bval, %nseg
  %j_idx = or i32 %minl, %bi
  %p_idx = icmp sle i32 %j_idx, %maxl
  %j_up = sub i32 %lane, %bval
  %p_up = icmp sge i32 %j_up, %maxl
  %j_down = add i32 %lane, %bval
  %p_down = icmp sle i32 %j_down, %maxl
  %j_bfly = xor i32 %lane, %bval
  %p_bfly = icmp sle i32 %j_bfly, %maxl
  %is_up = icmp eq i32 %mode, 1
  %is_down = icmp eq i32 %mode, 2
  %is_bfly = icmp eq i32 %mode, 3
  %j1 = select i1 %is_up, i32 %j_up, i32 %j_idx
  %p1 = select i1 %is_up, i1 %p_up, i1 %p_idx
  %j2 = select i1 %is_down, i32 %j_down, i32 %j1
  %p2 = select i1 %is_down, i1 %p_down, i1 %p1
  %j = select i1 %is_bfly, i32 %j_bfly, i32 %j2
  %p = select i1 %is_bfly, i1 %p_bfly, i1 %p2
  %src = select i1 %p, i32 %j, i32 %lane
  %valid = call i32 @__lc_valid_lanes(ptr %ctx)
  %allowed = and i32 %mask, %valid
  %sh = lshr i32 %allowed, %src
  %bit = and i32 %sh, 1
  %ok = icmp ne i32 %bit, 0
  br i1 %ok, label %good, label %bad
bad:
  call void @__lc_fail(ptr %ctx, i32 $ERR_BAD_SHFL_SOURCE)
  unreachable
good:
  ret i32 %src
}

define i32 @__layoutc_shfl_sync_i32(ptr %ctx, i32 %mode, i32 %mask, i32 %a, i32 %b, i32 %c) {
  %scp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_scratch
  %scratch = load ptr, ptr %scp
  %lp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_lane_id
  %lane = load i32, ptr %lp
  %slot = getelementptr inbounds i64, ptr %scratch, i32 %lane
  %a64 = zext i32 %a to i64
  store i64 %a64, ptr %slot
  call void @__layoutc_warp_sync(ptr %ctx, i32 %mask)
  %src = call i32 @__lc_shfl_src(ptr %ctx, i32 %mode, i32 %mask, i32 %b, i32 %c)
  %sslot = getelementptr inbounds i64, ptr %scratch, i32 %src
  %v64 = load i64, ptr %sslot
  %v = trunc i64 %v64 to i32
  call void @__layoutc_warp_sync(ptr %ctx, i32 %mask)
  ret i32 %v
}

define float @__layoutc_shfl_sync_f32(ptr %ctx, i32 %mode, i32 %mask, float %a, i32 %b, i32 %c) {
  %ai = bitcast float %a to i32
  %r = call i32 @__layoutc_shfl_sync_i32(ptr %ctx, i32 %mode, i32 %mask, i32 %ai, i32 %b, i32 %c)
  %rf = bitcast i32 %r to float
  ret float %rf
}

define i32 @__layoutc_vote_ballot(ptr %ctx, i32 %mask, i1 %pred) {
entry:
  %scp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_scratch
  %scratch = load ptr, ptr %scp
  %lp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_lane_id
  %lane = load i32, ptr %lp
  %slot = getelementptr inbounds i64, ptr %scratch, i32 %lane
  %p64 = zext i1 %pred to i64
  store i64 %p64, ptr %slot
  call void @__layoutc_warp_sync(ptr %ctx, i32 %mask)
  %valid = call i32 @__lc_valid_lanes(ptr %ctx)
  %members = and i32 %mask, %valid
  br label %loop
loop:
  %l = phi i32 [ 0, %entry ], [ %l1, %next ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %next ]
  %sl = getelementptr inbounds i64, ptr %scratch, i32 %l
  %v = load i64, ptr %sl
  %nz = icmp ne i64 %v, 0
  %sh = lshr i32 %members, %l
  %mb = trunc i32 %sh to i1
  %on = and i1 %nz, %mb
  %onb = zext i1 %on to i32
  %bit = shl i32 %onb, %l
  %acc1 = or i32 %acc, %bit
  br label %next
next:
  %l1 = add i32 %l, 1
  %more = icmp ult i32 %l1, 32
  br i1 %more, label %loop, label %done
done:
  call void @__layoutc_warp_sync(ptr %ctx, i32 %mask)
  ret i32 %acc1
}

; A fiber's whole life: run the kernel for the current block, report DONE, park; repeat.
define void @__layoutc_fiber_entry(i32 %hi, i32 %lo) {
entry:
  %h = zext i32 %hi to i64
  %hs = shl i64 %h, 32
  %l = zext i32 %lo to i64
  %a = or i64 %hs, %l
  %f = inttoptr i64 %a to ptr
  br label %loop
loop:
  %sp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_sched
  %s = load ptr, ptr %sp
  %tmp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_thread_main
  %tm = load ptr, ptr %tmp
  %pp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_params
  %params = load ptr, ptr %pp
  %cp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_ctx
  %ctx = load ptr, ptr %cp
  call void %tm(ptr %params, ptr %ctx)
  call void @__lc_thread_exit(ptr %ctx)
  %stp = getelementptr inbounds %Fiber, ptr %f, i32 0, i32 $Fiber_state
  store i32 $DONE, ptr %stp
  call void @__lc_yield(ptr %f)
  br label %loop
}

define internal i32 @__lc_state(ptr %fibers, i32 %i) {
  %fp = getelementptr inbounds %Fiber, ptr %fibers, i32 %i, i32 $Fiber_state
  %st = load i32, ptr %fp
  ret i32 %st
}

define internal void @__lc_set_state(ptr %fibers, i32 %i, i32 %v) {
  %fp = getelementptr inbounds %Fiber, ptr %fibers, i32 %i, i32 $Fiber_state
  store i32 %v, ptr %fp
  ret void
}

; Run one block's fibers to completion. Returns 0 or an error code (also left in the scheduler).
define i32 @__layoutc_run_block(ptr %s) {
entry:
  %fsp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_fibers
  %fibers = load ptr, ptr %fsp
  %np = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nthreads
  %n = load i32, ptr %np
  %nwp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nwarps
  %nwarps = load i32, ptr %nwp
  %bnp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_block_threads
  %bn = load i32, ptr %bnp
  %nbp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nblocks
  %nb = load i32, ptr %nbp
  %twarps = mul i32 %nwarps, %nb
  %b.a = alloca i32
  %j.a = alloca i32
  %bat.a = alloca i32
  %bdn.a = alloca i32
  %mp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_main_uctx
  %main = load ptr, ptr %mp
  %ep = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_error
  %etp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_error_thread
  %ran.a = alloca i32
  %i.a = alloca i32
  %done.a = alloca i32
  %atbar.a = alloca i32
  %rel.a = alloca i32
  %w.a = alloca i32
  %l.a = alloca i32
  %arr.a = alloca i32
  %exi.a = alloca i32
  %firstdone.a = alloca i32
  %firstwait.a = alloca i32
  %yield.a = alloca i32
  %snap.a = alloca i32
  %pgp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_progress
  br label %pass

pass:
  store i32 0, ptr %ran.a
  %pg0 = load i32, ptr %pgp
  store i32 %pg0, ptr %snap.a
  store i32 0, ptr %i.a
  br label %wake_loop
wake_loop:
  %wi = load i32, ptr %i.a
  %wake_more = icmp slt i32 %wi, %n
  br i1 %wake_more, label %wake_body, label %wake_done
wake_body:
  %wst = call i32 @__lc_state(ptr %fibers, i32 %wi)
  %wy = icmp eq i32 %wst, $AT_YIELD
  br i1 %wy, label %wake_it, label %wake_next
wake_it:
  call void @__lc_set_state(ptr %fibers, i32 %wi, i32 $RUNNABLE)
  br label %wake_next
wake_next:
  %wi1 = add i32 %wi, 1
  store i32 %wi1, ptr %i.a
  br label %wake_loop
wake_done:
  store i32 0, ptr %i.a
  br label %run_loop
run_loop:
  %i = load i32, ptr %i.a
  %run_more = icmp slt i32 %i, %n
  br i1 %run_more, label %run_body, label %count
run_body:
  %st = call i32 @__lc_state(ptr %fibers, i32 %i)
  %runnable = icmp eq i32 %st, $RUNNABLE
  br i1 %runnable, label %run_it, label %run_next
run_it:
  %fu = getelementptr inbounds %Fiber, ptr %fibers, i32 %i, i32 $Fiber_uctx
  %u = load ptr, ptr %fu
  %sw = call i32 @swapcontext(ptr %main, ptr %u)
  %ran = load i32, ptr %ran.a
  %ran1 = add i32 %ran, 1
  store i32 %ran1, ptr %ran.a
  %after = call i32 @__lc_state(ptr %fibers, i32 %i)
  %moved = icmp ne i32 %after, $AT_YIELD
  %mz = zext i1 %moved to i32
  %pg1 = load i32, ptr %pgp
  %pg2 = add i32 %pg1, %mz
  store i32 %pg2, ptr %pgp
  %err = load i32, ptr %ep
  %failed = icmp ne i32 %err, 0
  br i1 %failed, label %ret_err, label %run_next
run_next:
  %i1 = add i32 %i, 1
  store i32 %i1, ptr %i.a
  br label %run_loop

count:
  store i32 0, ptr %i.a
  store i32 0, ptr %done.a
  store i32 0, ptr %atbar.a
  store i32 0, ptr %yield.a
  store i32 -1, ptr %firstdone.a
  store i32 -1, ptr %firstwait.a
  br label %count_loop
count_loop:
  %ci = load i32, ptr %i.a
  %count_more = icmp slt i32 %ci, %n
  br i1 %count_more, label %count_body, label %counted
count_body:
  %cst = call i32 @__lc_state(ptr %fibers, i32 %ci)
  %isdone = icmp eq i32 %cst, $DONE
  %isbar = icmp eq i32 %cst, $AT_BARRIER
  %d = load i32, ptr %done.a
  %dz = zext i1 %isdone to i32
  %d1 = add i32 %d, %dz
  store i32 %d1, ptr %done.a
  %b = load i32, ptr %atbar.a
  %bz = zext i1 %isbar to i32
  %b1 = add i32 %b, %bz
  store i32 %b1, ptr %atbar.a
  %isyield = icmp eq i32 %cst, $AT_YIELD
  %yz = zext i1 %isyield to i32
  %y0 = load i32, ptr %yield.a
  %y1 = add i32 %y0, %yz
  store i32 %y1, ptr %yield.a
  %fd = load i32, ptr %firstdone.a
  %fdnone = icmp slt i32 %fd, 0
  %setfd = and i1 %fdnone, %isdone
  %fd1 = select i1 %setfd, i32 %ci, i32 %fd
  store i32 %fd1, ptr %firstdone.a
  %fw = load i32, ptr %firstwait.a
  %fwnone = icmp slt i32 %fw, 0
  %waiting = xor i1 %isdone, true
  %setfw = and i1 %fwnone, %waiting
  %fw1 = select i1 %setfw, i32 %ci, i32 %fw
  store i32 %fw1, ptr %firstwait.a
  %ci1 = add i32 %ci, 1
  store i32 %ci1, ptr %i.a
  br label %count_loop
counted:
  %done = load i32, ptr %done.a
  %alldone = icmp eq i32 %done, %n
  br i1 %alldone, label %ret_ok, label %warps

warps:
  store i32 0, ptr %rel.a
  store i32 0, ptr %w.a
  br label %warp_loop
warp_loop:
  %w = load i32, ptr %w.a
  %warp_more = icmp slt i32 %w, %twarps
  br i1 %warp_more, label %warp_body, label %warps_done
warp_body:
  %wblk = udiv i32 %w, %nwarps
  %wloc = urem i32 %w, %nwarps
  %base0 = mul i32 %wloc, 32
  %left = sub i32 %bn, %base0
  %wbs = mul i32 %wblk, %bn
  %base = add i32 %wbs, %base0
  %full = icmp sge i32 %left, 32
  %cnt = select i1 %full, i32 32, i32 %left
  %vsh = shl i32 1, %cnt
  %vpart = sub i32 %vsh, 1
  %valid = select i1 %full, i32 -1, i32 %vpart
  store i32 0, ptr %arr.a
  store i32 0, ptr %exi.a
  store i32 0, ptr %l.a
  br label %scan_loop
scan_loop:
  %l = load i32, ptr %l.a
  %scan_more = icmp slt i32 %l, %cnt
  br i1 %scan_more, label %scan_body, label %scanned
scan_body:
  %ti = add i32 %base, %l
  %sst = call i32 @__lc_state(ptr %fibers, i32 %ti)
  %atw = icmp eq i32 %sst, $AT_WARP_SYNC
  %ex = icmp eq i32 %sst, $DONE
  %atwz = zext i1 %atw to i32
  %atwb = shl i32 %atwz, %l
  %a0 = load i32, ptr %arr.a
  %a1 = or i32 %a0, %atwb
  store i32 %a1, ptr %arr.a
  %exz = zext i1 %ex to i32
  %exb = shl i32 %exz, %l
  %e0 = load i32, ptr %exi.a
  %e1 = or i32 %e0, %exb
  store i32 %e1, ptr %exi.a
  %l1 = add i32 %l, 1
  store i32 %l1, ptr %l.a
  br label %scan_loop
scanned:
  %arrived = load i32, ptr %arr.a
  %exited = load i32, ptr %exi.a
  %any = icmp ne i32 %arrived, 0
  store i32 0, ptr %l.a
  br i1 %any, label %rel_loop, label %warp_next
rel_loop:
  %rl = load i32, ptr %l.a
  %rel_more = icmp slt i32 %rl, %cnt
  br i1 %rel_more, label %rel_body, label %warp_next
rel_body:
  %rt = add i32 %base, %rl
  %rst = call i32 @__lc_state(ptr %fibers, i32 %rt)
  %rw = icmp eq i32 %rst, $AT_WARP_SYNC
  br i1 %rw, label %rel_check, label %rel_next
rel_check:
  %wmp = getelementptr inbounds %Fiber, ptr %fibers, i32 %rt, i32 $Fiber_wait_mask
  %wm = load i32, ptr %wmp
  %need = and i32 %wm, %valid
  %gone = and i32 %need, %exited
  %hasgone = icmp ne i32 %gone, 0
  br i1 %hasgone, label %warp_exited, label %rel_ready
rel_ready:
  %narr = xor i32 %arrived, -1
  %missing = and i32 %need, %narr
  %ready = icmp eq i32 %missing, 0
  br i1 %ready, label %release_one, label %rel_next
release_one:
  call void @__lc_set_state(ptr %fibers, i32 %rt, i32 $RUNNABLE)
  %r0 = load i32, ptr %rel.a
  %r1 = add i32 %r0, 1
  store i32 %r1, ptr %rel.a
  br label %rel_next
rel_next:
  %rl1 = add i32 %rl, 1
  store i32 %rl1, ptr %l.a
  br label %rel_loop
warp_next:
  %w1 = add i32 %w, 1
  store i32 %w1, ptr %w.a
  br label %warp_loop
warp_exited:
  store i32 $ERR_WARP_EXITED, ptr %ep
  store i32 %rt, ptr %etp
  br label %ret_err

warps_done:
  store i32 0, ptr %b.a
  br label %blk_loop
; Block barriers (bar.sync 0: every thread of the block) release per block when every
; non-exited thread of the block is at the barrier (PTX ISA: bar.sync waits for the non-exited
; threads; exited ones count as arrived), whatever the cluster's other blocks do.
blk_loop:
  %bb = load i32, ptr %b.a
  %bmore = icmp slt i32 %bb, %nb
  br i1 %bmore, label %blk_body, label %blocks_done
blk_body:
  %bbase = mul i32 %bb, %bn
  store i32 0, ptr %bat.a
  store i32 0, ptr %bdn.a
  store i32 0, ptr %j.a
  br label %bcount
bcount:
  %j = load i32, ptr %j.a
  %jm = icmp slt i32 %j, %bn
  br i1 %jm, label %bcbody, label %bcdone
bcbody:
  %bti = add i32 %bbase, %j
  %bst = call i32 @__lc_state(ptr %fibers, i32 %bti)
  %bisdone = icmp eq i32 %bst, $DONE
  %bisbar = icmp eq i32 %bst, $AT_BARRIER
  %bd0 = load i32, ptr %bdn.a
  %bdz = zext i1 %bisdone to i32
  %bd1 = add i32 %bd0, %bdz
  store i32 %bd1, ptr %bdn.a
  %ba0 = load i32, ptr %bat.a
  %baz = zext i1 %bisbar to i32
  %ba1 = add i32 %ba0, %baz
  store i32 %ba1, ptr %bat.a
  %j1 = add i32 %j, 1
  store i32 %j1, ptr %j.a
  br label %bcount
bcdone:
  %bat = load i32, ptr %bat.a
  %bdn = load i32, ptr %bdn.a
  %anyb = icmp ne i32 %bat, 0
  %bsum = add i32 %bat, %bdn
  %bfull = icmp eq i32 %bsum, %bn
  %brel = and i1 %anyb, %bfull
  br i1 %brel, label %release_all, label %blk_next
release_all:
  store i32 0, ptr %j.a
  br label %ra_loop
ra_loop:
  %ri = load i32, ptr %j.a
  %ra_more = icmp slt i32 %ri, %bn
  br i1 %ra_more, label %ra_body, label %ra_done
ra_body:
  %rti = add i32 %bbase, %ri
  %rast = call i32 @__lc_state(ptr %fibers, i32 %rti)
  %raw = icmp eq i32 %rast, $AT_BARRIER
  %rav = select i1 %raw, i32 $RUNNABLE, i32 %rast
  call void @__lc_set_state(ptr %fibers, i32 %rti, i32 %rav)
  %ri1 = add i32 %ri, 1
  store i32 %ri1, ptr %j.a
  br label %ra_loop
ra_done:
  %rb0 = load i32, ptr %rel.a
  %rb1 = add i32 %rb0, 1
  store i32 %rb1, ptr %rel.a
  br label %blk_next
blk_next:
  %bb1 = add i32 %bb, 1
  store i32 %bb1, ptr %b.a
  br label %blk_loop
blocks_done:
  %released = load i32, ptr %rel.a
  %anyrel = icmp ne i32 %released, 0
  br i1 %anyrel, label %pass, label %yield_check
yield_check:
  %ny = load i32, ptr %yield.a
  %anyy = icmp ne i32 %ny, 0
  br i1 %anyy, label %yield_progress, label %maybe_deadlock
yield_progress:
  %pg3 = load i32, ptr %pgp
  %snap = load i32, ptr %snap.a
  %progressed = icmp ne i32 %pg3, %snap
  br i1 %progressed, label %pass, label %exit_rule
maybe_deadlock:
  %ranc = load i32, ptr %ran.a
  %stuck = icmp eq i32 %ranc, 0
  br i1 %stuck, label %exit_rule, label %pass
exit_rule:
  %freed = call i32 @__lc_release_for_exited(ptr %s)
  %anyfreed = icmp ne i32 %freed, 0
  br i1 %anyfreed, label %pass, label %deadlock
deadlock:
  store i32 $ERR_DEADLOCK, ptr %ep
  %fw2 = load i32, ptr %firstwait.a
  store i32 %fw2, ptr %etp
  br label %ret_err

ret_ok:
  ret i32 0
ret_err:
  %code = load i32, ptr %ep
  ret i32 %code
}

; Run clusters [cfg.begin, cfg.end) with fibers (a cluster of one block without clusters): the
; scheduler's fibers are the cluster's blocks' threads, rank by rank. Their contexts were set up
; by the runtime (thread indices, rank, fiber/scheduler pointers); this fills the per-cluster
; fields: block indices, each rank's shared window and warp scratch, the cluster shape.
define i32 @__layoutc_run_fibers(ptr %s, ptr %cfg) {
entry:
  %gxp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gx
  %gx = load i32, ptr %gxp
  %gyp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gy
  %gy = load i32, ptr %gyp
  %gzp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gz
  %gz = load i32, ptr %gzp
  %bbp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_begin
  %begin = load i32, ptr %bbp
  %bep = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_end
  %end = load i32, ptr %bep
  %smp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_smem
  %smem = load ptr, ptr %smp
  %dsp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_dynamic_smem
  %dsmem = load ptr, ptr %dsp
  %wsp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_warp_scratch
  %wscr = load ptr, ptr %wsp
  %cxp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_cx
  %cx = load i32, ptr %cxp
  %cyp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_cy
  %cy = load i32, ptr %cyp
  %czp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_cz
  %cz = load i32, ptr %czp
  %ssp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_smem_stride
  %stride = load i32, ptr %ssp
  %clp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_cluster
  %cluster = load ptr, ptr %clp
  %fsp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_fibers
  %fibers = load ptr, ptr %fsp
  %np = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nthreads
  %n = load i32, ptr %np
  %bnp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_block_threads
  %bn = load i32, ptr %bnp
  %nwp = getelementptr inbounds %Sched, ptr %s, i32 0, i32 $Sched_nwarps
  %nwarps = load i32, ptr %nwp
  %ncx = udiv i32 %gx, %cx
  %ncy = udiv i32 %gy, %cy
  %ncxy = mul i32 %ncx, %ncy
  %cxy = mul i32 %cx, %cy
  %blk.a = alloca i32
  %t.a = alloca i32
  store i32 %begin, ptr %blk.a
  br label %blocks
blocks:
  %blk = load i32, ptr %blk.a
  %more = icmp slt i32 %blk, %end
  br i1 %more, label %block, label %finished
block:
  %cthr = getelementptr inbounds %Cluster, ptr %cluster, i32 0, i32 $Cluster_threads
  store i32 %n, ptr %cthr
  %carr = getelementptr inbounds %Cluster, ptr %cluster, i32 0, i32 $Cluster_arrived
  store i32 0, ptr %carr
  %kx = urem i32 %blk, %ncx
  %q = udiv i32 %blk, %ncx
  %ky = urem i32 %q, %ncy
  %kz = udiv i32 %blk, %ncxy
  %ox = mul i32 %kx, %cx
  %oy = mul i32 %ky, %cy
  %oz = mul i32 %kz, %cz
  store i32 0, ptr %t.a
  br label %threads
threads:
  %t = load i32, ptr %t.a
  %tmore = icmp slt i32 %t, %n
  br i1 %tmore, label %thread, label %run
thread:
  %r = udiv i32 %t, %bn
  %rx = urem i32 %r, %cx
  %rq = udiv i32 %r, %cx
  %ry = urem i32 %rq, %cy
  %rz = udiv i32 %r, %cxy
  %bx = add i32 %ox, %rx
  %by = add i32 %oy, %ry
  %bz = add i32 %oz, %rz
  %cp = getelementptr inbounds %Fiber, ptr %fibers, i32 %t, i32 $Fiber_ctx
  %ctx = load ptr, ptr %cp
  %p0 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_x
  store i32 %bx, ptr %p0
  %p1 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_y
  store i32 %by, ptr %p1
  %p2 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_z
  store i32 %bz, ptr %p2
  %p3 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_x
  store i32 %gx, ptr %p3
  %p4 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_y
  store i32 %gy, ptr %p4
  %p5 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_z
  store i32 %gz, ptr %p5
  %soff = mul i32 %r, %stride
  %smr = getelementptr inbounds i8, ptr %smem, i32 %soff
  %dsr = getelementptr inbounds i8, ptr %dsmem, i32 %soff
  %p6 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  store ptr %smr, ptr %p6
  %p7 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_dynamic_smem
  store ptr %dsr, ptr %p7
  %q0 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_x
  store i32 %cx, ptr %q0
  %q1 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_y
  store i32 %cy, ptr %q1
  %q2 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_z
  store i32 %cz, ptr %q2
  %q3 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  store ptr %cluster, ptr %q3
  %q4 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_phase
  store i32 -1, ptr %q4
  %wp = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_id
  %w = load i32, ptr %wp
  %rw = mul i32 %r, %nwarps
  %wg = add i32 %rw, %w
  %woff = mul i32 %wg, $WARP_SCRATCH_BYTES
  %wptr = getelementptr inbounds i8, ptr %wscr, i32 %woff
  %p8 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_scratch
  store ptr %wptr, ptr %p8
  call void @__lc_set_state(ptr %fibers, i32 %t, i32 $RUNNABLE)
  %t1 = add i32 %t, 1
  store i32 %t1, ptr %t.a
  br label %threads
run:
  %rc = call i32 @__layoutc_run_block(ptr %s)
  %bad = icmp ne i32 %rc, 0
  br i1 %bad, label %failed, label %next
next:
  %blk1 = add i32 %blk, 1
  store i32 %blk1, ptr %blk.a
  br label %blocks
failed:
  %ebp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_error_block
  store i32 %blk, ptr %ebp
  ret i32 %rc
finished:
  ret i32 0
}
; @@section bf16_libcalls
;; Rounding to bf16 on x86 without AVX512-BF16 (f32 -> bf16) and always from f64: LLVM emits
;; calls to these compiler-rt functions, which libgcc does not provide; an unresolved one would
;; be a call to address 0. Round to nearest even, NaN stays a (quiet) NaN, as PTX's cvt.rn.bf16.
;; f64 first rounds to f32 *to odd* (truncate, then set the last bit if inexact), which makes the
;; second rounding exact (f32 keeps 16 more bits than bf16): the result is f64 -> bf16 rounded
;; once, overflow to infinity and subnormals included.

define bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %hi = lshr i32 %bits, 16
  %lsb = and i32 %hi, 1
  %bias = add i32 %lsb, 32767
  %sum = add i32 %bits, %bias
  %rne = lshr i32 %sum, 16
  %quiet = or i32 %hi, 64
  %nan = fcmp uno float %x, %x
  %r32 = select i1 %nan, i32 %quiet, i32 %rne
  %r16 = trunc i32 %r32 to i16
  %r = bitcast i16 %r16 to bfloat
  ret bfloat %r
}

declare double @llvm.fabs.f64(double)
; @@section f64_through_odd_f32
;; $TY @$NAME(double): round to f32 *to odd* (truncate; set the last bit if inexact), then
;; call the f32 rounding $FROM_F32, which is then exact: the double is rounded once.

define $TY @$NAME(double %x) {
  %f = fptrunc double %x to float
  %back = fpext float %f to double
  %fbits = bitcast float %f to i32
  %exact = fcmp ueq double %back, %x
  %ax = call double @llvm.fabs.f64(double %x)
  %aback = call double @llvm.fabs.f64(double %back)
  %away = fcmp ogt double %aback, %ax
  %dec = sub i32 %fbits, 1
  %toward0 = select i1 %away, i32 %dec, i32 %fbits
  %odd = or i32 %toward0, 1
  %obits = select i1 %exact, i32 %fbits, i32 %odd
  %o = bitcast i32 %obits to float
  %r = call $TY @$FROM_F32(float %o)
  ret $TY %r
}
; @@section f16_libcalls
;; The f16 conversions x86 has no instruction for (f64 -> f16 always; f32 <-> f16 without F16C).
;; libgcc_s has them only from GCC 12 on, so the runtime supplies its own: round to nearest
;; even, subnormals exact, overflow to infinity, NaN stays a quiet NaN; f64 again rounds to odd
;; f32 first (f32 keeps 13 more bits than f16), so it is rounded once.

define half @__truncsfhf2(float %x) {
entry:
  %bits = bitcast float %x to i32
  %hi = lshr i32 %bits, 16
  %sign = and i32 %hi, 32768
  %abs = and i32 %bits, 2147483647
  %isnan = icmp ugt i32 %abs, 2139095040
  br i1 %isnan, label %nan, label %notnan
nan:
  %payload = lshr i32 %abs, 13
  %pl = and i32 %payload, 1023
  %qn = or i32 %pl, 32256
  br label %done
notnan:
  %isinf = icmp uge i32 %abs, 1199566848
  br i1 %isinf, label %inf, label %finite
inf:
  br label %done
finite:
  %isnormal = icmp uge i32 %abs, 947912704
  br i1 %isnormal, label %normal, label %sub
normal:
  %keep = lshr i32 %abs, 13
  %lsb = and i32 %keep, 1
  %bias = add i32 %lsb, 4095
  %rounded = add i32 %abs, %bias
  %rebiased = sub i32 %rounded, 939524096
  %n = lshr i32 %rebiased, 13
  br label %done
sub:
  %absf = bitcast i32 %abs to float
  %shifted = fadd float %absf, 5.000000e-01
  %sbits = bitcast float %shifted to i32
  %s = sub i32 %sbits, 1056964608
  br label %done
done:
  %mag = phi i32 [ %qn, %nan ], [ 31744, %inf ], [ %n, %normal ], [ %s, %sub ]
  %r32 = or i32 %mag, %sign
  %r16 = trunc i32 %r32 to i16
  %r = bitcast i16 %r16 to half
  ret half %r
}

define float @__extendhfsf2(half %h) {
entry:
  %h16 = bitcast half %h to i16
  %hb = zext i16 %h16 to i32
  %sgn = and i32 %hb, 32768
  %sign = shl i32 %sgn, 16
  %e0 = lshr i32 %hb, 10
  %e = and i32 %e0, 31
  %m = and i32 %hb, 1023
  %mant = shl i32 %m, 13
  %isspecial = icmp eq i32 %e, 31
  br i1 %isspecial, label %special, label %notspecial
special:
  %sp = or i32 %mant, 2139095040
  br label %done
notspecial:
  %iszero = icmp eq i32 %e, 0
  br i1 %iszero, label %sub, label %normal
sub:
  %mf = uitofp i32 %m to float
  %v = fmul float %mf, 0x3E70000000000000
  %vb = bitcast float %v to i32
  br label %done
normal:
  %e1 = add i32 %e, 112
  %eb = shl i32 %e1, 23
  %nb = or i32 %eb, %mant
  br label %done
done:
  %mag = phi i32 [ %sp, %special ], [ %vb, %sub ], [ %nb, %normal ]
  %r32 = or i32 %mag, %sign
  %r = bitcast i32 %r32 to float
  ret float %r
}

define double @__extendhfdf2(half %h) {
  %f = call float @__extendhfsf2(half %h)
  %d = fpext float %f to double
  ret double %d
}
; @@section kernel
;; Per-kernel code: unpack the parameter table and call the kernel (thread main), and the
;; fast-path grid launcher that runs every thread of blocks [begin, end) as a loop.
%Ctx = type $Ctx
%Cfg = type $Cfg
declare void @"$KERNEL"($PARAMS)

define void @"$MAIN"(ptr %params, ptr %ctx) alwaysinline {
$UNPACK
  call void @"$KERNEL"($ARGS ptr %ctx)
  ret void
}

define i32 @"$GRID"(ptr %params, ptr %cfg) {
entry:
  %ctx = alloca %Ctx, align 16
  %gxp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gx
  %gx = load i32, ptr %gxp
  %gyp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gy
  %gy = load i32, ptr %gyp
  %gzp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_gz
  %gz = load i32, ptr %gzp
  %bxp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_bx
  %bdx = load i32, ptr %bxp
  %byp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_by
  %bdy = load i32, ptr %byp
  %bzp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_bz
  %bdz = load i32, ptr %bzp
  %bbp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_begin
  %begin = load i32, ptr %bbp
  %bep = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_end
  %end = load i32, ptr %bep
  %smp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_smem
  %smem = load ptr, ptr %smp
  %dsp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_dynamic_smem
  %dsmem = load ptr, ptr %dsp
  %wsp = getelementptr inbounds %Cfg, ptr %cfg, i32 0, i32 $Cfg_warp_scratch
  %wscr = load ptr, ptr %wsp
  %bxy = mul i32 %bdx, %bdy
  %nthreads = mul i32 %bxy, %bdz
  %gxy = mul i32 %gx, %gy
  %f0 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ntid_x
  store i32 %bdx, ptr %f0
  %f1 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ntid_y
  store i32 %bdy, ptr %f1
  %f2 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ntid_z
  store i32 %bdz, ptr %f2
  %f3 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_x
  store i32 %gx, ptr %f3
  %f4 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_y
  store i32 %gy, ptr %f4
  %f5 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_nctaid_z
  store i32 %gz, ptr %f5
  %f6 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_block_threads
  store i32 %nthreads, ptr %f6
  %f7 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_smem
  store ptr %smem, ptr %f7
  %f8 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_dynamic_smem
  store ptr %dsmem, ptr %f8
  %f9 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_fiber
  store ptr null, ptr %f9
  %f10 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_scheduler
  store ptr null, ptr %f10
  %f11 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_rank
  store i32 0, ptr %f11
  %f12 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_x
  store i32 1, ptr %f12
  %f13 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_y
  store i32 1, ptr %f13
  %f14 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster_z
  store i32 1, ptr %f14
  %f15 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_cluster
  store ptr null, ptr %f15
  br label %blocks
blocks:
  %blk = phi i32 [ %begin, %entry ], [ %blk1, %block_done ]
  %more = icmp slt i32 %blk, %end
  br i1 %more, label %block, label %finished
block:
  %bx = urem i32 %blk, %gx
  %q = udiv i32 %blk, %gx
  %by = urem i32 %q, %gy
  %bz = udiv i32 %blk, %gxy
  %c0 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_x
  store i32 %bx, ptr %c0
  %c1 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_y
  store i32 %by, ptr %c1
  %c2 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_ctaid_z
  store i32 %bz, ptr %c2
  br label %zloop
zloop:
  %tz = phi i32 [ 0, %block ], [ %tz1, %ydone ]
  %zmore = icmp slt i32 %tz, %bdz
  br i1 %zmore, label %ystart, label %block_done
ystart:
  br label %yloop
yloop:
  %ty = phi i32 [ 0, %ystart ], [ %ty1, %xdone ]
  %ymore = icmp slt i32 %ty, %bdy
  br i1 %ymore, label %xstart, label %ydone
xstart:
  %zy = mul i32 %tz, %bdy
  %zy1 = add i32 %zy, %ty
  %rowbase = mul i32 %zy1, %bdx
  br label %xloop
xloop:
  %tx = phi i32 [ 0, %xstart ], [ %tx1, %xbody ]
  %xmore = icmp slt i32 %tx, %bdx
  br i1 %xmore, label %xbody, label %xdone
xbody:
  %lin = add i32 %rowbase, %tx
  %lane = and i32 %lin, 31
  %warp = lshr i32 %lin, 5
  %t0 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_tid_x
  store i32 %tx, ptr %t0
  %t1 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_tid_y
  store i32 %ty, ptr %t1
  %t2 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_tid_z
  store i32 %tz, ptr %t2
  %t3 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_lane_id
  store i32 %lane, ptr %t3
  %t4 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_id
  store i32 %warp, ptr %t4
  %t5 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_linear_tid
  store i32 %lin, ptr %t5
  %woff = mul i32 %warp, $WARP_SCRATCH_BYTES
  %wptr = getelementptr inbounds i8, ptr %wscr, i32 %woff
  %t6 = getelementptr inbounds %Ctx, ptr %ctx, i32 0, i32 $Ctx_warp_scratch
  store ptr %wptr, ptr %t6
  call void @"$MAIN"(ptr %params, ptr %ctx)
  %tx1 = add i32 %tx, 1
  br label %xloop
xdone:
  %ty1 = add i32 %ty, 1
  br label %yloop
ydone:
  %tz1 = add i32 %tz, 1
  br label %zloop
block_done:
  %blk1 = add i32 %blk, 1
  br label %blocks
finished:
  ret i32 0
}
