"""The compile cache: in memory and on disk, keyed by what determines the compiled output.

Key = sha256 over (IR text hash, target, compiler version, options). An entry is JSON metadata
plus named raw byte blobs (PTX, cubin, manifest, CPU LLVM IR...): no pickled code, ever.

On disk every entry is one file, written to a temporary name and ``os.replace``d into place,
so readers see a whole entry or none, and several processes writing the same key are safe (the
last rename wins with identical content). A corrupt or truncated file reads as a miss and is
removed. The directory is bounded in size: the least recently used entries go first.

Location: ``LAYOUTC_CACHE_DIR``, else the user's cache directory (``~/.cache/layoutc`` on Linux).
``LAYOUTC_CACHE=0`` disables caching altogether.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1
_MAGIC = b"LAYOUTC-CACHE\x01"
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_MEMORY_ENTRIES = 512


@dataclass
class CacheEntry:
    """Metadata (JSON-serialisable) and named binary artifacts."""

    meta: dict[str, Any] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)


@cache
def default_compiler_version() -> str:
    """Versions of what shapes the output: layoutc's source tree, llvmlite, libNVVM, nvJitLink.

    Reads no package metadata (that costs ~100 ms): layoutc's identity is a hash of its code
    generation and runtime sources' modification times and sizes, so editing them invalidates
    cached code during development too.
    """
    import llvmlite

    here = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for folder in ("codegen", "driver"):
        for p in sorted((here / folder).glob("*.py")):
            st = p.stat()
            h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    parts = [f"layoutc-src={h.hexdigest()[:16]}", f"llvmlite={llvmlite.__version__}"]
    # The CUDA compiler libraries' versions from their dist-info folders: importing the
    # bindings to ask them would cost ~150 ms on a cache hit.
    site = Path(llvmlite.__file__).resolve().parent.parent
    for dist in ("nvidia_nvvm", "nvidia_nvjitlink", "cuda_bindings"):
        found = sorted(p.name for p in site.glob(f"{dist}-*.dist-info"))
        parts.append(f"{dist}={found[-1][len(dist) + 1 : -len('.dist-info')] if found else 'none'}")
    return ";".join(parts)


def cache_key(
    ir_text: str,
    target: str,
    options: Mapping[str, Any] | None = None,
    compiler_version: str | None = None,
) -> str:
    """The cache key of compiling ``ir_text`` for ``target`` with ``options``."""
    ir_hash = hashlib.sha256(ir_text.encode()).hexdigest()
    parts = {
        "format": FORMAT_VERSION,
        "ir": ir_hash,
        "target": target,
        "compiler": compiler_version or default_compiler_version(),
        "options": dict(options or {}),
    }
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def default_cache_dir() -> Path:
    """``LAYOUTC_CACHE_DIR`` or the platform's per-user cache directory."""
    env = os.environ.get("LAYOUTC_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
        return base / "layoutc" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "layoutc"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "layoutc"


def cache_enabled() -> bool:
    return os.environ.get("LAYOUTC_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def encode_entry(entry: CacheEntry) -> bytes:
    """One self-checking blob: magic, header length, JSON header, then the raw files."""
    names = sorted(entry.files)
    blobs = [entry.files[n] for n in names]
    header = {
        "meta": entry.meta,
        "files": [[n, len(b)] for n, b in zip(names, blobs)],
        "sha256": hashlib.sha256(b"".join(blobs)).hexdigest(),
    }
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    return _MAGIC + len(head).to_bytes(8, "little") + head + b"".join(blobs)


def decode_entry(data: bytes) -> CacheEntry | None:
    """Inverse of ``encode_entry``; None for anything corrupt or truncated."""
    n = len(_MAGIC)
    if len(data) < n + 8 or data[:n] != _MAGIC:
        return None
    size = int.from_bytes(data[n : n + 8], "little")
    start = n + 8 + size
    try:
        header = json.loads(data[n + 8 : start])
        body = data[start:]
        if hashlib.sha256(body).hexdigest() != header["sha256"]:
            return None
        files = {}
        pos = 0
        for name, length in header["files"]:
            files[name] = body[pos : pos + length]
            pos += length
        if pos != len(body):
            return None
        return CacheEntry(header["meta"], files)
    except (ValueError, KeyError, TypeError):
        return None


class CompileCache:
    """Two-level cache (memory LRU over a size-bounded directory)."""

    def __init__(
        self,
        directory: str | os.PathLike | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        memory_entries: int = DEFAULT_MEMORY_ENTRIES,
        enabled: bool | None = None,
    ) -> None:
        self.enabled = cache_enabled() if enabled is None else enabled
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.max_bytes = max_bytes
        self.memory_entries = memory_entries
        self._memory: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()
        self._root = self.directory / f"v{FORMAT_VERSION}"
        self.hits = self.misses = 0

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"not a cache key: {key!r}")
        return self._root / key[:2] / f"{key}.lcc"

    def get(self, key: str) -> CacheEntry | None:
        """The entry for ``key``, or None."""
        if not self.enabled:
            return None
        with self._lock:
            entry = self._memory.get(key)
            if entry is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return entry
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        entry = decode_entry(data)
        if entry is None:  # corrupt: drop it so the next put rewrites it
            with contextlib.suppress(OSError):
                path.unlink()
            self.misses += 1
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recency for eviction
        self._remember(key, entry)
        self.hits += 1
        return entry

    def put(self, key: str, entry: CacheEntry) -> None:
        """Store ``entry`` under ``key`` (memory and disk); disk errors are not fatal."""
        if not self.enabled:
            return
        self._remember(key, entry)
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(encode_entry(entry))
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return  # a read-only or full disk must not break compilation
        self._evict()

    def _remember(self, key: str, entry: CacheEntry) -> None:
        with self._lock:
            self._memory[key] = entry
            self._memory.move_to_end(key)
            while len(self._memory) > self.memory_entries:
                self._memory.popitem(last=False)

    def _evict(self) -> None:
        """Delete least recently used files until the directory is within ``max_bytes``."""
        files = []
        total = 0
        try:
            for sub in os.scandir(self._root):
                if not sub.is_dir():
                    continue
                for f in os.scandir(sub.path):
                    if f.name.endswith(".lcc"):
                        st = f.stat()
                        files.append((st.st_mtime, st.st_size, f.path))
                        total += st.st_size
        except OSError:
            return
        if total <= self.max_bytes:
            return
        for _, size, p in sorted(files):
            with contextlib.suppress(OSError):
                os.unlink(p)
                total -= size
            if total <= self.max_bytes:
                break

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()

    def clear(self) -> None:
        """Remove every entry (memory and disk)."""
        import shutil

        self.clear_memory()
        shutil.rmtree(self._root, ignore_errors=True)


_default: CompileCache | None = None


def default_cache() -> CompileCache:
    """The process-wide cache (configured from the environment on first use)."""
    global _default
    if _default is None:
        _default = CompileCache()
    return _default
