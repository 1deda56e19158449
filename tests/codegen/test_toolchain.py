"""The GPU toolchain on a machine without a GPU: targets, NVVM finishing, both PTX back ends,
cubin through nvJitLink, and the decision of what a driver gets."""

from __future__ import annotations

import re

import pytest
from layoutc.codegen import ptx as ptxmod
from layoutc.codegen.cubin import nvjitlink_version, ptx_to_cubin
from layoutc.codegen.errors import ToolchainError
from layoutc.codegen.nvvm_module import NVPTX_TRIPLE, prepare_nvvm_module
from layoutc.codegen.ptx import LIBNVVM, LLVM, compile_ptx_libnvvm, compile_ptx_llvm
from layoutc.codegen.target import Target, TargetError
from layoutc.codegen.toolchain import ToolchainOptions, choose_backend, choose_payload, compile_gpu
from layoutc.runtime.abi import LaunchBounds
from layoutc.runtime.compat import ptx_isa_of, ptx_target_of
from llvmlite import ir

needs_libnvvm = pytest.mark.skipif(not ptxmod.libnvvm_available(), reason="libNVVM not installed")
needs_nvjitlink = pytest.mark.skipif(nvjitlink_version() is None, reason="nvJitLink not installed")

ARCHS = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"]


def vector_copy_module(arch: str, bounds: LaunchBounds | None = None) -> ir.Module:
    """dst[tid] = src[tid] with 128-bit vector accesses, finished as NVVM IR."""
    m = ir.Module("vcopy")
    v4 = ir.VectorType(ir.FloatType(), 4)
    p = ir.PointerType(v4, 1)
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [p, p]), "vcopy")
    b = ir.IRBuilder(fn.append_basic_block())
    tid_fn = ir.Function(m, ir.FunctionType(ir.IntType(32), []), "llvm.nvvm.read.ptx.sreg.tid.x")
    tid = b.call(tid_fn, [])
    value = b.load(b.gep(fn.args[0], [tid]), align=16)
    b.store(value, b.gep(fn.args[1], [tid]), align=16)
    b.ret_void()
    prepare_nvvm_module(m, ["vcopy"], Target.parse(arch), {"vcopy": bounds} if bounds else None)
    return m


# -- targets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arch", "isa", "cap", "specific"),
    [
        ("sm_80", (7, 0), (8, 0), False),
        ("sm_86", (7, 1), (8, 6), False),
        ("sm_89", (7, 8), (8, 9), False),
        ("sm_90", (8, 0), (9, 0), False),
        ("sm_90a", (8, 0), (9, 0), True),
    ],
)
def test_target_defaults_to_lowest_isa_of_arch(arch, isa, cap, specific):
    t = Target.parse(arch)
    assert (t.ptx_isa, t.capability, t.arch_specific) == (isa, cap, specific)
    assert t.compute_name == "compute_" + arch[3:]
    assert t.llvm_features == f"+ptx{isa[0]}{isa[1]}"


def test_target_errors_are_clear():
    with pytest.raises(TargetError, match=r"not supported.*sm_70"):
        Target.parse("sm_70")
    with pytest.raises(TargetError, match="not a GPU architecture"):
        Target.parse("hopper")
    with pytest.raises(TargetError, match=r"PTX ISA 7.0 cannot target sm_90a \(needs 8.0"):
        Target.parse("sm_90a", "7.0")
    with pytest.raises(TargetError, match=r"cannot emit PTX ISA 9.5"):
        _ = Target.parse("sm_90", "9.5").llvm_features
    assert Target.parse("compute_90a") == Target.parse("sm_90a")
    assert Target.from_capability(8, 6).arch == "sm_86"
    with pytest.raises(TargetError, match=r"compute capability 7.5"):
        Target.from_capability(7, 5)


# -- NVVM module finishing -------------------------------------------------------------------


def test_prepare_nvvm_module_marks_kernels_and_bounds():
    text = str(vector_copy_module("sm_90", LaunchBounds(max_threads=256, min_blocks=2)))
    assert f'target triple = "{NVPTX_TRIPLE}"' in text
    assert re.search(r'!"kernel", i32 1', text)
    assert re.search(r'!"maxntidx", i32 256', text)
    assert re.search(r'!"minctasm", i32 2', text)
    assert "!nvvmir.version" in text


def test_prepare_nvvm_module_rejects_non_kernels():
    m = ir.Module()
    fn = ir.Function(m, ir.FunctionType(ir.IntType(32), []), "f")
    ir.IRBuilder(fn.append_basic_block()).ret(ir.IntType(32)(0))
    with pytest.raises(ValueError, match="must return void"):
        prepare_nvvm_module(m, ["f"], Target.parse("sm_90"))
    with pytest.raises(ValueError, match="no function 'g'"):
        prepare_nvvm_module(m, ["g"], Target.parse("sm_90"))


# -- both PTX back ends, every PTX assembled by nvJitLink -------------------------------------


@needs_libnvvm
@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_libnvvm_ptx_assembles(arch):
    out = compile_ptx_libnvvm(str(vector_copy_module(arch)), Target.parse(arch))
    assert out.backend == LIBNVVM
    assert ptx_target_of(out.ptx) == arch
    assert re.search(r"ld\.global\.v4\.[fb]32", out.ptx)
    assert re.search(r"st\.global\.v4\.[fb]32", out.ptx)
    cubin = ptx_to_cubin(out.ptx, arch).cubin
    assert cubin[:4] == b"\x7fELF"


@needs_nvjitlink
@pytest.mark.parametrize("arch", ARCHS)
def test_llvm_ptx_assembles_at_requested_isa(arch):
    target = Target.parse(arch)
    out = compile_ptx_llvm(str(vector_copy_module(arch)), target)
    assert out.backend == LLVM
    assert out.isa == target.ptx_isa == ptx_isa_of(out.ptx)
    assert ptx_target_of(out.ptx) == arch
    # 128-bit accesses; LLVM 22 types a pure copy's registers as .b32
    assert re.search(r"ld\.global\.v4\.[fb]32", out.ptx)
    assert ptx_to_cubin(out.ptx, arch).cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("backend", [LLVM, pytest.param(LIBNVVM, marks=needs_libnvvm)])
def test_launch_bounds_reach_ptx(backend):
    text = str(vector_copy_module("sm_90", LaunchBounds(max_threads=128, min_blocks=3)))
    run = compile_ptx_llvm if backend == LLVM else compile_ptx_libnvvm
    ptx = run(text, Target.parse("sm_90")).ptx
    assert re.search(r"\.maxntid\s+128", ptx)
    assert re.search(r"\.minnctapersm\s+3", ptx)


def test_required_block_reaches_ptx():
    text = str(vector_copy_module("sm_80", LaunchBounds(block=(32, 4, 1))))
    ptx = compile_ptx_llvm(text, Target.parse("sm_80")).ptx
    assert re.search(r"\.reqntid\s+32,\s*4,\s*1", ptx)


@needs_nvjitlink
@pytest.mark.parametrize("opt_level", [0, 1, 2, 3])
def test_every_opt_level_assembles(opt_level):
    # nvJitLink refuses -O1 and -O2 (only -O0 and -O3 are its options): those reach its ptxas
    ptx = compile_ptx_llvm(str(vector_copy_module("sm_90")), Target.parse("sm_90")).ptx
    binary = compile_gpu(
        vector_copy_module("sm_90"), Target.parse("sm_90"), ToolchainOptions(opt_level=opt_level)
    )
    assert binary.cubin[:4] == b"\x7fELF"
    assert ptx_to_cubin(ptx, "sm_90", opt_level).cubin[:4] == b"\x7fELF"


@needs_nvjitlink
def test_cubin_errors_carry_the_log():
    with pytest.raises(ToolchainError, match=r"(?s)nvJitLink.*garbage"):
        ptx_to_cubin(".version 7.0\n.target sm_80\n.address_size 64\ngarbage\n", "sm_80")


def test_invalid_ir_is_a_toolchain_error():
    with pytest.raises(ToolchainError, match="invalid LLVM IR"):
        compile_ptx_llvm("define void @f( {", Target.parse("sm_90"))


@needs_libnvvm
def test_libnvvm_refuses_opaque_pointers_and_unfinished_modules():
    opaque = "define void @k(ptr addrspace(1) %p) {\n  ret void\n}\n!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0, i32 3, i32 2}\n"
    with pytest.raises(ToolchainError, match="opaque pointers"):
        compile_ptx_libnvvm(opaque, Target.parse("sm_90"))
    with pytest.raises(ToolchainError, match=r"nvvmir.version"):
        compile_ptx_libnvvm("define void @k() {\n  ret void\n}\n", Target.parse("sm_90"))
    with pytest.raises(ToolchainError, match="libNVVM"):
        compile_ptx_libnvvm(
            str(vector_copy_module("sm_90")).replace("ret void", "ret i32 0"), Target.parse("sm_90")
        )


def test_opaque_pointer_detection():
    assert ptxmod.uses_opaque_pointers("define void @k(ptr addrspace(1) %p)")
    assert not ptxmod.uses_opaque_pointers("define void @k(float addrspace(1)* %ptr, i8* %ptr.1)")


# -- decisions ---------------------------------------------------------------------------------


def test_choose_backend():
    assert choose_backend("auto", True, False) == (LIBNVVM, None)
    assert choose_backend("auto", False, False)[0] == LLVM
    assert choose_backend("auto", True, True)[0] == LLVM
    assert choose_backend("llvm", True, False) == (LLVM, None)
    with pytest.raises(ToolchainError, match="not installed"):
        choose_backend("libnvvm", False, False)


def _payload(**kw):
    base = dict(
        have_cubin=False,
        ptx_isa=(9, 5),
        ptx_backend=LIBNVVM,
        backend_fixed=False,
        target_isa=(7, 8),
        driver_max_isa=(9, 0),
    )
    base.update(kw)
    return choose_payload(**base)


def test_payload_prefers_cubin_whatever_the_isa():
    assert _payload(have_cubin=True).kind == "cubin"
    assert _payload(have_cubin=True, driver_max_isa=(7, 0)).kind == "cubin"


def test_payload_is_ptx_when_accepted_or_unknown():
    assert _payload(ptx_isa=(9, 0)).kind == "ptx"
    assert _payload(driver_max_isa=None).kind == "ptx"


def test_payload_asks_older_ptx_for_too_new_libnvvm_ptx():
    p = _payload()
    assert p.kind == "older-ptx" and "9.5" in p.reason and "7.8 to 9.0" in p.reason


def test_payload_errors_name_the_versions():
    with pytest.raises(ToolchainError, match=r"accepts PTX ISA up to 9.0.*wrote 9.5"):
        _payload(backend_fixed=True)
    with pytest.raises(ToolchainError, match=r"up to 7.0, but the target needs 7.8"):
        _payload(driver_max_isa=(7, 0))
    with pytest.raises(ToolchainError, match=r"llvm back end wrote 8.0"):
        _payload(ptx_backend=LLVM, ptx_isa=(8, 0), driver_max_isa=(7, 8))


# -- the whole chain -----------------------------------------------------------------------------


@needs_nvjitlink
def test_compile_gpu_reports_choices_and_timings():
    binary = compile_gpu(vector_copy_module("sm_90"), Target.parse("sm_90"))
    assert binary.image[0] == "cubin" and binary.cubin[:4] == b"\x7fELF"
    assert binary.ptx_backend == (LIBNVVM if ptxmod.libnvvm_available() else LLVM)
    assert {"ptx", "cubin", "total"} <= set(binary.timings)
    assert all(v >= 0 for v in binary.timings.values())


@needs_libnvvm
@pytest.mark.parametrize("driver", [12000, 13000])
@pytest.mark.parametrize("checker", [True, False])
def test_compile_gpu_without_cubin_gives_the_driver_ptx_it_accepts(driver, checker, monkeypatch):
    # E.g. a CUDA 13.0 driver (PTX ISA 9.0) and libNVVM 13.5 (writes 9.5), no cubin: libNVVM's
    # PTX declared at the driver's ISA once an assembler here took it so, else LLVM's at the
    # target's ISA; PTX the driver accepts is kept as libNVVM wrote it.
    from layoutc.codegen import toolchain
    from layoutc.runtime.compat import max_ptx_isa_for_driver

    if not checker:
        monkeypatch.setattr(toolchain, "_checker", lambda *_: None)
    elif (
        toolchain._checker(
            max_ptx_isa_for_driver(driver), Target.parse("sm_90"), ToolchainOptions()
        )
        is None
    ):
        pytest.skip("no ptxas or nvJitLink here to check older PTX")
    module = vector_copy_module("sm_90")
    nvvm = compile_ptx_libnvvm(str(module), Target.parse("sm_90"))
    binary = compile_gpu(
        module, Target.parse("sm_90"), ToolchainOptions(cubin="never", driver_version=driver)
    )
    limit = max_ptx_isa_for_driver(driver)
    assert binary.cubin is None and binary.image[0] == "ptx"
    assert binary.ptx_isa <= limit and ptx_isa_of(binary.ptx) == binary.ptx_isa
    if nvvm.isa <= limit:
        assert binary.ptx_backend == LIBNVVM and binary.ptx == nvvm.ptx
    elif checker:
        assert binary.ptx_backend == LIBNVVM and binary.ptx_isa == limit
        assert binary.ptx.replace(f".version {limit[0]}.{limit[1]}", "") == nvvm.ptx.replace(
            f".version {nvvm.isa[0]}.{nvvm.isa[1]}", ""
        )
        assert any("declared at ISA" in n for n in binary.notes), binary.notes
        assert "check" in binary.timings
    else:
        assert binary.ptx_backend == LLVM and binary.ptx_isa == (8, 0)
        assert any("re-emitted by LLVM" in n for n in binary.notes), binary.notes


def test_libnvvm_ptx_declared_older_is_kept_only_if_the_assembler_takes_it():
    """``_at_isa`` with PTX of ISA 9.5 for a consumer taking 9.0: the assembler's verdict on
    the PTX declared at 9.0 decides between libNVVM's code and LLVM's re-emission, and a
    pinned back end is never swapped."""
    from layoutc.codegen import toolchain
    from layoutc.codegen.cubin import CubinResult
    from layoutc.codegen.ptx import PtxResult

    target = Target.parse("sm_90a")
    wrote = PtxResult(".version 9.5\n.target sm_90a\n// body\n", LIBNVVM, (9, 5), "", 0.0)
    llvm = PtxResult(".version 8.0\n.target sm_90a\n// llvm\n", LLVM, (8, 0), "", 0.0)

    def run(refuse: bool, opts: ToolchainOptions | None = None):
        def assemble(ptx: str) -> CubinResult:
            if refuse and ".version 9.0" in ptx:
                raise ToolchainError("ptxas", "Feature 'x' requires PTX ISA .version 9.2 or later")
            return CubinResult(b"cubin:" + ptx.encode(), "sm_90a", "", 0.0)

        notes: list[str] = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(toolchain, "_run_backend", lambda backend, *_: llvm)
            done = toolchain._at_isa(
                wrote,
                (9, 0),
                "ptxas",
                assemble,
                "ir",
                target,
                opts or ToolchainOptions(),
                notes,
                {},
            )
        return done, notes

    (ptx, cubin), notes = run(refuse=False)
    assert ptx.backend == LIBNVVM and ptx.isa == (9, 0)
    assert ptx.ptx == ".version 9.0\n.target sm_90a\n// body\n" and cubin.cubin.endswith(b"body\n")
    assert "declared at ISA 9.0" in notes[0]
    (ptx, cubin), notes = run(refuse=True)
    assert ptx is llvm and cubin.cubin == b"cubin:" + llvm.ptx.encode()
    assert "refused" in notes[0] and "requires PTX ISA" in notes[0] and "LLVM" in notes[1]
    pinned = ToolchainOptions(ptx_backend=LIBNVVM)
    assert run(refuse=False, opts=pinned) == (None, [])
    too_old = toolchain._at_isa(
        wrote, (7, 8), "ptxas", None, "", target, ToolchainOptions(), [], {}
    )
    assert too_old is None  # sm_90a needs 8.0


def test_compile_gpu_refuses_what_no_driver_path_can_run():
    with pytest.raises(ToolchainError, match=r"target needs 8.0"):
        compile_gpu(
            vector_copy_module("sm_90a"),
            Target.parse("sm_90a"),
            ToolchainOptions(ptx_backend="auto", cubin="never", driver_version=11080),
        )


def test_compile_gpu_llvm_only_path_needs_no_cuda_library():
    binary = compile_gpu(
        vector_copy_module("sm_86"),
        Target.parse("sm_86"),
        ToolchainOptions(ptx_backend="llvm", cubin="never", driver_version=12020),
    )
    assert binary.image == ("ptx", binary.ptx.encode())
    assert binary.ptx_isa == (7, 1)
