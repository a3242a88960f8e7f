"""``ms.jit``: MindSpore's decorator for graph compilation, backed by ms-graph.

``@ms.jit``, ``@ms.jit(capture_mode="ast")`` and ``ms.jit(fn)`` compile the function (or a
Cell's ``construct``) per input signature with ``ms_graph.jit``: the source is converted
(control flow on tensors becomes graph control flow), captured, optimized by the
registered passes and run by ms-graph's executor.
"""

from __future__ import annotations

__all__ = ["jit"]

_CAPTURE_MODES = ("ast", "trace")


def jit(function=None, capture_mode: str = "ast", **options):
    """Compile ``function`` into a graph (MindSpore's ``mindspore.jit``).

    MindSpore's other options (``jit_level``, ``dynamic``, ``fullgraph``, ...) are accepted
    for compatibility and have no effect.

    >>> @jit
    ... def double(x):
    ...     return x * 2
    """
    if capture_mode not in _CAPTURE_MODES:
        raise ValueError(f"jit: capture_mode must be one of {_CAPTURE_MODES}, got "
                         f"{capture_mode!r}")
    from ms_graph import jit as graph_jit

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"jit: expected a function or method, got {type(fn).__name__}")
        return graph_jit(fn, capture_mode=capture_mode)

    return wrap if function is None else wrap(function)
