"""The compile cache treats its directory as untrusted (docs/reliability.md, "The compile
cache"): swapped, edited, planted and non-regular entries are refused and recompiled, an
unusable directory is reported once, and files honour the umask."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import threading
import time
import warnings
from pathlib import Path

import pytest
from layoutc.driver.cache import (
    CacheEntry,
    CacheWarning,
    CompileCache,
    cache_key,
    encode_entry,
)

A = CacheEntry({"kernel": "scale2"}, {"ll": b"x * 2"})
B = CacheEntry({"kernel": "scale3"}, {"ll": b"x * 3"})


def _file(cache: CompileCache, key: str) -> Path:
    return cache._path(key)


def _two(tmp_path):
    cache = CompileCache(tmp_path)
    ka, kb = cache_key("a", "sm_90"), cache_key("b", "sm_90")
    cache.put(ka, A)
    cache.put(kb, B)
    return cache, ka, kb


def test_swapped_entries_are_refused(tmp_path):
    cache, ka, kb = _two(tmp_path)
    pa, pb = _file(cache, ka), _file(cache, kb)
    da, db = pa.read_bytes(), pb.read_bytes()
    pa.write_bytes(db)
    pb.write_bytes(da)
    fresh = CompileCache(tmp_path)
    assert fresh.get(ka) is None and fresh.get(kb) is None
    assert not pa.exists() and not pb.exists()  # removed, so the next put rewrites them


def test_an_edited_header_is_refused(tmp_path):
    cache, ka, _ = _two(tmp_path)
    p = _file(cache, ka)
    data = p.read_bytes()
    edited = data.replace(b'"scale2"', b'"scale9"')
    assert edited != data and len(edited) == len(data)
    p.write_bytes(edited)
    assert CompileCache(tmp_path).get(ka) is None


def test_a_planted_entry_with_a_recomputed_checksum_is_refused(tmp_path):
    """Whoever cannot read the user's 0600 secret cannot make an entry the cache accepts,
    even one that is well formed for the right key."""
    cache, ka, _ = _two(tmp_path)
    planted = encode_entry(ka, CacheEntry({"kernel": "evil"}, {"ll": b"rm -rf"}), os.urandom(32))
    _file(cache, ka).write_bytes(planted)
    assert CompileCache(tmp_path).get(ka) is None
    # The same bytes re-tagged with the right secret are accepted: the check is the tag.
    secret = next(tmp_path.rglob("secret-*")).read_bytes()
    body = planted[:-32]
    _file(cache, ka).write_bytes(body + hmac.new(secret, body, hashlib.sha256).digest())
    assert CompileCache(tmp_path).get(ka).meta == {"kernel": "evil"}


def test_the_secret_is_private_and_checked(tmp_path):
    _, ka, _ = _two(tmp_path)
    (secret,) = tmp_path.rglob("secret-*")
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    secret.chmod(0o644)  # someone else may have read it: stop trusting the disk
    fresh = CompileCache(tmp_path)
    with pytest.warns(CacheWarning, match="readable by nobody else"):
        assert fresh.get(ka) is None
        fresh.put(ka, A)
    assert fresh.get(ka) == A  # the memory level still works


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_an_entry_does_not_block(tmp_path):
    cache, ka, _ = _two(tmp_path)
    p = _file(cache, ka)
    p.unlink()
    os.mkfifo(p)
    result = []
    t = threading.Thread(target=lambda: result.append(CompileCache(tmp_path).get(ka)))
    t.start()
    t.join(20)
    assert not t.is_alive(), "reading a FIFO cache entry blocked"
    assert result == [None]
    CompileCache(tmp_path).put(ka, A)  # replaced by a regular file
    assert CompileCache(tmp_path).get(ka) == A


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_symlink_to_dev_zero_is_not_read(tmp_path):
    cache, ka, _ = _two(tmp_path)
    p = _file(cache, ka)
    p.unlink()
    p.symlink_to("/dev/zero")
    start = time.monotonic()
    assert CompileCache(tmp_path, max_bytes=1 << 20).get(ka) is None
    assert time.monotonic() - start < 10
    assert not p.is_symlink()


def test_an_oversized_entry_is_not_read(tmp_path):
    cache, ka, _ = _two(tmp_path)
    p = _file(cache, ka)
    p.write_bytes(p.read_bytes() + b"\0" * 4096)
    assert CompileCache(tmp_path, max_bytes=1024).get(ka) is None


def test_an_unusable_directory_warns_once(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    cache = CompileCache(blocker)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(5):
            key = cache_key(f"k{i}", "sm_90")
            cache.put(key, A)
            assert cache.get(key) == A  # memory still caches
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 1, messages
    assert str(blocker) in messages[0] and "memory only" in messages[0]


def test_cache_files_honour_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        cache, ka, _ = _two(tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(_file(cache, ka).stat().st_mode) == 0o644


def test_entries_carry_their_key(tmp_path):
    cache, ka, _ = _two(tmp_path)
    data = _file(cache, ka).read_bytes()
    size = int.from_bytes(data[14:22], "little")
    assert json.loads(data[22 : 22 + size])["key"] == ka
