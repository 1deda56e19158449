"""The schema of ``manifest.json``, checked before anything in it is believed.

A manifest is input from disk: it may be truncated, hand-edited or hostile. ``validate``
checks every field's type and range (no bools for ints, no strings for numbers, sizes within
what CUDA accepts, file paths that are plain names inside the artifact) and raises
``ArtifactError`` naming the field (``kernels[0].shared_memory.static_bytes``), so that no
``KeyError``, ``TypeError`` or a value the driver would misread gets past the loader.

Hand-written on purpose: the production loader depends on nothing but ``cuda-bindings``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .dtypes import DTYPES
from .errors import ArtifactError

#: Limits of CUDA's launch API: threads per block, and shared memory bytes (an unsigned int).
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_BYTES = (1 << 32) - 1
#: Blocks in one cluster: 8 is portable, 16 with the non-portable cluster size attribute.
MAX_CLUSTER_BLOCKS = 16
#: A plain file name inside the artifact: no separators, no leading dot.
_FILE_NAME = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_$.+-]*")
#: A kernel symbol as layoutc emits it (and as a file name prefix it stays inside the artifact).
KERNEL_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_ISA = re.compile(r"\d{1,2}\.\d{1,2}")
_ARCH = re.compile(r"sm_\d\d{1,2}a?")
_MAX_NAME = 1024


class _Checker:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, message: str) -> ArtifactError:
        return ArtifactError(f"{self.where}: {path}: {message}")

    def obj(self, value: Any, path: str, required: set[str], optional: set[str]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_kind(value)}")
        missing = sorted(required - set(value))
        if missing:
            raise self.fail(path, f"missing field {missing[0]!r}")
        unknown = sorted(set(value) - required - optional)
        if unknown:
            raise self.fail(path, f"unknown field {unknown[0]!r}")
        return value

    def list_(self, value: Any, path: str, most: int = 1 << 16) -> list:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {_kind(value)}")
        if len(value) > most:
            raise self.fail(path, f"{len(value)} items, more than the {most} allowed")
        return value

    def int_(self, value: Any, path: str, lo: int, hi: int, none: bool = False) -> None:
        if value is None and none:
            return
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(path, f"expected an integer, got {_kind(value)}")
        if not lo <= value <= hi:
            raise self.fail(path, f"{value} is outside {lo}..{hi}")

    def str_(self, value: Any, path: str, pattern: re.Pattern | None = None) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected a string, got {_kind(value)}")
        if len(value) > _MAX_NAME and pattern is not None:
            raise self.fail(path, f"{len(value)} characters, more than {_MAX_NAME}")
        if pattern is not None and not pattern.fullmatch(value):
            raise self.fail(path, f"{value!r} is not of the form {pattern.pattern}")
        return value

    def each(self, items: list, path: str, check: Callable[[Any, str], None]) -> None:
        for i, item in enumerate(items):
            check(item, f"{path}[{i}]")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "null" if value is None else type(value).__name__
    )


def validate(manifest: Any, where: str) -> None:
    """Raise ``ArtifactError`` unless ``manifest`` (parsed JSON) follows the schema."""
    c = _Checker(where)
    c.obj(manifest, "manifest", {"format", "version", "kernels"}, {"producer"})
    if "producer" in manifest:
        c.str_(manifest["producer"], "producer")
    kernels = c.list_(manifest["kernels"], "kernels")
    names: set[str] = set()
    for i, k in enumerate(kernels):
        path = f"kernels[{i}]"
        _kernel(c, k, path, manifest["version"])
        if k["name"] in names:
            raise c.fail(f"{path}.name", f"kernel {k['name']!r} appears twice")
        names.add(k["name"])


def _kernel(c: _Checker, k: Any, path: str, version: int) -> None:
    optional = {"equal", "launch_bounds", "shared_memory", "index_bits", "bounds_sites", "cluster"}
    optional |= {"explicit_cluster", "max_cluster_blocks"}
    c.obj(k, path, {"name", "params", "variants"}, optional)
    if "explicit_cluster" in k and k["explicit_cluster"] is not True:
        raise c.fail(f"{path}.explicit_cluster", "expected true (absent when false)")
    if "max_cluster_blocks" in k:
        c.int_(k["max_cluster_blocks"], f"{path}.max_cluster_blocks", 1, MAX_CLUSTER_BLOCKS)
        if "cluster" in k:
            raise c.fail(f"{path}.max_cluster_blocks", "not allowed next to a fixed cluster")
    if "cluster" in k:
        q = f"{path}.cluster"
        if len(c.list_(k["cluster"], q)) != 3:
            raise c.fail(q, "expected three extents (x, y, z)")
        c.each(k["cluster"], q, lambda v, r: c.int_(v, r, 1, MAX_CLUSTER_BLOCKS))
        x, y, z = k["cluster"]
        if x * y * z > MAX_CLUSTER_BLOCKS:
            raise c.fail(q, f"{x * y * z} blocks, more than the {MAX_CLUSTER_BLOCKS} allowed")
    if "index_bits" in k and k["index_bits"] not in (32, 64):
        raise c.fail(f"{path}.index_bits", f"expected 32 or 64, got {k['index_bits']!r}")
    if "bounds_sites" in k:
        q = f"{path}.bounds_sites"
        c.each(c.list_(k["bounds_sites"], q), q, c.str_)
    c.str_(k["name"], f"{path}.name", KERNEL_NAME)
    c.each(
        c.list_(k["params"], f"{path}.params", 4096), f"{path}.params", lambda p, q: _param(c, p, q)
    )
    if "equal" in k:
        for j, group in enumerate(c.list_(k["equal"], f"{path}.equal")):
            c.each(c.list_(group, f"{path}.equal[{j}]"), f"{path}.equal[{j}]", c.str_)
    bounds = k.get("launch_bounds")
    if bounds is not None:
        q = f"{path}.launch_bounds"
        c.obj(bounds, q, set(), {"max_threads", "min_blocks", "block"})
        c.int_(bounds.get("max_threads"), f"{q}.max_threads", 1, MAX_THREADS_PER_BLOCK, none=True)
        c.int_(bounds.get("min_blocks"), f"{q}.min_blocks", 1, 1 << 16, none=True)
        block = bounds.get("block")
        if block is not None:
            if len(c.list_(block, f"{q}.block")) != 3:
                raise c.fail(f"{q}.block", "expected three extents (x, y, z)")
            c.each(block, f"{q}.block", lambda v, r: c.int_(v, r, 1, MAX_THREADS_PER_BLOCK))
    if "shared_memory" in k:
        q = f"{path}.shared_memory"
        smem = c.obj(
            k["shared_memory"], q, set(), {"static_bytes", "dynamic_bytes", "dynamic_formula"}
        )
        for field in ("static_bytes", "dynamic_bytes"):
            if field in smem:
                c.int_(smem[field], f"{q}.{field}", 0, MAX_SHARED_BYTES)
        if "dynamic_formula" in smem:
            from .smem_need import check_formula

            names = [p["name"] for p in k["params"] if isinstance(p, dict) and "name" in p]
            try:
                check_formula(smem["dynamic_formula"], names)
            except (ValueError, RecursionError) as e:
                raise c.fail(f"{q}.dynamic_formula", str(e)) from None
    variants = c.list_(k["variants"], f"{path}.variants", 256)
    c.each(variants, f"{path}.variants", lambda v, q: _variant(c, v, q))


def _param(c: _Checker, p: Any, path: str) -> None:
    optional = {
        "layout",
        "dynamic",
        "align",
        "divisible_by",
        "min",
        "max",
        "symbol",
        "writes",
        "tma",
    }
    c.obj(p, path, {"name", "kind", "dtype"}, optional)
    if "writes" in p and not isinstance(p["writes"], bool):
        raise c.fail(f"{path}.writes", f"expected true or false, got {_kind(p['writes'])}")
    c.str_(p["name"], f"{path}.name")
    if p["kind"] not in ("pointer", "scalar", "tma"):
        raise c.fail(f"{path}.kind", f"expected 'pointer', 'scalar' or 'tma', got {p['kind']!r}")
    if (p["kind"] == "tma") != ("tma" in p):
        raise c.fail(f"{path}.tma", "a 'tma' parameter, and only one, describes its descriptor")
    if "tma" in p:
        keys = {"source", "box", "dims", "swizzle", "extents", "strides"}
        c.obj(p["tma"], f"{path}.tma", keys, {"mode", "pixels", "lower", "upper", "traversal"})
        if "traversal" in p["tma"]:  # an im2col descriptor's traversal strides
            walk = f"{path}.tma.traversal"
            c.each(c.list_(p["tma"]["traversal"], walk), walk, lambda x, q: c.int_(x, q, 1, 8))
    if not isinstance(p["dtype"], str) or p["dtype"] not in DTYPES:
        raise c.fail(f"{path}.dtype", f"{p['dtype']!r} is not one of {', '.join(DTYPES)}")
    if "layout" in p and p["layout"] is not None:
        c.str_(p["layout"], f"{path}.layout")
        if len(p["layout"]) > 1 << 16:
            raise c.fail(f"{path}.layout", "longer than 65536 characters")
    if "dynamic" in p:
        c.each(c.list_(p["dynamic"], f"{path}.dynamic"), f"{path}.dynamic", c.str_)
    big = 1 << 64
    c.int_(p.get("align"), f"{path}.align", 1, 1 << 32, none=True)
    c.int_(p.get("divisible_by", 1), f"{path}.divisible_by", 1, big)
    c.int_(p.get("min"), f"{path}.min", -big, big, none=True)
    c.int_(p.get("max"), f"{path}.max", -big, big, none=True)
    if p.get("symbol") is not None:
        c.str_(p["symbol"], f"{path}.symbol")


def _variant(c: _Checker, v: Any, path: str) -> None:
    c.obj(v, path, {"arch", "files"}, {"ptx_isa"})
    c.str_(v["arch"], f"{path}.arch", _ARCH)
    files = c.obj(v["files"], f"{path}.files", set(), {"ptx", "cubin"})
    if not files:
        raise c.fail(f"{path}.files", "names neither a ptx nor a cubin file")
    if "ptx" in files:
        if "ptx_isa" not in v:
            raise c.fail(path, "a PTX variant needs 'ptx_isa'")
        c.str_(v["ptx_isa"], f"{path}.ptx_isa", _ISA)
    for kind, entry in files.items():
        q = f"{path}.files.{kind}"
        c.obj(entry, q, {"path", "sha256"}, {"bytes"})
        c.str_(entry["path"], f"{q}.path", _FILE_NAME)
        c.str_(entry["sha256"], f"{q}.sha256", _SHA256)
        if "bytes" in entry:
            c.int_(entry["bytes"], f"{q}.bytes", 0, 1 << 32)
