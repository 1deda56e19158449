"""Executed docs: the helper modules on the path, and one working directory per page."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # doc_blocks, doc_runner

from doc_blocks import doc_pages, page_blocks
from doc_runner import PageSession


@pytest.fixture(scope="session")
def doc_cache(tmp_path_factory):
    """The docs' own compile cache, one per pytest-xdist worker, for their commands and the
    code they run in this process: the run's cache (tests/conftest.py) is shared by the
    workers, and the docs' autotune example expects to tune, not to find a choice another
    worker's test made."""
    from layoutc.driver import cache

    directory = tmp_path_factory.mktemp("layoutc-doc-cache")
    return directory, cache.CompileCache(directory)


@pytest.fixture(autouse=True)
def _doc_cache_in_process(doc_cache, monkeypatch):
    from layoutc.driver import cache

    monkeypatch.setenv("LAYOUTC_CACHE_DIR", str(doc_cache[0]))
    monkeypatch.setattr(cache, "_default", doc_cache[1])


@pytest.fixture(scope="session")
def doc_env(doc_cache) -> dict[str, str]:
    """What the docs' commands run with: the venv's tools first on the PATH, the docs'
    compile cache, none of the variables that add dumps or remarks or change the target."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAYOUTC_")}
    env["LAYOUTC_CACHE_DIR"] = str(doc_cache[0])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _gpu_available() -> bool:
    """The root conftest's check (imported by path: every test folder's conftest is
    ``conftest``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_layoutc_root_conftest", Path(__file__).parents[1] / "conftest.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.gpu_available()


@pytest.fixture(scope="session")
def doc_gpu() -> bool:
    return _gpu_available()


@pytest.fixture(scope="session")
def doc_sessions(doc_env, doc_gpu, tmp_path_factory):
    """``page -> PageSession``, made on first use: a page's blocks run once, in order,
    whichever of its tests runs first."""
    sessions: dict[str, PageSession] = {}

    def get(page: str) -> PageSession:
        if page not in sessions:
            path = next(p for p in doc_pages() if p.name == Path(page).name)
            workdir = tmp_path_factory.mktemp(Path(page).stem)
            sessions[page] = PageSession(page, page_blocks(path), workdir, doc_env, doc_gpu)
        return sessions[page]

    return get
