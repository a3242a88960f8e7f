"""AST conversion: rewrite a function's control flow so that Tensor conditions capture.

``convert(fn)`` parses ``fn``'s source, rewrites ``if``/``while``/``for`` (and ``a if c
else b``) into calls of ``ms_graph.convert.runtime`` (see ``transform``), routes every
call through ``runtime.call`` (so the user functions and Cells it calls are converted
too when a capture runs them), and compiles the
result with ``fn``'s globals and closure cells, so it behaves like ``fn`` eagerly and
turns Tensor conditions into ``Cond``/``While`` nodes while a trace is active.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types

from ms_graph.convert.errors import GraphSyntaxError, SourceUnavailable
from ms_graph.convert.transform import RT, Context, convert_function, explicit_super, route_calls

__all__ = ["convert", "GraphSyntaxError"]

_FACTORY = "__ms_factory"
_FUNCTION = "__ms_function"


def convert(fn):
    """``fn`` with its control flow converted (bound methods stay bound).

    Raises GraphSyntaxError for constructs capture cannot express, naming the file and line.
    """
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert(fn.__func__), fn.__self__)
    if getattr(fn, "__ms_converted__", False):
        return fn
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"convert: expected a Python function or method, got "
                        f"{type(fn).__name__}")
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise SourceUnavailable(
            f"the source of {fn.__qualname__} is not available ({e}); define it in a .py "
            "file, or use capture_mode='trace'", filename, fn.__code__.co_firstlineno) from None
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError:  # a lambda inside a larger expression: only its line is given
        raise SourceUnavailable(
            f"the source of {fn.__qualname__} cannot be parsed on its own (a lambda inside "
            "a larger expression?); give it a def of its own, or use capture_mode='trace'",
            filename, fn.__code__.co_firstlineno) from None
    node = _find(tree, fn)
    ctx = Context(filename, first - 1)
    if isinstance(node, ast.Lambda):
        node = ast.FunctionDef(name=fn.__name__, args=node.args,
                               body=[ast.Return(value=node.body)], decorator_list=[],
                               returns=None, type_params=[], lineno=node.lineno)
    node.decorator_list = []
    if "__class__" in fn.__code__.co_freevars:
        explicit_super(node)
    node = route_calls(convert_function(node, ctx))
    # Inside the factory a def named like ``fn`` would make ``fn``'s own name a local of
    # the factory, so a recursive call would look for a closure cell instead of the
    # global (or enclosing) binding ``fn``'s code reads; the code gets its name back below.
    node.name = _FUNCTION
    freevars = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name=_FACTORY,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in (RT, *freevars)],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, first - 1)
    code = compile(module, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == node.name)
    cells = dict(zip(freevars, fn.__closure__ or ()))
    # Imported here, not at the top: runtime needs control_flow, which needs trace, and
    # trace needs this package's errors (a first ``import ms_graph.trace`` would cycle).
    from ms_graph.convert import runtime

    cells[RT] = types.CellType(runtime)
    inner = inner.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    closure = tuple(cells[name] for name in inner.co_freevars)
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn)
    del new.__wrapped__
    new.__ms_converted__ = True
    return new


def _find(tree, fn):
    """The def (or lambda) node of ``fn`` in its parsed source."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn.__name__:
            return n
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if fn.__name__ == "<lambda>" and len(lambdas) == 1:
        return lambdas[0]
    raise SourceUnavailable(
        f"cannot find the definition of {fn.__qualname__} in its source (several lambdas on "
        "one line?); give it a def of its own", inspect.getsourcefile(fn),
        fn.__code__.co_firstlineno)
