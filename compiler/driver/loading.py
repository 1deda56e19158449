"""Loading a user's Python file (``layoutc compile FILE.py::kernel``, ``layoutc run FILE.py``).

The file is imported as a module under a private name with its own directory on ``sys.path``
(so it can import its neighbours). An exception while it runs is the user's, so it is reported
with the traceback of their frames only; layoutc's own frames are left out.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any


class SourceError(Exception):
    """The file cannot be loaded, or does not define what was asked for."""

    #: True when the message is already a ``file:line:col: error:`` diagnostic (no CLI prefix).
    diagnostic = False


class SourceSyntaxError(SourceError):
    """The file (or one it imports) does not parse: a diagnostic at the offending token."""

    diagnostic = True


def load_source(path: str | Path) -> ModuleType:
    """Import ``path`` and return the module (cached per resolved path and content)."""
    file = Path(path)
    if not file.is_file():
        raise SourceError(f"{path}: no such file")
    if file.suffix != ".py":
        raise SourceError(f"{path}: expected a Python file (.py)")
    resolved = file.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    name = f"_layoutc_user_{_identifier(file.stem)}_{digest}"
    existing = sys.modules.get(name)
    if existing is not None:
        return existing
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise SourceError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(resolved.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        del sys.modules[name]
        raise SourceSyntaxError(_syntax_diagnostic(e)) from None
    except Exception as e:
        del sys.modules[name]
        raise SourceError(f"{path}: the file raised while loading:\n{_user_traceback(e)}") from None
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    return module


def _identifier(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text)


def _syntax_diagnostic(e: SyntaxError) -> str:
    """``file:line:col: error: SyntaxError: msg``, the offending line and a caret under it.

    Python's compiler raises it from importlib's frames, none of which the user wrote; their
    own import chain (a neighbour with the error) adds nothing the location does not say.
    """
    line = e.lineno or 1
    col = e.offset or 1
    head = f"{e.filename}:{line}:{col}: error: {type(e).__name__}: {e.msg}"
    text = (e.text or "").rstrip("\n")
    if not text.strip():
        return head
    width = 1
    if e.end_lineno == e.lineno and e.end_offset and e.end_offset > col:
        width = e.end_offset - col
    caret = " " * (col - 1) + "^" * max(1, min(width, len(text) - col + 1))
    return f"{head}\n{text}\n{caret}"


def _user_traceback(e: BaseException) -> str:
    from layoutc.frontend.locations import is_internal_file

    everything = traceback.extract_tb(e.__traceback__)
    frames = [
        f
        for f in everything
        if not is_internal_file(f.filename) and not f.filename.startswith("<frozen importlib")
    ] or everything
    lines = traceback.format_list(frames)
    lines.extend(traceback.format_exception_only(type(e), e))
    return "".join(lines).rstrip()


def split_reference(ref: str) -> tuple[str, str | None]:
    """``file.py::name`` -> ``("file.py", "name")``; ``file.py`` -> ``("file.py", None)``."""
    path, sep, name = ref.rpartition("::")
    if not sep:
        return ref, None
    if not name.isidentifier():
        raise SourceError(f"{ref!r}: expected FILE.py::NAME with NAME a Python identifier")
    return path, name


def find_kernel(module: ModuleType, name: str, where: str) -> Any:
    """The ``@layoutc.kernel`` called ``name`` in ``module``."""
    from layoutc.frontend.kernel import Kernel

    value = getattr(module, name, None)
    if value is None:
        kernels = sorted(k for k, v in vars(module).items() if isinstance(v, Kernel))
        raise SourceError(f"{where} has no '{name}'; its kernels: {', '.join(kernels) or 'none'}")
    if not isinstance(value, Kernel):
        raise SourceError(f"{where}: '{name}' is not a @layoutc.kernel function")
    return value


def kernels_of(module: ModuleType) -> list[Any]:
    from layoutc.frontend.kernel import Kernel

    return [v for v in vars(module).values() if isinstance(v, Kernel)]
