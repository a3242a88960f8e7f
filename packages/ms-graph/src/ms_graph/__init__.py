"""ms-graph: static graph mode for microspore (capture -> IR -> passes -> executor).

``jit`` compiles a function or a Cell's ``construct`` per input signature; ``trace``
captures one call as an ``ir.Graph``; ``compile`` gives the runnable graph of one call.

The names load on first use: every process's registry imports ``ms_graph.plugin`` (and
so this package) on its first operator call, which must not load the compiler.
"""

import importlib
import sys
import types

__version__ = "0.1.0"
__all__ = ["ir", "jit", "trace", "compile", "Executable", "TraceError", "GraphSyntaxError"]

_LAZY = {
    "ir": ("ms_graph.ir", None),
    "GraphSyntaxError": ("ms_graph.convert.errors", "GraphSyntaxError"),
    "Executable": ("ms_graph.executor", "Executable"),
    "jit": ("ms_graph.jit", "jit"),
    "compile": ("ms_graph.jit", "compile"),
    "trace": ("ms_graph.trace", "trace"),
    "TraceError": ("ms_graph.trace", "TraceError"),
}


def __getattr__(name: str):
    # One name at a time: ``from ms_graph import ir`` inside a module that the executor
    # imports must not load the executor (that import would cycle).
    if name not in _LAZY:
        raise AttributeError(f"module 'ms_graph' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    value = value if attr is None else getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """Importing the submodules ``ms_graph.jit`` and ``ms_graph.trace`` sets package
    attributes of those names; the functions ``jit`` and ``trace`` keep them."""

    def __setattr__(self, name, value):
        if name in ("jit", "trace") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
