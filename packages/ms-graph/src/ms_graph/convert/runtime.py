"""What converted code calls: dispatch between Python control flow and graph control flow.

``convert`` rewrites ``if``/``while``/``for`` into calls of these functions. Each looks at
the condition's value when it runs: a Python value (or any value outside a trace) runs
the plain Python statement, so Python-constant conditions fold at capture; a Tensor
under an active trace becomes ``control_flow.cond`` / ``while_loop`` / ``for_range``.
"""

from __future__ import annotations

import inspect
import sys
import types
import weakref
from contextlib import contextmanager

from ms_autodiff.recording import thread_state
from ms_graph import control_flow as cf  # attributes read at call time: cf imports us
from ms_graph.convert.errors import GraphSyntaxError
from ms_graph.convert.transform import RT
from ms_tensor.tensor import Tensor

__all__ = ["if_", "while_", "for_", "range_", "ifexp", "not_", "and_", "or_", "pick",
           "TensorRange", "call", "callee", "ast_capture"]

# Code that is never converted: the framework's own (its Python control flow is on Python
# values) and installed libraries.
_FRAMEWORK = frozenset({"ms_tensor", "ms_ops", "ms_autodiff", "ms_graph", "ms_nn",
                        "ms_data", "microspore", "numpy", "builtins"})
_LIBRARY_DIRS = tuple({p for p in sys.path if p.endswith(("site-packages", "dist-packages"))})
_depth = thread_state(lambda: [0])  # this thread's AST captures in progress
_NOT_CONVERTIBLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_converted: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@contextmanager
def ast_capture():
    """Mark an AST-mode capture: while it runs, user functions and Cells called from it
    are converted as well (``callee``)."""
    depth = _depth()
    depth[0] += 1
    try:
        yield
    finally:
        depth[0] -= 1


def callee(f):
    """``f``, converted when an AST capture is running and ``f`` is a user function (or
    a method of one); anything else is returned as it is."""
    if not _depth()[0] or cf.current_trace() is None:
        return f
    kind = type(f)
    if kind is types.FunctionType:
        inner = getattr(f, "__ms_function__", None)
        if inner is not None:  # grad(fn) made outside: differentiate the converted fn
            converted = callee(inner)
            return f if converted is inner else _rebuilt(f, converted)
        return _convert_user(f)
    if kind is types.MethodType and type(f.__func__) is types.FunctionType:
        func = _convert_user(f.__func__)
        return f if func is f.__func__ else types.MethodType(func, f.__self__)
    return f


def call(f, *args, **kwargs):
    """Every call in converted code: the callee, and functions given to it (``grad(fn)``),
    are converted first when a capture is running."""
    if _depth()[0] and cf.current_trace() is not None:
        f = callee(f)
        args = tuple(callee(a) for a in args)
        kwargs = {k: callee(v) for k, v in kwargs.items()}
    return f(*args, **kwargs)


def _rebuilt(wrapper, converted):
    hit = _converted.get(wrapper)
    if hit is None:
        hit = _converted[wrapper] = wrapper.__ms_rebuild__(converted)
    return hit


def _convert_user(fn):
    code = fn.__code__
    if getattr(fn, "__ms_converted__", False) or RT in code.co_freevars:
        return fn  # converted already (or nested in converted code)
    if (fn.__module__ or "").partition(".")[0] in _FRAMEWORK or \
            code.co_filename.startswith(_LIBRARY_DIRS) or code.co_filename.startswith("<"):
        return fn
    if code.co_flags & _NOT_CONVERTIBLE:
        return fn  # a generator or coroutine: converted branches would break its yields
    hit = _converted.get(fn)
    if hit is None:
        from ms_graph.convert import convert

        try:
            inspect.getsourcelines(fn)
            hit = convert(fn)
        except (OSError, TypeError, GraphSyntaxError):
            # Nothing to convert (no source), or Python capture cannot express: it runs
            # as Python, as a traced function does (a tensor condition in it folds at its
            # captured value). The compiled function itself still reports such errors.
            hit = fn
        _converted[fn] = hit
    return hit


def pick(local_vars: dict, names: tuple) -> tuple:
    """The current values of ``names`` (``Undefined`` for those not assigned yet)."""
    return tuple(local_vars[n] if n in local_vars else cf.Undefined(n) for n in names)


def _tensor_mode(x) -> bool:
    return isinstance(x, Tensor) and cf.current_trace() is not None


def if_(test, true_fn, false_fn, operands, names, where):
    if _tensor_mode(test):
        return cf.cond(test, true_fn, false_fn, operands, names=names, where=where)
    return true_fn(*operands) if test else false_fn(*operands)


def ifexp(test, true_fn, false_fn, where):
    if _tensor_mode(test):
        return cf.cond(test, true_fn, false_fn, (), where=where)
    return true_fn() if test else false_fn()


def not_(x):
    if isinstance(x, Tensor):
        from ms_ops.defs.comparison import LogicalNot

        return LogicalNot(x)
    return not x


def and_(left, right_fn):
    """``left and right`` (right evaluated lazily); elementwise on Tensors."""
    if isinstance(left, Tensor):
        from ms_ops.defs.comparison import LogicalAnd

        right = right_fn()
        return LogicalAnd(left, right) if isinstance(right, Tensor) or \
            cf.current_trace() is not None else (right if left else left)
    return right_fn() if left else left


def or_(left, right_fn):
    """``left or right`` (right evaluated lazily); elementwise on Tensors."""
    if isinstance(left, Tensor):
        from ms_ops.defs.comparison import LogicalOr

        right = right_fn()
        return LogicalOr(left, right) if isinstance(right, Tensor) or \
            cf.current_trace() is not None else (left if left else right)
    return left if left else right_fn()


def while_(cond_fn, body_fn, loop_vars, names, where):
    loop_vars = tuple(loop_vars)
    while True:
        c = cond_fn(*loop_vars)
        if _tensor_mode(c):  # from here on the loop is graph control flow
            return cf.while_loop(cond_fn, body_fn, loop_vars, names=names, where=where)
        if not c:
            return loop_vars
        loop_vars = tuple(body_fn(*loop_vars))


class TensorRange:
    """``range(...)`` with a Tensor bound, under a trace: iterated by ``for_`` as a While."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


def range_(*args):
    """``range`` for converted code: a ``TensorRange`` when a bound is a Tensor and a
    trace is active (so the loop is not unrolled at the bound's captured value)."""
    if any(isinstance(a, Tensor) for a in args) and cf.current_trace() is not None:
        start, stop, step = (0, args[0], 1) if len(args) == 1 else \
            (*args, 1) if len(args) == 2 else args
        return TensorRange(start, stop, step)
    return range(*[int(a) if isinstance(a, Tensor) else a for a in args])


def for_(iterable, body_fn, loop_vars, names, where, break_index, targets):
    """A converted ``for``: Python iteration over anything but a ``TensorRange``."""
    loop_vars = tuple(loop_vars)
    if isinstance(iterable, TensorRange):
        start = iterable.start
        init = tuple(start if isinstance(v, cf.Undefined) and n in targets else v
                     for n, v in zip(names, loop_vars))
        return cf.for_range(start, iterable.stop, iterable.step, body_fn, init,
                            names=names, where=where)
    for item in iterable:
        loop_vars = tuple(body_fn(item, *loop_vars))
        if break_index >= 0:
            flag = loop_vars[break_index]
            if not isinstance(flag, Tensor) and flag:
                break
    return loop_vars
