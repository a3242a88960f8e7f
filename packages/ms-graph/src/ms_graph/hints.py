"""MindSpore's compile hints: ``constexpr``, ``jit_class``, ``lazy_inline``, ``no_inline``,
``enable_dynamic``, ``mutable`` and the ``jit_syntax_level`` values STRICT/COMPATIBLE/LAX.

They tell MindSpore's compiler what to fold, reuse or keep variable. ms-graph needs none of
them to compute the same numbers: it runs Python code on Python values while it captures
(what ``constexpr`` asks for), converts any class's methods it reaches (``jit_class``),
inlines every call, specialises on shapes, and treats a non-Tensor argument as a constant
of its compiled graph (so ``mutable(x)`` returns x, and a new value compiles anew as
MindSpore documents for immutable inputs). Each hint therefore returns what it was given,
after checking it as MindSpore does. ``set_recursion_limit`` is ``set_context``'s
``max_call_depth``.
"""

from __future__ import annotations

import functools

__all__ = ["constexpr", "jit_class", "lazy_inline", "no_inline", "enable_dynamic", "mutable",
           "set_recursion_limit", "STRICT", "COMPATIBLE", "LAX"]

STRICT, COMPATIBLE, LAX = 0, 1, 2


def _decorator(name, fn, **options):
    if fn is None:
        return functools.partial(_decorator, name, **options)
    if not callable(fn):
        raise TypeError(f"{name}: expected a function or class, got {type(fn).__name__}")
    return fn


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """``@constexpr``: a function of Python values, run while the graph is captured."""
    return _decorator("constexpr", fn)


def jit_class(cls):
    """``@jit_class``: a user class whose objects a compiled function may use."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")
    return cls


def lazy_inline(fn=None, attrs=None, policy=None):
    """``@lazy_inline`` on a Cell's ``__init__``: a reuse hint (ms-graph inlines)."""
    return _decorator("lazy_inline", fn)


def no_inline(fn=None):
    """``@no_inline``: a reuse hint (ms-graph inlines)."""
    return _decorator("no_inline", fn)


def enable_dynamic(**kwargs):
    """``@enable_dynamic(x=Tensor(shape=[None]))``: dynamic-shape hints for arguments;
    ms-graph compiles one graph per concrete shape."""
    return lambda fn: _decorator("enable_dynamic", fn)


def mutable(input_data, dynamic_len=False):
    """``mutable(x)``: x itself (Tensors, tuples, lists and dicts of them are accepted)."""
    allowed = (int, float, bool, tuple, list, dict)
    if not (isinstance(input_data, allowed) or hasattr(input_data, "asnumpy")):
        raise TypeError(f"mutable: input_data must be a Tensor, number or a tuple/list/dict "
                        f"of them, got {type(input_data).__name__}")
    return input_data


def set_recursion_limit(recursion_limit=1000):
    """How deep graph capture may follow nested calls (``set_context(max_call_depth=)``)."""
    from ms_tensor import set_context

    set_context(max_call_depth=recursion_limit)
