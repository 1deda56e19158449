"""The compile cache: keys, memory and disk levels, atomicity across processes, bounds."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest
from layoutc.driver.cache import (
    CacheEntry,
    CompileCache,
    cache_key,
    decode_entry,
    default_cache_dir,
    encode_entry,
)

ENTRY = CacheEntry(
    {"kernel": "copy", "arch": "sm_90"}, {"ptx": b".version 7.8\n", "cubin": b"\x7fELF\0\1\2"}
)


def test_round_trip_memory_then_disk(tmp_path):
    cache = CompileCache(tmp_path)
    key = cache_key("ir", "sm_90", {"opt": 3})
    assert cache.get(key) is None
    cache.put(key, ENTRY)
    assert cache.get(key) == ENTRY
    fresh = CompileCache(tmp_path)
    assert fresh.get(key) == ENTRY  # from disk


def test_key_covers_everything_that_changes_the_output():
    base = cache_key("ir", "sm_90", {"opt": 3}, "v1")
    assert base == cache_key("ir", "sm_90", {"opt": 3}, "v1")
    assert (
        len(
            {
                base,
                cache_key("ir2", "sm_90", {"opt": 3}, "v1"),
                cache_key("ir", "sm_80", {"opt": 3}, "v1"),
                cache_key("ir", "sm_90", {"opt": 2}, "v1"),
                cache_key("ir", "sm_90", {"opt": 3}, "v2"),
            }
        )
        == 5
    )


def test_entries_are_json_and_raw_bytes_never_pickles():
    secret = bytes(32)
    blob = encode_entry("ab" * 32, ENTRY, secret)
    assert blob.startswith(b"LAYOUTC-CACHE")
    size = int.from_bytes(blob[14:22], "little")
    header = json.loads(blob[22 : 22 + size])
    assert header["meta"] == ENTRY.meta
    assert decode_entry(blob, "ab" * 32, secret) == ENTRY


def test_corrupt_or_truncated_entries_read_as_misses(tmp_path):
    cache = CompileCache(tmp_path)
    key = cache_key("ir", "sm_90")
    cache.put(key, ENTRY)
    (path,) = list(Path(tmp_path).rglob("*.lcc"))
    path.write_bytes(path.read_bytes()[:-3])
    fresh = CompileCache(tmp_path)
    assert fresh.get(key) is None
    assert not path.exists()
    assert decode_entry(b"garbage", key, bytes(32)) is None


def _writer(directory: str, key: str) -> None:
    cache = CompileCache(directory)
    for _ in range(30):
        cache.put(key, CacheEntry({"writer": "any"}, {"ptx": b"x" * 1000}))


def test_concurrent_processes_writing_one_key(tmp_path):
    key = cache_key("shared", "sm_90")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), key)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    entry = CompileCache(tmp_path).get(key)
    assert entry == CacheEntry({"writer": "any"}, {"ptx": b"x" * 1000})
    leftovers = [
        p
        for p in Path(tmp_path).rglob("*")
        if p.is_file() and not p.name.endswith(".lcc") and not p.name.startswith("secret-")
    ]
    assert leftovers == []


def test_size_bound_evicts_least_recently_used(tmp_path):
    cache = CompileCache(tmp_path, max_bytes=3 * 1200)
    keys = [cache_key(f"ir{i}", "sm_90") for i in range(6)]
    for i, k in enumerate(keys):
        cache.put(k, CacheEntry({}, {"ptx": bytes([i]) * 1000}))
        os.utime(next(Path(tmp_path).rglob(f"{k}.lcc")), (i, i))
    cache.put(cache_key("last", "sm_90"), CacheEntry({}, {"ptx": b"z" * 1000}))
    total = sum(p.stat().st_size for p in Path(tmp_path).rglob("*.lcc"))
    assert total <= 3 * 1200
    fresh = CompileCache(tmp_path)
    assert fresh.get(keys[0]) is None
    assert fresh.get(cache_key("last", "sm_90")) is not None


def test_environment_controls(tmp_path, monkeypatch):
    monkeypatch.setenv("LAYOUTC_CACHE_DIR", str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"
    monkeypatch.setenv("LAYOUTC_CACHE", "0")
    cache = CompileCache()
    cache.put(cache_key("ir", "sm_90"), ENTRY)
    assert cache.get(cache_key("ir", "sm_90")) is None
    assert not (tmp_path / "here").exists()


def test_bad_keys_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not a cache key"):
        CompileCache(tmp_path).get("../../etc/passwd")
