"""The runtime ABI of a traced kernel, stating the facts its code was compiled under.

The front end's spec (compiler/frontend/spec.py) fixes what the generated code may rely on:
pointer alignment, divisibility and bounds of layout symbols and integer scalars, symbols shared
by several tensors. The runtime cannot import the front end, so these facts travel in its own
``KernelSpec`` (``Param.align``, ``divisible_by``, ``lower``, ``upper``, ``symbol`` and
``KernelSpec.equal``): in AOT manifests (version 2) and in JIT-compiled kernels alike, and the
runtime's argument binder checks them at every launch (runtime/packing_facts.py). One
implementation of the checks serves both paths.
"""

from __future__ import annotations

from dataclasses import replace

from layoutc.frontend.abi import KernelABI
from layoutc.frontend.spec import KernelSpec, ScalarSpec, TensorSpec
from layoutc.runtime.abi import KernelSpec as RuntimeKernelSpec
from layoutc.runtime.abi import Param


def runtime_spec_with_facts(spec: KernelSpec, abi: KernelABI) -> RuntimeKernelSpec:
    """``abi.runtime_spec()`` with every parameter's facts from ``spec``."""
    base = abi.runtime_spec()
    args = dict(spec.args)
    carriers = {c.param: c for c in abi.carriers}
    params: list[Param] = []
    for p in base.params:
        carrier = carriers.get(p.name)
        if carrier is not None:
            facts = spec.symbol(carrier.symbol)
            params.append(
                replace(
                    p,
                    divisible_by=facts.divisible_by,
                    lower=facts.lower,
                    upper=facts.upper,
                    symbol=None if carrier.symbol.startswith("?") else carrier.symbol,
                )
            )
            continue
        arg = args.get(p.name)
        if isinstance(arg, TensorSpec):
            params.append(replace(p, align=arg.align))
        elif isinstance(arg, ScalarSpec) and p.is_integer:
            params.append(replace(p, divisible_by=arg.divisible_by))
        else:
            params.append(p)
    return replace(base, params=tuple(params), equal=abi.equal_carriers)
