"""codegen/llvm_builder.py against llvmlite.ir's own builder: the same calls on the same kind of
module print the same text, byte for byte, and the same mistakes raise the same exceptions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from layoutc.codegen import llvm_builder
from llvmlite import ir
from test_translate_atomics import HISTOGRAM

I1, I8, I16, I32, I64 = (ir.IntType(w) for w in (1, 8, 16, 32, 64))
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()
V4F = ir.VectorType(F32, 4)
V2I = ir.VectorType(I32, 2)
S = ir.LiteralStructType([I32, ir.ArrayType(F32, 3), V4F])
PACKED = ir.LiteralStructType([I8, I32], packed=True)
ARR = ir.ArrayType(ir.ArrayType(I16, 4), 2)

Emit = Callable[[Any, ir.Function, ir.Module], None]


def _both(emit: Emit, params: list[ir.Type] | None = None) -> tuple[str, str]:
    """The text of one module whose function body ``emit`` builds with llvmlite's builder, and
    of one built with ours (``emit`` gets the builder, the function and the module)."""
    texts = []
    for builder in (ir.IRBuilder, llvm_builder.IRBuilder):
        m = ir.Module("m")
        fn = ir.Function(m, ir.FunctionType(ir.VoidType(), params or [I32, I32]), "f")
        emit(builder(fn.append_basic_block("entry")), fn, m)
        texts.append(str(m))
    assert llvm_builder.module_text(m) == texts[1]  # the fast printer, on our module
    return texts[0], texts[1]


def _same(emit: Emit, params: list[ir.Type] | None = None) -> str:
    theirs, ours = _both(emit, params)
    assert ours == theirs
    return ours


def test_binary_ops_flags_and_unnamed_values_numbered_as_llvmlite_does():
    def emit(b, fn, m):
        x, y = fn.args
        v = b.add(x, y)
        for name in ("shl", "lshr", "ashr", "add", "sub", "mul", "udiv", "sdiv", "urem"):
            v = getattr(b, name)(v, y, name="")
        v = b.srem(v, y, name="r")
        v = b.and_(v, b.or_(v, b.xor(v, y)))
        v = b.add(v, y, name="s", flags=("nsw", "nuw"))
        v = b.udiv(v, y, name="s", flags=("exact",))  # a taken name: s.1
        v = b.not_(v)
        b.neg(v, name="neg")
        b.ret_void()

    text = _same(emit)
    assert '%"s.1" = udiv exact i32 %"s", %".2"' in text
    assert 'xor i32 %"' in text and ", -1" in text


def test_float_ops_fast_math_and_float_constants():
    def emit(b, fn, m):
        x = ir.Constant(F32, 0.1)
        h = ir.Constant(F16, 1.5)
        d = ir.Constant(F64, -2.5e-300)
        v = b.fadd(x, ir.Constant(F32, float("inf")), name="a", flags=("fast",))
        v = b.fmul(v, x, flags=("nnan", "ninf", "nsz"))
        v = b.fsub(v, x)
        v = b.fdiv(v, x, flags=("arcp", "contract"))
        b.frem(v, x)
        b.fneg(v, flags=("fast",))
        b.fadd(h, h)
        b.fmul(d, d, name="dd")
        b.ret_void()

    _same(emit)


def test_comparisons_and_select():
    def emit(b, fn, m):
        x, y = fn.args
        for op in ("==", "!=", "<", "<=", ">", ">="):
            b.icmp_signed(op, x, y)
            b.icmp_unsigned(op, x, y, name="u")
        f = ir.Constant(F64, 1.0)
        for op in ("==", "!=", "<", "<=", ">", ">=", "ord", "uno"):
            b.fcmp_ordered(op, f, f, flags=("nnan",))
            b.fcmp_unordered(op, f, f, name="c")
        c = b.icmp_signed("<", x, y)
        b.select(c, x, y, name="sel")
        b.select(c, f, f, flags=("fast",))
        vc = b.icmp_unsigned("==", ir.Constant(V2I, [1, 2]), ir.Constant(V2I, [3, 4]))
        b.select(vc, ir.Constant(V2I, [1, 2]), ir.Constant(V2I, [5, 6]))
        b.ret_void()

    _same(emit)


def test_casts_return_the_value_itself_for_the_same_type():
    def emit(b, fn, m):
        x, _ = fn.args
        assert b.zext(x, I32) is x
        w = b.zext(x, I64, name="w")
        b.sext(x, I64)
        b.trunc(w, I16)
        f = b.sitofp(x, F32)
        b.uitofp(x, F64)
        b.fptosi(f, I32)
        b.fptoui(f, I8)
        d = b.fpext(f, F64)
        b.fptrunc(d, F16)
        p = b.inttoptr(w, ir.PointerType(I8, 1))
        b.ptrtoint(p, I64)
        g = b.addrspacecast(p, ir.PointerType(I8))
        b.bitcast(g, ir.PointerType(S))
        b.bitcast(ir.Constant(V2I, [1, 2]), I64)
        b.ret_void()

    _same(emit)


def test_memory_gep_alloca_load_store_and_metadata():
    def emit(b, fn, m):
        x, y = fn.args
        a = b.alloca(S, name="a")
        a.align = 16
        b.alloca(F32, size=4)
        b.alloca(I8, size=b.add(x, y), name="dyn")
        i = ir.Constant(I32, 0)
        p = b.gep(a, [i, ir.Constant(I32, 1), x], inbounds=True, name="p")
        q = b.gep(b.bitcast(a, ir.PointerType(ARR)), [i, y, x])
        r = b.gep(b.bitcast(a, ir.PointerType(PACKED, 0)), [x])
        v = b.load(p, name="v", align=4)
        v.set_metadata("nontemporal", m.add_metadata([ir.Constant(I32, 1)]))
        b.load(q)
        b.load(r, typ=PACKED)
        st = b.store(v, p, align=8)
        st.set_metadata("invariant.group", m.add_metadata([]))
        b.store(b.load(a), a)
        c = b.bitcast(p, ir.PointerType(I32))
        c.set_metadata("tag", m.add_metadata(["text", ir.Constant(I64, 7)]))  # "to T , !tag"
        g = b.gep(p, [x])
        g.set_metadata("tag", m.add_metadata(["text"]))
        b.ret_void()

    text = _same(emit)
    assert "to i32* , !tag !" in text  # llvmlite's spacing, kept


def test_aggregates_and_vectors():
    def emit(b, fn, m):
        x, y = fn.args
        s = ir.Constant(S, ir.Undefined)
        s = b.insert_value(s, x, 0)
        s = b.insert_value(s, ir.Constant(F32, 2.0), [1, 2], name="s")
        e = b.extract_value(s, [1, 2])
        vec = b.extract_value(s, 2, name="vec")
        vec = b.insert_element(vec, e, y, name="ins")
        b.extract_element(vec, ir.Constant(I64, 3))
        b.insert_value(ir.Constant(PACKED, None), ir.Constant(I8, 255), 0)
        b.not_(ir.Constant(V2I, [1, 2]))
        b.ret_void()

    _same(emit)


def test_calls_inline_asm_and_intrinsics():
    def emit(b, fn, m):
        x, _ = fn.args
        callee = ir.Function(m, ir.FunctionType(I32, [I32, F32]), "callee")
        callee.calling_convention = "fastcc"
        printf = ir.Function(m, ir.FunctionType(I32, [ir.PointerType(I8)], var_arg=True), "printf")
        meta = ir.Function(m, ir.FunctionType(ir.VoidType(), [ir.MetaDataType()]), "llvm.meta")
        fma = m.declare_intrinsic("llvm.fma", [F32])
        f = ir.Constant(F32, 1.0)
        r = b.call(callee, [x, f], name="r")
        b.call(callee, [r, f], tail=True, attrs=("nounwind", "convergent"))
        b.call(callee, [r, f], tail="musttail", cconv="ccc", arg_attrs={0: ("zeroext",)})
        b.call(fma, [f, f, f], fastmath=("contract", "afn"))
        fmt = ir.Constant(ir.PointerType(I8), None)
        b.call(printf, [fmt, x, ir.Constant(F64, 0.5)])
        b.call(meta, [x])  # wrapped as a metadata argument
        asm = ir.InlineAsm(ir.FunctionType(I32, [I32]), "mov.u32 $0, $1; // \\22q\\22", "=r,r")
        b.call(asm, [x], name="asm")
        b.asm(ir.FunctionType(ir.VoidType(), []), "bar.sync 0;", "", [], True)
        b.ret_void()

    _same(emit)


def test_control_flow_phis_fences_and_terminators():
    def emit(b, fn, m):
        x, y = fn.args
        loop = fn.append_basic_block("loop")
        body = fn.append_basic_block('a "quoted" \\ block')
        done = fn.append_basic_block("done")
        dead = fn.append_basic_block("")
        entry = b.block
        b.branch(loop)
        b.position_at_end(loop)
        i = b.phi(I32, name="i")
        empty = b.phi(F32, flags=("fast",))  # no incoming values
        c = b.icmp_unsigned("<", i, y)
        b.cbranch(c, body, done)
        b.position_at_end(body)
        nxt = b.add(i, ir.Constant(I32, 1), name="i")
        b.fence("seq_cst")
        b.fence("acquire", "block")
        b.branch(loop)
        i.add_incoming(x, entry)
        i.add_incoming(nxt, body)
        empty.add_incoming(ir.Constant(F32, 0.0), entry)
        b.position_at_end(done)
        b.ret_void()
        b.position_at_end(dead)
        b.unreachable()

    _same(emit)


def test_values_named_after_creation_and_arguments_named_late():
    def emit(b, fn, m):
        x, y = fn.args
        v = b.add(x, y)
        v.name = 'needs "quotes" \\ here'
        x.name = "x"
        w = b.mul(v, x, name="x")  # taken by the argument: x.1
        w.name = "w"
        b.ret_void()

    text = _same(emit)
    assert '%"needs \\22quotes\\22 \\5c here" = add i32' in text


def test_insertion_points():
    def emit(b, fn, m):
        x, y = fn.args
        first = b.add(x, y, name="first")
        b.ret_void()
        b.position_before(first)
        b.sub(x, y, name="before")
        b.position_after(first)
        b.mul(x, y, name="after")
        b.position_at_start(b.block)
        b.xor(x, y, name="start")

    text = _same(emit)
    assert text.index('"start"') < text.index('"before"') < text.index('"first"')
    assert text.index('"first"') < text.index('"after"') < text.index("ret void")


def test_return_values():
    def emit(b, fn, m):
        x, y = fn.args
        b.ret(b.add(x, y))

    theirs = ours = None
    for builder in (ir.IRBuilder, llvm_builder.IRBuilder):
        m = ir.Module("m")
        fn = ir.Function(m, ir.FunctionType(I32, [I32, I32]), "f")
        emit(builder(fn.append_basic_block()), fn, m)
        theirs, ours = ours, str(m)
    assert ours == theirs and 'ret i32 %".5"' in ours  # .3: the return value, .4: the block


@pytest.mark.parametrize(
    "mistake",
    [
        lambda b, x, y: b.add(x, ir.Constant(I64, 1)),
        lambda b, x, y: b.store(x, b.alloca(F32)),
        lambda b, x, y: b.load(x),
        lambda b, x, y: b.insert_value(ir.Constant(S, None), ir.Constant(F32, 1.0), 0),
        lambda b, x, y: b.extract_value(ir.Constant(S, None), 7),
        lambda b, x, y: b.call(ir.Function(b.module, ir.FunctionType(I32, [F32]), "g"), [x]),
        lambda b, x, y: b.icmp_signed("<>", x, y),
        lambda b, x, y: b.fcmp_ordered("<", x, y, flags=("bogus",)),
        lambda b, x, y: b.fence("monotonic"),
        lambda b, x, y: b.extract_element(x, y),
        lambda b, x, y: b.insert_element(ir.Constant(V2I, [1, 2]), ir.Constant(F32, 1.0), y),
        lambda b, x, y: b.call(b.function, [x, y], fastmath=("quick",)),
    ],
)
def test_the_same_mistakes_raise_the_same_exceptions(mistake):
    raised = []
    for builder in (ir.IRBuilder, llvm_builder.IRBuilder):
        m = ir.Module("m")
        fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [I32, I32]), "f")
        b = builder(fn.append_basic_block())
        with pytest.raises(Exception) as info:
            mistake(b, *fn.args)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]


def test_a_subclass_printing_through_descr_as_llvmlite_s_do():
    class Comment(llvm_builder.Instruction):
        def descr(self, buf):
            buf.append(f"; {self.opname}  \n")

    m = ir.Module("m")
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "f")
    b = llvm_builder.IRBuilder(fn.append_basic_block())
    b._insert(Comment(b.block, ir.VoidType(), "hello", []))
    b.ret_void()
    assert "\n  ; hello\n  ret void\n" in str(m)


def test_module_text_prints_whole_modules_as_llvmlite_does():
    """Globals, declarations, identified types, named and unnamed metadata, several functions,
    and blocks holding both builders' instructions."""
    context = ir.Context()
    node = context.get_identified_type("node")
    node.set_body(I32, ir.PointerType(node))
    m = ir.Module("whole", context=context)
    m.triple = "nvptx64-nvidia-cuda"
    m.data_layout = "e-i64:64"
    g = ir.GlobalVariable(m, ir.ArrayType(F32, 4), "tile", addrspace=3)
    g.linkage = "internal"
    g.initializer = ir.Constant(g.value_type, ir.Undefined)
    g.align = 16
    s = ir.GlobalVariable(m, ir.ArrayType(I8, 3), ".str")
    s.initializer = ir.Constant(s.value_type, bytearray(b"a\n\x00"))
    s.global_constant = True
    ir.GlobalVariable(m, node, "head")
    decl = ir.Function(m, ir.FunctionType(ir.VoidType(), [I32]), "llvm.nvvm.barrier0")
    fn = ir.Function(m, ir.FunctionType(I32, [I32, ir.PointerType(node)]), "k")
    fn.attributes.add("noinline")
    fn.args[1].add_attribute("noalias")
    entry = fn.append_basic_block("entry")
    ours = llvm_builder.IRBuilder(entry)
    x = ours.add(fn.args[0], fn.args[0], name="x")
    theirs = ir.IRBuilder(entry)
    y = theirs.mul(x, x, name="y")  # llvmlite's instruction between ours
    ours.call(decl, [y])
    p = ours.gep(fn.args[1], [ir.Constant(I32, 0), ir.Constant(I32, 1)], inbounds=True)
    ours.load(p)
    ours.ret(y)
    helper = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "helper")
    helper.linkage = "internal"
    llvm_builder.IRBuilder(helper.append_basic_block()).ret_void()
    m.add_named_metadata("nvvm.annotations").add(
        m.add_metadata([fn, ir.MetaDataString(m, "kernel"), ir.Constant(I32, 1)])
    )
    m.add_named_metadata("nvvmir.version", [ir.Constant(I32, 2), ir.Constant(I32, 0)])
    text = llvm_builder.module_text(m)
    assert text == str(m)
    assert '%"node" = type {i32, %"node"*}' in text and "!nvvm.annotations" in text


KERNELS = (
    HISTOGRAM
    + """
func.func @loop(%p: !llvm.ptr<1>, %n: i32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^head(%c0 : i32)
^head(%i: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v = llvm.load volatile %q {alignment = 4 : i64} : !llvm.ptr<1> -> f32
  %w = arith.addf %v, %v : f32
  llvm.store %w, %q {alignment = 4 : i64} : f32, !llvm.ptr<1>
  %j = arith.addi %i, %c1 : i32
  cf.br ^head(%j : i32)
^exit:
  return
}
func.func @atomic_access(%p: !llvm.ptr<1>) attributes {gpu.kernel} {
  %v = llvm.load %p atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  llvm.store %v, %p atomic release {alignment = 4 : i64} : i32, !llvm.ptr<1>
  return
}
"""
)


@pytest.mark.parametrize("gpu", [False, True], ids=["host", "nvvm"])
def test_translated_modules_print_as_llvmlite_prints_them(gpu):
    """The driver's text of a translation (module_text) against llvmlite's printing of the
    same module: phis, volatile loads, atomics (translate_llvm's own instruction classes); the
    host runs every scope as the system scope."""
    from layoutc.codegen.target import Target
    from layoutc.codegen.translate import translate_host, translate_nvvm
    from layoutc.ir.core import parse

    m = parse(KERNELS)
    tr = translate_nvvm(m, Target.parse("sm_80")) if gpu else translate_host(m)
    text = str(tr)
    assert text == str(tr.module)
    assert 'phi  i32 [0, %"entry"]' in text and "load volatile float, float" in text
    assert "atomicrmw add i32" in text
    # the host's functions take the thread context too: the cast is one number later
    space, scope, ptr = (
        (" addrspace(1)", ' syncscope("device")', '".3"') if gpu else ("", "", '".4"')
    )
    assert f"load atomic i32, i32{space}* %{ptr}{scope} acquire, align 4" in text
    assert f'store atomic i32 %"v", i32{space}* %{ptr} release, align 4' in text
