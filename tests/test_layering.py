"""The layering of docs/architecture.md, read off the source: no import points up a layer.

- ``ir`` imports nothing of ``passes``, ``compiler`` (the ``layoutc`` top level) or ``runtime``;
- ``passes`` imports ``ir`` only (nothing of ``compiler`` or ``runtime``);
- ``runtime`` imports nothing of ``ir``, ``passes`` or ``compiler``, never SymPy, and
  llvmlite only inside a function (the CPU executor, when a CPU kernel runs).

Every ``import`` statement counts, lazy ones inside functions and ``TYPE_CHECKING`` ones too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: source folder -> import name of its package (pyproject.toml's package-dir)
FOLDERS = {"ir": "layoutc.ir", "passes": "layoutc.passes", "runtime": "layoutc.runtime"}

#: layer -> layers and third-party packages it must not import; "module-level:" names a
#: package allowed only inside functions
FORBIDDEN = {
    "ir": {"passes", "compiler", "runtime"},
    "passes": {"compiler", "runtime"},
    "runtime": {"ir", "passes", "compiler", "sympy", "module-level:llvmlite"},
}


def layer_of(module: str) -> str:
    """The layer (or third-party top-level package) an absolute module name belongs to."""
    parts = module.split(".")
    if parts[0] != "layoutc":
        return parts[0]
    if len(parts) > 1 and parts[1] in FOLDERS:
        return parts[1]
    return "compiler"


def _package_of(path: Path, folder: str) -> str:
    rel = path.relative_to(ROOT / folder).with_suffix("")
    parts = [FOLDERS[folder], *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts)
    return ".".join(parts[:-1])


def imports_in(source: str, package: str) -> list[tuple[int, str, bool]]:
    """(line, absolute module name, at module level) of every import in ``source``, a module
    of ``package``."""
    tree = ast.parse(source)
    found: list[tuple[int, str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = top and not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.Import):
                found.extend((child.lineno, a.name, top) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - child.level + 1]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                if module == "layoutc":  # from layoutc import ir, passes, ...
                    found.extend((child.lineno, f"layoutc.{a.name}", top) for a in child.names)
                else:
                    found.append((child.lineno, module, top))
            visit(child, inner)

    visit(tree, True)
    return found


def violations(folder: str) -> list[str]:
    bad = []
    forbidden = FORBIDDEN[folder]
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, module, top in imports_in(path.read_text(), _package_of(path, folder)):
            layer = layer_of(module)
            if layer in forbidden or (top and f"module-level:{layer}" in forbidden):
                where = f"{path.relative_to(ROOT)}:{line}"
                bad.append(f"{where}: '{folder}' imports {module} ('{layer}')")
    return bad


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_import_points_up_a_layer(folder: str) -> None:
    assert violations(folder) == []


def test_the_checker_sees_every_kind_of_import() -> None:
    """The rules catch absolute, relative, ``from layoutc import`` and lazy imports."""
    source = (
        "import layoutc.passes\n"
        "from ...passes import manager\n"
        "from layoutc import runtime\n"
        "from . import operation\n"
        "def f():\n"
        "    from layoutc.codegen import translate\n"
        "    import llvmlite\n"
    )
    found = [(m, top) for _, m, top in imports_in(source, "layoutc.ir.core")]
    assert found == [
        ("layoutc.passes", True),
        ("layoutc.passes", True),
        ("layoutc.runtime", True),
        ("layoutc.ir.core", True),
        ("layoutc.codegen", False),
        ("llvmlite", False),
    ]
    assert [layer_of(m) for m, _ in found] == [
        "passes",
        "passes",
        "runtime",
        "ir",
        "compiler",
        "llvmlite",
    ]


def test_package_names_follow_pyproject() -> None:
    assert _package_of(ROOT / "ir" / "core" / "operation.py", "ir") == "layoutc.ir.core"
    assert _package_of(ROOT / "ir" / "core" / "__init__.py", "ir") == "layoutc.ir.core"
    assert _package_of(ROOT / "runtime" / "abi.py", "runtime") == "layoutc.runtime"
