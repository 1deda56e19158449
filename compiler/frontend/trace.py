"""Tracing: running a rewritten kernel on proxies to build its IR module.

``trace(kernel, spec)`` builds ``builtin.module { func.func @name(...) attributes {gpu.kernel,
gpu.known_block_size = array<i32: x, y, z>} { ... } }``: parameters as the ABI lays them out
(:mod:`.abi`), argument attributes stating the spec's facts (``layoutc.divisible_by``,
``layoutc.lower``, ``layoutc.upper`` on integers, ``layoutc.align`` on pointers), then the body,
built by running the rewritten kernel with tensor and scalar proxies. The module is verified;
every problem is a :class:`CompileError` at the user's line.
"""

from __future__ import annotations

import builtins
import difflib
import os
import re
from typing import Any

from ..ir.algebra.errors import LayoutError
from ..ir.core.attributes import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
)
from ..ir.core.builder import Builder, InsertionPoint
from ..ir.core.diagnostics import DiagnosticError
from ..ir.core.errors import IRError, VerifyError
from ..ir.core.location import Location, UnknownLoc
from ..ir.core.types import FunctionType, Type, bf16, f16, f32, f64, i32, i64
from ..ir.core.verifier import verify_op
from ..ir.dialects.builtin import ModuleOp
from ..ir.dialects.func import FuncOp, ReturnOp
from . import state
from .abi import KernelABI, build_abi
from .errors import CompileError
from .locations import is_internal_file, traceback_location
from .scalars import Float, Int
from .smem_formula import smem_formula
from .spec import ConstexprSpec, KernelSpec, ScalarSpec, TensorSpec
from .tensor import dynamic_smem_padding_of
from .thread_bounds import check_partitions, recorded
from .tracebacks import full_traceback_wanted

_SCALAR_TYPES = {"i32": i32, "i64": i64, "f16": f16, "bf16": bf16, "f32": f32, "f64": f64}
_ESCAPED_VALUE_HINT = (
    "a value computed inside a dynamic `if` or loop body is used outside it through a Python "
    "object the tracer cannot see (a list, a dict, an attribute); assign it to a variable in the "
    "body instead, so that it becomes a result of the region"
)


def trace(
    kernel: Any, spec: KernelSpec, name: str | None = None
) -> tuple[ModuleOp, str, KernelABI]:
    """Build and verify the IR of ``kernel`` specialised on ``spec``."""
    rk = kernel.rewritten()
    kname = _symbol_name(name or kernel.name)
    abi = build_abi(kname, spec)
    def_loc = rk.def_loc
    inputs, arg_attrs = _signature(spec, abi)
    attributes: dict[str, Attribute] = {"gpu.kernel": UnitAttr()}
    if spec.block is not None:
        attributes["gpu.known_block_size"] = DenseArrayAttr(i32, spec.block)
    min_blocks = getattr(kernel, "min_blocks_per_sm", None)
    if min_blocks is not None:
        attributes["nvvm.minctasm"] = IntegerAttr(min_blocks, i32)
    cluster = getattr(kernel, "cluster", None)
    if cluster is not None:  # upstream's kernel attribute; 0, 0, 0 (as LLVM's): explicit only
        dims = [0, 0, 0] if cluster == "explicit" else list(cluster)
        attributes["nvvm.cluster_dim"] = DenseArrayAttr(i32, dims)
    max_cluster = getattr(kernel, "max_cluster_size", None)
    if max_cluster is not None:
        attributes["nvvm.cluster_max_blocks"] = IntegerAttr(max_cluster, i32)
    func = FuncOp(kname, FunctionType(inputs, []), attributes=attributes, loc=def_loc)
    func.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in arg_attrs])
    carrier_of = {c.param: c.arg for c in abi.carriers}
    for p, arg in zip(abi.params, func.args):
        arg.name_hint = p.name
        arg.loc = rk.param_locs.get(carrier_of.get(p.name, p.name))
    module = ModuleOp([func], loc=def_loc)
    builder = Builder(InsertionPoint.at_end(func.entry_block), def_loc)
    st = state.TraceState(builder, rk.codes, spec.block, kname, def_loc)
    st.module = module
    with state.tracing(st):
        try:
            call_args = _arguments(kernel, spec, abi, func, rk.param_locs)
            rk.fn(*call_args[0], **call_args[1])
        except CompileError as e:
            raise _clean(e) from None
        except (LayoutError, VerifyError, IRError, DiagnosticError) as e:
            raise _converted(e, rk.codes) from None
        except Exception as e:
            if (_raised_in_user_code(e) or _misspelt_layoutc_name(e)) and not os.environ.get(
                "LAYOUTC_TRACEBACK"
            ):
                raise _converted(e, rk.codes) from None
            raise
        builder.insert(ReturnOp(loc=def_loc))
    diags = verify_op(module, checked=st.checked)
    if diags:
        first = diags[0]
        notes = [(n.message, n.location) for n in first.notes]
        if "does not dominate" in first.message or "defined outside the region" in first.message:
            notes.append((_ESCAPED_VALUE_HINT, None))
        notes += [(d.message, d.location) for d in diags[1:]]
        raise CompileError(first.message, first.location, notes)
    check_partitions(func, recorded(st), spec.block)
    need = st.extras.get("dynamic_smem_need")
    # the bytes convert-to-llvm realigns the dynamic base in go to every launch: the default,
    # the need formula, and a check that a given smem= holds them (an int formula)
    pad = dynamic_smem_padding_of(st)
    dynamic_min = st.dynamic_smem_min + pad
    if need is not None:
        formula = smem_formula(need + pad, func, abi.params, st.extras)
    else:
        formula = dynamic_min if pad else None
    if st.smem_bytes or dynamic_min or min_blocks is not None or formula is not None:
        abi = build_abi(kname, spec, st.smem_bytes, dynamic_min, min_blocks, formula)
    return module, kname, abi


def _symbol_name(name: str) -> str:
    clean = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return clean if clean[:1].isalpha() or clean[:1] == "_" else "_" + clean


def _signature(spec: KernelSpec, abi: KernelABI) -> tuple[list[Type], list[dict[str, Attribute]]]:
    """Parameter types and their fact attributes, in ABI order."""
    by_name = dict(spec.args)
    carrier = {c.param: c for c in abi.carriers}
    inputs: list[Type] = []
    attrs: list[dict[str, Attribute]] = []
    for p in abi.params:
        if p.name in carrier:
            facts = spec.symbol(carrier[p.name].symbol)
            inputs.append(_SCALAR_TYPES[facts.dtype])
            a = {"layoutc.divisible_by": IntegerAttr(facts.divisible_by, i64)}
            if facts.lower is not None:
                a["layoutc.lower"] = IntegerAttr(facts.lower, i64)
            a["layoutc.upper"] = IntegerAttr(facts.upper, i64)
            if not carrier[p.name].symbol.startswith("?"):  # the annotation's name, for remarks
                a["layoutc.symbol"] = StringAttr(carrier[p.name].symbol)
            attrs.append(a)
            continue
        a_spec = by_name[p.name]
        if isinstance(a_spec, TensorSpec):
            from .tensor import pointer_type

            inputs.append(pointer_type(a_spec))
            attrs.append({"layoutc.align": IntegerAttr(a_spec.align, i64)})
        else:
            assert isinstance(a_spec, ScalarSpec)
            inputs.append(_SCALAR_TYPES[a_spec.dtype])
            attrs.append(
                {"layoutc.divisible_by": IntegerAttr(a_spec.divisible_by, i64)}
                if a_spec.dtype in ("i32", "i64")
                else {}
            )
    return inputs, attrs


def _arguments(
    kernel: Any, spec: KernelSpec, abi: KernelABI, func: FuncOp, locs: dict[str, Any]
) -> tuple[list[Any], dict[str, Any]]:
    """The proxies (or constants) to call the rewritten kernel with."""
    params = {p.name: arg for p, arg in zip(abi.params, func.args)}
    carriers: dict[str, list[Any]] = {}
    for c in abi.carriers:
        carriers.setdefault(c.arg, []).append((c, params[c.param]))
    symbol_values: dict[str, Any] = {}
    values: dict[str, Any] = {}
    for arg, a in spec.args:
        if isinstance(a, ConstexprSpec):
            values[arg] = a.value
        elif isinstance(a, ScalarSpec):
            v = params[arg]
            values[arg] = Int(v) if a.dtype in ("i32", "i64") else Float(v)
        else:
            from .tensor import argument_tensor

            with state.located(locs.get(arg)):
                values[arg] = argument_tensor(
                    a, params[arg], carriers.get(arg, []), symbol_values, spec
                )
    pos: list[Any] = []
    kw: dict[str, Any] = {}
    for p in kernel.signature.parameters.values():
        if p.kind is p.KEYWORD_ONLY:
            kw[p.name] = values[p.name]
        else:
            pos.append(values[p.name])
    return pos, kw


def _clean(e: CompileError) -> CompileError:
    """The error without the tracer's frames (all of them with LAYOUTC_FULL_TRACEBACK=1)."""
    return e if full_traceback_wanted() else e.with_traceback(None)


def _raised_in_user_code(e: BaseException) -> bool:
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and not is_internal_file(last.tb_frame.f_code.co_filename)


def _converted(e: BaseException, codes: Any) -> CompileError:
    loc = traceback_location(e.__traceback__, codes)
    if isinstance(e, DiagnosticError) and e.diagnostics:
        d = e.diagnostics[0]
        notes = [(n.message, None if _unknown(n.location) else n.location) for n in d.notes]
        return CompileError(d.message, d.location if not _unknown(d.location) else loc, notes)
    if isinstance(e, VerifyError):
        return CompileError(e.message, loc, e.notes)
    if isinstance(e, LayoutError):
        return CompileError(str(e), loc)
    return CompileError(f"{type(e).__name__}: {e}{_suggestion(e)}", loc)


def _misspelt_layoutc_name(e: BaseException) -> bool:
    """``lc.<name>`` with a name layoutc does not have (raised by layoutc's ``__getattr__``)."""
    import layoutc

    return isinstance(e, AttributeError) and getattr(e, "obj", None) is layoutc


def _suggestion(e: BaseException) -> str:
    """Python's "Did you mean" for a misspelt name or ``lc.`` attribute ("" when none is close).

    CPython adds it only when it prints a traceback, not to the message, and a diagnostic
    prints no traceback; so it is computed here from the names the user could have meant.
    """
    name = getattr(e, "name", None)
    if not isinstance(name, str):
        return ""
    candidates: set[str] = set()
    if isinstance(e, AttributeError) and e.obj is not None:
        import layoutc

        candidates.update(dir(e.obj))
        if e.obj is layoutc:
            candidates.update(layoutc._LAZY)
    elif isinstance(e, NameError):
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            f = tb.tb_frame
            candidates.update(f.f_locals, f.f_globals, dir(builtins))
    candidates.discard(name)
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f". Did you mean: {close[0]!r}?" if close else ""


def _unknown(loc: Location) -> bool:
    return isinstance(loc, UnknownLoc)
