"""The AST rewrite behind ``convert``: control flow into calls of ``convert.runtime``.

Four passes over one function (nested functions get their own, recursively):

1. checks: constructs capture cannot express raise ``GraphSyntaxError`` (file, line,
   construct, what to do instead);
2. ``break``/``continue`` become flags (``__ms_brk_N``), the rest of the loop body is
   guarded by them, and the loop stops when the break flag is set;
3. early ``return``: an ``if`` holding a return gets the statements after it appended to
   both branches, so every path ends in its own return and the ``if`` itself returns;
4. each ``if``/``while``/``for`` becomes local functions over the variables it assigns
   that are used elsewhere, and a call of ``runtime.if_``/``while_``/``for_``.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter

from ms_graph.convert.errors import GraphSyntaxError

RT = "__ms_rt"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Context:
    def __init__(self, filename: str, line_offset: int):
        self.filename = filename
        self.offset = line_offset
        self.counter = 0

    def line(self, node) -> int:
        return getattr(node, "lineno", 1) + self.offset

    def where(self, node) -> str:
        return f"{self.filename}:{self.line(node)}"

    def error(self, node, message: str) -> GraphSyntaxError:
        return GraphSyntaxError(message, self.filename, self.line(node))

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"__ms_{stem}_{self.counter}"


# -- small AST helpers ----------------------------------------------------------------------
def _own_nodes(node):
    """The nodes of ``node`` without descending into nested scopes."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                stack.append(child)
            else:
                yield child  # the scope's own name binding is ours


def _stmts_nodes(stmts):
    for s in stmts:
        yield from _own_nodes(s)


def assigned(stmts) -> set:
    out = set()
    for n in _stmts_nodes(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            # ``m[i] = v`` gives the Tensor ``m`` a new value (TensorSetItem): a branch
            # or loop body doing it must take ``m`` in and give it back like ``m = ...``.
            base = n.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
    return out


def _all_names(node) -> Counter:
    return Counter(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _rt(attr: str) -> ast.Attribute:
    return ast.Attribute(value=_name(RT), attr=attr, ctx=ast.Load())


def _call(func, *args) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def _const(v) -> ast.Constant:
    return ast.Constant(value=v)


def _tuple(names, store=False) -> ast.Tuple:
    return ast.Tuple(elts=[_name(n, store) for n in names],
                     ctx=ast.Store() if store else ast.Load())


def _def(name, params, body) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()],
                           decorator_list=[], returns=None, type_params=[])


def _lam(expr) -> ast.Lambda:
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def _has(stmts, kinds, stop=(ast.While, ast.For)) -> bool:
    """Whether ``stmts`` hold a node of ``kinds`` outside nested scopes and ``stop``."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, _SCOPES) or isinstance(n, stop):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


# -- pass 1: checks -------------------------------------------------------------------------
def check(fn: ast.FunctionDef, ctx: Context) -> None:
    def visit(node, in_flow):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Yield, ast.YieldFrom)):
                raise ctx.error(child, "yield is not supported in a compiled function (a "
                                "graph returns once); return a tuple or list of the values")
            if isinstance(child, ast.Await):
                raise ctx.error(child, "await is not supported in a compiled function; "
                                "compile a synchronous function")
            if isinstance(child, ast.Global):
                raise ctx.error(child, "global assignment is not supported in a compiled "
                                "function (the graph cannot write module state); return the "
                                "value and assign it outside, or keep it in a Parameter")
            if isinstance(child, ast.Nonlocal) and in_flow:
                raise ctx.error(child, "nonlocal inside an if/while/for is not supported in a "
                                "compiled function; declare it at the top of the function")
            if isinstance(child, (ast.Try, getattr(ast, "TryStar", ast.Try))) and in_flow:
                raise ctx.error(child, "try/except inside an if/while/for is not supported in "
                                "a compiled function (the branch may become graph control "
                                "flow, which cannot raise); check inputs before compiling or "
                                "move the try outside the compiled function")
            if isinstance(child, (ast.While, ast.For)) and child.orelse:
                kind = "while" if isinstance(child, ast.While) else "for"
                raise ctx.error(child, f"{kind}...else is not supported in a compiled function; "
                                "use a flag variable set before break and test it after the "
                                "loop")
            if isinstance(child, (ast.AsyncFor, ast.AsyncWith, ast.AsyncFunctionDef)):
                raise ctx.error(child, "async code is not supported in a compiled function")
            if isinstance(child, (ast.While, ast.For)) and _has(child.body, ast.Return,
                                                                stop=()):
                raise ctx.error(child, "return inside a loop is not supported in a compiled "
                                "function; assign the result to a variable, break, and "
                                "return after the loop")
            if isinstance(child, (ast.FunctionDef, ast.Lambda)):
                continue  # converted separately
            visit(child, in_flow or isinstance(child, (ast.If, ast.While, ast.For)))

    visit(fn, False)


# -- pass 2: break / continue ---------------------------------------------------------------
def lower_breaks(stmts, ctx: Context) -> list:
    """Rewrite loops in ``stmts`` (recursively) so that none holds break/continue."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(s, (ast.If, ast.While, ast.For, ast.With)) and hasattr(s, field):
                setattr(s, field, lower_breaks(getattr(s, field), ctx))
        if isinstance(s, (ast.While, ast.For)) and _has(s.body, (ast.Break, ast.Continue)):
            brk, cont = ctx.fresh("brk"), ctx.fresh("cont")
            body = _guard(s.body, brk, cont)
            body = [ast.Assign(targets=[_name(cont, True)], value=_const(False)),
                    ast.If(test=_call(_rt("not_"), _name(brk)), body=body, orelse=[])]
            s.body = body
            if isinstance(s, ast.While):
                s.test = _call(_rt("and_"), _call(_rt("not_"), _name(brk)), _lam(s.test))
            s._ms_break = brk
            out.append(ast.Assign(targets=[_name(brk, True)], value=_const(False)))
        out.append(s)
    return out


def _guard(stmts, brk, cont) -> list:
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            out.append(ast.Assign(targets=[_name(brk, True)], value=_const(True)))
            return out
        if isinstance(s, ast.Continue):
            out.append(ast.Assign(targets=[_name(cont, True)], value=_const(True)))
            return out
        if isinstance(s, ast.If):
            s.body, s.orelse = _guard(s.body, brk, cont), _guard(s.orelse, brk, cont)
        elif isinstance(s, ast.With):
            s.body = _guard(s.body, brk, cont)
        out.append(s)
        rest = stmts[i + 1:]
        if rest and _sets_flag(s, brk, cont):
            test = _call(_rt("not_"), _call(_rt("or_"), _name(brk), _lam(_name(cont))))
            out.append(ast.If(test=test, body=_guard(rest, brk, cont), orelse=[]))
            return out
    return out


def _sets_flag(s, brk, cont) -> bool:
    return any(isinstance(n, ast.Name) and n.id in (brk, cont) and isinstance(n.ctx, ast.Store)
               for n in _own_nodes(s))


# -- pass 3: early return ---------------------------------------------------------------------
def lower_returns(body: list) -> list:
    if not _has(body, ast.Return):
        return body
    if not isinstance(body[-1], ast.Return):
        body = body + [ast.Return(value=_const(None))]
    return _normalize(body)


def _normalize(stmts: list) -> list:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            return stmts[:i + 1]
        if isinstance(s, ast.If) and _has([s], ast.Return):
            rest = stmts[i + 1:]
            s.body = _normalize(s.body + copy.deepcopy(rest))
            s.orelse = _normalize(s.orelse + copy.deepcopy(rest))
            s._ms_returns = True
            return stmts[:i + 1]
    return stmts


# -- pass 4: control flow into runtime calls --------------------------------------------------
class _Converter(ast.NodeTransformer):
    def __init__(self, fn: ast.FunctionDef, ctx: Context):
        self.ctx = ctx
        self.total = _all_names(fn)
        for a in ast.walk(fn.args):
            if isinstance(a, ast.arg):
                self.total[a.arg] += 1

    def _outside(self, node) -> set:
        inside = _all_names(node)
        return {n for n, k in self.total.items() if k > inside.get(n, 0)}

    def visit_FunctionDef(self, node):
        return node  # nested functions are converted on their own (see convert_function)

    visit_Lambda = ast.NodeTransformer.generic_visit

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call(_rt("ifexp"), _test(node.test), _lam(node.body), _lam(node.orelse),
                     _const(self.ctx.where(node)))

    def visit_If(self, node):
        names = sorted(assigned(node.body + node.orelse) & self._outside(node))
        self.generic_visit(node)
        t_name, f_name = self.ctx.fresh("if_true"), self.ctx.fresh("if_false")
        returns = getattr(node, "_ms_returns", False)
        tail = [] if returns else [ast.Return(value=_tuple(names))]
        call = _call(_rt("if_"), _test(node.test), _name(t_name), _name(f_name),
                     _pick(names), _const(tuple(names)), _const(self.ctx.where(node)))
        out = [_def(t_name, names, node.body + tail), _def(f_name, names, node.orelse + tail)]
        if returns:
            out.append(ast.Return(value=call))
        elif names:
            out.append(ast.Assign(targets=[_tuple(names, True)], value=call))
        else:
            out.append(ast.Expr(value=call))
        return out

    def visit_While(self, node):
        names = sorted(assigned(node.body) & (self._outside(node) | _loads(node.test)))
        self.generic_visit(node)
        c_name, b_name = self.ctx.fresh("while_cond"), self.ctx.fresh("while_body")
        call = _call(_rt("while_"), _name(c_name), _name(b_name), _pick(names),
                     _const(tuple(names)), _const(self.ctx.where(node)))
        return [_def(c_name, names, [ast.Return(value=_test(node.test))]),
                _def(b_name, names, node.body + [ast.Return(value=_tuple(names))]),
                _assign_or_expr(names, call)]

    def visit_For(self, node):
        targets = assigned([ast.Assign(targets=[node.target], value=_const(None))])
        names = sorted((assigned(node.body) | targets) & self._outside(node))
        self.generic_visit(node)
        b_name, item = self.ctx.fresh("for_body"), self.ctx.fresh("item")
        brk = getattr(node, "_ms_break", None)
        body = [ast.Assign(targets=[node.target], value=_name(item))] + node.body
        call = _call(_rt("for_"), _ranges(node.iter), _name(b_name), _pick(names),
                     _const(tuple(names)), _const(self.ctx.where(node)),
                     _const(names.index(brk) if brk in names else -1),
                     _const(tuple(sorted(targets))))
        return [_def(b_name, [item, *names], body + [ast.Return(value=_tuple(names))]),
                _assign_or_expr(names, call)]


def _assign_or_expr(names, call):
    if names:
        return ast.Assign(targets=[_tuple(names, True)], value=call)
    return ast.Expr(value=call)


def _loads(expr) -> set:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _pick(names) -> ast.Call:
    return _call(_rt("pick"), _call(_name("locals")), _const(tuple(names)))


def _test(expr):
    """A condition with ``and``/``or``/``not`` made Tensor-aware (still lazy)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _call(_rt("not_"), _test(expr.operand))
    if isinstance(expr, ast.BoolOp):
        fn = "and_" if isinstance(expr.op, ast.And) else "or_"
        out = _test(expr.values[0])
        for v in expr.values[1:]:
            out = _call(_rt(fn), out, _lam(_test(v)))
        return out
    return expr


def _ranges(expr):
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id == "range":
        return ast.Call(func=_rt("range_"), args=expr.args, keywords=expr.keywords)
    return expr


# -- calls: converted callees ------------------------------------------------------------------
# Builtins that read their caller's frame: called through another function they would
# see that function's frame instead.
_FRAME_BUILTINS = frozenset({"locals", "globals", "vars", "super", "eval", "exec", "dir"})


class _CallRouter(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == RT:
            return node
        if isinstance(f, ast.Name) and f.id in _FRAME_BUILTINS:
            return node
        return ast.copy_location(
            ast.Call(func=_rt("call"), args=[f, *node.args], keywords=node.keywords), node)


def route_calls(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``f(...)`` -> ``runtime.call(f, ...)`` everywhere in ``fn`` (nested functions and
    lambdas included), so that what a compiled function calls is captured by AST too."""
    return _CallRouter().visit(fn)


def explicit_super(fn: ast.FunctionDef) -> None:
    """``super()`` -> ``super(__class__, self)``: zero-argument super would take the first
    argument of the local function a branch becomes, not the method's ``self``."""
    params = fn.args.posonlyargs + fn.args.args
    if not params:
        return
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" \
                and not n.args and not n.keywords:
            n.args = [_name("__class__"), _name(params[0].arg)]


def convert_function(fn: ast.FunctionDef, ctx: Context) -> ast.FunctionDef:
    """Run all passes on ``fn`` and (first) on the functions nested in it."""
    check(fn, ctx)
    fn.body = [convert_function(s, ctx) if isinstance(s, ast.FunctionDef) else s
               for s in fn.body]
    _convert_nested(fn.body, ctx)
    fn.body = lower_breaks(fn.body, ctx)
    fn.body = lower_returns(fn.body)
    conv = _Converter(fn, ctx)
    new_body = []
    for s in fn.body:
        r = conv.visit(s)
        new_body.extend(r if isinstance(r, list) else [r])
    fn.body = new_body
    return fn


def _convert_nested(stmts, ctx) -> None:
    """Convert function definitions nested inside compound statements."""
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and not isinstance(s, ast.FunctionDef):
                for i, c in enumerate(block):
                    if isinstance(c, ast.FunctionDef):
                        block[i] = convert_function(c, ctx)
                _convert_nested(block, ctx)
