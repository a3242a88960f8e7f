"""``ms.jit``: MindSpore's decorator for graph compilation, backed by ms-graph.

``@ms.jit``, ``@ms.jit(capture_mode="ast")`` and ``ms.jit(fn)`` compile the function (or a
Cell's ``construct``) per input signature with ``ms_graph.jit``: the source is converted
(control flow on tensors becomes graph control flow), captured, optimized by the
registered passes and run by ms-graph's executor. Every MindSpore option either works or
raises ValueError naming it (the table in ``ms_graph.jit_options``).
"""

from __future__ import annotations

__all__ = ["jit"]


def jit(function=None, *, capture_mode: str = "ast", jit_level=None, dynamic=0,
        fullgraph=False, backend="", **options):
    """Compile ``function`` into a graph (MindSpore's ``mindspore.jit``).

    ``jit_level="O0"`` compiles without fusing elementwise chains, ``"O1"`` with;
    ``None`` follows ``set_context`` (fusion on by default). Options that cannot be
    honoured raise ValueError naming them (``dynamic=1``, ``backend="GE"``, ...).

    >>> @jit
    ... def double(x):
    ...     return x * 2
    """
    from ms_graph import jit as graph_jit

    compile_ = graph_jit(capture_mode=capture_mode, jit_level=jit_level, dynamic=dynamic,
                         fullgraph=fullgraph, backend=backend, **options)

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"jit: expected a function or method, got {type(fn).__name__}")
        return compile_(fn)

    return wrap if function is None else wrap(function)
