"""The layering of docs/architecture.md, read off the source: no import points up a layer.

- ``ir`` imports nothing of ``passes``, ``compiler`` (the ``layoutc`` top level) or ``runtime``;
- ``passes`` imports ``ir`` only (nothing of ``compiler`` or ``runtime``);
- ``runtime`` imports nothing of ``ir``, ``passes`` or ``compiler``, never SymPy, and
  llvmlite only inside a function (the CPU executor, when a CPU kernel runs);
- inside a package whose modules call each other both ways (the symbolic engine, ``ir/algebra/
  sym``), the modules' import graph is acyclic: calls up its layer order go through a hook table.

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


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The absolute name of the module a ``from ... import`` statement of ``package`` names."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


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
                module = _absolute(child, package)
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


#: packages whose modules must import each other without a cycle (folder, import name)
ACYCLIC_PACKAGES = [("ir/algebra/sym", "layoutc.ir.algebra.sym")]


def module_graph(sources: dict[str, str], package: str) -> dict[str, set[str]]:
    """module -> the modules of the same package it imports (short names; ``__init__`` for the
    package itself), from ``sources`` (short name -> text). ``from . import arith`` is an edge
    to ``arith``; every import counts, lazy and ``TYPE_CHECKING`` ones too."""
    graph: dict[str, set[str]] = {name: set() for name in sources}
    prefix = package + "."
    for name, source in sources.items():
        own = package if name == "__init__" else f"{package}.{name}"
        own_package = package if name == "__init__" else own.rpartition(".")[0]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, own_package)
                targets = [f"{base}.{a.name}" for a in node.names]
                targets = [t for t in targets if t.removeprefix(prefix) in sources] or [base]
            else:
                continue
            for target in targets:
                short = "__init__" if target == package else target.removeprefix(prefix)
                if short in sources and short != name:
                    graph[name].add(short)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (``[a, b, a]``), or ``[]`` when it is acyclic."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for succ in sorted(graph[node]):
            if state.get(succ) == 1:
                return [*path[path.index(succ) :], succ]
            if succ not in state:
                found = visit(succ)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


@pytest.mark.parametrize(("folder", "package"), ACYCLIC_PACKAGES)
def test_package_import_graph_is_acyclic(folder: str, package: str) -> None:
    sources = {p.stem: p.read_text() for p in sorted((ROOT / folder).glob("*.py"))}
    graph = module_graph(sources, package)
    assert len(graph) > 2 and any(graph.values())  # the package was found and read
    assert find_cycle(graph) == [], "import cycle"


def test_the_cycle_checker_sees_lazy_and_from_package_imports() -> None:
    """A cycle closed by a function-level ``from . import`` is found, as the engine's old
    bottom-of-file import was."""
    sources = {
        "__init__": "from . import arith\n",
        "expr": "from .cache import MemoCache\ndef f():\n    from . import arith as _a\n",
        "arith": "from .expr import SymInt\nfrom layoutc.ir.algebra.sym import cache\n",
        "cache": "import itertools\n",
    }
    graph = module_graph(sources, "layoutc.ir.algebra.sym")
    assert graph == {
        "__init__": {"arith"},
        "expr": {"cache", "arith"},
        "arith": {"expr", "cache"},
        "cache": set(),
    }
    assert find_cycle(graph) == ["arith", "expr", "arith"]
    del sources["expr"]
    assert find_cycle(module_graph(sources, "layoutc.ir.algebra.sym")) == []


# -- the symbolic engine's hook table: calls up the order, and only those -------------------------

SYM_FOLDER, SYM_PACKAGE = ACYCLIC_PACKAGES[0]


def hook_wiring(init_source: str) -> dict[str, str]:
    """hook name -> the module whose function fills it, read off ``hooks.wire(name=module.fn)``."""
    wiring: dict[str, str] = {}
    for node in ast.walk(ast.parse(init_source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "wire"
        ):
            for kw in node.keywords:
                assert isinstance(kw.value, ast.Attribute) and isinstance(kw.value.value, ast.Name)
                wiring[str(kw.arg)] = kw.value.value.id
    return wiring


def hook_uses(sources: dict[str, str]) -> dict[str, set[str]]:
    """module -> the hooks it calls (``hooks.name``)."""
    return {
        name: {
            node.attr
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "hooks"
            and node.attr not in ("wire", "NAMES")
        }
        for name, source in sources.items()
    }


def declared_hooks(hooks_source: str) -> set[str]:
    """The names ``hooks.py`` declares (its annotated module globals)."""
    return {
        node.target.id
        for node in ast.parse(hooks_source).body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules ``start`` imports, directly or not."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for succ in graph[todo.pop()]:
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return seen


def misplaced_hooks(sources: dict[str, str], package: str) -> list[str]:
    """Every call through a hook that is not needed (a direct import would close no cycle),
    every hook declared but not wired or wired but not declared, and every unused hook."""
    graph = module_graph(sources, package)
    wiring = hook_wiring(sources["__init__"])
    declared = declared_hooks(sources["hooks"])
    bad = [f"hooks.{n} is declared but not wired" for n in sorted(declared - wiring.keys())]
    bad += [f"hooks.{n} is wired but not declared" for n in sorted(wiring.keys() - declared)]
    used: set[str] = set()
    for module, names in sorted(hook_uses(sources).items()):
        used |= names
        for name in sorted(names):
            target = wiring.get(name)
            if target is None:
                bad.append(f"{module} calls hooks.{name}, which is not wired")
            elif module not in reaches(graph, target):
                bad.append(f"{module} calls hooks.{name} but may import {target} directly")
    bad += [f"hooks.{n} is never called" for n in sorted(declared - used)]
    return bad


def test_every_hook_call_goes_up_the_symbolic_engines_order() -> None:
    """A hook is the way up the order, never a shortcut: each call through ``hooks`` is one a
    direct import would turn into a cycle, and the table holds exactly the hooks in use."""
    sources = {p.stem: p.read_text() for p in sorted((ROOT / SYM_FOLDER).glob("*.py"))}
    assert len(hook_wiring(sources["__init__"])) > 5 and any(hook_uses(sources).values())
    assert misplaced_hooks(sources, SYM_PACKAGE) == []


def test_the_hook_checker_sees_shortcuts_and_dead_hooks() -> None:
    sources = {
        "__init__": "from . import arith, hooks\nhooks.wire(add=arith.add, sign=arith.sign)\n",
        "hooks": "add: Fn\nsign: Fn\nneg: Fn\n",
        "expr": "from . import hooks\ndef f(a, b):\n    return hooks.add(a, b)\n",
        "arith": "from .expr import f\nfrom . import hooks\ndef g(x):\n    return hooks.sign(x)\n",
    }
    assert misplaced_hooks(sources, SYM_PACKAGE) == [
        "hooks.neg is declared but not wired",
        "arith calls hooks.sign but may import arith directly",
        "hooks.neg is never called",
    ]
    sources["hooks"] = "add: Fn\nsign: Fn\n"
    sources["arith"] = "from .expr import f\n"
    sources["expr"] += "def h(x):\n    return hooks.sign(x)\n"
    assert misplaced_hooks(sources, SYM_PACKAGE) == []
