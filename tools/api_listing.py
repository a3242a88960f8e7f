#!/usr/bin/env python3
"""Write the listing of MindSpore's public names that ``tools/api_coverage.py`` measures against.

Run it with an interpreter that has real MindSpore installed (not microspore's venv)::

    python3 -m venv /tmp/msenv && /tmp/msenv/bin/pip install mindspore "numpy<2"
    GLOG_v=3 /tmp/msenv/bin/python tools/api_listing.py > tools/data/mindspore_2.10_api.json

Public means what ``dir()`` shows without a leading underscore, minus what the namespace
only imported for its own use:

- a module is kept when it lives inside the namespace's own package (its ``__name__``
  starts with ``<namespace>.``) and no part of that name starts with ``_``; standard-library
  and third-party modules, private modules, the package itself (``dataset.ds``) and other
  MindSpore packages outside the subtree (``amp.ops``, ``mint.mindspore``) are dropped;
- a class or function defined outside MindSpore (``dataset.Enum``, ``amp.ABC``) and
  ``__future__`` features are dropped; constants of builtin types (``GRAPH_MODE``) are kept.

Every dropped name is recorded under ``dropped`` with its reason, so the rule is reviewable.
Names whose function, ``__init__`` or ``__call__`` carries MindSpore's ``@deprecated``
decorator are listed under ``deprecated`` with the version and the substitute it names.
"""

from __future__ import annotations
import __future__

import importlib
import inspect
import json
import platform
import sys
import types

NAMESPACES = (
    "mindspore", "mindspore.ops", "mindspore.nn", "mindspore.dataset",
    "mindspore.dataset.vision", "mindspore.dataset.transforms", "mindspore.train",
    "mindspore.amp", "mindspore.communication", "mindspore.mint", "mindspore.mint.nn",
    "mindspore.mint.nn.functional", "mindspore.mint.optim",
)
TENSOR = "mindspore.Tensor"
RULE = __doc__.split("Public means", 1)[1].split("Every dropped", 1)[0].strip()
COMMAND = "GLOG_v=3 /tmp/msenv/bin/python tools/api_listing.py > tools/data/mindspore_2.10_api.json"


def _dropped_module(ns: str, mod: types.ModuleType) -> str | None:
    """Why a module-valued attribute of ``ns`` is not API, or None when it is."""
    name = mod.__name__
    if not name.startswith(ns + "."):
        return "imported module outside the namespace"
    if any(part.startswith("_") for part in name.split(".")):
        return "private module"
    return None


def kind_of(value, primitive: type) -> str:
    """module / primitive (a Primitive class) / class / function / constant."""
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "primitive" if issubclass(value, primitive) else "class"
    if callable(value):  # functions, builtins and callable objects (functional forms)
        return "function"
    return "constant"


def deprecation(value, wrapper_code) -> str | None:
    """``"since 1.1, use Add"`` when ``value`` is wrapped by MindSpore's ``@deprecated``."""
    targets = [value]
    if inspect.isclass(value):
        targets = [vars(value)[k] for k in ("__init__", "__call__") if k in vars(value)]
    for fn in targets:
        while fn is not None:
            code = getattr(fn, "__code__", None)
            if code is wrapper_code:
                cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__)))
                use = f", use {cells['substitute']}" if cells.get("substitute") else ""
                return f"since {cells['version']}{use}"
            fn = getattr(fn, "__wrapped__", None)
    return None


def namespace_listing(ns: str, primitive: type, wrapper_code) -> dict:
    mod = importlib.import_module(ns)
    names, dropped, deprecated = {}, {}, {}
    for name in dir(mod):
        if name.startswith("_"):
            continue
        value = getattr(mod, name)
        kind = kind_of(value, primitive)
        if kind == "module":
            reason = _dropped_module(ns, value)
        elif isinstance(value, __future__._Feature):
            reason = "__future__ feature"
        elif kind in ("class", "primitive", "function") and not str(
                getattr(value, "__module__", "") or "").startswith("mindspore"):
            reason = f"imported from {getattr(value, '__module__', '?')}"
        else:
            reason = None
        if reason:
            dropped[name] = reason
        else:
            names[name] = kind
            why = deprecation(value, wrapper_code)
            if why:
                deprecated[name] = why
    public = getattr(mod, "__all__", None)
    entry = {"names": names, "dropped": dropped, "deprecated": deprecated}
    if public is not None:  # names missing from __all__ are often helpers leaked by imports
        entry["not_in_all"] = sorted(n for n in names if n not in set(public))
    return entry


def tensor_listing(tensor: type, wrapper_code) -> dict:
    """Public members of Tensor: method, property or attribute (a plain class value)."""
    names, deprecated = {}, {}
    for name in dir(tensor):
        if name.startswith("_"):
            continue
        raw = next(vars(k)[name] for k in tensor.__mro__ if name in vars(k))
        if isinstance(raw, property) or inspect.isdatadescriptor(raw):
            names[name] = "property"
        elif callable(raw) or isinstance(raw, (staticmethod, classmethod)):
            names[name] = "method"
        else:
            names[name] = "attribute"
        why = deprecation(raw, wrapper_code)
        if why:
            deprecated[name] = why
    return {"names": names, "dropped": {}, "deprecated": deprecated}


def main() -> None:
    import mindspore
    import numpy
    from mindspore.common._decorator import deprecated

    wrapper_code = deprecated("0", None)(lambda: None).__code__
    primitive = mindspore.ops.Primitive
    listing = {
        "mindspore_version": mindspore.__version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "command": COMMAND,
        "rule": "Public means " + RULE,
        "namespaces": {ns: namespace_listing(ns, primitive, wrapper_code) for ns in NAMESPACES},
    }
    listing["namespaces"][TENSOR] = tensor_listing(mindspore.Tensor, wrapper_code)
    json.dump(listing, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
