"""What the translation refuses, and how: a diagnostic at the offending op, never a traceback
from llvmlite or a silently wrong module."""

from __future__ import annotations

import pytest
from layoutc.codegen.target import Target
from layoutc.codegen.translate import TranslationError, translate_host, translate_nvvm
from layoutc.ir.core import parse


def _error(text: str, host: bool = True) -> str:
    m = parse(text, buffer_name="kernel.mlir")
    with pytest.raises(TranslationError) as info:
        if host:
            translate_host(m)
        else:
            translate_nvvm(m, Target.parse("sm_80"))
    return str(info.value.diagnostics[0].format())


def test_structured_control_flow_needs_lowering_first():
    text = """
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}
"""
    msg = _error(text)
    assert msg.startswith("kernel.mlir:5:3: error: 'scf.for' op cannot be translated")
    assert "convert-scf-to-cf" in msg


def test_gpu_ops_need_lowering_first():
    msg = _error("func.func @f() -> index {\n  %t = gpu.thread_id x\n  return %t : index\n}\n")
    assert "kernel.mlir:2:3: error: 'gpu.thread_id' op" in msg and "convert-gpu-to-nvvm" in msg


def test_inline_ptx_is_refused_on_the_host():
    text = 'func.func @f() {\n  llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()\n  return\n}\n'
    msg = _error(text)
    assert "kernel.mlir:2:3" in msg and "not supported: inline assembly in the host flavour" in msg
    translate_nvvm(parse(text), Target.parse("sm_80"))  # fine on the GPU


def test_gpu_intrinsics_are_refused_on_the_host():
    text = (
        'func.func @f() {\n  llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()\n  return\n}\n'
    )
    assert "GPU intrinsic 'llvm.nvvm.barrier0'" in _error(text)


def test_tf32_values_have_no_llvm_type():
    msg = _error("func.func @f(%a: tf32) {\n  return\n}\n", host=False)
    assert "not supported: 'tf32' has no LLVM type" in msg


def test_kernels_return_nothing():
    msg = _error(
        "func.func @k() -> i32 attributes {gpu.kernel} {\n  %c = arith.constant 1 : i32\n  return %c : i32\n}\n"
    )
    assert "a kernel (gpu.kernel) must not return values" in msg


def test_unknown_ops_are_named():
    from layoutc.ir.core import Context

    ctx = Context(allow_unregistered=True)
    m = parse(
        'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n', ctx, buffer_name="kernel.mlir"
    )
    with pytest.raises(TranslationError) as info:
        translate_host(m)
    assert "not supported: no LLVM IR translation for 'foo.bar'" in str(
        info.value.diagnostics[0].format()
    )


def test_mma_variant_without_atom_is_refused_on_the_host():
    text = """
func.func @f(%h: vector<2xf16>, %f: f32) {
  %d = nvvm.mma.sync A[%h, %h] B[%h] C[%f, %f, %f, %f] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  return
}
"""
    msg = _error(text)
    assert (
        "not supported: host emulation of 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32'" in msg
    )
    translate_nvvm(parse(text), Target.parse("sm_80"))


def test_bad_launch_bounds():
    msg = _error(
        "func.func @k() attributes {gpu.kernel, nvvm.minctasm = 0 : i32} {\n  return\n}\n",
        host=False,
    )
    assert "'nvvm.minctasm' must be a positive integer" in msg


def test_module_level_ops_must_be_functions_or_globals():
    from layoutc.ir.core import Context

    ctx = Context(allow_unregistered=True)
    m = parse('"foo.thing"() : () -> ()\n', ctx)
    with pytest.raises(TranslationError, match="at module level"):
        translate_host(m)
