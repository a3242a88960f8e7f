"""The functional API (``ops.add``, ``ops.matmul``, ``ops.MatMul``, ...).

Every name here comes from the registry, so ms-ops' own operators and those of any
installed plugin appear the same way. Names resolve on first access and are cached.
"""

from __future__ import annotations

from ms_tensor import registry as _registry


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    fn = _registry.load().lookup("function", name)
    if fn is None:
        raise AttributeError(f"ms_ops.functional has no operator {name!r} (no installed "
                             "plugin registers it; `python -m ms_tensor.registry` lists them)")
    return fn


def __dir__():
    return sorted(_registry.load().names("function"))
