"""``mindspore.ops``: every operator's functional name and Primitive class, from the registry.

``ms.ops.add``, ``ms.ops.Pow()`` and ``ms.ops.tensor_pow`` resolve through the same
registry as ``ms_ops`` does, so operators of installed plugins (``ms.ops.mish``) appear
here too. ``ms.ops.functional`` (and ``function``), ``ms.ops.operations`` (``P``),
``ms.ops.primitive`` and ``ms.ops.composite`` are the submodules MindSpore code imports
(``from mindspore.ops import operations as P``).
"""

from importlib import import_module

from ms_ops import Primitive
from ms_ops import functional as _functional

__all__ = ["Primitive", "functional", "operations", "composite", "communication", "function",
           "primitive", "P"]

_SUBMODULES = ("functional", "operations", "composite", "communication", "function",
               "primitive")
_ALIASES = {"P": "operations"}  # MindSpore's ops.P is its operations module
# names MindSpore's ops re-exports from elsewhere
_ELSEWHERE = {"constexpr": "ms_graph.hints"}


def __getattr__(name: str):
    if name in _SUBMODULES or name in _ALIASES:
        return import_module(f"{__name__}.{_ALIASES.get(name, name)}")
    if name in _ELSEWHERE:
        return getattr(import_module(_ELSEWHERE[name]), name)
    try:
        return getattr(_functional, name)
    except AttributeError:
        pass
    try:  # MindSpore's ops namespace also holds the functional collectives (their __all__)
        collectives = import_module(f"{__name__}.communication")
        if name in dir(collectives):
            return getattr(collectives, name)
    except ImportError:
        pass
    raise AttributeError(f"microspore.ops has no operator {name!r} (no installed plugin "
                         "registers it; `microspore info` lists them)")


def __dir__():
    return sorted(set(__all__) | set(dir(_functional)))
