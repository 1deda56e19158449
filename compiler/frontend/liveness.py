"""Which variables a kernel reads after a point: the facts control-flow rewriting needs.

A dynamic ``if`` yields only the variables that are assigned in a branch *and* read afterwards;
a dynamic loop carries only the variables that are assigned in its body and read after the loop or
in a later iteration. Both come from a backward liveness analysis over the kernel's AST. It is a
conservative over-approximation (a name read anywhere inside a nested function or lambda counts
as read where that function is defined), so it can only make the tracer keep a value it could
have dropped, never drop one that is used.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def reads(node: ast.AST | None) -> set[str]:
    """Names read by ``node`` in the enclosing scope (free names of nested scopes included)."""
    if node is None:
        return set()
    r = _Reads()
    r.visit(node)
    return r.names


def _params(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.arg for a in every}


class _Reads(ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Store):
            self.names.add(node.id)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.names.add(node.target.id)
        self.generic_visit(node)

    def _defaults(self, args: ast.arguments) -> None:
        for d in [*args.defaults, *[k for k in args.kw_defaults if k is not None]]:
            self.visit(d)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        self._defaults(node.args)
        inner: set[str] = set()
        for st in node.body:
            inner |= reads(st)
        self.names |= inner - _params(node.args) - assigned(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._defaults(node.args)
        self.names |= reads(node.body) - _params(node.args)

    def _comprehension(self, node: ast.AST) -> None:
        gens: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        self.visit(gens[0].iter)  # evaluated in the enclosing scope
        bound: set[str] = set()
        inner: set[str] = set()
        for i, g in enumerate(gens):
            bound |= target_names(g.target)
            if i:
                inner |= reads(g.iter)
            for cond in g.ifs:
                inner |= reads(cond)
        for part in ("elt", "key", "value"):
            inner |= reads(getattr(node, part, None))
        self.names |= inner - bound

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


def _reads_all(nodes: list) -> set[str]:
    out: set[str] = set()
    for n in nodes:
        out |= reads(n)
    return out


def target_names(target: ast.AST) -> set[str]:
    """Names bound by an assignment target (``a``, ``(a, b)``, ``[a, *b]``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        out: set[str] = set()
        for e in target.elts:
            out |= target_names(e)
        return out
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


class _Binder(ast.NodeVisitor):
    """Names bound in the current function scope by a statement (walrus included)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.names.add(node.id)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.names.add(node.name)
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.names.add(node.name)
        for d in node.decorator_list:
            self.visit(d)

    def visit_arguments(self, node: ast.arguments) -> None:
        for d in [*node.defaults, *[k for k in node.kw_defaults if k is not None]]:
            self.visit(d)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)

    def _comprehension(self, node: ast.AST) -> None:
        # Comprehension targets are local to the comprehension; walrus escapes it.
        for n in ast.walk(node):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                self.names.add(n.target.id)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_alias(self, node: ast.alias) -> None:
        if node.name != "*":
            self.names.add((node.asname or node.name).split(".")[0])

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)


def assigned(stmts: list[ast.stmt]) -> set[str]:
    """Names bound anywhere in ``stmts`` in the enclosing function's scope."""
    b = _Binder()
    for s in stmts:
        b.visit(s)
    return b.names


@dataclass
class ControlInfo:
    """Liveness facts for one ``if``/``for``/``while`` statement.

    ``after``: names live right after the statement. ``header`` (loops): names live at the top
    of each iteration (the loop test), which includes ``after`` and what the next iteration reads.
    """

    after: frozenset[str]
    header: frozenset[str] = field(default_factory=frozenset)


class Liveness:
    """Backward liveness over a function body; results in ``info`` keyed by statement node."""

    def __init__(self, fn: ast.FunctionDef):
        self.info: dict[ast.stmt, ControlInfo] = {}
        self._loops: list[tuple[set[str], set[str]]] = []  # (break target, continue target)
        self.block(fn.body, set())

    def block(self, stmts: list[ast.stmt], live_out: set[str]) -> set[str]:
        live = set(live_out)
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s: ast.stmt, out: set[str]) -> set[str]:
        if isinstance(s, ast.If):
            self.info[s] = ControlInfo(frozenset(out))
            return reads(s.test) | self.block(s.body, out) | self.block(s.orelse, out)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            return self._for(s, out)
        if isinstance(s, ast.While):
            return self._while(s, out)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            bound: set[str] = set()
            for item in s.items:
                if item.optional_vars is not None:
                    bound |= target_names(item.optional_vars)
            inner = self.block(s.body, out) - bound
            return inner | _reads_all([i.context_expr for i in s.items])
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            return self._try(s, out)
        if isinstance(s, ast.Match):
            live = reads(s.subject)
            for case in s.cases:
                live |= self.block(case.body, out) | reads(case.guard) | reads(case.pattern)
            return live | out
        if isinstance(s, ast.Break):
            return set(self._loops[-1][0]) if self._loops else set(out)
        if isinstance(s, ast.Continue):
            return set(self._loops[-1][1]) if self._loops else set(out)
        if isinstance(s, ast.Return):
            return reads(s.value)
        if isinstance(s, ast.Raise):
            return reads(s)
        if isinstance(s, ast.Delete):
            return out | reads(s)
        defs = assigned([s])
        if isinstance(s, ast.AnnAssign) and s.value is None:
            defs = set()
        return (out - defs) | reads(s)

    def _for(self, s: ast.For | ast.AsyncFor, out: set[str]) -> set[str]:
        exit_live = self.block(s.orelse, out)
        bound = target_names(s.target)
        header = set(exit_live)
        while True:
            self._loops.append((out, header))
            body_in = self.block(s.body, header)
            self._loops.pop()
            new = exit_live | (body_in - bound) | (reads(s.target) - bound)
            if new == header:
                break
            header = new
        self.info[s] = ControlInfo(frozenset(exit_live), frozenset(header))
        return reads(s.iter) | header

    def _while(self, s: ast.While, out: set[str]) -> set[str]:
        exit_live = self.block(s.orelse, out)
        test = reads(s.test)
        header = test | exit_live
        while True:
            self._loops.append((out, header))
            body_in = self.block(s.body, header)
            self._loops.pop()
            new = test | exit_live | body_in
            if new == header:
                break
            header = new
        self.info[s] = ControlInfo(frozenset(exit_live), frozenset(header))
        return header

    def _try(self, s: ast.stmt, out: set[str]) -> set[str]:
        fin_in = self.block(s.finalbody, out)  # type: ignore[attr-defined]
        else_in = self.block(s.orelse, fin_in)  # type: ignore[attr-defined]
        handlers: set[str] = set()
        for h in s.handlers:  # type: ignore[attr-defined]
            handlers |= (self.block(h.body, fin_in) - ({h.name} if h.name else set())) | reads(
                h.type
            )
        body_in = self.block(s.body, else_in | handlers | fin_in)  # type: ignore[attr-defined]
        return body_in | handlers | fin_in
