"""Graph optimization passes, one module each, every one ``run(graph) -> graph``.

They rewrite the graph in place (and return it). ``ORDER`` is the one order they run in:
``ms_graph.plugin`` registers them in it (as lazy ``"module:run"`` entries), and ``run_all``
applies it directly (tests, and callers that want the passes without the registry).
``has_effects``/``is_pure_op`` are what a plugin's own pass needs to know before it moves
or drops a node.
"""

from __future__ import annotations

import importlib

__all__ = ["ORDER", "run_all", "has_effects", "is_pure_op"]

# Inline first (exposes everything else), simplify and fold, merge duplicates, then fuse
# what is left (fusion drops dead nodes first, so dead users do not block it) and sweep.
ORDER = ("inline", "algebraic", "const_fold", "cse", "fuse_elementwise", "dce")


def run_all(graph, passes=ORDER):
    for name in passes:
        graph = importlib.import_module(f"ms_graph.passes.{name}").run(graph)
    return graph


def __getattr__(name):
    # Loaded on first use: the registry imports this package on every process's first
    # operator call, and the IR behind these must not load before a graph is built.
    if name in ("has_effects", "is_pure_op"):
        from ms_graph.passes import _util

        return getattr(_util, name)
    raise AttributeError(f"module 'ms_graph.passes' has no attribute {name!r}")
