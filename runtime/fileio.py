"""File I/O for files layoutc does not trust: cache entries and AOT artifacts.

Two rules, kept in one place so every reader and writer follows them:

- Reading: only regular files, never through a symlink at the last component, never blocking
  (a FIFO planted where a file is expected must not hang the process), never more than a
  stated number of bytes (a symlink to ``/dev/zero`` or a huge file must not exhaust memory).
- Writing: through a temporary file and an atomic rename, with the permissions an ordinary
  ``open(path, "w")`` would give (``0o666`` less the user's umask): ``mkstemp`` alone gives
  ``0o600``, which breaks another user's load of a shared artifact.

Plain Python (``os``, ``stat``): the production loader imports it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import threading
from pathlib import Path

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)

_umask_lock = threading.Lock()


class UntrustedFileError(OSError):
    """A file that may not be read: not a regular file, a symlink, or larger than allowed."""


def current_umask() -> int:
    """The process's umask, read without changing it where the OS allows (Linux /proc)."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii", errors="replace") as f,
    ):
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _umask_lock:  # os.umask can only be read by setting it: keep others out meanwhile
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def read_regular_file(path: str | os.PathLike, limit: int, *, follow: bool = False) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.

    ``follow=False`` refuses a symlink at the last path component (``O_NOFOLLOW``). Raises
    ``FileNotFoundError`` for a missing file, ``UntrustedFileError`` for anything else that is
    not a small regular file, and ``OSError`` for the rest.
    """
    flags = os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY
    if not follow:
        flags |= _O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if isinstance(e, FileNotFoundError):
            raise
        if os.path.islink(path):
            raise UntrustedFileError(f"{path}: is a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UntrustedFileError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise UntrustedFileError(f"{path}: {st.st_size} bytes, more than the {limit} allowed")
        chunks = []
        left = limit + 1  # one byte more than allowed reveals a file that grew meanwhile
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UntrustedFileError(f"{path}: grew past the {limit} bytes allowed while read")
        return data
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file and ``os.replace``.

    Readers see the old file or the whole new one. ``mode`` defaults to ``0o666`` less the
    umask, what ``open(path, "wb")`` would create.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), (0o666 & ~current_umask()) if mode is None else mode)
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def inside(root: Path, relative: str) -> Path | None:
    """``root / relative`` if that names a path inside ``root`` (no ``..``, no absolute path,
    no symlink leading out); None otherwise."""
    if not relative or "\x00" in relative:
        return None
    candidate = Path(relative)
    if candidate.is_absolute() or candidate.drive or ".." in candidate.parts:
        return None
    real_root = os.path.realpath(root)
    full = os.path.realpath(root / candidate)
    if os.path.commonpath([real_root, full]) != real_root or full == real_root:
        return None
    return Path(full)
