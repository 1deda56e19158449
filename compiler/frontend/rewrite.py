"""Rewriting a kernel's AST so that its control flow can become structured IR.

The kernel body is parsed from its source (line numbers and columns kept), and each ``if``,
``for`` and ``while`` is turned into a call of the control-flow runtime (:mod:`.control_flow`),
which decides *when the kernel is traced* whether the construct is static (plain Python: the taken
branch runs, static loops unroll) or dynamic (``scf.if``/``scf.for``/``scf.while``)::

    if c:                      _lc_c1 = c
        x = a                  def _lc_then1(x): x = a; return (x,)
    else:              -->     def _lc_else1(x): x = b; return (x,)
        x = b                  (x,) = _lc_rt.if_(_lc_c1, _lc_then1, _lc_else1, ('x',),
                                                 _lc_rt.read(locals(), ('x',)), ('x',))
                               if x is _lc_rt.UNDEF: del x

Branch and loop bodies become local functions that take and return every variable they assign;
the liveness analysis (:mod:`.liveness`) says which of those are read afterwards (the results of a
dynamic ``if``, the iter_args of a dynamic loop). A body containing ``return``/``break``/
``continue`` keeps its Python form and must be static (a clear error otherwise), except for the
CUDA guard idiom ``if i >= n: return`` in tail position, which is rewritten to put the rest of the
kernel in the other branch. Expressions are rewritten too: ``and``/``or``/``not``, chained
comparisons, ``a if c else b`` and ``min``/``max`` work on dynamic values.
"""

from __future__ import annotations

import ast
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FunctionType
from typing import Any

from .errors import CompileError, NotSupportedError
from .liveness import Liveness, assigned, target_names
from .locations import CodeSet, nested_code_objects

RT = "_lc_rt"


class RewrittenKernel:
    """The rewritten kernel: a function to call with the same arguments, its code objects, and
    the source positions of its ``def`` and of each parameter (for the IR's locations)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        codes: CodeSet,
        filename: str,
        def_loc: Any,
        param_locs: dict[str, Any],
    ):
        self.fn = fn
        self.codes = codes
        self.filename = filename
        self.def_loc = def_loc
        self.param_locs = param_locs


def _loc(node: ast.AST, filename: str) -> Any:
    from ..ir.core.location import FileLineColLoc

    return FileLineColLoc(filename, node.lineno, node.col_offset + 1)


def parse_function(fn: FunctionType) -> tuple[ast.FunctionDef, str]:
    """The function's AST with its real line numbers and columns, decorators removed."""
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise CompileError(
            f"cannot read the source of kernel '{fn.__qualname__}' ({e}); layoutc rewrites the "
            "kernel's Python source, so define kernels in a file (or a notebook cell)"
        ) from None
    source = "".join(lines)
    indented = source[:1].isspace()
    text = "if 1:\n" + source if indented else source
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as e:  # e.g. a lambda assigned with a decorator we cannot isolate
        raise CompileError(f"cannot parse the source of kernel '{fn.__qualname__}': {e}") from None
    ast.increment_lineno(tree, first - (2 if indented else 1))
    body = tree.body[0].body if indented else tree.body  # type: ignore[attr-defined]
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            if isinstance(node, ast.AsyncFunctionDef):
                raise CompileError("not supported: async kernels", _loc(node, filename)) from None
            node.decorator_list = []
            return node, filename
    raise CompileError(f"cannot find the definition of kernel '{fn.__qualname__}' in its source")


@dataclass(frozen=True)
class _Compiled:
    """What a rewrite makes of one code object: the factory's code and the source positions."""

    code: CodeType
    filename: str
    def_loc: Any
    param_locs: dict[str, Any]


_MEMO: OrderedDict[tuple[CodeType, str, bool], _Compiled] = OrderedDict()
_MEMO_SIZE = 256
_memo_lock = threading.Lock()


def rewrite_kernel(fn: FunctionType, kernel: bool = True) -> RewrittenKernel:
    """Parse, rewrite and compile ``fn``; the result runs in ``fn``'s globals and closure.

    ``kernel=False`` rewrites a helper (``@lc.func``): it may return values and keeps its
    default arguments.

    The rewrite depends only on the function's code (its source), so it is memoised per code
    object: a kernel builder (``make_gemm(cfg)``) makes a new function of the same code per
    configuration, and each is bound to its own globals and closure here. The key holds the
    code object (equal code objects have equal source positions) and its file name.
    """
    key = (fn.__code__, fn.__code__.co_filename, kernel)
    with _memo_lock:
        compiled = _MEMO.get(key)
        if compiled is not None:
            _MEMO.move_to_end(key)
    if compiled is None:
        compiled = _compile_rewritten(fn, kernel)
        with _memo_lock:
            _MEMO[key] = compiled
            while len(_MEMO) > _MEMO_SIZE:
                _MEMO.popitem(last=False)
    namespace: dict[str, Any] = {}
    exec(compiled.code, fn.__globals__, namespace)
    from . import control_flow

    cells = [c.cell_contents if _cell_filled(c) else None for c in (fn.__closure__ or ())]
    rewritten = namespace["_lc_factory"](control_flow, *cells)
    codes = CodeSet(nested_code_objects(rewritten.__code__))
    return RewrittenKernel(
        rewritten, codes, compiled.filename, compiled.def_loc, dict(compiled.param_locs)
    )


def _compile_rewritten(fn: FunctionType, kernel: bool) -> _Compiled:
    """Parse and rewrite ``fn``'s source; compile the factory that binds it to a closure."""
    node, filename = parse_function(fn)
    def_loc = _loc(node, filename)
    a = node.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    param_locs = {p.arg: _loc(p, filename) for p in params}
    new = KernelRewriter(filename).function(node, top=kernel)
    # A kernel's arguments are bound by the tracer (defaults belong to the original signature);
    # annotations are never evaluated again.
    new.args = _plain_arguments(new.args, keep_defaults=not kernel)
    new.returns = None
    freevars = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name="_lc_factory",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=RT), *[ast.arg(arg=v) for v in freevars]],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[new, ast.Return(value=ast.Name(id=new.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
    )
    ast.copy_location(factory, node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, filename, "exec")
    return _Compiled(code, filename, def_loc, param_locs)


def _cell_filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _plain_arguments(args: ast.arguments, keep_defaults: bool = False) -> ast.arguments:
    strip = lambda a: ast.arg(arg=a.arg, annotation=None)
    return ast.arguments(
        posonlyargs=[strip(a) for a in args.posonlyargs],
        args=[strip(a) for a in args.args],
        vararg=strip(args.vararg) if args.vararg else None,
        kwonlyargs=[strip(a) for a in args.kwonlyargs],
        kw_defaults=list(args.kw_defaults) if keep_defaults else [None] * len(args.kwonlyargs),
        kwarg=strip(args.kwarg) if args.kwarg else None,
        defaults=list(args.defaults) if keep_defaults else [],
    )


# -------------------------------------------------------------------------------------------
# helpers to build AST
# -------------------------------------------------------------------------------------------


def _name(id: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id, ctx=ast.Store() if store else ast.Load())


def _rt(attr: str) -> ast.Attribute:
    return ast.Attribute(value=_name(RT), attr=attr, ctx=ast.Load())


def _call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def _str_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(value=n) for n in names], ctx=ast.Load())


def _name_tuple(names: list[str], store: bool = False) -> ast.Tuple:
    return ast.Tuple(
        elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load()
    )


def _lambda(body: ast.expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.copy_location(ast.Lambda(args=args, body=body), body)


def _def(name: str, params: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=p) for p in params],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    return ast.FunctionDef(
        name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None
    )


def _read_locals(names: list[str]) -> ast.Call:
    return _call(_rt("read"), _call(_name("locals")), _str_tuple(names))


def _at(node: Any, origin: ast.AST) -> Any:
    """Place a generated node at ``origin``'s first line and column, on one line.

    One-line positions matter: CPython locates a method call at the end line of its attribute,
    so a generated ``_lc_rt.if_(...)`` spanning the whole ``if`` statement would point at the
    statement's last line instead of its ``if`` keyword.
    """
    node.lineno = node.end_lineno = origin.lineno  # type: ignore[attr-defined]
    node.col_offset = origin.col_offset  # type: ignore[attr-defined]
    node.end_col_offset = origin.col_offset + _KEYWORD_WIDTH.get(type(origin), 1)  # type: ignore[attr-defined]
    return node


_KEYWORD_WIDTH = {ast.If: 2, ast.For: 3, ast.While: 5}


def _expr_at(call: ast.expr, origin: ast.expr) -> ast.expr:
    """A generated call standing for expression ``origin``: its span, helpers on line one."""
    ast.copy_location(call, origin)
    for sub in ast.walk(call):
        if isinstance(sub, (ast.expr, ast.arg)) and getattr(sub, "lineno", None) is None:
            _at(sub, origin)
    return call


def _located(nodes: list[ast.stmt], origin: ast.AST) -> list[ast.stmt]:
    """Give generated nodes (those without a position) the position of ``origin``."""
    for n in nodes:
        for sub in ast.walk(n):
            positioned = isinstance(sub, (ast.expr, ast.stmt, ast.arg, ast.excepthandler))
            if positioned and getattr(sub, "lineno", None) is None:
                _at(sub, origin)
    return nodes


def _assign_back(names: list[str], call: ast.expr) -> list[ast.stmt]:
    """``(a, b) = call`` then ``if a is UNDEF: del a`` for each name (Python's unbound)."""
    if not names:
        return [ast.Expr(value=call)]
    out: list[ast.stmt] = [ast.Assign(targets=[_name_tuple(names, store=True)], value=call)]
    for n in names:
        test = ast.Compare(left=_name(n), ops=[ast.Is()], comparators=[_rt("UNDEF")])
        delete = ast.Delete(targets=[ast.Name(id=n, ctx=ast.Del())])
        out.append(ast.If(test=test, body=[delete], orelse=[]))
    return out


# -------------------------------------------------------------------------------------------
# early exits
# -------------------------------------------------------------------------------------------


def _exit_reason(stmts: list[ast.stmt], loop_level: bool) -> str | None:
    """Why a body cannot become a region: it returns, yields, or breaks out of this construct.

    ``loop_level``: the body is a loop's, so its own ``break``/``continue`` count as exits.
    ``break``/``continue`` of loops nested inside the body do not.
    """
    for s in stmts:
        r = _stmt_exit(s, loop_level)
        if r is not None:
            return r
    return None


def _stmt_exit(s: ast.AST, counts_break: bool) -> str | None:
    if isinstance(s, ast.Return):
        return "return"
    if isinstance(s, (ast.Break, ast.Continue)):
        return type(s).__name__.lower() if counts_break else None
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return None
    if isinstance(s, (ast.Yield, ast.YieldFrom, ast.Await)):
        return type(s).__name__.lower()
    inner_counts = counts_break and not isinstance(s, (ast.For, ast.While, ast.AsyncFor))
    for child in ast.iter_child_nodes(s):
        if isinstance(child, (ast.For, ast.While, ast.AsyncFor)):
            # a nested loop's own break/continue stay inside it; its orelse does not
            r = _exit_reason(child.body, False)
            if r is None:
                r = _exit_reason(child.orelse, counts_break)
            if r is not None:
                return r
            continue
        r = _stmt_exit(child, inner_counts)
        if r is not None:
            return r
    return None


def _ends_with_return(stmts: list[ast.stmt]) -> bool:
    return bool(stmts) and isinstance(stmts[-1], ast.Return)


def hoist_guard_returns(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """In tail position, ``if c: ...; return`` + rest  ->  ``if c: ... else: rest``.

    Bare returns disappear (the function ends anyway); ``return <value>`` stays at the end of its
    branch, for :func:`assign_tail_returns`.
    """
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            if s.value is not None:
                out.append(s)
            return out  # the rest is unreachable
        if isinstance(s, ast.If):
            then_ret = _ends_with_return(s.body)
            else_ret = _ends_with_return(s.orelse)
            if then_ret or else_ret:
                rest = stmts[i + 1 :]
                body = s.body if then_ret else s.body + rest
                orelse = s.orelse if else_ret else s.orelse + rest
                new = ast.If(
                    test=s.test,
                    body=hoist_guard_returns(body) or [ast.copy_location(ast.Pass(), s)],
                    orelse=hoist_guard_returns(orelse),
                )
                out.append(ast.copy_location(new, s))
                return out
        out.append(s)
    return out


RESULT = "_lc_result"


def _tail_value_return(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return last.value is not None
    if isinstance(last, ast.If):
        return _tail_value_return(last.body) or _tail_value_return(last.orelse)
    return False


def assign_tail_returns(stmts: list[ast.stmt], origin: ast.AST) -> list[ast.stmt]:
    """Tail ``return x`` in branches -> ``_lc_result = x`` and one ``return _lc_result`` at the
    end, so that a helper returning from a dynamic ``if`` yields its value as the if's result."""

    def assign(value: ast.expr | None, at: ast.AST) -> ast.stmt:
        v = value if value is not None else ast.Constant(value=None)
        return ast.copy_location(ast.Assign(targets=[_name(RESULT, True)], value=v), at)

    def tails(block: list[ast.stmt], at: ast.AST) -> list[ast.stmt]:
        if not block:
            return [assign(None, at)]
        last = block[-1]
        if isinstance(last, ast.Return):
            return [*block[:-1], assign(last.value, last)]
        if isinstance(last, ast.If) and (
            _tail_value_return(last.body) or _tail_value_return(last.orelse)
        ):
            new = ast.If(
                test=last.test, body=tails(last.body, last), orelse=tails(last.orelse, last)
            )
            return [*block[:-1], ast.copy_location(new, last)]
        return [*block, assign(None, last)]

    if not _tail_value_return(stmts):
        return stmts
    ret = ast.copy_location(ast.Return(value=_name(RESULT)), stmts[-1])
    return [*tails(stmts, origin), ret]


# -------------------------------------------------------------------------------------------
# the rewriter
# -------------------------------------------------------------------------------------------


class KernelRewriter:
    """Rewrites one function body (nested function definitions get their own rewriter)."""

    def __init__(self, filename: str, counter: list[int] | None = None):
        self.filename = filename
        self._counter = counter if counter is not None else [0]
        self.live: Liveness | None = None

    def fresh(self) -> int:
        self._counter[0] += 1
        return self._counter[0]

    def function(self, node: ast.FunctionDef, top: bool = False) -> ast.FunctionDef:
        for n in ast.walk(node):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                raise NotSupportedError(
                    f"not supported: '{type(n).__name__.lower()}' statements in a kernel",
                    _loc(n, self.filename),
                )
        if top:
            bad = _value_return(node.body)
            if bad is not None:
                raise CompileError(
                    "a kernel cannot return a value (write results into a tensor)",
                    _loc(bad, self.filename),
                )
        body = assign_tail_returns(hoist_guard_returns(node.body), node)
        node.body = body
        self.live = Liveness(node)
        node.body = self.stmts(body)
        return node

    def stmts(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def expr(self, e: ast.expr) -> ast.expr:
        return _ExprRewriter().visit(e)

    def stmt(self, s: ast.stmt) -> list[ast.stmt]:
        if isinstance(s, ast.If):
            return self.if_(s)
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, ast.While):
            return self.while_(s)
        if isinstance(s, (ast.AsyncFor, ast.AsyncWith, ast.AsyncFunctionDef)):
            raise NotSupportedError(
                "not supported: async constructs in a kernel", _loc(s, self.filename)
            )
        if isinstance(s, ast.FunctionDef):
            for d in range(len(s.decorator_list)):
                s.decorator_list[d] = self.expr(s.decorator_list[d])
            return [KernelRewriter(self.filename, self._counter).function(s)]
        if isinstance(s, (ast.With, ast.Try)) or type(s).__name__ == "TryStar":
            for field in ("body", "orelse", "finalbody"):
                if hasattr(s, field):
                    setattr(s, field, self.stmts(getattr(s, field)))
            for h in getattr(s, "handlers", []):
                h.body = self.stmts(h.body)
            if isinstance(s, ast.With):
                for item in s.items:
                    item.context_expr = self.expr(item.context_expr)
            return [s]
        if isinstance(s, ast.Match):
            s.subject = self.expr(s.subject)
            for case in s.cases:
                case.body = self.stmts(case.body)
            return [s]
        if isinstance(s, ast.ClassDef):
            return [s]
        return [_ExprRewriter().visit(s)]

    # -- if -----------------------------------------------------------------------------------
    def if_(self, s: ast.If) -> list[ast.stmt]:
        assert self.live is not None
        info = self.live.info[s]
        test = self.expr(s.test)
        reason = _exit_reason(s.body + s.orelse, loop_level=True)
        body, orelse = self.stmts(s.body), self.stmts(s.orelse)
        if reason is not None:
            cond = _call(
                _rt("static_cond"), test, ast.Constant(value=f"an `if` containing `{reason}`")
            )
            new = ast.If(test=_expr_at(cond, s.test), body=body, orelse=orelse)
            return _located([new], s)
        n = self.fresh()
        names = sorted(assigned(s.body + s.orelse))
        live = [x for x in names if x in info.after]
        ret = ast.Return(value=_read_locals(names))
        cvar = f"_lc_c{n}"
        out: list[ast.stmt] = [
            ast.copy_location(ast.Assign(targets=[_name(cvar, True)], value=test), s.test),
            _def(f"_lc_then{n}", names, [*body, ret]),
            _def(f"_lc_else{n}", names, [*orelse, ret]),
        ]
        call = _call(
            _rt("if_"),
            _name(cvar),
            _name(f"_lc_then{n}"),
            _name(f"_lc_else{n}"),
            _str_tuple(names),
            _read_locals(names),
            _str_tuple(live),
        )
        out.extend(_assign_back(names, _at(call, s)))
        return _located(out, s)

    # -- for ----------------------------------------------------------------------------------
    def for_(self, s: ast.For) -> list[ast.stmt]:
        assert self.live is not None
        info = self.live.info[s]
        it = self.expr(s.iter)
        reason = _exit_reason(s.body, loop_level=True)
        body = self.stmts(s.body)
        orelse = self.stmts(s.orelse)
        if reason is not None:
            new_iter = _call(
                _rt("static_iter"), it, ast.Constant(value=f"a loop containing `{reason}`")
            )
            new = ast.For(
                target=s.target, iter=_expr_at(new_iter, s.iter), body=body, orelse=orelse
            )
            return _located([new], s)
        n = self.fresh()
        bound = target_names(s.target)
        in_body = assigned(s.body)
        names = sorted(in_body | bound)
        carried = sorted((in_body - bound) & info.header)
        target_live = sorted(bound & info.after)
        item = f"_lc_item{n}"
        bind = ast.copy_location(ast.Assign(targets=[s.target], value=_name(item)), s.target)
        fn = _def(f"_lc_body{n}", [item, *names], [bind, *body, ast.Return(_read_locals(names))])
        call = _call(
            _rt("for_"),
            it,
            _name(fn.name),
            _str_tuple(names),
            _read_locals(names),
            _str_tuple(carried),
            _str_tuple(target_live),
        )
        out: list[ast.stmt] = [fn, *_assign_back(names, _at(call, s)), *orelse]
        return _located(out, s)

    # -- while --------------------------------------------------------------------------------
    def while_(self, s: ast.While) -> list[ast.stmt]:
        assert self.live is not None
        info = self.live.info[s]
        test = self.expr(s.test)
        reason = _exit_reason(s.body, loop_level=True)
        body = self.stmts(s.body)
        orelse = self.stmts(s.orelse)
        if reason is not None:
            cond = _call(
                _rt("static_cond"), test, ast.Constant(value=f"a loop containing `{reason}`")
            )
            new = ast.While(test=_expr_at(cond, s.test), body=body, orelse=orelse)
            return _located([new], s)
        n = self.fresh()
        names = sorted(assigned(s.body))
        carried = sorted(set(names) & info.header)
        cond_fn = _def(f"_lc_cond{n}", names, [ast.copy_location(ast.Return(value=test), s.test)])
        body_fn = _def(f"_lc_body{n}", names, [*body, ast.Return(_read_locals(names))])
        call = _call(
            _rt("while_"),
            _name(cond_fn.name),
            _name(body_fn.name),
            _str_tuple(names),
            _read_locals(names),
            _str_tuple(carried),
        )
        out: list[ast.stmt] = [cond_fn, body_fn, *_assign_back(names, _at(call, s))]
        return _located([*out, *orelse], s)


def _value_return(stmts: list[ast.stmt]) -> ast.Return | None:
    """The first ``return <value>`` of this function (nested scopes excluded)."""
    todo: list[ast.AST] = list(stmts)
    while todo:
        n = todo.pop(0)
        if isinstance(n, ast.Return) and n.value is not None:
            return n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return None


class _ExprRewriter(ast.NodeTransformer):
    """``and``/``or``/``not``, chained comparisons, conditional expressions, ``min``/``max``."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if any(isinstance(n, ast.NamedExpr) for v in node.values for n in ast.walk(v)):
            return node
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        args = [node.values[0], *[_lambda(v) for v in node.values[1:]]]
        return _expr_at(_call(_rt(fn), *args), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _expr_at(_call(_rt("not_"), node.operand), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) < 2 or any(
            isinstance(n, ast.NamedExpr) for c in node.comparators for n in ast.walk(c)
        ):
            return node
        pairs = [
            ast.Tuple(elts=[ast.Constant(value=type(op).__name__), _lambda(c)], ctx=ast.Load())
            for op, c in zip(node.ops, node.comparators)
        ]
        return _expr_at(_call(_rt("compare_chain"), node.left, *pairs), node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        call = _call(_rt("if_exp"), node.test, _lambda(node.body), _lambda(node.orelse))
        return _expr_at(call, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        is_minmax = isinstance(node.func, ast.Name) and node.func.id in ("min", "max")
        plain = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        if is_minmax and plain and len(node.args) >= 2:
            return _expr_at(_call(_rt("minmax"), node.func, *node.args), node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return node  # rewritten by its own KernelRewriter

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        return node
