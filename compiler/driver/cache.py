"""The compile cache: in memory and on disk, keyed by what determines the compiled output.

Key = sha256 over (IR text hash, target, compiler version, options). An entry is JSON metadata
plus named raw byte blobs (PTX, cubin, manifest, CPU LLVM IR...): no pickled code, ever.

On disk every entry is one file, written to a temporary name and ``os.replace``d into place,
so readers see a whole entry or none, and several processes writing the same key are safe (the
last rename wins with identical content). The directory is bounded in size: the least recently
used entries go first.

The disk is not trusted (docs/reliability.md, "The compile cache"). Every entry ends with an
HMAC-SHA256 over everything before it, the entry's full key included, under a per-user secret
(``secret-<uid>``, 32 random bytes, mode 0600, owned by the user) kept in the cache directory.
So an entry renamed to another key, an edited header or payload, or an entry planted by anyone
who cannot read the user's secret fails the check, reads as a miss, is removed and recompiled.
Only regular files are read (no symlinks, FIFOs or devices), never more than ``max_bytes``.
What this does not defend against: someone who runs code as the same user (they can edit
layoutc itself) or root. A cache directory that cannot be used (unwritable, not a directory,
a secret with the wrong owner or permissions) is reported once with a ``CacheWarning`` and the
process goes on with the in-memory cache only.

Location: ``LAYOUTC_CACHE_DIR``, else the user's cache directory (``~/.cache/layoutc`` on Linux).
``LAYOUTC_CACHE=0`` disables caching altogether.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import stat
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from layoutc.runtime.fileio import UntrustedFileError, atomic_write, read_regular_file

#: Version 2 added the key and the HMAC tag (version-1 entries checksummed only their payload).
FORMAT_VERSION = 2
_MAGIC = b"LAYOUTC-CACHE\x02"
_TAG_BYTES = 32
_SECRET_BYTES = 32
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
DEFAULT_MEMORY_ENTRIES = 512


class CacheWarning(UserWarning):
    """The compile cache cannot use its directory; compilation goes on without it."""


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


def encode_entry(key: str, entry: CacheEntry, secret: bytes) -> bytes:
    """One self-checking blob: magic, header length, JSON header (with ``key``), the raw files,
    then HMAC-SHA256(``secret``, everything before)."""
    names = sorted(entry.files)
    blobs = [entry.files[n] for n in names]
    header = {"key": key, "meta": entry.meta, "files": [[n, len(b)] for n, b in zip(names, blobs)]}
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    data = _MAGIC + len(head).to_bytes(8, "little") + head + b"".join(blobs)
    return data + hmac.new(secret, data, hashlib.sha256).digest()


def decode_entry(data: bytes, key: str, secret: bytes) -> CacheEntry | None:
    """Inverse of ``encode_entry``: None unless the tag checks under ``secret`` and the entry
    was written for ``key`` (corrupt, truncated, swapped, edited or planted entries)."""
    n = len(_MAGIC)
    if len(data) < n + 8 + _TAG_BYTES or data[:n] != _MAGIC:
        return None
    signed, tag = data[:-_TAG_BYTES], data[-_TAG_BYTES:]
    if not hmac.compare_digest(hmac.new(secret, signed, hashlib.sha256).digest(), tag):
        return None
    size = int.from_bytes(signed[n : n + 8], "little")
    start = n + 8 + size
    if start > len(signed):
        return None
    try:
        header = json.loads(signed[n + 8 : start])
        if not isinstance(header, dict) or header.get("key") != key:
            return None
        meta = header["meta"]
        if not isinstance(meta, dict):
            return None
        body = signed[start:]
        files = {}
        pos = 0
        for name, length in header["files"]:
            if not isinstance(name, str) or not isinstance(length, int) or length < 0:
                return None
            files[name] = body[pos : pos + length]
            pos += length
        if pos != len(body):
            return None
        return CacheEntry(meta, files)
    except (ValueError, KeyError, TypeError):
        return None


def _load_or_create_secret(root: Path) -> bytes:
    """The user's secret for ``root``: read it, or create it (atomically, mode 0600).

    Raises ``OSError`` when the directory cannot hold one, ``UntrustedFileError`` when the file
    there is not the user's own private regular file (someone else could know it).
    """
    uid = os.getuid() if hasattr(os, "getuid") else None
    path = root / (f"secret-{uid}" if uid is not None else "secret")
    for _ in range(2):
        try:
            fd = os.open(
                path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            )
        except FileNotFoundError:
            root.mkdir(parents=True, exist_ok=True)
            tmp = root / f".secret-{os.getpid()}-{threading.get_ident()}"
            wfd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(wfd, os.urandom(_SECRET_BYTES))
            finally:
                os.close(wfd)
            try:
                os.link(tmp, path)  # create-if-absent with the whole content: racers agree
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size != _SECRET_BYTES:
                raise UntrustedFileError(f"{path}: not a {_SECRET_BYTES}-byte regular file")
            if uid is not None and (st.st_uid != uid or st.st_mode & 0o077):
                raise UntrustedFileError(
                    f"{path}: must be owned by uid {uid} and readable by nobody else "
                    f"(owner {st.st_uid}, mode {stat.filemode(st.st_mode)})"
                )
            secret = os.read(fd, _SECRET_BYTES)
        finally:
            os.close(fd)
        if len(secret) == _SECRET_BYTES:
            return secret
    raise OSError(f"{path}: could not create the cache secret")


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
        self._secret: bytes | None = None
        self._disk_ok = True
        self.hits = self.misses = 0

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"not a cache key: {key!r}")
        return self._root / key[:2] / f"{key}.lcc"

    def _disk_unusable(self, why: object) -> None:
        """Stop using the directory, and say so once (not once per kernel)."""
        with self._lock:
            first, self._disk_ok = self._disk_ok, False
        if first:
            warnings.warn(
                f"layoutc: the compile cache directory {self.directory} cannot be used ({why}); "
                "compiled kernels are cached in memory only (set LAYOUTC_CACHE_DIR to a "
                "writable directory, or LAYOUTC_CACHE=0 to silence this)",
                CacheWarning,
                stacklevel=4,
            )

    def _key_secret(self, create: bool) -> bytes | None:
        """The HMAC secret, loaded (or, when ``create``, made) on first use; None if the disk
        is not used."""
        if not self._disk_ok:
            return None
        if self._secret is None:
            if not create and not self._root.is_dir():
                return None  # nothing stored yet: do not create the directory on a read
            try:
                self._secret = _load_or_create_secret(self._root)
            except OSError as e:
                self._disk_unusable(e)
                return None
        return self._secret

    def get(self, key: str, *, memory: bool = True) -> CacheEntry | None:
        """The entry for ``key``, or None (kept in the memory level too unless not ``memory``)."""
        if not self.enabled:
            return None
        with self._lock:
            entry = self._memory.get(key)
            if entry is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return entry
        path = self._path(key)
        secret = self._key_secret(create=False)
        if secret is None:
            self.misses += 1
            return None
        try:
            data = read_regular_file(path, self.max_bytes)
        except UntrustedFileError:
            data = b""  # a symlink, FIFO, device or oversized file: refuse and remove it
        except OSError:
            self.misses += 1
            return None
        entry = decode_entry(data, key, secret)
        if entry is None:  # corrupt, swapped or planted: drop it so the next put rewrites it
            with contextlib.suppress(OSError):
                path.unlink()
            self.misses += 1
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recency for eviction
        if memory:
            self._remember(key, entry)
        self.hits += 1
        return entry

    def put(self, key: str, entry: CacheEntry, *, memory: bool = True) -> None:
        """Store ``entry`` under ``key`` (memory, unless not ``memory``, and disk); disk errors
        are not fatal."""
        if not self.enabled:
            return
        if memory:
            self._remember(key, entry)
        path = self._path(key)
        secret = self._key_secret(create=True)
        if secret is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, encode_entry(key, entry, secret))
        except OSError as e:  # a read-only or full disk must not break compilation
            self._disk_unusable(e)
            return
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
                if not sub.is_dir(follow_symlinks=False):
                    continue
                for f in os.scandir(sub.path):
                    if f.name.endswith(".lcc"):
                        st = f.stat(follow_symlinks=False)
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


class HostObjectCache:
    """The CPU JIT's machine code kept in a compile cache (``runtime.cpu_jit.ObjectCache``):
    signed and checked like every entry, under a key made from the JIT's own (which covers the
    kernel's LLVM IR, the level, LLVM and the host). Disk only: the loaded kernel stays in the
    in-memory table of compiled kernels, and objects are large."""

    def __init__(self, cache: CompileCache) -> None:
        self.cache = cache

    @staticmethod
    def entry_key(key: str) -> str:
        return hashlib.sha256(f"host-object:{key}".encode()).hexdigest()

    def load(self, key: str) -> tuple[bytes, dict[str, Any]] | None:
        entry = self.cache.get(self.entry_key(key), memory=False)
        if entry is None or "object" not in entry.files:
            return None
        return entry.files["object"], entry.meta

    def store(self, key: str, code: bytes, facts: dict[str, Any]) -> None:
        self.cache.put(self.entry_key(key), CacheEntry(dict(facts), {"object": code}), memory=False)


_default: CompileCache | None = None


def default_cache() -> CompileCache:
    """The process-wide cache (configured from the environment on first use)."""
    global _default
    if _default is None:
        _default = CompileCache()
    return _default
