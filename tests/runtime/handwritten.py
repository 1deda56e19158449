"""Kernels written by hand with ``llvmlite.ir``, in both flavours (GPU NVVM and CPU ABI).

They stand in for the IR translation in tests and benchmarks: the same builder emits either
NVVM intrinsics (GPU) or thread-context loads and runtime helper calls (CPU), so the two
runtimes are tested on the same kernel bodies.
"""

from __future__ import annotations

from layoutc.runtime.abi import KernelSpec, LaunchBounds, Param
from layoutc.runtime.cpu_context import (
    BARRIER,
    SHFL_BFLY,
    SHFL_F32,
    WARP_SYNC,
    context_pointer_type,
    load_field,
)
from llvmlite import ir

I32 = ir.IntType(32)
F32 = ir.FloatType()
VOID = ir.VoidType()


class Flavour:
    """Emits thread ids, barriers and shuffles for one flavour."""

    def __init__(self, gpu: bool) -> None:
        self.gpu = gpu

    def global_ptr(self, elem: ir.Type) -> ir.Type:
        return ir.PointerType(elem, 1) if self.gpu else elem.as_pointer()

    def function(self, module: ir.Module, name: str, params: list[ir.Type]) -> ir.Function:
        types = params + ([] if self.gpu else [context_pointer_type()])
        return ir.Function(module, ir.FunctionType(VOID, types), name)

    def begin(self, fn: ir.Function) -> ir.IRBuilder:
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.b, self.fn, self.module = b, fn, fn.module
        self.ctx = None if self.gpu else fn.args[-1]
        return b

    def sreg(self, name: str) -> ir.Value:
        """tid_x, ntid_x, ctaid_x, nctaid_x (and y, z), lane_id."""
        if not self.gpu:
            return load_field(self.b, self.ctx, name)
        reg = {"lane_id": "laneid"}.get(name) or name.replace("_", ".")
        fname = f"llvm.nvvm.read.ptx.sreg.{reg}"
        try:
            f = self.module.get_global(fname)
        except KeyError:
            f = ir.Function(self.module, ir.FunctionType(I32, []), fname)
        return self.b.call(f, [])

    def barrier(self) -> None:
        if self.gpu:
            f = self._decl("llvm.nvvm.barrier0", VOID, [])
            self.b.call(f, [])
        else:
            self.b.call(self._decl(BARRIER, VOID, [context_pointer_type()]), [self.ctx])

    def warp_sync(self, mask: int) -> None:
        if self.gpu:
            self.b.call(self._decl("llvm.nvvm.bar.warp.sync", VOID, [I32]), [I32(mask)])
        else:
            f = self._decl(WARP_SYNC, VOID, [context_pointer_type(), I32])
            self.b.call(f, [self.ctx, I32(mask)])

    def shfl_bfly_f32(self, value: ir.Value, offset: int) -> ir.Value:
        if self.gpu:
            f = self._decl("llvm.nvvm.shfl.sync.bfly.f32", F32, [I32, F32, I32, I32])
            return self.b.call(f, [I32(-1), value, I32(offset), I32(0x1F)])
        f = self._decl(SHFL_F32, F32, [context_pointer_type(), I32, I32, F32, I32, I32])
        return self.b.call(f, [self.ctx, I32(SHFL_BFLY), I32(-1), value, I32(offset), I32(0x1F)])

    def shared_f32(self) -> ir.Value:
        """Base of the block's dynamic shared memory as a float pointer (generic on the CPU)."""
        if not self.gpu:
            raw = load_field(self.b, self.ctx, "dynamic_smem")
            return self.b.bitcast(raw, F32.as_pointer())
        try:
            g = self.module.get_global("smem")
        except KeyError:
            g = ir.GlobalVariable(self.module, ir.ArrayType(F32, 0), "smem", addrspace=3)
            g.linkage = "external"
            g.align = 16
        return self.b.gep(g, [I32(0), I32(0)])

    def _decl(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        try:
            return self.module.get_global(name)
        except KeyError:
            return ir.Function(self.module, ir.FunctionType(ret, args), name)

    def global_id_x(self) -> ir.Value:
        b = self.b
        return b.add(b.mul(self.sreg("ctaid_x"), self.sreg("ntid_x")), self.sreg("tid_x"))

    def grid_size_x(self) -> ir.Value:
        return self.b.mul(self.sreg("nctaid_x"), self.sreg("ntid_x"))


def _grid_stride_loop(fl: Flavour, n: ir.Value, body) -> None:
    """for (i = global_id; i < n; i += grid_size) body(i)"""
    b = fl.b
    start = fl.global_id_x()
    step = fl.grid_size_x()
    head = fl.fn.append_basic_block("head")
    loop = fl.fn.append_basic_block("loop")
    done = fl.fn.append_basic_block("done")
    entry = b.block
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I32, "i")
    i.add_incoming(start, entry)
    b.cbranch(b.icmp_signed("<", i, n), loop, done)
    b.position_at_end(loop)
    body(i)
    i.add_incoming(b.add(i, step), b.block)
    b.branch(head)
    b.position_at_end(done)


def copy_kernel(gpu: bool, module: ir.Module | None = None) -> tuple[ir.Module, KernelSpec]:
    """copy(src: f32*, dst: f32*, n: i32): grid-stride elementwise copy."""
    m = module or ir.Module("copy")
    fl = Flavour(gpu)
    p = fl.global_ptr(F32)
    fn = fl.function(m, "copy", [p, p, I32])
    b = fl.begin(fn)
    src, dst, n = fn.args[:3]
    _grid_stride_loop(fl, n, lambda i: b.store(b.load(b.gep(src, [i])), b.gep(dst, [i])))
    b.ret_void()
    spec = KernelSpec(
        "copy",
        (
            Param("src", "pointer", "f32"),
            Param("dst", "pointer", "f32"),
            Param("n", "scalar", "i32"),
        ),
    )
    return m, spec


def scale2d_kernel(gpu: bool) -> tuple[ir.Module, KernelSpec]:
    """scale2d(x: tensor (?,?):(?,1) of f32, alpha: f32): x *= alpha, row stride dynamic."""
    m = ir.Module("scale2d")
    fl = Flavour(gpu)
    fn = fl.function(m, "scale2d", [fl.global_ptr(F32), I32, I32, I32, F32])
    b = fl.begin(fn)
    x, rows, cols, ld, alpha = fn.args[:5]
    total = b.mul(rows, cols)

    def body(idx):
        r = b.sdiv(idx, cols)
        c = b.srem(idx, cols)
        ptr = b.gep(x, [b.add(b.mul(r, ld), c)])
        b.store(b.fmul(b.load(ptr), alpha), ptr)

    _grid_stride_loop(fl, total, body)
    b.ret_void()
    spec = KernelSpec(
        "scale2d",
        (
            Param("x", "pointer", "f32", "(?,?):(?,1)", ("x_rows", "x_cols", "x_ld")),
            Param("x_rows", "scalar", "i32"),
            Param("x_cols", "scalar", "i32"),
            Param("x_ld", "scalar", "i32"),
            Param("alpha", "scalar", "f32"),
        ),
    )
    return m, spec


def block_reverse_kernel(gpu: bool, with_barrier: bool = True) -> tuple[ir.Module, KernelSpec]:
    """Each block reverses its slice through shared memory; correct only with the barrier."""
    m = ir.Module("block_reverse")
    fl = Flavour(gpu)
    p = fl.global_ptr(F32)
    fn = fl.function(m, "block_reverse", [p, p])
    b = fl.begin(fn)
    src, dst = fn.args[:2]
    tid = fl.sreg("tid_x")
    bd = fl.sreg("ntid_x")
    base = b.mul(fl.sreg("ctaid_x"), bd)
    smem = fl.shared_f32()
    b.store(b.load(b.gep(src, [b.add(base, tid)])), b.gep(smem, [tid]))
    if with_barrier:
        fl.barrier()
    mirrored = b.sub(b.sub(bd, I32(1)), tid)
    b.store(b.load(b.gep(smem, [mirrored])), b.gep(dst, [b.add(base, tid)]))
    b.ret_void()
    spec = KernelSpec(
        "block_reverse", (Param("src", "pointer", "f32"), Param("dst", "pointer", "f32"))
    )
    return m, spec


def warp_sum_kernel(gpu: bool) -> tuple[ir.Module, KernelSpec]:
    """Each warp sums its 32 values with an xor-butterfly of shuffles; lane 0 writes it."""
    m = ir.Module("warp_sum")
    fl = Flavour(gpu)
    p = fl.global_ptr(F32)
    fn = fl.function(m, "warp_sum", [p, p])
    b = fl.begin(fn)
    src, dst = fn.args[:2]
    gid = fl.global_id_x()
    v = b.load(b.gep(src, [gid]))
    for offset in (16, 8, 4, 2, 1):
        v = b.fadd(v, fl.shfl_bfly_f32(v, offset))
    lane = b.and_(gid, I32(31))
    with b.if_then(b.icmp_signed("==", lane, I32(0))):
        b.store(v, b.gep(dst, [b.lshr(gid, I32(5))]))
    b.ret_void()
    spec = KernelSpec("warp_sum", (Param("src", "pointer", "f32"), Param("dst", "pointer", "f32")))
    return m, spec


def ids_kernel(gpu: bool) -> tuple[ir.Module, KernelSpec]:
    """Every thread writes (tid x,y,z, ctaid x,y,z) at its global linear position."""
    m = ir.Module("ids")
    fl = Flavour(gpu)
    fn = fl.function(m, "ids", [fl.global_ptr(I32)])
    b = fl.begin(fn)
    out = fn.args[0]
    s = {
        n: fl.sreg(n) for a in "xyz" for n in (f"tid_{a}", f"ntid_{a}", f"ctaid_{a}", f"nctaid_{a}")
    }
    block_lin = b.add(
        b.mul(b.add(b.mul(s["ctaid_z"], s["nctaid_y"]), s["ctaid_y"]), s["nctaid_x"]), s["ctaid_x"]
    )
    per_block = b.mul(b.mul(s["ntid_x"], s["ntid_y"]), s["ntid_z"])
    t_lin = b.add(b.mul(b.add(b.mul(s["tid_z"], s["ntid_y"]), s["tid_y"]), s["ntid_x"]), s["tid_x"])
    lin = b.add(b.mul(block_lin, per_block), t_lin)
    for k, name in enumerate(("tid_x", "tid_y", "tid_z", "ctaid_x", "ctaid_y", "ctaid_z")):
        b.store(s[name], b.gep(out, [b.add(b.mul(lin, I32(6)), I32(k))]))
    b.ret_void()
    return m, KernelSpec("ids", (Param("out", "pointer", "i32"),))


def early_exit_barrier_kernel() -> tuple[ir.Module, KernelSpec]:
    """CPU only: threads with tid < 16 return before a barrier the others wait at."""
    m = ir.Module("early_exit")
    fl = Flavour(False)
    fn = fl.function(m, "early_exit", [F32.as_pointer()])
    b = fl.begin(fn)
    tid = fl.sreg("tid_x")
    with b.if_then(b.icmp_signed("<", tid, I32(16))):
        b.ret_void()
    fl.barrier()
    b.store(F32(1.0), b.gep(fn.args[0], [tid]))
    b.ret_void()
    return m, KernelSpec("early_exit", (Param("out", "pointer", "f32"),))


def split_sync_kernel() -> tuple[ir.Module, KernelSpec]:
    """CPU only: lane 0 waits at a block barrier while lanes 1..31 wait at a full-warp sync."""
    m = ir.Module("split_sync")
    fl = Flavour(False)
    fn = fl.function(m, "split_sync", [F32.as_pointer()])
    b = fl.begin(fn)
    tid = fl.sreg("tid_x")
    with b.if_else(b.icmp_signed("==", tid, I32(0))) as (then, otherwise):
        with then:
            fl.barrier()
        with otherwise:
            fl.warp_sync(-1)
    b.ret_void()
    return m, KernelSpec("split_sync", (Param("out", "pointer", "f32"),))


def gpu_module(
    kernel: tuple[ir.Module, KernelSpec], arch: str = "sm_90", bounds: LaunchBounds | None = None
):
    """Finish a GPU-flavour kernel as NVVM IR for ``arch``."""
    from layoutc.codegen.nvvm_module import prepare_nvvm_module
    from layoutc.codegen.target import Target

    module, spec = kernel
    prepare_nvvm_module(
        module, [spec.name], Target.parse(arch), {spec.name: bounds} if bounds else None
    )
    return module, spec
