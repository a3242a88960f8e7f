"""``ms.jit``: MindSpore's decorator for graph compilation, for now running eagerly.

microspore has no graph compiler yet (ms-graph is the next issue). Until it lands,
``@ms.jit`` keeps MindSpore's calling conventions (bare decorator, decorator with options,
function transform, ``construct`` methods) and runs the function as it is, in PyNative
mode: results are the same as without it, and nothing is compiled or sped up.
"""

from __future__ import annotations

import functools

__all__ = ["jit"]


def jit(function=None, **options):
    """Mark ``function`` for graph compilation; today it runs eagerly, uncompiled.

    Accepts MindSpore's forms ``@jit``, ``@jit(capture_mode="ast", ...)`` and
    ``jit(fn)``. The options are accepted and ignored, because there is no compiler to
    pass them to yet.

    >>> @jit
    ... def double(x):
    ...     return x * 2
    >>> double(3)
    6
    """
    del options  # no compiler yet; see the module docstring

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"jit: expected a function or method, got {type(fn).__name__}")

        @functools.wraps(fn)
        def eager(*args, **kwargs):
            return fn(*args, **kwargs)

        return eager

    return wrap if function is None else wrap(function)
