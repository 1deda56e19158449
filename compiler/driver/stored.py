"""Compilation results <-> compile-cache entries (JSON metadata and raw files, no pickles)."""

from __future__ import annotations

from typing import Any

from layoutc.runtime.abi import KernelSpec as RuntimeKernelSpec

from .build import BuildProducts
from .cache import CacheEntry
from .remarks import Remark
from .targets import BuildTarget

ENTRY_KIND = "layoutc-kernel"


def to_entry(products: BuildProducts) -> CacheEntry:
    meta: dict[str, Any] = {
        "kind": ENTRY_KIND,
        "kernel": products.kernel,
        "target": products.target.key(),
        "spec": products.runtime_spec.to_json(),
        "remarks": [r.to_json() for r in products.remarks],
        "vector_bits": products.vector_bits,
        "pipeline": products.pipeline,
        "ptx_backend": products.ptx_backend,
        "ptx_isa": products.ptx_isa,
        "notes": products.notes,
    }
    files = {"ll": products.llvm_ir.encode()}
    if products.ptx is not None:
        files["ptx"] = products.ptx.encode()
    if products.cubin is not None:
        files["cubin"] = products.cubin
    return CacheEntry(meta, files)


def from_entry(entry: CacheEntry, target: BuildTarget) -> BuildProducts | None:
    """The products stored in ``entry``; None if it is not a kernel entry for ``target``."""
    meta = entry.meta
    if meta.get("kind") != ENTRY_KIND or meta.get("target") != target.key():
        return None
    if "ll" not in entry.files or (target.is_gpu and "ptx" not in entry.files):
        return None
    try:
        spec = RuntimeKernelSpec.from_json(meta["spec"])
        remarks = [Remark.from_json(r) for r in meta.get("remarks", [])]
    except (KeyError, TypeError, ValueError):
        return None
    ptx = entry.files.get("ptx")
    return BuildProducts(
        kernel=meta["kernel"],
        target=target,
        runtime_spec=spec,
        llvm_ir=entry.files["ll"].decode(),
        ptx=ptx.decode() if ptx is not None else None,
        cubin=entry.files.get("cubin"),
        ptx_backend=meta.get("ptx_backend"),
        ptx_isa=meta.get("ptx_isa"),
        notes=list(meta.get("notes", [])),
        remarks=remarks,
        vector_bits=meta.get("vector_bits"),
        pipeline=meta.get("pipeline", ""),
    )
