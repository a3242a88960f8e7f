"""Re-exporting modules that import what they forward to on first access (PEP 562).

``import microspore`` must stay cheap (DESIGN.md: import time is part of the API), so
each namespace module names where its attributes live and imports nothing until one is
read. A forwarded value is cached in the module's globals, so later reads are plain
attribute lookups.
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["forward"]


def forward(module_name: str, namespace: dict, sources: tuple[str, ...],
            names: dict[str, str] | None = None, submodules: tuple[str, ...] = ()):
    """``(__getattr__, __dir__)`` for a module that re-exports ``sources``' public names.

    Args:
        module_name: the forwarding module's ``__name__`` (for error messages).
        namespace: its ``globals()``; forwarded values are cached there.
        sources: modules searched in order for a name not in ``names``; one that is not
            installed is skipped (ms-nn's submodules arrive one by one).
        names: explicit ``{name: "module"}`` or ``{name: "module:attr"}`` entries, for
            names that live elsewhere or under another name.
        submodules: names that are submodules of this module (``"vision"``).
    """
    names = names or {}

    def resolve(name: str):
        if name in submodules:
            return import_module(f"{module_name}.{name}")
        where = names.get(name)
        if where is not None:
            mod, _, attr = where.partition(":")
            return getattr(import_module(mod), attr or name)
        for src in sources:
            mod = _source(src)
            if mod is not None and hasattr(mod, name):
                return getattr(mod, name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r} "
                             f"(looked in {', '.join(sources) or 'nothing'})")

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = resolve(name)
        namespace[name] = value
        return value

    def __dir__():
        found = set(namespace) | set(names) | set(submodules)
        for mod in filter(None, map(_source, sources)):
            found |= set(getattr(mod, "__all__", None) or
                         (n for n in dir(mod) if not n.startswith("_")))
        return sorted(found)

    return __getattr__, __dir__


def _source(name: str):
    """The module ``name``, or ``None`` if it is not installed (an optional source).

    Only the source itself may be missing: an import error inside it propagates.
    """
    try:
        return import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and (name == e.name or name.startswith(e.name + ".")):
            return None
        raise
